#!/usr/bin/env python3
"""Issue 37's speed targets as ratios from one paired run per tree (CPU, medians).

    python benchmarks/speed.py --trees DIR [DIR ...] [--runs 5] [--json FILE]
    python benchmarks/speed.py --no-findings DIR [--runs 5]     # against ruff
    python benchmarks/speed.py --fix-trees DIR [DIR ...]          # fix that changes nothing

The tool is `python -m mcp_migrate` as the interpreter finds it (set PYTHONPATH to measure a
snapshot); every command runs from a scratch folder, never from a checkout. Per tree:

- *cold / floor2*: `check --no-cache` (default `-j`) against floor2 = a fresh interpreter that
  imports LibCST, reads every file the tool discovers and parses with LibCST the files that have
  findings (target <= 2.0);
- *-j / -j 1*: the same check with the default workers against `-j 1` (target <= 1.05);
- *screens / parse* and *parses / files with findings*: one in-process `-j 1` run that times the
  engine's screens over every file and counts `libcst.parse_module` calls, against a bare parse of
  the files with findings (targets <= 0.3 and <= 1.25), and beside the screens their *token
  floor*: the files the gate opens searched for the rules' byte tokens, the least any byte
  screen does (where it is near 0.3x, the target leaves nothing for the rest); the files it
  parsed that hold no finding are listed in the JSON with the rules the screens left to run on
  them, and counted per rule (where a screen lets through what its rule never reports);
- with `--no-findings`: cold check against `ruff check --select UP --no-cache` (target <= 0.75),
  and whether the run imported LibCST at all; beside it, against the same ruff run, two floors that
  no work on the tree can go under: our start-up (`check` of a folder with one file of one line:
  the interpreter, our imports, the plan) and the interpreter's own (`python -c pass`). Where a
  floor is over 0.75x, the target cannot hold on that tree;
- with `--fix-trees` (trees `fix --unsafe-fixes` has already converged): `fix --unsafe-fixes`
  against `check --unsafe-fixes`, cold (`--no-cache`, quiet) and warm (a cache filled by the
  warm-up runs; full output, then concise), target <= 1.2.

Each pair runs A B A B ...; CPU is user + system of the child and its children (getrusage). The
script reports; it does not assert. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from floors import FLOOR2

PY = sys.executable
SCRATCH = Path(tempfile.mkdtemp(prefix="speed-"))
#: The children run as an installed tool does, with bytecode caches (this machine sets
#: PYTHONDONTWRITEBYTECODE; without `.pyc` files every run compiles the package again).
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}

#: The in-process probe: files discovered, files with findings, the screens' time over every
#: file, LibCST parses made by a `-j 1` check, and a bare parse of the files with findings.
PROBE = r"""
import json, sys, time
import libcst
from mcp_migrate.core import engine
try:  # the screens left the engine for core.screening (issue 37, session 54)
    from mcp_migrate.core import screening
except ImportError:
    screening = engine
from mcp_migrate.run.plan import plan
from mcp_migrate.run.records import CheckOptions
from mcp_migrate.run.runner import run_check

tree = sys.argv[1]
parses = [0]
real_parse = libcst.parse_module
def counting(*a, **k):
    parses[0] += 1
    return real_parse(*a, **k)
libcst.parse_module = counting
screen_time = [0.0]
real_screens = screening._screens
def timed(*a, **k):
    t = time.process_time()
    try:
        return real_screens(*a, **k)
    finally:
        screen_time[0] += time.process_time() - t
screening._screens = timed
parsed = []  # (path, the codes of the rules the screens left): what each LibCST parse was for
real_analyze = engine._parse_and_analyze
def recorded(data, path, settings, rules, *rest):
    parsed.append((path, sorted(rule.CODE for rule in rules)))
    return real_analyze(data, path, settings, rules, *rest)
engine._parse_and_analyze = recorded
options = CheckOptions(jobs=1)
files = [source.path for source, _ in plan([tree], options).items]
run = run_check([tree], options)
with_findings = sorted({r.path for r in run.results if r.findings})
libcst.parse_module = real_parse
t = time.process_time()
for path in with_findings:
    try:
        libcst.parse_module(open(path, "rb").read())
    except Exception:
        pass
bare = time.process_time() - t
without = sorted({(path, tuple(codes)) for path, codes in parsed if path not in set(with_findings)})
# The token floor: the files the gate opens searched for the rules' byte tokens (those holding
# no other), stopping at the first found: the least any byte screen does (best of 3).
floor = None
try:
    from mcp_migrate.api import default_settings, screen_classes
    from mcp_migrate.core.gates import fewest
    settings = default_settings()
    classes = screen_classes(settings.select, settings.extend_apis)
    tokens = fewest({t for c in classes for t in (getattr(c, "SCREEN", ()) or ())})
    gated = [d for d in (open(p, "rb").read() for p in files) if screening.gate_open(d, settings, classes)]
    for _ in range(3):
        t = time.process_time()
        for d in gated:
            for token in tokens:
                if token in d:
                    break
        spent = time.process_time() - t
        floor = spent if floor is None else min(floor, spent)
except (ImportError, AttributeError):  # a snapshot older than the rules' screen classes
    pass
print(json.dumps({"files": files, "with_findings": with_findings, "parses": parses[0],
                  "screens_s": screen_time[0], "bare_parse_s": bare, "parsed_without_findings": without,
                  "token_floor_s": floor}))
"""

#: Whether a check imports LibCST (argv: the tree).
IMPORTS = r"""
import sys
from mcp_migrate.commands.cli import main
try:
    main(["check", "--no-cache", "-q", sys.argv[1]])
except SystemExit:
    pass
print("libcst" in sys.modules)
"""


def cpu_of(cmd: list, env: dict | None = None) -> tuple:
    """(CPU seconds of the child and its children, wall seconds, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=SCRATCH, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.exit(f"failed ({done.returncode}): {' '.join(map(str, cmd))}\n{done.stderr.decode()[-2000:]}")
    return cpu, wall, done.returncode


def paired(a: list, b: list, runs: int, env_a: dict | None = None, env_b: dict | None = None) -> dict:
    """Medians of A's and B's CPU and the median of the pairwise ratios A/B (one warm-up each)."""
    cpu_of(a, env_a)
    cpu_of(b, env_b)
    xs, ys = [], []
    for _ in range(runs):
        xs.append(cpu_of(a, env_a)[0])
        ys.append(cpu_of(b, env_b)[0])
    return {
        "a": statistics.median(xs),
        "b": statistics.median(ys),
        "ratio": statistics.median(x / y for x, y in zip(xs, ys)),
    }


def tool(*args: str) -> list:
    return [PY, "-m", "mcp_migrate", *args]


def probe(tree: Path) -> dict:
    out = subprocess.run([PY, "-c", PROBE, str(tree)], cwd=SCRATCH, env=ENV, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_tree(tree: Path, runs: int) -> dict:
    p = probe(tree)
    probe_file = SCRATCH / f"{tree.name}.probe.json"
    probe_file.write_text(json.dumps(p))
    floor = paired(tool("check", "--no-cache", "-q", str(tree)), [PY, "-c", FLOOR2, str(probe_file)], runs)
    jobs = paired(
        tool("check", "--no-cache", "-q", str(tree)), tool("check", "--no-cache", "-q", "-j", "1", str(tree)), runs
    )
    n = len(p["with_findings"])
    row = {
        "tree": tree.name,
        "files": len(p["files"]),
        "with_findings": n,
        "parses": p["parses"],
        "parses_per_file_with_findings": p["parses"] / n if n else None,
        "screens_s": p["screens_s"],
        "bare_parse_s": p["bare_parse_s"],
        "screens_per_parse": p["screens_s"] / p["bare_parse_s"] if p["bare_parse_s"] else None,
        "token_floor_s": p.get("token_floor_s"),
        "token_floor_per_parse": (
            p["token_floor_s"] / p["bare_parse_s"] if p.get("token_floor_s") is not None and p["bare_parse_s"] else None
        ),
        "cold_cpu_s": floor["a"],
        "floor2_cpu_s": floor["b"],
        "cold_per_floor2": floor["ratio"],
        "j1_cpu_s": jobs["b"],
        "jobs_per_j1": jobs["ratio"],
        # The files the screens left to LibCST that hold no finding, with the rules that ran on
        # them: where a screen lets through what its rule never reports.
        "parsed_without_findings": p.get("parsed_without_findings", []),
    }
    print(
        f"{tree.name}: {row['files']} files, {n} with findings; LibCST parses {p['parses']} "
        f"({_x(row['parses_per_file_with_findings'])}, <= 1.25); screens {p['screens_s']:.2f} s / bare parse "
        f"{p['bare_parse_s']:.2f} s = {_x(row['screens_per_parse'])} (<= 0.3; token floor "
        f"{_x(row['token_floor_per_parse'])}); cold {floor['a']:.2f} s / floor2 "
        f"{floor['b']:.2f} s = {_x(floor['ratio'])} (<= 2.0); -j {jobs['a']:.2f} s / -j 1 {jobs['b']:.2f} s = "
        f"{_x(jobs['ratio'])} (<= 1.05)",
        flush=True,
    )
    extra = Counter(code for _, codes in row["parsed_without_findings"] for code in codes)
    if extra:
        print(
            f"  parsed without a finding: {len(row['parsed_without_findings'])} files; rules that ran on them: "
            + ", ".join(f"{code} {count}" for code, count in sorted(extra.items())),
            flush=True,
        )
    return row


def measure_no_findings(tree: Path, runs: int, ruff: str) -> dict:
    yardstick = [ruff, "check", "--select", "UP", "--no-cache", "-q", str(tree)]
    pair = paired(tool("check", "--no-cache", "-q", str(tree)), yardstick, runs)
    one_line = SCRATCH / "one-line"
    one_line.mkdir(exist_ok=True)
    (one_line / "a.py").write_text("x = 1\n", encoding="utf-8")
    start = paired(tool("check", "--no-cache", "-q", str(one_line)), yardstick, runs)
    python = paired([PY, "-c", "pass"], yardstick, runs)
    imported = subprocess.run(
        [PY, "-c", IMPORTS, str(tree)], cwd=SCRATCH, env=ENV, capture_output=True, text=True
    ).stdout.strip()
    row = {
        "tree": tree.name,
        "cold_cpu_s": pair["a"],
        "ruff_cpu_s": pair["b"],
        "per_ruff": pair["ratio"],
        "start_up_per_ruff": start["ratio"],
        "python_per_ruff": python["ratio"],
        "imports_libcst": imported,
    }
    print(
        f"{tree.name} (no findings): cold {pair['a']:.2f} s / ruff {pair['b']:.2f} s = {_x(pair['ratio'])} (<= 0.75); "
        f"floors: our start-up {_x(start['ratio'])}, the interpreter {_x(python['ratio'])}; LibCST imported: {imported}",
        flush=True,
    )
    return row


def measure_fix(tree: Path, runs: int) -> dict:
    cold = paired(
        tool("fix", "--unsafe-fixes", "--no-cache", "-q", str(tree)),
        tool("check", "--unsafe-fixes", "--no-cache", "-q", str(tree)),
        runs,
    )
    cache = SCRATCH / f"{tree.name}.cache"
    env = {**ENV, "MCP_MIGRATE_CACHE_DIR": str(cache)}
    warm = paired(tool("fix", "--unsafe-fixes", str(tree)), tool("check", "--unsafe-fixes", str(tree)), runs, env, env)
    concise = ["--output-format", "concise"]
    terse = paired(
        tool("fix", "--unsafe-fixes", *concise, str(tree)),
        tool("check", "--unsafe-fixes", *concise, str(tree)),
        runs,
        env,
        env,
    )
    shutil.rmtree(cache, ignore_errors=True)
    row = {
        "tree": tree.name,
        "cold_fix_s": cold["a"],
        "cold_check_s": cold["b"],
        "cold_ratio": cold["ratio"],
        "warm_fix_s": warm["a"],
        "warm_check_s": warm["b"],
        "warm_ratio": warm["ratio"],
        "warm_concise_fix_s": terse["a"],
        "warm_concise_check_s": terse["b"],
        "warm_concise_ratio": terse["ratio"],
    }
    print(
        f"{tree.name} (fix changes nothing): cold fix {cold['a']:.2f} s / check {cold['b']:.2f} s = {_x(cold['ratio'])}; "
        f"warm {warm['a']:.2f} s / {warm['b']:.2f} s = {_x(warm['ratio'])} (<= 1.2); warm concise "
        f"{terse['a']:.2f} s / {terse['b']:.2f} s = {_x(terse['ratio'])}",
        flush=True,
    )
    return row


def _x(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", nargs="*", type=Path, default=[], help="MCP-heavy trees")
    ap.add_argument("--no-findings", nargs="*", type=Path, default=[], help="trees without findings")
    ap.add_argument("--fix-trees", nargs="*", type=Path, default=[], help="trees fix --unsafe-fixes has converged")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ruff", default=shutil.which("ruff") or str(Path(PY).with_name("ruff")))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; "
        f"runs {args.runs}; PYTHONPATH={os.environ.get('PYTHONPATH', '')}",
        flush=True,
    )
    rows = {
        "trees": [measure_tree(t.resolve(), args.runs) for t in args.trees],
        "no_findings": [measure_no_findings(t.resolve(), args.runs, args.ruff) for t in args.no_findings],
        "fix": [measure_fix(t.resolve(), args.runs) for t in args.fix_trees],
        "load_after": os.getloadavg()[0],
    }
    print(f"load after: {rows['load_after']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    shutil.rmtree(SCRATCH, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
