"""benchmarks/applied_bound.py: the most a corpus's Roots findings could get as applied edits."""

import json
import sys

from benchmark_modules import load_benchmark

from mcp_migrate.run.roots_plan import WITHHELD


def load():
    return load_benchmark("applied_bound.py", "applied_bound_under_test")  # its `from corpus import ...`


def finding(path, fix="none", help_text="", code="RT002"):
    return {"code": code, "path": path, "line": 1, "column": 1, "fix": fix, "help": help_text}


def test_tests_count_only_where_their_code_could_all_be_migrated(tmp_path, capsys):
    held = WITHHELD.format(where="server.py") + "; delete this"
    reports = {
        # Its code is rewritten: its test could move with it.
        "a+free": [finding("server.py", "unsafe", code="RT001"), finding("tests/test_server.py")],
        # A client held while its server still asks: neither it nor the tests count.
        "b+held": [finding("client.py", "display", held), finding("tests/test_client.py"), finding("x.py")],
        # Code left without an edit keeps its tests out too.
        "c+kept": [finding("lib.py"), finding("tests/test_lib.py", "display"), finding("lib.py", code="RT101")],
    }
    tool = tmp_path / "tool.py"
    tool.write_text(
        "import json, sys\n"
        f"REPORTS = {json.dumps(reports)!r}\n"
        "name = sys.argv[-1].rsplit('/', 1)[-1]\n"
        "print(json.dumps({'findings': json.loads(REPORTS)[name]}))\n"
    )
    for name in reports:
        (tmp_path / "repos" / name).mkdir(parents=True)
    module = load()
    assert module.main(["--repos", str(tmp_path / "repos"), "--tool", f"{sys.executable} {tool}", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["whole"]
    # RT101 is not a Roots migration finding; 7 remain: 3 tests, 1 held, 3 code.
    assert figures == {"findings": 7, "test": 3, "held": 1, "code": 3, "applied": 1, "bound": 4}
