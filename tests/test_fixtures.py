"""The fixture corpus: every `fixtures/<folder>/<name>.py` with a sibling `<name>.expected`
holds the exact findings of a full check (all codes), one `LINE:COL CODE message` per line, so
a changed position, code or message fails.

Other files in those folders (fix goldens such as `.py.fixed`, inputs without `.expected`)
belong to other tests and are skipped here. Negative fixtures are named `neg_*.py` and
expect nothing.

After a deliberate change, regenerate (and read the diff before committing):

    python tests/test_fixtures.py --write fixtures/RT001/some_case.py [...]
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from mcp_migrate.api import check_source
from mcp_migrate.core.catalog import load_catalog

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: A folder named like a rule code holds that rule's fixtures.
RULE_DIR = re.compile(r"^[A-Z]+\d+$")
LINE = re.compile(r"^\d+:\d+ [A-Z]+\d+ \S.*$")


def _cases() -> list:
    return sorted(p for p in FIXTURES.glob("*/*.py") if p.with_suffix(".expected").is_file())


CASES = _cases()


def _expected(path: Path) -> list:
    lines = [line.strip() for line in path.with_suffix(".expected").read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line]


def _key(entry: str) -> tuple:
    pos, code = entry.split(" ")[:2]
    line, col = pos.split(":")
    return int(line), int(col), code


def expected_lines(path: Path) -> list:
    """What `path`'s `.expected` must hold: its findings, one `LINE:COL CODE message` each, and
    a helper's callers (core.callers: related locations in the same file) after the message as
    `[called from LINE:COL, ...]`."""
    return [
        f"{f.line}:{f.column} {f.code} {f.message}{called_from(f)}" for f in check_source(path.read_bytes(), str(path))
    ]


def called_from(finding) -> str:
    """` [called from 11:20, 17:18]`: the finding's related locations, all in its own file."""
    assert all(r.path == finding.path for r in finding.related)
    where = ", ".join(f"{r.line}:{r.column}" for r in finding.related)
    return f" [called from {where}]" if where else ""


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_fixture(path: Path) -> None:
    expected = _expected(path)
    assert all(LINE.match(e) for e in expected), f"malformed line in {path.with_suffix('.expected')}"
    assert expected == sorted(expected, key=_key), f"{path.with_suffix('.expected')} is not sorted"
    if path.name.startswith("neg_"):
        assert expected == [], f"negative fixture {path.name} must expect no findings"
    else:
        assert expected, f"positive fixture {path.name} expects no findings; name it neg_*.py"
    assert expected_lines(path) == expected


def test_every_rule_folder_has_positive_and_negative() -> None:
    """The rule folders are the catalog's rules, one each: a new rule's page asks for its
    fixtures, and a folder named like a code belongs to a rule."""
    folders = sorted(d for d in FIXTURES.iterdir() if d.is_dir() and RULE_DIR.match(d.name))
    assert [d.name for d in folders] == sorted(load_catalog())
    for folder in folders:
        cases = [p for p in CASES if p.parent == folder]
        assert any(p.name.startswith("neg_") for p in cases), f"{folder.name} has no negative fixture"
        assert any(not p.name.startswith("neg_") for p in cases), f"{folder.name} has no positive fixture"
        # A positive fixture must exercise the rule of its folder.
        codes = {e.split(" ")[1] for p in cases for e in _expected(p)}
        assert folder.name in codes, f"no fixture in {folder.name} expects {folder.name}"


@pytest.mark.parametrize(
    "name", ["RT001/listroots_marker.py", "RT001/input_required_result.py", "RT001/input_requests_wire.py"]
)
def test_era_portable_bridge_is_info(name: str) -> None:
    path = FIXTURES / name
    findings = [f for f in check_source(path.read_bytes(), str(path)) if f.code == "RT001"]
    assert findings and all(f.severity == "info" for f in findings)


def test_fixture_counts(capsys) -> None:
    counts = Counter(p.parent.name for p in CASES)
    negatives = Counter(p.parent.name for p in CASES if p.name.startswith("neg_"))
    with capsys.disabled():
        print()
        for folder in sorted(counts):
            print(
                f"fixtures/{folder}: {counts[folder]} ({counts[folder] - negatives[folder]} positive, {negatives[folder]} negative)"
            )


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] != ["--write"] or len(sys.argv) < 3:
        sys.exit("usage: python tests/test_fixtures.py --write FIXTURE.py [...]")
    for name in sys.argv[2:]:
        fixture = Path(name).resolve()
        lines = expected_lines(fixture)
        fixture.with_suffix(".expected").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        print(f"{fixture.with_suffix('.expected')}: {len(lines)} findings")
