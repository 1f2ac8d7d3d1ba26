#!/usr/bin/env python3
"""What changed between two builds of the tool, finding by finding, on real repositories.

    python benchmarks/compare.py --repos DIR --before CMD --after CMD [--only NAME ...] [--json]

Runs ``CMD check --no-cache --format json --exit-zero [ARGS] .`` in each ``<owner>+<name>`` folder
of DIR with both tools and prints, per repository, the findings only one of them gives (code,
path, line, column, message), each side's "called from here" related locations, and the
findings both give whose other fields differ (fix kind, help, end position: what a change to
the run's coordination moves without moving a finding). ``--args`` adds options to the check
(``--args=--unsafe-fixes``: the fix kinds of that command). A rule
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

#: The fields that name a finding; the others are what `changed` compares.
KEY_FIELDS = ("code", "path", "line", "column", "message")


def findings(command: list, folder: Path, args: tuple = ()) -> tuple:
    """(the findings as a set of (code, path, line, column, message), the caller locations as
    a set of (code, path, line), each finding's other fields by its key) of one tool on one
    folder; raises RuntimeError when it fails."""
    done = subprocess.run(
        [*command, "check", "--no-cache", "--format", "json", "--exit-zero", *args, "."],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{shlex.join(command)}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    report = json.loads(done.stdout)
    found, callers, rest = set(), set(), {}
    for item in report.get("findings", []):
        key = tuple(item[field] for field in KEY_FIELDS)
        found.add(key)
        rest.setdefault(key, []).append({k: v for k, v in item.items() if k not in KEY_FIELDS})
        for related in item.get("related") or ():
            if related.get("message") == "called from here":
                callers.add((item["code"], related["path"], related["line"]))
    return found, callers, rest


def compare(before: list, after: list, folder: Path, args: tuple = ()) -> dict:
    """The findings and caller locations only one side has, on one folder, and the findings
    both have whose other fields differ (with the names of those fields)."""
    old, old_callers, old_rest = findings(before, folder, args)
    new, new_callers, new_rest = findings(after, folder, args)
    changed = []
    for key in sorted(old & new):
        a, b = old_rest[key], new_rest[key]
        if a != b:
            fields = sorted({f for x, y in zip(a, b) for f in x.keys() | y.keys() if x.get(f) != y.get(f)})
            changed.append([*key, fields or ["count"]])
    return {
        "before": len(old),
        "after": len(new),
        "removed": sorted(old - new),
        "added": sorted(new - old),
        "callers_removed": sorted(old_callers - new_callers),
        "callers_added": sorted(new_callers - old_callers),
        "changed": changed,
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
    parser.add_argument("--args", default="", help="options for both checks (`--args=--unsafe-fixes`)")
    args = parser.parse_args(argv)
    extra = tuple(shlex.split(args.args))
    before, after = _command(args.before), _command(args.after)
    folders = sorted(p for p in args.repos.iterdir() if p.is_dir() and (not args.only or p.name in args.only))
    result, failed = {}, False
    for folder in folders:
        try:
            result[folder.name] = compare(before, after, folder, extra)
        except (OSError, RuntimeError, json.JSONDecodeError) as exc:
            print(f"{folder.name}: {exc}", file=sys.stderr)
            failed = True
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name, diff in result.items():
            changes = (
                diff["removed"] or diff["added"] or diff["callers_removed"] or diff["callers_added"] or diff["changed"]
            )
            if not changes:
                continue
            print(f"{name}: {diff['before']} -> {diff['after']} findings")
            for sign, key in (("-", "removed"), ("+", "added")):
                for code, path, line, column, message in diff[key]:
                    print(f"  {sign} {code} {path}:{line}:{column} {message}")
            for sign, key in (("-", "callers_removed"), ("+", "callers_added")):
                for code, path, line in diff[key]:
                    print(f"  {sign} {code} {path}:{line} (called from here)")
            for code, path, line, column, message, fields in diff["changed"]:
                print(f"  ~ {code} {path}:{line}:{column} {message} ({', '.join(fields)} differ)")
        total = [sum(len(d[key]) for d in result.values()) for key in ("added", "removed", "changed")]
        print(f"{len(result)} repositories: {total[0]} findings added, {total[1]} removed, {total[2]} changed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
