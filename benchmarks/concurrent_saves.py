"""Stress: an editor saves (or deletes) a file while `mcp-migrate fix` is replacing it.

Each try starts `fix a.py` and, beside it, an "editor" process that waits for fix's temporary
file (`.a.py.XXXXXXXX.mcp-migrate`) to appear, the sign that fix has read the file and is
writing its replacement, and then for that file's mode to change from mkstemp's 0600 (fix sets
the original's mode once the bytes are on disk, just before its last look and the rename),
then saves the file: by renaming a new file over it (as most editors do), in place (truncate
and write), or deletes it. The save comes after fix read the
file, so it must survive: the file must end as the editor left it, never as fix's fixed
version of what it read, and a deleted file must stay deleted. The script counts the tries
where it did not (a lost save, a recreated file). It reports; it does not assert.

    .venv/bin/python benchmarks/concurrent_saves.py --tries 40 --how rename
    .venv/bin/python benchmarks/concurrent_saves.py --tries 40 --how delete --python OTHER/python

`--python` picks the interpreter whose `mcp_migrate` runs (another checkout's venv measures
the code before a change). `--spin N`: after it sees the temporary file the editor waits a
random number of busy loops up to N, so its save lands anywhere in fix's write (0: at once).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = """\
import mcp.types as types
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
    await session.send_notification(types.ClientNotification(types.RootsListChangedNotification()))
"""
EDITED = SOURCE + "# saved by the editor while fix was writing\n"

#: The editor: wait for fix's temporary file, spin, then save or delete `a.py`; print what it did.
EDITOR = r"""
import os, sys, time
folder, how, spin, edited = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
path = os.path.join(folder, "a.py")
staged = os.path.join(folder, "editor.tmp")
if how == "rename":  # written before: the save itself is one rename
    with open(staged, "w") as fh:
        fh.write(edited)
data = edited.encode()
deadline = time.monotonic() + 60
temps = []
while not temps:
    temps = [name for name in os.listdir(folder) if name.endswith(".mcp-migrate")]
    if time.monotonic() > deadline:
        print("no temporary file"); sys.exit(0)
temp = os.path.join(folder, temps[0])
try:  # mkstemp makes it 0600; fix gives it the file's mode once its bytes are on disk
    while os.stat(temp).st_mode & 0o777 == 0o600:
        pass
except FileNotFoundError:
    pass
for _ in range(spin):
    pass
if how == "rename":
    os.replace(staged, path)
elif how == "inplace":
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    os.write(fd, data)
    os.close(fd)
else:
    os.unlink(path)
print("done")
"""


def one_try(python: str, how: str, spin: int) -> str:
    """'kept' (fix refused, or wrote before the save), 'lost' (the file ends as fix's version),
    'recreated', or 'no race' (the editor never saw fix's temporary file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "a.py")
        path.write_text(SOURCE)
        editor = subprocess.Popen(
            [python, "-c", EDITOR, folder, how, str(spin), EDITED], stdout=subprocess.PIPE, text=True
        )
        time.sleep(0.05)  # the editor is spinning before fix starts
        fix = subprocess.run(
            [python, "-m", "mcp_migrate", "fix", "--output-format", "concise", "a.py"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        )
        try:
            said = editor.communicate(timeout=5)[0].strip()
        except subprocess.TimeoutExpired:  # it never saw the temporary file: fix never wrote
            editor.kill()
            said = editor.communicate()[0].strip()
        if said != "done":
            return "no race"
        when = " (fix refused)" if fix.returncode == 2 else " (fix wrote first)"
        if how == "delete":
            return "recreated" if path.exists() else "kept" + when
        text = path.read_text() if path.exists() else None
        if text == EDITED:
            return "kept" + when
        if fix.returncode not in (0, 1, 2):
            return f"fix exit {fix.returncode}"
        return "lost"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=40)
    parser.add_argument("--how", choices=("rename", "inplace", "delete"), default="rename")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--spin", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    random.seed(args.seed)
    counts: dict = {}
    for index in range(args.tries):
        outcome = one_try(args.python, args.how, random.randint(0, args.spin))
        counts[outcome] = counts.get(outcome, 0) + 1
        print(f"try {index + 1}: {outcome}", flush=True)
    summary = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    print(f"{args.how} (spin up to {args.spin}), {args.tries} tries: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
