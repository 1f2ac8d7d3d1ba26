#!/usr/bin/env python3
"""How much of a corpus's Roots findings an applied edit could reach at most, under the fixed
decision that a fix is applied only where it keeps behaviour (issue 36's 60 % target).

    python benchmarks/applied_bound.py --repos DIR [--tool CMD] [--json]

For every ``<owner>+<name>`` folder under DIR, one run as a user would type it in the folder's
parent, ``check --unsafe-fixes --format json --exit-zero <folder>``, and each RT001-RT006
finding put in one class:

  test      in test code (the tool's own notion, core.modules.in_test_code): its edit changes what
            the test checks, so it is applied only where the code it tests is migrated by applied
            edits in the same run (issue 36 §4, tests move with the code they test)
  held      a client-side finding whose fix the run withholds because a server of the same project
            still asks for roots after the run (run.roots_plan.WITHHELD): its legacy clients, and
            the project's own client-server tests, need it (issue 36 §5)
  code      any other finding

The bound counts every ``code`` finding as applied, and every ``test`` finding of a repository
with no ``held`` finding and no code finding left without an edit (its code could all be
migrated, so its tests could move with it): an optimistic figure, since it takes every other
code finding as rewritable. Whole repositories, and scoped as LABELS.md scopes rows 54 and 56
(python-sdk ``examples/`` only, autogen ``python/`` only). Reports; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

from corpus import relative_path  # this folder's scorer: one way to read a finding's path

from mcp_migrate.core.modules import in_test_code
from mcp_migrate.run.roots_plan import WITHHELD

ROOTS_CODES = ("RT001", "RT002", "RT003", "RT004", "RT005", "RT006")
#: LABELS.md: only these parts of these repositories are labelled.
SCOPE = {"modelcontextprotocol+python-sdk": "examples/", "microsoft+autogen": "python/"}
#: The words every withheld client fix's help starts its reason with.
HELD_WORDS = WITHHELD.split("{where}")[0]


def classes(findings: list) -> list:
    """[(class, fix kind)] of the RT001-RT006 findings of one repository."""
    out = []
    for finding in findings:
        if finding["code"] not in ROOTS_CODES:
            continue
        if in_test_code(finding["path"]):
            kind = "test"
        elif HELD_WORDS in finding.get("help", ""):
            kind = "held"
        else:
            kind = "code"
        out.append((kind, finding.get("fix", "none")))
    return out


def bound(rows: dict) -> dict:
    """Counts per class, the applied findings today, and the optimistic applied bound."""
    count: Counter = Counter()
    reachable = applied = 0
    for found in rows.values():
        count.update(kind for kind, _ in found)
        applied += sum(1 for _, fix in found if fix in ("safe", "unsafe"))
        code_free = not any(kind == "held" or (kind == "code" and fix == "none") for kind, fix in found)
        reachable += sum(1 for kind, _ in found if kind == "code" or (kind == "test" and code_free))
    n = sum(count.values())
    return {"findings": n, **count, "applied": applied, "bound": reachable}


def line(name: str, figures: dict) -> str:
    n = figures["findings"] or 1
    cells = [f"{figures.get(key, 0)} ({100.0 * figures.get(key, 0) / n:.1f}%)" for key in ("test", "held", "code")]
    applied = f"{100.0 * figures['applied'] / n:.1f}%"
    return (
        f"| {name} | {figures['findings']} | "
        + " | ".join(cells)
        + f" | {applied} | {100.0 * figures['bound'] / n:.1f}% |"
    )


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="applied_bound.py", description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, required=True, help="folder of <owner>+<name> repository folders")
    parser.add_argument("--tool", default=None, help='tool command (default: "<this python> -m mcp_migrate")')
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.repos.is_dir():
        print(f"error: {args.repos}: not a folder", file=sys.stderr)
        return 2
    command = shlex.split(args.tool) if args.tool else [sys.executable, "-m", "mcp_migrate"]
    whole, scoped = {}, {}
    for folder in sorted((p for p in args.repos.iterdir() if p.is_dir()), key=lambda p: p.name.lower()):
        run = subprocess.run(
            command + ["check", "--unsafe-fixes", "--format", "json", "--exit-zero", str(folder)],
            capture_output=True,
            text=True,
        )
        if run.returncode not in (0, 1):
            print(f"warning: {folder.name}: skipped: exit status {run.returncode}", file=sys.stderr)
            continue
        findings = [dict(f, path=relative_path(f["path"], folder)) for f in json.loads(run.stdout)["findings"]]
        whole[folder.name] = classes(findings)
        part = SCOPE.get(folder.name)
        scoped[folder.name] = classes([f for f in findings if part is None or f["path"].startswith(part)])
    figures = {"whole": bound(whole), "scoped": bound(scoped)}
    if args.json:
        print(json.dumps(figures))
        return 0
    print("| corpus | RT001-RT006 | test | held | code | applied today | applied bound |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, row in figures.items():
        print(line(name, row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
