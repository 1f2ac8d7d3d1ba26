"""Packaging facts checked offline: every subpackage and data file ships, and the distribution
name does not clash with the other `mcp-migrate` project."""

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_listed():
    listed = set(PROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "mcp_migrate").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_schemas_ship_as_package_data():
    assert "*.json" in PROJECT["tool"]["setuptools"]["package-data"]["mcp_migrate.schemas"]
    assert (REPO / "mcp_migrate" / "schemas" / "report.schema.json").is_file()


def test_distribution_name_is_free_and_the_clash_is_documented():
    assert PROJECT["project"]["name"] == "mcp-roots-migrate"
    assert PROJECT["project"]["scripts"] == {"mcp-migrate": "mcp_migrate.commands.process:run"}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "cannot be installed in one environment" in " ".join(readme.split())


def test_test_extras_hold_what_the_ci_tests_need():
    extras = " ".join(PROJECT["project"]["optional-dependencies"]["test"])
    assert "pre-commit" in extras and "jsonschema" in extras
