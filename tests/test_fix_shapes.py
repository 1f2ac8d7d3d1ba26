"""Shapes real diffs showed (issue 20 §4), each fixed where the first look found it wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.fix.layout import python_floor

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
FALLBACK = REPO / "fixtures" / "migrate" / "fallback_parameter.py"


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.mark.parametrize(
    ("config", "annotation"),
    [
        ('[project]\nname = "p"\nrequires-python = ">=3.9"\n', "Optional[list[str]]"),
        ('[tool.ruff]\ntarget-version = "py38"\n', "Optional[list[str]]"),
        ('[project]\nname = "p"\nrequires-python = ">=3.10"\n', "list[str] | None"),
        ("", "list[str] | None"),
    ],
)
def test_an_optional_parameter_is_spelled_for_the_oldest_python_the_project_declares(
    tmp_path, monkeypatch, config, annotation
):
    """`list[str] | None` in an Annotated[...] is evaluated when the tool is defined: a
    TypeError at import on Python 3.9, which the project declares."""
    monkeypatch.chdir(tmp_path)
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    shutil.copy(FALLBACK, tmp_path / "tools.py")
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "tools.py")
    fixed = (tmp_path / "tools.py").read_text()
    assert fixed.count(f"        {annotation},\n") == 2
    other = "list[str] | None" if annotation.startswith("Optional") else "Optional[list[str]]"
    assert other not in fixed
    compile(fixed, "tools.py", "exec")


def test_a_module_with_postponed_annotations_keeps_the_union(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.8"\n')
    text = FALLBACK.read_text().replace("import json\n", "from __future__ import annotations\n\nimport json\n", 1)
    (tmp_path / "tools.py").write_text(text)
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "tools.py")
    assert "        list[str] | None,\n" in (tmp_path / "tools.py").read_text()


def test_python_floor_reads_requires_python_then_ruff(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nrequires-python = "~=3.9"\n')
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "ruff.toml").write_text('target-version = "py311"\n')
    assert python_floor(str(tmp_path / "a" / "x.py")) == (3, 9)
    assert python_floor(str(tmp_path / "b" / "x.py")) == (3, 11)
