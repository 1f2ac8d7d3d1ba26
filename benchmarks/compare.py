#!/usr/bin/env python3
"""What changed between two builds of the tool, finding by finding, on real repositories.

    python benchmarks/compare.py --repos DIR --before CMD --after CMD [--only NAME ...] [--json]

Runs ``CMD check --no-cache --format json --exit-zero .`` in each ``<owner>+<name>`` folder of DIR
with both tools and prints, per repository, the findings only one of them gives (code, path,
line, column, message) and each side's count of "called from here" related locations. A rule
change is reviewed from this list (every added finding read, every removed one explained)
before its recall figure is believed: the corpus score says how many labels moved, this says
what else moved with them.

Exit status 0 when both tools ran everywhere (differences are the output, not a failure), 1 when
a tool failed on a repository. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path


def findings(command: list, folder: Path) -> tuple:
    """(the findings as a set of (code, path, line, column, message), the caller locations as
    a set of (code, path, line)) of one tool on one folder; raises RuntimeError when it fails."""
    done = subprocess.run(
        [*command, "check", "--no-cache", "--format", "json", "--exit-zero", "."],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{shlex.join(command)}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(done.stdout)
    found, callers = set(), set()
    for item in report.get("findings", []):
        found.add((item["code"], item["path"], item["line"], item["column"], item["message"]))
        for related in item.get("related") or ():
            if related.get("message") == "called from here":
                callers.add((item["code"], related["path"], related["line"]))
    return found, callers


def compare(before: list, after: list, folder: Path) -> dict:
    """The findings and caller locations only one side has, on one folder."""
    old, old_callers = findings(before, folder)
    new, new_callers = findings(after, folder)
    return {
        "before": len(old),
        "after": len(new),
        "removed": sorted(old - new),
        "added": sorted(new - old),
        "callers_removed": sorted(old_callers - new_callers),
        "callers_added": sorted(new_callers - old_callers),
    }


def _command(text: str) -> list:
    """A command split on spaces, its program made absolute when it is a relative path (each
    run's working directory is a repository folder, not the caller's)."""
    words = shlex.split(text)
    if words and os.sep in words[0] and not os.path.isabs(words[0]):
        words[0] = os.path.abspath(words[0])
    return words


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, required=True, help="folder of <owner>+<name> folders")
    parser.add_argument("--before", required=True, help="the tool before (a command, split on spaces)")
    parser.add_argument("--after", required=True, help="the tool after")
    parser.add_argument("--only", nargs="*", default=None, help="only these folder names")
    parser.add_argument("--json", action="store_true", help="print the differences as JSON")
    args = parser.parse_args(argv)
    before, after = _command(args.before), _command(args.after)
    folders = sorted(p for p in args.repos.iterdir() if p.is_dir() and (not args.only or p.name in args.only))
    result, failed = {}, False
    for folder in folders:
        try:
            result[folder.name] = compare(before, after, folder)
        except (OSError, RuntimeError, json.JSONDecodeError) as exc:
            print(f"{folder.name}: {exc}", file=sys.stderr)
            failed = True
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name, diff in result.items():
            changes = diff["removed"] or diff["added"] or diff["callers_removed"] or diff["callers_added"]
            if not changes:
                continue
            print(f"{name}: {diff['before']} -> {diff['after']} findings")
            for sign, key in (("-", "removed"), ("+", "added")):
                for code, path, line, column, message in diff[key]:
                    print(f"  {sign} {code} {path}:{line}:{column} {message}")
            for sign, key in (("-", "callers_removed"), ("+", "callers_added")):
                for code, path, line in diff[key]:
                    print(f"  {sign} {code} {path}:{line} (called from here)")
        total = sum(len(d["added"]) for d in result.values()), sum(len(d["removed"]) for d in result.values())
        print(f"{len(result)} repositories: {total[0]} findings added, {total[1]} removed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
