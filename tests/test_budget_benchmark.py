"""benchmarks/budget.py: where a tree's cold budget goes, from the instruction counts of its
runs (valgrind stands aside here: each run's count is given)."""

import json

from benchmark_modules import load_benchmark

#: The count of each run the script makes, by what tells it apart.
COUNTS = {
    "floor2": 1000,
    "tree": 2900,
    "alone": 1800,
    "alone, concise": 1650,
    ("read", "1"): 130,
    ("read", "0"): 100,
    ("discovery", "1"): 160,
    ("discovery", "0"): 100,
    ("searches", "gate"): 170,
    ("searches", "tokens"): 210,
    ("searches", "0"): 100,
    ("walk", "1", "ours"): 125,
    ("walk", "0", "ours"): 100,
    ("walk", "1", "libcst"): 190,
    ("walk", "0", "libcst"): 100,
}


def fake_instructions(args: list) -> int:
    if args[1:3] == ["-m", "mcp_migrate"]:
        if args[-1] == "concise":
            return COUNTS["alone, concise"]
        return COUNTS["tree" if args[-1] == "/t" else "alone"]
    name = args[1].rpartition("/")[2].removesuffix(".py")
    if name == "walk":
        return COUNTS[(name, args[3], args[4])]
    return COUNTS["floor2"] if name == "floor2" else COUNTS[(name, args[3])]


def test_the_budget_is_what_the_files_with_findings_leave(monkeypatch, tmp_path):
    budget = load_benchmark("budget.py", "budget_under_test")
    monkeypatch.setattr(budget, "SCRATCH", tmp_path)
    monkeypatch.setattr(budget, "instructions", fake_instructions)

    def probe(args, **kwargs):
        (tmp_path / "probe.json").write_text(
            json.dumps({"files": ["/t/a.py", "/t/b.py"], "with_findings": ["/t/a.py"]})
        )

    monkeypatch.setattr(budget.subprocess, "run", probe)
    monkeypatch.setattr(budget.os.path, "abspath", lambda path: path)
    row = budget.budget("/t")
    assert row == {
        "tree": "/t",
        "files": 2,
        "with_findings": 1,
        "floor2": 1000,
        "check": 2900,
        "findings_alone": 1800,
        "previews": 150,
        "reading": 30,
        "left_for_the_rest": 2 * 1000 - 1800 - 30,
        "discovery": 60,
        "gate": 70,
        "token_floor": 40,
        "walk": 25,
        "visitor": 90,
    }
