"""Offline facts about the licence, the project URLs, the changelog and what the README says
about installing (the install routes themselves run in test_packaging.py)."""

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
PLACEHOLDER = "https://github.com/OWNER/mcp-migrate"


def test_mit_licence_as_an_spdx_expression():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Copyright (c) 2026 mcp_migrate contributors" in text
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert not any("License ::" in c for c in PROJECT.get("classifiers", []))  # setuptools>=77 rejects both
    (backend,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert backend == "setuptools>=77"


def test_project_urls_are_placeholders_the_readme_names():
    urls = PROJECT["urls"]
    assert set(urls) == {"Homepage", "Repository", "Issues", "Changelog"}
    assert all(url.startswith(PLACEHOLDER) for url in urls.values())
    assert "is a **placeholder**: replace `OWNER`" in README


def test_readme_does_not_claim_the_package_is_on_pypi():
    assert "is **not on PyPI** yet" in README
    assert not re.search(r"pip install (--\S+ )*mcp-roots-migrate\b", README)
    assert not re.search(r"pipx install (--\S+ )*mcp-roots-migrate\b", README)


def test_changelog_starts_at_0_1_0_with_unreleased_on_top():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased" and versions[1] == PROJECT["version"] and versions[-1] == "0.1.0"
    assert "keepachangelog.com" in text


def test_install_routes_are_test_dependencies():
    extras = " ".join(PROJECT["optional-dependencies"]["test"])
    assert "build" in extras and "pipx" in extras and "pre-commit" in extras
