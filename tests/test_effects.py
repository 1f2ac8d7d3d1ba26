"""The effects summary (issue 35 §1, vocabulary/effects.py): what each function of a module does
with Roots, decided by its body and never by its name, and one hop of callees in the module and
across modules (vocabulary/imported_asks.py); then the rules that report from it (RT001, RT004),
with exact findings, in one file and across two modules."""

from __future__ import annotations

import os
import textwrap

from mcp_migrate.api import check_source
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.vocabulary.effects import ASKS, NOTIFIES, SENDS_METHOD_PARAM, effects_in
from mcp_migrate.vocabulary.imported_asks import effects_via, imported_effects


def _summary(code: str):
    return effects_in(textwrap.dedent(code).encode())


def _effects(code: str) -> dict:
    return {key: (set(f.effects), set(f.method_params)) for key, f in _summary(code).functions.items() if f.effects}


# ----- the summary of one module ---------------------------------------------------------------
def test_asks_by_body_and_not_when_compared_or_a_store():
    code = """
    async def fetch(ctx):
        return await ctx.session.list_roots()

    def build():
        return ListRootsRequest()

    def answer(msg):
        if msg["method"] == "roots/list":
            return {"roots": []}

    def store_roots(store):
        roots = store.list_roots()
        return roots

    class Client:
        async def refresh(self):
            return await self.session.send_request("roots/list")
    """
    assert _effects(code) == {
        (None, "fetch"): ({ASKS}, set()),
        (None, "build"): ({ASKS}, set()),
        ("Client", "refresh"): ({ASKS}, set()),
    }


def test_notifies_by_body_and_not_in_a_handler_or_registration():
    code = """
    async def changed(session):
        await session.send_roots_list_changed()

    async def by_constant(write):
        n = create_notification(method=MessageMethod.NOTIFICATION_ROOTS_LIST_CHANGED, params={})
        await write.send(n)

    def raw():
        return {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}

    def typed():
        return RootsListChangedNotification()

    def handles(msg):
        if msg.method == "notifications/roots/list_changed":
            return True

    def registered(router, fn):
        router.add_notification_handler("notifications/roots/list_changed", fn)

    def table(fn):
        return {"notifications/roots/list_changed": fn}

    def said():
        print("notifications/roots/list_changed")
    """
    assert _effects(code) == {
        (None, "changed"): ({NOTIFIES}, set()),
        (None, "by_constant"): ({NOTIFIES}, set()),
        (None, "raw"): ({NOTIFIES}, set()),
        (None, "typed"): ({NOTIFIES}, set()),
    }


def test_sends_method_param_by_body_whatever_the_name():
    """`_frame(method)` and `_jsonrpc_request(method)` build the message they are given the method
    of; a function that only compares or logs its parameter, or overwrites it, builds none."""
    code = """
    def _jsonrpc_request(method, *, request_id="1"):
        return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {}}

    def _frame(kind, method):
        payload = {"jsonrpc": "2.0", "method": method}
        body = json.dumps(payload)
        return body.encode()

    class Peer:
        async def ask(self, method, params=None):
            msg = {"jsonrpc": "2.0", "id": 1}
            msg["method"] = method
            await self.stream.send(msg)

        def typed(self, method):
            return JSONRPCRequest(jsonrpc="2.0", id=1, method=method)

    def is_roots(method):
        return {"method": "x"}["method"] == method

    def logged(method):
        print({"method": method} == {})

    def overwritten(method):
        method = "tools/list"
        return {"method": method}
    """
    assert _effects(code) == {
        (None, "_jsonrpc_request"): ({SENDS_METHOD_PARAM}, {"method"}),
        (None, "_frame"): ({SENDS_METHOD_PARAM}, {"method"}),
        ("Peer", "ask"): ({SENDS_METHOD_PARAM}, {"method"}),
        ("Peer", "typed"): ({SENDS_METHOD_PARAM}, {"method"}),
    }
    summary = _summary(code)
    assert summary.of((None, "_frame")).params == ("kind", "method")
    assert summary.of(("Peer", "ask")).params == ("method", "params")


def test_no_effect_in_a_module_without_the_words():
    assert _summary("def f(x):\n    return x.list_things()\n").functions == {}


# ----- one hop of callees ------------------------------------------------------------------------
HELPERS = """
from mcp.server.fastmcp import Context


async def get_dirs(ctx: Context) -> list:
    return [str(r.uri) for r in await ctx.list_roots()]


async def announce(session) -> None:
    await session.send_roots_list_changed()


def describe(dirs: list) -> str:
    return ", ".join(dirs)
"""
CALLERS = """
from pkg_tools import describe, get_dirs, announce


async def where(ctx):
    return describe(await get_dirs(ctx))


async def changed(session):
    await announce(session)


def quiet(dirs):
    return describe(dirs)


async def _local(ctx):
    return await ctx.list_roots()


async def twice(ctx):
    return await _local(ctx)


async def thrice(ctx):
    return await twice(ctx)
"""


def _tree(tmp_path) -> str:
    package = tmp_path / "pkg_tools"
    package.mkdir()
    (package / "helpers.py").write_text(HELPERS)
    (package / "__init__.py").write_text(
        "from pkg_tools.helpers import (\n    describe,\n    get_dirs,\n    announce,\n)\n"
    )
    (tmp_path / "callers.py").write_text(CALLERS)
    return str(tmp_path)


def test_one_hop_same_module_and_across_modules(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    view = ProjectView()
    callers, helpers = os.path.join(root, "callers.py"), os.path.join(root, "pkg_tools", "helpers.py")
    assert effects_via(callers, (None, "where"), view) == {ASKS: (helpers, (None, "get_dirs"))}
    assert effects_via(callers, (None, "changed"), view) == {NOTIFIES: (helpers, (None, "announce"))}
    assert effects_via(callers, (None, "quiet"), view) == {}
    assert effects_via(callers, (None, "twice"), view) == {ASKS: (callers, (None, "_local"))}
    assert effects_via(callers, (None, "thrice"), view) == {}  # one hop, no further
    assert effects_via(callers, (None, "_local"), view) == {ASKS: (callers, (None, "_local"))}


def test_imported_effects_through_a_package_reexport(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    view = ProjectView()
    callers, helpers = os.path.join(root, "callers.py"), os.path.join(root, "pkg_tools", "helpers.py")
    found = imported_effects(callers, "pkg_tools", (None, "announce"), view)
    assert (found[0], found[1], set(found[2].effects)) == (helpers, (None, "announce"), {NOTIFIES})
    assert imported_effects(callers, "pkg_tools", (None, "describe"), view) is None
    assert imported_effects(callers, "pkg_tools", (None, "missing"), view) is None


def _findings(tmp_path, name: str) -> list:
    path = tmp_path / name
    return [(f.line, f.column, f.code, f.message) for f in check_source(path.read_bytes(), str(path))]
