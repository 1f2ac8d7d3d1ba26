"""What one run keeps so that it does each piece of work once (issue 37), and that keeping it
changes no finding: a file checked again under the run's plan walks the tree its first check
parsed; the screens' follower of typed receivers reads the project's import graph once, cycles
and all, whatever the methods are called; a `--no-cache` run records no dependency stamps; a
view stats each file once."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import libcst
import pytest

from mcp_migrate.core.project_view import PARSED_BYTES, READ_BYTES, ProjectView
from mcp_migrate.rules.rt004_screen import ListChangedSendScreen
from mcp_migrate.run.records import CheckOptions
from mcp_migrate.run.runner import run_check
from mcp_migrate.vocabulary.effects import ASKS, NOTIFIES
from mcp_migrate.vocabulary.imported_asks import imports_a_doer
from mcp_migrate.vocabulary.typed_doers import imported_methods, typed_module_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _write(root: Path, files: dict) -> None:
    for name, code in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")


@pytest.fixture
def parses(monkeypatch):
    """The LibCST parses made so far, by the bytes parsed."""
    made: list = []
    real = libcst.parse_module

    def counting(source, *args, **kwargs):
        made.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    return made


# ----- a file checked again under the run's plan is not parsed again ---------------------------


@pytest.mark.parametrize("project", ["held", "caller", "freed", "reused", "suggested"])
def test_each_file_of_a_run_with_a_plan_is_parsed_once(tmp_path, monkeypatch, parses, project):
    """The plan fixtures make the run check files again under its plan (a held server, a
    client whose tool call passes directories, tests that go with their code); before, each
    such file was parsed once per check (held: 5 parses of 3 files, caller: 8 of 4)."""
    shutil.copytree(FIXTURES / "plan" / project, tmp_path / project)
    monkeypatch.chdir(tmp_path)
    run = run_check([project], CheckOptions(jobs=1))
    with_findings = [r.path for r in run.results if r.findings]
    assert with_findings
    assert len(parses) == len(set(parses)), "a file's bytes were parsed twice"
    assert len(parses) <= len(run.results)


@pytest.mark.parametrize("project", ["reused", "suggested"])
def test_a_test_module_parsed_in_part_is_parsed_once_by_a_run_with_a_plan(tmp_path, monkeypatch, parses, project):
    """A huge test module is parsed in part (core.partial) and checked again under the run's
    plan: the check again walks the partial tree the first check parsed (before, each check
    parsed it: a gateway's 1.26 MB test module, 2 parses of its 251 KB part)."""
    from mcp_migrate.core import partial

    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 0)  # every test module in part
    monkeypatch.setattr(partial, "PARTIAL_MIN_SHARE", 0.0)
    dropped: list = []  # no other module's `ast` reading is alive beside its parse (issue 37, memory)
    real_drop = ProjectView.drop_readings
    monkeypatch.setattr(ProjectView, "drop_readings", lambda view: dropped.append(view) or real_drop(view))
    shutil.copytree(FIXTURES / "plan" / project, tmp_path / project)
    monkeypatch.chdir(tmp_path)
    whole = (tmp_path / project / "tests" / "test_server.py").read_bytes()
    run = run_check([project], CheckOptions(jobs=1))
    assert dropped
    [test] = [r for r in run.results if r.path.endswith("test_server.py")]
    assert test.findings
    in_part = [source for source in parses if b"def test_" not in source and source != whole]
    assert len(parses) == len(set(parses)), "a file's bytes were parsed twice"
    assert whole not in parses and len(in_part) >= 1  # the test module was parsed in part, once


@pytest.mark.parametrize("project", ["reused", "suggested"])
def test_a_file_checked_again_is_neither_screened_nor_measured_again(tmp_path, monkeypatch, project):
    """A file checked again under the run's plan keeps its screens' answer (the screens read
    no plan: core.screening.PARSED_SCREENS) and, its tree kept, the nesting measure it passed:
    a gateway's 1.26 MB test module paid both twice (issue 37)."""
    from mcp_migrate.core import engine, screening

    screened, measured = [], []
    screens, measure = screening._screens, engine.nesting_problem
    monkeypatch.setattr(screening, "_screens", lambda data, path, *a: screened.append(path) or screens(data, path, *a))
    monkeypatch.setattr(engine, "nesting_problem", lambda data, *a: measured.append(data) or measure(data, *a))
    shutil.copytree(FIXTURES / "plan" / project, tmp_path / project)
    monkeypatch.chdir(tmp_path)
    run = run_check([project], CheckOptions(jobs=1))
    again = [r.path for r in run.results if r.findings and r.path.endswith("test_server.py")]
    assert again and all(screened.count(path) == 1 for path in again), screened
    assert len(screened) == len(set(screened)), "a file was screened twice"
    assert measured and len(measured) == len(set(measured)), "a file was measured twice"


def test_a_view_keeps_trees_up_to_its_bound_and_evicts_none():
    view = ProjectView()
    small, large = b"x = 1\n", b"#" * (PARSED_BYTES - 3) + b"\n"
    view.keep_parsed(small, "small tree")
    assert view.parsed(small) == "small tree"
    view.keep_parsed(large, "large tree")  # would pass the bound with the small one kept
    assert view.parsed(large) is None and view.parsed(small) == "small tree"
    assert ProjectView().parsed(small) is None  # another run's view reads afresh


def test_a_view_keeps_readings_up_to_its_bound_none_while_analysing_and_drops_them():
    """The screens' `ast` readings (core.screen.read with the run's view): every reader of the
    same bytes gets the one tree, as seen from its own path; none is kept past READ_BYTES of
    source or while a file is analysed (but a kept one is served), and `drop_readings` forgets
    them (before a module is parsed in part, or a pool forks)."""
    from mcp_migrate.core.screen import kept_tree, read

    view = ProjectView()
    small = b"x = 1\n"
    first = read(small, "a.py", view)
    again = read(small, "b.py", view)
    assert again.tree is first.tree and (first.path, again.path) == ("a.py", "b.py")
    assert read(small, "a.py", view) is first and kept_tree(small, view) is first.tree
    assert read(small, "a.py", ProjectView()).tree is not first.tree  # another run's view reads afresh
    large = b"#" * (READ_BYTES - 3) + b"\n"  # would pass the bound with the small one kept
    assert read(large, "", view).tree is not read(large, "", view).tree and kept_tree(large, view) is None
    other = b"y = 2\n"
    with view.analysing("c.py"):
        assert read(other, "", view).tree is not read(other, "", view).tree
        assert read(small, "c.py", view).tree is first.tree
    assert kept_tree(other, view) is None and read(b"def (", "", view) is None
    view.drop_readings()
    assert kept_tree(small, view) is None and read(small, "a.py", view).tree is not first.tree


def test_the_readers_of_a_helper_module_parse_it_once(tmp_path, monkeypatch):
    """The effects summary a test's import follower reads of the server module it imports and
    the helper screens' `doing_words` share one `ast` parse of it (core.project_view.kept_reading;
    issue 37: a gateway's 897 KB module, read three times by the screens, 0.15 s). The module's
    own screens, first in the run, read it for themselves and keep nothing (a reading only they
    ask for is most of what a view would keep: fast-agent's 18 of 24). The run's findings are
    those of a run that keeps no reading, which parses the module three times."""
    from mcp_migrate.core import project_view, screen

    shutil.copytree(FIXTURES / "plan" / "reused", tmp_path / "reused")
    monkeypatch.chdir(tmp_path)
    server = (tmp_path / "reused" / "server.py").read_bytes()
    read: list = []
    real = screen.parsed
    monkeypatch.setattr(screen, "parsed", lambda data: read.append(data) or real(data))
    run = run_check(["reused"], CheckOptions(jobs=1))
    assert read.count(server) == 2
    read.clear()
    monkeypatch.setattr(project_view, "READ_BYTES", 0)
    alone = run_check(["reused"], CheckOptions(jobs=1))
    assert read.count(server) == 3
    assert [r.findings for r in run.results] == [r.findings for r in alone.results]
    assert any(r.findings for r in run.results)


def test_a_files_own_screens_serve_a_kept_reading_and_keep_none(monkeypatch):
    """`_screens` asks the view with `keep=False`: it is served the reading a follower kept, and
    keeps none of its own (core.screening)."""
    from mcp_migrate.api import default_settings
    from mcp_migrate.core import screening
    from mcp_migrate.core.screen import read

    view = ProjectView()
    settings = default_settings(view=view)
    data = b"from mcp.server.fastmcp import Context\n\nasync def f(ctx: Context):\n    return await ctx.list_roots()\n"
    other = data.replace(b"f(", b"g(")
    kept = read(data, "helper.py", view)
    served: list = []
    real = screening.read_syntax
    monkeypatch.setattr(screening, "read_syntax", lambda *a, **k: served.append(real(*a, **k)) or served[-1])
    assert screening.screens(data, "helper.py", settings).parses
    assert screening.screens(other, "other.py", settings).parses
    assert served[0].tree is kept.tree and served[1] is not None
    assert view.kept_reading(other) is None


# ----- the typed follower's import graph: cycles, any method name --------------------------------

CYCLE = {
    "kit/__init__.py": "",
    "kit/a.py": """
        from kit.b import Helper


        class Front:
            helper: Helper
    """,
    "kit/b.py": """
        from kit.a import Front
        from kit.c import Connector


        class Helper:
            front: Front
            connector: Connector
    """,
    "kit/c.py": """
        from mcp import ClientSession


        class Connector:
            session: ClientSession

            async def METHOD(self) -> None:
                await self.session.send_roots_list_changed()
    """,
    "kit/quiet.py": """
        import json


        def dump(value) -> str:
            return json.dumps(value)
    """,
}


@pytest.mark.parametrize("method", ["replace", "zz_whatever"])
def test_the_methods_reached_through_an_import_cycle_whatever_their_name(tmp_path, method):
    files = {name: code.replace("METHOD", method) for name, code in CYCLE.items()}
    _write(tmp_path, files)
    caller = tmp_path / "flow.py"
    data = b"from mcp import ClientSession\nfrom kit.a import Front\n"
    caller.write_bytes(data)
    view = ProjectView()
    assert imported_methods(data, str(caller), view, 0, NOTIFIES) == {method}
    assert imported_methods(data, str(caller), view, 0, ASKS) == set()
    # each module of the cycle got its answer, the same for all three (one component)
    quiet = b"from mcp import ClientSession\nfrom kit.quiet import dump\n"
    assert imported_methods(quiet, str(caller), view, 0, NOTIFIES) == set()
    assert imported_methods(b"from kit.a import Front\n", str(caller), view, 0, NOTIFIES) == set()  # no MCP here


def test_the_walk_summarises_only_the_modules_that_may_hold_the_effect(tmp_path, monkeypatch):
    """The walk reads each module it reaches once, for its imports and the effects its bytes
    may hold; only a module whose bytes hold a token of the effect is summarised (a second
    reading and a parse with `ast`), once for every question the walk asks of it."""
    from mcp_migrate.vocabulary import effects

    _write(tmp_path, {name: code.replace("METHOD", "replace") for name, code in CYCLE.items()})
    caller = tmp_path / "flow.py"
    data = b"from mcp import ClientSession\nfrom kit.a import Front\nfrom kit.quiet import dump\n"
    caller.write_bytes(data)
    summarised = []
    real = effects.effects_in
    monkeypatch.setattr(effects, "effects_in", lambda source, *a: summarised.append(source) or real(source, *a))
    view = ProjectView()
    assert imported_methods(data, str(caller), view, 0, NOTIFIES) == {"replace"}
    assert imported_methods(data, str(caller), view, 0, ASKS) == set()
    assert summarised == [(tmp_path / "kit" / "c.py").read_bytes()]


def test_the_import_followers_and_the_walk_read_each_module_once(tmp_path, monkeypatch):
    """RT001's and RT004's import followers and the typed walk share one reading of each module
    per view (`module_read`), and a follower decides by the effects that reading found. Before,
    each of the three read every module it reached."""
    from mcp_migrate.vocabulary import imported_asks

    _write(tmp_path, {name: code.replace("METHOD", "replace") for name, code in CYCLE.items()})
    caller = tmp_path / "flow.py"
    data = b"from mcp import ClientSession\nfrom kit.a import Front\nfrom kit.quiet import dump\n"
    caller.write_bytes(data)
    reads: list = []
    real = imported_asks.read
    monkeypatch.setattr(
        imported_asks, "read", lambda source, *a: reads.append(os.path.basename(source)) or real(source, *a)
    )
    view = ProjectView()
    for effect in (ASKS, NOTIFIES):  # RT001's and RT004's followers (rules/rt001_screen.py, rt004_screen.py)
        assert not imports_a_doer(data, str(caller), 0, view, effect)
        imported_methods(data, str(caller), view, 0, effect)
    assert {name: reads.count(name) for name in ("a.py", "b.py", "quiet.py")} == {"a.py": 1, "b.py": 1, "quiet.py": 1}
    assert reads.count("c.py") == 1  # no follower reached it: the walk read it, and found its effect there


def test_the_types_are_walked_only_where_a_module_reached_holds_a_roots_word(tmp_path, monkeypatch):
    """RT001's and RT004's syntax screens ask the typed classes' modules whether they hold one of
    their tokens, each of which holds a roots word: where no module the file's imports reach
    holds one, the walk over the modules' types (an `ast` parse of each) is not made."""
    from mcp_migrate.vocabulary import typed_doers

    _write(tmp_path, {name: code.replace("METHOD", "replace") for name, code in CYCLE.items()})
    caller = str(tmp_path / "flow.py")
    walked: list = []
    real = typed_doers.typed_classes
    monkeypatch.setattr(typed_doers, "typed_classes", lambda *a: walked.append(a[0]) or real(*a))
    tokens = ListChangedSendScreen.SCREEN
    quiet = b"from mcp import ClientSession\nfrom kit.quiet import dump\n"
    assert typed_module_files(quiet, caller, ProjectView(), tokens) == [] and walked == []
    assert typed_module_files(quiet, caller, ProjectView(), (b"dumps",)) == [] and walked == [quiet]  # not rooted
    typed = b"from mcp import ClientSession\nfrom kit.a import Front\n"
    found = typed_module_files(typed, caller, ProjectView(), tokens)
    assert str(tmp_path / "kit" / "c.py") in found and walked == [quiet, typed]


def test_a_typed_receiver_through_an_import_cycle_is_still_found(tmp_path, monkeypatch):
    """The screens let the file through, and the rule finds the send, with the modules of the
    classes importing each other."""
    files = {name: code.replace("METHOD", "replace") for name, code in CYCLE.items()}
    files["flow.py"] = """
        from mcp import ClientSession

        from kit.a import Front


        async def run(front: Front) -> None:
            await front.helper.connector.replace()
    """
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    run = run_check(["flow.py"], CheckOptions(jobs=1))
    found = [(f.code, f.line, f.column) for r in run.results for f in r.findings]
    assert found == [("RT004", 7, 11)]


# ----- what a run records, and how often it asks the file system ---------------------------------


def test_a_run_without_the_cache_records_no_dependencies(tmp_path, monkeypatch):
    files = {name: code.replace("METHOD", "replace") for name, code in CYCLE.items()}
    files["flow.py"] = (
        "from mcp import ClientSession\nfrom kit.a import Front\n\n\nasync def run(front: Front):\n    await front.helper.connector.replace()\n"
    )
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    without = run_check(["flow.py"], CheckOptions(jobs=1))
    assert [r.depends for r in without.results] == [()]
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    with_cache = run_check(["flow.py"], CheckOptions(jobs=1, cache=True))
    consulted = {os.path.relpath(entry[0], tmp_path) for r in with_cache.results for entry in r.depends}
    assert {"kit/a.py", "kit/b.py", "kit/c.py"} <= consulted


def test_a_view_stats_each_file_once(tmp_path, monkeypatch):
    target = tmp_path / "m.py"
    target.write_text("x = 1\n")
    calls: list = []
    real = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: calls.append(path) or real(path, *a, **k))
    view = ProjectView()
    assert view.stamp(str(target)) == view.stamp(str(target)) is not None
    assert view.stat(str(tmp_path / "missing.py")) is None and view.stat(str(tmp_path / "missing.py")) is None
    assert calls == [str(target), str(tmp_path / "missing.py")]


# ----- a warm `fix` answers the files it leaves unchanged from the results cache ------------------


@pytest.mark.parametrize("output", ["concise", "full", "sarif"])
def test_a_warm_fix_does_not_analyse_the_files_it_leaves_unchanged(tmp_path, monkeypatch, parses, output):
    """fixtures/plan/suggested keeps suggestions `fix --unsafe-fixes` does not apply: before, every
    warm `fix` analysed those files again (2.7-8.4 times a warm `check` on the corpus), and the
    full and SARIF reports analysed them once more for the suggestions' previews, which the
    cache now keeps with the outcome. The second run's report is the first's."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    shutil.copytree(FIXTURES / "plan" / "suggested", tmp_path / "suggested")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    command = ["fix", "--unsafe-fixes", "--no-color", "--output-format", output, "suggested"]
    first = CliRunner().invoke(cli, command, catch_exceptions=False)
    assert first.exit_code == 1 and "RT00" in first.output
    if output == "full":
        assert "= suggestion" in first.output
    before = sorted(p.read_bytes() for p in (tmp_path / "suggested").rglob("*.py"))
    parses.clear()
    again = CliRunner().invoke(cli, command, catch_exceptions=False)
    assert parses == []
    assert again.output == first.output and again.exit_code == first.exit_code
    assert sorted(p.read_bytes() for p in (tmp_path / "suggested").rglob("*.py")) == before
