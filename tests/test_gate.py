"""The per-file gate and the rules' screens are shortcuts: on every fixture they must give
exactly the findings of a run with both switched off. And they must actually skip: the
gate's work is counted, not timed."""

from pathlib import Path

from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from mcp_migrate.api import check_bytes, default_settings, settings
from mcp_migrate.core import engine, screening
from mcp_migrate.core.gates import fewest, holds_any
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


def test_the_gate_keeps_no_token_that_holds_another():
    """`list_roots` opens nothing `oots` does not: each token kept is a search through every
    file of a tree, so a token holding another is dropped, and the order is one for a set."""
    assert fewest({b"list_roots", b"oots", b"mcp-migrate:", b"mcp", b"Root"}) == (b"mcp", b"Root", b"oots")
    assert fewest([b"b", b"a", b"ab"]) == fewest([b"ab", b"a", b"b"]) == (b"a", b"b")
    assert b"list_roots" not in screening._gate_tokens(default_settings(), default_settings().rules)


TOKENS = st.lists(st.sampled_from([b"mcp", b"oots", b"Root", b"x"]), min_size=1, max_size=3).map(tuple)
TEXT = st.lists(st.sampled_from([b"mcp", b"oot", b"s", b"Root", b"x", b"\n"]), max_size=6).map(b"".join)


@hyp_settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), TEXT, TOKENS), min_size=1, max_size=8))
def test_the_gate_kept_answer_is_the_search_for_any_bytes_and_tokens(calls):
    """`holds_any` keeps its last answer by the bytes object and the tokens: a sequence of
    questions about the same, equal or other bytes and tokens gets the plain search's answers."""
    objects = [b"" + b"mcp", b"oots", b"nothing"]
    for which, text, tokens in calls:
        data = objects[which] if which < 2 and not text else text
        assert holds_any(data, tokens) == any(token in data for token in tokens)
