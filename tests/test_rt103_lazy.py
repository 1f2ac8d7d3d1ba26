"""RT103 works out a file's roots data flow (`Origins`) only where a node asks where a value comes
from (issue 35 "no slower"): every call asks the file's functions and assignments of
`roots_skeleton.Skeleton` instead, which must be what `Origins` holds, scope for scope and
binding for binding."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from mcp_migrate.api import check_source, default_settings
from mcp_migrate.core.dispatch import run_rules
from mcp_migrate.rules.rt103_roots_as_sandbox import RootsAsSandbox
from mcp_migrate.vocabulary.roots_origin import Origins
from mcp_migrate.vocabulary.roots_skeleton import Skeleton

ROOT = Path(__file__).resolve().parent.parent

#: Every place a function, a return or an assignment can sit, and the walrus the skeleton only
#: looks for when the bytes spell it.
SHAPES = """\
import mcp

a = b = make()
c: int = 1
d: int
x, y = pair()
if (w := make()):
    z = w


class Outer:
    attr = 1
    if flag:
        def maybe(self):
            return self.attr

    class Inner:
        def deep(self):
            with open(p) as handle, lock() as (k, v):
                kept = handle
            return kept

    def method(self, p, /, q, *rest, key, **extra):
        def nested(n=lambda: (t := 1)):
            return n

        class Local:
            mark = nested

            def go(self):
                return mark

        try:
            r = self.maybe()
        except ValueError as exc:
            r = exc
        else:
            r = r or 2
        finally:
            done = True
        match r:
            case 1:
                m = r
            case _:
                m = [q := r for _ in rest]
        for i in rest:
            s = i
        else:
            s = None
        while s:
            s = s - 1
        return (lambda: m)()


async def free(path):
    async with ctx() as session:
        listed = await session.list_roots()
    return listed
"""


def _assigned(scope) -> list:
    """(target's code, id(value)) of a scope's "assign" bindings, in order."""
    return [(cst.Module([]).code_for_node(t), id(v)) for t, v, k in scope.bindings if k == "assign"]


def _same(module: cst.Module, expressions: bool) -> None:
    origins = Origins(module, resolver=None)
    skeleton = Skeleton(module, expressions=expressions)
    assert skeleton.scopes.keys() == origins.scopes.keys()
    assert {n: [id(s.node) for s in v] for n, v in skeleton.by_name.items()} == {
        n: [id(s.node) for s in v] for n, v in origins.by_name.items()
    }
    for key, scope in origins.scopes.items():
        light = skeleton.scopes[key]
        assert light.params == scope.params
        assert light.cls is scope.cls
        assert (light.parent.node if light.parent else None) is (scope.parent.node if scope.parent else None)
        assert _assigned(light) == _assigned(scope)
        assert sorted(map(id, light.returns)) == sorted(map(id, scope.returns))


def test_the_shapes_give_origins_functions_and_bindings():
    module = cst.parse_module(SHAPES)
    _same(module, expressions=True)
    skeleton = Skeleton(module, expressions=True)
    # Source order, a chained assignment's targets last to first (`Origins`' own order).
    assert [t for t, _ in _assigned(skeleton.module)] == ["b", "a", "c", "x, y", "w", "z", "attr"]
    method = skeleton.by_name["method"][0]
    assert method.params == ["self", "p", "q", "rest", "key"]
    assert method.cls.name.value == "Outer"
    # A class's body assigns in the function around it: `mark` is the method's, not `go`'s.
    assert [t for t, _ in _assigned(method)] == ["mark", "r", "r", "r", "done", "m", "q", "m", "s", "s", "s"]
    assert _assigned(skeleton.by_name["go"][0]) == []
    assert [t for t, _ in _assigned(skeleton.by_name["deep"][0])] == ["handle", "(k, v)", "kept"]


def test_without_looking_inside_expressions_the_walrus_is_what_is_missed():
    """Why `expressions` is keyed on the bytes `:=`: the cut walk misses exactly those."""
    module = cst.parse_module(SHAPES)
    cut = Skeleton(module, expressions=False)
    assert [t for t, _ in _assigned(cut.module)] == ["b", "a", "c", "x, y", "z", "attr"]
    plain = cst.parse_module(SHAPES.replace("(w := make())", "make()").replace("q := r", "r").replace("t := 1", "1"))
    _same(plain, expressions=False)


def _sources() -> list:
    found = sorted((ROOT / "fixtures").rglob("*.py"))
    assert len(found) > 100
    return found


def test_every_fixture_gives_origins_functions_and_bindings():
    for path in _sources():
        data = path.read_bytes()
        try:
            module = cst.parse_module(data)
        except cst.ParserSyntaxError:
            continue
        _same(module, expressions=b":=" in data)


def test_every_example_gives_origins_functions_and_bindings():
    for example in [*RootsAsSandbox.VALID, *RootsAsSandbox.INVALID]:
        _same(cst.parse_module(example.code), expressions=b":=" in example.code.encode())


def _run(source: str):
    """RT103's instance after a walk of `source`, and its findings (line, column, message)."""
    data = textwrap.dedent(source).encode()
    settings = default_settings()
    _context, [rule] = run_rules("<lazy>.py", data, cst.parse_module(data), settings, [RootsAsSandbox])
    found = [(f.line, f.column, f.message) for f in check_source(data.decode()) if f.code == "RT103"]
    return rule, found


ASKS_NOTHING = """\
from pathlib import Path
from mcp.server.fastmcp import Context


def uri_path(text: str) -> Path:
    return Path(text[len("file://"):] if text.startswith("file://") else text)


async def show(ctx: Context) -> list:
    listed = await ctx.session.list_roots()
    paths = [uri_path(str(r.uri)) for r in listed.roots]
    ctx.state = paths
    return sorted(str(p) for p in paths)
"""


def test_a_file_that_asks_no_origin_works_none_out():
    rule, found = _run(ASKS_NOTHING)
    assert found == []
    assert "origins" not in rule.__dict__
    assert "skeleton" in rule.__dict__  # its calls of `uri_path` were asked about


#: A function that checks a path against the roots it asks for.
CHECKS_ROOTS = (
    "\n\nasync def read(ctx: Context, p: str) -> str:\n"
    "    for r in (await ctx.session.list_roots()).roots:\n"
    "        if p.startswith(str(r.uri)):\n"
    "            return p\n"
    "    raise PermissionError(p)\n"
)


def test_a_containment_check_against_roots_works_it_out():
    rule, found = _run(ASKS_NOTHING + CHECKS_ROOTS)
    assert found == [(18, 12, "`p.startswith(str(r.uri))` is an unsound access check against client roots")]
    assert "origins" in rule.__dict__


def test_once_the_flow_is_known_a_call_handing_no_roots_looks_up_no_callee(monkeypatch):
    """A call that is no `if` test is followed into another module only when it hands that
    module roots: once the file's flow is worked out, its arguments are asked first (issue 37:
    a gateway's admin module looked up 12,000 callees for none)."""
    looked: list = []
    original = RootsAsSandbox._project_callee

    def callee(self, node, view):
        looked.append(cst.Module([]).code_for_node(node))
        return original(self, node, view)

    monkeypatch.setattr(RootsAsSandbox, "_project_callee", callee)
    rule, found = _run(
        ASKS_NOTHING
        + CHECKS_ROOTS
        + "\n\nasync def later(ctx: Context, p: str) -> None:\n"
        + "    roots = await ctx.session.list_roots()\n"
        + "    log(p)\n"
        + "    hand(roots)\n"
        + "    if allowed(p):\n"
        + "        log(p)\n"
    )
    assert "origins" in rule.__dict__ and len(found) == 1
    assert looked[-2:] == ["hand(roots)", "allowed(p)"]
    assert looked.count("log(p)") == 0


@pytest.mark.parametrize("check", ['p.startswith("/srv")', '"/srv".startswith(p)'])
def test_a_literal_side_asks_nothing(check):
    rule, found = _run(ASKS_NOTHING + f"\n\ndef inside(p):\n    return {check}\n")
    assert found == []
    assert "origins" not in rule.__dict__


def test_the_lazy_origins_leave_no_cycle_to_collect():
    """The rule is freed by reference counting alone: a cycle through its gate calls would keep
    the file's whole tree alive until the cyclic collector runs (seldom: commands.process)."""
    import gc
    import weakref

    data = textwrap.dedent(ASKS_NOTHING).encode()
    collecting = gc.isenabled()
    gc.disable()
    try:
        _context, [rule] = run_rules("<lazy>.py", data, cst.parse_module(data), default_settings(), [RootsAsSandbox])
        assert len(rule.gate_calls) == 1  # `uri_path(str(r.uri))`
        alive = weakref.ref(rule)
        del rule, _context
        assert alive() is None
    finally:
        if collecting:
            gc.enable()
