"""RT103 keyed on where a value comes from (issue 35 §4): the same code under any name gives the
same findings, a name alone is never a source, and each decision kind says what it is."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from mcp_migrate.api import check_source
from mcp_migrate.vocabulary.roots_origin import OWN, PASSED, Origins

TEMPLATE = """\
from pathlib import Path
from mcp.server.fastmcp import Context


async def read(path: Path, ctx: Context) -> str:
    for root in (await ctx.session.list_roots()).roots:
        NAME = Path(root.uri.path)
        try:
            _ = path.relative_to(NAME)
            return path.read_text()
        except ValueError:
            pass
    raise PermissionError(path)
"""


def _rt103(source: str) -> list:
    return [(f.line, f.column, f.message) for f in check_source(textwrap.dedent(source)) if f.code == "RT103"]


@pytest.mark.parametrize("name", ["root_path", "base", "allowed", "x"])
def test_the_same_check_under_any_name_is_the_same_finding(name):
    found = _rt103(TEMPLATE.replace("NAME", name))
    assert found == [(9, 17, f"`path.relative_to({name})` is an unsound access check against client roots")]


@pytest.mark.parametrize("name", ["root", "root_path", "workspace", "allowed_dirs", "SANDBOX_DIR"])
def test_a_name_alone_is_not_a_source(name):
    source = f"import mcp\n\ndef inside(path, {name}):\n    return path.startswith({name})\n"
    assert _rt103(source) == []
    # ... and the same helper given the client's roots is a finding.
    given = (
        source
        + "\n\nasync def tool(ctx, p):\n    return inside(p, (await ctx.session.list_roots()).roots[0].uri.path)\n"
    )
    [(line, column, message)] = _rt103(given)
    assert (line, column) == (4, 12)
    assert message.startswith(f"`path.startswith({name})` is an unsound access check against client roots")


def test_each_kind_of_decision_says_what_it_is():
    source = """\
    from pathlib import Path
    from mcp import types

    CONFIGURED = [Path("/srv")]


    def _within(candidate: Path, dirs: list) -> bool:
        return any(d in candidate.parents for d in dirs)


    def built(roots: list[types.Root]) -> list:
        out = []
        for r in roots:
            out.append(Path(r.uri.path))
        return out


    async def gate(p: Path, roots: list[types.Root]) -> bool:
        return p.resolve().is_relative_to(Path(roots[0].uri.path).resolve())


    async def read(p: str, roots: list[types.Root]) -> str:
        dirs = list(CONFIGURED)
        dirs.extend(built(roots))
        candidate = Path(p).resolve()
        if not _within(candidate, dirs):
            raise PermissionError(p)
        if not gate(candidate, roots):
            raise PermissionError(p)
        return candidate.read_text()
    """
    assert _rt103(source) == [
        (8, 16, "`d in candidate.parents` is an access check against client roots"),
        (11, 5, "`built` builds an access allow-list from client roots"),
        (19, 12, "`p.resolve().is_relative_to(Path(...` is an access check against client roots"),
        (24, 5, "`dirs.extend(built(roots))` extends the allow-list `dirs` with client roots"),
        (26, 12, "refuses access unless `_within` finds the path in client roots"),
        (28, 12, "`gate(candidate, roots)` never denies: `gate` is async and called without `await`"),
    ]


def test_an_unresolved_parameter_is_unsound_only_when_a_call_passes_it_unresolved():
    helper = "import mcp\n\ndef _inside(p, root):\n    return p.is_relative_to(root)\n\n\n"
    call = "async def tool(ctx, path):\n    root = (await ctx.session.list_roots()).roots[0].uri.path\n    return _inside({}, root)\n"
    resolved = _rt103(helper + call.format("path.resolve()"))
    unresolved = _rt103(helper + call.format("path"))
    assert resolved == [(4, 12, "`p.is_relative_to(root)` is an access check against client roots")]
    assert unresolved == [(4, 12, "`p.is_relative_to(root)` is an unsound access check against client roots")]


@pytest.mark.parametrize(
    "source",
    [
        # an LSP document URI in a file that also reads roots for display
        "from mcp.types import Root\n\ndef did_open(params, listed: list[Root]):\n    uri = params['uri']\n"
        "    names = [str(r.uri) for r in listed]\n    return uri.startswith('file://'), names\n",
        # a regex holding file://, and an unrelated startswith
        "import re\nfrom mcp.types import Root\nPAT = re.compile(r'file://(.*)')\n\n"
        "def f(line, prefix, listed: list[Root]):\n    return PAT.match(line) or line.startswith(prefix)\n",
        # OpenHands-style file-browser roots: the agent's own folders
        "import mcp\nfrom pathlib import Path\n\nclass Browser:\n    def __init__(self, roots):\n"
        "        self.roots = [Path(r) for r in roots]\n\n    def visible(self, p):\n"
        "        return any(p.is_relative_to(r) for r in self.roots)\n",
        # a list built from roots in a file that decides nothing with them
        "from mcp.types import Root\n\ndef names(listed: list[Root]):\n    out = []\n"
        "    for r in listed:\n        out.append(str(r.uri))\n    return out\n",
    ],
)
def test_values_that_do_not_come_from_roots_decide_nothing(source):
    assert _rt103(source) == []


def test_origins_follow_returns_parameters_and_attributes():
    source = textwrap.dedent(
        """\
        class Store:
            def __init__(self, roots):
                self.paths = [r.uri for r in roots]

        async def fetch(ctx):
            return (await ctx.session.list_roots()).roots

        async def use(ctx):
            store = Store(await fetch(ctx))
            return store

        def plain(x):
            return x
        """
    )
    module = cst.parse_module(source)

    class Resolver:
        def qualified(self, expr):
            return None

        def lookup(self, name):
            return None

    origins = Origins(module, Resolver())
    scopes = {s.node.name.value: s for s in origins.scopes.values() if isinstance(s.node, cst.FunctionDef)}
    assert origins.returned[id(scopes["fetch"].node)] == frozenset({OWN})
    assert origins.passed[id(scopes["__init__"].node)] == {"roots": frozenset({PASSED})}
    store_class = next(n for n in module.body if isinstance(n, cst.ClassDef))
    assert origins.class_attrs == {(id(store_class), "paths"): frozenset({PASSED})}
    assert id(scopes["plain"].node) not in origins.returned


def test_lists_and_text_made_from_roots_that_feed_no_decision_are_not_allow_lists():
    """In a file that decides against roots: files found under the roots for context, and a text
    accumulated from them, are neither an allow-list nor its extension; the check is reported."""
    source = (
        "from pathlib import Path\nfrom mcp.types import Root\n\n"
        "def context_files(listed: list[Root]):\n    files = []\n    for r in listed:\n"
        "        files.append(Path(r.uri.path))\n    return files\n\n"
        "def text(listed: list[Root]):\n    out = ''\n    for r in listed:\n        out += f'{r.uri}\\n'\n    return out\n\n"
        "def inside(p: Path, listed: list[Root]):\n    return p.resolve().is_relative_to(Path(listed[0].uri.path).resolve())\n"
    )
    assert [line for line, _column, _message in _rt103(source)] == [17]


def test_a_loop_variable_is_what_its_loop_iterates():
    """`root_path` bound from a client root, then reused as the variable of a loop over configured
    directories: only the check against the client root is a finding."""
    source = """\
    from pathlib import Path
    from mcp.types import Root


    def allowed(p: Path, listed: list[Root], configured: list) -> bool:
        for root in listed:
            root_path = Path(root.uri.path)
            if p.is_relative_to(root_path):
                return True
        for root_path in configured:
            if p.is_relative_to(root_path):
                return True
        return False
    """
    assert [line for line, _column, _message in _rt103(source)] == [8]
