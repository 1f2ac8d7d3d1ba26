"""The text report prints plain lines in one rich call when nothing is coloured (a pipe, a
file): the bytes must be those of the one-call-per-line styled path with colour off, for every
shape of text rich normalises (tabs, control characters, markup-like and wide text, trailing
blanks past the console width), in the concise and the full format."""

from __future__ import annotations

import io

import pytest

from mcp_migrate.core.findings import FileResult, Finding
from mcp_migrate.output import report
from mcp_migrate.run.records import FileRef, FixProposal, RunResult

SOURCE_LINES = [
    "import mcp",
    "\tx = 'tab\tinside'  # tabs",
    "y = 1\r",
    "z = '\x07bell\x0bvt\x0cff\x08bs'",
    "w = '[red]not red[/] :smile: \\\\'",
    "v = '宽字符\t宽'",
    "u = 1" + " " * 100,
    "t = 'ok'",
]
MESSAGES = ["plain", "tab\there", "[bold]markup[/] and \\[escaped]", "cr\rhere", "wide 宽\t", "trail   "]


def _run(tmp_path) -> RunResult:
    data = ("\n".join(SOURCE_LINES) + "\n").encode()
    path = tmp_path / "m.py"
    path.write_bytes(data)
    result = FileResult("m.py")
    for index, message in enumerate(MESSAGES):
        line = index % len(SOURCE_LINES) + 1
        fix = "unsafe" if index % 2 else "safe"
        result.findings.append(
            Finding("m.py", line, 1, line, 4, f"RT00{index % 6 + 1}", "name", message, "breaks", fix)
        )
    run = RunResult(results=[result], files_checked=1, files={"m.py": FileRef(str(path), None)})
    new = data.replace(b"t = 'ok'", b"t = 'fixed\tok'").replace(b"import mcp\n", b"")
    for finding in result.findings:
        run.fixes[("m.py", finding.code, finding.fix == "unsafe")] = FixProposal(data, new)
    return run


@pytest.mark.parametrize("full", [False, True], ids=["concise", "full"])
def test_plain_batch_equals_the_line_by_line_output(tmp_path, monkeypatch, full):
    run = _run(tmp_path)
    batch = io.StringIO()
    report.print_text(run, color=False, file=batch, full=full)
    monkeypatch.setattr(report, "_styled", lambda console: True)
    by_line = io.StringIO()
    report.print_text(run, color=False, file=by_line, full=full)
    assert batch.getvalue() == by_line.getvalue()
    assert "markup[/]" in batch.getvalue() and "\x07" not in batch.getvalue()


def test_the_full_format_holds_one_files_lines_at_a_time(tmp_path, monkeypatch):
    """Findings print sorted by path: a file's lines are read once, when its first finding
    prints, and dropped when the next file's come (issue 37: a run over 16 copies of a tree held
    every file's lines to the end)."""
    from mcp_migrate.output.full import finding_context

    results, files = [], {}
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(f"first = '{name}'\nsecond = 2\n", encoding="utf-8")
        found = [Finding(name, line, 1, line, 5, "RT001", "n", "m", "breaks", "none") for line in (1, 2)]
        results.append(FileResult(name, findings=found))
        files[name] = FileRef(str(tmp_path / name), None)
    run = RunResult(results=results, files_checked=2, files=files)
    reads = []
    real = FileRef.read
    monkeypatch.setattr(FileRef, "read", lambda ref: reads.append(ref.path) or real(ref))
    lines_of: dict = {}
    held = []
    shown = []
    for finding in run.findings:
        shown.append(finding_context(run, finding, lines_of)[1][0])
        held.append(sorted(key for key in lines_of if type(key) is str))
    assert reads == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    assert held == [["a.py"], ["a.py"], ["b.py"], ["b.py"]]
    assert shown == ["1 | first = 'a.py'", "2 | second = 2", "1 | first = 'b.py'", "2 | second = 2"]
