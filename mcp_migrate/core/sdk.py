"""What the MCP SDKs and the libraries built on them are called, and what counts as MCP code:
said once, here.

Every package name and every SDK class name a rule or rewrite matches lives here; rules ask
these names and predicates instead of keeping lists of their own. "Is this file MCP code, and
which side?" is answered by `file_evidence` (FileContext.evidence), from evidence in the file
and beside it, in order of strength: imports of an SDK or of any module whose path has `mcp` as
a word part; spec-named Roots types from whatever module; the Roots wire (method strings,
JSON-RPC envelopes, a capability `roots` holding `listChanged`); the file's place (a package
folder named for MCP); a project module it imports that is MCP code by the same evidence. A
framework known by name is only a shortcut: the same code in an unknown package is found the
same way.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from mcp_migrate.core.codes import DEFAULT_MAX_FILE_SIZE
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.line_scan import starts_a_line
from mcp_migrate.core.modules import imported_module_file

# ----- packages --------------------------------------------------------------------------------
#: Top-level packages that make up an MCP SDK.
MCP = "mcp"
FASTMCP = "fastmcp"
SDK_PACKAGES = frozenset({MCP, "mcp_types", FASTMCP})
#: Agent frameworks built on an MCP SDK: code importing them is MCP code too (a shortcut: the
#: same code in an unknown package is found from what it does).
HOST_FRAMEWORKS = frozenset({"mcp_agent", "fast_agent"})
#: Host libraries with their own MCP client or approval API.
PYDANTIC_AI = "pydantic_ai"
OPENAI_AGENTS = "agents"
#: Packages whose clients take `roots=` (fastmcp's Client; pydantic-ai's MCP toolsets forward it).
ROOTS_KWARG_PACKAGES = frozenset({FASTMCP, PYDANTIC_AI})
#: The module that holds the SDK's protocol types, for imports a rewrite adds.
TYPES_MODULE = "mcp.types"


def in_package(qualified: str | None, package: str) -> bool:
    """`qualified` names something inside `package` (`fastmcp.client.Client` in `fastmcp`)."""
    if not qualified:
        return False
    return qualified == package or qualified.startswith(package + ".")


def sdk_symbol(qname: str | None, packages=SDK_PACKAGES) -> str | None:
    """The last component of a qualified name that lives in an MCP SDK package, else None.

    Matching by package root plus symbol name survives re-exports (`mcp.types.Root` is
    `mcp_types.Root`; FastMCP re-exports the SDK's types)."""
    if not qname:
        return None
    root, _, rest = qname.partition(".")
    if root not in packages or not rest:
        return None
    return qname.rpartition(".")[2]


def mcp_module(qualified: str) -> bool:
    """An MCP SDK or host package, or any module whose dotted path has `mcp` as a word part:
    a component that is `mcp`, starts or ends with it, or holds it between underscores
    (`acme_mcp.types`, `mcp_client.session`, `mcprelay`, `myapp.mcp.tools`, `fastmcp`)."""
    parts = qualified.split(".")
    return parts[0] in SDK_PACKAGES or parts[0] in HOST_FRAMEWORKS or any(_mcp_word(p) for p in parts if p)


def _mcp_word(part: str) -> bool:
    lowered = part.lower()
    return lowered.startswith(MCP) or lowered.endswith(MCP) or f"_{MCP}_" in lowered


def mcp_named_module(qualified: str) -> bool:
    """Kept for the resolver's import note: the same answer as `mcp_module`."""
    return mcp_module(qualified)


def sdk_or_framework(qualified: str) -> bool:
    """A type from an MCP SDK or a host framework (a session whatever its annotation says)."""
    return qualified.startswith((MCP, FASTMCP))


#: An import of a module whose name holds `mcp`, at a line's start (core.line_scan).
_MCP_IMPORT = lazy_compile(rb"(?:from|import)[ \t]+[\w.]*(?:mcp|MCP|Mcp)")


def mentions_mcp(data: bytes) -> bool:
    """Any mention of MCP in a file's bytes (`mcp`, `MCP` or `Mcp`): the cheapest "may be MCP
    code" test, for screens that would otherwise read other modules (a `*_roots(` helper call,
    an imported helper that sends list_changed) for every file of a large tree (sympy's
    `dup_isolate_real_roots(...)`), and for the resolver's project types. Three searches for a
    substring, not one regular expression: `re` tries its alternation at every byte, about
    2.5 times slower over a file without MCP (issue 37: 17 against 7 ms over the 50 files of the
    standard library that open the gate), and the screens of one file ask this several times, so
    the last answer is kept, like `mcp_file`'s."""
    held_data, held = _MENTIONS_LAST[0]  # one read: the answer and the bytes it is of
    if held_data is data:
        return held
    found = b"mcp" in data or b"MCP" in data or b"Mcp" in data
    _MENTIONS_LAST[0] = (data, found)
    return found


_MENTIONS_LAST: list = [(None, False)]


def mcp_file(data: bytes) -> bool:
    """Does this file import from a module whose name holds `mcp` (the SDK, fastmcp,
    `agents.mcp`, `pydantic_ai.mcp`, ADK's `mcp_tool`, a project's own `*_mcp` package)? The
    security rules look only there: their patterns (`x[7:]`, `path.startswith(root)`) are
    everywhere in other code, and parsing it all would be most of a run's cost."""
    # The gate, a rule's scope and the file's evidence ask of the same bytes: one read of the pair.
    held_data, held = _MCP_FILE_LAST[0]
    if held_data is data:
        return held
    found = mentions_mcp(data) and starts_a_line(_MCP_IMPORT, data)
    _MCP_FILE_LAST[0] = (data, found)
    return found


_MCP_FILE_LAST: list = [(None, False)]


def mcp_folder(path: str) -> bool:
    """The file sits in a folder whose name has `mcp` as a word part (`mcp/`, `acme_mcp/`,
    `mcp_server/`)."""
    return any(_mcp_word(part) for part in re.split(r"[\\/]", path)[:-1] if part not in ("", ".", ".."))


#: Prefix for rule examples whose scope is MCP code.
EXAMPLE_IMPORT = "from mcp.server.fastmcp import FastMCP\n"

# ----- sessions, contexts, servers -----------------------------------------------------------------
#: Generic session type for `<something>.session` whose side (client or server) is unknown:
#: `mcp.shared.session.BaseSession` is the SDK base class of both ClientSession and ServerSession.
BASE_SESSION = "mcp.shared.session.BaseSession"
SERVER_SESSION = "mcp.server.session.ServerSession"
CLIENT_SESSION = "mcp.client.session.ClientSession"
REQUEST_CONTEXT = "mcp.shared.context.RequestContext"
CLIENT_CAPABILITIES = "mcp.types.ClientCapabilities"
LOWLEVEL_SERVER = "mcp.server.lowlevel.Server"
#: SDK context classes whose `.session` is the server's session.
SERVER_CONTEXTS = frozenset({"Context", "ServerRequestContext"})
#: SDK classes whose `.session` is a client session.
CLIENT_OWNERS = frozenset({"ClientRequestContext", "Client", "ProxyClient"})
#: SDK server classes (and contexts) with a `get_context()` / `request_context`.
SERVER_APPS = frozenset({"FastMCP", "MCPServer", "Server"})
#: High-level servers whose `.tool` decorator registers tools (and that hold a low-level Server).
TOOL_SERVERS = frozenset({"FastMCP", "MCPServer"})
#: Every server class a module-level configuration may follow.
SERVER_CLASSES = frozenset({"FastMCP", "MCPServer", "Server", "LowLevelServer"})
#: Context classes a tool takes as its `ctx` parameter.
CONTEXT_CLASSES = frozenset({"Context", "ServerRequestContext", "RequestContext"})
#: Receivers whose `list_roots()` asks the client (server side).
SERVER_RECEIVERS = frozenset({"ServerSession", "ClientPeer", "Context", "Connection"})
#: Receivers that supply roots or send list_changed (client side).
CLIENT_RECEIVERS = frozenset({"ClientSession", "Client", "ProxyClient", "ClientSessionGroup"})
#: fastmcp clients that take `roots=`.
FASTMCP_CLIENTS = frozenset({"Client", "ProxyClient"})
#: The stdio launch parameters a client can hand directories to (`env=`).
STDIO_PARAMETERS = "StdioServerParameters"

# ----- Roots protocol types ------------------------------------------------------------------------
ROOT = "Root"
LIST_ROOTS_RESULT = "ListRootsResult"
#: The SDK types whose values are roots (the last identifier of an annotation's names).
ROOT_TYPES = frozenset({ROOT, LIST_ROOTS_RESULT})
#: Protocol types a project defines when it re-implements the client side of Roots.
ROOTS_TYPE_NAMES = frozenset({"ListRootsRequest", "ListRootsResult", "RootsListChangedNotification"})
#: Types whose presence in a signature means "this asks for roots" (v2's resolver marker too).
ASKING_TYPES = frozenset({"ListRoots", "ListRootsRequest"})
#: Types of a roots provider (fastmcp's RootsList / RootsHandler, the SDK's callback type).
PROVIDER_TYPES = frozenset({"RootsList", "RootsHandler", "ListRootsFnT"})
#: The `RequestContext` as fastmcp's roots module re-exports it beside `RootsHandler` (its docs
#: write a roots callback `async def cb(context: RequestContext) -> list[str]` with it): a
#: function that takes it from there is a roots handler, whatever it returns.
ROOTS_HANDLER_CONTEXT = "fastmcp.client.roots.RequestContext"
#: Envelopes that wrap a request or a notification (v1's ServerRequest(ListRootsRequest())).
REQUEST_WRAPPERS = frozenset({"ServerRequest"})
NOTIFICATION_WRAPPERS = frozenset({"ClientNotification"})
#: pydantic URL types root URIs are given as.
URL_TYPES = frozenset({"FileUrl", "AnyUrl", "AnyHttpUrl", "HttpUrl", "Url"})
#: The URL types a `file://` root may be written with (HttpUrl cannot hold one).
FILE_URL_TYPES = URL_TYPES - {"HttpUrl"}
#: What a `Root(...)` or its URI may be built with, as the SDK names them.
ROOT_BUILDERS = frozenset({ROOT, "FileUrl"})


# ----- the evidence that a file is MCP code ----------------------------------------------------------
#: The spec's Roots type names: a class of that name, or a name imported from any module,
#: makes the code that uses it Roots code whatever its package is called.
SPEC_ROOTS_TYPES = frozenset(
    {"ListRootsRequest", "ListRootsResult", "RootsCapability", "RootsListChangedNotification", "ListRootsFnT"}
)
_SPEC_TYPE_BYTES = lazy_compile(
    rb"\b(?:ListRootsRequest|ListRootsResult|RootsCapability|RootsListChangedNotification|ListRootsFnT)\b"
)
_ROOT_WITH_URI = lazy_compile(rb"\bRoot\(\s*uri\s*=")
_WIRE_METHOD = lazy_compile(rb"""["'](?:roots/list|notifications/roots/list_?[cC]hanged)["']""")
_ENVELOPE = lazy_compile(rb"""["']jsonrpc["']|\bJSONRPC\w*\b""")
_ROOTS_CAPABILITY = lazy_compile(rb"""["']roots["']\s*:\s*\{\s*["']list_?[cC]hanged["']""")
#: SDK symbols whose import says which side a file is on.
_SERVER_SYMBOLS = SERVER_APPS | SERVER_CONTEXTS | {"ServerSession", "LowLevelServer"}
_CLIENT_SYMBOLS = CLIENT_RECEIVERS | {"ListRootsFnT", "ClientCapabilities"}


#: The evidence that a file speaks the Roots protocol itself, not only that it is MCP code: an
#: SDK import, spec-named Roots types, the wire, or a project module it imports that has them.
ROOTS_REASONS = frozenset({"sdk-import", "roots-types", "wire", "project-roots"})


class Evidence(NamedTuple):
    """Why a file is MCP code (empty: it is not), and which side it is on: "server", "client",
    "both" or "unknown"."""

    reasons: frozenset
    side: str

    @property
    def mcp(self) -> bool:
        """MCP code: any evidence at all."""
        return bool(self.reasons)

    @property
    def roots(self) -> bool:
        """Roots code: evidence that the file (or a project module it imports) speaks the Roots
        protocol. What a name alone suggests (a `set_roots_provider`, a `RootsProvider`
        parameter) counts only here: a host's own allow-list `add_root` in an `mcp_cli` package
        is not Roots."""
        return bool(self.reasons & ROOTS_REASONS)


NO_EVIDENCE = Evidence(frozenset(), "unknown")


def byte_evidence(data: bytes, path: str = "") -> set:
    """The evidence a file's bytes and place give, without parsing: spec-named Roots types, the
    wire (a method string, a JSON-RPC envelope beside a `roots` key, a roots capability holding
    listChanged), an import of a module named for MCP, a folder named for MCP."""
    found = set()
    # Each pattern only where the bytes hold a literal every match of it holds: searched for
    # itself, a pattern that starts with `\b` or a quote is tried at every byte (issue 37: these
    # five took 0.65 s over fast-agent's 699 MCP files; few files hold `Roots` or `roots`).
    if (b"Roots" in data and _SPEC_TYPE_BYTES.search(data)) or (b"Root(" in data and _ROOT_WITH_URI.search(data)):
        found.add("roots-types")
    if b"roots" in data and (
        (b"roots/list" in data and _WIRE_METHOD.search(data))
        or _ROOTS_CAPABILITY.search(data)
        or ((b"jsonrpc" in data or b"JSONRPC" in data) and _ENVELOPE.search(data))
    ):
        found.add("wire")
    if mcp_file(data):
        found.add("mcp-import")
    if path and mcp_folder(path):
        found.add("place")
    return found


def file_evidence(imports, data: bytes, path: str, project=None) -> Evidence:
    """Is the file MCP code, and which side: from its imports (qualified names, resolved), its
    bytes and its place; `project(qualified)` answers whether an imported project module
    speaks the Roots protocol by its own bytes (one module away, no further)."""
    imports = list(imports)
    reasons = byte_evidence(data, path)
    if any(name.partition(".")[0] in SDK_PACKAGES for name in imports if not name.startswith(".")):
        reasons.add("sdk-import")
    if any(mcp_module(name.lstrip(".")) for name in imports):
        reasons.add("mcp-import")
    if any(name.rpartition(".")[2] in SPEC_ROOTS_TYPES for name in imports):
        reasons.add("roots-types")
    if not reasons & ROOTS_REASONS and project is not None and any(project(name) for name in imports):
        reasons.add("project-roots")
    return Evidence(frozenset(reasons), import_side(imports))


def import_side(imports) -> str:
    """Which side of MCP the imports (qualified names) say a file is on: "server", "client",
    "both" or "unknown"."""
    server = client = False
    for name in imports:
        symbol = name.rpartition(".")[2]
        if in_package(name, "mcp.server") or in_package(name, "fastmcp.server") or symbol in _SERVER_SYMBOLS:
            server = True
        if in_package(name, "mcp.client") or in_package(name, "fastmcp.client") or symbol in _CLIENT_SYMBOLS:
            client = True
    return "both" if server and client else "server" if server else "client" if client else "unknown"


#: A project module larger than this is not read for evidence (it is a hint, not a parse).
_MODULE_EVIDENCE_LIMIT = DEFAULT_MAX_FILE_SIZE


def project_module_is_mcp(view, path: str, qualified: str) -> bool:
    """Whether the project module the file at `path` imports `qualified` from speaks the Roots
    protocol by its own bytes (spec-named Roots types or the wire; one module away, no further),
    as the project view `view` (core.project_view) reads it: once per module and view."""
    found = imported_module_file(view, path, qualified)
    if found is None:
        return False
    view.consulted(found)  # the caller's evidence depends on that module's bytes
    known = view.table("module evidence")
    if found not in known:
        known[found] = _module_evidence(found)
    return known[found]


def _module_evidence(file: str) -> bool:
    try:
        with open(file, "rb") as handle:
            data = handle.read(_MODULE_EVIDENCE_LIMIT + 1)
    except OSError:
        return False
    return len(data) <= _MODULE_EVIDENCE_LIMIT and bool(byte_evidence(data, file) & {"roots-types", "wire"})


#: A callable that takes or gives one of these is a roots provider's signature.
PROVIDER_SIGNATURE_TYPES = frozenset({"ListRootsRequest", LIST_ROOTS_RESULT})
#: Types whose values are roots (what a roots setter takes).
ROOTS_VALUE_TYPES = frozenset({ROOT, LIST_ROOTS_RESULT})
