"""Every effect of the model (issue 35 §1), for every rule that reports it, in the same module and
across modules, with a positive and a negative case each: the exact findings (code, line, column,
message) of the rule on the file that calls, registers or types with the function that has the
effect. The file's own model (vocabulary/file_effects.py) decides one call away in the same file
and, run alone on the other module, across modules; the summary by bytes (vocabulary/effects.py)
decides RT004's imported senders and the builders; RT103's gates across modules are its own
answer on the other module run alone (vocabulary/gates_across.py); HA001's hint -> approval
decision is followed through its module (vocabulary/hint_flow.py), not across modules.

Findings are the engine's per file (`check_bytes`), before callers are joined to their helper's
finding (core.callers): a caller is a finding of its own here, with the Via that joins it."""

from __future__ import annotations

import ast
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
GATE = """
from pathlib import Path


def within(candidate: str, dirs: list) -> bool:
    return any(Path(d).resolve() in Path(candidate).resolve().parents for d in dirs)
"""
NOT_GATE = """
from pathlib import Path


def within(candidate: str, dirs: list) -> bool:
    print(candidate, len(dirs))
    return Path(candidate).exists()
"""
GATE_CALLER = """
from mcp.server.fastmcp import Context

from app.helpers import within


async def check(ctx: Context, path: str) -> bool:
    listed = await ctx.session.list_roots()
    if not within(path, [str(r.uri) for r in listed.roots]):
        raise PermissionError(path)
    return True
"""
HELD = """
from pathlib import Path

from mcp import types


class PathGuard:
    def __init__(self, roots: tuple[types.Root, ...]) -> None:
        self._paths = tuple(Path(str(r.uri)).resolve() for r in roots)

    def contains(self, candidate: str) -> bool:
        path = Path(candidate).resolve()
        return any(path == p or p in path.parents for p in self._paths)
"""
NOT_HELD = """
from pathlib import Path

from mcp import types


class PathGuard:
    def __init__(self, dirs: list[str]) -> None:
        self._paths = tuple(Path(d).resolve() for d in dirs)

    def contains(self, candidate: str) -> bool:
        path = Path(candidate).resolve()
        return any(path == p or p in path.parents for p in self._paths)
"""
HELD_CALLER = """
from mcp.server.fastmcp import Context

from app.helpers import PathGuard


async def read(ctx: Context, guard: PathGuard, path: str) -> str:
    if not guard.contains(path):
        raise PermissionError(path)
    return str(await ctx.session.list_roots())
"""
HINT_ACCESSOR = """
def flag(tool, key: str, default: bool = False) -> bool:
    annotations = tool.annotations or {}
    return bool(getattr(annotations, key, default))
"""
HINT_DECIDER = """
from app.helpers import flag


def needs_permission(tool) -> bool:
    return not flag(tool, "readOnlyHint")
"""
HINT_BADGE = """
from app.helpers import flag


def badge(tool) -> str:
    return "read-only" if flag(tool, "readOnlyHint") else ""
"""
HINT_RETURNED = """
def trust_of(tool):
    safe = getattr(tool.annotations, "readOnlyHint", None)
    return ("high" if safe is True else "low", safe is True)
"""
NOT_HINT_RETURNED = """
def trust_of(tool):
    safe = getattr(tool.meta, "trusted", None)
    return ("high" if safe is True else "low", safe is True)
"""
HINT_LABEL_GATE = """
from app.helpers import trust_of


def tag(tool, meta: dict) -> None:
    level, runs_tainted = trust_of(tool)
    meta["runs_tainted"] = runs_tainted


def check(meta: dict, name: str, tainted: bool) -> None:
    if tainted and not meta.get("runs_tainted", False):
        raise PermissionError(name)
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
    ("gates", "RT103", "same", "positive"): ({"server.py": _same(GATE, GATE_CALLER)}, "server.py"),
    ("gates", "RT103", "same", "negative"): ({"server.py": _same(NOT_GATE, GATE_CALLER)}, "server.py"),
    ("gates", "RT103", "across", "positive"): ({"helpers.py": GATE, "server.py": GATE_CALLER}, "server.py"),
    ("gates", "RT103", "across", "negative"): ({"helpers.py": NOT_GATE, "server.py": GATE_CALLER}, "server.py"),
    ("gates-held", "RT103", "same", "positive"): ({"server.py": _same(HELD, HELD_CALLER)}, "server.py"),
    ("gates-held", "RT103", "same", "negative"): ({"server.py": _same(NOT_HELD, HELD_CALLER)}, "server.py"),
    ("gates-held", "RT103", "across", "positive"): ({"helpers.py": HELD, "server.py": HELD_CALLER}, "server.py"),
    ("gates-held", "RT103", "across", "negative"): ({"helpers.py": NOT_HELD, "server.py": HELD_CALLER}, "server.py"),
    ("approves-by-hint", "HA001", "same", "positive"): ({"host.py": _same(HINT_ACCESSOR, HINT_DECIDER)}, "host.py"),
    ("approves-by-hint", "HA001", "same", "negative"): ({"host.py": _same(HINT_ACCESSOR, HINT_BADGE)}, "host.py"),
    ("approves-by-hint", "HA001", "across", "positive"): (
        {"helpers.py": HINT_ACCESSOR, "host.py": HINT_DECIDER},
        "host.py",
    ),
    ("approves-by-hint", "HA001", "across", "negative"): (
        {"helpers.py": HINT_ACCESSOR, "host.py": HINT_BADGE},
        "host.py",
    ),
    ("approves-by-hint-flow", "HA001", "same", "positive"): (
        {"host.py": _same(HINT_RETURNED, HINT_LABEL_GATE)},
        "host.py",
    ),
    ("approves-by-hint-flow", "HA001", "same", "negative"): (
        {"host.py": _same(NOT_HINT_RETURNED, HINT_LABEL_GATE)},
        "host.py",
    ),
}

#: (effect, rule) reported in the same module only, and why (no across case is invented for it).
SAME_MODULE_ONLY = {
    ("approves-by-hint-flow", "HA001"): "HA001 follows a hint-derived value through its own module"
    " (vocabulary/hint_flow.py: returns, tuples, labels, properties); it does not follow one across modules",
}

ASKING_TYPES_HELP = "era-portable roots request (ListRoots resolver marker), deprecated by SEP-2577"
SETTER_CALL = "supplies roots through `add_root`, this project's roots setter"
GATE_REFUSES = "refuses access unless `{}` finds the path in client roots"
HINT_DECIDES = "untrusted hint `{}` decides `{}()`, which approves calls"

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
    # A gate on the roots its caller hands it: the caller's refusal is the decision, and in the
    # same module the check inside the helper is reported too; a helper that only logs the
    # roots decides nothing.
    ("gates", "RT103", "same", "positive"): [
        (6, 16, "`Path(d).resolve() in Path(...` is an access check against client roots"),
        (15, 12, GATE_REFUSES.format("within")),
    ],
    ("gates", "RT103", "same", "negative"): [],
    ("gates", "RT103", "across", "positive"): [(9, 12, GATE_REFUSES.format("within"))],
    ("gates", "RT103", "across", "negative"): [],
    # A gate on roots its class holds (built from the SDK's `Root`): across modules the caller's
    # refusal is reported (the other module run alone names `PathGuard.contains` a gate); in the
    # same module the class's own allow-list and check are, not the caller's refusal through a
    # parameter typed with the class. A guard built from configured directories decides nothing.
    ("gates-held", "RT103", "same", "positive"): [
        (9, 9, "`self._paths = tuple(Path(str(r...` keeps client roots as the allow-list `self._paths`"),
        (13, 33, "`p in path.parents` is an access check against client roots"),
    ],
    ("gates-held", "RT103", "same", "negative"): [],
    ("gates-held", "RT103", "across", "positive"): [(8, 12, GATE_REFUSES.format("PathGuard.contains"))],
    ("gates-held", "RT103", "across", "negative"): [],
    # A hint read through an accessor that takes the key as a string: the read is the call
    # (`flag(tool, "readOnlyHint")`), wherever the accessor is defined; it is a finding where an
    # approval decision reads it, not in a badge.
    ("approves-by-hint", "HA001", "same", "positive"): [
        (10, 16, HINT_DECIDES.format("readOnlyHint", "needs_permission"))
    ],
    ("approves-by-hint", "HA001", "same", "negative"): [],
    ("approves-by-hint", "HA001", "across", "positive"): [
        (6, 16, HINT_DECIDES.format("readOnlyHint", "needs_permission"))
    ],
    ("approves-by-hint", "HA001", "across", "negative"): [],
    # A hint returned in a tuple, unpacked into a label another function's refusal reads: the
    # finding is where the hint becomes the value that leaves its function.
    ("approves-by-hint-flow", "HA001", "same", "positive"): [
        (4, 48, "untrusted hint `readOnlyHint` reaches a gate via `runs_tainted`")
    ],
    ("approves-by-hint-flow", "HA001", "same", "negative"): [],  # a project field, not a hint
}


def test_every_effect_has_both_cases_in_both_places_for_each_rule():
    """The table is whole: each (effect, rule) has a positive and a negative case, in the same
    module and across modules (in the same module only where the rule follows it no further:
    SAME_MODULE_ONLY), and each case its expected findings."""
    pairs = {(effect, rule) for effect, rule, _, _ in CASES}
    assert set(SAME_MODULE_ONLY) <= pairs
    assert set(CASES) == {
        (e, r, w, c)
        for e, r in pairs
        for w in (("same",) if (e, r) in SAME_MODULE_ONLY else ("same", "across"))
        for c in ("positive", "negative")
    }
    assert set(EXPECTED) == set(CASES)
    assert pairs == {
        ("asks", "RT001"),
        ("asks-alias", "RT001"),
        ("notifies", "RT004"),
        ("sends-method-param", "RT001"),
        ("sends-method-param", "RT004"),
        ("provides", "RT002"),
        ("handles", "RT005"),
        ("stores", "RT002"),
        ("gates", "RT103"),
        ("gates-held", "RT103"),
        ("approves-by-hint", "HA001"),
        ("approves-by-hint-flow", "HA001"),
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


#: What reading another module or walking a flow takes: a rule that does it keeps a walker of its
#: own beside the model (the model's modules do it once, for every rule).
_READS_ANOTHER_MODULE = (
    "ast.parse(",
    "cst.parse_module(",
    "read_syntax",
    "check_bytes",
    "run_rules(",
    "project_view.read",
)
#: The statement kinds a flow walker dispatches on (the engine's one walk visits them instead).
_STATEMENT_KINDS = frozenset({"If", "While", "For", "Try", "With"})


def _reads_and_walkers(path: Path) -> list:
    """What in a module under rules/ reads another module or walks a flow of its own: a text
    that parses or checks bytes, an import of the project view's or the screen's `read`, and a
    function that dispatches on three statement kinds or more (`type(stmt) is cst.If`, `cst.For`,
    `cst.Try`: a walker over blocks, as `Flow._stmt` was)."""
    text = path.read_text(encoding="utf-8")
    found = [word for word in _READS_ANOTHER_MODULE if word in text]
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in (
            "mcp_migrate.core.project_view",
            "mcp_migrate.core.screen",
        ):
            found += [f"{node.module}.read" for alias in node.names if alias.name == "read"]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kinds = {
                n.attr
                for n in ast.walk(node)
                if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name)
                and n.value.id in ("cst", "ast")
                and n.attr in _STATEMENT_KINDS
            }
            if len(kinds) >= 3:
                found.append(f"{node.name}: a walker over {sorted(kinds)}")
    return found


def test_no_rule_keeps_its_own_helper_walker():
    """Helper following reads the file's model (vocabulary/file_effects.py): no rule notes the
    file's calls, defs or registrations in a table of its own, and the old walkers are gone. No
    module under rules/ reads another module (parses it, checks it, reads its bytes: the model's
    readers do, core.project_types and file_effects.rule_alone) or walks a value's flow itself
    (vocabulary/hint_flow.py, vocabulary/roots_origin.py do); RT103 and HA001 report from the
    model's gates across modules and hint -> approval decision."""
    for path in sorted(RULES.glob("*.py")):
        text = path.read_text()
        for word in ("SameFileHelpers", "run_alone", "rt005_defs", "_defined", "_wired", "function_key("):
            assert word not in text, (path.name, word)
    for path in sorted(RULES.rglob("*.py")):
        assert _reads_and_walkers(path) == [], path.relative_to(RULES)
    for name in (
        "rt001_roots_request.py",
        "rt002_roots_provider.py",
        "rt004_list_changed_send.py",
        "rt005_list_changed_handler.py",
    ):
        assert "file_effects(" in (RULES / name).read_text(), name
    assert "from mcp_migrate.vocabulary import gates_across" in (RULES / "rt103_roots_as_sandbox.py").read_text()
    assert "from mcp_migrate.vocabulary.hint_flow import" in (RULES / "ha001_annotation_trust.py").read_text()


def test_the_walker_test_sees_a_reader_and_a_flow_walker(tmp_path):
    """The guard above can fail: a rule module that reads another module with `check_bytes` and
    the project view's `read`, or that keeps a statement walker, is caught."""
    reader = tmp_path / "reader.py"
    reader.write_text(
        "from mcp_migrate.core.engine import check_bytes\nfrom mcp_migrate.core.project_view import ProjectView, read\n"
    )
    assert _reads_and_walkers(reader) == ["check_bytes", "mcp_migrate.core.project_view.read"]
    walker = tmp_path / "walker.py"
    walker.write_text(
        "import libcst as cst\n\n\ndef _stmt(stmt):\n"
        "    if type(stmt) is cst.If:\n        pass\n    elif type(stmt) is cst.For:\n        pass\n"
        "    elif type(stmt) is cst.Try:\n        pass\n"
    )
    assert _reads_and_walkers(walker) == ["_stmt: a walker over ['For', 'If', 'Try']"]
