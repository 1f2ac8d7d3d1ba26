"""The line length a fix wraps at is read the way ruff finds its configuration (issue 12,
defect 12): the nearest folder with `.ruff.toml`, `ruff.toml` or pyproject.toml decides, in
that order; pyproject's [tool.ruff] before [tool.black]; 88 when nothing says."""

import pytest

from mcp_migrate.core.fix.layout import line_length


def _project(tmp_path, files: dict):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(tmp_path / "pkg" / "mod.py")


@pytest.mark.parametrize(
    "files, expected",
    [
        ({}, 88),
        ({"pyproject.toml": "[tool.black]\nline-length = 100\n"}, 100),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 120\n[tool.black]\nline-length = 100\n"}, 120),
        ({"ruff.toml": "line-length = 110\n", "pyproject.toml": "[tool.ruff]\nline-length = 79\n"}, 110),
        ({".ruff.toml": "line-length = 99\n", "ruff.toml": "line-length = 110\n"}, 99),
        # The nearest folder wins: a package's own ruff.toml over the project's pyproject.
        ({"pkg/ruff.toml": "line-length = 72\n", "pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 72),
        ({"ruff.toml": "[lint]\nselect = ['E']\n"}, 88),
        ({"ruff.toml": "line-length = [\n"}, 88),  # unreadable: the default, never a crash
    ],
    ids=[
        "none",
        "black",
        "ruff-over-black",
        "ruff.toml-over-pyproject",
        "dot-ruff-first",
        "nearest",
        "unset",
        "broken",
    ],
)
def test_line_length_follows_ruff_precedence(tmp_path, files, expected):
    assert line_length(_project(tmp_path, files)) == expected
