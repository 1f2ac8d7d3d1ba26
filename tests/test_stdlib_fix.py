"""`fix` over a copy of the installed standard library changes no file (it has no Roots code,
and a file without a fixable finding must never be written)."""

import hashlib
import shutil
import sysconfig
from pathlib import Path

from click.testing import CliRunner

from mcp_migrate.commands.cli import cli


def _state(root: Path) -> dict:
    out = {}
    for path in root.rglob("*.py"):
        if path.is_symlink() or not path.is_file():
            continue
        st = path.stat()
        out[path] = (st.st_mtime_ns, hashlib.sha1(path.read_bytes()).hexdigest())
    return out


def test_fix_over_stdlib_copy_changes_nothing(tmp_path, monkeypatch):
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    copy = tmp_path / "stdlib"
    shutil.copytree(
        stdlib,
        copy,
        ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "*.pyc", "*.so"),
        symlinks=True,
    )
    before = _state(copy)
    assert len(before) > 500
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(cli, ["fix", "--jobs", "2", str(copy)])
    assert result.exit_code in (0, 1), result.output[-2000:]
    assert "fixed" not in result.output
    assert _state(copy) == before
    assert not [p for p in copy.rglob("*.mcp-migrate")]
