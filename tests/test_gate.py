"""The per-file gate and the rules' screens are shortcuts: on every fixture they must give
exactly the findings of a run with both switched off. And they must actually skip: the
gate's work is counted, not timed."""

from pathlib import Path

from mcp_migrate.api import check_bytes, default_settings, settings
from mcp_migrate.core import engine, screening
from mcp_migrate.rules import all_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = sorted(p for p in FIXTURES.rglob("*.py"))


def _findings(settings):
    return {
        str(p.relative_to(FIXTURES)): [
            (f.line, f.column, f.code) for f in check_bytes(p.read_bytes(), str(p), settings).findings
        ]
        for p in SOURCES
    }


def test_gate_and_screens_lose_no_finding(monkeypatch):
    settings = default_settings()
    shortcut = _findings(settings)
    monkeypatch.setattr(screening, "gate_open", lambda data, settings, classes=None: True)
    for rule in all_rules():
        monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
    assert _findings(settings) == shortcut
    assert sum(map(len, shortcut.values())) > 200  # the comparison covers real findings


def test_gate_tokens_are_few_and_skip_ordinary_code(monkeypatch):
    """Most files of a tree are decided by these few substring searches, and never parsed."""
    settings = default_settings()
    tokens = screening._gate_tokens(settings, settings.rules)
    assert len(tokens) <= 10, tokens
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda data: parsed.append(1) or real_parse(data))
    ordinary = b"import os\n\n\ndef walk(root):\n    for base, dirs, files in os.walk(root):\n        yield base\n"
    assert check_bytes(ordinary, "x.py", settings).findings == []
    assert parsed == []


def test_a_rule_selected_alone_finds_what_it_finds_among_all():
    """A rule's gate (its page's `gate`) holds for every file it can report on, so selecting the
    rule alone loses none of its findings. RT001's gate lacked the `mcp` its import-following
    screen needs: `--select RT001` lost `runs dirs_helper.get_dirs`, a helper that asks
    (fixtures/RT001/imported_helper_no_word.py), which the union of all gates let through."""
    everything = _findings(default_settings())
    for rule in all_rules():
        alone = _findings(settings([rule.CODE]))
        among_all = {name: [f for f in found if f[2] == rule.CODE] for name, found in everything.items()}
        assert {n: f for n, f in alone.items() if f} == {n: f for n, f in among_all.items() if f}, rule.CODE
