#!/usr/bin/env python3
"""Benchmark `mcp-migrate check` against `ruff check --select UP --no-cache` on a large tree.

Standard library only. Typical use, from the repository root:

    .venv/bin/python benchmarks/run.py --build      # once: venv + ~1% MCP roots files
    .venv/bin/python benchmarks/run.py --runs 5

The tree (default `benchmarks/.tree`, git-ignored) holds `venv/` (a virtual environment with a few
large libraries installed; its site-packages are the "real Python files") and `mcp_files/`
(small roots-using MCP servers and clients generated from `benchmarks/templates/`). Both tools
get the same explicit directories: the site-packages folder(s) and `mcp_files/`. (Passing the tree
root would not work: ruff skips `venv/` directories by default.) A `--tree` without a `venv/`
folder is passed to both tools as it is.

Runs alternate (ruff, ours, ruff, ours, ...). Each run is timed inside a fresh wrapper process,
which also reports the peak RSS of the command's process tree via getrusage(RUSAGE_CHILDREN)
(the largest single process, in MB). One extra untimed run of ours samples /proc to get the
peak of the *summed* RSS of all its processes (useful when it runs worker processes).

The script reports; it does not assert. It exits 0 when both tools ran (mcp-migrate exit 1 means
"findings", which is expected here; exit 2 is a failure), 1 otherwise.
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
import textwrap
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_TREE = HERE / ".tree"
TEMPLATES = HERE / "templates"
DEFAULT_PACKAGES = ["django", "sympy", "sqlalchemy", "networkx", "sphinx"]
MIN_FILES = 5000
MCP_SHARE = 0.01
TARGET_RATIO = 1.5

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

# Single-process measurement: how many files pass mcp_migrate's byte screen, the time of the
# screen itself, and a bare libcst.parse_module over only the files that pass it.
PARSE_PROBE = textwrap.dedent(
    r"""
    import json, os, sys, time
    targets = json.loads(sys.argv[1])
    from mcp_migrate.core.engine import screened_rules
from mcp_migrate.core.settings import Settings
    import libcst
    settings = Settings.default()
    files = []
    for target in targets:
        for dirpath, dirnames, filenames in os.walk(target):
            files.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".py"))
    t0 = time.perf_counter()
    passed, total_bytes = [], 0
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        total_bytes += len(data)
        rules = screened_rules(data, settings)
        if rules:
            passed.append((path, data, [r.CODE for r in rules]))
    t1 = time.perf_counter()
    errors = 0
    slowest = []
    for path, data, codes in passed:
        s = time.perf_counter()
        try:
            libcst.parse_module(data)
        except Exception:
            errors += 1
        slowest.append((time.perf_counter() - s, len(data), path, codes))
    t2 = time.perf_counter()
    slowest.sort(reverse=True)
    print(json.dumps({
        "files": len(files),
        "bytes": total_bytes,
        "read_and_screen_seconds": t1 - t0,
        "screened_in": len(passed),
        "screened_in_bytes": sum(len(d) for _, d, _ in passed),
        "parse_seconds": t2 - t1,
        "parse_errors": errors,
        "slowest": [
            {"seconds": round(s, 4), "bytes": n, "path": p, "rules": c} for s, n, p, c in slowest[:10]
        ],
    }))
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


def timed(cmd: list, sample: bool = False) -> dict:
    payload = json.dumps([cmd, str(REPO), sample])
    proc = subprocess.run([sys.executable, "-c", WRAPPER, payload], capture_output=True, check=False)
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


def parse_probe(targets: list) -> dict | None:
    proc = subprocess.run(
        [sys.executable, "-c", PARSE_PROBE, json.dumps([str(t) for t in targets])],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        log(f"parse probe skipped: {proc.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def fmt_cmd(cmd: list) -> str:
    return " ".join(str(c) for c in cmd)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="tree to check (default: %(default)s)")
    ap.add_argument("--build", action="store_true", help="create or refresh the tree first")
    ap.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES, help="what --build installs")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per tool (default: %(default)s)")
    ap.add_argument("--mcp-migrate", dest="ours", help="command for our checker (split on spaces)")
    ap.add_argument("--ruff", help="ruff executable or command (split on spaces)")
    ap.add_argument("--no-rss-sample", action="store_true", help="skip the extra run that sums memory over processes")
    ap.add_argument("--parse-probe", action="store_true", help="also time a bare libcst parse of the screened files")
    ap.add_argument("--json", type=Path, help="also write the results to this file")
    args = ap.parse_args(argv)

    tree = args.tree.resolve()
    if args.build:
        build(tree, args.packages)
    if not tree.exists():
        log(f"{tree} does not exist; run with --build first")
        return 1

    ours = args.ours.split() if args.ours else [sys.executable, "-m", "mcp_migrate", "check"]
    ruff = args.ruff.split() if args.ruff else find_ruff()
    targets = targets_for(tree)
    files = python_files(targets)
    mcp_files = python_files([tree / "mcp_files"]) if (tree / "mcp_files").is_dir() else []
    size_mb = sum(f.stat().st_size for f in files) / 2**20

    ruff_cmd = ruff + ["check", "--select", "UP", "--no-cache", *map(str, targets)]
    ours_cmd = ours + [str(t) for t in targets]
    log(f"tree:    {tree}")
    log(f"files:   {len(files)} .py files ({size_mb:.1f} MB), of which {len(mcp_files)} MCP roots files")
    seen = ruff_file_count(ruff, targets)
    if seen is not None and seen != len(files):
        log(f"         ruff checks {seen} of them (its default excludes skip e.g. `build/` folders)")
    log(f"ruff:    {fmt_cmd(ruff_cmd[:5])} <targets>")
    log(f"ours:    {fmt_cmd(ours)} <targets>")
    log(f"targets: {', '.join(str(t) for t in targets)}")
    log(f"cpus:    {os.cpu_count()}; python {sys.version.split()[0]}")
    warm_cache(files)

    results = {"ruff": [], "ours": []}
    failed = False
    for i in range(1, max(1, args.runs) + 1):
        for label, cmd, ok_codes in (("ruff", ruff_cmd, (0, 1)), ("ours", ours_cmd, (0, 1))):
            r = timed(cmd)
            results[label].append(r)
            status = "" if r["returncode"] in ok_codes else f"  FAILED (exit {r['returncode']})"
            log(
                f"run {i} {label:4s} {r['seconds']:8.2f} s  (cpu {r['cpu_seconds']:6.2f} s)  "
                f"exit {r['returncode']}  peak RSS {r['maxrss_mb']:7.1f} MB{status}"
            )
            if status:
                failed = True
                log(textwrap.indent(r["stderr"].strip()[-1500:], "    | "))
        if failed:
            break
    if failed:
        log("a tool failed; no ratio reported")
        return 1

    ruff_t = [r["seconds"] for r in results["ruff"]]
    ours_t = [r["seconds"] for r in results["ours"]]
    med_ruff, med_ours = statistics.median(ruff_t), statistics.median(ours_t)
    ratio = med_ours / med_ruff
    pair_ratio = statistics.median(o / r for o, r in zip(ours_t, ruff_t))
    cpu_ruff = statistics.median(r["cpu_seconds"] for r in results["ruff"])
    cpu_ours = statistics.median(r["cpu_seconds"] for r in results["ours"])
    ours_rss = max(r["maxrss_mb"] for r in results["ours"])
    ruff_rss = max(r["maxrss_mb"] for r in results["ruff"])
    mem = None
    if not args.no_rss_sample:
        mem = timed(ours_cmd, sample=True)
        if not mem.get("tree_mem_mb"):
            mem = None

    log("")
    log(f"median ruff:  {med_ruff:.2f} s  ({len(files) / med_ruff:,.0f} files/s), peak RSS {ruff_rss:.0f} MB")
    log(
        f"median ours:  {med_ours:.2f} s  ({len(files) / med_ours:,.0f} files/s), "
        f"peak RSS {ours_rss:.0f} MB (largest process)"
        + (
            f"; all {mem['max_procs']} processes together {mem['tree_mem_mb']:.0f} MB "
            f"(summed {mem['tree_mem_kind']}, {mem['samples']} samples)"
            if mem
            else ""
        )
    )
    log(
        f"median CPU time (user+sys, all processes): ruff {cpu_ruff:.2f} s, ours {cpu_ours:.2f} s, "
        f"ratio {cpu_ours / cpu_ruff:.2f}x"
    )
    log(
        f"ratio ours/ruff: {ratio:.2f}x (median of per-pair ratios {pair_ratio:.2f}x); "
        f"target <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'}"
    )

    probe = parse_probe(targets) if args.parse_probe else None
    if probe:
        log("")
        log(
            f"screen: {probe['screened_in']} of {probe['files']} files pass mcp_migrate's byte screen "
            f"({probe['screened_in_bytes'] / 2**20:.1f} of {probe['bytes'] / 2**20:.1f} MB); "
            f"read+screen {probe['read_and_screen_seconds']:.2f} s, "
            f"bare libcst.parse_module of those {probe['parse_seconds']:.2f} s (1 process)"
        )
        for s in probe["slowest"][:5]:
            log(f"  {s['seconds']:7.3f} s  {s['bytes']:>9,} B  {','.join(s['rules'])}  {s['path']}")

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "files": len(files),
                    "mcp_files": len(mcp_files),
                    "ruff_files": seen,
                    "ruff_seconds": ruff_t,
                    "ours_seconds": ours_t,
                    "ruff_cpu_seconds": [r["cpu_seconds"] for r in results["ruff"]],
                    "ours_cpu_seconds": [r["cpu_seconds"] for r in results["ours"]],
                    "median_ruff": med_ruff,
                    "median_ours": med_ours,
                    "ratio": ratio,
                    "pair_ratio": pair_ratio,
                    "ours_peak_rss_mb": ours_rss,
                    "ruff_peak_rss_mb": ruff_rss,
                    "ours_all_processes_mb": mem and mem["tree_mem_mb"],
                    "parse_probe": probe,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
