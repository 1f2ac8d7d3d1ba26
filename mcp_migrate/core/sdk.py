"""What the MCP SDKs and the libraries built on them are called, said once.

Every package name and every SDK class name a rule or rewrite matches lives here; rules ask
these names and predicates instead of keeping lists of their own. The question "is this MCP
code, and which side" is answered from these names by the resolver (core/resolve.py), which sees
the file's imports, and by `mcp_file`/`mcp_module` for what a file's bytes or one module path
say.
"""

from __future__ import annotations

import re
from typing import Optional

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


def in_package(qualified: Optional[str], package: str) -> bool:
    """`qualified` names something inside `package` (`fastmcp.client.Client` in `fastmcp`)."""
    return bool(qualified) and (qualified == package or qualified.startswith(package + "."))


def sdk_symbol(qname: Optional[str], packages=SDK_PACKAGES) -> Optional[str]:
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
    """An MCP SDK or host package, or any module with an `mcp` component (`myapp.mcp.tools`)."""
    parts = qualified.split(".")
    return parts[0] in SDK_PACKAGES or parts[0] in HOST_FRAMEWORKS or MCP in parts[1:]


def mcp_named_module(qualified: str) -> bool:
    """A module whose path names MCP as a word part (`mcp_server.paths`, `app.tools_mcp`): a
    project's own MCP package, weaker evidence than `mcp_module`."""
    return any(part == MCP or part.startswith("mcp_") or part.endswith("_mcp") for part in qualified.split("."))


def sdk_or_framework(qualified: str) -> bool:
    """A type from an MCP SDK or a host framework (a session whatever its annotation says)."""
    return qualified.startswith((MCP, FASTMCP))


_MCP_IMPORT = re.compile(rb"(?m)^[ \t]*(?:from|import)[ \t]+[\w.]*(?:mcp|MCP|Mcp)")


def mcp_file(data: bytes) -> bool:
    """Does this file import from a module whose name holds `mcp` (the SDK, fastmcp,
    `agents.mcp`, `pydantic_ai.mcp`, ADK's `mcp_tool`, a project's own `*_mcp` package)? The
    security rules look only there: their patterns (`x[7:]`, `path.startswith(root)`) are
    everywhere in other code, and parsing it all would be most of a run's cost."""
    return (b"mcp" in data or b"MCP" in data or b"Mcp" in data) and _MCP_IMPORT.search(data) is not None


def mcp_folder(path: str) -> bool:
    """The file sits in a package folder named `mcp`."""
    return MCP in re.split(r"[\\/]", path)[:-1]


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
#: Protocol types a project defines when it re-implements the client side of Roots.
ROOTS_TYPE_NAMES = frozenset({"ListRootsRequest", "ListRootsResult", "RootsListChangedNotification"})
#: Types whose presence in a signature means "this asks for roots" (v2's resolver marker too).
ASKING_TYPES = frozenset({"ListRoots", "ListRootsRequest"})
#: Types of a roots provider (fastmcp's RootsList / RootsHandler, the SDK's callback type).
PROVIDER_TYPES = frozenset({"RootsList", "RootsHandler", "ListRootsFnT"})
#: Envelopes that wrap a request or a notification (v1's ServerRequest(ListRootsRequest())).
REQUEST_WRAPPERS = frozenset({"ServerRequest"})
NOTIFICATION_WRAPPERS = frozenset({"ClientNotification"})
#: pydantic URL types root URIs are given as.
URL_TYPES = frozenset({"FileUrl", "AnyUrl", "AnyHttpUrl", "HttpUrl", "Url"})
#: The URL types a `file://` root may be written with (HttpUrl cannot hold one).
FILE_URL_TYPES = URL_TYPES - {"HttpUrl"}
#: What a `Root(...)` or its URI may be built with, as the SDK names them.
ROOT_BUILDERS = frozenset({ROOT, "FileUrl"})
