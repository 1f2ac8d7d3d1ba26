"""Release hygiene: the CHANGELOG's latest released version is the version the package reports
(`mcp-migrate --version`, `__version__`, pyproject.toml), and its link references agree."""

import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from mcp_migrate import __version__

REPO = Path(__file__).resolve().parent.parent
CHANGELOG = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
HEADING = re.compile(r"^## \[([^\]]+)\]", re.MULTILINE)


def released_versions() -> list:
    return [v for v in HEADING.findall(CHANGELOG) if v != "Unreleased"]


def test_changelog_latest_release_is_the_reported_version():
    versions = released_versions()
    assert versions, "CHANGELOG.md has no released version"
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_migrate.commands.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert proc.stdout == f"mcp-migrate {versions[0]}\n"
    assert versions[0] == __version__
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["version"] == versions[0]


def test_changelog_sections_and_links_agree():
    headings = HEADING.findall(CHANGELOG)
    assert headings[0] == "Unreleased", "unreleased changes go on top"
    versions = released_versions()
    assert versions == sorted(versions, key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True)
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", CHANGELOG, re.MULTILINE))
    assert links["Unreleased"].endswith(f"/compare/v{versions[0]}...HEAD")
    for version in versions:
        assert links[version].endswith(f"/releases/tag/v{version}"), version
