"""A library's Roots API: a function that only forwards the request to its caller is deprecated
(suggested), not rewritten (rewrites/rt001/forwarding.py); and a definition its project already
deprecated for Roots holds no finding, kept aside as suppressed (core/deprecated.py), so one
`fix --apply-suggestions` converges."""

from __future__ import annotations

import dataclasses

from mcp_migrate.api import check_bytes, default_settings, fix_bytes

WRAPPER = '''import logging

from mcp.server.session import ServerSession

log = logging.getLogger(__name__)


class Session:
    def __init__(self, session: ServerSession):
        self.session = session

    async def list_roots(self):
        """The client's roots."""
        log.debug("asking")
        result = await self.session.list_roots()
        return result.roots
'''

DEPRECATION = """        warnings.warn(
            "list_roots() is deprecated: MCP Roots are deprecated by SEP-2577",
            DeprecationWarning,
            stacklevel=2,
        )
"""


def _settings():
    return dataclasses.replace(default_settings(), apply_suggestions=True)


def test_a_forwarding_wrapper_gets_a_suggested_deprecation():
    (finding,) = check_bytes(WRAPPER.encode(), "lib/session.py", default_settings()).findings
    assert (finding.code, finding.line, finding.column, finding.fix) == ("RT001", 15, 24, "display")
    assert "rewrites: deprecation; only suggested here: this function only asks for roots" in finding.help


def test_the_deprecation_converges_and_the_finding_is_kept_aside():
    fixed = fix_bytes(WRAPPER.encode(), "lib/session.py", _settings(), unsafe=True).fixed_source.decode()
    assert fixed.startswith("import logging\nimport warnings\n")
    assert '        """The client\'s roots."""\n' + DEPRECATION + '        log.debug("asking")\n' in fixed
    result = check_bytes(fixed.encode(), "lib/session.py", default_settings())
    assert result.findings == []
    (kept,) = result.suppressed
    assert (kept.finding.code, kept.kind, kept.reason) == (
        "RT001",
        "deprecated",
        "inside `list_roots`, which its project deprecated for Roots",
    )


def test_a_wrapper_that_uses_the_roots_is_no_forwarder():
    source = WRAPPER.replace("        return result.roots\n", "        return [r.uri for r in result.roots]\n")
    (finding,) = check_bytes(source.encode(), "lib/session.py", default_settings()).findings
    assert "deprecation" not in finding.help


def test_a_forwarder_in_test_code_is_left_to_its_tests():
    (finding,) = check_bytes(WRAPPER.encode(), "tests/test_session.py", default_settings()).findings
    assert "rewrites: deprecation" not in finding.help


SDK_STYLE = """from typing_extensions import deprecated

from mcp.server.session import ServerSession


class Peer:
    def __init__(self, session: ServerSession):
        self.session = session

    @deprecated("The roots capability is deprecated as of 2026-07-28 (SEP-2577).")
    async def list_roots(self):
        return await self.session.list_roots()

    @deprecated("use fetch() instead")
    async def roots_now(self):
        return await self.session.list_roots()

    async def maybe(self, old=None):
        if old is not None:
            warnings.warn("old is deprecated: MCP Roots are deprecated by SEP-2577", DeprecationWarning)
        return await self.session.list_roots()
"""


def test_the_sdk_style_decorator_marks_its_body_migrated():
    """The `mcp` SDK's own form (upstream 4573e4ac3). A deprecation about something else, or a
    warning only when a parameter is given, is no Roots deprecation of the function."""
    result = check_bytes(SDK_STYLE.encode(), "lib/peer.py", default_settings())
    assert [(f.code, f.line) for f in result.findings] == [("RT001", 16), ("RT001", 21)]
    assert [(s.finding.line, s.kind) for s in result.suppressed] == [(12, "deprecated")]


def test_the_json_report_names_the_deprecation_and_fits_its_schema(tmp_path):
    """The kept-aside finding is in the report's `suppressed` list, kind `deprecated`, and the
    report still validates against the published schema."""
    import json
    from importlib.resources import files

    import jsonschema
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    (tmp_path / "peer.py").write_text(SDK_STYLE, encoding="utf-8")
    out = CliRunner().invoke(cli, ["check", "--format", "json", "--exit-zero", str(tmp_path / "peer.py")])
    report = json.loads(out.output)
    schema = json.loads((files("mcp_migrate.schemas") / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, schema)
    assert [(s["line"], s["suppression"]) for s in report["suppressed"]] == [
        (12, {"kind": "deprecated", "reason": "inside `list_roots`, which its project deprecated for Roots"})
    ]


OPTION = """from mcp import ClientSession
from mcp.client.session import ListRootsFnT


class Client:
    def __init__(self, list_roots_callback: ListRootsFnT | None = None):
        self.list_roots_callback = list_roots_callback

    @classmethod
    def from_config(cls, config: dict, list_roots_callback: ListRootsFnT | None = None):
        return cls(list_roots_callback=list_roots_callback)

    async def open(self, read, write):
        return ClientSession(read, write, list_roots_callback=self.list_roots_callback)
"""


def test_a_deprecated_parameter_is_still_passed_on():
    """Session 49's review: mcp-use's `list_roots_callback` warned once deprecated and was no
    longer passed on by the same suggestions, so it did nothing. The removals that pass it on
    (and the statement storing it on `self` for them) are withdrawn: they go with the
    parameter's deprecation, of its kind, the help naming its line; the deprecations stay."""
    findings = check_bytes(OPTION.encode(), "lib/client.py", default_settings()).findings
    by_line = {f.line: f for f in findings if f.code == "RT002"}
    assert by_line[6].fix == by_line[10].fix == "display"  # the two parameters' deprecations
    carried = {7: 6, 11: 10, 14: 6}  # `self.x = x`, `=list_roots_callback`, `=self.list_roots_callback`
    for line, carrier in carried.items():
        assert by_line[line].fix == "display"
        assert by_line[line].help.startswith(
            f"it goes with the fix of the RT002 finding on line {carrier}, which deprecates `list_roots_callback`:"
            " this keeps the deprecated parameter working until it goes;"
        )
    fixed = fix_bytes(OPTION.encode(), "lib/client.py", _settings(), unsafe=True).fixed_source.decode()
    assert fixed.count("warnings.warn(") == 2
    assert "self.list_roots_callback = list_roots_callback" in fixed
    assert "return cls(list_roots_callback=list_roots_callback)" in fixed
    assert "ClientSession(read, write, list_roots_callback=self.list_roots_callback)" in fixed


def test_a_deprecated_parameter_and_what_passes_it_on_are_migrated_on_the_next_run():
    """After `fix --apply-suggestions` the parameters warn when given: they, and the code that
    passes them on, are kept aside as deprecated (one run converges, issue 36 §5)."""
    fixed = fix_bytes(OPTION.encode(), "lib/client.py", _settings(), unsafe=True).fixed_source
    result = check_bytes(fixed, "lib/client.py", default_settings())
    assert result.findings == []
    assert [(s.finding.line, s.kind, s.reason) for s in result.suppressed] == [
        (8, "deprecated", "`list_roots_callback`, a parameter its project deprecated for Roots"),
        (15, "deprecated", "keeps `list_roots_callback` working, a parameter its project deprecated for Roots"),
        (18, "deprecated", "`list_roots_callback`, a parameter its project deprecated for Roots"),
        (25, "deprecated", "keeps `list_roots_callback` working, a parameter its project deprecated for Roots"),
        (28, "deprecated", "keeps `list_roots_callback` working, a parameter its project deprecated for Roots"),
    ]


PROTOCOL_TYPES = '''from pydantic import BaseModel


class Root(BaseModel):
    """A root."""

    uri: str


class ListRootsResult(BaseModel):
    """The client's answer.

    Holds roots.
    """

    roots: list[Root]


class ListRootsRequest(BaseModel):
    method: str = "roots/list"
'''

PROTOCOL_TYPES_DEPRECATED = '''from pydantic import BaseModel


class Root(BaseModel):
    """A root.

    Deprecated by SEP-2577 (MCP 2026-07-28) with the rest of Roots.
    """

    uri: str


class ListRootsResult(BaseModel):
    """The client's answer.

    Holds roots.

    Deprecated by SEP-2577 (MCP 2026-07-28) with the rest of Roots.
    """

    roots: list[Root]


class ListRootsRequest(BaseModel):
    """Deprecated by SEP-2577 (MCP 2026-07-28) with the rest of Roots."""
    method: str = "roots/list"
'''


def test_a_protocol_type_gets_a_suggested_deprecation_in_its_docstring():
    """A project's own Roots protocol types, used by the rest of it: deprecated in their
    docstrings, as the `mcp` SDK deprecated its own (a warning would fire whenever the project
    still builds one for a 2025-era peer); the next run keeps them aside."""
    findings = check_bytes(PROTOCOL_TYPES.encode(), "proto/types.py", default_settings()).findings
    assert [(f.line, f.column, f.code, f.fix) for f in findings] == [
        (4, 7, "RT002", "display"),
        (10, 7, "RT002", "display"),
        (19, 7, "RT002", "display"),
    ]
    assert all(
        f.help.startswith("a suggested deprecation (`fix --apply-suggestions` applies it): other code")
        for f in findings
    )
    fixed = fix_bytes(PROTOCOL_TYPES.encode(), "proto/types.py", _settings(), unsafe=True).fixed_source
    assert fixed.decode() == PROTOCOL_TYPES_DEPRECATED
    again = check_bytes(fixed, "proto/types.py", default_settings())
    assert again.findings == []
    assert [(s.finding.line, s.kind, s.reason) for s in again.suppressed] == [
        (4, "deprecated", "`Root`, which its project deprecated for Roots"),
        (13, "deprecated", "`ListRootsResult`, which its project deprecated for Roots"),
        (24, "deprecated", "`ListRootsRequest`, which its project deprecated for Roots"),
    ]


ROOTS_IN_PASSING = '''from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("files")


@mcp.tool()
async def files(ctx: Context) -> list[str]:
    """Lists files. Roots are deprecated by SEP-2577, but this server still asks."""
    result = await ctx.session.list_roots()
    return [str(root.uri) for root in result.roots]
'''


def test_a_docstring_naming_the_deprecation_in_passing_deprecates_nothing():
    """Only a sentence that says the definition is deprecated ("Deprecated in ...", a
    `.. deprecated::` directive) counts; a docstring mentioning that Roots are deprecated does not."""
    result = check_bytes(ROOTS_IN_PASSING.encode(), "server.py", default_settings())
    assert [(f.line, f.code) for f in result.findings] == [(9, "RT001")]
    assert result.suppressed == []
    sphinx = ROOTS_IN_PASSING.replace(
        '"""Lists files. Roots', '"""Lists files.\n\n    .. deprecated:: 2.0\n       Roots'
    )
    result = check_bytes(sphinx.encode(), "server.py", default_settings())
    assert result.findings == []
    assert [s.kind for s in result.suppressed] == ["deprecated"]


ROUTER = """from mcp.client.session import ListRootsFnT


def create_router(list_roots_callback: ListRootsFnT | None = None):
    provider = list_roots_callback if list_roots_callback is not None else None

    async def handle(method: str, params: dict):
        if method == "roots/list":
            result = await provider(None)
            return {"roots": [{"uri": str(r.uri)} for r in result.roots]}
        return None

    return handle
"""


def test_roots_code_that_reads_a_deprecated_parameter_goes_with_its_deprecation():
    """fastapi-mcp-router's dispatch answers `roots/list` with what its deprecated
    `roots_manager=` gives, through a local computed from it: the branch and its answer keep
    the deprecated parameter working, so they go with its deprecation; once it warns, they are
    kept aside with it."""
    findings = check_bytes(ROUTER.encode(), "lib/router.py", default_settings()).findings
    assert [(f.line, f.column, f.fix) for f in findings] == [
        (4, 19, "display"),
        (8, 22, "display"),
        (10, 20, "display"),
    ]
    for f in findings[1:]:
        assert f.help.startswith(
            "it goes with the fix of the RT002 finding on line 4, which deprecates `list_roots_callback`:"
        )
    fixed = fix_bytes(ROUTER.encode(), "lib/router.py", _settings(), unsafe=True).fixed_source
    assert b'if method == "roots/list":' in fixed
    again = check_bytes(fixed, "lib/router.py", default_settings())
    assert again.findings == []
    assert [s.reason for s in again.suppressed] == [
        "`list_roots_callback`, a parameter its project deprecated for Roots",
        "keeps `list_roots_callback` working, a parameter its project deprecated for Roots",
        "keeps `list_roots_callback` working, a parameter its project deprecated for Roots",
    ]


DEFAULTED = """from mcp import ClientSession
from mcp.client.session import ListRootsFnT


class Session(ClientSession):
    def __init__(self, read, write, list_roots_callback: ListRootsFnT | None = None):
        if list_roots_callback is None:
            list_roots_callback = self._own_roots
        super().__init__(read, write, list_roots_callback=list_roots_callback)

    async def _own_roots(self, context):
        return None
"""


def test_a_default_for_an_absent_deprecated_parameter_does_not_go_with_it():
    """mcp-agent installs its own roots callback when the parameter is not given: that is no
    part of the deprecated parameter's behaviour, and keeps its own help."""
    findings = check_bytes(DEFAULTED.encode(), "lib/session.py", default_settings()).findings
    by_line = {f.line: f for f in findings if f.code == "RT002"}
    assert not by_line[8].help.startswith("it goes with the fix")


ROUTER_TEST = """from lib.router import create_router


async def test_roots_list_answers_with_the_callback():
    async def callback(context):
        return None

    handle = create_router(list_roots_callback=callback)
    assert await handle("roots/list", {}) is not None
"""


def test_the_tests_of_a_deprecated_api_stay(tmp_path, monkeypatch):
    """A deprecation keeps the Roots behaviour (it warns): the tests of it are no migration
    target while it works, so they wait (no edit) instead of going with the suggestions
    (fastapi-mcp-router: eight tests of its deprecated `roots_manager=` were deleted by
    `--apply-suggestions` while the parameter still worked, session 50)."""
    import json

    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "router.py").write_text(ROUTER)
    (tmp_path / "tests" / "test_router.py").write_text(ROUTER_TEST)
    out = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
    tests = [f for f in json.loads(out.stdout)["findings"] if f["path"].startswith("tests/")]
    # the callback the test defines, and the keyword it passes it by
    assert [(f["line"], f["code"], f["fix"]) for f in tests] == [(5, "RT002", "none"), (8, "RT002", "none")]
    assert not any("suggested removal of this test" in f["help"] for f in tests)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert (tmp_path / "tests" / "test_router.py").read_text() == ROUTER_TEST


def test_a_docstring_saying_removed_in_counts_as_deprecated():
    """python-sdk's RootsListChangedNotification says "Removed in protocol 2026-07-28; ...": a
    second deprecation note was suggested beside it (session 50's review)."""
    source = '''from pydantic import BaseModel


class RootsListChangedNotification(BaseModel):
    """Sent when roots change.

    Removed in protocol 2026-07-28; sent/received on sessions negotiating <= 2025-11-25.
    """

    method: str = "notifications/roots/list_changed"
'''
    result = check_bytes(source.encode(), "proto/types.py", default_settings())
    assert result.findings == []
    assert [(s.finding.line, s.kind) for s in result.suppressed] == [(4, "deprecated")]


CONNECTOR = """from mcp import ClientSession
from mcp.client.session import ListRootsFnT
from mcp.types import Root

from lib.base import BaseConnector


class HttpConnector(BaseConnector):
    def __init__(self, url: str, list_roots_callback: ListRootsFnT | None = None):
        super().__init__(list_roots_callback=list_roots_callback)
        self.url = url
        self.roots: list[Root] = []
        self.session = None

    async def connect(self, read, write):
        self.session = ClientSession(read, write, list_roots_callback=self.list_roots_callback)

    async def set_roots(self, roots: list[Root]) -> None:
        self.roots = list(roots)
        if self.session is not None:
            await self.session.send_roots_list_changed()
"""


def test_a_deprecated_api_keeps_working_through_its_class_and_its_methods():
    """mcp-use under `--apply-suggestions` (session 50): its connectors deprecated
    `list_roots_callback` and `set_roots()`, yet stopped passing `self.list_roots_callback` (stored
    by the base class through `super()`) to the session, and removed `set_roots()`'s notification;
    seven unit tests failed. Both now go with the deprecations: the suite keeps 304/1."""
    findings = check_bytes(CONNECTOR.encode(), "lib/http.py", default_settings()).findings
    by_line = {f.line: f for f in findings}
    assert by_line[16].fix == "display" and by_line[16].help.startswith(
        "it goes with the fix of the RT002 finding on line 9, which deprecates `list_roots_callback`"
    )
    assert by_line[21].code == "RT004" and by_line[21].fix == "display"
    assert by_line[21].help.startswith(
        "it goes with the fix of the RT002 finding on line 18, which deprecates `set_roots`: a deprecated"
        " function keeps working until it goes, and this is part of it;"
    )
    fixed = fix_bytes(CONNECTOR.encode(), "lib/http.py", _settings(), unsafe=True).fixed_source.decode()
    assert "ClientSession(read, write, list_roots_callback=self.list_roots_callback)" in fixed
    assert "await self.session.send_roots_list_changed()" in fixed
    assert fixed.count("warnings.warn(") == 2


ASKING_SERVER = """from mcp.server.fastmcp import Context


async def relay_roots(ctx: Context):
    result = await ctx.session.list_roots()
    return result.roots
"""

NOTIFYING_CLIENT = '''from mcp import ClientSession


class Client:
    def __init__(self, session: ClientSession):
        self.session = session

    async def send_roots_list_changed(self) -> None:
        """Send a roots/list_changed notification."""
        await self.session.send_roots_list_changed()
'''


def test_a_held_removal_that_would_hollow_a_public_method_deprecates_it(tmp_path, monkeypatch):
    """While a server of the run still asks (its request keeps a review marker), the client's
    removal of a send is held as a suggestion; `fix --apply-suggestions` applied it and left
    fastmcp's public `send_roots_list_changed()` a docstring (session 51's first look). Held or
    not, a removal that hollows a public method deprecates it instead."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "server.py").write_text(ASKING_SERVER)
    client = tmp_path / "pkg" / "client.py"
    client.write_text(NOTIFYING_CLIENT)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    body = NOTIFYING_CLIENT.replace(
        '        """Send a roots/list_changed notification."""\n',
        '        """Send a roots/list_changed notification."""\n'
        "        warnings.warn(\n"
        '            "send_roots_list_changed() is deprecated: MCP Roots are deprecated by SEP-2577",\n'
        "            DeprecationWarning,\n"
        "            stacklevel=2,\n"
        "        )\n",
    )
    assert client.read_text() == "import warnings\n\n" + body


STORED_SESSION = """from mcp import types
from mcp.client.session import ListRootsFnT


async def _default_list_roots_callback(context):
    return types.ErrorData(code=types.INVALID_REQUEST, message="List roots not supported")


class Session:
    def __init__(self, list_roots_callback: ListRootsFnT | None = None):
        self._list_roots_callback = list_roots_callback or _default_list_roots_callback

    def capabilities(self) -> types.ClientCapabilities:
        roots = (
            types.RootsCapability(list_changed=True)
            if self._list_roots_callback is not _default_list_roots_callback
            else None
        )
        return types.ClientCapabilities(roots=roots)
"""


def test_a_capability_another_method_derives_from_the_stored_parameter_keeps_working():
    """python-sdk's `ClientSession` stores its `list_roots_callback` as
    `self._list_roots_callback = list_roots_callback or default` and declares the roots
    capability from that attribute in another method. Dropping the declaration while the
    parameter only warns left it without effect (no server asks a client that declares no
    roots): python-sdk's capability tests failed under `--apply-suggestions`. The declaration goes
    with the deprecation."""
    findings = check_bytes(STORED_SESSION.encode(), "lib/session.py", default_settings()).findings
    assert [(f.line, f.column, f.code, f.fix) for f in findings] == [
        (10, 24, "RT002", "display"),
        (11, 9, "RT002", "display"),
        (15, 13, "RT003", "display"),
        (15, 35, "RT006", "safe"),
        (19, 41, "RT003", "display"),
    ]
    for f in (findings[2], findings[4]):
        assert f.help.startswith(
            "it goes with the fix of the RT002 finding on line 10, which deprecates `list_roots_callback`:"
        )
    fixed = fix_bytes(STORED_SESSION.encode(), "lib/session.py", _settings(), unsafe=True).fixed_source.decode()
    assert "return types.ClientCapabilities(roots=roots)" in fixed
    assert "if self._list_roots_callback is not _default_list_roots_callback" in fixed
    assert check_bytes(fixed.encode(), "lib/session.py", default_settings()).findings == []


def test_a_removal_of_a_call_of_a_deprecated_function_is_no_removal():
    """mcp-context-forge registers its configured default roots with `await self.add_root(uri)`;
    the suggestions deprecated `add_root()` and removed that call (it became `pass`), so the
    configured roots were silently dropped while the API still worked. A statement calling a
    function the same suggestions deprecate goes with that deprecation (kept_working.calls)."""
    import libcst as cst

    from mcp_migrate.core.fix.edits import Fix, RemoveStatement
    from mcp_migrate.core.fix.kept_working import calls

    module = cst.parse_module(
        "class S:\n"
        "    async def initialize(self):\n"
        "        for uri in self.defaults:\n"
        "            await self.add_root(uri)\n"
        "            await self.other(uri)\n"
        "\n"
        "    async def add_root(self, uri):\n"
        "        self.roots.append(uri)\n"
    )
    cls = module.body[0]
    initialize, add_root = cls.body.body
    loop = initialize.body.body[0]
    registers, other = loop.body.body
    entry = (add_root, "the report deprecating it")
    assert calls(Fix((RemoveStatement(registers),)), [entry]) is entry
    assert calls(Fix((RemoveStatement(other),)), [entry]) is None
    assert calls(Fix((RemoveStatement(loop),)), []) is None


STORE = """from mcp.types import Root


class RootsStore:
    def __init__(self, defaults: list) -> None:
        self._roots: list = []
        for uri in defaults:
            self.add_root(uri)

    def add_root(self, uri: str) -> None:
        self._roots.append(Root(uri=uri))

    def all(self) -> list:
        return list(self._roots)
"""

STORE_USER = """from app.store import RootsStore


def serve(store: RootsStore) -> list:
    return store.all()


def main() -> None:
    store = RootsStore(["file:///srv/repo"])
    store.add_root("file:///srv/other")
    serve(store=store)
"""


def test_a_store_keeps_its_own_calls_of_its_deprecated_setter(tmp_path, monkeypatch):
    """mcp-context-forge (session 51): the store registers its configured defaults through its
    own `self.add_root(uri)`. That call kept `add_root()` from its deprecation in the first pass
    (something else in the file named it) and was removed as a setter call; the second pass then
    deprecated `add_root()`: the configured roots were dropped while the API still worked, and
    the tests of it were marked only by a second run. A call is no registration: the setter is
    deprecated at once and its own call stays. In the user module, two removals that both leave
    `store` unread are applied together (one without the other left `serve(store=store)` with
    an undefined name)."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    store = _suggestions_applied(tmp_path, monkeypatch, {"app/store.py": STORE, "app/host.py": STORE_USER})[
        "app/store.py"
    ]
    assert "            self.add_root(uri)\n" in store
    assert store.count("is deprecated: MCP Roots are deprecated by SEP-2577") == 2
    assert (tmp_path / "app" / "host.py").read_text() == STORE_USER.split("\n\n\ndef main")[0] + (
        "\n\n\ndef main() -> None:\n    pass\n"
    )
    again = CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert again.stdout == "Checked 3 files: no findings\n"


MANAGED_CLIENT = """from mcp import ClientSession
from mcp.client.session import ListRootsFnT


class MCPClient:
    def __init__(self, name: str, roots_provider: ListRootsFnT | None = None) -> None:
        self.name = name
        self._roots_provider = roots_provider

    def set_roots_provider(self, provider: ListRootsFnT) -> None:
        self._roots_provider = provider


async def open_session(client: MCPClient, read, write):
    roots_cb = client._roots_provider if client._roots_provider is not None else None
    return ClientSession(read, write, list_roots_callback=roots_cb)
"""

MANAGER = """from mcp.client.session import ListRootsFnT

from lib.client import MCPClient


class MCPManager:
    def __init__(self) -> None:
        self._clients: dict[str, MCPClient] = {}

    def set_roots_provider(self, provider: ListRootsFnT) -> None:
        for client in self._clients.values():
            client.set_roots_provider(provider)
"""


def test_a_deprecated_setter_and_a_stored_parameter_keep_working_across_the_module(tmp_path, monkeypatch):
    """topsport-agent (session 51's review): `MCPManager.set_roots_provider()` was deprecated and
    its loop's call of each client's `set_roots_provider()` became `pass` (the call kept the
    method from its deprecation in the first pass), and a module-level session factory stopped
    passing `client._roots_provider`, which the deprecated `roots_provider=` parameter fills:
    three of its tests failed. A call through any object is no registration, and a private
    attribute keeping a deprecated parameter is read anywhere in its module."""
    fixed = _suggestions_applied(tmp_path, monkeypatch, {"lib/client.py": MANAGED_CLIENT, "lib/manager.py": MANAGER})
    client, manager = fixed["lib/client.py"], fixed["lib/manager.py"]
    assert "list_roots_callback=roots_cb" in client
    assert "            client.set_roots_provider(provider)\n" in manager
    assert "set_roots_provider() is deprecated" in manager


def _suggestions_applied(tmp_path, monkeypatch, files: dict) -> dict:
    """The project `files` (path -> text, each folder a package) after `fix --apply-suggestions .`
    run from its root: path -> the new text."""
    from click.testing import CliRunner

    from mcp_migrate.commands.cli import cli

    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    return {name: (tmp_path / name).read_text() for name in files}
