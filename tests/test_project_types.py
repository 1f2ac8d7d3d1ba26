"""The project's own classes typed across modules (issue 35 §1, core/project_types.py used by
core/resolve.py): a project subclass of an SDK class reached through a package re-export (and a
`src/` layout) is that SDK class for what it inherits; a project method's return annotation and
an attribute `__init__` types lead a receiver on to the method that really runs; a name
declared with an SDK provider type and rebound to a callable registers it (RT002). Exact
findings, with the same shapes where the project's classes have nothing to do with Roots as
negatives; and the screens let each file through (tests/test_screens.py's promise, here across
modules)."""

from __future__ import annotations

import textwrap

import libcst as cst

from mcp_migrate.api import check_source
from mcp_migrate.core import screening
from mcp_migrate.core.project_types import module_types
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.resolve import Resolver
from mcp_migrate.rules import all_rules

ASKS_CALL = "RT001 `ctx.list_roots()` asks for roots, deprecated by SEP-2577"


def _write(root, files: dict) -> None:
    for name, code in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")


def _findings(path) -> list:
    return [f"{f.line}:{f.column} {f.code} {f.message}" for f in check_source(path.read_bytes(), str(path))]


def _unscreened(path, monkeypatch) -> list:
    """The findings with every screen forced open (what the rules find by themselves)."""
    monkeypatch.setattr(screening, "gate_open", lambda data, settings, classes=None: True)
    for rule in all_rules():
        monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
        monkeypatch.setattr(rule, "screen_tree", classmethod(lambda cls, syntax, settings: True))
        monkeypatch.setattr(rule, "screen_imports", classmethod(lambda cls, data, path, settings: True))
    return _findings(path)


# ----- a project subclass of an SDK class, through a package re-export --------------------------
SUBCLASS = {
    "app/__init__.py": "",
    "app/server/__init__.py": """
        from .context import Context

        __all__ = ["Context"]
    """,
    "app/server/context.py": """
        from mcp.server.fastmcp import Context as SdkContext


        class Context(SdkContext):
            async def log_twice(self, text: str) -> None:
                await self.info(text)
                await self.info(text)
    """,
    "examples/tool.py": """
        from mcp.types import TextContent

        from app.server import Context


        async def scan(ctx: Context) -> list:
            roots = await ctx.list_roots()
            return [TextContent(type="text", text=str(roots))]
    """,
}


def test_a_project_subclass_of_the_sdk_context_asks_with_what_it_inherits(tmp_path, monkeypatch):
    _write(tmp_path, SUBCLASS)
    assert _findings(tmp_path / "examples/tool.py") == [f"7:19 {ASKS_CALL}"]
    assert _unscreened(tmp_path / "examples/tool.py", monkeypatch) == [f"7:19 {ASKS_CALL}"]


def test_the_same_through_a_src_layout_and_another_name(tmp_path):
    files = {name.replace("app/", "src/acme/"): code for name, code in SUBCLASS.items()}
    files["examples/tool.py"] = (
        files["examples/tool.py"].replace("from app.server import Context", "from acme.server import Context as Ctx")
    ).replace("ctx: Context", "ctx: Ctx")
    _write(tmp_path, files)
    assert _findings(tmp_path / "examples/tool.py") == [f"7:19 {ASKS_CALL}"]


def test_a_subclass_that_defines_list_roots_itself_is_decided_by_its_body(tmp_path):
    asking = dict(SUBCLASS)
    asking["app/server/context.py"] = """
        from mcp.server.fastmcp import Context as SdkContext


        class Context(SdkContext):
            async def list_roots(self) -> list:
                result = await self.session.list_roots()
                return result.roots
    """
    _write(tmp_path, asking)
    assert _findings(tmp_path / "examples/tool.py") == [
        "7:19 RT001 runs `app.server.Context.list_roots`, a helper of this project that asks for roots"
    ]
    cached = dict(asking)
    cached["app/server/context.py"] = """
        from mcp.server.fastmcp import Context as SdkContext


        class Context(SdkContext):
            async def list_roots(self) -> list:
                return list(self.known_roots)
    """
    _write(tmp_path, cached)
    assert _findings(tmp_path / "examples/tool.py") == []


def test_a_users_own_class_with_list_roots_is_not_the_sdks(tmp_path):
    """The same shapes, the project class subclassing nothing of the SDKs."""
    files = dict(SUBCLASS)
    files["app/server/context.py"] = """
        class Base:
            pass


        class Context(Base):
            async def list_roots(self) -> list:
                return ["/srv"]
    """
    _write(tmp_path, files)
    assert _findings(tmp_path / "examples/tool.py") == []


# ----- a session reached through a project method's result and an `__init__` attribute ---------
SESSION = {
    "kit/__init__.py": "from .client import Client\n",
    "kit/client.py": """
        from kit.session import Session


        class Client:
            def __init__(self, config: dict) -> None:
                self.config = config

            def get_session(self, name: str) -> Session:
                return self.sessions[name]

            async def open(self, name: str) -> Session:
                return self.sessions[name]
    """,
    "kit/session.py": """
        from kit.connectors.base import Connector


        class Session:
            def __init__(self, connector: Connector) -> None:
                self.connector = connector
    """,
    "kit/connectors/__init__.py": "",
    "kit/connectors/base.py": """
        from mcp import ClientSession


        class Connector:
            client_session: ClientSession

            async def replace(self, roots: list) -> None:
                self.saved = list(roots)
                await self.client_session.send_roots_list_changed()
    """,
    "tests/test_flow.py": """
        from kit import Client


        async def test_replace():
            client = Client({"mcpServers": {}})
            session = client.get_session("one")
            await session.connector.replace([])
            other = await client.open("two")
            await other.connector.replace([])
    """,
}
SENDS = "RT004 runs `...base.Connector.replace`, a helper of this project that sends `list_changed`"


def test_a_helper_reached_through_a_method_result_and_an_init_attribute(tmp_path, monkeypatch):
    _write(tmp_path, SESSION)
    expected = [f"7:11 {SENDS}", f"9:11 {SENDS}"]
    assert _findings(tmp_path / "tests/test_flow.py") == expected
    assert _unscreened(tmp_path / "tests/test_flow.py", monkeypatch) == expected


def test_the_same_shapes_where_the_project_method_sends_nothing(tmp_path):
    files = dict(SESSION)
    files["kit/connectors/base.py"] = files["kit/connectors/base.py"].replace(
        "await self.client_session.send_roots_list_changed()", "await self.client_session.send_ping()"
    )
    _write(tmp_path, files)
    assert _findings(tmp_path / "tests/test_flow.py") == []


def test_an_unannotated_method_or_attribute_leads_nowhere(tmp_path):
    files = dict(SESSION)
    files["kit/client.py"] = files["kit/client.py"].replace(") -> Session:", "):")
    _write(tmp_path, files)
    assert _findings(tmp_path / "tests/test_flow.py") == []
    files = dict(SESSION)
    files["kit/session.py"] = files["kit/session.py"].replace("connector: Connector", "connector")
    _write(tmp_path, files)
    assert _findings(tmp_path / "tests/test_flow.py") == []


def test_an_unawaited_coroutine_is_not_its_result(tmp_path):
    files = dict(SESSION)
    files["tests/test_flow.py"] = """
        from kit import Client


        async def test_replace():
            client = Client({"mcpServers": {}})
            pending = client.open("two")
            await pending.connector.replace([])
    """
    _write(tmp_path, files)
    assert _findings(tmp_path / "tests/test_flow.py") == []


# ----- what the resolver says ------------------------------------------------------------------
def _type_of(path, source: str, expression: str) -> str | None:
    """What the resolver says `expression` is at the end of `source` (the file at `path`),
    with the project's types read through a fresh view."""
    module = cst.parse_module(textwrap.dedent(source).lstrip())
    resolver = Resolver()
    resolver.see_project(ProjectView(), str(path))
    resolver.prepass(module)
    resolver.module_now = resolver.module_final
    return resolver.instance_type(cst.parse_expression(expression))


def test_a_session_reached_through_two_project_attributes(tmp_path):
    _write(
        tmp_path,
        {
            "hub/__init__.py": "",
            "hub/host.py": """
                from hub.link import Link


                class Host:
                    def __init__(self) -> None:
                        self.link = Link()
            """,
            "hub/link.py": """
                from mcp import ClientSession


                class Link:
                    def __init__(self, session: ClientSession | None = None) -> None:
                        self.session = session
            """,
        },
    )
    path = tmp_path / "main.py"
    source = "from hub.host import Host\n\nhost = Host()\n"
    assert _type_of(path, source, "host.link") == "hub.link.Link"
    assert _type_of(path, source, "host.link.session") == "mcp.ClientSession"
    assert _type_of(path, source, "host.link.other") is None


def test_a_project_subclass_inherits_the_sdks_attribute_types(tmp_path):
    _write(tmp_path, SUBCLASS)
    path = tmp_path / "examples/tool.py"
    source = "from app.server import Context\n\nctx: Context = make()\n"
    assert _type_of(path, source, "ctx") == "app.server.Context"
    assert _type_of(path, source, "ctx.request_context.session") == "mcp.server.session.ServerSession"


def test_without_the_project_nothing_is_typed(tmp_path):
    """A file checked alone (no path) knows only its imports: the project class stays itself."""
    module = cst.parse_module("from app.server import Context\n\nctx: Context = make()\n")
    resolver = Resolver()
    resolver.prepass(module)
    resolver.module_now = resolver.module_final
    assert resolver.sdk_instance(cst.parse_expression("ctx")) is None


# ----- RT002: a name declared with a provider type, rebound to a callable ----------------------
REBIND = """
from mcp import ClientSession
from mcp.client.session import ListRootsFnT


class Session(ClientSession):
    def __init__(self, read, write, roots_provider: ListRootsFnT | None = None):
        if roots_provider is None:
            roots_provider = self._default_roots
        ClientSession.__init__(self, read, write, list_roots_callback=roots_provider)

    async def _default_roots(self, context):
        return None
"""


def test_a_declared_provider_rebound_to_a_callable_registers_it():
    found = [f"{f.line}:{f.column} {f.code} {f.message}" for f in check_source(REBIND, "session.py")]
    assert found == [
        "7:37 RT002 a `roots_provider` parameter typed `ListRootsFnT` supplies roots, deprecated by SEP-2577",
        "9:13 RT002 `roots_provider: ListRootsFnT` bound to a callable supplies roots, deprecated by SEP-2577",
        "10:51 RT002 `list_roots_callback=` supplies roots, deprecated by SEP-2577",
        "12:15 RT002 `_default_roots` supplies roots, deprecated by SEP-2577",
    ]


def test_a_name_declared_otherwise_registers_nothing_when_rebound():
    source = REBIND.replace("roots_provider: ListRootsFnT | None", "list_roots_callback: object | None")
    source = source.replace("roots_provider", "list_roots_callback")
    found = [f"{f.line}:{f.column} {f.code} {f.message}" for f in check_source(source, "session.py")]
    assert found == [
        "10:51 RT002 `list_roots_callback=` supplies roots, deprecated by SEP-2577",
        "12:15 RT002 `_default_roots` supplies roots, deprecated by SEP-2577",
    ]


def test_what_a_call_into_another_module_needs_is_read_with_the_classes(tmp_path):
    """The one reader of another module's definitions (RT103 across modules reads it,
    vocabulary/gates_across.py): methods' parameters as a call passes them (`self` dropped, a
    static method's kept whole) and their return annotations' last names as written, top-level
    functions' parameters, module-level instances, and top-level from-imports as written
    (core.modules.from_imports: a star binds nothing; an import under `if` is not top-level)."""
    _write(
        tmp_path,
        {
            "guards.py": """
            from .registry import Registry as Ledger, shared
            from .other import *

            if True:
                from .hidden import Hidden


            class Guard:
                def check(self, path, *extra, strict=False) -> "Verdict":
                    return path

                @staticmethod
                def build(dirs) -> Guard | None:
                    return None


            def within(candidate, dirs, /, *, deep=True):
                return True


            default = Guard()
            typed: Ledger = shared
            """,
        },
    )
    types = module_types(ProjectView(), str(tmp_path / "guards.py"))
    assert types.classes["Guard"].signatures == {
        "check": (("path", "extra", "strict"), "Verdict"),
        "build": (("dirs",), "Guard"),
    }
    assert types.params == {"within": ("candidate", "dirs", "deep")}
    assert types.instances == {"default": "Guard", "typed": "Ledger"}
    assert types.written == {"Ledger": (".registry", "Registry"), "shared": (".registry", "shared")}


def test_a_module_typed_in_the_middle_of_an_analysis_is_parsed_without_the_collector(tmp_path):
    """`module_types` is asked while LibCST trees are alive (the resolver's, mid-analysis): a bare
    `ast.parse` of a big module had the cyclic collector run at every threshold and scan the
    older generations too (issue 37: context-forge's 93 such parses, 1.1 s of its `-j 1` check,
    0.37 s without). It parses with the collector paused (core.collector): only the youngest
    generation is collected while the module is typed, where a bare parse of this module
    collected the middle one too."""
    import gc

    body = "".join(f"def f{i}(a: int) -> Store:\n    return Store(a)\n\n" for i in range(3000))
    module = tmp_path / "big.py"
    module.write_text("class Store:\n    pass\n\n" + body, encoding="utf-8")
    collections: list = []

    def note(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(note)
    try:
        types = module_types(ProjectView(), str(module))
    finally:
        gc.callbacks.remove(note)
    assert set(collections) <= {0}, collections
    assert "Store" in types.classes and types.functions["f2999"][0].endswith("Store")


def test_a_module_the_parser_warns_about_is_typed_under_w_error(tmp_path):
    """A string the parser warns about (`"\\d"`) does not cost the module its types where
    warnings are errors (`python -W error`): the parse ignores the parser's warnings, as the
    screens' does (core.screen.parsed)."""
    import warnings

    module = tmp_path / "patterns.py"
    module.write_text('PATTERN = "\\d"\n\nclass Store:\n    pass\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        types = module_types(ProjectView(), str(module))
    assert "Store" in types.classes
