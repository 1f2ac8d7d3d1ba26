"""The per-file gate and the rules' screens are shortcuts: on every fixture they must give
exactly the findings of a run with both switched off. And they must actually skip: the
gate's work is counted, not timed."""

from pathlib import Path

from mcp_migrate.api import check_bytes, default_settings
from mcp_migrate.checks import all_rules
from mcp_migrate.core import engine

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
    monkeypatch.setattr(engine, "gate_open", lambda data, settings: True)
    for rule in all_rules():
        monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
    assert _findings(settings) == shortcut
    assert sum(map(len, shortcut.values())) > 200  # the comparison covers real findings


def test_gate_tokens_are_few_and_skip_ordinary_code(monkeypatch):
    """Most files of a tree are decided by these few substring searches, and never parsed."""
    settings = default_settings()
    tokens = engine._gate_tokens(settings)
    assert len(tokens) <= 10, tokens
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda data: parsed.append(1) or real_parse(data))
    ordinary = b"import os\n\n\ndef walk(root):\n    for base, dirs, files in os.walk(root):\n        yield base\n"
    assert check_bytes(ordinary, "x.py", settings).findings == []
    assert parsed == []
