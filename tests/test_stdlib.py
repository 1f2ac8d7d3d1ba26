"""The installed standard library is a large body of real Python that never uses MCP: no Roots
rule (RT001-RT006) may fire on it and no rule may crash on it.

Passes:
* every stdlib file through `check_bytes` as the CLI runs it (the byte screen first, so this
  takes a few seconds: the Roots rules' screens let no stdlib file through);
* a deterministic sample parsed and walked by the Roots rules with the screen switched off, so
  their visit code really runs over ordinary code;
* opt-in (`MCP_MIGRATE_STDLIB_ALL=1`): every file with `default_settings()` (all rules,
  including the security and approval rules), asserting only that nothing crashes. It takes
  minutes, because those rules' screens admit a few hundred stdlib files, and some of them
  (RT102, RT103) legitimately report stdlib code such as `'file://' + path`.

The only findings allowed are E999 on files that are intentionally not Python 3 (parser test
data) or that LibCST cannot parse; that set is listed below and kept small.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from mcp_migrate.api import check_bytes, default_settings
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.settings import Settings
from mcp_migrate.rules import all_rules

#: The Roots migration rules (RT001-RT006): tagged `roots` alone on their pages (the security
#: rules are tagged `security` too).
ROOTS_RULES = frozenset(code for code, info in load_catalog().items() if info.tags == ("roots",))
STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: Directories never walked: installed third-party packages and caches.
SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}
#: Files that may yield E999 (relative to the stdlib, glob patterns). Intentionally invalid
#: Python 2 / bad-encoding test inputs, plus valid Python that LibCST's parser rejects
#: (parenthesized annotated targets such as `(pars): bool = True`).
KNOWN_UNPARSEABLE = (
    "lib2to3/tests/data/*",
    "test/badsyntax_*",
    "test/bad_*",
    "test/tokenizedata/bad*",
    "test/test_grammar.py",
    "test/typinganndata/ann_module.py",
)
MAX_SYNTAX_ERRORS = 15
#: Sample for the unscreened pass: files of this size range, every SAMPLE_STEP-th one.
SAMPLE_SIZE_RANGE = (500, 6_000)
SAMPLE_STEP = 15


def _rel(path: Path) -> str:
    return path.relative_to(STDLIB).as_posix()


def _known_unparseable(path: Path) -> bool:
    rel = Path(_rel(path))
    return any(rel.match(pattern) for pattern in KNOWN_UNPARSEABLE)


def _stdlib_files() -> list:
    files = [p for p in STDLIB.rglob("*.py") if not set(p.relative_to(STDLIB).parts) & SKIP_DIRS]
    return sorted(files)


FILES = _stdlib_files()


def _run(paths, settings: Settings) -> tuple:
    findings, errors, syntax = [], [], []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        result = check_bytes(data, str(path), settings)
        errors.extend(f"{_rel(path)}: {e.code}: {e.message}" for e in result.errors)
        for f in result.findings:
            if f.code == "E999":
                syntax.append(path)
            else:
                findings.append(f"{_rel(path)}:{f.line}:{f.column} {f.code} {f.message[:80]}")
    return findings, errors, syntax


def _check(findings, errors, syntax) -> None:
    assert not errors, "rules crashed:\n" + "\n".join(errors)
    assert not findings, "findings in the standard library:\n" + "\n".join(findings)
    unexpected = [_rel(p) for p in syntax if not _known_unparseable(p)]
    assert not unexpected, "E999 on files that should parse:\n" + "\n".join(unexpected)
    assert len(syntax) <= MAX_SYNTAX_ERRORS, sorted(_rel(p) for p in syntax)


def _roots_settings() -> Settings:
    default = default_settings()
    assert ROOTS_RULES <= default.select
    return Settings(select=ROOTS_RULES)


def test_stdlib_screened() -> None:
    assert len(FILES) > 500, f"found only {len(FILES)} files under {STDLIB}"
    _check(*_run(FILES, _roots_settings()))


def test_stdlib_sample_unscreened(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_migrate.core import screening

    monkeypatch.setattr(screening, "gate_open", lambda data, settings, classes=None: True)
    for rule in all_rules():
        if rule.CODE in ROOTS_RULES:
            monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
    low, high = SAMPLE_SIZE_RANGE
    sized = [p for p in FILES if low <= p.stat().st_size <= high]
    sample = sized[::SAMPLE_STEP]
    assert len(sample) > 40
    _check(*_run(sample, _roots_settings()))


def test_stdlib_all_rules_do_not_crash() -> None:
    settings = default_settings()
    crashes = []
    for path in FILES:
        try:
            result = check_bytes(path.read_bytes(), str(path), settings)
        except Exception as exc:  # check_bytes promises never to raise for bad input
            crashes.append(f"{_rel(path)}: check_bytes raised {type(exc).__name__}")
            continue
        crashes.extend(f"{_rel(path)}: {e.code}: {e.message}" for e in result.errors)
        crashes.extend(
            f"{_rel(path)}:{f.line} {f.code}"
            for f in result.findings
            if f.code in ROOTS_RULES or (f.code == "E999" and not _known_unparseable(path))
        )
    assert not crashes, "\n".join(crashes)
