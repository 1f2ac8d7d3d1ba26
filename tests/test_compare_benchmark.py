"""benchmarks/compare.py: the findings only one of two tools gives, per repository."""

import importlib.util
import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load():
    spec = importlib.util.spec_from_file_location("compare_under_test", BENCHMARKS / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_tool(tmp_path, name, findings):
    """A 'tool' that prints a fixed JSON report whatever it is asked."""
    script = tmp_path / f"{name}.py"
    script.write_text(f"import json\nprint(json.dumps({{'findings': {findings!r}}}))\n")
    return f"{sys.executable} {script}"


def test_lists_what_only_one_side_reports(tmp_path, capsys):
    (tmp_path / "repos" / "o+n").mkdir(parents=True)
    kept = {"code": "RT001", "path": "a.py", "line": 3, "column": 4, "message": "asks"}
    gone = {"code": "RT103", "path": "b.py", "line": 9, "column": 0, "message": "old"}
    new = dict(kept, related=[{"path": "c.py", "line": 7, "column": 1, "message": "called from here"}])
    before = fake_tool(tmp_path, "before", [kept, gone])
    after = fake_tool(tmp_path, "after", [new])
    compare = load()
    assert compare.main(["--repos", str(tmp_path / "repos"), "--before", before, "--after", after, "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["o+n"]
    assert diff["removed"] == [["RT103", "b.py", 9, 0, "old"]]
    assert diff["added"] == []
    assert diff["callers_added"] == [["RT001", "c.py", 7]]


def test_a_failing_tool_is_an_error(tmp_path, capsys):
    (tmp_path / "repos" / "o+n").mkdir(parents=True)
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.exit(2)\n")
    compare = load()
    code = compare.main(
        [
            "--repos",
            str(tmp_path / "repos"),
            "--before",
            f"{sys.executable} {broken}",
            "--after",
            f"{sys.executable} {broken}",
        ]
    )
    assert code == 1
    assert "exit 2" in capsys.readouterr().err


def test_a_relative_program_is_taken_from_the_callers_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    compare = load()
    assert compare._command("bin/tool --flag") == [str(tmp_path / "bin" / "tool"), "--flag"]
    assert compare._command("python -m tool") == ["python", "-m", "tool"]


def test_a_finding_both_give_whose_fix_moved_is_changed(tmp_path, capsys):
    """What a change to the run's coordination moves without moving a finding: its fix kind
    and help, under the options the checks are given (`--args`)."""
    (tmp_path / "repos" / "o+n").mkdir(parents=True)
    finding = {"code": "RT002", "path": "a.py", "line": 3, "column": 4, "message": "supplies", "fix": "none"}
    before = fake_tool(tmp_path, "before", [finding])
    script = tmp_path / "after.py"
    script.write_text(
        "import json, sys\n"
        f"finding = {finding!r}\n"
        "if '--unsafe-fixes' in sys.argv:\n"
        "    finding = dict(finding, fix='unsafe', help='now')\n"
        "print(json.dumps({'findings': [finding]}))\n"
    )
    after = f"{sys.executable} {script}"
    compare = load()
    repos = ["--repos", str(tmp_path / "repos"), "--before", before, "--after", after]
    assert compare.main([*repos, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["o+n"]["changed"] == []
    assert compare.main([*repos, "--args=--unsafe-fixes"]) == 0
    out = capsys.readouterr().out
    assert "  ~ RT002 a.py:3:4 supplies (fix, help differ)\n" in out
    assert out.endswith("1 repositories: 0 findings added, 0 removed, 1 changed\n")
