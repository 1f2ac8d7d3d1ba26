"""benchmarks/run.py's lossless checks: the code they measure is the code PYTHONPATH names."""

from pathlib import Path

from benchmark_modules import load_benchmark

REPO = Path(__file__).resolve().parent.parent
#: A check script's last line: where the child imported mcp_migrate from.
WHERE = "import json, mcp_migrate; print(json.dumps({'file': mcp_migrate.__file__}))"


def load():
    return load_benchmark("run.py", "run_under_test")  # its `from one_file import ENV`


def test_a_check_script_measures_the_snapshot_pythonpath_names(tmp_path, monkeypatch):
    """A `python -c` child imports from its working folder first: run from the checkout, it
    measured the checkout whatever PYTHONPATH said (session 69)."""
    snapshot = tmp_path / "snapshot" / "mcp_migrate"
    snapshot.mkdir(parents=True)
    (snapshot / "__init__.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(snapshot.parent))
    assert load()._script_answer(WHERE) == {"file": str(snapshot / "__init__.py")}


def test_without_pythonpath_a_check_script_measures_this_checkout(monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert load()._script_answer(WHERE) == {"file": str(REPO / "mcp_migrate" / "__init__.py")}
