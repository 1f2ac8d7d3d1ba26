"""`mcp-migrate fix` end to end: the guarantees that involve files on disk."""

import os
import shutil
import stat
import subprocess

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

from mcp_migrate.commands.cli import cli
from mcp_migrate.core.fix import loop as fixer
from mcp_migrate.project.writer import snapshot, write_atomic

REPORT_ONLY = """\
from mcp.server.fastmcp import Context


async def tool(ctx: Context) -> str:
    roots = await ctx.session.list_roots()
    return str(roots)
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_fix_writes_reports_and_exits_clean(project):
    (project / "a.py").write_text(FIXABLE)
    result = invoke("fix", "a.py")
    assert result.exit_code == 0, result.output
    assert (project / "a.py").read_text() == FIXED
    assert "a.py:6: fixed RT004" in result.output
    assert "a.py:7: fixed RT004" in result.output
    again = invoke("fix", "a.py")
    assert again.exit_code == 0 and "fixed" not in again.output


def test_fix_exits_1_when_findings_remain(project):
    (project / "a.py").write_text(FIXABLE)
    (project / "b.py").write_text(REPORT_ONLY)
    result = invoke("fix", ".")
    assert result.exit_code == 1
    assert "b.py:5:19: RT001" in result.output


def test_diff_writes_nothing_and_exits_1(project):
    path = project / "a.py"
    path.write_text(FIXABLE)
    before = os.stat(path).st_mtime_ns
    result = invoke("fix", "--diff", "a.py")
    assert result.exit_code == 1
    assert result.stdout_bytes.startswith(b"--- a/a.py\n+++ b/a.py\n")
    assert path.read_text() == FIXABLE and os.stat(path).st_mtime_ns == before
    (project / "a.py").write_text(FIXED)
    clean = invoke("fix", "--diff", "a.py")
    assert clean.exit_code == 0 and clean.stdout_bytes == b""


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize(
    "content",
    [
        FIXABLE.encode(),
        FIXABLE.replace("\n", "\r\n").encode(),
        b"\xef\xbb\xbf" + FIXABLE.encode(),
        FIXABLE.rstrip("\n").encode(),  # no final newline
        b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXABLE.encode(),
    ],
    ids=["lf", "crlf", "bom", "no-final-newline", "latin1"],
)
def test_diff_applied_with_patch_reproduces_fix(project, content):
    (project / "pkg").mkdir()
    target = project / "pkg" / "a.py"
    target.write_bytes(content)
    diff = invoke("fix", "--diff", "pkg").stdout_bytes
    shutil.copytree(project / "pkg", project / "copy" / "pkg")
    subprocess.run(["patch", "-p1", "--quiet"], input=diff, cwd=project / "copy", check=True)
    assert invoke("fix", "pkg").exit_code == 0
    assert (project / "copy" / "pkg" / "a.py").read_bytes() == target.read_bytes()
    assert target.read_bytes() != content


def test_file_without_fixable_finding_is_never_written(project):
    path = project / "b.py"
    path.write_text(REPORT_ONLY)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    result = invoke("fix", "b.py")
    assert result.exit_code == 1
    assert os.stat(path).st_mtime_ns == 1_000_000_000
    assert path.read_text() == REPORT_ONLY


def test_permission_bits_survive(project):
    path = project / "a.py"
    path.write_text(FIXABLE)
    os.chmod(path, 0o754)
    invoke("fix", "a.py")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o754
    assert path.read_text() == FIXED
    assert not [p for p in project.iterdir() if p.name.endswith(".mcp-migrate")]


def test_write_refuses_a_file_changed_since_read(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    snap = snapshot(path)
    path.write_text(FIXABLE + "# edited meanwhile\n")
    problem = write_atomic(path, FIXED.encode(), snap)
    assert problem == "changed on disk during the run (after it was read): not overwritten"
    assert path.read_text().endswith("# edited meanwhile\n")


def test_symlink_outside_the_fixed_paths_is_skipped(project):
    outside = project / "outside"
    outside.mkdir()
    (outside / "real.py").write_text(FIXABLE)
    tree = project / "tree"
    tree.mkdir()
    (tree / "link.py").symlink_to(outside / "real.py")
    result = CliRunner().invoke(cli, ["fix", "tree"])
    assert (outside / "real.py").read_text() == FIXABLE
    assert "outside the paths being fixed: skipped" in result.output
    assert "tree/link.py:6:11: RT004" in result.output
    assert result.exit_code == 1


def test_symlink_inside_the_fixed_paths_is_fixed_at_its_target(project):
    tree = project / "tree"
    tree.mkdir()
    (tree / "real.py").write_text(FIXABLE)
    (tree / "link.py").symlink_to(tree / "real.py")
    result = invoke("fix", "tree")
    assert result.exit_code == 0, result.output
    assert (tree / "link.py").is_symlink()
    assert (tree / "real.py").read_text() == FIXED


def test_fix_whose_output_does_not_parse_leaves_file_untouched(project, monkeypatch):
    path = project / "a.py"
    path.write_text(FIXABLE)
    real = fixer.fix_once

    def broken(data, path_, settings, unsafe, suggestions=False):
        _, applied, analysis = real(data, path_, settings, unsafe)
        return b"def broken(:\n", applied, analysis

    monkeypatch.setattr(fixer, "fix_once", broken)
    result = CliRunner().invoke(cli, ["fix", "a.py"])
    assert result.exit_code == 2
    assert "RT004" in result.output and "does not parse" in result.output
    assert path.read_text() == FIXABLE


def test_unsafe_fixes_from_flag_and_config(project):
    source = (
        "from mcp.server.lowlevel import Server\n\n\n"
        "async def on_change(ctx, params) -> None:\n    pass\n\n\n"
        "server = Server('x', on_roots_list_changed=on_change)\n"
    )
    (project / "s.py").write_text(source)
    invoke("fix", "s.py")
    assert "def on_change" in (project / "s.py").read_text()
    (project / "s.py").write_text(source)
    invoke("fix", "--unsafe-fixes", "s.py")
    assert "def on_change" not in (project / "s.py").read_text()
    (project / "s.py").write_text(source)
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nunsafe-fixes = true\n")
    invoke("fix", "s.py")
    assert "def on_change" not in (project / "s.py").read_text()


def test_check_counts_fixable_findings(project):
    (project / "a.py").write_text(FIXABLE)
    result = invoke("check", "a.py")
    assert "2 fixable with `mcp-migrate fix`" in result.output
