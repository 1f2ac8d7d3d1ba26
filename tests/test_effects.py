"""The effects summary (issue 35 §1, vocabulary/effects.py): what each function of a module does
with Roots, decided by its body and never by its name, and one hop of callees in the module and
across modules (vocabulary/imported_asks.py); then the rules that report from it (RT001, RT004),
with exact findings, in one file and across two modules."""

from __future__ import annotations

import json
import os
import textwrap

from mcp_migrate.api import check_source
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.vocabulary.effects import (
    ASK_TOKENS,
    ASKS,
    NOTIFIES,
    ROOTS_WORDS,
    SENDS_METHOD_PARAM,
    effects_in,
    possible_effects,
)
from mcp_migrate.vocabulary.imported_asks import effects_via, imported_effects
from mcp_migrate.vocabulary.wire_names import LIST_CHANGED_TOKENS


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

    def relay(executor, method):
        return executor.execute("relay", method)

    def logged(method):
        print({"method": method} == {})

    def overwritten(method):
        method = "tools/list"
        return {"method": method}

    def denied(method):
        raise JSONRPCError(-32003, "access denied", {"method": method})
    """
    assert _effects(code) == {
        (None, "_jsonrpc_request"): ({SENDS_METHOD_PARAM}, {"method"}),
        (None, "_frame"): ({SENDS_METHOD_PARAM}, {"method"}),
        ("Peer", "ask"): ({SENDS_METHOD_PARAM}, {"method"}),
        ("Peer", "typed"): ({SENDS_METHOD_PARAM}, {"method"}),
    }
    summary = _summary(code)
    assert {key: set(f.inert_params) for key, f in summary.functions.items() if f.inert_params} == {
        (None, "is_roots"): {"method"},
    }
    assert summary.of((None, "_frame")).params == ("kind", "method")
    assert summary.of(("Peer", "ask")).params == ("method", "params")


def test_no_effect_in_a_module_without_the_words():
    assert _summary("def f(x):\n    return x.list_things()\n").functions == {}


def test_the_effects_a_module_may_hold_are_read_from_its_tokens():
    """What `effects_in` and the typed follower's walk read before anything else: a module
    whose bytes hold no token of an effect has no function with it."""
    assert possible_effects(b"def f(x):\n    return x.roots\n") == frozenset()
    assert possible_effects(b"await ctx.session.list_roots()") == {ASKS}
    assert possible_effects(b"await session.send_roots_list_changed()") == {NOTIFIES}
    assert possible_effects(b"LIST_ROOTS = 1\nROOTS_CHANGED = 2\n") == {ASKS, NOTIFIES}
    # Both effects' tokens hold `oots` or `OOTS`, which the module is searched for first.
    assert all(any(word in token for word in ROOTS_WORDS) for token in ASK_TOKENS + LIST_CHANGED_TOKENS)


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


def test_a_module_checked_and_imported_is_summarised_once(tmp_path, monkeypatch):
    """The summary of a file's own bytes (vocabulary.builders) and of the same module imported
    by another check are one: `effects_of` keeps it by the bytes' digest (issue 37)."""
    from mcp_migrate.vocabulary import effects

    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    summarised = []
    monkeypatch.setattr(
        effects,
        "effects_in",
        lambda data, full=True, view=None: summarised.append(full) or _EFFECTS_IN(data, full, view),
    )
    view = ProjectView()
    helpers = os.path.join(root, "pkg_tools", "helpers.py")
    with open(helpers, "rb") as handle:
        own = effects.effects_of(handle.read(), view)
    assert effects.module_effects(helpers, view, full=True) is own
    assert effects.effects_of(b"", view) is effects.module_effects(os.path.join(root, "missing.py"), view)
    assert summarised == [True]
    assert set(effects.module_effects(helpers, view).doing(ASKS)) == {(None, "get_dirs")}
    assert summarised == [True, False]  # a summary without `full` is its own


_EFFECTS_IN = effects_in


def test_imported_effects_through_a_package_reexport(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    view = ProjectView()
    callers, helpers = os.path.join(root, "callers.py"), os.path.join(root, "pkg_tools", "helpers.py")
    found = imported_effects(callers, "pkg_tools", (None, "announce"), view)
    assert (found[0], found[1], set(found[2].effects)) == (helpers, (None, "announce"), {NOTIFIES})
    assert imported_effects(callers, "pkg_tools", (None, "describe"), view) is None  # no effect
    found = imported_effects(callers, "pkg_tools", (None, "describe"), view, full=True)
    assert (found[0], found[1], found[2].effects, found[2].params) == (
        helpers,
        (None, "describe"),
        frozenset(),
        ("dirs",),
    )
    assert imported_effects(callers, "pkg_tools", (None, "missing"), view) is None


def _findings(tmp_path, name: str) -> list:
    path = tmp_path / name
    return [(f.line, f.column, f.code, f.message) for f in check_source(path.read_bytes(), str(path))]


# ----- RT004 from the summary, across modules ------------------------------------------------------
SENDERS = """
import logging

import mcp


async def notify_changed(write):
    await write.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})


async def on_changed(msg):
    if msg["method"] == "notifications/roots/list_changed":
        logging.info("roots changed")


async def send_roots_list_changed_notification(write):
    logging.info("nothing is sent here")


class Hub:
    async def refresh(self, session):
        await session.send_roots_list_changed()

    async def status(self):
        return "notifications/roots/list_changed"
"""
SENDING_CALLER = """
from app.senders import Hub, notify_changed, on_changed, send_roots_list_changed_notification


async def changed(write, hub: Hub, msg):
    await notify_changed(write)
    await hub.refresh(write)
    await on_changed(msg)
    await hub.status()
    await send_roots_list_changed_notification(write)
"""
NOTIFY_HELP = "runs `{}`, a helper of this project that sends `list_changed`"


def _sending_tree(tmp_path, caller: str = SENDING_CALLER):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "senders.py").write_text(SENDERS)
    (tmp_path / "app" / "roots_caller.py").write_text(caller)


def test_rt004_reports_a_call_of_an_imported_sender_by_its_body(tmp_path, monkeypatch):
    """A function and a method of another module whose bodies send list_changed make their calls
    RT004 findings at info; a handler, a function that only says the method, and one named like a
    sender that sends nothing do not."""
    monkeypatch.chdir(tmp_path)
    _sending_tree(tmp_path)
    assert _findings(tmp_path, "app/roots_caller.py") == [
        (6, 11, "RT004", NOTIFY_HELP.format("app.senders.notify_changed")),
        (7, 11, "RT004", NOTIFY_HELP.format("app.senders.Hub.refresh")),
    ]
    findings = check_source((tmp_path / "app/roots_caller.py").read_bytes(), str(tmp_path / "app/roots_caller.py"))
    assert [(f.severity, f.via.path, f.via.owner, f.via.name) for f in findings] == [
        ("info", str(tmp_path / "app" / "senders.py"), None, "notify_changed"),
        ("info", str(tmp_path / "app" / "senders.py"), "Hub", "refresh"),
    ]


def test_rt004_caller_without_a_list_changed_word_through_a_package(tmp_path, monkeypatch):
    """A caller that names nothing of list_changed (the byte screen's second chance) reaches a
    sender re-exported by its package, in a file that mentions MCP (as RT001's screen: a file
    that never says mcp is not read for imported senders, which kept the speed benchmark's
    site-packages from reading every module its files import)."""
    monkeypatch.chdir(tmp_path)
    caller = "from app import notify_changed\n\n\nasync def on_roots(write):\n    await notify_changed(write)\n"
    _sending_tree(tmp_path, "import mcp\n" + caller)
    (tmp_path / "app" / "__init__.py").write_text("from app.senders import notify_changed\n")
    assert _findings(tmp_path, "app/roots_caller.py") == [(6, 11, "RT004", NOTIFY_HELP.format("app.notify_changed"))]
    (tmp_path / "app" / "roots_caller.py").write_text(caller)
    assert _findings(tmp_path, "app/roots_caller.py") == []


def test_rt004_same_file_sender_by_body_and_not_by_name():
    code = textwrap.dedent(
        """
        async def announce(write):
            await write.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})


        async def send_roots_list_changed_notification(write):
            return None


        async def main(write):
            await announce(write)
            await send_roots_list_changed_notification(write)
        """
    ).encode()
    assert [(f.line, f.column, f.code, f.message) for f in check_source(code, "same.py")] == [
        (3, 51, "RT004", "sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision"),
        (11, 11, "RT004", "runs `announce`, a helper in this file that sends roots `list_changed`"),
    ]


def test_rt004_a_function_that_only_registers_a_sending_closure_is_no_helper():
    """mcp-http-proxy's `main()` defines a list_changed handler that forwards the notification
    and registers it: running `main()` sends nothing, so its call is no finding (its suggested
    removal took the entry point with it); a closure `main()` runs itself still makes it one."""
    code = textwrap.dedent(
        """
        from mcp import types


        def main(server, upstream):
            async def forward(notification):
                await upstream.send_roots_list_changed()

            server.notification_handlers[types.RootsListChangedNotification] = forward
            server.run()


        async def sync(loop, upstream):
            async def forward():
                await upstream.send_roots_list_changed()

            loop.run_until_complete(forward())
            await upstream.send_roots_list_changed()


        if __name__ == "__main__":
            main(None, None)
            sync(None, None)
        """
    ).encode()
    found = [(f.line, f.code, f.message) for f in check_source(code, "proxy.py") if f.code == "RT004"]
    assert (22, "RT004", "runs `main`, a helper in this file that sends roots `list_changed`") not in found
    assert (23, "RT004", "runs `sync`, a helper in this file that sends roots `list_changed`") in found


def test_rt004_caller_joined_to_the_helper_in_one_run(tmp_path, monkeypatch):
    """Checked together, the caller is a related location of the helper's own finding."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(tmp_path)
    _sending_tree(tmp_path)
    result = CliRunner().invoke(
        cli, ["check", "--no-cache", "--format", "json", "--exit-zero", "--select", "RT004", "app"]
    )
    findings = json.loads(result.output)["findings"]
    assert [(f["path"], f["line"], f["column"], f.get("related")) for f in findings] == [
        (
            "app/senders.py",
            8,
            51,
            [{"path": "app/roots_caller.py", "line": 6, "column": 11, "message": "called from here"}],
        ),
        (
            "app/senders.py",
            22,
            15,
            [{"path": "app/roots_caller.py", "line": 7, "column": 11, "message": "called from here"}],
        ),
    ]


# ----- SENDS_METHOD_PARAM: a callee of another module decides by its body --------------------------
BUILDERS = """
def _jsonrpc_request(method, *, request_id="1"):
    return {"jsonrpc": "2.0", "id": request_id, "method": method}


def send_request(method):
    return f"not sent: {method}"
"""
BUILDER_CALLER = """
from app.builders import _jsonrpc_request, send_request


def respond(sse_event):
    sse_event(data=_jsonrpc_request("roots/list"))
    sse_event(data=_jsonrpc_request("notifications/roots/list_changed"))
    send_request("roots/list")
    send_request("notifications/roots/list_changed")
"""


def test_an_imported_builder_decides_by_its_body_for_rt001_and_rt004(tmp_path, monkeypatch):
    """`_jsonrpc_request(method)` of another module builds the message it returns: a request
    (RT001) and a notification (RT004); that module's `send_request` only logs: neither."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "builders.py").write_text(BUILDERS)
    (tmp_path / "app" / "server.py").write_text(BUILDER_CALLER)
    assert _findings(tmp_path, "app/server.py") == [
        (6, 37, "RT001", "a `roots/list` request built by hand, deprecated by SEP-2577"),
        (7, 37, "RT004", "sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision"),
    ]


def test_a_module_whose_lines_end_with_a_lone_cr_has_its_effects_on_the_right_functions():
    """The parser ends a line at a lone CR: the token lines are counted the same way."""
    data = b"# helpers\rimport mcp\rdef other():\r    pass\rasync def ask(s):\r    return await s.list_roots()\r"
    assert effects_in(data).doing(ASKS) == {(None, "ask")}
