#!/usr/bin/env python3
"""What `mcp-migrate check ONE_FILE.py` costs cold: a pre-commit run on a single changed file.

Each case is checked in a fresh process with `--no-cache` (the start-up is what is measured),
in the default `full` format (which computes fix previews) and in `concise`; beside it, a bare
`python -c "import libcst; libcst.parse_module(...)"` of the same file in a fresh process is
the yardstick, and `python -c pass` the interpreter's own start-up. The figure is CPU seconds
(user + system of the child, from os.wait4), not wall time, and each is the median of `--runs`
runs taken in turn (check, concise, parse, check, ...), so a busy machine moves all of them.
Children run with bytecode caches, as an installed tool does (after one untimed run each).

    .venv/bin/python benchmarks/one_file.py              # the default cases
    .venv/bin/python benchmarks/one_file.py --runs 9 --file path/to/module.py

Targets (issue 22 §2): a file with no finding <= 0.35 s CPU; a file with one finding <= 2x the
bare parse. Default cases: the standard library's `json/encoder.py` (no finding: no rule's gate
opens, so neither LibCST nor a rule is imported), the repository's example server (one RT001
finding, 25 lines), and the same server followed by `json/encoder.py`'s code (one finding, 470
lines; made in a temporary folder, never in the repository). The script reports; it does not
assert (its exit status is 0 unless a command failed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGET_NO_FINDING = 0.35  # CPU seconds
TARGET_OVER_PARSE = 2.0  # one finding: check / bare parse
PARSE = "import sys, libcst; libcst.parse_module(open(sys.argv[1], 'rb').read())"
#: What the child imported, printed by `--modules` (a count of work, not a time).
PROBE = (
    "import sys\n"
    "from mcp_migrate.commands.cli import main\n"
    "try:\n    main(sys.argv[2:])\nexcept SystemExit:\n    pass\n"
    "loaded = sorted(sys.modules)\n"
    "heavy = [m for m in ('libcst', 'libcst.matchers', 'libcst.codemod', 'rich', 'click') if m in sys.modules]\n"
    "rules = [m for m in loaded if m == 'mcp_migrate.rules' or m.startswith(('mcp_migrate.rules.', 'mcp_migrate.vocabulary'))]\n"
    "print(__import__('json').dumps({'modules': len(loaded), 'heavy': heavy, 'rule_modules': len(rules)}), file=open(sys.argv[1], 'w'))\n"
)


#: The children run as an installed tool does: with bytecode caches (PYTHONDONTWRITEBYTECODE in
#: the caller's environment would make every run compile mcp_migrate from source).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def cpu_seconds(cmd: list, cwd: Path) -> tuple:
    """(user + system CPU seconds of `cmd` in a fresh process, its exit status)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()}")
    return usage.ru_utime + usage.ru_stime, proc.returncode


def default_cases(tmp: Path) -> list:
    import json.encoder

    encoder = Path(json.encoder.__file__)
    server = REPO / "fixtures" / "example" / "server.py"
    longer = tmp / "server_470_lines.py"
    longer.write_text(server.read_text() + "\n\n" + encoder.read_text().split('"""', 2)[2])
    return [
        ("no finding (json/encoder.py)", encoder),
        ("one finding (example server)", server),
        ("one finding (470 lines)", longer),
    ]


def modules(python: str, path: Path, cwd: Path, *args: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe.json"
        subprocess.run(
            [python, "-c", PROBE, str(out), "check", "--no-cache", *args, str(path)],
            cwd=cwd,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return json.loads(out.read_text())


def measure(python: str, path: Path, runs: int, cwd: Path) -> dict:
    ours = [python, "-m", "mcp_migrate", "check", "--no-cache"]
    commands = {
        "full": [*ours, str(path)],
        "concise": [*ours, "--output-format", "concise", str(path)],
        "parse": [python, "-c", PARSE, str(path)],
        "python": [python, "-c", "pass"],
    }
    samples: dict = {name: [] for name in commands}
    status = None
    for cmd in commands.values():  # once untimed: bytecode caches written, files in the page cache
        cpu_seconds(cmd, cwd)
    for _ in range(runs):
        for name, cmd in commands.items():
            seconds, code = cpu_seconds(cmd, cwd)
            samples[name].append(seconds)
            if name == "full":
                status = code
    out = {name: statistics.median(values) for name, values in samples.items()}
    out["findings"] = status == 1
    out["imports_full"] = modules(python, path, cwd)
    out["imports_concise"] = modules(python, path, cwd, "--output-format", "concise")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="runs per command (median; default %(default)s)")
    ap.add_argument(
        "--file", type=Path, action="append", help="a file to measure (repeatable; default: the cases above)"
    )
    ap.add_argument("--python", default=sys.executable, help="the interpreter that has mcp_migrate (default: this one)")
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)  # no project config, no results cache
        cases = [(str(p), p.resolve()) for p in args.file] if args.file else default_cases(cwd)
        rows = []
        for label, path in cases:
            row = measure(args.python, path, args.runs, cwd)
            row["case"] = label
            rows.append(row)
    print(f"mcp-migrate check ONE_FILE --no-cache, cold; CPU seconds, median of {args.runs} runs")
    print(
        f"{'case':34} {'full':>6} {'concise':>8} {'parse':>6} {'python':>7}  {'full/parse':>10} {'concise/parse':>13}  target"
    )
    for row in rows:
        ratio, short = row["full"] / row["parse"], row["concise"] / row["parse"]
        if row["findings"]:
            target = f"<= {TARGET_OVER_PARSE:.1f}x parse: {'met' if ratio <= TARGET_OVER_PARSE else 'not met'}"
        else:
            target = f"<= {TARGET_NO_FINDING:.2f} s: {'met' if row['full'] <= TARGET_NO_FINDING else 'not met'}"
        print(
            f"{row['case']:34} {row['full']:6.2f} {row['concise']:8.2f} {row['parse']:6.2f} {row['python']:7.2f}"
            f"  {ratio:9.1f}x {short:12.1f}x  {target}"
        )
    print("\nwhat each run loaded (modules in all; the heavy ones; rule modules):")
    for row in rows:
        for mode in ("full", "concise"):
            seen = row[f"imports_{mode}"]
            print(
                f"  {row['case']:34} {mode:8} {seen['modules']:4} modules  {', '.join(seen['heavy']) or '-':40} {seen['rule_modules']} rule modules"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
