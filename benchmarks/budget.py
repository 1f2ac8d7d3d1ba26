#!/usr/bin/env python3
"""Where issue 37's cold budget (a check within 2.0x floor2) goes on a tree, in instructions.

    python benchmarks/budget.py --trees DIR [DIR ...] [--json FILE]

Each figure is the instruction count of a fresh interpreter (`valgrind --tool=callgrind`, one
run each, `PYTHONHASHSEED=0`: the counts do not move with the machine's load, as CPU time does
by 10 % and more), for the tool as the interpreter finds it (set PYTHONPATH to measure a
snapshot), run from a scratch folder:

- *floor2*: an interpreter that imports LibCST, reads every file the tool discovers and parses
  with LibCST the files that have findings (as `speed.py` defines it);
- *check*: `check --no-cache -q -j 1 TREE`;
- *findings alone*: the same check given only the files with findings (the same findings: the
  tool screens, checks and previews the fixes of exactly those files, and reads the project's
  helper modules its rules follow). What the tree's other files may cost, within 2.0x floor2,
  is what is left: 2.0 x floor2 - findings alone - reading the other files (in floor2 already);
  and of it, *the previews*: what the fix previews and the full output cost those files (the
  same check in `--output-format concise`, which shows no fix, less);
- what the rest of the check cannot do without, each measured alone as a difference of two runs
  (the same script with and without the step): *discovery* (the plan: listing folders, the
  `.gitignore` files and config files), *the gate* (every file searched for the rules' joined
  gate tokens) and the *token floor* (the files the gate opens searched for the rules' byte
  tokens, stopping at the first found: the least any byte screen does);
- and, for what the rules' work on the files with findings is set against, *one walk* of their
  parsed trees with nothing to call: the engine's own walk (core.walk, the rules' one
  traversal) and LibCST's visitor (`module.visit(CSTVisitor())`, what a rule engine on LibCST's
  visitor machinery pays before any rule runs).

Where discovery and the token floor together are more than what is left, the target cannot
hold on that tree unless the work on the files with findings costs less. The script reports; it
does not assert. Standard library and valgrind only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from floors import FLOOR2

PY = sys.executable
SCRATCH = Path(tempfile.mkdtemp(prefix="budget-"))
#: The children run as an installed tool does, with bytecode caches.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONHASHSEED"] = "0"

#: Files discovered and files with findings, from the tool itself.
PROBE = r"""
import json, os, subprocess, sys
from mcp_migrate.run.plan import plan
from mcp_migrate.run.records import CheckOptions
tree = sys.argv[1]
files = [os.path.abspath(s.path) for s, _ in plan([tree], CheckOptions(jobs=1)).items]
out = subprocess.run([sys.executable, "-m", "mcp_migrate", "check", "--no-cache", "-j", "1",
                      "--output-format", "json", tree], capture_output=True, text=True).stdout
found = sorted({os.path.abspath(f["path"]) for f in json.loads(out)["findings"]})
json.dump({"files": files, "with_findings": found}, open(sys.argv[2], "w"))
"""

#: Reading every file (argv[2] "1") or only starting (argv[2] "0").
READ = r"""
import json, sys
if sys.argv[2] == "1":
    for path in json.load(open(sys.argv[1]))["files"]:
        with open(path, "rb") as f:
            f.read()
"""

#: The plan (argv[2] "1") or only the imports it needs ("0").
DISCOVERY = r"""
import sys
from mcp_migrate.run.plan import plan
from mcp_migrate.run.records import CheckOptions
if sys.argv[2] == "1":
    plan([sys.argv[3]], CheckOptions(jobs=1))
"""

#: Every file read; with argv[2] "gate", each searched for the joined gate; with "tokens", the
#: files the gate opens searched for the screens' tokens (first found stops); "0": read only.
SEARCHES = r"""
import json, sys
from mcp_migrate.api import default_settings, screen_classes
from mcp_migrate.core import screening
from mcp_migrate.core.gates import fewest
settings = default_settings()
classes = screen_classes(settings.select, settings.extend_apis)
tokens = fewest({t for c in classes for t in (getattr(c, "SCREEN", ()) or ())})
datas = [open(p, "rb").read() for p in json.load(open(sys.argv[1]))["files"]]
opened = [d for d in datas if screening.gate_open(d, settings, classes)] if sys.argv[2] != "0" else []
if sys.argv[2] == "tokens":
    for d in opened:
        for token in tokens:
            if token in d:
                break
"""


#: The files with findings parsed; with argv[2] "1", each tree walked once with nothing to call,
#: by the engine's walk (argv[3] "ours") or by LibCST's visitor ("libcst").
WALK = r"""
import json, sys
import libcst
from mcp_migrate.core.walk import walk
modules = []
for path in json.load(open(sys.argv[1]))["with_findings"]:
    try:
        modules.append(libcst.parse_module(open(path, "rb").read()))
    except Exception:
        pass
if sys.argv[2] == "1":
    for module in modules:
        if sys.argv[3] == "ours":
            walk(module, id, id)
        else:
            module.visit(libcst.CSTVisitor())
"""


def instructions(args: list) -> int:
    """The instructions one run of `args` executes (callgrind's total)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
        cwd=SCRATCH,
        env=ENV,
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"budget.py: callgrind gave no count for {args[:4]}: {done.stderr[-300:]}")
    return int(found.group(1))


def script(name: str, text: str) -> str:
    path = SCRATCH / name
    path.write_text(text)
    return str(path)


def difference(code: str, *args: str) -> int:
    """The instructions of a step: the script with it, less the script without it."""
    return instructions([PY, code, args[0], "1", *args[1:]]) - instructions([PY, code, args[0], "0", *args[1:]])


def budget(tree: str) -> dict:
    tree = os.path.abspath(tree)
    probe = SCRATCH / "probe.json"
    subprocess.run([PY, script("probe.py", PROBE), tree, str(probe)], cwd=SCRATCH, env=ENV, check=True)
    files = json.loads(probe.read_text())
    floor2 = instructions([PY, script("floor2.py", FLOOR2), str(probe)])
    check = instructions([PY, "-m", "mcp_migrate", "check", "--no-cache", "-q", "-j", "1", tree])
    alone_check = [PY, "-m", "mcp_migrate", "check", "--no-cache", "-q", "-j", "1", *files["with_findings"]]
    alone = instructions(alone_check)
    previews = alone - instructions([*alone_check, "--output-format", "concise"])
    reading = difference(script("read.py", READ), str(probe))
    searches = script("searches.py", SEARCHES)
    searched = {step: instructions([PY, searches, str(probe), step]) for step in ("0", "gate", "tokens")}
    gate = searched["gate"] - searched["0"]
    tokens = searched["tokens"] - searched["gate"]
    discovery = difference(script("discovery.py", DISCOVERY), "", tree)
    walked = script("walk.py", WALK)
    walk, visitor = (difference(walked, str(probe), how) for how in ("ours", "libcst"))
    left = 2 * floor2 - alone - reading
    return {
        "tree": tree,
        "files": len(files["files"]),
        "with_findings": len(files["with_findings"]),
        "floor2": floor2,
        "check": check,
        "findings_alone": alone,
        "previews": previews,
        "reading": reading,
        "left_for_the_rest": left,
        "discovery": discovery,
        "gate": gate,
        "token_floor": tokens,
        "walk": walk,
        "visitor": visitor,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs="+", required=True)
    parser.add_argument("--json", help="also write the figures as JSON")
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("budget.py: needs valgrind (callgrind counts the instructions)")
    rows = []
    try:
        for tree in options.trees:
            row = budget(tree)
            rows.append(row)
            f2 = row["floor2"]

            def x(name: str, row=row, f2=f2) -> str:
                return f"{row[name] / 1e6:,.1f} M ({row[name] / f2:.3f}x)"

            print(
                f"{Path(tree).name}: {row['files']} files, {row['with_findings']} with findings; floor2 {f2 / 1e6:,.1f} M"
            )
            print(f"  check {x('check')}; the files with findings alone {x('findings_alone')}")
            print(f"  of which the fix previews and the full output {x('previews')}")
            print(f"  left for the other files within 2.0x: {x('left_for_the_rest')}")
            print(f"  discovery {x('discovery')}, the gate {x('gate')}, the token floor {x('token_floor')}")
            print(f"  one walk of the files with findings: the engine's {x('walk')}, LibCST's visitor {x('visitor')}")
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    if options.json:
        Path(options.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
