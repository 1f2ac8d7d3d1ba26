#!/usr/bin/env python3
"""Fix-mode benchmark: what `mcp-migrate fix` does to real repositories, mode by mode.

    python benchmarks/fixes.py --repos DIR [--list FILE] [--only NAME ...]
                               [--tool "python -m mcp_migrate"] [--ruff RUFF] [--json]

For every repository in the list (``owner/name commit`` lines, default
/work/shared/corpus/repos.txt: all 37 rows, the tuned set 1-20 and the first look 21-37),
exported under DIR as ``<owner>+<name>``, and every mode (safe fixes, ``--unsafe-fixes``, and
``--unsafe-fixes --strategy S`` for each strategy), a fresh copy of the tree is fixed and
compared with the original. One row per repository and mode:

  changed      files the fix changed
  unparsable   changed files that parsed before and do not parse after
  pyflakes     new pyflakes messages in changed files, by kind (e.g. UnusedVariable:2)
  non-idem     files a second identical fix run changes again
  untouched    changed files in which `check` found nothing before (must stay byte-identical)
  errors       internal errors (a rule raised, a fix refused as unparsable) in fix and check
  left         findings `check` still reports after the fix (same mode)
  markers      `# mcp-migrate:` review comments in the tree after the fix, minus before
  fixable      findings left that `check` calls fixable by the same command (issue 20 §1: what
               check calls fixable is what fix changes, so nothing fixable may be left); a
               suggestion whose help says `--apply-suggestions` leaves it (a server still asks
               after it) is not counted
  own-new      findings of our own rules after the fix that were not there before, by
               (file, code) counts; RT901 (a marker's finding) aside: markers count above
  ruff-new     new ruff E501/I001 in changed files of a project that configures ruff (its
               pyproject `[tool.ruff]`, `ruff.toml` or `.ruff.toml`, with its line length)

Target: every column zero except changed, left and markers (issue 20 §5). ``--shares`` also
prints, per rule, what ``fix --unsafe-fixes`` gives each finding: applied, suggested (a display
fix), marker or nothing (counted by ``edit_shares.py``, the one place that classifies them). Needs pyflakes (a
test extra) and ruff (the `bench` extra) for ruff-new.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import edit_shares  # beside this script: what fix gives each finding, classified once
from pyflakes import api as pyflakes_api

from mcp_migrate.core.coordination import APPLIES_ONCE_FREED, WAITS

DEFAULT_LIST = Path("/work/shared/corpus/repos.txt")
STRATEGIES = ("tool-parameter", "resource-uri", "server-config")
MODES = {"safe": [], "unsafe": ["--unsafe-fixes"]}
MODES.update({s: ["--unsafe-fixes", "--strategy", s] for s in STRATEGIES})
#: Every suggestion taken as well (issue 36 §3): what a user who accepts them all gets.
MODES["suggestions"] = ["--unsafe-fixes", "--apply-suggestions"]
MARKER = b"# mcp-migrate:"
ZERO_COLUMNS = ("unparsable", "pyflakes", "non_idempotent", "untouched", "errors", "fixable", "own_new", "ruff_new")
#: Fix kinds each mode applies (the `fixable` column counts what remains of these).
APPLIED = {"safe": ("safe",), "suggestions": ("safe", "unsafe", "display")}
REVIEW_PENDING = "RT901"
RUFF_CODES = "E501,I001"


def waits(help_text: str) -> bool:
    """A suggestion `fix --apply-suggestions` leaves while a server of the run still asks after
    it: its help says so (core.coordination.waiting)."""
    return WAITS in help_text or APPLIES_ONCE_FREED in help_text


@dataclass
class Row:
    repo: str
    mode: str
    changed: int = 0
    unparsable: int = 0
    pyflakes: dict = field(default_factory=dict)
    non_idempotent: int = 0
    untouched: int = 0
    errors: int = 0
    left: int = 0
    markers: int = 0
    fixable: int = 0
    own_new: int = 0
    ruff_new: int = 0
    notes: list = field(default_factory=list)


def python_files(root: Path) -> dict:
    """{relative path: bytes} of every .py file under root (VCS folders skipped)."""
    out = {}
    for path in root.rglob("*.py"):
        if ".git" in path.parts or not path.is_file() or path.is_symlink():
            continue
        try:
            out[path.relative_to(root).as_posix()] = path.read_bytes()
        except OSError:
            continue
    return out


def parses(data: bytes) -> bool:
    try:
        compile(data, "<file>", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError):
        return False
    return True


class _Collect:
    """A pyflakes reporter that counts messages by kind (syntax errors count as one kind)."""

    def __init__(self):
        self.kinds = Counter()

    def flake(self, message):
        self.kinds[type(message).__name__] += 1

    def unexpectedError(self, filename, msg):  # noqa: N802 - pyflakes' reporter API
        self.kinds["UnexpectedError"] += 1

    def syntaxError(self, filename, msg, lineno, offset, text):  # noqa: N802
        self.kinds["SyntaxError"] += 1


def flake_kinds(data: bytes) -> Counter:
    reporter = _Collect()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Counter()
    pyflakes_api.check(text, "x.py", reporter)
    return reporter.kinds


def run_tool(tool: list, args: list, cwd: Path) -> subprocess.CompletedProcess:
    env = {"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(tool + args, cwd=cwd, capture_output=True, text=True, env=env, check=False)


def strategy_args(extra: list) -> list:
    """The `--strategy S` of a mode's fix arguments (what `check` must be told as well)."""
    at = extra.index("--strategy") if "--strategy" in extra else -1
    return extra[at : at + 2] if at >= 0 else []


def check_json(tool: list, root: Path, extra: list) -> dict:
    """`check --format json` over root, with the mode's strategy."""
    strategy = strategy_args(extra)
    proc = run_tool(tool, ["check", "--format", "json", "--exit-zero", "-q", "-j", "1", *strategy, "."], root)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"findings": [], "errors": [{"path": ".", "code": "internal", "message": proc.stderr[-500:]}]}


def error_lines(proc: subprocess.CompletedProcess) -> list:
    return [line for line in proc.stderr.splitlines() + proc.stdout.splitlines() if ": error: " in line]


def ruff_config(path: Path, root: Path) -> bool:
    """Whether a ruff configuration governs `path` (the nearest pyproject.toml with a
    `[tool.ruff` table, or a ruff.toml / .ruff.toml) up to the tree's root."""
    folder = path.parent
    while True:
        if (folder / "ruff.toml").is_file() or (folder / ".ruff.toml").is_file():
            return True
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "[tool.ruff" in pyproject.read_text(encoding="utf-8", errors="replace"):
                    return True
            except OSError:
                pass
        if folder == root or root not in folder.parents:
            return False
        folder = folder.parent


def ruff_counts(ruff: list, root: Path, paths: list) -> Counter:
    """(path, code) counts of ruff's E501/I001 on `paths` under `root`, with the project's own
    configuration (line length, isort settings) but these two codes selected."""
    if not paths or not ruff:
        return Counter()
    proc = subprocess.run(
        ruff + ["check", "--no-cache", "--exit-zero", "--select", RUFF_CODES, "--output-format", "json", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        found = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        return Counter()
    return Counter((Path(f["filename"]).resolve().relative_to(root.resolve()).as_posix(), f["code"]) for f in found)


def own_counts(report: dict) -> Counter:
    return Counter(
        (Path(f["path"]).as_posix(), f["code"]) for f in report.get("findings", []) if f["code"] != REVIEW_PENDING
    )


def measure(
    tool: list, repo: str, source: Path, mode: str, extra: list, found_before: set, before_findings: Counter, ruff: list
) -> Row:
    row = Row(repo, mode)
    before = python_files(source)
    with tempfile.TemporaryDirectory(prefix="mcp-fixes-") as tmp:
        work = Path(tmp) / source.name
        # A fresh checkout: no results cache carried over from runs on the original folder.
        shutil.copytree(source, work, symlinks=True, ignore=shutil.ignore_patterns(".git", ".mcp_migrate_cache"))
        first = run_tool(tool, ["fix", "-q", "-j", "1", "--exit-zero", *extra, "."], work)
        errors = error_lines(first)
        after = python_files(work)
        second = run_tool(tool, ["fix", "-q", "-j", "1", "--exit-zero", *extra, "."], work)
        again = python_files(work)
        report = check_json(tool, work, extra)
    changed = sorted(p for p, data in after.items() if before.get(p) != data)
    row.changed = len(changed)
    new_kinds = Counter()
    for path in changed:
        old, new = before.get(path, b""), after[path]
        if parses(old) and not parses(new):
            row.unparsable += 1
            row.notes.append(f"unparsable: {path}")
        delta = flake_kinds(new) - flake_kinds(old)
        new_kinds.update(delta)
        if delta:
            row.notes.append(f"pyflakes {dict(delta)}: {path}")
        if path not in found_before:
            row.untouched += 1
            row.notes.append(f"untouched file modified: {path}")
    row.pyflakes = dict(sorted(new_kinds.items()))
    for path, data in again.items():
        if after.get(path) != data:
            row.non_idempotent += 1
            row.notes.append(f"not idempotent: {path}")
    errors += error_lines(second)
    errors += [f"{e['path']}: {e['code']}: {e['message']}" for e in report.get("errors", [])]
    row.errors = len(errors)
    row.notes += [f"error: {e}" for e in errors]
    findings = report.get("findings", [])
    row.left = len(findings)
    row.markers = sum(d.count(MARKER) for d in after.values()) - sum(d.count(MARKER) for d in before.values())
    applied = APPLIED.get(mode, ("safe", "unsafe"))
    for f in findings:
        if f["fix"] == "display" and waits(f["help"]):
            continue  # a suggestion the command leaves while a server still asks, as check says
        if f["fix"] in applied:
            row.fixable += 1
            row.notes.append(f"fixable left: {f['path']}:{f['line']} {f['code']} ({f['fix']})")
    new_own = own_counts(report) - before_findings
    row.own_new = sum(new_own.values())
    row.notes += [f"own-new {code} x{n}: {path}" for (path, code), n in sorted(new_own.items())]
    configured = [p for p in changed if ruff_config(source / p, source)]
    if configured:
        with tempfile.TemporaryDirectory(prefix="mcp-fixes-ruff-") as tmp:
            work = Path(tmp) / source.name
            shutil.copytree(source, work, symlinks=True, ignore=shutil.ignore_patterns(".git", ".mcp_migrate_cache"))
            old = ruff_counts(ruff, work, configured)
            for path in configured:
                (work / path).write_bytes(after[path])
            new = ruff_counts(ruff, work, configured)
        grown = new - old
        row.ruff_new = sum(grown.values())
        row.notes += [f"ruff-new {code} x{n}: {path}" for (path, code), n in sorted(grown.items())]
    return row


def repos_of(list_file: Path, root: Path, only: list) -> list:
    out = []
    for line in list_file.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name = line.split()[0]
        folder = root / name.replace("/", "+")
        if only and name not in only and folder.name not in only:
            continue
        out.append((name, folder))
    return out


def table(rows: list) -> str:
    head = (
        "repository",
        "mode",
        "changed",
        "unparsable",
        "pyflakes",
        "non-idem",
        "untouched",
        "errors",
        "left",
        "markers",
        "fixable",
        "own-new",
        "ruff-new",
    )
    lines = [head]
    for r in rows:
        flakes = ",".join(f"{k}:{v}" for k, v in r.pyflakes.items()) or "0"
        lines.append(
            (
                r.repo,
                r.mode,
                r.changed,
                r.unparsable,
                flakes,
                r.non_idempotent,
                r.untouched,
                r.errors,
                r.left,
                r.markers,
                r.fixable,
                r.own_new,
                r.ruff_new,
            )
        )
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(line, widths)).rstrip() for line in lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", required=True, type=Path, help="folder of exported <owner>+<name> trees")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, help="owner/name commit lines")
    parser.add_argument("--only", nargs="*", default=[], help="repositories to run (owner/name)")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    parser.add_argument("--tool", default=f"{shlex.quote(sys.executable)} -m mcp_migrate")
    parser.add_argument("--ruff", default=None, help="ruff for the ruff-new column (default: on PATH or beside python)")
    parser.add_argument("--json", action="store_true", help="rows as JSON, with notes")
    parser.add_argument("--verbose", action="store_true", help="print each row's notes")
    parser.add_argument(
        "--shares", action="store_true", help="per rule: rewrite / removal / suggested / marker / nothing"
    )
    parser.add_argument("--diffs", type=Path, default=None, help="with --shares: keep each fix diff in this folder")
    args = parser.parse_args(argv)
    tool = shlex.split(args.tool)
    if Path(tool[0]).exists():  # the runs happen in copies: a relative path must survive the cd
        tool[0] = str(Path(tool[0]).resolve())
    found = args.ruff or shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    ruff = shlex.split(found) if args.ruff or Path(found).exists() else []
    if ruff and Path(ruff[0]).exists():
        ruff[0] = str(Path(ruff[0]).resolve())
    if not ruff:
        print("ruff not found: the ruff-new column stays 0", file=sys.stderr)
    rows, shares = [], {}
    for name, folder in repos_of(args.list, args.repos, args.only):
        if not folder.is_dir():
            print(f"{name}: not exported under {args.repos}", file=sys.stderr)
            continue
        # A strategy changes which sites have a fix, never which files have findings.
        first = check_json(tool, folder, [])
        found_before = {Path(f["path"]).as_posix() for f in first["findings"]}
        if args.shares:
            shares[name] = edit_shares.measure(tool, folder, args.diffs)
        for mode in args.modes:
            strategy = strategy_args(MODES[mode])
            before_findings = own_counts(check_json(tool, folder, strategy)) if strategy else own_counts(first)
            row = measure(tool, name, folder, mode, MODES[mode], found_before, before_findings, ruff)
            rows.append(row)
            print(table([row]).splitlines()[1], file=sys.stderr, flush=True)
            for note in row.notes if args.verbose else ():
                print(f"    {note}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(table(rows))
        if args.verbose:
            for r in rows:
                for note in r.notes:
                    print(f"{r.repo} {r.mode}: {note}")
    if args.shares:  # on stderr beside --json, whose standard output stays one JSON document
        print(edit_shares.rule_table(shares), file=sys.stderr if args.json else sys.stdout)
    bad = [r for r in rows if any(getattr(r, c) for c in ZERO_COLUMNS)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
