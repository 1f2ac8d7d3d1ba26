"""Every JSON report mcp-migrate can print validates against the schema the package ships
(mcp_migrate/schemas/report.schema.json), on every fixture: `check`, `check --unsafe-fixes
--statistics`, `check --select ALL` (the opt-in rules' fix kinds) and `fix --unsafe-fixes`'s
report of what it wrote and marked (issue 33 §3)."""

from __future__ import annotations

import json
import shutil
from importlib.resources import files

import jsonschema
import pytest
from click.testing import CliRunner
from fixture_units import folders

from mcp_migrate.commands.cli import cli

SCHEMA = json.loads((files("mcp_migrate.schemas") / "report.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
FOLDERS = folders()
CHECKS = {
    "check": ("check",),
    "unsafe-statistics": ("check", "--unsafe-fixes", "--statistics"),
    "all-rules": ("check", "--select", "ALL", "--unsafe-fixes"),
}


def run(*args: str):
    cache = ("--no-cache",) if args[0] == "check" else ()
    return CliRunner().invoke(cli, [*args, *cache, "--output-format", "json"], catch_exceptions=False)


def _problems(doc: dict) -> list:
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:120]}" for e in VALIDATOR.iter_errors(doc))


@pytest.mark.parametrize("mode", sorted(CHECKS))
@pytest.mark.parametrize("unit", FOLDERS, ids=[u.name for u in FOLDERS])
def test_check_reports_validate(unit, mode, monkeypatch):
    monkeypatch.chdir(unit.path.parent)
    result = run(*CHECKS[mode], unit.path.name)
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["findings"] or unit.name == "RT900", "a fixture folder without findings proves nothing"
    assert _problems(doc) == []


@pytest.mark.parametrize("unit", FOLDERS, ids=[u.name for u in FOLDERS])
def test_fix_reports_validate(unit, tmp_path, monkeypatch):
    shutil.copytree(unit.path, tmp_path / unit.name)
    monkeypatch.chdir(tmp_path)
    result = run("fix", "--unsafe-fixes", unit.name)
    assert result.exit_code in (0, 1), result.output
    assert _problems(json.loads(result.stdout)) == []


def test_the_schema_knows_every_fix_kind():
    """A finding's `fix` is one of the kinds the engine gives (core.findings.FIX_KINDS)."""
    from mcp_migrate.core.findings import FIX_KINDS

    assert SCHEMA["definitions"]["finding"]["properties"]["fix"]["enum"] == list(FIX_KINDS)
