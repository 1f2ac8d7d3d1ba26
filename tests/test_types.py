"""The type check on the whole package: mypy, strict about Optional (`--strict-optional` is
mypy's default) and checking the bodies of unannotated functions too. Today's errors are listed
in tests/mypy-allowlist.txt; a new error fails, and so does an entry that no longer occurs (the
list may only shrink: delete the line). Regenerate it (only to remove lines; read the diff) with
`python tests/test_types.py`."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALLOWLIST = REPO / "tests" / "mypy-allowlist.txt"
TARGETS = ("mcp_migrate",)
FLAGS = ("--check-untyped-defs", "--ignore-missing-imports", "--no-error-summary", "--show-error-codes", "--no-pretty")
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*)$")


def mypy_errors() -> Counter:
    """`path: message [code]` for each error, without line numbers (they move with every edit)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *FLAGS, *TARGETS], cwd=REPO, capture_output=True, text=True, check=False
    )
    found = Counter()
    for line in done.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            found[f"{match['path']}: {match['message']}"] += 1
    assert done.returncode in (0, 1), done.stderr
    return found


def allowed() -> Counter:
    lines = ALLOWLIST.read_text(encoding="utf-8").splitlines()
    return Counter(line for line in lines if line.strip() and not line.startswith("#"))


def test_no_new_type_errors_and_the_allowlist_only_shrinks():
    found, known = mypy_errors(), allowed()
    new = sorted((found - known).elements())
    gone = sorted((known - found).elements())
    assert not new, "new type errors (fix them):\n" + "\n".join(new)
    assert not gone, "fixed, so delete from tests/mypy-allowlist.txt:\n" + "\n".join(gone)


def test_mypy_is_a_pinned_test_dependency_and_runs_in_every_tier():
    """The allow-list holds mypy's messages, which change between versions: the version the
    list was made with is the one `pip install -e '.[test]'` gets. And the check is no slow or
    network test: the fast tier and pre-commit run it too."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert [e for e in extras["test"] if re.fullmatch(r"mypy==\d+(\.\d+)*", e)], extras["test"]
    assert not getattr(test_no_new_type_errors_and_the_allowlist_only_shrinks, "pytestmark", [])
    assert "pytestmark" not in globals()


if __name__ == "__main__":  # regenerate the allowlist (only to remove lines; read the diff)
    header = "# mypy errors in mcp_migrate/ known on 2026-12-02 (tests/test_types.py). Only delete lines.\n"
    ALLOWLIST.write_text(header + "".join(f"{e}\n" for e in sorted(mypy_errors().elements())), encoding="utf-8")
