"""floor2, the floor issue 37's cold targets are ratios of, said once for the scripts that
measure against it (`speed.py` by CPU, `budget.py` by instructions): a fresh interpreter that
imports LibCST, reads every file the tool discovers and parses with LibCST the files that have
findings."""

#: The floor2 script (argv[1]: a JSON file with "files" and "with_findings").
FLOOR2 = r"""
import json, sys
import libcst
probe = json.load(open(sys.argv[1]))
for path in probe["files"]:
    with open(path, "rb") as f:
        f.read()
for path in probe["with_findings"]:
    try:
        libcst.parse_module(open(path, "rb").read())
    except Exception:
        pass
"""
