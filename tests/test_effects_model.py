"""Every effect of the model (issue 35 §1), for every rule that reports it, in the same module and
across modules, with a positive and a negative case each: the exact findings (code, line, column,
message) of the rule on the file that calls, registers or types with the function that has the
effect. The file's own model (vocabulary/file_effects.py) decides one call away in the same file
and, run alone on the other module, across modules; the summary by bytes (vocabulary/effects.py)
decides RT004's imported senders and the builders.

Findings are the engine's per file (`check_bytes`), before callers are joined to their helper's
finding (core.callers): a caller is a finding of its own here, with the Via that joins it."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

import mcp_migrate
from mcp_migrate.api import check_bytes

ASK_HELPER = "runs `{}`, a helper in this file that asks for roots"
ASK_IMPORTED = "runs `{}`, a helper of this project that asks for roots"
RESOLVED = "parameter `{}` is resolved through `{}`, which asks for roots"
NOTIFY_HELPER = "runs `{}`, a helper in this file that sends roots `list_changed`"
NOTIFY_IMPORTED = "runs `{}`, a helper of this project that sends `list_changed`"
ASK_REQUEST = "`ctx.session.list_roots()` asks for roots, deprecated by SEP-2577"
RAW_REQUEST = "a `roots/list` request built by hand, deprecated by SEP-2577"
SEND = "sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision"
HANDLES = "handles `notifications/roots/list_changed`, removed in the 2026-07-28 revision"
HANDLER_DEF = "`{}` handles roots `list_changed`, removed in the 2026-07-28 revision"
PROVIDER_KW = "`list_roots_callback=` supplies roots, deprecated by SEP-2577"
STORE_PARAM = "a `{}` parameter typed `{}`, this project's roots store"

# ----- the modules the cases are made of ------------------------------------------------------------
ASKING = """
from mcp.server.fastmcp import Context


async def fetch_dirs(ctx: Context):
    return await ctx.session.list_roots()


def describe(dirs):
    return ", ".join(dirs)
"""
NOT_ASKING = """
from mcp.server.fastmcp import Context


class Catalogue:
    def list_roots(self):
        return []


async def fetch_dirs(ctx: Context):
    return Catalogue().list_roots()
"""
ASK_CALLER = """
from mcp.server.fastmcp import Context, FastMCP

from app.helpers import fetch_dirs

app = FastMCP("files")


@app.tool()
async def where(ctx: Context) -> str:
    return str(await fetch_dirs(ctx))
"""
ALIAS = """
from typing import Annotated

from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.types import ListRootsResult


def _ask(ctx):
    return ListRoots()


Pinned = Annotated[ListRootsResult, Resolve(_ask)]
"""
ALIAS_NOT_ASKING = """
from typing import Annotated

from mcp.server.mcpserver.resolve import Resolve


def _config(ctx):
    return ["/srv"]


Pinned = Annotated[list, Resolve(_config)]
"""
ALIAS_CALLER = """
from mcp.server.mcpserver import MCPServer

from app.helpers import Pinned

app = MCPServer("files")


@app.tool()
async def where(roots: Pinned) -> str:
    return str(roots)
"""
NOTIFYING = """
import mcp


async def announce(write):
    await write.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
"""
NOT_NOTIFYING = """
import mcp


async def announce(msg):
    if msg["method"] == "notifications/roots/list_changed":
        return True
    return False
"""
NOTIFY_CALLER = """
import mcp

from app.helpers import announce


async def refresh(write):
    await announce(write)
"""
BUILDER = """
import json

import mcp


def _frame(method, rid):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method})
"""
NOT_BUILDER = """
import logging

import mcp


def _frame(method, rid):
    logging.info(f"unexpected {method} ({rid})")
"""
BUILD_CALLER = """
import mcp

from app.helpers import _frame


def ask(rid):
    return _frame("roots/list", rid)


def changed(rid):
    return _frame("notifications/roots/list_changed", rid)
"""
PROVIDER = """
from mcp import ClientSession


async def provide(context):
    return []
"""
PROVIDER_CALLER = """
from mcp import ClientSession

from app.helpers import provide


def connect(read, write):
    return ClientSession(read, write, list_roots_callback=provide)
"""
HANDLER = """
import mcp


async def on_changed(notification):
    print(notification)
"""
HANDLER_CALLER = """
from mcp.server.lowlevel import Server

from app.helpers import on_changed


def wire(server: Server):
    server.add_notification_handler("notifications/roots/list_changed", on_changed)
"""
STORE = """
from mcp.types import Root


class RootsStore:
    def __init__(self) -> None:
        self._roots: list = []

    def add_root(self, uri: str) -> None:
        self._roots.append(Root(uri=uri))

    def all(self) -> list:
        return list(self._roots)
"""
NOT_STORE = (
    STORE
    + """
    def send(self, message: dict) -> None:
        print(message)
"""
)
STORE_CALLER = """
from mcp.types import Root

from app.helpers import RootsStore


def serve(store: RootsStore) -> list:
    return store.all()


def main() -> None:
    store = RootsStore()
    store.add_root("file:///srv/repo")
    serve(store=store)
"""


def _same(helper: str, caller: str) -> str:
    """One module: the helper's code, then the caller's without its import of the helper."""
    body = "\n".join(line for line in caller.splitlines() if not line.startswith("from app.helpers import"))
    return helper + "\n" + body


def _findings(tmp_path, monkeypatch, files: dict, checked: str, code: str) -> list:
    """The findings of `code` on `checked`, a file of a package `app` made of `files`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / "app" / name).write_text(textwrap.dedent(text))
    path = tmp_path / "app" / checked
    result = check_bytes(path.read_bytes(), str(path))
    return [(f.code, f.line, f.column, f.message) for f in result.findings if f.code == code]


# (effect, rule, where, case) -> (files of the package `app`, the file checked)
CASES = {
    ("asks", "RT001", "same", "positive"): ({"server.py": _same(ASKING, ASK_CALLER)}, "server.py"),
    ("asks", "RT001", "same", "negative"): ({"server.py": _same(NOT_ASKING, ASK_CALLER)}, "server.py"),
    ("asks", "RT001", "across", "positive"): ({"helpers.py": ASKING, "server.py": ASK_CALLER}, "server.py"),
    ("asks", "RT001", "across", "negative"): ({"helpers.py": NOT_ASKING, "server.py": ASK_CALLER}, "server.py"),
    ("asks-alias", "RT001", "same", "positive"): ({"server.py": _same(ALIAS, ALIAS_CALLER)}, "server.py"),
    ("asks-alias", "RT001", "same", "negative"): ({"server.py": _same(ALIAS_NOT_ASKING, ALIAS_CALLER)}, "server.py"),
    ("asks-alias", "RT001", "across", "positive"): ({"helpers.py": ALIAS, "server.py": ALIAS_CALLER}, "server.py"),
    ("asks-alias", "RT001", "across", "negative"): (
        {"helpers.py": ALIAS_NOT_ASKING, "server.py": ALIAS_CALLER},
        "server.py",
    ),
    ("notifies", "RT004", "same", "positive"): ({"client.py": _same(NOTIFYING, NOTIFY_CALLER)}, "client.py"),
    ("notifies", "RT004", "same", "negative"): ({"client.py": _same(NOT_NOTIFYING, NOTIFY_CALLER)}, "client.py"),
    ("notifies", "RT004", "across", "positive"): ({"helpers.py": NOTIFYING, "client.py": NOTIFY_CALLER}, "client.py"),
    ("notifies", "RT004", "across", "negative"): (
        {"helpers.py": NOT_NOTIFYING, "client.py": NOTIFY_CALLER},
        "client.py",
    ),
    ("sends-method-param", "RT001", "same", "positive"): ({"peer.py": _same(BUILDER, BUILD_CALLER)}, "peer.py"),
    ("sends-method-param", "RT001", "same", "negative"): ({"peer.py": _same(NOT_BUILDER, BUILD_CALLER)}, "peer.py"),
    ("sends-method-param", "RT001", "across", "positive"): (
        {"helpers.py": BUILDER, "peer.py": BUILD_CALLER},
        "peer.py",
    ),
    ("sends-method-param", "RT001", "across", "negative"): (
        {"helpers.py": NOT_BUILDER, "peer.py": BUILD_CALLER},
        "peer.py",
    ),
    ("sends-method-param", "RT004", "same", "positive"): ({"peer.py": _same(BUILDER, BUILD_CALLER)}, "peer.py"),
    ("sends-method-param", "RT004", "same", "negative"): ({"peer.py": _same(NOT_BUILDER, BUILD_CALLER)}, "peer.py"),
    ("sends-method-param", "RT004", "across", "positive"): (
        {"helpers.py": BUILDER, "peer.py": BUILD_CALLER},
        "peer.py",
    ),
    ("sends-method-param", "RT004", "across", "negative"): (
        {"helpers.py": NOT_BUILDER, "peer.py": BUILD_CALLER},
        "peer.py",
    ),
    ("provides", "RT002", "same", "positive"): ({"client.py": _same(PROVIDER, PROVIDER_CALLER)}, "client.py"),
    ("provides", "RT002", "same", "negative"): ({"client.py": PROVIDER_CALLER}, "client.py"),
    ("provides", "RT002", "across", "positive"): ({"helpers.py": PROVIDER, "client.py": PROVIDER_CALLER}, "helpers.py"),
    ("provides", "RT002", "across", "negative"): ({"helpers.py": PROVIDER, "client.py": PROVIDER_CALLER}, "client.py"),
    ("handles", "RT005", "same", "positive"): ({"server.py": _same(HANDLER, HANDLER_CALLER)}, "server.py"),
    ("handles", "RT005", "same", "negative"): ({"server.py": HANDLER_CALLER}, "server.py"),
    ("handles", "RT005", "across", "positive"): ({"helpers.py": HANDLER, "server.py": HANDLER_CALLER}, "helpers.py"),
    ("handles", "RT005", "across", "negative"): ({"helpers.py": HANDLER, "server.py": HANDLER_CALLER}, "server.py"),
    ("stores", "RT002", "same", "positive"): ({"host.py": _same(STORE, STORE_CALLER)}, "host.py"),
    ("stores", "RT002", "same", "negative"): ({"host.py": _same(NOT_STORE, STORE_CALLER)}, "host.py"),
    ("stores", "RT002", "across", "positive"): ({"helpers.py": STORE, "host.py": STORE_CALLER}, "host.py"),
    ("stores", "RT002", "across", "negative"): ({"helpers.py": NOT_STORE, "host.py": STORE_CALLER}, "host.py"),
}

ASKING_TYPES_HELP = "era-portable roots request (ListRoots resolver marker), deprecated by SEP-2577"
SETTER_CALL = "supplies roots through `add_root`, this project's roots setter"

#: The rule's findings on the checked file, for each case (the rule is the key's second item).
EXPECTED = {
    ("asks", "RT001", "same", "positive"): [
        (6, 18, ASK_REQUEST),
        (21, 22, ASK_HELPER.format("fetch_dirs")),
    ],
    ("asks", "RT001", "same", "negative"): [],  # a project class's own list_roots, unawaited
    ("asks", "RT001", "across", "positive"): [(11, 22, ASK_IMPORTED.format("app.helpers.fetch_dirs"))],
    ("asks", "RT001", "across", "negative"): [],
    ("asks-alias", "RT001", "same", "positive"): [
        (9, 12, ASKING_TYPES_HELP),
        (22, 17, RESOLVED.format("roots", "Pinned")),
    ],
    ("asks-alias", "RT001", "same", "negative"): [],  # the resolver reads configuration
    ("asks-alias", "RT001", "across", "positive"): [(10, 17, RESOLVED.format("roots", "app.helpers.Pinned"))],
    ("asks-alias", "RT001", "across", "negative"): [],
    ("notifies", "RT004", "same", "positive"): [(6, 51, SEND), (14, 11, NOTIFY_HELPER.format("announce"))],
    ("notifies", "RT004", "same", "negative"): [],  # a handler compares the method (RT005's)
    ("notifies", "RT004", "across", "positive"): [(8, 11, NOTIFY_IMPORTED.format("app.helpers.announce"))],
    ("notifies", "RT004", "across", "negative"): [],
    # The method given to a project function whose body makes it a message's method.
    ("sends-method-param", "RT001", "same", "positive"): [(16, 19, RAW_REQUEST)],
    ("sends-method-param", "RT001", "same", "negative"): [],  # the method only formatted into a log line
    ("sends-method-param", "RT001", "across", "positive"): [(8, 19, RAW_REQUEST)],
    ("sends-method-param", "RT001", "across", "negative"): [],
    ("sends-method-param", "RT004", "same", "positive"): [(20, 19, SEND)],
    ("sends-method-param", "RT004", "same", "negative"): [],
    ("sends-method-param", "RT004", "across", "positive"): [(12, 19, SEND)],
    ("sends-method-param", "RT004", "across", "negative"): [],
    # A registered callable's `def` is a provider in its own file: the registration is the site
    # in the file that registers; a `def` in another module is not reported from there (a check
    # is per file: the registering file is not known when the defining one is checked).
    ("provides", "RT002", "same", "positive"): [
        (5, 11, "`provide` supplies roots, deprecated by SEP-2577"),
        (14, 39, PROVIDER_KW),
    ],
    ("provides", "RT002", "same", "negative"): [(8, 39, PROVIDER_KW)],  # registered, defined elsewhere
    ("provides", "RT002", "across", "positive"): [],  # the defining module alone says nothing
    ("provides", "RT002", "across", "negative"): [(8, 39, PROVIDER_KW)],
    ("handles", "RT005", "same", "positive"): [(5, 11, HANDLER_DEF.format("on_changed")), (14, 5, HANDLES)],
    ("handles", "RT005", "same", "negative"): [(8, 5, HANDLES)],
    ("handles", "RT005", "across", "positive"): [],
    ("handles", "RT005", "across", "negative"): [(8, 5, HANDLES)],
    # A roots store (every method a setter or a getter of what the setters store): a parameter
    # typed with it is a way in, in its module and one import away; a class with other work is none.
    ("stores", "RT002", "same", "positive"): [
        (9, 9, "`add_root` hands roots to this project's client, deprecated by SEP-2577"),
        (12, 9, "`all` supplies roots, deprecated by SEP-2577"),
        (20, 11, STORE_PARAM.format("store", "RootsStore")),
        (26, 5, SETTER_CALL),
    ],
    ("stores", "RT002", "same", "negative"): [
        (9, 9, "`add_root` hands roots to this project's client, deprecated by SEP-2577"),
        (29, 5, SETTER_CALL),
    ],
    ("stores", "RT002", "across", "positive"): [
        (7, 11, STORE_PARAM.format("store", "RootsStore")),
        (13, 5, SETTER_CALL),
        (14, 11, "`store` hands on `RootsStore`, this project's roots store"),
    ],
    ("stores", "RT002", "across", "negative"): [(13, 5, SETTER_CALL)],
}


def test_every_effect_has_both_cases_in_both_places_for_each_rule():
    """The table is whole: each (effect, rule) has a positive and a negative case, in the same
    module and across modules, and each case its expected findings."""
    pairs = {(effect, rule) for effect, rule, _, _ in CASES}
    assert set(CASES) == {(e, r, w, c) for e, r in pairs for w in ("same", "across") for c in ("positive", "negative")}
    assert set(EXPECTED) == set(CASES)
    assert {effect for effect, _ in pairs} == {
        "asks",
        "asks-alias",
        "notifies",
        "sends-method-param",
        "provides",
        "handles",
        "stores",
    }


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda case: "-".join(case))
def test_effect_findings(case, tmp_path, monkeypatch):
    files, checked = CASES[case]
    code = case[1]
    expected = [(code, line, column, message) for line, column, message in EXPECTED[case]]
    assert _findings(tmp_path, monkeypatch, files, checked, code) == expected


def _vias(tmp_path, monkeypatch, case) -> list:
    files, checked = CASES[case]
    _findings(tmp_path, monkeypatch, files, checked, case[1])
    path = tmp_path / "app" / checked
    result = check_bytes(path.read_bytes(), str(path))
    return [
        (f.line, f.via.code, f.via.path, f.via.owner, f.via.name)
        for f in result.findings
        if f.code == case[1] and f.via is not None
    ]


def test_a_caller_leads_to_its_helper_in_the_same_file(tmp_path, monkeypatch):
    """The caller's Via names the helper by its key in this file (core.callers joins it)."""
    assert _vias(tmp_path, monkeypatch, ("asks", "RT001", "same", "positive")) == [
        (21, "RT001", "", None, "fetch_dirs")
    ]


def test_a_caller_leads_to_its_helper_in_another_module(tmp_path, monkeypatch):
    assert _vias(tmp_path, monkeypatch, ("asks", "RT001", "across", "positive")) == [
        (11, "RT001", str(tmp_path / "app" / "helpers.py"), None, "fetch_dirs")
    ]
    shutil.rmtree(tmp_path / "app")
    assert _vias(tmp_path, monkeypatch, ("notifies", "RT004", "across", "positive")) == [
        (8, "RT004", str(tmp_path / "app" / "helpers.py"), None, "announce")
    ]


RULES = Path(mcp_migrate.__file__).parent / "rules"


def test_no_rule_keeps_its_own_helper_walker():
    """Helper following reads the file's model (vocabulary/file_effects.py): no rule notes the
    file's calls, defs or registrations in a table of its own, and the old walkers are gone."""
    for path in sorted(RULES.glob("*.py")):
        text = path.read_text()
        for word in ("SameFileHelpers", "run_alone", "rt005_defs", "_defined", "_wired", "function_key("):
            assert word not in text, (path.name, word)
    for name in (
        "rt001_roots_request.py",
        "rt002_roots_provider.py",
        "rt004_list_changed_send.py",
        "rt005_list_changed_handler.py",
    ):
        assert "file_effects(" in (RULES / name).read_text(), name
