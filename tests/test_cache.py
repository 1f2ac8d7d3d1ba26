"""The results cache: warm runs report exactly what cold runs report, before and after edits,
never across settings or tool versions, and a cached run never parses an unchanged file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core import engine, screening
from mcp_migrate.project import cache as cache_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TREES = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and any(p.glob("*.py")))


def check_json(*args, env=None) -> dict:
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--jobs", "1", *args], env=env)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def findings(report: dict) -> list:
    return sorted(json.dumps(f, sort_keys=True) for f in report["findings"])


@pytest.fixture
def tree(tmp_path):
    """A copy of every fixture tree, so edits never touch the repository."""
    root = tmp_path / "tree"
    for source in TREES:
        shutil.copytree(source, root / source.name)
    return root


def test_cold_and_warm_runs_agree_on_every_fixture_tree(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cold = check_json("--no-cache", str(tree))
    first = check_json(str(tree))
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    warm = check_json(str(tree))
    assert findings(cold) == findings(first) == findings(warm)
    assert cold["files_checked"] == warm["files_checked"]
    assert parses == [], "an unchanged file is served from the cache"


def test_an_edited_file_is_checked_again(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    check_json(str(tree))
    target = sorted((tree / "RT001").glob("*.py"))[0]
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    renamed = tree / "RT004" / "neg_renamed_copy.py"
    renamed.write_bytes((tree / "RT004" / sorted(p.name for p in (tree / "RT004").glob("*.py"))[0]).read_bytes())
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(a[1]) or real(*a, **k))
    warm = check_json(str(tree))
    # A client whose fix depends on a migrated tool is checked a second time, under the plan of
    # `fix --unsafe-fixes` (its previews are that command's fix): the set of files is what counts.
    assert sorted({Path(p).name for p in parses}) == sorted([target.name, renamed.name])
    monkeypatch.setattr(engine, "analyze", real)
    assert findings(warm) == findings(check_json("--no-cache", str(tree)))


def test_settings_are_part_of_the_key(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    everything = check_json(str(tree))
    only_rt004 = check_json("--select", "RT004", str(tree))
    assert {f["code"] for f in only_rt004["findings"]} <= {"RT004", "E999", "E902"}
    assert findings(check_json(str(tree))) == findings(everything)


def test_another_tool_version_never_reads_the_cache(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    check_json(str(tree))
    cache_module.tool_fingerprint.cache_clear()
    monkeypatch.setattr("mcp_migrate.__version__", "999.0")
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(1) or real(*a, **k))
    check_json(str(tree))
    cache_module.tool_fingerprint.cache_clear()
    assert parses, "a new version starts cold"


@pytest.mark.parametrize("stamp", ["package_stamp", "python_stamp"])
def test_another_libcst_or_python_never_reads_the_cache(tree, tmp_path, monkeypatch, stamp):
    """LibCST parses every file and Python's `ast` screens it: another version of either (a
    shared project cache between two virtual environments) starts cold too."""
    monkeypatch.chdir(tmp_path)
    check_json(str(tree))
    cache_module.tool_fingerprint.cache_clear()
    real = getattr(cache_module, stamp)
    monkeypatch.setattr(cache_module, stamp, lambda *a: real(*a) + "-other")
    parses = []
    real_analyze = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(1) or real_analyze(*a, **k))
    check_json(str(tree))
    cache_module.tool_fingerprint.cache_clear()
    assert parses, "another LibCST or Python starts cold"


def test_a_package_stamp_follows_its_version_file_without_importing_it(tmp_path, monkeypatch):
    import sys

    package = tmp_path / "fake_cst_33"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('imported')\n")
    (package / "_version.py").write_text("__version__ = '1.9.0'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = cache_module.package_stamp("fake_cst_33")
    (package / "_version.py").write_text("__version__ = '1.9.1'\n")  # the same size
    os.utime(package / "_version.py", ns=(0, 0))
    second = cache_module.package_stamp("fake_cst_33")
    assert len({first, second, cache_module.package_stamp("libcst")}) == 3
    assert "fake_cst_33" not in sys.modules
    assert cache_module.package_stamp("no_such_package_33") == "missing"


def test_no_cache_neither_reads_nor_writes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    where = tmp_path / "cache"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(where))
    (tmp_path / "a.py").write_text(
        "from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n    await ctx.session.list_roots()\n"
    )
    check_json("--no-cache", "a.py")
    assert not where.exists()
    check_json("a.py")
    assert (where / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list(where.glob("*/*.json"))


def test_default_location_is_the_project_root_and_config_can_move_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MCP_MIGRATE_CACHE_DIR")
    (tmp_path / "a.py").write_text("import mcp\n")
    check_json("a.py")
    assert (tmp_path / ".mcp_migrate_cache" / ".gitignore").is_file()
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "build/lint-cache"\n')
    check_json("a.py")
    assert (tmp_path / "build" / "lint-cache" / ".gitignore").is_file()


def test_a_corrupt_table_is_a_cold_start_not_an_error(tree, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    where = tmp_path / "cache"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(where))
    cold = check_json(str(tree))
    for table in where.glob("*/*.json"):
        table.write_bytes(b"not a table")
    assert findings(check_json(str(tree))) == findings(cold)


def test_results_with_internal_errors_are_not_stored(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import mcp\nx = 'roots/list'\n")
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: 1 / 0)
    broken = CliRunner().invoke(cli, ["check", "a.py"])
    assert broken.exit_code == 2
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path / "c2"))
    assert CliRunner().invoke(cli, ["check", "a.py"]).exit_code in (0, 1)


# The stat fast path -----------------------------------------------------------------------------
MCP_SOURCE = (
    "from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n    await ctx.session.list_roots()\n"
)
#: The same length, no Roots call: an edit that keeps the size.
EDITED_SOURCE = MCP_SOURCE.replace("list_roots()", "list_files()")


def _clock_ahead(monkeypatch, seconds: int) -> None:
    """Make every file look `seconds` old to the cache (its trust margin is about age)."""
    real = cache_module.time.time_ns
    monkeypatch.setattr(cache_module.time, "time_ns", lambda: real() + seconds * 1_000_000_000)


def _digests(monkeypatch) -> list:
    calls = []
    real = cache_module.content_digest
    monkeypatch.setattr(cache_module, "content_digest", lambda data: calls.append(1) or real(data))
    return calls


def test_an_old_unchanged_file_is_served_without_reading_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(MCP_SOURCE)
    _clock_ahead(monkeypatch, 10)
    cold = check_json("a.py")
    digests = _digests(monkeypatch)
    assert findings(check_json("a.py")) == findings(cold) != []
    assert digests == [], "an unchanged stat answers without reading and hashing"


def test_a_same_size_edit_that_restores_the_mtime_is_seen(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "a.py"
    target.write_text(MCP_SOURCE)
    _clock_ahead(monkeypatch, 10)
    assert findings(check_json("a.py"))
    before = target.stat()
    target.write_text(EDITED_SOURCE)  # what `cp -p` or an editor that keeps times does
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns
    assert findings(check_json("a.py")) == findings(check_json("--no-cache", "a.py")) == []


def test_a_recent_file_is_checked_by_content_not_by_stat(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(MCP_SOURCE)
    cold = check_json("a.py")
    digests = _digests(monkeypatch)
    parses = []
    real = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *a, **k: parses.append(1) or real(*a, **k))
    assert findings(check_json("a.py")) == findings(cold)
    assert digests and not parses, "too recent to trust its stat: hashed, still served from the cache"


def test_a_caller_is_checked_again_when_the_helper_it_imports_changes(tmp_path, monkeypatch):
    """One import away (issue 19 §2): the caller's bytes are unchanged, but its finding came from
    the helper module's; a cached result records that module and holds only while it is the same."""
    monkeypatch.chdir(tmp_path)
    project = tmp_path / "proj"
    project.mkdir()
    helper = project / "dirs_helper.py"
    helper.write_text(
        "from mcp.server.fastmcp import Context\n\n\nasync def get_dirs(ctx: Context) -> list:\n"
        "    return list(await ctx.list_roots())\n",
        encoding="utf-8",
    )
    caller = project / "tool.py"
    caller.write_text(
        "from mcp.server.fastmcp import Context\n\nfrom dirs_helper import get_dirs\n\n\n"
        "async def where(ctx: Context) -> list:\n    return await get_dirs(ctx)\n",
        encoding="utf-8",
    )
    old = os.stat(caller)
    os.utime(caller, ns=(old.st_atime_ns - 10**10, old.st_mtime_ns - 10**10))  # an old, trusted stat
    os.utime(helper, ns=(old.st_atime_ns - 10**10, old.st_mtime_ns - 10**10))

    def caller_sites() -> list:
        """Where tool.py's call is reported: a related location of the helper's finding (core.callers)."""
        found = check_json(str(project))["findings"]
        sites = [(f["code"], f["path"]) for f in found if f["path"].endswith("tool.py")]
        sites += [(f["code"], r["path"], r["line"], r["column"]) for f in found for r in f.get("related", ())]
        return sites

    assert caller_sites() == [("RT001", "proj/tool.py", 7, 18)]
    assert caller_sites() == [("RT001", "proj/tool.py", 7, 18)]  # warm: from the cache
    helper.write_text("async def get_dirs(ctx) -> list:\n    return []\n", encoding="utf-8")
    assert caller_sites() == []


def test_an_empty_entry_decodes_to_the_result_the_field_checks_give():
    """The codec's shortcut for a file with nothing to say builds what the checked decoding
    builds from the same JSON, and a look-alike the field checks refuse is still refused."""
    import json

    from mcp_migrate.core.findings import FileResult
    from mcp_migrate.project import cache_codec

    stored = json.loads(json.dumps(cache_codec._result(FileResult("a.py"))))
    assert cache_codec._file_result("a.py", stored) == cache_codec._checked_result("a.py", stored) == FileResult("a.py")
    for field, value in (("previewed", 0), ("notes", {**stored["notes"], "still_asks": 0})):
        look_alike = {**stored, field: value}
        assert look_alike == stored  # 0 == False: equality alone would take it
        with pytest.raises(cache_codec.Malformed):
            cache_codec._file_result("a.py", look_alike)


def fix_run(*args) -> str:
    result = CliRunner().invoke(cli, ["fix", "--jobs", "1", "--exit-zero", *args], env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


#: An MCP server the screens let through (it may ask for roots) with no finding: its own
#: `list_roots` tool is no Roots request.
PLAIN = """from mcp.server.fastmcp import FastMCP

mcp = FastMCP("math")


@mcp.tool()
def list_roots(coefficients: list[float]) -> list[float]:
    return sorted(coefficients)
"""


def test_fix_reads_the_cache_and_analyses_only_what_it_may_change(tmp_path, monkeypatch):
    """Issue 37: `fix` analysed every file twice, and never used the cache. Now a file the
    cache answers is not analysed to plan the run, and a file whose check found nothing is not
    analysed again to fix it; what `fix` writes is what it writes without the cache."""
    warm, cold = tmp_path / "warm", tmp_path / "cold"
    for root in (warm, cold):
        shutil.copytree(FIXTURES / "plan" / "freed", root)
        (root / "plain.py").write_text(PLAIN)
    monkeypatch.chdir(tmp_path)
    from mcp_migrate.core.fix import loop  # it binds `analyze` by name: both are counted

    analysed, screened = [], []
    real, real_screens = engine.analyze, screening._screens

    def counted(*a, **k):
        analysed.append(Path(a[1]).name)
        return real(*a, **k)

    def screens_counted(data, path, settings, classes):
        screened.append(Path(path).name)
        return real_screens(data, path, settings, classes)

    monkeypatch.setattr(engine, "analyze", counted)
    monkeypatch.setattr(loop, "analyze", counted)
    monkeypatch.setattr(screening, "_screens", screens_counted)
    fix_run("--unsafe-fixes", "--no-cache", str(cold))
    assert "plain.py" in analysed and analysed.count("server.py") > 1
    analysed.clear()
    fix_run("--unsafe-fixes", str(warm))
    assert analysed.count("plain.py") == 1, "checked once to plan the run, never to fix it"
    assert tree_bytes(warm) == tree_bytes(cold)
    analysed.clear()
    screened.clear()
    fix_run("--unsafe-fixes", str(warm))  # the files the first run wrote are new bytes: checked once
    assert sorted(screened) == ["client.py", "proxy.py", "server.py"]
    assert analysed == ["client.py"], "the others' screens find no rule to run: no LibCST"
    analysed.clear()
    screened.clear()
    fix_run("--unsafe-fixes", str(warm))
    assert analysed == screened == [], "a run that changes nothing is answered by the cache"
    assert tree_bytes(warm) == tree_bytes(cold)


def tree_bytes(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}
