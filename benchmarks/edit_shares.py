#!/usr/bin/env python3
"""What `fix --unsafe-fixes` gives each finding on real repositories: an edit, a suggestion, a
review marker, or nothing (issue 36: "86 % of the findings get no edit at all").

    python benchmarks/edit_shares.py --repos DIR [--only NAME ...] [--tool CMD] [--json]

For every ``<owner>+<name>`` folder under DIR (or the ones named with ``--only``), two runs, as a
user would type them in the folder's parent:

1. ``check --unsafe-fixes --format json --exit-zero <folder>``: every finding and its fix kind;
2. ``fix --unsafe-fixes --diff --exit-zero <folder>``: what the fix would write (nothing is written).

Each finding is counted once, in the first column that fits:

  rewrite    fix kind safe or unsafe, and the diff changes a line of the finding (its first to
             its last line, or an insertion right above them) in a hunk that also writes lines
  removal    the same, every hunk reaching the finding only deletes lines (issue 36 §6 counts
             applied rewrites and applied removals apart)
  elsewhere  fix kind safe or unsafe, the diff changes its file but none of its lines (an edit
             made at another place, e.g. an import or a removed helper; read them)
  withheld   fix kind safe or unsafe and the diff leaves its file alone (a fix held back)
  suggested  fix kind display: a diff shown by `check`, never applied
  marker     fix kind marker: a review comment only
  none       fix kind none

Columns are given per repository, per rule, for all findings and for RT001-RT006 (the Roots
findings issue 36 counts). `benchmarks/fixes.py --shares` prints the per-rule table for its own
repositories through this module. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

from corpus import relative_path  # this folder's scorer: one way to read a finding's path

COLUMNS = ("rewrite", "removal", "elsewhere", "withheld", "suggested", "marker", "none")
ROOTS_CODES = ("RT001", "RT002", "RT003", "RT004", "RT005", "RT006")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def touched_lines(diff: str) -> dict:
    """{path as written after ``--- a/``: {old-side line the diff deletes or inserts above: kind}}.

    The kind is "removal" when the line's hunk writes no line, "rewrite" when it does."""
    out: dict = {}
    current = None
    hunk: set = set()
    writes = False
    old = 0

    def close() -> None:
        if current is not None:
            for number in hunk:
                if current.get(number) != "rewrite":
                    current[number] = "rewrite" if writes else "removal"

    for line in diff.splitlines():
        if line.startswith("--- "):
            close()
            hunk, writes = set(), False
            current = out.setdefault(line[4:].removeprefix("a/"), {})
            continue
        if line.startswith("+++ "):
            continue
        match = HUNK.match(line)
        if match:
            close()
            hunk, writes = set(), False
            old = int(match.group(1))
            continue
        if current is None:
            continue
        if not line or line[0] == " ":  # context (an empty line may lose its space)
            old += 1
        elif line[0] == "-":
            hunk.add(old)
            old += 1
        elif line[0] == "+":
            hunk.add(old)  # inserted above the next old line
            writes = True
    close()
    return out


def files_touched(diff_paths: dict, folder: Path) -> dict:
    """The diff's paths made relative to ``folder`` (POSIX): as the tool was given it (a folder
    that is a symbolic link keeps its own name in the diff) or resolved."""
    roots = {folder.absolute().as_posix().lstrip("/"), folder.resolve().as_posix().lstrip("/")}
    out = {}
    for path, lines in diff_paths.items():
        relative = next((path[len(root) + 1 :] for root in roots if path.startswith(root + "/")), path)
        out[relative] = lines
    return out


def column(finding: dict, touched: dict) -> str:
    """The column of one finding (see the module docstring)."""
    kind = finding.get("fix", "none")
    if kind == "display":
        return "suggested"
    if kind == "marker":
        return "marker"
    if kind not in ("safe", "unsafe"):
        return "none"
    lines = touched.get(finding["path"])
    if lines is None:
        return "withheld"
    span = range(finding["line"], finding.get("end_line", finding["line"]) + 1)
    kinds = {lines[n] for n in span if n in lines}
    if not kinds:
        return "elsewhere"
    return "rewrite" if "rewrite" in kinds else "removal"


def measure(command: list, folder: Path, diffs: Path | None = None) -> dict:
    """Per-code counters of one repository's columns; with `diffs`, the fix's diff is kept there
    as `<folder name>.diff` (the changed-code diffs a review reads, issue 36 §6)."""
    check = subprocess.run(
        command + ["check", "--unsafe-fixes", "--format", "json", "--exit-zero", str(folder)],
        capture_output=True,
        text=True,
    )
    fix = subprocess.run(
        command + ["fix", "--unsafe-fixes", "--diff", "--exit-zero", str(folder)], capture_output=True, text=True
    )
    if check.returncode not in (0, 1) or fix.returncode not in (0, 1):
        raise RuntimeError(f"exit status {check.returncode}/{fix.returncode}: {(check.stderr or fix.stderr)[-200:]}")
    if diffs is not None:
        diffs.mkdir(parents=True, exist_ok=True)
        (diffs / f"{folder.name}.diff").write_text(fix.stdout)
    touched = files_touched(touched_lines(fix.stdout), folder)
    counts: dict = {}
    for finding in json.loads(check.stdout).get("findings", []):
        finding = dict(finding, path=relative_path(finding["path"], folder))
        counts.setdefault(finding["code"], Counter())[column(finding, touched)] += 1
    return {"codes": counts, "files_changed": len(touched)}


def total(rows: dict, codes=None) -> Counter:
    out: Counter = Counter()
    for row in rows.values():
        for code, counter in row["codes"].items():
            if codes is None or code in codes:
                out.update(counter)
    return out


def share_line(name: str, counter: Counter) -> str:
    n = sum(counter.values())
    cells = [f"{counter[c]} ({100.0 * counter[c] / n:.1f}%)" if n else "0" for c in COLUMNS]
    return f"| {name} | {n} | " + " | ".join(cells) + " |"


def rule_table(rows: dict) -> str:
    """The shares per rule over every repository of ``rows``, then all findings and RT001-RT006."""
    codes = sorted({code for row in rows.values() for code in row["codes"]})
    lines = [
        "| rule | findings | " + " | ".join(COLUMNS) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in COLUMNS) + " |",
    ]
    lines += [share_line(code, total(rows, (code,))) for code in codes]
    lines.append(share_line("**all findings**", total(rows)))
    lines.append(share_line("**RT001-RT006**", total(rows, ROOTS_CODES)))
    return "\n".join(lines)


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="edit_shares.py", description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, required=True, help="folder of <owner>+<name> repository folders")
    parser.add_argument("--only", nargs="*", default=None, help="folder names to measure (default: all)")
    parser.add_argument("--tool", default=None, help='tool command (default: "<this python> -m mcp_migrate")')
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--diffs", type=Path, default=None, help="keep each repository's fix diff in this folder")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.repos.is_dir():
        print(f"error: {args.repos}: not a folder", file=sys.stderr)
        return 2
    command = shlex.split(args.tool) if args.tool else [sys.executable, "-m", "mcp_migrate"]
    names = args.only or sorted((p.name for p in args.repos.iterdir() if p.is_dir()), key=str.lower)
    rows = {}
    for name in names:
        try:
            rows[name] = measure(command, args.repos / name, args.diffs)
        except (OSError, RuntimeError, json.JSONDecodeError) as exc:
            print(f"warning: {name}: skipped: {exc}", file=sys.stderr)
    if args.json:
        print(json.dumps({k: {"codes": v["codes"], "files_changed": v["files_changed"]} for k, v in rows.items()}))
        return 0
    print("| repository | findings | " + " | ".join(COLUMNS) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in COLUMNS) + " |")
    for name, row in rows.items():
        print(share_line(name, total({name: row})))
    print()
    print(rule_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
