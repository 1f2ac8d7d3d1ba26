"""One import away from a caller that names nothing of Roots (issue 19 §2): a helper re-exported
by its package (the parenthesised form included), a module imported with `from . import`, and a
resolver alias of another module, found by the byte screen's second chance
(vocabulary/imported_asks.py) and reported by RT001 at info."""

from __future__ import annotations

import ast
import os
import textwrap

from mcp_migrate.api import check_source, default_settings
from mcp_migrate.core.screening import screens
from mcp_migrate.rules.rt001_roots_request import RootsRequest
from mcp_migrate.vocabulary.helper_screens import doing_words
from mcp_migrate.vocabulary.imported_asks import imports_a_doer

HELPERS = """
from mcp.server.fastmcp import Context


async def get_dirs(ctx: Context) -> list:
    return [str(r.uri) for r in await ctx.list_roots()]


def describe(dirs: list) -> str:
    return ", ".join(dirs)
"""
PACKAGE = """
from pkg_tools.helpers import (
    describe,
    get_dirs,
)
"""
SCOPE = """
from typing import Annotated

from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp_types import ListRootsResult


def _ask(ctx):
    return ListRoots()


Pinned = Annotated[ListRootsResult, Resolve(_ask)]
"""
SERVER = """
from mcp.server.fastmcp import Context, FastMCP

from pkg_tools import describe, get_dirs

from . import scope

app = FastMCP("files")


@app.tool()
async def where(ctx: Context) -> str:
    return describe(await get_dirs(ctx))


@app.tool()
def index(pinned: scope.Pinned) -> int:
    return 0
"""
QUIET = """
from mcp.server.fastmcp import FastMCP

from pkg_tools import describe

app = FastMCP("files")


@app.tool()
def show(dirs: list) -> str:
    return describe(dirs)
"""


def _tree(tmp_path) -> str:
    package = tmp_path / "pkg_tools"
    package.mkdir()
    for name, text in {
        "helpers": HELPERS,
        "__init__": PACKAGE,
        "scope": SCOPE,
        "server": SERVER,
        "quiet": QUIET,
    }.items():
        (package / f"{name}.py").write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(package)


def _findings(path: str) -> list:
    with open(path, "rb") as handle:
        data = handle.read()
    return [f"{f.line}:{f.column} {f.code} {f.severity} {f.message}" for f in check_source(data, path)]


def test_a_caller_with_no_roots_word_is_found_one_import_away(tmp_path):
    package = _tree(tmp_path)
    server = os.path.join(package, "server.py")
    assert b"oots" not in open(server, "rb").read()
    assert _findings(server) == [
        "12:27 RT001 info runs `pkg_tools.get_dirs`, a helper of this project that asks for roots",
        "16:11 RT001 info parameter `pinned` is resolved through `pkg_tools.scope.Pinned`, which asks for roots",
    ]


def test_a_caller_that_imports_only_what_asks_nothing_is_not_parsed_for_rt001(tmp_path):
    package = _tree(tmp_path)
    quiet = os.path.join(package, "quiet.py")
    data = open(quiet, "rb").read()
    assert not RootsRequest.screen(data)
    assert not imports_a_doer(data, quiet)
    assert _findings(quiet) == []


def test_the_helper_module_is_read_again_when_it_changes(tmp_path):
    package = _tree(tmp_path)
    server = os.path.join(package, "server.py")
    data = open(server, "rb").read()
    assert imports_a_doer(data, server)
    helpers = os.path.join(package, "helpers.py")
    with open(helpers, "w", encoding="utf-8") as handle:
        handle.write("async def get_dirs(ctx) -> list:\n    return []\n\n\ndef describe(d):\n    return ''\n")
    os.utime(helpers, ns=(1, 1))
    scope = os.path.join(package, "scope.py")
    with open(scope, "w", encoding="utf-8") as handle:
        handle.write("Pinned = list\n")
    os.utime(scope, ns=(1, 1))
    assert not imports_a_doer(data, server)


INLINE = """
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp_types import ListRootsResult

from .scope import _ask

app = MCPServer("files")


@app.tool()
def index(pinned: Annotated[ListRootsResult, Resolve(_ask)]) -> int:
    return 0
"""


def test_an_inline_marker_given_an_imported_resolver_is_the_alias_written_in_place(tmp_path):
    """`Annotated[ListRootsResult, Resolve(_ask)]` with `_ask` from another module: the same
    finding as the parameter typed `scope.Pinned` (the same resolver, not named through an alias)."""
    package = _tree(tmp_path)
    inline = os.path.join(package, "inline.py")
    with open(inline, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(INLINE).lstrip())
    assert _findings(inline) == [
        "13:11 RT001 info parameter `pinned` is resolved through `pkg_tools.scope._ask`, which asks for roots",
    ]


def _words(source: str):
    data = textwrap.dedent(source).lstrip().encode()
    return doing_words(ast.parse(data), data, RootsRequest.SCREEN)


def test_a_modules_doing_words_are_the_definitions_around_its_tokens():
    assert _words(HELPERS) == {"get_dirs"}
    assert _words(SCOPE) is True  # `ListRootsResult` in an import line and an alias: any definition may read it
    decorated = """
        import mcp
        class Service:
            '''Answers roots/list for the gateway.'''
            @route("/roots/list")
            async def answer(self):
                return []
            def other(self):
                return 1
        # see list_roots() in the SDK
        if TYPE_CHECKING:
            def typed(s) -> "ListRootsResult": ...
        def helper(ctx):
            return ctx
        Pinned = Resolve(helper)
        Asked = Resolve(typed)
    """
    assert _words(decorated) == {"answer", "typed", "Asked"}


def test_a_module_constant_or_class_attribute_leaves_every_definition_a_helper():
    assert _words("METHOD = 'roots/list'\n\nasync def ask(s):\n    return await s.send(METHOD)\n") is True
    assert (
        _words("class Q:\n    kind = LIST_ROOTS\n\n    def ask(self, s):\n        return s.send(self.kind)\n") is True
    )
    # Lines ended by a lone CR, as the parser counts them.
    lone_cr = b"# helpers\rimport mcp\rdef other():\r    pass\rasync def ask(s):\r    return await s.list_roots()\r"
    assert doing_words(ast.parse(lone_cr), lone_cr, RootsRequest.SCREEN) == {"ask"}


#: A roots module as Dev10x writes one (issue 37): a manager whose `refresh` asks, a wiring
#: function whose words of Roots lie in its docstring, a log message and a handler table's key,
#: and a plain `def list_roots()` that returns the roots kept.
ROOTS_MODULE = """
import logging

import mcp.types as mcp_types

log = logging.getLogger(__name__)
_kept = []


class Manager:
    async def refresh(self, session):
        \"\"\"Fetches roots/list again.\"\"\"
        _kept[:] = (await session.list_roots()).roots


def wire(server, manager):
    \"\"\"Installs the roots/list refresher for notifications/roots/list_changed.\"\"\"

    async def changed(n: mcp_types.RootsListChangedNotification):
        log.debug("roots/list_changed received: refreshing")
        await manager.refresh(server.request_context.session)

    server.notification_handlers[mcp_types.RootsListChangedNotification] = changed


def list_roots():
    return {"roots": list(_kept)}
"""


def test_a_definition_whose_words_of_roots_no_rule_reads_is_no_helper():
    from mcp_migrate.rules.rt001_screen import asks_in
    from mcp_migrate.rules.rt004_screen import ListChangedSendScreen, sends_in

    data = textwrap.dedent(ROOTS_MODULE).lstrip().encode()
    tree = ast.parse(data)
    assert doing_words(tree, data, RootsRequest.SCREEN) == {"refresh", "wire", "list_roots"}
    assert doing_words(tree, data, RootsRequest.SCREEN, screen=asks_in) == {"refresh"}
    assert doing_words(tree, data, ListChangedSendScreen.SCREEN) == {"wire"}
    assert doing_words(tree, data, ListChangedSendScreen.SCREEN, screen=sends_in) == frozenset()


CALLS_THE_WIRING = """
from mcp.server.fastmcp import FastMCP

from pkg_tools.roots import Manager, list_roots, wire

app = FastMCP("files")


@app.tool()
def roots() -> dict:
    return list_roots()


def start():
    wire(app._mcp_server, Manager())
"""


def test_a_caller_of_a_roots_modules_wiring_and_getter_is_not_parsed(tmp_path, monkeypatch):
    from mcp_migrate.core import engine

    package = _tree(tmp_path)
    with open(os.path.join(package, "roots.py"), "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(ROOTS_MODULE).lstrip())
    caller = os.path.join(package, "app.py")
    with open(caller, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(CALLS_THE_WIRING).lstrip())
    data = open(caller, "rb").read()
    decided = screens(data, caller, default_settings())
    assert "RT001" in {rule.CODE for rule in decided.byte_rules}  # the bytes alone let it through
    assert decided.codes == frozenset()
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda text: parsed.append(1) or real_parse(text))
    assert _findings(caller) == []
    assert parsed == []
    with open(caller, "w", encoding="utf-8") as handle:  # a call of the method that asks
        handle.write(
            textwrap.dedent(CALLS_THE_WIRING).lstrip() + "\n\nasync def again(s):\n    await Manager().refresh(s)\n"
        )
    assert "RT001" in screens(open(caller, "rb").read(), caller, default_settings()).codes


#: A caller with a word of Roots (so its bytes reach the syntax screen) that imports a helper
#: module's function that asks nothing, and one that imports the one that asks.
CALLS_DESCRIBE = """
from mcp.server.fastmcp import FastMCP

from pkg_tools.helpers import describe

app = FastMCP("files")


@app.tool()
def show(roots: list) -> str:
    return describe(roots)  # once asked with list_roots()
"""


def test_a_caller_of_a_helper_modules_quiet_function_is_not_parsed_for_rt001(tmp_path):
    package = _tree(tmp_path)
    quiet = os.path.join(package, "calls_describe.py")
    with open(quiet, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(CALLS_DESCRIBE).lstrip())
    data = open(quiet, "rb").read()
    settings = default_settings()
    decided = screens(data, quiet, settings)
    assert "RT001" in {rule.CODE for rule in decided.byte_rules}
    assert "RT001" not in decided.codes
    with open(quiet, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(CALLS_DESCRIBE).lstrip().replace("describe", "get_dirs"))
    data = open(quiet, "rb").read()
    assert "RT001" in screens(data, quiet, default_settings()).codes
    assert _findings(quiet) == [
        "10:12 RT001 info runs `pkg_tools.helpers.get_dirs`, a helper of this project that asks for roots"
    ]


def test_a_files_imports_are_read_and_resolved_once_for_both_import_followers(tmp_path, monkeypatch):
    """RT001's and RT004's byte screens follow the same file's imports one after the other: the
    import lines are read once and each imported module's file is looked up once per view."""
    from mcp_migrate.core.project_view import ProjectView
    from mcp_migrate.vocabulary import imported_asks
    from mcp_migrate.vocabulary.effects import NOTIFIES

    package = _tree(tmp_path)
    quiet = os.path.join(package, "quiet.py")
    data = open(quiet, "rb").read()
    reads, looked_up = [], []
    real_read, real_file = imported_asks.import_statements, imported_asks.module_file
    monkeypatch.setattr(imported_asks, "import_statements", lambda d, *a: reads.append(d is data) or real_read(d, *a))
    monkeypatch.setattr(imported_asks, "module_file", lambda v, d, m: looked_up.append(m) or real_file(v, d, m))
    view = ProjectView()
    assert not imports_a_doer(data, quiet, 0, view)
    assert not imports_a_doer(data, quiet, 0, view, NOTIFIES)
    assert reads.count(True) == 1  # the helper modules' own import lines are read besides
    assert sorted(looked_up) == sorted(set(looked_up)) and "pkg_tools" in looked_up


def test_a_packages_reexport_is_judged_by_what_each_caller_spells_and_noted_as_read(tmp_path):
    """`module_may_do` about a package re-exporting a helper that asks: true for a caller that
    spells the helper's name, false for one that spells only the other name the statement
    re-exports, whatever order the view is asked in; and each check that asks notes the helper
    module as read (the results cache checks the caller again when it changes), the answer
    kept from an earlier question included."""
    from mcp_migrate.core.project_view import ProjectView
    from mcp_migrate.rules.rt001_screen import RootsRequestScreen, asks_in
    from mcp_migrate.vocabulary.helper_screens import module_may_do

    package = _tree(tmp_path)
    init, helpers = os.path.join(package, "__init__.py"), os.path.join(package, "helpers.py")
    view = ProjectView()
    view.stamps = True

    def asked(*spelled: str) -> tuple:
        with view.recording() as seen:
            answer = module_may_do(init, 0, RootsRequestScreen.SCREEN, asks_in, set(spelled).__contains__, view)
        return answer, {entry[0] for entry in seen}

    assert asked("describe") == (False, {init, os.path.abspath(helpers)})
    assert asked("get_dirs") == (True, {init, os.path.abspath(helpers)})
    assert asked("describe", "show") == (False, {init, os.path.abspath(helpers)})
    assert asked("unrelated")[0] is False


def test_a_helper_module_with_a_type_alias_is_read_as_any_other(tmp_path):
    """A `type` alias statement (Python 3.12's syntax) in the helper module: before 3.12 the
    standard library's parser refused it, and every function of the module was taken for one
    that may ask (core.screen.read now reads such a statement as an assignment)."""
    package = _tree(tmp_path)
    helpers = tmp_path / "pkg_tools" / "helpers.py"
    helpers.write_text("type Dirs = list[str]\n" + helpers.read_text(encoding="utf-8"), encoding="utf-8")
    caller = os.path.join(package, "calls_describe.py")
    with open(caller, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(CALLS_DESCRIBE).lstrip())
    assert "RT001" not in screens(open(caller, "rb").read(), caller, default_settings()).codes
    assert _findings(caller) == []
    assert _findings(os.path.join(package, "server.py"))[0] == (
        "12:27 RT001 info runs `pkg_tools.get_dirs`, a helper of this project that asks for roots"
    )


def test_a_token_imported_or_bound_under_its_own_name_makes_no_definition_a_helper():
    # fast-agent's callback runtime: the SDK's names imported, an attribute typed with one.
    runtime = """
        from mcp.types import ListRootsResult
        if TYPE_CHECKING:
            from mcp.client.session import (
                ListRootsFnT,
            )
        class Runtime:
            list_roots_callback: ListRootsFnT | None = field(init=False)
            def make(self):
                async def list_roots(ctx):
                    return ListRootsResult(roots=[])
                return list_roots
            def other(self):
                return 1
    """
    assert _words(runtime) == {"make"}


def test_a_token_carried_to_another_name_still_leaves_every_definition_a_helper():
    assert _words("from mcp.types import ListRootsRequest as Ask\n\ndef ask(s):\n    return s.send(Ask())\n") is True
    assert _words("from .list_roots import *\n\ndef ask(s):\n    return s.send(make())\n") is True
    assert (
        _words("class Q:\n    kind: str = LIST_ROOTS\n\n    def ask(self, s):\n        return s.send(self.kind)\n")
        is True
    )


def test_a_type_alias_line_read_as_an_assignment_is_not_read_by_its_columns():
    # Before Python 3.12 core.screen.read parses `type Fn = ...` as `Fn = ...`: the value's
    # columns are five short of the file's, and the file's bytes there would hide the token.
    data = b"type Fn = ListRootsFnT\n\ndef ask(s):\n    return s.list_roots()\n"
    tree = ast.parse(data.replace(b"type Fn", b"Fn", 1))
    assert doing_words(tree, data, RootsRequest.SCREEN, exact=False) is True
    assert doing_words(ast.parse(b"Fn = 1\n" + data[23:]), b"Fn = 1\n" + data[23:], RootsRequest.SCREEN) == {"ask"}


#: A test of the helpers' callers: it patches the helper that asks by its dotted name and reads
#: the mock back, running nothing of it.
PATCHES_THE_HELPER = """
from unittest import mock

from mcp.server.fastmcp import FastMCP

from pkg_tools import helpers


def test_show():
    with mock.patch("pkg_tools.helpers.get_dirs", return_value=["/srv"]):
        assert helpers.get_dirs.return_value == ["/srv"]
"""


def test_a_helper_only_patched_or_read_runs_nothing_and_is_not_parsed_for(tmp_path, monkeypatch):
    """The rules follow a helper where a call runs it (`wrappers.imported_target`) or, for RT001,
    where a parameter's annotation names it: a test that patches the helper by its dotted name
    and reads the mock back spells it and runs nothing (issue 37: a gateway's tests patched
    `root_service.list_roots`, a word of its main module). Calling it is a finding."""
    from mcp_migrate.core import engine

    package = _tree(tmp_path)
    caller = os.path.join(package, "test_show.py")
    with open(caller, "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(PATCHES_THE_HELPER).lstrip())
    data = open(caller, "rb").read()
    decided = screens(data, caller, default_settings())
    assert "RT001" in {rule.CODE for rule in decided.byte_rules} and "RT001" not in decided.codes
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda text: parsed.append(1) or real_parse(text))
    assert _findings(caller) == [] and parsed == []
    with open(caller, "a", encoding="utf-8") as handle:
        handle.write("\n\nasync def test_ask(ctx):\n    assert await helpers.get_dirs(ctx)\n")
    assert _findings(caller) == [
        "14:18 RT001 info runs `pkg_tools.helpers.get_dirs`, a helper of this project that asks for roots"
    ]
