"""The syntax screen (core/screen.py, each rule's `screen_tree`) is a shortcut that must never
lose a finding. On every fixture and every rule example: each finding a rule makes with all
screens forced open must pass that rule's `screen_tree`, and a run with the screens gives
exactly the findings of a run without them. A screen that drops a finding fails here, whichever
rule's detection moved (a new shape in a rule needs its screen taught the same shape).

The same check over the development corpus: `benchmarks/run.py --lossless --repos DIR`."""

from __future__ import annotations

import ast
import itertools
import os
from pathlib import Path

import pytest

from mcp_migrate.api import check_bytes, default_settings
from mcp_migrate.core import ast_nodes, engine, screen, screening
from mcp_migrate.core.sdk import EXAMPLE_IMPORT
from mcp_migrate.rules import all_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = sorted(FIXTURES.rglob("*.py"))
RULES = {rule.CODE: rule for rule in all_rules()}
#: Each rule's own screen_tree, taken before any test forces the screens open.
SCREEN_TREES = {rule.CODE: rule.screen_tree for rule in all_rules()}
EXAMPLES = [
    pytest.param(example.code.encode(), id=f"{rule.CODE}-{kind}-{i}")
    for rule in all_rules()
    for kind, examples in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for i, example in enumerate(examples)
]


@pytest.fixture
def screens_open(monkeypatch):
    """Every shortcut off: the gate, the byte screens and the syntax screens always let through
    (a rule's scope, `applies`, stays: it is meaning, not a shortcut)."""

    def switch():
        monkeypatch.setattr(screening, "gate_open", lambda data, settings, classes=None: True)
        for rule in all_rules():
            monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
            monkeypatch.setattr(rule, "screen_tree", classmethod(lambda cls, syntax, settings: True))

    yield switch


def _codes(data: bytes, path: str, settings) -> set:
    return {f.code for f in check_bytes(data, path, settings).findings if f.code in RULES}


def _dropped(data: bytes, path: str, codes: set, settings) -> list:
    """The rules whose screen_tree says no where the rule itself found something (none when
    the standard library's parser cannot read the file: then every rule runs)."""
    syntax = screen.read(data, path)
    if syntax is None:
        return []
    return sorted(code for code in codes if not SCREEN_TREES[code](syntax, settings))


def test_no_screen_drops_a_fixture_finding(screens_open):
    settings = default_settings()
    screens_open()
    found = {p: _codes(p.read_bytes(), str(p), settings) for p in SOURCES}
    assert sum(map(len, found.values())) > 150  # the check covers real findings of every rule
    assert {code for codes in found.values() for code in codes} == set(RULES)
    unread = sorted(str(p.relative_to(FIXTURES)) for p in found if screen.read(p.read_bytes()) is None)
    assert all(name.startswith("migrate/py312/") or "syntax" in name for name in unread), unread
    dropped = {
        str(p.relative_to(FIXTURES)): d
        for p, codes in found.items()
        if (d := _dropped(p.read_bytes(), str(p), codes, settings))
    }
    assert dropped == {}


@pytest.mark.parametrize("data", EXAMPLES)
def test_no_screen_drops_an_example_finding(data, screens_open):
    settings = default_settings()
    screens_open()
    codes = _codes(data, "<example>", settings)
    assert _dropped(data, "<example>", codes, settings) == []


def _findings(paths_and_data: list, settings) -> dict:
    return {
        path: [(f.line, f.column, f.code, f.message) for f in check_bytes(data, path, settings).findings]
        for path, data in paths_and_data
    }


def test_the_syntax_screen_gives_the_findings_of_a_run_without_it(monkeypatch):
    """End to end: the rules the syntax screen leaves out change nothing for the rules that run
    (the byte screens as they are; tests/test_gate.py opens those)."""
    settings = default_settings()
    inputs = [(str(p), p.read_bytes()) for p in SOURCES]
    inputs += [(f"<example {i}>", param.values[0]) for i, param in enumerate(EXAMPLES)]
    shortcut = _findings(inputs, settings)
    for rule in all_rules():
        monkeypatch.setattr(rule, "screen_tree", classmethod(lambda cls, syntax, settings: True))
    assert _findings(inputs, settings) == shortcut


def test_the_screen_skips_what_no_rule_can_report(monkeypatch):
    """Files the byte screens let through for a word in a comment, a docstring or an unused
    name never reach LibCST; the screen's work is counted, not timed."""
    settings = default_settings()
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda data: parsed.append(1) or real_parse(data))
    quiet = [
        EXAMPLE_IMPORT + "# TODO: ask the client with session.list_roots() one day\n",
        EXAMPLE_IMPORT + 'def f():\n    """Sends notifications/roots/list_changed, see file:///docs."""\n',
        EXAMPLE_IMPORT + 'def f():\n    """Handles a RootsListChangedNotification; see ListRootsRequest."""\n',
        "from mcp import ClientSession\n\nasync def run(r, w):\n"
        "    async with ClientSession(r, w, None, None, None, None) as s:\n        await s.initialize()\n",
        EXAMPLE_IMPORT + "def badge(tool):\n    return 'ro' if tool.annotations.readOnlyHint else ''\n",
        EXAMPLE_IMPORT
        + 'def f(path, prefix):\n    """Under a Root from list_roots?"""\n    return path.startswith(prefix)\n',
    ]
    for source in quiet:
        data = source.encode()
        assert engine.screens(data, "x.py", settings).byte_rules, source  # the bytes alone let it through
        assert check_bytes(data, "x.py", settings).findings == []
    assert parsed == []


#: (code, a file its byte screens let through that the rule finds nothing in, the same shape
#: the rule reports): the syntax screen asks what the rule asks, so the first never reaches
#: LibCST and the second keeps its finding.
SCREENED_PAIRS = [
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT
        + "from urllib.parse import urlparse\n\ndef resource_title(uri):  # not a root's\n"
        + '    return urlparse(uri or "/root").path\n',
        EXAMPLE_IMPORT
        + "from urllib.parse import urlparse\n\ndef to_path(root_uri):\n    return urlparse(root_uri).path\n",
        id="RT102-a-bare-uri-is-any-scheme-s",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + 'def resource(p):  # not a root\n    return {"resource_uri": f"file://{p}"}\n',
        EXAMPLE_IMPORT + 'def share(p):\n    return {"roots": [f"file://{p}"]}\n',
        id="RT102-an-assembled-uri-lands-in-no-root",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "from urllib.parse import urlparse\n\n# resource URIs\n"
        'def is_local(u):\n    return urlparse(u).scheme == "file"\n\n'
        "def route(u):\n    return urlparse(u).path\n",
        EXAMPLE_IMPORT + "from urllib.parse import urlparse\n\n# resource URIs\n"
        'def to_path(u):\n    parsed = urlparse(u)\n    if parsed.scheme == "file":\n        return parsed.path\n',
        id="RT102-a-scheme-test-counts-in-its-own-function",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT
        + '# resource URIs\nPREFIX = "file://"\n\ndef rest(text, prefix):\n    return text[len(prefix):]\n',
        EXAMPLE_IMPORT
        + '# resource URIs\nPREFIX = "file://"\n\ndef rest(text, prefix):\n    return text[len(PREFIX):]\n',
        id="RT102-a-len-slice-of-a-name-no-file-literal-is-bound-to",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "def make(p, roots):\n"
        '    created = ResourceCreate(name="r", uri=f"file://{p}")  # a resource\'s, in a file saying roots\n'
        "    created.save()\n    return len(roots)\n",
        EXAMPLE_IMPORT + 'def make(p, roots):\n    uri = f"file://{p}"\n    add_root(uri)\n    return len(roots)\n',
        id="RT102-an-assembled-uri-in-a-file-saying-roots-lands-in-no-root",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "def check(p, roots):\n"
        '    if f"file://{p}" in resource_uris:  # compared with resources\n        return len(roots)\n',
        EXAMPLE_IMPORT + 'def check(p, roots):\n    if f"file://{p}" in root_uris:\n        return len(roots)\n',
        id="RT102-an-assembled-uri-compared-with-no-root",
    ),
    pytest.param(
        "HA002",
        'from foundry.agents import McpToolbox\nMcpToolbox(require_approval="never")\n',
        'from agents.mcp import MCPServerStdio\nMCPServerStdio(params={}, require_approval="never")\n',
        id="HA002-not-openai-agents",
    ),
    pytest.param(
        "HA002",
        "from ag_ui import McpWrapper  # as google's adk\nMcpWrapper(agent=a, require_confirmation=False)\n",
        "from google.adk.tools.mcp_tool import McpToolset\nMcpToolset(connection_params=p, require_confirmation=False)\n",
        id="HA002-not-google-adk",
    ),
    pytest.param(
        "HA002",
        'settings = {"require_approval": "never", "retries": 3}  # for MCP\n',
        'tool = {"type": "mcp", "server_label": "x", "require_approval": "never"}\n',
        id="HA002-not-a-hosted-mcp-tool",
    ),
]


@pytest.mark.parametrize(("code", "quiet", "loud"), SCREENED_PAIRS)
def test_the_syntax_screen_asks_what_the_rule_asks(code, quiet, loud, monkeypatch):
    settings = default_settings()
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda data: parsed.append(1) or real_parse(data))
    decided = engine.screens(quiet.encode(), "x.py", settings)
    assert code in {rule.CODE for rule in decided.byte_rules}  # the bytes alone let it through
    assert code not in decided.codes
    assert check_bytes(quiet.encode(), "x.py", settings).findings == []
    assert parsed == []
    assert code in engine.screens(loud.encode(), "y.py", settings).codes
    assert [f.code for f in check_bytes(loud.encode(), "y.py", settings).findings] == [code]


#: (code, a file the rule's byte screen stops, the same shape the rule reports): the byte
#: screens find where each finding stands (core.byte_code), not only a word of it.
BYTE_PAIRS = [
    pytest.param(
        "HA002",
        EXAMPLE_IMPORT + 'tool = Tool(approval_mode={"always_require_approval": ["x"]}, never_require_approval=[])\n',
        'tool = {"type": "mcp", "server_label": "x", "require_approval"  # all\n    : "never"}\n',
        id="HA002-the-word-in-a-longer-name",
    ),
    pytest.param(
        "HA002",
        'from foundry.tools import McpToolbox\nMcpToolbox(require_approval="never")\n',
        'from agents.mcp import MCPServerStdio\nMCPServerStdio(params={},\n    require_approval="never")\n',
        id="HA002-a-keyword-where-openai-agents-cannot-be",
    ),
    pytest.param(
        "HA002",
        "from ag_ui import McpWrapper\nMcpWrapper(agent=a, require_confirmation=False)\n",
        "from google.adk.tools.mcp_tool import McpToolset\nMcpToolset(\n    connection_params=p,\n"
        "    require_confirmation=(\n        False\n    ),\n)\n",
        id="HA002-confirmation-without-google",
    ),
    pytest.param(
        "HA001",
        EXAMPLE_IMPORT + "from types import SimpleNamespace\n\n\ndef needs_approval(read_only):\n"
        '    """Asks unless readOnlyHint is set."""\n'
        "    return SimpleNamespace(readOnlyHint=read_only, destructiveHint=not read_only)\n",
        EXAMPLE_IMPORT + "def needs_approval(tool):\n    return not (tool.annotations.  # the hint\n"
        "        readOnlyHint)\n",
        id="HA001-a-hint-given-by-keyword-or-in-prose",
    ),
    pytest.param(
        "HA001",
        EXAMPLE_IMPORT
        + "def needs_approval(tool):\n"
        + "    return Tool(name=tool, annotations={\"readOnlyHint\": True, 'destructiveHint' : False})\n",
        EXAMPLE_IMPORT + "def needs_permission(tool):\n    return not flag(tool, 'readOnlyHint'  # the hint\n    )\n",
        id="HA001-a-hint-given-as-a-key",
    ),
    pytest.param(
        "RT002",
        "from mcp import ClientSession\n\n\nasync def run(r, w):\n    async with ClientSession(r, w) as session:\n"
        "        await session.initialize()\n",
        "from mcp import ClientSession as Session\n\n\nasync def run(r, w, cb):\n    async with Session(\n"
        "        r, w, None, None, None,  # timeout, sampling, elicitation\n        cb,\n    ) as session:\n"
        "        await session.initialize()\n",
        id="RT002-a-session-without-a-sixth-argument",
    ),
    pytest.param(
        "RT002",
        "from mcp.client.session import ClientSession as Runtime\n\n\nasync def run(t, h, s):\n"
        "    async with Runtime(\n        read_stream=t[0], write_stream=t[1], read_timeout_seconds=None,\n"
        "        message_handler=h, logging_callback=h, sampling_callback=s,\n    ) as session:\n"
        "        await session.initialize()\n",
        "from mcp.client.session import ClientSession as Runtime\n\n\nasync def run(t, h, cb):\n"
        "    async with Runtime(\n        t[0], t[1], None, None, None,  # timeout, sampling, elicitation\n"
        "        cb, message_handler=h,\n    ) as session:\n        await session.initialize()\n",
        id="RT002-six-arguments-by-keyword",
    ),
    pytest.param(
        "RT103",
        EXAMPLE_IMPORT + 'class MCPRootSettings:\n    "Root directories this server may read."\n\n\n'
        "def inside(p, roots: list[MCPRootSettings]):\n    return any(p.startswith(str(r.uri)) for r in roots)\n",
        "from mcp.types import Root\n\n\ndef inside(p, roots: list[  # the client's\n    Root]):\n"
        "    return any(p.startswith(str(r.uri)) for r in roots)\n",
        id="RT103-a-roots-type-only-in-a-longer-name-or-prose",
    ),
    pytest.param(
        "RT101",
        EXAMPLE_IMPORT + 'def skill(base, name):\n    """Root directory of a skill; its roots are not checked."""\n'
        '    uri = "https://example.com/" + name\n    return {"uri": uri, "root": base}\n',
        'from mcp.types import Root as R\n\nr = R(  # the client\'s\n    uri  # where\n    = "https://example.com/repo")\n',
        id="RT101-a-root-in-prose-and-a-uri-assigned",
    ),
    pytest.param(
        "RT101",
        EXAMPLE_IMPORT + 'def share(roots, uri):\n    found = roots == uri\n    return {"roots": found, "uri": uri}\n',
        'result = {"roots"  # listed\n    : ([{"uri": "s3://bucket/data", "name": "data"}])}\n',
        id="RT101-roots-not-given-a-list",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "# resource URIs\n" + 'def local(uri):\n    return uri.startswith("file://")\n',
        EXAMPLE_IMPORT
        + "# resource URIs\n"
        + 'def local(uri):\n    return uri.replace(  # the prefix\n        ("file://"), ""\n    )\n',
        id="RT102-a-file-literal-no-screen-shape-uses",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT
        + "# resource URIs\nfrom urllib.parse import urlparse\n\ndef title(uri):\n    return urlparse(uri).path\n",
        EXAMPLE_IMPORT
        + "# resource URIs\nfrom urllib.parse import urlparse\n\ndef to_path(root_uri):\n    return urlparse(root_uri) . path\n",
        id="RT102-a-parse-of-a-uri-that-names-no-root",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "# resource URIs\n" + 'PREFIX = "file://"\n\ndef rest(uri):\n    return uri[7:9]\n',
        EXAMPLE_IMPORT + "# resource URIs\n" + 'PREFIX = "file://"\n\ndef rest(uri):\n    return uri[(7)::]\n',
        id="RT102-a-slice-with-an-end",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + 'ROOT = "file:///srv"\n\ndef is_root(root_uri):\n    return root_uri == ROOT\n',
        EXAMPLE_IMPORT + 'def to_root_uri(path):\n    return ("file://"  # the scheme\n    ) + path\n',
        id="RT102-a-root-word-and-a-file-literal-nothing-assembles",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + 'ROOT = """file:///srv"""  # a root\n',
        EXAMPLE_IMPORT + 'def to_root_uri(path):\n    return Rf"""file://{path}"""\n',
        id="RT102-a-triple-quoted-f-string",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT
        + "class ServerStatus:\n    roots_configured: bool = False\n    exception_module_roots: list = []\n"
        "\n\ndef show(status, capabilities):\n    return status.roots_configured, capabilities\n",
        EXAMPLE_IMPORT + "class HostCapabilities:\n    roots = {}\n",
        id="RT003-a-roots-field-written-with-blanks",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT + "def count(capabilities, status):\n    return len(status.roots_seen), capabilities\n",
        EXAMPLE_IMPORT + "caps = HostCapabilities(roots = {})\n",
        id="RT003-roots-given-by-keyword-with-blanks",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT + "def count(client_caps):\n    return client_caps.roots_seen\n",
        EXAMPLE_IMPORT + "def f(client_caps):\n    return (client_caps.  # declared?\n        roots)\n",
        id="RT003-a-roots-attribute-after-a-comment",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT
        + "def status(server_cfg, capabilities):\n    roots = server_cfg.roots\n    return roots, capabilities\n",
        EXAMPLE_IMPORT + "class HostCapabilities:\n    roots: dict = {}\n",
        id="RT003-a-local-named-roots-is-no-field",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT + 'def folders(config, capabilities):\n    return config.get("roots", []), capabilities\n',
        EXAMPLE_IMPORT + 'def declared(client_caps):\n    return getattr(client_caps, "roots", None)\n',
        id="RT003-a-roots-key-read-from-no-capabilities",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT + "HELP = \"Uses MCP 'roots' to map folders\"  # capabilities\n",
        EXAMPLE_IMPORT + 'PARAMS = {"capabilities": {"roots": {}}}\n',
        id="RT003-roots-in-a-sentence",
    ),
    pytest.param(
        "RT003",
        EXAMPLE_IMPORT
        + 'SECTIONS = ["resources",\n    "roots"]  # capabilities\n\ndef shown(normalized, context, kind):\n'
        + '    if kind == "roots":\n        return "roots" in context["hidden"]\n'
        + '    return "roots" in normalized or context["roots"]\n',
        EXAMPLE_IMPORT + 'PARAMS = {"capabilities": {"roots": {}}}\n',
        id="RT003-a-section-named-roots",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT
        + "from urllib.parse import urlparse\n\ndef resource_title(uri):  # not a root's\n    return urlparse(uri).path\n",
        EXAMPLE_IMPORT
        + "from urllib.parse import urlparse\n\ndef to_path(root_uri):\n    return urlparse(root_uri).path\n",
        id="RT102-a-parse-of-what-names-no-root",
    ),
    pytest.param(
        "RT102",
        EXAMPLE_IMPORT + "# resource uri\ndef tail(text):\n    return text[7:]\n",
        EXAMPLE_IMPORT + "# resource uri\ndef tail(uri):\n    return uri[(7):]\n",
        id="RT102-a-cut-of-what-names-no-uri",
    ),
    pytest.param(
        "RT006",
        EXAMPLE_IMPORT + "def show(server, roots):\n    return server.tools.list_changed, roots\n",
        "from acme_mcp.base import Field, Model\n\nclass Caps(Model):\n"
        "    roots: dict = Field(default_factory=lambda: {'listChanged': True})\n",
        id="RT006-a-flag-read-is-none-given",
    ),
]


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        ("def anchor_worktree_roots(paths):\n    return paths\n", False),
        ("async def \\\n        outside_roots(paths):\n    return paths\n", False),
        ("class Pinned_roots(object):\n    pass\n", False),
        ("def anchor(paths):\n    return helpers.anchor_worktree_roots(paths)\n", True),
        ("def anchor_worktree_roots(paths):\n    return paths\n\nanchor_worktree_roots([])\n", True),
    ],
)
def test_rt001s_byte_screen_reads_a_roots_helper_called_not_defined(source, passes):
    """A `*_roots(` helper is RT001's where it is called: a definition's name asks nothing (a
    helper that asks holds the other tokens in its body)."""
    data = (EXAMPLE_IMPORT + source).encode()
    assert RULES["RT001"].screen(data) is passes


@pytest.mark.parametrize(
    ("code", "source"),
    [
        ("RT003", 'PARAMS = {"capabilities": {("roots"): {}}}\n'),
        ("RT003", "class HostCapabilities:\n    (roots) = {}\n"),
        ("RT003", "def probe(caps):\n    return ('roots') in caps\n"),
        ("RT003", "def probe(caps):\n    return (caps).roots\n"),
        ("RT003", "def probe(caps):\n    return getattr((caps), 'roots', None)\n"),
        ("RT003", "def probe(caps):\n    return getattr(caps, ('roots'))\n"),
        ("RT003", "def probe(caps):\n    return (caps).get(('roots'))\n"),
        ("RT102", "from urllib.parse import urlparse\n\ndef to_path(root):\n    return (urlparse)(root.uri).path\n"),
        ("RT102", "# resource URIs\ndef rest(uri):\n    return (uri)[7:]\n"),
        ("HA001", "def needs_permission(tool):\n    return not flag(tool, ('readOnlyHint'))\n"),
    ],
)
def test_a_byte_screen_reads_its_shapes_through_parentheses(code, source):
    """Parentheses make no node: a shape the syntax screen keeps, written in them, the byte
    screen lets through (a key, a probe, a receiver, a called parse, a sliced value, a hint)."""
    assert code in engine.screens((EXAMPLE_IMPORT + source).encode(), "x.py", default_settings()).codes


def test_rt101s_syntax_screen_reads_a_roots_entry_through_its_root_mappings():
    """A `"roots"` entry's URIs are the `"uri"` of its root mappings (`visit_DictElement`); its
    plain strings are no root's (a gateway's permission table: `{"roots": ("roots",)}`), while
    a list given as `roots=` may hold URIs itself (fastmcp's `roots=["/srv"]`)."""
    settings = default_settings()
    quiet = (EXAMPLE_IMPORT + 'SECTIONS = {"roots": ("roots", "/admin/roots"), "tools": ("tools",)}\n').encode()
    loud = (EXAMPLE_IMPORT + 'ANSWER = {"roots": [{"uri": "https://example.com/repo", "name": "repo"}]}\n').encode()
    given = b"from fastmcp import Client\n\nclient = Client('server.py', roots=['/home/me/repo'])\n"
    assert "RT101" in {rule.CODE for rule in engine.screens(quiet, "x.py", settings).byte_rules}
    assert "RT101" not in engine.screens(quiet, "x.py", settings).codes
    assert check_bytes(quiet, "x.py", settings).findings == []
    for data in (loud, given):
        assert "RT101" in engine.screens(data, "y.py", settings).codes
        assert "RT101" in {f.code for f in check_bytes(data, "y.py", settings).findings}


@pytest.mark.parametrize(("code", "quiet", "loud"), BYTE_PAIRS)
def test_the_byte_screen_finds_where_the_finding_stands(code, quiet, loud):
    settings = default_settings()
    assert code not in {rule.CODE for rule in engine.screens(quiet.encode(), "x.py", settings).byte_rules}
    assert check_bytes(quiet.encode(), "x.py", settings).findings == []
    assert code in engine.screens(loud.encode(), "y.py", settings).codes
    assert [f.code for f in check_bytes(loud.encode(), "y.py", settings).findings] == [code]


def test_a_file_the_standard_parser_cannot_read_keeps_its_rules():
    """Syntax newer than this Python (or any the `ast` module rejects) leaves the decision to
    the byte screens and LibCST: the screen never guesses."""
    settings = default_settings()
    data = b"from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n    await ctx.session.list_roots()\nprint 'x'\n"
    with pytest.raises(SyntaxError):
        ast.parse(data)
    decided = engine.screens(data, "x.py", settings)
    assert not decided.read and decided.rules == decided.byte_rules != ()


#: A module with a PEP 695 `type` alias (Python 3.12's syntax), which the parser of Python
#: 3.10 and 3.11 refuses.
ALIAS = "type Paths = list[str]\n"


def test_a_type_alias_leaves_the_syntax_screen_its_say_on_any_python(monkeypatch):
    """Before 3.12 the screen reads each `type` alias statement as an assignment (fast-agent:
    4 of the 6 modules LibCST parsed without a finding held one); the tree it read that way
    is the screens' only, since its columns on those lines are not the file's."""
    settings = default_settings()
    parsed = []
    real_parse = engine.cst.parse_module
    monkeypatch.setattr(engine.cst, "parse_module", lambda data: parsed.append(1) or real_parse(data))
    quiet = (
        EXAMPLE_IMPORT
        + ALIAS
        + "from urllib.parse import urlparse\n\ndef resource_title(uri):  # not a root's\n"
        + '    return urlparse(uri or "/root").path\n'
    ).encode()
    syntax = screen.read(quiet)
    assert syntax is not None and syntax.exact is screen.TYPE_ALIASES_READ
    decided = engine.screens(quiet, "x.py", settings)
    assert "RT102" in {rule.CODE for rule in decided.byte_rules} and decided.read
    assert "RT102" not in decided.codes
    assert (decided.tree is None) is not screen.TYPE_ALIASES_READ
    assert check_bytes(quiet, "x.py", settings).findings == []
    assert parsed == []


def test_a_finding_after_a_type_alias_keeps_its_position():
    settings = default_settings()
    loud = (
        "from mcp.server.fastmcp import Context\n"
        + ALIAS
        + "    \n"
        + "async def t(ctx: Context):\n    type Inner = int\n    return await ctx.session.list_roots()\n"
    ).encode()
    assert "RT001" in engine.screens(loud, "x.py", settings).codes
    assert [(f.code, f.line, f.column) for f in check_bytes(loud, "x.py", settings).findings] == [("RT001", 6, 18)]


def test_rt002s_literal_first_search_finds_what_its_pattern_finds():
    """RT002's byte screen looks for a project's own provider API by the literals of OWN_API
    (`own_api`): the same answer as the pattern on every fixture and on spellings at the edges
    of each alternative (word boundaries, the 8-byte window before `_root`)."""
    from mcp_migrate.rules.rt002_screen import OWN_API, own_api

    cases = [p.read_bytes() for p in SOURCES]
    words = [b"set_roots", b"register_roots_x", b"replace_root", b"add_root", b"update_rootsy", b"RootProvider"]
    words += [b"RootCallbacks", b"roots_provider =", b"MyRootsFn", b"_RootHandler", b"xRootHandler", b"root_set"]
    cases += [
        pre + word + post for word in words for pre in (b"", b" ", b"a", b"_") for post in (b"", b" ", b"z", b"_")
    ]
    assert sum(bool(OWN_API.search(data)) for data in cases) > 40
    assert [own_api(data) for data in cases] == [bool(OWN_API.search(data)) for data in cases]


def test_the_runner_screens_each_file_once_and_with_the_rule_classes(tmp_path, monkeypatch):
    """The runner screens a pooled check's files first, to decide what a pool gets. A run's
    planned Settings name the rules by code only (start-up loads no rule until a file passes
    the screens, which run with the rules' screen classes): screened with the Settings' empty
    rules, every file looked rule-free, none went to the pool, and the
    engine screened each file again (a 15,000-file tree ran in one process, 1.4x the wall time)."""
    from mcp_migrate.run import schedule
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions

    monkeypatch.chdir(tmp_path)
    count = schedule.POOL_THRESHOLD + 1
    for i in range(count):  # the MCP gate opens, no rule's screen holds: all checked in this process
        (tmp_path / f"m{i}.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")
    calls = []
    real = screening._screens

    def counted(data, path, settings, classes):
        calls.append(len(classes))
        return real(data, path, settings, classes)

    monkeypatch.setattr(screening, "_screens", counted)
    items = plan(["."], CheckOptions()).items
    results = schedule.run_items(items, jobs=2)
    assert (len(results), sum(len(r.findings) for r in results)) == (count, 0)
    assert len(calls) == count and all(calls), calls[:4]


def test_the_runner_asks_each_files_gate_once(tmp_path, monkeypatch):
    """A pooled check tests each file against the gate while it screens: a file the gate keeps
    out is finished with that answer, not handed to the engine to be tested again (the gate's
    substring tests were a sixth of a 5,000-file site-packages run, paid twice)."""
    from mcp_migrate.core import gates
    from mcp_migrate.run import schedule
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions

    monkeypatch.chdir(tmp_path)
    count = schedule.POOL_THRESHOLD + 1
    for i in range(count):
        (tmp_path / f"p{i}.py").write_text("import os\n\nprint(os.sep)\n")
    (tmp_path / "s.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")
    calls = []
    real = gates.may_report

    def counted(data, settings):
        calls.append(data)
        return real(data, settings)

    monkeypatch.setattr(gates, "may_report", counted)
    items = plan(["."], CheckOptions()).items
    results = schedule.run_items(items, jobs=2)
    assert (len(results), sum(len(r.findings) for r in results)) == (count + 1, 0)
    # each closed file once; the open one once here and once in the engine's check
    assert len(calls) == count + 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_screen_that_raises_costs_its_file_only(tmp_path, monkeypatch, jobs):
    """A bug in a rule's screens is an internal error of the file it raised on, as a rule's is:
    the runner's screening loop (before the pool) does not stop the run."""
    from mcp_migrate.rules.rt001_screen import RootsRequestScreen
    from mcp_migrate.run import schedule
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions

    monkeypatch.chdir(tmp_path)
    count = schedule.POOL_THRESHOLD + 1
    for i in range(count):
        (tmp_path / f"m{i}.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")
    (tmp_path / "boom.py").write_text("from mcp.server.fastmcp import FastMCP\n\n# BOOM\n")
    real = RootsRequestScreen.screen.__func__

    def raising(cls, data):
        if b"BOOM" in data:
            raise RuntimeError("a screen's bug")
        return real(cls, data)

    monkeypatch.setattr(RootsRequestScreen, "screen", classmethod(raising))
    results = schedule.run_items(plan(["."], CheckOptions()).items, jobs=jobs)
    broken = {r.path: [e.message for e in r.errors] for r in results if r.errors}
    assert len(results) == count + 1 and list(broken) == ["boom.py"]
    assert "a screen's bug" in broken["boom.py"][0]
    assert sum(len(r.findings) for r in results) == 0


def _mixed_tree(root, closed: int) -> None:
    """Three files no gate opens, an MCP file a rule reports on, one it does not, then
    `closed` more files no gate opens."""
    for name in [f"a{i}" for i in range(3)] + [f"z{i:03}" for i in range(closed)]:
        (root / f"{name}.py").write_text("import os\n\nprint(os.sep)\n")
    (root / "m_ask.py").write_text(
        "from mcp.server.fastmcp import Context\n\n\nasync def tool(ctx: Context):\n"
        "    return await ctx.session.list_roots()\n"
    )
    (root / "m_plain.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")


def _run_findings(results) -> list:
    return [(r.path, [(f.code, f.line, f.column) for f in r.findings], r.errors) for r in results]


def _pooled_run(monkeypatch, budget: int):
    """A `-j 2` run of the current folder, big enough to be screened in the pool (the threshold
    lowered to `POOL_THRESHOLD + 1` files), whose main process spends its budget once it has
    screened `budget` files (a clock that counts them): (its plan's items, its results, the rule
    loads and pool starts of the main process, in order)."""
    from mcp_migrate import api
    from mcp_migrate.run import schedule
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions

    monkeypatch.setattr(schedule, "SCREEN_POOL_FILES", schedule.POOL_THRESHOLD + 1)
    monkeypatch.setattr(schedule, "SCREEN_BUDGET", budget)
    monkeypatch.setattr(schedule, "_clock", itertools.count().__next__)
    items = plan(["."], CheckOptions()).items
    events: list = []
    real_rules, real_pool = api.with_rules, schedule.run_pool
    monkeypatch.setattr(api, "with_rules", lambda s: events.append("rules") or real_rules(s))

    def pool(func, pending, workers, advance, alone=0):
        events.append(("pool", len(pending), alone))
        return real_pool(func, pending, workers, advance, alone)

    monkeypatch.setattr(schedule, "run_pool", pool)
    return items, schedule.run_items(items, jobs=2), events


def test_a_big_check_is_screened_in_the_pool_with_the_results_of_one_process(tmp_path, monkeypatch):
    """From `SCREEN_POOL_FILES` files on, once the main process has spent its budget screening,
    the pool reads and screens the rest, with the files left for LibCST so far; the main process
    loads the rules before the workers start, so they inherit them. The results are those of
    `-j 1`, in the plan's order."""
    from mcp_migrate.run import schedule

    monkeypatch.chdir(tmp_path)
    _mixed_tree(tmp_path, schedule.POOL_THRESHOLD + 10)
    items, pooled, events = _pooled_run(monkeypatch, budget=4)
    # a0-a2 were decided here; m_ask, left for LibCST, goes to the pool with the 75 files after
    # it, in a batch of its own
    assert events == ["rules", ("pool", schedule.POOL_THRESHOLD + 12, 1)], events
    alone = schedule.run_items(items, jobs=1)
    assert _run_findings(pooled) == _run_findings(alone)
    assert [code for _, found, _ in _run_findings(pooled) for code, _, _ in found] == ["RT001"]


def test_a_big_check_screened_within_its_budget_starts_no_pool(tmp_path, monkeypatch):
    """A tree whose screening here costs less than the budget (the standard library's, which
    the gate mostly closes) is not handed to a pool: its workers would cost more CPU than the
    check left. Nor are the rules loaded where no file is left for LibCST."""
    from mcp_migrate import api
    from mcp_migrate.run import schedule

    monkeypatch.chdir(tmp_path)
    _mixed_tree(tmp_path, 2 * schedule.POOL_THRESHOLD)  # 132 files: the old 64-file probe pooled 68
    (tmp_path / "m_ask.py").unlink()
    items, results, events = _pooled_run(monkeypatch, budget=len(os.listdir(tmp_path)))
    assert events == []
    assert [r.path for r in results] == [source.display for source, _ in items]
    assert not any(r.findings or r.errors for r in results)

    def refused(*args):
        raise AssertionError("not wanted here")

    monkeypatch.setattr(api, "with_rules", refused)
    monkeypatch.setattr(schedule, "run_pool", refused)
    assert [r.path for r in schedule.run_items(items, jobs=2)] == [r.path for r in results]


def test_a_big_check_hands_the_rest_to_the_pool_once_its_budget_is_spent(tmp_path, monkeypatch):
    """Where no file is left for LibCST before the budget is spent, the pool starts for the rest
    without the rules (a worker that meets an MCP file loads them)."""
    from mcp_migrate.run import schedule

    monkeypatch.chdir(tmp_path)
    _mixed_tree(tmp_path, 3 * schedule.POOL_THRESHOLD)
    for i in range(schedule.POOL_THRESHOLD):  # closed files sorted before the MCP ones
        (tmp_path / f"0{i:03}.py").write_text("import os\n")
    items, pooled, events = _pooled_run(monkeypatch, budget=10)
    assert events == [("pool", len(items) - 10, 0)], events
    assert _run_findings(pooled) == _run_findings(schedule.run_items(items, jobs=1))
    assert [code for _, found, _ in _run_findings(pooled) for code, _, _ in found] == ["RT001"]


@pytest.mark.parametrize(("budget", "pooled_files"), [(13, 67), (14, 66), (15, None)])
def test_a_spent_budget_hands_the_pool_more_than_pool_threshold_files_or_none(
    tmp_path, monkeypatch, budget, pooled_files
):
    """Past the budget the rest goes to the pool only while more than `POOL_THRESHOLD` files
    are unread (79 here: after 15 files, 64 are left, checked here); the file left for LibCST
    before the cut (m_ask, the fourth) goes with them."""
    from mcp_migrate.run import schedule

    monkeypatch.chdir(tmp_path)
    _mixed_tree(tmp_path, schedule.POOL_THRESHOLD + 10)
    items, pooled, events = _pooled_run(monkeypatch, budget=budget)
    assert len(items) == schedule.POOL_THRESHOLD + 15
    pools = [event for event in events if event != "rules"]
    assert pools == ([("pool", pooled_files, 1)] if pooled_files else [])
    assert _run_findings(pooled) == _run_findings(schedule.run_items(items, jobs=1))


@pytest.mark.parametrize(("budget", "pooled_files"), [(90, 116), (110, None)])
def test_a_spent_budget_hands_on_only_a_rest_that_would_cost_as_much_again(tmp_path, monkeypatch, budget, pooled_files):
    """Past the budget the rest goes to the pool only where, at the rate so far, it would cost
    the budget again: here each file costs one tick, so after 90 of 205 files the 115 left
    would cost 115 (pooled, with m_ask), but after 110 the 95 left cost less than 110, and
    every later file leaves less: the check ends here."""
    from mcp_migrate.run import schedule

    monkeypatch.chdir(tmp_path)
    _mixed_tree(tmp_path, 200)
    items, pooled, events = _pooled_run(monkeypatch, budget=budget)
    assert len(items) == 205
    pools = [event for event in events if event != "rules"]
    assert pools == ([("pool", pooled_files, 1)] if pooled_files else [])
    assert _run_findings(pooled) == _run_findings(schedule.run_items(items, jobs=1))


def test_child_nodes_are_iter_child_nodes_less_contexts_and_operators():
    """The screens' fast child listing gives the standard library's children, in its order,
    but the expression contexts and operators (nodes that hold nothing a screen asks for)."""
    holds_nothing = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    compared = 0
    for path in _oracle_paths():
        tree = _parsed(path)
        if tree is None:
            continue
        for node in ast.walk(tree):
            expected = [c for c in ast.iter_child_nodes(node) if not isinstance(c, holds_nothing)]
            assert [id(c) for c in ast_nodes.child_nodes(node)] == [id(c) for c in expected], (path, node)
            compared += 1
    assert compared > 50_000


def _oracle_paths() -> list:
    import argparse
    import dataclasses
    import typing

    return SOURCES + [Path(module.__file__) for module in (ast, argparse, dataclasses, typing)]


def test_the_index_holds_every_node_ast_walk_meets_less_contexts_and_operators():
    """`Syntax` walks a tree by each node class's grammar signature (a name or a number is never
    looked at): it must hold exactly the nodes `ast.walk` meets, but the contexts and operators,
    on every fixture and on large standard-library modules; `{**x}` and `def f(*, a)` put a
    None in a list field, which the walk skips."""
    holds_nothing = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    extra = ast.parse("d = {**x, 'a': 1}\ndef f(*, a, b=2): ...\nglobal g\nmatch m:\n    case C(k=1): pass\n")
    compared = 0
    for tree in [extra] + [_parsed(path) for path in _oracle_paths()]:
        if tree is None:
            continue
        expected: dict = {}
        for node in ast.walk(tree):
            if not isinstance(node, holds_nothing):
                expected.setdefault(node.__class__, set()).add(id(node))
                compared += 1
        found = screen.Syntax(tree, b"")._by
        assert {kind: {id(node) for node in nodes} for kind, nodes in found.items()} == expected
        assert sum(map(len, found.values())) == sum(map(len, expected.values()))  # each node once
    assert compared > 30_000


def test_a_node_class_whose_signature_cannot_be_read_has_every_value_tested(monkeypatch):
    """Another Python may document its node classes otherwise: a class without a readable
    signature falls back to testing each field's value, and loses no node."""
    tree = ast.parse("d = {**x, 'a': f(y)}\n")
    monkeypatch.setattr(ast.Dict, "__doc__", "a mapping display")
    monkeypatch.setattr(ast_nodes, "_PLANS", {})
    monkeypatch.setattr(ast_nodes, "_SPLIT_PLANS", {})
    assert ast_nodes._plan(ast.Dict) == (("keys", ast_nodes._UNKNOWN), ("values", ast_nodes._UNKNOWN))
    found = screen.Syntax(tree, b"")._by
    assert sorted(node.id for node in found[ast.Name]) == ["d", "f", "x", "y"]
    assert [child.__class__ for child in ast_nodes.child_nodes(tree.body[0].value)] == [
        ast.Constant,
        ast.Name,
        ast.Call,
    ]


def _parsed(path: Path):
    try:
        return ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return None


def test_each_rule_is_screened_only_where_its_own_gate_opens(monkeypatch):
    """The joined gate opens a file for every rule; a rule's screens run only where its own
    gate (its page's `gate`) holds too, each token searched for once: the word `Hint` opens
    the file for HA001, and no Roots rule's screens read it."""
    from mcp_migrate import api

    settings = default_settings()
    classes = api.screen_classes(settings.select, settings.extend_apis)
    asked: list = []
    for rule in classes:
        real = rule.runs_on.__func__
        monkeypatch.setattr(
            rule, "runs_on", classmethod(lambda cls, *a, _r=real: asked.append(cls.CODE) or _r(cls, *a))
        )
    data = b"def f(x):\n    return x  # Hint: nothing else\n"
    decided = screening.screens(data, "hint.py", settings, classes)
    assert decided.gate and not decided.rules
    assert [code for code in asked if code.startswith("RT")] == [] and "HA001" in asked
    # The same rule classes on a file their gates open are all asked.
    asked.clear()
    screening.screens(b"import mcp\nroots = 1\n", "roots.py", settings, classes)
    assert {"RT001", "RT002", "RT003", "RT004", "RT005", "RT006"} <= set(asked)


@pytest.mark.parametrize(
    ("source", "written"),
    [
        ("client.set_roots(  # all of them\n    [a, b])\n", True),
        ("Client(roots=(a,))\n", True),
        ("{'roots' :\n  [r]}\n", True),
        ("roots \\\n = [r]\n", True),
        ("client.set_roots(roots)\n", False),
        ("myroots = [r]\nif roots == [r]:\n    pass\n", False),
        ("reset_roots([r])\n{'roots': roots}\n", False),
    ],
)
def test_rt101s_byte_screen_reads_a_roots_list_where_the_syntax_screen_does(source, written):
    from mcp_migrate.rules.rt101_screen import _writes_a_roots_list

    assert _writes_a_roots_list(source.encode()) is written


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        ("session = Mock(spec=ClientSession)\n", False),
        ("session = Mock(\n    # typed\n    spec=mcp.ClientSession,\n)\n", False),
        ("m = Mock(name='s', spec=ClientSession)\n", False),
        ("Session = ClientSession\n", True),
        ("Session: type = mcp.ClientSession\n", True),
        ("x = 1,\nSession = ClientSession\n", True),  # after a tuple statement, not an argument
        ("Session = Fake if testing else ClientSession\n", True),
    ],
)
def test_rt002s_byte_screen_follows_a_session_bound_to_a_name_not_a_keyword(source, passes):
    from mcp_migrate.rules.rt002_screen import _session_given_a_callback

    assert _session_given_a_callback(source.encode()) is passes


#: A test module whose `async def list_roots()` is a function's local (a stand-in patched over
#: a service's own method): nothing provides roots there (issue 37: a gateway's test module).
_LOCAL_STAND_IN = (
    "import mcp\n\ndef test_lists(monkeypatch, service):\n"
    "    async def list_roots():  # a stand-in for the service's own method\n        return []\n\n"
    '    monkeypatch.setattr(service, "list_roots", list_roots)\n'
)


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        (_LOCAL_STAND_IN, False),
        ("import mcp\n\nasync def list_roots():\n    return []\n", True),  # a module's API
        # a stub session's method, its class local to a helper (codevira's labelled shape)
        (
            "import mcp\n\ndef _session():\n    class _S:\n        async def list_roots(self):\n"
            "            return []\n\n    return _S()\n",
            True,
        ),
        # a local def and, in another function, a method of the same name
        (
            "import mcp\n\ndef a():\n    def list_roots():\n        return []\n\n"
            "def b():\n    class S:\n        def list_roots(self):\n            return []\n",
            True,
        ),
    ],
)
def test_rt002s_syntax_screen_takes_a_def_list_roots_that_is_api_not_a_functions_local(source, kept):
    from mcp_migrate.rules.rt002_screen import provider_in

    settings = default_settings()
    assert "RT002" in {rule.CODE for rule in engine.screens(source.encode(), "x.py", settings).byte_rules}
    assert provider_in(screen.read(source.encode(), "x.py")) is kept


def test_rt002s_syntax_screen_keeps_a_local_list_roots_that_is_handed_on():
    """The rule reports a local `list_roots` handed on as a callback (at the keyword and at its
    `def`): the keyword's own clause lets the file through."""
    source = _LOCAL_STAND_IN.replace(
        'monkeypatch.setattr(service, "list_roots", list_roots)', "service.open(list_roots_callback=list_roots)"
    )
    settings = default_settings()
    assert "RT002" in engine.screens(source.encode(), "x.py", settings).codes
    assert [f.code for f in check_bytes(source.encode(), "x.py", settings).findings] == ["RT002", "RT002"]
    assert "RT002" not in engine.screens(_LOCAL_STAND_IN.encode(), "x.py", settings).codes
    assert check_bytes(_LOCAL_STAND_IN.encode(), "x.py", settings).findings == []


@pytest.mark.parametrize(
    ("source", "asks"),
    [
        ("_ask = None\n\nasync def list_roots():\n    return await _ask()\n", True),
        ("_kept = []\n\ndef list_roots():\n    return list(_kept)\n", False),  # roots kept already
        ("_kept = []\n\nasync def list_roots():\n    return list(_kept)\n", False),  # awaits nothing
        # a test's stand-in for a service's method, nested in the test
        (
            "async def test_admin(monkeypatch):\n    async def list_roots():\n        return await fetch()\n"
            "    monkeypatch.setattr(service, 'list_roots', list_roots)\n",
            False,
        ),
        ("class Client:\n    async def list_roots(self):\n        return await self._get()\n", False),
    ],
)
def test_rt001s_syntax_screen_reads_only_a_module_level_async_list_roots_as_a_frameworks_ask(source, asks):
    """The rule reports a project's own `def list_roots()` only where it is async, at module
    level and awaits something (the API its tools await, `leave_FunctionDef`); a plain one
    returns roots kept already, and a method or a nested function is no framework's API."""
    from mcp_migrate.rules.rt001_screen import asks_in

    assert asks_in(screen.read(source.encode())) is asks
    data = ("from mcp.server.fastmcp import FastMCP\n\n" + source).encode()
    assert [f.code for f in check_bytes(data, "x.py", default_settings()).findings] == (["RT001"] if asks else [])


@pytest.mark.parametrize(
    ("source", "sends"),
    [
        ("server.notification_handlers[types.RootsListChangedNotification] = on_change\n", False),
        ("async def on_change(n: RootsListChangedNotification) -> None:\n    pass\n", False),
        ('def f():\n    """Sends a RootsListChangedNotification."""\n', False),
        ("n = types.RootsListChangedNotification()\n", True),
        ("from mcp.types import RootsListChangedNotification as Changed\n\nn = Changed()\n", True),
        ("class RootsListChangedNotification(BaseModel):\n    method: str\n", True),
        ("ping = send_roots_list_changed\nsession.send_roots_list_changed()\n", True),
    ],
)
def test_rt004s_syntax_screen_reads_the_notification_type_only_where_a_send_can_use_it(source, sends):
    from mcp_migrate.rules.rt004_screen import sends_in

    assert sends_in(screen.read(source.encode())) is sends


def test_rt103s_byte_screen_reads_a_roots_type_after_which_code_can_go_on():
    from mcp_migrate.rules.rt103_screen import RootsAsSandboxScreen as Screen

    assert Screen.screen(b"from mcp.types import Root as R\n")
    assert Screen.screen(b"kind = Root if typed else None\n")
    assert Screen.screen(b"def f(r: 'ListRootsResult'): ...\n")
    assert not Screen.screen(b'raise ValueError("Root URI must start with file://")\n')
    assert not Screen.screen(b"class ProjectRoot(RootModel[str]): ...\n")


#: A server module that calls its own root registry, imported from the project as an object
#: (a gateway's lazy singleton): the rule reports no request there, and follows the method.
_OWN_REGISTRY = (
    "from mcp.server.fastmcp import FastMCP\n"
    "from app.services.roots import root_service\n\n"
    "async def listed():\n    return await root_service.list_roots()\n"
)


@pytest.mark.parametrize(
    ("source", "asks"),
    [
        (_OWN_REGISTRY, False),
        # guarded by `hasattr(x, "list_roots")`: a duck-typed session (`_guarded`)
        (_OWN_REGISTRY + "\nasync def maybe(s):\n    if hasattr(s, 'list_roots'):\n        return 1\n", True),
        # the name bound again in the module (a parameter): scopes are not told apart
        (_OWN_REGISTRY + "\ndef use(root_service):\n    return root_service\n", True),
        # imported from an SDK or a host framework: the resolver may type it
        (_OWN_REGISTRY.replace("from app.services.roots import", "from mcp_agent.app import"), True),
        # a receiver of the module's own making: the screen asks as before
        (_OWN_REGISTRY.replace("from app.services.roots import root_service", "root_service = make()"), True),
        # another call on an unknown receiver
        (_OWN_REGISTRY + "\nasync def other(session):\n    return await session.list_roots()\n", True),
    ],
)
def test_rt001s_syntax_screen_leaves_a_project_objects_list_roots_to_the_import_follower(source, asks):
    from mcp_migrate.rules.rt001_screen import asks_in

    assert asks_in(screen.read(source.encode(), "x.py")) is asks
    if not asks:
        assert check_bytes(source.encode(), "x.py", default_settings()).findings == []


def test_a_definition_read_alone_sees_its_modules_imports(tmp_path):
    """`doing_words` reads each definition alone with RT001's screen: the import of the object
    around it goes with it (`Syntax.outer`), so a caller of `listed` does not follow into the
    module for a request."""
    from mcp_migrate.rules.rt001_screen import RootsRequestScreen, asks_in
    from mcp_migrate.vocabulary.helper_screens import doing_words

    data = (_OWN_REGISTRY + "\nasync def asks(ctx):\n    return await ctx.session.list_roots()\n").encode()
    syntax = screen.read(data, "x.py")
    words = doing_words(syntax.tree, data, RootsRequestScreen.SCREEN, True, asks_in, "x.py", syntax)
    assert words == frozenset({"asks"})
    alone = doing_words(syntax.tree, data, RootsRequestScreen.SCREEN, True, asks_in, "x.py")
    assert alone == frozenset({"asks", "listed"})  # without its module, the receiver is unknown


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        # a server's call of its own registry's setter: `_setter_call` reports client code only
        (
            "from mcp.server.fastmcp import FastMCP\n\ndef share(registry, root_uri):\n    registry.add_root(root_uri)\n",
            False,
        ),
        # the same call in code of no side, or a client's
        ("import mcp\n\ndef share(registry, root_uri):\n    registry.add_root(root_uri)\n", True),
        ("from mcp import ClientSession\n\ndef share(registry, root_uri):\n    registry.add_root(root_uri)\n", True),
        # a relative import may be a client module the file does not spell
        ("from mcp.server.fastmcp import FastMCP\nfrom . import peers\n\ndef share(r, u):\n    r.add_root(u)\n", True),
        # the setter defined here, or named other than as an attribute
        ("from mcp.server.fastmcp import FastMCP\n\ndef add_root(uri):\n    return uri\n", True),
        ("from mcp.server.fastmcp import FastMCP\n\ndef share(r, set_roots_provider):\n    r.go()\n", True),
        # a server's class imported where the resolver does not see it bound: inside a function,
        # or under a name the module binds again
        ("from app import peers\n\ndef share(r, u):\n    from fastmcp import FastMCP\n    r.add_root(u)\n", True),
        ("from fastmcp import FastMCP\nFastMCP = None\n\ndef share(r, u):\n    r.add_root(u)\n", True),
        # at module level, in its `try:` and `if` blocks too: the resolver sees it there
        ("from fastmcp import FastMCP\n\ndef share(r, u):\n    r.add_root(u)\n", False),
        (
            "try:\n    from fastmcp import FastMCP\nexcept ImportError:\n    pass\n\ndef share(r, u):\n    r.add_root(u)\n",
            False,
        ),
        ("if True:\n    from fastmcp import FastMCP\n\ndef share(r, u):\n    r.add_root(u)\n", False),
        # a provider type, not a setter: kept for the shapes the rule does not report yet
        ("from mcp.server.fastmcp import FastMCP\n\ndef share(r):\n    return r.RootsProvider\n", True),
    ],
)
def test_rt002s_syntax_screen_takes_a_setters_call_only_where_the_rule_reports_one(source, kept):
    from mcp_migrate.rules.rt002_screen import provider_in

    assert provider_in(screen.read(source.encode(), "x.py")) is kept
    if not kept:
        assert "RT002" not in engine.screens(source.encode(), "x.py", default_settings()).codes
        assert check_bytes(source.encode(), "x.py", default_settings()).findings == []


_EVERY_FORM = """
import os, sys as system
from .pkg import (a as b, c)
global_value: dict[str, int] = {**os.environ, "k": 1}
@decorator(arg=1)
async def run(x, /, y=2, *args, z, w=3, **kw) -> "Client | None":
    global g
    async with open(x) as f, ctx() as (p, q):
        async for item in f:
            yield [i async for i in item if i] or {k: v for k, v in kw.items()} or {*args}
    match x:
        case {"uri": str(uri), **rest} if uri:
            del rest
        case Point(x=0, y=[1, *others]) | None:
            pass
    try:
        raise ValueError(f"{x!r:>{y}} {(lambda: (yield))()}") from None
    except* (OSError, KeyError) as exc:
        assert not exc, -x ** 2 @ y
    finally:
        nonlocal_value = x if y else (z := w)
class C(Base, metaclass=Meta):
    attr = x[1:2, ::3].y.z()
"""


def test_the_walk_gives_every_syntax_node_ast_walk_gives():
    """core.ast_nodes.all_nodes, which core.alone reads definitions with: the nodes of `ast.walk`,
    but for the expression contexts and operators, which hold no syntax."""
    tree = ast.parse(_EVERY_FORM)
    plain = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
    expected = [node for node in ast.walk(tree) if not isinstance(node, plain)]
    walked = list(ast_nodes.all_nodes(tree))
    assert len(walked) == len(expected) and {id(n) for n in walked} == {id(n) for n in expected}
    assert len(expected) > 150  # (the sample is not trivial)
