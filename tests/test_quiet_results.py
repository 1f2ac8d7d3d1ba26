"""A check run keeps only the results with something to say, and makes each file's FileRef when
asked (issue 37: a warm run over 16 copies of a tree held a result and a FileRef per file)."""

from __future__ import annotations

import os

import pytest

from mcp_migrate.core.coordination import FileNotes, MigratedTool
from mcp_migrate.core.findings import FileError, FileResult, Finding, HelperSite
from mcp_migrate.run import runner
from mcp_migrate.run.records import CheckOptions, FileRef, FileRefs


def _finding(path: str) -> Finding:
    return Finding(path, 3, 5, 3, 9, "RT001", "roots-request", "asks for roots", "deprecated", "none", "")


# Results that say nothing ----------------------------------------------------------------------


def test_a_result_says_nothing_only_when_every_field_a_run_reads_is_empty():
    assert FileResult("a.py").says_nothing()
    how_far = FileResult("a.py", previewed=True, depends=(("h.py", 1, 2),), plan_asked=(("warned", (), ()),))
    assert how_far.says_nothing(), "how far a result holds is the cache's, not the run's"
    notes = FileNotes()
    notes.tools.append(MigratedTool("read", "roots", True, False))
    for something in (
        {"findings": [_finding("a.py")]},
        {"errors": [FileError("a.py", "internal", "boom")]},
        {"fixed_source": b""},
        {"applied": [("RT001", 1, "fixed")]},
        {"suppressed": [("finding", "noqa", "")]},
        {"fix_previews": {("RT001", False): b"x"}},
        {"finding_fixes": {("RT001", 1, 1, False): []}},
        {"helpers": (HelperSite("RT001", None, "f", 1, 1),)},
        {"notes": notes},
    ):
        assert not FileResult("a.py", **something).says_nothing(), something


@pytest.mark.parametrize("cache", [True, False])
def test_a_check_keeps_the_results_with_something_to_say_and_every_file(tmp_path, monkeypatch, cache):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "server.py").write_text(
        "from mcp.server.fastmcp import Context\n\n\nasync def tool(ctx: Context):\n"
        "    return await ctx.session.list_roots()\n",
        encoding="utf-8",
    )
    (tmp_path / "src" / "quiet.py").write_text("import mcp\n\nVALUE = 1\n", encoding="utf-8")
    for _ in range(2):  # cold, then warm from the cache
        run = runner.run_check(["src"], CheckOptions(cache=cache, jobs=1))
        assert [r.path for r in run.results] == ["src/server.py"]
        assert run.files_checked == 2
        assert sorted(run.files) == ["src/quiet.py", "src/server.py"]
        assert run.files["src/quiet.py"].path == os.path.abspath("src/quiet.py")


def test_file_refs_are_made_when_asked_and_a_put_one_stands():
    class Source:
        def __init__(self, path, display):
            self.path, self.display = path, display

    settings, other = object(), object()
    refs = FileRefs([(Source("/p/a.py", "a.py"), settings), (Source("/p/b.py", "b.py"), settings)], {"b.py": "policy"})
    assert list(refs) == ["a.py", "b.py"] and len(refs) == 2 and "a.py" in refs and "c.py" not in refs
    assert refs["a.py"] == FileRef("/p/a.py", settings, None, None)
    assert refs.get("b.py") == FileRef("/p/b.py", settings, None, "policy")
    assert refs.get("c.py") is None
    refs["a.py"] = refs["a.py"]._replace(settings=other)
    assert refs["a.py"].settings is other
    refs["c.py"] = FileRef("/p/c.py", other)
    assert list(refs) == ["a.py", "b.py", "c.py"] and refs["c.py"].path == "/p/c.py"
    assert dict(refs.items())["b.py"].policy == "policy"
