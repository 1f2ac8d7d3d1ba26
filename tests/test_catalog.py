"""The rule list is said once: the catalog pages (rules/*.md), the registry of rule classes and
the README's table must name the same rules, and each page's fix kind must be what the rule's
own fixes are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_migrate.api import check_source
from mcp_migrate.checks import all_rules
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import ENGINE_CODES

README = Path(__file__).resolve().parent.parent / "README.md"
ROW = re.compile(r"^\| ([A-Z]+\d+) \| ([a-z0-9-]+) \| .* \| (none|safe|unsafe|display)\b.*\|$")


def _readme_rows() -> dict:
    return {m[1]: (m[2], m[3]) for m in map(ROW.match, README.read_text(encoding="utf-8").splitlines()) if m}


def test_catalog_and_registry_name_the_same_rules():
    """A page without a class would be listed by `rules` yet never fire; a class without a
    page could not be explained or selected. Engine-produced codes (RT900...) have no class."""
    registered = {rule.CODE for rule in all_rules()}
    assert len(registered) == len(all_rules()), "two rule classes share a code"
    assert registered | set(ENGINE_CODES) == set(load_catalog())
    assert not registered & set(ENGINE_CODES)


def test_readme_table_is_the_catalog():
    catalog = {code: (info.name, info.fix) for code, info in load_catalog().items()}
    assert _readme_rows() == catalog


def test_readme_table_parser_sees_rows():
    assert "RT001" in _readme_rows()


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.CODE)
def test_page_fix_kind_is_what_the_rule_builds(rule):
    """`none`: the rule never offers a fix; `safe`: some example gets a safe fix; `unsafe`:
    fixes exist and none of them is offered as safe."""
    page = load_catalog()[rule.CODE].fix
    kinds = {f.fix for example in rule.INVALID for f in check_source(example.code) if f.code == rule.CODE}
    if page == "none":
        assert kinds == {"none"}, kinds
    elif page == "safe":
        assert "safe" in kinds, kinds
    elif page == "display":  # shown as a suggestion, never applied by fix (issue 20 §4)
        assert "display" in kinds and not kinds & {"safe", "unsafe"}, kinds
    else:
        assert "unsafe" in kinds and "safe" not in kinds, kinds
