#!/usr/bin/env python3
"""Benchmark `mcp-migrate check` against `ruff check --select UP --no-cache` on several trees.

Standard library only at top level (the in-process probe imports mcp_migrate and libcst in a
child process). Typical use, from the repository root:

    .venv/bin/python benchmarks/run.py --build        # once: site-packages venv + ~1% MCP roots files
    .venv/bin/python benchmarks/run.py --build-mcp    # once: the generated MCP-heavy tree (seeded)
    .venv/bin/python benchmarks/run.py --runs 3 --repos /work/corpus

Trees:
- site-packages (`--tree`, default `benchmarks/.tree`, git-ignored): `venv/` (a virtual environment
  with a few large libraries installed) and `mcp_files/` (small roots-using MCP servers and clients
  generated from `benchmarks/templates/`). Both tools get the same explicit directories: the
  site-packages folder(s) and `mcp_files/`. (Passing the tree root would not work: ruff skips
  `venv/` directories by default.) A `--tree` without a `venv/` folder is passed as it is.
- mcp-heavy (`--mcp-tree`, default `benchmarks/.tree/mcp_heavy`): about 2,000 files of MCP projects
  generated from `benchmarks/templates/mcp_heavy/` (`--build-mcp`), a tenth of them using Roots,
  a dozen modules of 3,000+ lines and one 1.26 MB test module.
- `--repos DIR`: each subfolder of DIR (an exported repository) is a tree of its own, plus a total.

Per tree: alternating timed runs (ruff, ours, ruff, ours, ...), each inside a fresh wrapper
process that also reports the peak RSS of the largest process via getrusage(RUSAGE_CHILDREN);
one extra untimed run of ours samples /proc for the summed memory of all its processes; when
`check --help` lists `--no-cache`, cold (`--no-cache`) and warm (cache in a temp dir) runs and a
comparison of their findings; an in-process probe (files reaching LibCST, per-file check time,
check/parse ratio for files with findings); and a `-j 1` run over the tree's largest file.

The script reports; it does not assert. It exits 0 when both tools ran on every tree (mcp-migrate
exit 1 means "findings", which is expected here; exit 2 is a failure), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path, PurePosixPath

# The children run as an installed tool does, with bytecode caches: without one_file's ENV, a
# caller's PYTHONDONTWRITEBYTECODE (this machine sets it) makes every timed run compile
# mcp_migrate from source, about 0.1 s of CPU that no installed copy pays.
from one_file import ENV as CHILD_ENV  # this script's folder is sys.path[0]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_TREE = HERE / ".tree"
TEMPLATES = HERE / "templates"
HEAVY_TEMPLATES = TEMPLATES / "mcp_heavy"
DEFAULT_MCP_TREE = DEFAULT_TREE / "mcp_heavy"
DEFAULT_PACKAGES = ["django", "sympy", "sqlalchemy", "networkx", "sphinx"]
MIN_FILES = 5000
MCP_SHARE = 0.01
# Targets of issue 21 (work ratios, so they hold on a noisy machine; issue 11's were against ruff).
TARGET_PARSED = 2.0  # files parsed by LibCST / files with findings
TARGET_FLOOR = 1.5  # cold concise CPU / the floor (start-up + reading every file + bare parse of files with findings)
TARGET_WARM = 1.0  # warm concise / ruff check --select UP --no-cache
TARGET_FULL = 1.2  # default full output / concise, cold CPU
TARGET_PEAK_MB = 150  # largest single process of a run
TARGET_SITE = 1.3  # site-packages tree: ours concise / ruff (wall)
TARGET_PROCESS_MB = 200  # a -j 1 process over the largest file (issue 11)

# Runs a command, then prints one JSON line with wall seconds, exit code and peak RSS (getrusage
# of waited-for children; ru_maxrss is in KiB on Linux, bytes on macOS). With sample=True it also
# polls /proc every 20 ms for the summed PSS (else RSS) of the whole process tree (Linux only).
WRAPPER = textwrap.dedent(
    r"""
    import json, os, resource, subprocess, sys, tempfile, time
    cmd, cwd, sample = json.loads(sys.argv[1])

    def kids(pid):
        out = []
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return out
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                    out.extend(int(c) for c in fh.read().split())
            except (OSError, ValueError):
                pass
        return out

    def mem_of(pid):
        # PSS (shared pages split between sharers; right for forked workers), else RSS.
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
                for line in fh:
                    if line.startswith(b"Pss:"):
                        return int(line.split()[1]) * 1024, "PSS"
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(f"/proc/{pid}/statm", "rb") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE"), "RSS"
        except (OSError, ValueError, IndexError):
            return 0, "RSS"

    def tree_mem(root):
        total, kind, todo, n = 0, "PSS", [root], 0
        while todo:
            pid = todo.pop()
            todo.extend(kids(pid))
            size, k = mem_of(pid)
            total += size
            n += 1
            if k == "RSS":
                kind = "RSS"
        return total, kind, n

    errfile = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errfile)
    peak_tree, peak_kind, samples, max_procs = 0, None, 0, 0
    if sample and os.path.isdir("/proc"):
        while proc.poll() is None:
            size, kind, n = tree_mem(proc.pid)
            samples += 1
            max_procs = max(max_procs, n)
            if size > peak_tree:
                peak_tree, peak_kind = size, kind
            time.sleep(0.02)
    proc.wait()
    seconds = time.perf_counter() - start
    errfile.seek(0)
    err = errfile.read()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    maxrss = usage.ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024
    print(json.dumps({
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "returncode": proc.returncode,
        "maxrss_mb": maxrss * scale / 2**20,
        "tree_mem_mb": peak_tree / 2**20 if peak_tree else None,
        "tree_mem_kind": peak_kind,
        "samples": samples,
        "max_procs": max_procs,
        "stderr": err.decode("utf-8", "replace")[-2000:],
    }))
    """
)

# Single-process measurement over one tree (imports mcp_migrate and libcst; run with the same
# interpreter): the files the checker would see (its own discovery, else os.walk); how many pass
# the gate, the byte screens and the syntax screen (`core.engine.screens`: those reach LibCST;
# before issue 21 the byte screens decided, `screened_rules`); per rule, the files past its byte
# screen, past its syntax screen and with its findings; a bare libcst.parse_module of each file
# left for LibCST and check_bytes of each; CPU seconds (time.process_time, one process, after a
# warm-up) of reading and screening every file, of the bare parse, and of the rest of check_bytes
# (the rules, positions, suppressions); the files with findings (the floor parses those); the
# check/parse ratio of files with findings; the slowest files by check time; the largest file.
FILE_PROBE = textwrap.dedent(
    r"""
    import collections, gc, json, os, statistics, sys, time
    targets, out_list = json.loads(sys.argv[1])
    from mcp_migrate.core import engine
    from mcp_migrate.core.engine import check_bytes

    try:  # the screens left the engine for core.screening (issue 37, session 54)
        from mcp_migrate.core import screening
    except ImportError:
        screening = engine
    try:  # mcp_migrate.api chooses the rules since issue 18; older versions: Settings.default()
        from mcp_migrate.api import default_settings
        settings = default_settings()
    except ImportError:
        from mcp_migrate.core.settings import Settings
        settings = Settings.default()
    import libcst
    files, how = [], "os.walk"
    try:
        from mcp_migrate.project.config import resolve_config
        from mcp_migrate.project.discovery import discover
        files = [f.path for f in discover(targets, resolve_config(targets)).files if f.path.endswith(".py")]
        how = "mcp_migrate discovery"
    except Exception as exc:  # the discovery API moved: fall back to every .py file
        how = f"os.walk ({type(exc).__name__})"
        for target in targets:
            for dirpath, dirnames, filenames in os.walk(target):
                files.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".py"))

    def decide(data, path):
        if hasattr(screening, "screens"):
            d = screening.screens(data, path, settings)
            return d.gate, [r.CODE for r in d.byte_rules], [r.CODE for r in d.rules] if (d.rules or d.audit) else []
        rules = [r.CODE for r in screening.screened_rules(data, settings)]
        return screening.gate_open(data, settings), rules, rules

    check_bytes(b"from mcp.server.fastmcp import Context\nasync def f(ctx: Context):\n    await ctx.session.list_roots()\n", "warmup.py", settings)
    passed, total_bytes, largest = [], 0, (-1, "")
    counts = collections.Counter()
    byte_rule, tree_rule, found_rule = collections.Counter(), collections.Counter(), collections.Counter()
    c0 = time.process_time()
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        total_bytes += len(data)
        largest = max(largest, (len(data), path))
        gate, byte_codes, codes = decide(data, path)
        counts["gate"] += bool(gate)
        counts["byte"] += bool(byte_codes)
        byte_rule.update(byte_codes)
        tree_rule.update(codes)
        if codes:
            passed.append((path, data, codes))
    screen_cpu = time.process_time() - c0
    rows, errors = [], 0
    parse_total = check_total = parse_cpu = check_cpu = 0.0
    for path, data, codes in passed:
        gc.collect()
        s, c = time.perf_counter(), time.process_time()
        try:
            libcst.parse_module(data)
        except Exception:
            errors += 1
        parse, parse_c = time.perf_counter() - s, time.process_time() - c
        gc.collect()
        if hasattr(engine, "_LAST"):
            engine._LAST[0] = None
        s, c = time.perf_counter(), time.process_time()
        result = check_bytes(data, path, settings)
        check, check_c = time.perf_counter() - s, time.process_time() - c
        parse_total += parse
        check_total += check
        parse_cpu += parse_c
        check_cpu += check_c
        found = sorted({f.code for f in result.findings})
        found_rule.update(found)
        rows.append({
            "path": path, "bytes": len(data), "lines": data.count(b"\n"), "rules": codes,
            "parse_seconds": parse, "check_seconds": check, "findings": len(result.findings),
        })
    with_findings = [r for r in rows if r["findings"]]
    with open(out_list, "w", encoding="utf-8") as fh:
        json.dump({"all": files, "with_findings": [r["path"] for r in with_findings]}, fh)
    ratios = sorted((r["check_seconds"] / r["parse_seconds"], r["path"]) for r in with_findings if r["parse_seconds"] > 0)
    print(json.dumps({
        "discovery": how,
        "files": len(files),
        "bytes": total_bytes,
        "past_gate": counts["gate"],
        "past_byte_screens": counts["byte"],
        "screened_in": len(passed),
        "screened_in_bytes": sum(len(d) for _, d, _ in passed),
        "per_rule": {code: [byte_rule[code], tree_rule[code], found_rule[code]] for code in sorted(byte_rule)},
        "read_and_screen_seconds": screen_cpu,
        "cpu": {"screening": screen_cpu, "parse": parse_cpu, "rules": max(0.0, check_cpu - parse_cpu)},
        "parse_seconds": parse_total,
        "check_seconds": check_total,
        "parse_errors": errors,
        "files_with_findings": len(with_findings),
        "bytes_with_findings": sum(r["bytes"] for r in with_findings),
        "findings": sum(r["findings"] for r in rows),
        "check_over_parse_max": ratios[-1][0] if ratios else None,
        "check_over_parse_max_path": ratios[-1][1] if ratios else None,
        "check_over_parse_median": statistics.median(r for r, _ in ratios) if ratios else None,
        "largest": {"bytes": largest[0], "path": largest[1]},
        "slowest": sorted(rows, key=lambda r: r["check_seconds"], reverse=True)[:10],
    }))
    """
)

# The floor of issue 21, as a process of its own: interpreter start-up, reading every file the
# checker sees, and a bare libcst.parse_module of only the files with findings (the list the probe
# wrote). Nothing of mcp_migrate is imported.
FLOOR = textwrap.dedent(
    r"""
    import json, sys
    import libcst
    listing = json.load(open(sys.argv[1], encoding="utf-8"))
    wanted = set(listing["with_findings"])
    for path in listing["all"]:
        with open(path, "rb") as fh:
            data = fh.read()
        if path in wanted:
            libcst.parse_module(data)
    """
)

#: What both check scripts walk: every discovered `.py` file of the trees, with its bytes.
_PYTHON_SOURCES = textwrap.dedent(
    r"""
    def python_sources(targets):
        from mcp_migrate.project.config import resolve_config
        from mcp_migrate.project.discovery import discover

        for target in targets:
            for source in discover([target], resolve_config([target])).files:
                if source.path.endswith(".py"):
                    with open(source.path, "rb") as fh:
                        yield source, fh.read()
    """
)

# `--lossless`: the syntax screen of issue 21 against the rules on a tree, in one process. Each
# file goes through the gate and the byte screens as a run does; the files they let through are
# checked with every rule's `screen_tree` forced open, and each finding must pass the screen_tree
# of its rule on the file. Every labelled file (labels.toml, firstlook/*.toml) must pass the
# screen_tree of its label's code, found or not (so a shape the rules learn later is not blocked
# by the screen); whether the byte screens let it through is reported beside it.
LOSSLESS = _PYTHON_SOURCES + textwrap.dedent(
    r"""
    import json, os, sys, time
    targets, labels = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    from mcp_migrate.api import default_settings
    from mcp_migrate.rules import all_rules
    from mcp_migrate.core import engine, screen
    from mcp_migrate.core.engine import check_bytes

    try:  # the screens left the engine for core.screening (issue 37, session 54)
        from mcp_migrate.core import screening
    except ImportError:
        screening = engine
    settings = default_settings()
    try:  # one project view for the whole walk, as a run has one: the import followers read each module once
        import dataclasses
        from mcp_migrate.core.project_view import ProjectView
        settings = dataclasses.replace(settings, view=ProjectView(stamps=False))
    except (ImportError, TypeError):
        pass
    rules = {rule.CODE: rule for rule in all_rules()}
    real = {code: rule.screen_tree for code, rule in rules.items()}
    dropped, files, checked, findings, unread, timed = [], 0, 0, 0, 0, []
    for source, data in python_sources(targets):
        files += 1
        started = time.perf_counter()  # every byte screen, not only up to the first that opens
        # As a run screens (core.screening): a rule's byte screen, or its import follower where
        # that misses (a file only RT001's follower lets through was left out here before).
        passing = screening.gate_open(data, settings) and [
            r.runs_on(data, settings)
            or (r.screen_imports(data, source.path, settings) and r.applies(data))
            for r in settings.rules
        ]
        timed.append((time.perf_counter() - started, source.path))
        if not passing or not any(passing):
            continue
        syntax = screen.read(data, source.path)
        if syntax is None:
            unread += 1
            continue
        checked += 1
        for rule in rules.values():
            rule.screen_tree = classmethod(lambda cls, syntax, settings: True)
        try:
            codes = {f.code for f in check_bytes(data, source.path, settings).findings if f.code in rules}
        finally:
            for code, rule in rules.items():
                rule.screen_tree = real[code]
        findings += len(codes)
        dropped.extend((source.path, code) for code in sorted(codes) if not rules[code].screen_tree(syntax, settings))
    label_rows = []
    for label in labels:
        path = label["file"]
        if not os.path.isfile(path) or label["code"] not in rules:
            label_rows.append({**label, "status": "missing"})
            continue
        with open(path, "rb") as fh:
            data = fh.read()
        rule = rules[label["code"]]
        syntax = screen.read(data, path)
        tree = syntax is None or rule.screen_tree(syntax, settings)
        label_rows.append({**label, "byte": bool(screening.gate_open(data, settings) and rule.runs_on(data, settings)), "tree": tree, "read": syntax is not None})
    timed.sort(reverse=True)
    print(json.dumps({"files": files, "checked": checked, "unread": unread, "rule_findings": findings, "dropped": dropped, "labels": label_rows, "byte_seconds": sum(t for t, _ in timed), "slowest": timed[:3]}))
    """
)

# `--lossless-bytes`: the byte screens against the rules, over every file the joined gate opens.
# A rule's byte screens (`screen`, and `screen_imports` where they miss) that stop a file its
# syntax screen would let through (or that the standard parser cannot read) are forced open on
# it, and the check must find nothing of that rule there. Where the syntax screen stops the
# file too, `--lossless` answers for it. Slow: every gate-opened file is read with `ast`, and
# RT001's and RT004's syntax screens follow its imports (22 minutes over the 113 corpus
# repositories, session 67).
LOSSLESS_BYTES = _PYTHON_SOURCES + textwrap.dedent(
    r"""
    import dataclasses, json, sys, time
    from collections import Counter, defaultdict
    targets = json.loads(sys.argv[1])
    from mcp_migrate.api import default_settings
    from mcp_migrate.core import screen, screening
    from mcp_migrate.core.engine import check_bytes
    settings = default_settings()
    rules = {rule.CODE: rule for rule in settings.rules}
    files, opened, stopped, candidates = 0, 0, Counter(), defaultdict(list)
    started = time.perf_counter()
    for source, data in python_sources(targets):
        files += 1
        if not screening.gate_open(data, settings):
            continue
        opened += 1
        held = screening._Held(data)
        shut = [
            rule for rule in rules.values()
            if held.gate(rule, settings) and rule.applies(data) and not rule.screen(data)
            and not rule.screen_imports(data, source.path, settings)
        ]
        if not shut:
            continue
        syntax = screen.read(data, source.path)
        for rule in shut:
            stopped[rule.CODE] += 1
            if syntax is None or rule.screen_tree(syntax, settings):
                candidates[source.path].append(rule.CODE)
    screened = time.perf_counter() - started
    lost = []
    for path, codes in sorted(candidates.items()):
        with open(path, "rb") as fh:
            data = fh.read()
        real = {code: rules[code].screen for code in codes}
        for code in codes:
            rules[code].screen = classmethod(lambda cls, data: True)
        try:
            found = check_bytes(data, path, dataclasses.replace(settings, select=frozenset(codes))).findings
        finally:
            for code, kept in real.items():
                rules[code].screen = kept
        lost.extend((path, f.code, f.line) for f in found if f.code in codes)
    print(json.dumps({"files": files, "opened": opened, "stopped": dict(stopped), "candidates": sum(map(len, candidates.values())), "candidate_files": len(candidates), "lost": lost, "screened_seconds": screened, "seconds": time.perf_counter() - started}))
    """
)


def log(msg: str = "") -> None:
    print(msg, flush=True)


# --------------------------------------------------------------------------------------------
# Building the tree
# --------------------------------------------------------------------------------------------
def venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def site_packages(tree: Path) -> list:
    venv = tree / "venv"
    if not venv.is_dir():
        return []
    found = sorted(venv.glob("lib/python*/site-packages")) + sorted(venv.glob("Lib/site-packages"))
    return [p for p in found if p.is_dir()]


def targets_for(tree: Path) -> list:
    sites = site_packages(tree)
    if not sites:
        return [tree]
    mcp_dir = tree / "mcp_files"
    return sites + ([mcp_dir] if mcp_dir.is_dir() else [])


def python_files(targets: list) -> list:
    out = []
    for target in targets:
        if target.is_file():
            out.append(target)
            continue
        for dirpath, _dirnames, filenames in os.walk(target):
            out.extend(Path(dirpath) / f for f in filenames if f.endswith(".py"))
    return out


def build_venv(tree: Path, packages: list) -> None:
    venv = tree / "venv"
    marker = venv / ".bench-packages"
    wanted = " ".join(sorted(packages))
    if venv_python(venv).exists() and marker.exists() and marker.read_text().strip() == wanted:
        log(f"reusing {venv} ({wanted})")
        return
    if not venv_python(venv).exists():
        log(f"creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    else:
        log(f"reusing {venv}, checking packages")
    log(f"pip install {' '.join(packages)} (this can take a few minutes)")
    subprocess.run(
        [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "-q", *packages],
        check=True,
    )
    marker.write_text(wanted + "\n")


def render_mcp_files(tree: Path, real_count: int) -> int:
    templates = sorted(TEMPLATES.glob("*.py.tmpl"))
    if not templates:
        raise SystemExit(f"no templates in {TEMPLATES}")
    out = tree / "mcp_files"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    count = max(len(templates), round(real_count * MCP_SHARE))
    for i in range(count):
        tmpl = templates[i % len(templates)]
        stem = tmpl.name[: -len(".py.tmpl")]
        name = f"{stem.replace('_', '-')}-{i:03d}"
        text = string.Template(tmpl.read_text(encoding="utf-8")).substitute(
            title=f"Benchmark file {i} from {tmpl.name}",
            name=name,
            index=str(i + 1),
            default_dir=f"/srv/projects/p{i:03d}",
            env_var=f"WORKSPACE_{i:03d}",
            root=PurePosixPath(f"/srv/projects/p{i:03d}").as_uri(),
        )
        compile(text, tmpl.name, "exec")  # a broken template should fail the build, not the run
        package = out / f"pkg{i // 10:02d}"
        package.mkdir(exist_ok=True)
        (package / f"{stem}_{i:03d}.py").write_text(text, encoding="utf-8")
    return count


def build(tree: Path, packages: list) -> None:
    tree.mkdir(parents=True, exist_ok=True)
    build_venv(tree, packages)
    real = python_files(site_packages(tree))
    n = render_mcp_files(tree, len(real))
    log(f"tree: {len(real)} .py files in site-packages + {n} MCP roots files in {tree / 'mcp_files'}")
    if len(real) < MIN_FILES:
        log(f"warning: fewer than {MIN_FILES} real files; add packages with --packages")


# --------------------------------------------------------------------------------------------
# The generated MCP-heavy tree (--build-mcp)
# --------------------------------------------------------------------------------------------
NOUNS = [
    "invoice",
    "ticket",
    "repo",
    "issue",
    "calendar",
    "contact",
    "order",
    "shipment",
    "metric",
    "alert",
    "document",
    "dataset",
    "notebook",
    "pipeline",
    "secret",
    "bucket",
    "cluster",
    "deploy",
    "message",
    "channel",
    "wiki",
    "recipe",
    "weather",
    "stock",
    "flight",
    "booking",
    "lead",
    "note",
    "snippet",
    "workspace",
    "query",
    "index",
    "vector",
    "embedding",
    "feed",
    "podcast",
    "photo",
]
VERBS = ["search", "get", "list", "create", "update", "sync", "export", "import", "scan", "rank", "fetch", "tag"]
# (template, share of the generated files, folder inside a project). The shares are what MCP
# projects look like: many tool modules and tests, fewer gateways; a few files do not use MCP.
HEAVY_KINDS = [
    ("fastmcp_tools", 0.17, "tools"),
    ("fastmcp2_tools", 0.08, "tools"),
    ("lowlevel_server", 0.08, "servers"),
    ("client", 0.11, "clients"),
    ("models", 0.11, "models"),
    ("gateway", 0.05, "gateway"),
    ("tests", 0.20, "tests"),
    ("utils", 0.12, "utils"),
    ("plain", 0.08, ""),
]
HEAVY_FILES = 1700  # modules; with the packages' __init__.py files about 2,000 .py files
HEAVY_PROJECTS = 40
HEAVY_SEED = 11
HEAVY_ROOTS_SHARE = 0.08  # plus the whole-file Roots templates below: about a tenth in all
HEAVY_LEGACY_SHARE = 0.02  # files rendered from the site tree's six Roots templates
HEAVY_BIG_MODULES = 12  # modules of 3,000+ lines
HEAVY_BIG_LINES = 3000
HEAVY_BIG_TEST_BYTES = 1_260_000  # like the 1.26 MB test module of issue 11


def load_sections(path: Path) -> dict:
    """A heavy template: `#@ header`, any number of `#@ unit` / `#@ roots` sections, `#@ footer`."""
    out = {"header": [], "unit": [], "roots": [], "footer": []}
    name, lines = None, []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("#@ "):
            if name:
                out[name].append("".join(lines))
            name, lines = line[3:].strip(), []
        else:
            lines.append(line)
    if name:
        out[name].append("".join(lines))
    return out


def _values(rng, project: str, noun: str, index: int, unit: int) -> dict:
    camel = "".join(part.title() for part in noun.split("_"))
    return {
        "p": project,
        "i": str(index),
        "noun": noun,
        "NOUN": noun.upper(),
        "Model": f"{camel}{unit}",
        "fn": f"{rng.choice(VERBS)}_{noun}_{unit}",
        "n": str(rng.randint(10, 999)),
        "small": str(rng.randint(2, 9)),
        "scheme": rng.choice(["data", "res", "mem", "db"]),
        "dir": f"/srv/{project}/{noun}",
    }


def _render(
    sections: dict, rng, project: str, noun: str, index: int, units: int, roots: int, min_lines: int = 0
) -> str:
    """Header, `units` units (more while under `min_lines` lines), `roots` Roots units, footer."""
    fill = string.Template
    parts = [fill(sections["header"][0]).substitute(_values(rng, project, noun, index, 0))]
    has_roots = bool(sections["roots"] and sections["roots"][0].strip())
    picks = [rng.choice(sections["unit"]) for _ in range(units)]
    for _ in range(roots if has_roots else 0):
        picks.insert(rng.randint(0, len(picks)), rng.choice(sections["roots"]))
    lines, k = parts[0].count("\n"), 0
    while k < len(picks) or lines < min_lines:
        unit = picks[k] if k < len(picks) else rng.choice(sections["unit"])
        k += 1
        chunk = "\n\n" + fill(unit).substitute(_values(rng, project, noun, index, k))
        parts.append(chunk)
        lines += chunk.count("\n")
    if sections["footer"] and sections["footer"][0].strip():
        parts.append("\n\n" + fill(sections["footer"][0]).substitute(_values(rng, project, noun, index, 0)))
    return "".join(parts).rstrip() + "\n"


def _table_rows(rng, kind: str, count: int, project: str) -> str:
    rows = []
    for _ in range(count):
        a, b, n = rng.choice(NOUNS), rng.choice(NOUNS), rng.randint(1, 9999)
        root = rng.choice([f"/srv/{project}/workspace", f"/home/dev/projects/{project}", f"/tmp/{project}-scratch"])
        if kind == "allow":
            path = rng.choice(
                [f"{root}/{a}/{b}_{n}.py", f"{root}/../{a}/{n}.txt", f"/etc/{a}/{n}.conf", f"{root}-evil/{b}"]
            )
            expected = path.startswith(root + "/") and ".." not in path
            rows.append(f'        ("{path}", ["file://{root}", "file:///opt/{a}"], {expected}),')
        elif kind == "uri":
            rows.append(f'        ("file://{root}/{a}/{b}%20{n}.md", "{root}/{a}/{b} {n}.md"),')
        else:
            method = rng.choice(["roots/list", "notifications/roots/list_changed"])
            rows.append(
                f'        {{"jsonrpc": "2.0", "id": {n}, "method": "{method}", "params": {{"_meta": {{"{a}": "{b}"}}}}}},'
            )
    return "\n".join(rows)


def _render_big_test(sections: dict, rng, project: str, target_bytes: int) -> str:
    fill = string.Template
    parts = [fill(sections["header"][0]).substitute(_values(rng, project, "workspace", 0, 0))]
    size, k = len(parts[0]), 0
    while size < target_bytes:
        k += 1
        values = _values(rng, project, rng.choice(NOUNS), 0, k)
        values["allow_rows"] = _table_rows(rng, "allow", rng.randint(20, 80), project)
        values["uri_rows"] = _table_rows(rng, "uri", rng.randint(20, 80), project)
        values["message_rows"] = _table_rows(rng, "message", rng.randint(10, 40), project)
        chunk = "\n\n" + fill(rng.choice(sections["unit"])).substitute(values)
        parts.append(chunk)
        size += len(chunk)
    return "".join(parts).rstrip() + "\n"


def build_mcp_heavy(out: Path, files: int = HEAVY_FILES, seed: int = HEAVY_SEED) -> dict:
    """Write the MCP-heavy tree: HEAVY_PROJECTS projects laid out like real MCP servers and
    clients (src/<pkg>/tools, servers, clients, models, gateway, utils; tests/), deterministic for
    a seed. Returns counts by kind."""
    import random

    rng = random.Random(seed)
    heavy = {name: load_sections(HEAVY_TEMPLATES / f"{name}.py.tmpl") for name, _, _ in HEAVY_KINDS}
    big_test = load_sections(HEAVY_TEMPLATES / "big_test.py.tmpl")
    legacy = sorted(TEMPLATES.glob("*.py.tmpl"))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    counts = {"files": 0, "roots_files": 0, "big_modules": 0, "inits": 0}
    projects = [f"{NOUNS[k % len(NOUNS)]}_mcp_{k:02d}" for k in range(HEAVY_PROJECTS)]
    names, weights = [k[0] for k in HEAVY_KINDS], [k[1] for k in HEAVY_KINDS]
    folders = {k[0]: k[2] for k in HEAVY_KINDS}
    big_at = set(rng.sample(range(files - 1), HEAVY_BIG_MODULES))
    made_dirs = set()

    def write(rel: PurePosixPath, text: str) -> None:
        compile(text, str(rel), "exec")  # a broken template should fail the build, not the run
        path = out / rel
        if path.parent not in made_dirs:
            path.parent.mkdir(parents=True, exist_ok=True)
            made_dirs.add(path.parent)
            if path.parent.parent.name == "src" or path.parent.parent.parent.name == "src":
                init = path.parent / "__init__.py"
                if not init.exists():
                    init.write_text(f'"""{path.parent.name}."""\n', encoding="utf-8")
                    counts["inits"] += 1
        path.write_text(text, encoding="utf-8")
        counts["files"] += 1

    # The 1.26 MB test module first, so its place does not depend on the other files.
    write(
        PurePosixPath(projects[0], "tests", "test_roots_gateway_generated.py"),
        _render_big_test(big_test, rng, projects[0], HEAVY_BIG_TEST_BYTES),
    )
    counts["roots_files"] += 1
    for index in range(files - 1):
        project = projects[index % HEAVY_PROJECTS]
        noun = rng.choice(NOUNS)
        draw = rng.random()
        if draw < HEAVY_LEGACY_SHARE:
            tmpl = legacy[index % len(legacy)]
            stem = tmpl.name[: -len(".py.tmpl")]
            text = string.Template(tmpl.read_text(encoding="utf-8")).substitute(
                title=f"{project} {stem} {index}",
                name=f"{project}-{noun}",
                index=str(index + 1),
                default_dir=f"/srv/{project}/{noun}",
                env_var=f"{noun.upper()}_ROOT",
                root=PurePosixPath(f"/srv/{project}/{noun}").as_uri(),
            )
            write(PurePosixPath(project, "src", project, "roots", f"{stem}_{index:04d}.py"), text)
            counts["roots_files"] += 1
            continue
        kind = rng.choices(names, weights)[0]
        roots = 0
        if draw < HEAVY_LEGACY_SHARE + HEAVY_ROOTS_SHARE and kind != "plain":
            roots = rng.randint(1, 2)
            counts["roots_files"] += 1
        units, min_lines = rng.randint(2, 12), 0
        if index in big_at:
            kind = names[counts["big_modules"] % (len(names) - 1)]  # any kind but "plain"
            counts["big_modules"] += 1
            min_lines = HEAVY_BIG_LINES + rng.randint(0, 600)
        text = _render(heavy[kind], rng, project, noun, index, units, roots, min_lines)
        folder = folders[kind]
        if kind == "tests":
            rel = PurePosixPath(project, "tests", f"test_{noun}_{index:04d}.py")
        elif folder:
            rel = PurePosixPath(project, "src", project, folder, f"{noun}_{index:04d}.py")
        else:
            rel = PurePosixPath(project, "src", project, f"{noun}_{index:04d}.py")
        write(rel, text)
        counts[kind] = counts.get(kind, 0) + 1
    (out / ".bench-mcp-heavy").write_text(json.dumps({"seed": seed, "files": files, **counts}, indent=2) + "\n")
    return counts


# --------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------
def find_ruff() -> list:
    exe = shutil.which("ruff")
    if exe is None:
        candidate = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
        if candidate.exists():
            exe = str(candidate)
    if exe is None:
        raise SystemExit("ruff not found: pip install ruff==0.17.6 (or pass --ruff CMD)")
    return [exe]


def timed(cmd: list, sample: bool = False, env: dict | None = None) -> dict:
    payload = json.dumps([cmd, str(REPO), sample])
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, payload],
        capture_output=True,
        check=False,
        env=CHILD_ENV if env is None else env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"wrapper failed: {proc.stderr.decode(errors='replace')}")
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def warm_cache(files: list) -> None:
    for path in files:
        try:
            with open(path, "rb") as fh:
                while fh.read(1 << 20):
                    pass
        except OSError:
            pass


def ruff_file_count(ruff: list, targets: list) -> int | None:
    cmd = ruff + ["check", "--select", "UP", "--no-cache", "--show-files", *map(str, targets)]
    proc = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    if proc.returncode not in (0, 1):
        return None
    return sum(1 for line in proc.stdout.decode(errors="replace").splitlines() if line.rstrip().endswith(".py"))


def file_probe(targets: list, listing: Path) -> dict | None:
    """The in-process probe; `listing` receives every file and the files with findings."""
    proc = subprocess.run(
        [sys.executable, "-c", FILE_PROBE, json.dumps([[str(t) for t in targets], str(listing)])],
        cwd=REPO,
        capture_output=True,
        check=False,
        env=CHILD_ENV,
    )
    if proc.returncode != 0:
        log(f"  probe skipped: {proc.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def fmt_cmd(cmd: list) -> str:
    return " ".join(str(c) for c in cmd)


# --------------------------------------------------------------------------------------------
# Measuring one tree
# --------------------------------------------------------------------------------------------
def prime_bytecode(ours: list, cache: bool) -> None:
    """One untimed run over the fixtures, so that every module the timed runs import has its
    bytecode cache written first (the fixtures reach every rule, fix and output path); with
    `--no-cache` where the tool has it, so that it leaves no results cache behind."""
    cold = ["--no-cache"] if cache else []
    cmd = ours + cold + ["--exit-zero", "-q", "-o", os.devnull, str(REPO / "fixtures")]
    subprocess.run(cmd, cwd=REPO, capture_output=True, check=False, env=CHILD_ENV)


def has_cache_flag(ours: list) -> bool:
    proc = subprocess.run(ours + ["--help"], cwd=REPO, capture_output=True, check=False)
    return b"--no-cache" in proc.stdout


def findings_of(ours: list, targets: list, extra: list, env: dict | None) -> list | None:
    """The findings of one JSON run, as sorted (path, line, column, code, message) tuples."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "findings.json"
        cmd = ours + extra + ["--format", "json", "--exit-zero", "-q", "-o", str(out), *map(str, targets)]
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, check=False, env=CHILD_ENV if env is None else env)
        if proc.returncode != 0 or not out.exists():
            log(f"    findings run failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')[-500:]}")
            return None
        data = json.loads(out.read_text(encoding="utf-8"))
    return sorted((f["path"], f["line"], f["column"], f["code"], f["message"]) for f in data.get("findings", []))


def alternate(label_cmds: list, runs: int, env: dict | None = None) -> dict | None:
    """Alternating timed runs; None when a tool failed (its stderr is printed)."""
    results = {label: [] for label, _ in label_cmds}
    for i in range(1, max(1, runs) + 1):
        for label, cmd in label_cmds:
            r = timed(cmd, env=env)
            results[label].append(r)
            status = "" if r["returncode"] in (0, 1) else f"  FAILED (exit {r['returncode']})"
            log(
                f"    run {i} {label:9s} {r['seconds']:8.2f} s  (cpu {r['cpu_seconds']:6.2f} s)  "
                f"exit {r['returncode']}  peak RSS {r['maxrss_mb']:7.1f} MB{status}"
            )
            if status:
                log(textwrap.indent(r["stderr"].strip()[-1500:], "    | "))
                return None
    return results


def med(rs: list, key: str = "seconds") -> float:
    return statistics.median(r[key] for r in rs)


def verdict(value, limit) -> str:
    if value is None:
        return "n/a"
    return "met" if value <= limit else "NOT met"


def _medians(runs: list) -> dict:
    return {"wall": med(runs), "cpu": med(runs, "cpu_seconds"), "peak_mb": max(r["maxrss_mb"] for r in runs)}


def measure_tree(name: str, kind: str, targets: list, args, ours: list, ruff: list, cache: bool) -> dict:
    """Everything the summary table needs for one tree."""
    t_start = time.perf_counter()
    files = python_files(targets)
    size_mb = sum(f.stat().st_size for f in files) / 2**20
    log("")
    log(f"== tree {name} ({kind}) ==")
    log(f"  targets: {', '.join(str(t) for t in targets)}")
    log(f"  files:   {len(files)} .py files ({size_mb:.1f} MB)")
    seen = ruff_file_count(ruff, targets)
    if seen is not None and seen != len(files):
        log(f"           ruff checks {seen} of them (its default excludes skip e.g. `build/` folders)")
    warm_cache(files)
    row = {"tree": name, "kind": kind, "targets": [str(t) for t in targets], "py_files": len(files)}
    row["megabytes"] = size_mb
    row["ruff_files"] = seen

    with tempfile.TemporaryDirectory(prefix="mcp-migrate-bench-") as tmp:
        listing, empty = Path(tmp) / "files.json", Path(tmp) / "empty"
        empty.mkdir()
        probe = None if args.no_probe else file_probe(targets, listing)
        row["probe"] = probe
        if probe:
            _log_probe(probe)
        cold = ["--no-cache"] if cache else []
        runs = [
            ("ruff", ruff + ["check", "--select", "UP", "--no-cache", *map(str, targets)]),
            ("ours full", ours + cold + [str(t) for t in targets]),
            ("ours concise", ours + cold + ["--output-format", "concise"] + [str(t) for t in targets]),
            ("start-up", ours + cold + [str(empty)]),
        ]
        if probe:
            runs.append(("floor", [sys.executable, "-c", FLOOR, str(listing)]))
        results = alternate(runs, args.runs)
    if results is None:
        row["failed"] = True
        return row
    timed_rows = {label: _medians(rs) for label, rs in results.items()}
    row["runs"] = timed_rows
    ruff_r, full_r, concise_r = results["ruff"], results["ours full"], results["ours concise"]
    row.update(
        median_ruff=med(ruff_r),
        median_ours=med(concise_r),
        median_full=med(full_r),
        cpu_ruff=med(ruff_r, "cpu_seconds"),
        cpu_ours=med(concise_r, "cpu_seconds"),
        cpu_full=med(full_r, "cpu_seconds"),
        ruff_peak_rss_mb=max(r["maxrss_mb"] for r in ruff_r),
        ours_peak_rss_mb=max(r["maxrss_mb"] for r in full_r + concise_r),
    )
    row["ratio"] = row["median_ours"] / row["median_ruff"]
    row["full_over_concise"] = row["cpu_full"] / row["cpu_ours"]
    if "floor" in timed_rows:
        row["floor_cpu"] = timed_rows["floor"]["cpu"]
        row["over_floor"] = row["cpu_ours"] / row["floor_cpu"]
    for label, t in timed_rows.items():
        log(f"  {label:13s} median wall {t['wall']:7.2f} s, cpu {t['cpu']:7.2f} s, peak {t['peak_mb']:6.0f} MB")
    log(
        f"  concise/ruff wall {row['ratio']:.2f}x; full/concise cpu {row['full_over_concise']:.2f}x"
        + (f"; concise cpu / floor {row['over_floor']:.2f}x" if "over_floor" in row else "")
    )
    if probe:
        split = dict(probe["cpu"])
        split["start-up"] = timed_rows["start-up"]["cpu"]
        split["output (full - concise)"] = row["cpu_full"] - row["cpu_ours"]
        split["rest (imports after start-up, discovery, concise report)"] = row["cpu_ours"] - (
            split["start-up"] + split["screening"] + split["parse"] + split["rules"]
        )
        row["cpu_split"] = split
        log("  cpu split of a cold run (start-up and output from the timed runs, the rest in-process):")
        for part, value in split.items():
            log(f"    {part:58s} {value:7.3f} s")
    if not args.no_rss_sample:
        mem = timed(ours + ["--output-format", "concise"] + [str(t) for t in targets], sample=True)
        if mem.get("tree_mem_mb"):
            row["ours_all_processes_mb"] = mem["tree_mem_mb"]
            log(
                f"  ours, all {mem['max_procs']} processes together: {mem['tree_mem_mb']:.0f} MB "
                f"(summed {mem['tree_mem_kind']}, {mem['samples']} samples)"
            )

    # Cold vs warm, through the cache; never in the tree (a temp cache dir).
    row["warm"] = None
    if cache:
        concise = ["--output-format", "concise"]
        with tempfile.TemporaryDirectory(prefix="mcp-migrate-cache-") as cache_dir:
            env = dict(CHILD_ENV, MCP_MIGRATE_CACHE_DIR=cache_dir)
            cold_findings = findings_of(ours, targets, ["--no-cache"], None)
            prime = timed(ours + concise + [str(t) for t in targets], env=env)
            log(f"    priming run (fills the cache) {prime['seconds']:8.2f} s")
            warm_r = alternate([("ours warm", ours + concise + [str(t) for t in targets])], args.runs, env=env)
            warm_findings = findings_of(ours, targets, [], env)
        if warm_r:
            row["warm"] = {
                "seconds": [r["seconds"] for r in warm_r["ours warm"]],
                "median": med(warm_r["ours warm"]),
                "cpu": med(warm_r["ours warm"], "cpu_seconds"),
                "peak_rss_mb": max(r["maxrss_mb"] for r in warm_r["ours warm"]),
                "priming_seconds": prime["seconds"],
            }
            row["warm"]["ratio"] = row["warm"]["median"] / row["median_ruff"]
            row["warm"]["cpu_ratio"] = row["warm"]["cpu"] / row["cpu_ruff"]
            log(
                f"  warm concise: median {row['warm']['median']:.2f} s, ratio {row['warm']['ratio']:.2f}x ruff "
                f"(cpu {row['warm']['cpu_ratio']:.2f}x)"
            )
        if cold_findings is None or warm_findings is None:
            row["cold_warm"] = "not compared (a findings run failed)"
        elif cold_findings == warm_findings:
            row["cold_warm"] = f"identical ({len(cold_findings)} findings)"
        else:
            gone = sorted(set(cold_findings) - set(warm_findings))
            new = sorted(set(warm_findings) - set(cold_findings))
            row["cold_warm"] = (
                f"DIFFERENT: cold {len(cold_findings)}, warm {len(warm_findings)}; {len(gone)} only cold, {len(new)} only warm"
            )
            log("  " + "!" * 78)
            log(f"  !!! FINDINGS DIFFER COLD VS WARM on {name}: cold {len(cold_findings)}, warm {len(warm_findings)}")
            for f in gone[:10]:
                log(f"  !!!   only cold: {f[0]}:{f[1]}:{f[2]} {f[3]}")
            for f in new[:10]:
                log(f"  !!!   only warm: {f[0]}:{f[1]}:{f[2]} {f[3]}")
            log("  " + "!" * 78)
        log(f"  findings cold vs warm: {row['cold_warm']}")
    else:
        log("  warm: n/a (no cache in this version)")

    if probe and probe["largest"]["path"] and not args.no_largest:
        largest = probe["largest"]["path"]
        one = timed(ours + ["-j", "1", largest])
        row["largest_file"] = {
            "path": largest,
            "bytes": probe["largest"]["bytes"],
            "seconds": one["seconds"],
            "peak_rss_mb": one["maxrss_mb"],
        }
        log(
            f"  -j 1 over the largest file ({probe['largest']['bytes']:,} B): {one['seconds']:.2f} s, "
            f"peak RSS {one['maxrss_mb']:.0f} MB  {largest}"
        )
    row["measure_seconds"] = time.perf_counter() - t_start
    log(f"  (measuring this tree took {row['measure_seconds']:.0f} s)")
    return row


def _log_probe(probe: dict) -> None:
    log(
        f"  screens: {probe['files']} files; past the gate {probe.get('past_gate', '-')}, past the byte screens "
        f"{probe.get('past_byte_screens', '-')}, parsed by LibCST {probe['screened_in']} "
        f"({probe['screened_in_bytes'] / 2**20:.2f} of {probe['bytes'] / 2**20:.1f} MB; {probe['discovery']}); "
        f"with findings {probe['files_with_findings']} ({probe['findings']} findings)"
    )
    per_rule = probe.get("per_rule") or {}
    if per_rule:
        log(
            "  per rule (files past its byte screen / its syntax screen / with its findings): "
            + ", ".join(f"{code} {b}/{t}/{f}" for code, (b, t, f) in per_rule.items())
        )
    if probe["check_over_parse_max"] is not None:
        log(
            f"  files with findings, check_bytes / bare parse: max {probe['check_over_parse_max']:.2f}x "
            f"({probe['check_over_parse_max_path']}), median {probe['check_over_parse_median']:.2f}x"
        )
    log("  slowest files (check_bytes, in-process):")
    for s in probe["slowest"][:5]:
        log(
            f"    {s['check_seconds']:7.3f} s  parse {s['parse_seconds']:6.3f} s  {s['bytes']:>9,} B "
            f"{s['lines']:>6} lines  {s['findings']:>3} findings  {s['path']}"
        )


def total_row(rows: list) -> dict | None:
    """The "all repos" line: sums of the per-repository medians and counts, the largest memory."""
    ok = [r for r in rows if not r.get("failed")]
    if not ok:
        return None
    probes = [r["probe"] for r in ok if r.get("probe")]
    total = {
        "tree": f"all repos ({len(ok)})",
        "kind": "repos total",
        "py_files": sum(r["py_files"] for r in ok),
        "median_ruff": sum(r["median_ruff"] for r in ok),
        "median_ours": sum(r["median_ours"] for r in ok),
        "cpu_ours": sum(r["cpu_ours"] for r in ok),
        "cpu_full": sum(r["cpu_full"] for r in ok),
        "ruff_peak_rss_mb": max(r["ruff_peak_rss_mb"] for r in ok),
        "ours_peak_rss_mb": max(r["ours_peak_rss_mb"] for r in ok),
        "warm": None,
        "probe": {
            "files": sum(p["files"] for p in probes),
            "screened_in": sum(p["screened_in"] for p in probes),
            "files_with_findings": sum(p["files_with_findings"] for p in probes),
        }
        if probes
        else None,
    }
    total["ratio"] = total["median_ours"] / total["median_ruff"]
    total["full_over_concise"] = total["cpu_full"] / total["cpu_ours"]
    floors = [r.get("floor_cpu") for r in ok]
    if all(f is not None for f in floors):
        total["floor_cpu"] = sum(floors)
        total["over_floor"] = total["cpu_ours"] / total["floor_cpu"]
    warms = [r["warm"]["median"] for r in ok if r.get("warm")]
    if len(warms) == len(ok):
        total["warm"] = {"median": sum(warms), "ratio": sum(warms) / total["median_ruff"]}
    return total


def print_summary(rows: list) -> None:
    log("")
    log("== summary (wall and CPU: medians of the runs; MB: largest single process) ==")
    head = (
        f"{'tree':34s} {'files':>6s} {'parsed':>6s} {'w/find':>6s} {'ruff s':>7s} {'ours s':>7s} {'ratio':>6s} "
        f"{'warm':>6s} {'cpu':>7s} {'floor':>7s} {'/floor':>7s} {'full/c':>7s} {'oursMB':>6s}"
    )
    log(head)

    def times(value) -> str:
        return "-" if value is None else f"{value:.2f}x"

    for r in rows:
        if r.get("failed"):
            log(f"{r['tree'][:34]:34s} FAILED")
            continue
        p = r.get("probe") or {}
        floor = r.get("floor_cpu")
        log(
            f"{r['tree'][:34]:34s} {p.get('files', r['py_files']):>6} {p.get('screened_in', '-'):>6} "
            f"{p.get('files_with_findings', '-'):>6} {r['median_ruff']:7.2f} {r['median_ours']:7.2f} "
            f"{r['ratio']:5.2f}x {times(r['warm']['ratio']) if r.get('warm') else 'n/a':>6s} "
            f"{r['cpu_ours']:7.2f} {(f'{floor:.2f}' if floor else '-'):>7s} {times(r.get('over_floor')):>7s} "
            f"{times(r.get('full_over_concise')):>7s} {r['ours_peak_rss_mb']:6.0f}"
        )


def print_targets(rows: list) -> None:
    """The targets of issue 21, beside the numbers."""
    log("")
    log("== targets (issue 21) ==")
    for r in rows:
        if r.get("failed"):
            continue
        p = r.get("probe") or {}
        items = []
        if p.get("files_with_findings"):
            parsed = p["screened_in"] / p["files_with_findings"]
            items.append(
                f"parsed by LibCST <= {TARGET_PARSED}x files with findings: {p['screened_in']}/{p['files_with_findings']}"
                f" = {parsed:.2f}x {verdict(parsed, TARGET_PARSED)}"
            )
        if r.get("over_floor") is not None:
            items.append(
                f"cold concise CPU <= {TARGET_FLOOR}x the floor: {r['cpu_ours']:.2f} / {r['floor_cpu']:.2f} s = "
                f"{r['over_floor']:.2f}x {verdict(r['over_floor'], TARGET_FLOOR)}"
            )
        if r.get("warm"):
            w = r["warm"]["ratio"]
            items.append(f"warm <= {TARGET_WARM}x ruff: {w:.2f}x {verdict(w, TARGET_WARM)}")
        if r.get("full_over_concise") is not None:
            f = r["full_over_concise"]
            items.append(f"full output <= {TARGET_FULL}x concise (CPU): {f:.2f}x {verdict(f, TARGET_FULL)}")
        peak = r["ours_peak_rss_mb"]
        lf = r.get("largest_file")
        items.append(f"peak memory per process <= {TARGET_PEAK_MB} MB: {peak:.0f} MB {verdict(peak, TARGET_PEAK_MB)}")
        if lf:
            items.append(
                f"-j 1 process on the largest file: {lf['peak_rss_mb']:.0f} MB "
                f"{verdict(lf['peak_rss_mb'], TARGET_PEAK_MB)} ({lf['bytes']:,} B)"
            )
        if r["kind"] == "site-packages":
            items.append(
                f"site-packages tree <= {TARGET_SITE}x ruff (concise, wall): {r['ratio']:.2f}x {verdict(r['ratio'], TARGET_SITE)}"
            )
        log(f"{r['tree']}:")
        for item in items:
            log(f"    {item}")


# --------------------------------------------------------------------------------------------
# --lossless: the syntax screen against the rules and the labels
# --------------------------------------------------------------------------------------------
def lossless(repos: Path, trees: list) -> int:
    """Run LOSSLESS over every tree; 1 when a screen drops a finding or a labelled file."""
    sys.path.insert(0, str(HERE))
    import corpus  # benchmarks/corpus.py: the label files' reader

    loaded = corpus.load_corpus(corpus.DEFAULT_LABELS, None, False, corpus.DEFAULT_FIRST_LOOK)
    labels = (
        [
            {
                "repo": label["repo"],
                "path": label["path"],
                "line": label["line"],
                "code": label["code"],
                "found": label.get("found"),
                "set": label.get("set"),
                "file": str(repos / corpus.folder_name(label["repo"]) / label["path"]),
            }
            for label in loaded.labels
        ]
        if repos is not None
        else []
    )
    out = _script_answer(LOSSLESS, json.dumps([str(t) for t in trees]), json.dumps(labels))
    if out is None:
        return 1
    log(
        f"lossless: {out['files']} files, {out['checked']} past the byte screens checked with the syntax screen open "
        f"({out['unread']} the standard parser cannot read: their rules always run), {out['rule_findings']} "
        f"(file, rule) findings"
    )
    for path, code in out["dropped"]:
        log(f"  DROPPED: {code} in {path}")
    log(
        f"byte screens: {out['byte_seconds']:.1f} s over the {out['files']} files; slowest: "
        + ", ".join(f"{seconds * 1000:.1f} ms {path}" for seconds, path in out["slowest"])
    )
    rows = out["labels"]
    present = [r for r in rows if r.get("status") != "missing"]
    blocked = [r for r in present if not r["tree"]]
    byte_only = [r for r in present if r["tree"] and not r["byte"]]
    log(
        f"labels: {len(rows)} ({len(rows) - len(present)} files missing); every present labelled file passes the "
        f"syntax screen of its code: {'yes' if not blocked else 'NO'}"
    )
    for r in blocked:
        log(f"  BLOCKED by the syntax screen: {r['code']} {r['repo']} {r['path']}:{r['line']} (found={r['found']})")
    if byte_only:
        log(f"  {len(byte_only)} labelled files the byte screens (not the syntax screen) keep from their rule:")
        for r in byte_only:
            log(f"    {r['code']} {r['repo']} {r['path']}:{r['line']} (found={r['found']}, {r['set']})")
    return 1 if out["dropped"] or blocked else 0


def _script_answer(script: str, *args: str) -> dict | None:
    """The JSON a check script prints last, run in a child; None, with its stderr logged, when
    it fails. The child checks the mcp_migrate PYTHONPATH names (a snapshot being measured), else
    this checkout's, and runs from a scratch folder: a `python -c` child imports from its working
    folder first, so run from the checkout it measured the checkout whatever PYTHONPATH said
    (session 69's first "before" of `--lossless` was the new code)."""
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH") or str(REPO))
    with tempfile.TemporaryDirectory() as scratch:
        proc = subprocess.run(
            [sys.executable, "-c", script, *args], cwd=scratch, env=env, capture_output=True, check=False
        )
    if proc.returncode != 0:
        log(proc.stderr.decode(errors="replace")[-3000:])
        return None
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def lossless_bytes(trees: list) -> int:
    """Run LOSSLESS_BYTES over every tree; 1 when a byte screen stops a file its rule finds in."""
    out = _script_answer(LOSSLESS_BYTES, json.dumps([str(t) for t in trees]))
    if out is None:
        return 1
    stopped = ", ".join(f"{code} {count}" for code, count in sorted(out["stopped"].items()))
    log(
        f"lossless bytes: {out['files']} files, {out['opened']} the joined gate opens; (file, rule) pairs the byte "
        f"screens stop: {stopped}"
    )
    log(
        f"  {out['candidates']} of them ({out['candidate_files']} files) the syntax screen would let through or "
        f"cannot read, checked with the byte screens open: {len(out['lost'])} findings lost "
        f"({out['screened_seconds']:.0f} s screening, {out['seconds']:.0f} s in all)"
    )
    for path, code, line in out["lost"]:
        log(f"  LOST: {code} in {path}:{line}")
    return 1 if out["lost"] else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, help=f"site-packages tree to check (default: {DEFAULT_TREE})")
    ap.add_argument("--build", action="store_true", help="create or refresh the site-packages tree first")
    ap.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES, help="what --build installs")
    ap.add_argument(
        "--mcp-tree", type=Path, default=DEFAULT_MCP_TREE, help="generated MCP-heavy tree (default: %(default)s)"
    )
    ap.add_argument("--build-mcp", action="store_true", help="generate the MCP-heavy tree first (seeded)")
    ap.add_argument("--seed", type=int, default=HEAVY_SEED, help="seed for --build-mcp (default: %(default)s)")
    ap.add_argument("--repos", type=Path, help="folder of exported repositories: each subfolder is a tree")
    ap.add_argument(
        "--trees",
        default="",
        help="comma-separated subset of site,mcp,repos (default: every tree that exists or is built)",
    )
    ap.add_argument("--runs", type=int, default=3, help="timed runs per tool (default: %(default)s)")
    ap.add_argument("--mcp-migrate", dest="ours", help="command for our checker (split on spaces)")
    ap.add_argument("--ruff", help="ruff executable or command (split on spaces)")
    ap.add_argument("--no-rss-sample", action="store_true", help="skip the extra run that sums memory over processes")
    ap.add_argument("--no-probe", action="store_true", help="skip the in-process per-file measurement")
    ap.add_argument("--parse-probe", action="store_true", help=argparse.SUPPRESS)  # now always on (see --no-probe)
    ap.add_argument("--json", type=Path, help="also write the results to this file")
    ap.add_argument(
        "--only", default="", help="with --repos: comma-separated subfolder names to measure (default: all)"
    )
    ap.add_argument("--no-largest", action="store_true", help="skip the -j 1 run over each tree's largest file")
    ap.add_argument(
        "--lossless",
        action="store_true",
        help="instead of timing: check the syntax screen against the rules on every tree and the labelled files",
    )
    ap.add_argument(
        "--lossless-bytes",
        action="store_true",
        help="instead of timing: check the byte screens against the rules on every file the gate opens (slow)",
    )
    args = ap.parse_args(argv)

    wanted = {t.strip() for t in args.trees.split(",") if t.strip()}
    if wanted - {"site", "mcp", "repos"}:
        ap.error(f"--trees: unknown {', '.join(sorted(wanted - {'site', 'mcp', 'repos'}))}")
    site_tree = (args.tree or DEFAULT_TREE).resolve()
    mcp_tree = args.mcp_tree.resolve()
    if args.build:
        build(site_tree, args.packages)
    if args.build_mcp:
        t0 = time.perf_counter()
        counts = build_mcp_heavy(mcp_tree, seed=args.seed)
        log(
            f"built {mcp_tree}: {counts['files']} modules + {counts['inits']} __init__.py, {counts['roots_files']} "
            f"using Roots, {counts['big_modules']} of {HEAVY_BIG_LINES}+ lines, in {time.perf_counter() - t0:.0f} s"
        )

    trees = []  # (name, kind, targets)
    site_ok = args.tree is not None or args.build or (DEFAULT_TREE / "venv").is_dir()
    if (not wanted or "site" in wanted) and site_ok:
        if site_tree.exists():
            trees.append(("site-packages", "site-packages", targets_for(site_tree)))
        else:
            log(f"{site_tree} does not exist; run with --build first")
    elif "site" in wanted:
        log(f"no site-packages tree at {DEFAULT_TREE}; run with --build first")
    if not wanted or "mcp" in wanted:
        if mcp_tree.is_dir():
            trees.append(("mcp-heavy", "generated", [mcp_tree]))
        elif "mcp" in wanted:
            log(f"{mcp_tree} does not exist; run with --build-mcp first")
    repo_start = len(trees)
    if args.repos and (not wanted or "repos" in wanted):
        only = {name.strip() for name in args.only.split(",") if name.strip()}
        for sub in sorted(p for p in args.repos.resolve().iterdir() if p.is_dir()):
            if not only or sub.name in only:
                trees.append((sub.name, "repo", [sub]))
    if args.lossless_bytes:
        if not trees:
            log("no tree to check: --repos DIR and/or a built tree")
            return 1
        return lossless_bytes([t for _, _, targets in trees for t in targets])
    if args.lossless:
        if not trees:
            log("no tree to check: --repos DIR and/or a built tree")
            return 1
        return lossless(args.repos.resolve() if args.repos else None, [t for _, _, targets in trees for t in targets])
    if not trees:
        log("no tree to measure: --build (site-packages), --build-mcp (generated) or --repos DIR")
        return 1

    ours = args.ours.split() if args.ours else [sys.executable, "-m", "mcp_migrate", "check"]
    ruff = args.ruff.split() if args.ruff else find_ruff()
    cache = has_cache_flag(ours)
    prime_bytecode(ours, cache)
    log(f"ruff:    {fmt_cmd(ruff)} check --select UP --no-cache <targets>")
    log(f"ours:    {fmt_cmd(ours)}{' --no-cache' if cache else ''} <targets>")
    log(
        f"cache:   {'yes: cold = --no-cache, warm = second run with MCP_MIGRATE_CACHE_DIR' if cache else 'no --no-cache in `check --help`: warm n/a'}"
    )
    log(f"cpus:    {os.cpu_count()}; python {sys.version.split()[0]}; runs {args.runs}")

    t0 = time.perf_counter()
    rows = [measure_tree(name, kind, targets, args, ours, ruff, cache) for name, kind, targets in trees]
    table = list(rows)
    repo_rows = rows[repo_start:]
    if repo_rows:
        total = total_row(repo_rows)
        if total:
            table.append(total)
    print_summary(table)
    slowest = sorted(
        (s for r in repo_rows if r.get("probe") for s in r["probe"]["slowest"]), key=lambda s: -s["check_seconds"]
    )
    if slowest:
        log("")
        log("slowest files over all repos (check_bytes, in-process):")
        for s in slowest[:5]:
            log(f"    {s['check_seconds']:7.3f} s  {s['bytes']:>9,} B {s['lines']:>6} lines  {s['path']}")
    print_targets(table)
    log("")
    log(f"all trees measured in {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"cache": cache, "runs": args.runs, "trees": table}, indent=2))
    return 1 if any(r.get("failed") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
