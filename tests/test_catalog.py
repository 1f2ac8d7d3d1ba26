"""The rule list is said once: the catalog pages (rules/*.md), the rule classes found by walking
`mcp_migrate/rules/` and the README's table must name the same rules, and each page's fix kind
must be what the rule's own fixes are. What the run knows of a rule before importing it (gate,
side, tags) is front matter on its page, checked when the catalog is read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_migrate.api import check_source
from mcp_migrate.core.catalog import CatalogError, load_catalog, parse_entry
from mcp_migrate.core.codes import ENGINE_CODES
from mcp_migrate.rules import all_rules

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


def test_rules_are_found_by_walking_the_package(tmp_path, monkeypatch):
    """A rule module dropped into the package is found with no list to join; a rule class a
    module only imports (`WireMethodRule`, another module's) is not counted twice."""
    import sys

    import mcp_migrate.rules as package

    (tmp_path / "zz999_dummy.py").write_text(
        "from mcp_migrate.core.rule import Rule\n"
        "from mcp_migrate.rules.rt006_list_changed_flag import ListChangedFlag\n\n\n"
        "class Dummy(Rule):\n    CODE = 'ZZ999'\n"
    )
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    try:
        found = package.all_rules.__wrapped__()
    finally:
        sys.modules.pop("mcp_migrate.rules.zz999_dummy", None)
    assert [rule.CODE for rule in found] == sorted({rule.CODE for rule in all_rules()} | {"ZZ999"})
    assert not (Path(package.__file__).read_text(encoding="utf-8").count("import mcp_migrate.rules."))


PAGE = '+++\ncode = "X1"\nname = "x"\nseverity = "info"\nfix = "none"\nsummary = "s"\n{}\n+++\nbody\n'


def test_gate_side_and_tags_are_front_matter():
    info = parse_entry(PAGE.format('gate = ["oots", "MCP"]\nside = "client"\ntags = ["roots"]'), "x.md")
    assert (info.gate, info.side, info.tags) == ((b"oots", b"MCP"), "client", ("roots",))
    assert (lambda i: (i.gate, i.side, i.tags))(parse_entry(PAGE.format(""), "x.md")) == ((), "", ())
    rt006 = load_catalog()["RT006"]
    assert (rt006.gate, rt006.side, rt006.tags) == ((b"oots",), "client", ("roots",))


@pytest.mark.parametrize(
    "bad",
    ['gate = "oots"', "gate = [1]", 'gate = [""]', 'gate = ["ö"]', 'side = "both"', 'tags = "roots"', "tags = [true]"],
)
def test_bad_gate_side_or_tags_is_a_catalog_error(bad):
    with pytest.raises(CatalogError, match="^x.md: "):
        parse_entry(PAGE.format(bad), "x.md")


def test_every_rule_page_names_its_gate_and_tags():
    """A rule whose page named no gate would be gated by its class's SCREEN in the engine but by
    nothing in the runner's first test, which reads the pages only: such a file would lose its
    findings. Every page carries tags (SARIF's)."""
    catalog = load_catalog()
    assert not [rule.CODE for rule in all_rules() if not catalog[rule.CODE].gate]
    assert not [code for code, info in catalog.items() if not info.tags]
