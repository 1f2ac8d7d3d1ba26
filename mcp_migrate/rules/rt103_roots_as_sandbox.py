"""RT103 roots-as-sandbox: every access decision whose boundary comes from client roots (issue 35 §4).

Roots are guidance, not access control: a server that checks paths against the client's roots
treats them as a sandbox, however well it checks. What counts as "comes from roots" is where the
value comes from, never its name (`vocabulary.roots_origin.Origins`: a `list_roots()` result, a
parameter typed with the SDK's `Root`, what is read, made or collected from one, through names,
attributes and the file's own functions).

What is reported:

* a containment check whose container comes from roots: `p.startswith(root)`,
  `p.is_relative_to(root)`, `p.relative_to(root)` used as a check (in a `try` whose `ValueError`
  is the answer), `os.path.commonpath`/`commonprefix([p, root])`, `root in p.parents`. The
  message says *unsound* for a string prefix, a path not resolved, or `commonprefix`;
* a call of this file's helper that checks the roots it is given, as an `if` test, where the
  roots are the caller's own (`if not _within(candidate, roots): raise`), and an async gate
  called there without `await` (it never denies);
* a call, as an `if` test, of a function that decides access against roots it holds itself
  (`if not guard.within(p): raise`, a method of a class built from roots), here or in another
  module of the project;
* a call that hands client roots to another module's function whose parameter is then the
  boundary of an access check there (`registry.update_from_client_roots(uris)`, read by the
  registry's `validate`): `vocabulary.gates_across` asks that module what this rule decides on it;
* a path that joins a parameter of the function (the caller's input) under a value from roots and
  is opened, read, listed or removed, in a function that makes no access decision of its own:
  the root is the path's only boundary, unchecked (`open(f"{roots[0].uri}/{name}")`);
* in a file that decides against roots: an allow-list a function builds from its own roots and
  returns (at its `def`), a configured list extended with roots, roots kept in an attribute a
  check reads.

A path is resolved when it is `x.resolve()`, `os.path.realpath(x)`, a `str()`/`Path()` of one, a
name bound to one in the same scope (or named `real_*`/`resolved_*`), or a call of this file's
function that returns one; a parameter is, when every call in the file passes one.
"""

from __future__ import annotations

import os
import weakref
from functools import cached_property

import libcst as cst

from mcp_migrate.core.fix.edits import Fix, Replace
from mcp_migrate.core.fix.nodes import bare, call, method
from mcp_migrate.core.messages import Message, shorten
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.sdk import EXAMPLE_IMPORT
from mcp_migrate.core.syntax import code_of, iter_nodes, literal, positional
from mcp_migrate.rules.rt103_screen import RootsAsSandboxScreen
from mcp_migrate.vocabulary import gates_across as across
from mcp_migrate.vocabulary.calls import call_qualified, ends_with, is_literal
from mcp_migrate.vocabulary.file_effects import GATES, file_effects
from mcp_migrate.vocabulary.root_flow import Flow
from mcp_migrate.vocabulary.roots_origin import EXTENDERS, OWN, PASSED, Origins, target_names
from mcp_migrate.vocabulary.roots_skeleton import Skeleton
from mcp_migrate.vocabulary.spelling import Spelling
from mcp_migrate.vocabulary.words import last_identifier, words

NOT_ACL = (
    "roots are guidance, not access control, however well the path is checked: isolation comes from the"
    " server's own configuration and the process's permissions"
)
_RESOLVED = "`Path(p).resolve().is_relative_to(Path(root).resolve())`"
#: How a check is unsound (None: sound).
PREFIX, UNRESOLVED, CHARACTERS = "prefix", "unresolved", "characters"
MSG_CHECK = Message("`{expr}` is an access check against client roots", NOT_ACL)
MSG_PREFIX = Message(
    "`{expr}` is an unsound access check against client roots (a string prefix)",
    "a string prefix: `/srv/app-secrets` starts with `/srv/app`, and `..` or a symlink walks out;"
    f" resolve both sides and compare components ({_RESOLVED}); " + NOT_ACL,
)
MSG_UNRESOLVED = Message(
    "`{expr}` is an unsound access check against client roots (the path is not resolved)",
    f"the checked path is not resolved: `..` or a symlink walks out of the root; resolve it first ({_RESOLVED}); "
    + NOT_ACL,
)
MSG_COMMONPREFIX = Message(
    "`{expr}` is an unsound access check against client roots (it compares characters)",
    "`commonprefix` compares characters: `/srv/app-secrets` shares the prefix `/srv/app`, and `..` or a"
    f" symlink walks out; use {_RESOLVED}; " + NOT_ACL,
)
MSG_GATE = Message(
    "refuses access unless `{function}` finds the path in client roots",
    "the refusal is `{expr}`, and the check inside `{function}` is reported too; " + NOT_ACL,
)
MSG_GATE_HANDED = Message(
    "refuses access unless `{function}` finds the path in client roots",
    "the refusal is `{expr}`, and `{function}` checks the path against the roots handed to it at {where}; " + NOT_ACL,
)
MSG_NEVER = Message(
    "`{expr}` never denies: `{function}` is async and called without `await`",
    "a coroutine object is always true, so the access check never runs; " + NOT_ACL,
)
MSG_HANDED = Message(
    "hands client roots to `{name}` as an access boundary",
    "`{expr}` hands them on, and `{function}` checks access against them at {where}; " + NOT_ACL,
)
MSG_BUILT = Message("`{function}` builds an access allow-list from client roots", NOT_ACL)
MSG_EXTENDED = Message("`{expr}` extends the allow-list `{name}` with client roots", NOT_ACL)
MSG_STORED = Message("`{expr}` keeps client roots as the allow-list `{name}`", NOT_ACL)
MSG_JOINED = Message(
    "`{expr}` opens `{input}` under a client root, unchecked",
    "`{input}` is joined to a directory the client named as a root: the root is this path's only boundary,"
    " and `..` walks out of it; " + NOT_ACL,
)

#: Where `_where`'s enclosing loops stop counting: a new scope.
_NEW_SCOPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})
#: What a call can sit in and still be an `if` or `while` test (`_tested`), and those statements.
_TEST_PARTS = frozenset({cst.UnaryOperation, cst.Await, cst.BooleanOperation})
_TESTED = frozenset({cst.If, cst.While})
_COMMONPATH = frozenset({"os.path.commonpath", "posixpath.commonpath", "ntpath.commonpath"})
_COMMONPREFIX = frozenset({"os.path.commonprefix", "posixpath.commonprefix", "ntpath.commonprefix"})
#: Wrappers the fix strips from a side before wrapping it in `Path(...).resolve()`.
_STRIP = frozenset({"str", "os.fspath", "pathlib.Path", "pathlib.PurePath", "os.path.abspath", "os.path.normpath"})
_CATCHES = frozenset({"ValueError", "Exception", "BaseException"})
#: Functions that open, list or remove the path they are given first.
_ACCESS = frozenset(
    {
        "open",
        "io.open",
        "os.open",
        "codecs.open",
        "aiofiles.open",
        "os.listdir",
        "os.scandir",
        "os.remove",
        "os.unlink",
        "os.rmdir",
        "shutil.rmtree",
    }
)
#: Methods that open, list or remove the path they are called on (`pathlib.Path`).
_ACCESS_METHODS = frozenset(
    {"read_text", "read_bytes", "write_text", "write_bytes", "open", "unlink", "iterdir", "rmdir", "touch"}
)
#: Calls that join the paths they are given (and `Path.joinpath`).
_JOINS = frozenset({"os.path.join", "posixpath.join", "ntpath.join", "pathlib.Path", "pathlib.PurePath"})
#: Calls that hand on the path they are given, as text or as a path.
_PASS_ON = frozenset(
    {
        "str",
        "os.fspath",
        "os.path.abspath",
        "os.path.normpath",
        "os.path.expanduser",
        "pathlib.Path",
        "pathlib.PurePath",
    }
)


class RootsAsSandbox(RootsAsSandboxScreen, Rule):
    #: (class or None, function, parameter): parameters taken as roots, when
    #: `vocabulary.gates_across` asks what a module decides once a caller elsewhere hands them roots.
    ASSUMED: frozenset = frozenset()
    #: Whether calls into the project's other modules are followed (`gates_across`); the copy
    #: that answers for another module follows none, and notes its gates in the file's model.
    ACROSS = True

    VALID = [
        Valid(
            EXAMPLE_IMPORT + "def inside(path, root):\n    return path.startswith(root)\n",
            "nothing says `root` comes from client roots: a name is not a source",
        ),
        Valid(
            EXAMPLE_IMPORT + "WORKSPACE = '/srv'\n\ndef inside(p):\n    return p.startswith(WORKSPACE)\n",
            "a boundary from the server's own configuration is the right isolation, not roots",
        ),
        Valid(
            EXAMPLE_IMPORT + "async def show(ctx):\n    listed = await ctx.session.list_roots()\n"
            "    if not listed.roots:\n        return 'none'\n    return [str(r.uri) for r in listed.roots]\n",
            "roots listed for display decide no access",
        ),
        Valid(
            EXAMPLE_IMPORT + "def did_open(params, roots: list):\n    uri = params['uri']\n"
            "    return uri.startswith('file://')\n",
            "an LSP document URI, and a literal prefix",
        ),
        Valid(
            EXAMPLE_IMPORT + "from pathlib import Path\n\nasync def f(ctx, home: Path):\n"
            "    root = Path((await ctx.session.list_roots()).roots[0].uri.path)\n"
            "    try:\n        root.relative_to(home)\n    except ValueError:\n        return False\n",
            "a root checked against a directory the program chose: the root is the subject, not the container",
        ),
        Valid(
            EXAMPLE_IMPORT + "from pathlib import Path\n\nasync def readme(ctx) -> str:\n"
            "    base = Path((await ctx.session.list_roots()).roots[0].uri.path)\n"
            "    return (base / 'README.md').read_text()\n",
            "a fixed name under a root: no caller's input is joined there",
        ),
    ]
    INVALID = [
        Invalid(
            EXAMPLE_IMPORT + "async def f(ctx, p):\n    result = await ctx.session.list_roots()\n"
            "    for r in result.roots:\n        if p.startswith(r.uri.path):\n            return True\n",
            "a string prefix against a root of a list_roots() result (unsound)",
        ),
        Invalid(
            EXAMPLE_IMPORT + "from pathlib import Path\n\nasync def f(ctx, p: Path):\n"
            "    base = Path((await ctx.session.list_roots()).roots[0].uri.path).resolve()\n"
            "    return p.resolve().is_relative_to(base)\n",
            "a sound containment check is still roots used as the boundary",
        ),
        Invalid(
            "from mcp.types import Root\n\ndef inside(p, roots: list[Root]):\n"
            "    return any(p.startswith(str(r.uri)) for r in roots)\n",
            "a parameter typed with the SDK's Root",
        ),
        Invalid(
            EXAMPLE_IMPORT + "from pathlib import Path\n\ndef _inside(p, root):\n    return p.is_relative_to(root)\n\n"
            "async def read(ctx, p):\n    root = (await ctx.session.list_roots()).roots[0].uri.path\n"
            "    if not _inside(Path(p), Path(root)):\n        raise PermissionError(p)\n",
            "a refusal through a helper given the client's roots",
        ),
        Invalid(
            EXAMPLE_IMPORT + "CONFIGURED = ['/srv']\n\nasync def allowed(ctx, p):\n    dirs = list(CONFIGURED)\n"
            "    dirs.extend(r.uri.path for r in (await ctx.session.list_roots()).roots)\n"
            "    return any(p.startswith(d) for d in dirs)\n",
            "an allow-list extended with client roots",
        ),
        Invalid(
            "from pathlib import Path\n\nfrom mcp import types\n\nclass Guard:\n"
            "    def __init__(self, roots: list[types.Root]) -> None:\n"
            "        self._paths = [Path(str(r.uri)).resolve() for r in roots]\n\n"
            "    def within(self, p: Path) -> bool:\n        return any(d in p.resolve().parents for d in self._paths)\n\n"
            "    def read(self, p: Path) -> str:\n        if not self.within(p):\n            raise PermissionError(p)\n"
            "        return p.read_text()\n",
            "a refusal through a method that checks the roots its object was built from",
        ),
        Invalid(
            EXAMPLE_IMPORT + "from pathlib import Path\n\nasync def show(ctx, relative: str) -> str:\n"
            "    base = Path((await ctx.session.list_roots()).roots[0].uri.path)\n"
            "    return (base / relative).read_text()\n",
            "a caller's input joined under a root and read with no check",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self.flow = Flow(self.resolver)
        self.spelling = Spelling(context)
        #: The functions entered, innermost last (None: the module).
        self.functions: list = []
        #: Comprehension variables that come from roots, innermost last.
        self.bound: list = [{}]
        #: module names bound to a URI text: a prefix of URIs, not of directories.
        self.uri_constants: set = set()
        #: id(function) -> origins of the roots its own decisions check against.
        self.decides: dict = {}
        #: Calls of this file's functions: (call, callee scopes, argument origins, awaited, enclosing function, tested).
        self.gate_calls: list = []
        #: Attribute names a decision's container was read from (`self._paths`, `session.roots`).
        self.decision_attrs: set = set()
        #: Ids of this file's functions whose result a decision reads (`_feed`), and the
        #: (id(function), name) pairs a decision reads.
        self.feeding: set = set()
        self.feeding_names: set = set()
        #: `self.x = <roots>` / `obj.x = <roots>` statements: (node, attribute, text).
        self.stores: list = []
        #: Every `self.x = ...` / `obj.x = ...` statement: (node, target, `_where()`), judged into
        #: `self.stores` only in a file that decides access against roots.
        self.stored: list = []
        self.decisions = 0
        #: (id(function), parameter index) -> [(resolved, id(caller), caller's parameter passed on)].
        self.arguments: dict = {}
        #: Checks on an unresolved parameter, judged when every call is known: (node, function, index, fix).
        self.held: list = []
        #: Paths opened that join a caller's input under a root: (call, function, path text, input
        #: text), reported where the function makes no access decision (`leave_Module`).
        self.joined: list = []

    # ----- data flow ------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    @cached_property
    def origins(self) -> Origins:
        """The file's roots data flow, worked out when a node first asks where a value comes
        from (a containment check's candidate, a call handing a project function its
        arguments, the allow-lists of a file that decides): most files RT103 reads ask none."""
        return Origins(self._module, self.resolver, assumed=self.ASSUMED)

    @cached_property
    def skeleton(self) -> Skeleton:
        """The file's functions and assignments (`roots_origin.Skeleton`): what every call asks."""
        return Skeleton(self._module, expressions=b":=" in self.context.data or not self.context.data)

    def _scope(self):
        return self.origins.scope_of(self.functions[-1] if self.functions else None)

    def _skeleton_scope(self):
        """The function's scope in the file's index (`Skeleton`): its parameters and "assign"
        bindings, without working out the data flow."""
        return self.skeleton.scope_of(self.functions[-1] if self.functions else None)

    def _origin(self, expr: cst.BaseExpression) -> frozenset:
        """Where `expr` comes from roots here."""
        return self._origin_at(expr, self._where())

    def _where(self) -> tuple:
        """What `_origin` answers from, kept to be asked later: the function, the comprehension
        variables in force (`self.bound`, worked out when first asked) and the `for` loops
        around the node (outermost first, from the innermost function, class or lambda)."""
        loops: list = []
        for anc in self.ancestors:
            kind = type(anc)  # (LibCST's classes are final: `isinstance` costs an ABC check per miss)
            if kind in _NEW_SCOPES:
                loops = []
            elif kind is cst.For:
                loops.append(anc)
        return (self.functions[-1] if self.functions else None, tuple(self.bound), tuple(loops))

    def _origin_at(self, expr: cst.BaseExpression, where: tuple) -> frozenset:
        """Where `expr` comes from roots at `where` (`_where`). The variable of an enclosing
        `for` loop is what that loop iterates, whatever else the name is bound to in the
        function (`for root_path in configured:` after `root_path = file_url_to_path(root.uri)`)."""
        function, entries, loops = where
        origins = self.origins
        scope = origins.scope_of(function)
        bound = _bound(origins, entries)
        if loops:
            found: dict = {}  # name -> origins of the loops' variables (innermost wins)
            for loop in loops:
                origin = origins.origin(loop.iter, scope, bound)
                for name in target_names(loop.target):
                    found[name] = origin
            if found:
                merged = dict(bound)
                merged.update({name: origin for name, origin in found.items() if name not in bound})
                return origins.origin(expr, scope, merged)
        return origins.origin(expr, scope, bound)

    def visit_FunctionDef(self, node) -> None:
        self.flow.push()
        self.functions.append(node)
        self.bound.append({})

    def leave_FunctionDef(self, node) -> None:
        self.flow.pop()
        self.functions.pop()
        self.bound.pop()

    def visit_Lambda(self, node) -> None:
        self.flow.push()

    def leave_Lambda(self, node) -> None:
        self.flow.pop()

    def _visit_comp(self, node) -> None:
        self.flow.push()
        self.flow.bind_comprehension(node)
        self.bound.append(_Comprehension(node, self.functions[-1] if self.functions else None))

    def _leave_comp(self, node) -> None:
        self.flow.pop()
        self.bound.pop()

    visit_GeneratorExp = visit_ListComp = visit_SetComp = visit_DictComp = _visit_comp
    leave_GeneratorExp = leave_ListComp = leave_SetComp = leave_DictComp = _leave_comp

    def visit_For(self, node: cst.For) -> None:
        self.flow.bind_loop(node.target, node.iter)

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.flow.bind_value(target.target, node.value)
            if len(self.flow.scopes) == 1 and isinstance(target.target, cst.Name) and _uri_text(node.value):
                self.uri_constants.add(target.target.value)
            if isinstance(target.target, cst.Attribute):  # judged if the file decides (leave_Module)
                self.stored.append((node, target.target, self._where()))

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.flow.bind_value(node.target, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.flow.bind_value(node.target, node.value)

    # ----- checks ---------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        q = None
        if isinstance(func, cst.Attribute) and func.attr.value in ("startswith", "is_relative_to", "relative_to"):
            self._method(node, func.attr.value, func.value)
        else:
            q = call_qualified(self.resolver, node)
            if q in _COMMONPATH or q in _COMMONPREFIX:
                self._common(node, q in _COMMONPREFIX)
        if not self._note_gate_call(node) and self.ACROSS:
            self._across(node)
        self._note_access(node, q)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """`root in path.parents`: a component-wise containment check against a root."""
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        parents = target.comparator
        if not isinstance(target.operator, (cst.In, cst.NotIn)) or not isinstance(parents, cst.Attribute):
            return
        if parents.attr.value != "parents":
            return
        origin = self._origin(node.left)
        if not origin or self._in_assert():
            return
        unsound = None if self.flow.resolved(parents.value) or self._resolving(parents.value) else UNRESOLVED
        self._decide(node, node.left, origin, unsound, None, parents.value)

    def _method(self, node: cst.Call, name: str, subject: cst.BaseExpression) -> None:
        """`p.startswith(root)`, `p.is_relative_to(root)`, `p.relative_to(root)` as a check."""
        args = positional(node)
        if len(args) != 1 or len(node.args) != 1:
            return
        other = args[0].value
        if is_literal(subject) or is_literal(other):
            return  # a literal is no directory (`_directory_check`): the data flow need not be asked
        # The argument is the container: `root.relative_to(home)` asks whether a root lies in a
        # directory the program chose, which is not a check against the roots.
        origin = self._origin(other)
        if not origin or not self._directory_check(subject, other):
            return
        flow = self.flow
        fixable = True
        if name == "startswith":
            separated = flow.separator_terminated(other)
            if separated and flow.resolved(subject):
                unsound = None
            elif separated:
                # `p.startswith(root + os.sep)` already compares whole components: only `..` and
                # symlinks in an unresolved `p` remain, and rewriting it changes the `/` root.
                unsound, fixable = UNRESOLVED, False
            else:
                unsound = PREFIX
        else:
            if name == "relative_to" and not self._used_as_check():
                return
            unsound = None if flow.resolved(subject) else UNRESOLVED
        if unsound == UNRESOLVED and self._resolving(subject):
            unsound = None
        fix = self._fix_method(node, name, subject, other) if fixable and unsound else None
        self._decide(node, other, origin, unsound, fix, subject)

    def _decide(self, node, container, origin: frozenset, unsound: str | None, fix, subject=None) -> None:
        """Report a containment check against roots, and remember it for the gate calls. A check
        of an unresolved parameter waits for the calls of its function (`leave_Module`)."""
        function = self.functions[-1] if self.functions else None
        key = id(function)
        self.decides[key] = self.decides.get(key, frozenset()) | origin
        self.decisions += 1
        self._note_attrs(container)
        scope = self._scope()
        if unsound == UNRESOLVED and isinstance(subject, cst.Name) and subject.value in scope.params:
            self.held.append((node, key, scope.params.index(subject.value), fix))
            return
        message = {PREFIX: MSG_PREFIX, UNRESOLVED: MSG_UNRESOLVED, CHARACTERS: MSG_COMMONPREFIX}.get(
            unsound or "", MSG_CHECK
        )
        self.report(node, message.format(expr=shorten(code_of(node), 36)), fix=fix)

    def _resolving(self, expr) -> bool:
        """A name bound only to calls of this file's functions that return resolved paths
        (`path = self._canonicalize(candidate)`), or such a call."""
        scope = self.skeleton.scope_of(self.functions[-1] if self.functions else None)
        if isinstance(expr, cst.Name):
            values = [
                v for t, v, k in scope.bindings if k == "assign" and isinstance(t, cst.Name) and t.value == expr.value
            ]
            return bool(values) and all(self._resolving(v) for v in values)
        if not isinstance(expr, cst.Call):
            return False
        callees = self.skeleton.callees(expr, scope)
        return bool(callees) and all(
            c.returns and all(_returns_resolved(self.flow, c, r) for r in c.returns) for c, _ in callees
        )

    def _resolved_parameter(self, function: int, index: int, seen: frozenset = frozenset()) -> bool:
        """Every call of the function in this file passes a resolved path at this position (or
        its caller's own parameter, resolved by every call of that one)."""
        calls = self.arguments.get((function, index))
        if not calls or (function, index) in seen:
            return False
        for resolved, caller, param in calls:
            if resolved:
                continue
            if param is None:
                return False
            scope = next((s for s in self.origins.scopes.values() if id(s.node) == caller), None)
            if scope is None or not self._resolved_parameter(
                caller, scope.params.index(param), seen | {(function, index)}
            ):
                return False
        return True

    def _note_attrs(self, container, scope=None) -> None:
        """Where the container was read from: itself, the iterables of the loops and
        comprehensions that bind its names, and their bindings; the attributes and the calls of
        this file's functions there feed a decision (`self.decision_attrs`, `self.feeding`)."""
        names = {n.value for n in iter_nodes(container) if isinstance(n, cst.Name)}
        sources = [container]
        for anc in self.ancestors:
            if isinstance(anc, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                comp: cst.CompFor | None = anc.for_in
                while comp is not None:
                    sources.append(comp.iter)
                    comp = comp.inner_for_in
            elif isinstance(anc, cst.For):
                sources.append(anc.iter)
        scope = scope or self._scope()
        self._feed(sources, names, scope)

    def _feed(self, sources: list, names: set, scope) -> None:
        """Note what `sources` (in `scope`) read: attributes, and this file's functions called
        there or in the bindings of `names` (the containers' own names, one binding deep)."""
        names = names | {n.value for source in sources for n in iter_nodes(source) if isinstance(n, cst.Name)}
        for target, value, _kind in scope.bindings:
            if names.intersection(target_names(target)):
                sources.append(value)
        for source in sources:
            for n in iter_nodes(source):
                if isinstance(n, cst.Attribute):
                    self.decision_attrs.add(n.attr.value)
                elif isinstance(n, cst.Call):
                    for callee, _shift in self.origins.callees(n, scope):
                        self.feeding.add(id(callee.node))
                elif isinstance(n, cst.Name):
                    self.feeding_names.add((id(scope.node), n.value))

    def _fed(self) -> None:
        """Close `self.feeding` over returns: a function whose returned value comes from a call
        of another function of the file feeds what the first one feeds."""
        done: set = set()
        while True:
            pending = [s for s in self.origins.scopes.values() if id(s.node) in self.feeding and id(s.node) not in done]
            if not pending:
                return
            for scope in pending:
                done.add(id(scope.node))
                names = {n.value for r in scope.returns for n in iter_nodes(r) if isinstance(n, cst.Name)}
                self._feed(list(scope.returns), names, scope)

    # ----- decisions through this file's functions --------------------------------------------
    def _note_gate_call(self, node: cst.Call) -> bool:
        scope = self.skeleton.scope_of(self.functions[-1] if self.functions else None)
        callees = self.skeleton.callees(node, scope)
        if not callees:
            return False
        args = _Origins(self, [a.value for a in node.args if not a.star], self._where())
        parent = self.parent()
        awaited = isinstance(parent, cst.Await)
        function = self.functions[-1] if self.functions else None
        self.gate_calls.append((node, callees, args, awaited, function, self._tested()))
        for callee, shift in callees:
            for i, arg in enumerate(positional(node)):
                value = arg.value
                param = value.value if isinstance(value, cst.Name) and value.value in scope.params else None
                self.arguments.setdefault((id(callee.node), i + shift), []).append(
                    (self.flow.resolved(value) or self._resolving(value), id(function), param)
                )
        return True

    # ----- a path joined under a root, opened unchecked ----------------------------------------
    def _note_access(self, node: cst.Call, q: str | None) -> None:
        """`open(p)`, `p.read_text()`, `os.listdir(p)` where `p` joins a parameter of the function
        (the caller's input: a tool argument) to a value that comes from roots: the root is the
        boundary the path is meant to stay under, unchecked (`f"{roots[0].uri}/{name}"`,
        `Path(root) / relative`). The syntax is tested before the data flow is asked; `q` is the
        call's qualified name (`call_qualified`; None for a containment-check method)."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _ACCESS_METHODS:
            path = func.value
        elif q in _ACCESS:
            args = positional(node)
            if not args:
                return
            path = args[0].value
        else:
            return
        if not self.functions:
            return
        given = self._joined(path, 0)
        if given is not None:
            self.joined.append((node, self.functions[-1], code_of(path), given))

    def _joined(self, expr: cst.BaseExpression, depth: int) -> str | None:
        """The input (a parameter's text) `expr` joins to a value from roots, through the names
        of this function bound to it; None when it joins none."""
        if depth > 4:
            return None
        parts: list = []
        if isinstance(expr, cst.Name):
            for target, value, kind in self._skeleton_scope().bindings:
                if kind == "assign" and isinstance(target, cst.Name) and target.value == expr.value:
                    found = self._joined(value, depth + 1)
                    if found is not None:
                        return found
            return None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Divide, cst.Add)):
            parts = [expr.left, expr.right]
        elif isinstance(expr, cst.FormattedString):
            parts = [p.expression for p in expr.parts if isinstance(p, cst.FormattedStringExpression)]
        elif isinstance(expr, cst.Call):
            func = expr.func
            q = call_qualified(self.resolver, expr)
            if q in _JOINS or (isinstance(func, cst.Attribute) and func.attr.value == "joinpath"):
                parts = [a.value for a in positional(expr)]
                if isinstance(func, cst.Attribute):
                    parts.insert(0, func.value)
            if len(parts) < 2:
                if q in _PASS_ON and positional(expr):
                    return self._joined(positional(expr)[0].value, depth + 1)
                if isinstance(func, cst.Attribute) and q is None:  # `.replace("file://", "")`, `.resolve()`
                    return self._joined(func.value, depth + 1)
                return None
        if len(parts) < 2:
            return None
        for part in parts:  # the syntax first: the data flow is asked only about an input's partners
            given = self._input(part, 0)
            if given is not None and any(self._origin(other) for other in parts if other is not part):
                return given
        for part in parts:
            found = self._joined(part, depth + 1)
            if found is not None:
                return found
        return None

    def _input(self, expr: cst.BaseExpression, depth: int) -> str | None:
        """The text of the caller's input `expr` is: a parameter of this function (not `self`,
        not a value from roots), read (`args.path`, `params["path"]`), stripped or made a path."""
        if depth > 3:
            return None
        if isinstance(expr, cst.Name):
            scope = self._skeleton_scope()
            if expr.value in scope.params and expr.value not in ("self", "cls"):
                return None if self._origin(expr) else expr.value
            for target, value, kind in scope.bindings:
                if kind == "assign" and isinstance(target, cst.Name) and target.value == expr.value:
                    found = self._input(value, depth + 1)
                    if found is not None:
                        return found
            return None
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            return code_of(expr) if self._input(expr.value, depth + 1) is not None else None
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute):
                return self._input(func.value, depth + 1)
            args = positional(expr)
            if call_qualified(self.resolver, expr) in _PASS_ON and args:
                return self._input(args[0].value, depth + 1)
        return None

    def _report_joined(self, gates: dict) -> None:
        """The joined paths of functions that make no access decision of their own: one finding
        per path a function opens."""
        seen: set = set()
        for node, function, path, given in self.joined:
            if id(function) in gates or (id(function), path) in seen:
                continue
            seen.add((id(function), path))
            self.report(node, MSG_JOINED.format(expr=shorten(code_of(node), 30), input=shorten(given, 24)))

    # ----- decisions in the project's other modules ---------------------------------------------
    def _across(self, node: cst.Call) -> None:
        """A call of another module's function: a gate on roots it holds itself, as an `if`
        test, or a function whose parameter becomes the boundary of a check there when this
        call hands it client roots (see `vocabulary.gates_across`). Only in a file with a roots
        source of its own (`Origins.sourced`: what the syntax screen asks of every file). The
        callee is found first: only a call into another module asks where its arguments come from."""
        tested = self._tested()
        if not tested and all(a.star for a in node.args):
            return
        if not tested and "origins" in vars(self) and not self._hands_roots(node):
            return  # the flow is worked out already and no argument comes from roots: no callee to find
        view = view_of(self.context.settings)
        target = self._project_callee(node, view)
        if target is None or not self.origins.sourced:
            return
        given = [a for a in node.args if not a.star and OWN in self._origin(a.value)]
        if not tested and not given:
            return
        rule = type(self)
        expr = shorten(code_of(node), 36)
        function = f"{target.owner}.{target.name}" if target.owner else target.name
        if given:
            params = across.given_params(node, target, lambda value: OWN in self._origin(value))
            at = across.boundary(target, params, view, rule) if params else None
            if at is not None:
                self._count_decision(node)
                where = f"{self._relative(target.source)}:{at[0]}"
                if tested:  # the caller's own refusal
                    self.report(node, MSG_GATE_HANDED.format(expr=expr, function=function, where=where))
                else:
                    message = MSG_HANDED.format(expr=expr, name=target.name, function=function, where=where)
                    self.report(node, message)
                return
        if tested and across.decides_itself(target, view, rule):
            self._count_decision(node)
            self.report(node, MSG_GATE.format(expr=expr, function=function))

    def _hands_roots(self, node: cst.Call) -> bool:
        """Whether an argument of the call comes from the file's own roots (`_across`'s `given`):
        asked before the callee is looked up once the file's flow is known (`origins`, a cached
        property, then in the instance's dict), which a gateway's 20,000-line admin module asked
        of 12,000 calls, with no roots in their arguments (issue 37)."""
        where = self._where()
        return any(not a.star and OWN in self._origin_at(a.value, where) for a in node.args)

    def _count_decision(self, node: cst.Call) -> None:
        self.decisions += 1
        self._feed([a.value for a in node.args], set(), self._scope())

    def _relative(self, source: str) -> str:
        here = os.path.dirname(os.path.abspath(self.context.path)) if self.context.path else os.getcwd()
        return os.path.relpath(source, here).replace(os.sep, "/")

    def _project_callee(self, node: cst.Call, view) -> across.Callee | None:
        """The project function or method of another module that `node` calls, if known."""
        func = node.func
        path = self.context.path
        if not path or path.startswith("<"):
            return None
        if isinstance(func, cst.Name):
            q = self.resolver.qualified(func)
            return across.callee(across.locate(path, *across.split(q), view), None) if q else None
        if isinstance(func, cst.Attribute):
            cls = self._project_class(func.value, view, path, 2)
            return across.callee(cls, func.attr.value) if cls is not None else None
        return None

    def _project_class(self, expr: cst.BaseExpression, view, path: str, depth: int) -> across.Located | None:
        """The project class `expr` is an instance of (gates_across.Located): typed by the
        resolver, an imported module-level instance, or a name this function binds once to a
        method's result whose return annotation names a project class."""
        typed = self.resolver.instance_type(expr)
        if typed:
            return across.class_of_instance(across.locate(path, *across.split(typed), view), view)
        if not isinstance(expr, cst.Name):
            return None
        q = self.resolver.qualified(expr)
        if q:
            return across.class_of_instance(across.locate(path, *across.split(q), view), view)
        if not depth:
            return None
        values = [
            v
            for t, v, k in self.skeleton.scope_of(self.functions[-1] if self.functions else None).bindings
            if k == "assign" and isinstance(t, cst.Name) and t.value == expr.value
        ]
        if len(values) != 1:
            return None
        value = values[0].expression if isinstance(values[0], cst.Await) else values[0]
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
            return None
        owner = self._project_class(value.func.value, view, path, depth - 1)
        return across.returned_class(owner, value.func.attr.value, view) if owner is not None else None

    def _tested(self) -> bool:
        """The call's value is an `if` or `while` test, or part of one (`not`, `await`, `and`)."""
        stack = self.ancestors
        i = len(stack) - 2
        child = stack[-1]
        while i >= 0 and type(stack[i]) in _TEST_PARTS:
            child = stack[i]
            i -= 1
        holder = stack[i] if i >= 0 else None
        return type(holder) in _TESTED and holder.test is child  # type: ignore[union-attr]

    def leave_Module(self, node: cst.Module) -> None:
        """The decisions that need the whole file: calls of this file's gates (a function that
        checks against roots it is given, or an async one called without `await`), allow-lists
        built, extended or kept, reported where the file decides access against roots."""
        self._leave_summary()
        for node_, function_, index, fix in self.held:
            if self._resolved_parameter(function_, index):
                self.report(node_, MSG_CHECK.format(expr=shorten(code_of(node_), 36)))
            else:
                self.report(node_, MSG_UNRESOLVED.format(expr=shorten(code_of(node_), 36)), fix=fix)
        gates = self._gates()
        for site, callees, args, awaited, function, tested in self.gate_calls:
            scopes = [c for c, _shift in callees if id(c.node) in gates]
            if not scopes:
                continue
            name = code_of(site.func)
            is_async = any(c.node.asynchronous is not None for c in scopes)
            if is_async and not awaited and tested:
                self.report(site, MSG_NEVER.format(expr=shorten(code_of(site), 36), function=name))
                continue
            itself = any(OWN in self.decides.get(id(c.node), frozenset()) for c in scopes)
            if not tested or not (any(OWN in a for a in args) or itself):
                continue
            if PASSED in gates.get(id(function), frozenset()):
                continue  # a helper of a helper: reported where the roots are its caller's own
            self.decisions += 1
            scope = self.origins.scope_of(function)
            self._feed([a.value for a in site.args], set(), scope)
            self.report(site, MSG_GATE.format(expr=shorten(code_of(site), 36), function=name))
        self._report_joined(gates)
        if not self.decisions:
            return
        self.stores = [
            (assign, target.attr.value, code_of(target))
            for assign, target, where in self.stored
            if OWN in self._origin_at(assign.value, where)
        ]
        self._fed()
        origins = self.origins
        for scope in origins.scopes.values():
            if not isinstance(scope.node, cst.FunctionDef):
                continue
            built = origins.built(scope)
            if built and id(scope.node) in self.feeding and OWN in origins.returned.get(id(scope.node), frozenset()):
                self.report(scope.node.name, MSG_BUILT.format(function=scope.node.name.value))
            for target, value, kind in scope.bindings:
                if kind != "extend" or not isinstance(target, cst.Name) or target.value not in scope.filled:
                    continue
                if target.value in scope.texts:
                    continue
                fed = id(scope.node) in self.feeding or (id(scope.node), target.value) in self.feeding_names
                if fed and OWN in origins.origin(value, scope):
                    statement = _extending_call(scope.node, target.value, value)
                    if statement is not None:
                        self.report(
                            statement, MSG_EXTENDED.format(expr=shorten(code_of(statement), 36), name=target.value)
                        )
        for assign, attribute, text in self.stores:
            if attribute in self.decision_attrs:
                self.report(assign, MSG_STORED.format(expr=shorten(code_of(assign), 36), name=text))

    def _leave_summary(self) -> None:
        """For `gates_across` (the copy run on another module): the functions of this module that
        decide against roots they hold, noted in the file's model (GATES)."""
        if self.ACROSS:
            return
        if not self.decides:  # no decision: no function decides (and no data flow asked for)
            return
        model = file_effects(self.context)
        for scope in self.origins.scopes.values():
            if isinstance(scope.node, cst.FunctionDef) and OWN in self.decides.get(id(scope.node), frozenset()):
                key = (scope.cls.name.value if scope.cls is not None else None, scope.node.name.value)
                model.holds(GATES, key, scope.node)

    def _gates(self) -> dict:
        """id(function) -> origins: the functions that decide access against roots, directly or
        through a gate they call with roots (PASSED: roots they are given; OWN: their own)."""
        gates = dict(self.decides)
        changed = True
        while changed:
            changed = False
            for _site, callees, args, _awaited, function, _tested in self.gate_calls:
                if not any(id(c.node) in gates for c, _shift in callees):
                    continue
                found = frozenset().union(*args) if args else frozenset()
                found = found or frozenset({OWN})
                key = id(function)
                if not found <= gates.get(key, frozenset()):
                    gates[key] = gates.get(key, frozenset()) | found
                    changed = True
        gates.pop(id(None), None)
        return gates

    def _directory_check(self, subject, other) -> bool:
        """Both sides can be directories, the checked side is input (not a path the program
        enumerated itself), and the check is not a test's assertion."""
        if is_literal(subject) or is_literal(other) or self._uri_constant(subject) or self._uri_constant(other):
            return False
        if _not_a_directory(subject) or _not_a_directory(other) or self.flow.walked(subject):
            return False
        return not self._in_assert() and not self._strips_prefix() and not self._only_formatted()

    def _only_formatted(self) -> bool:
        """`ok = p.startswith(root + "/") and ...` whose name is then only written into f-string
        text (a label, a report line, generated data): the check grants or refuses nothing."""
        stack = self.ancestors
        i = len(stack) - 2
        while i >= 0 and isinstance(stack[i], (cst.BooleanOperation, cst.UnaryOperation)):
            i -= 1
        assign = stack[i] if i >= 0 else None
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return False
        target = assign.targets[0].target
        scope = next((a for a in reversed(stack[:i]) if isinstance(a, (cst.FunctionDef, cst.Module))), None)
        if not isinstance(target, cst.Name) or scope is None:
            return False
        name = target.value
        uses = sum(1 for n in iter_nodes(scope) if isinstance(n, cst.Name) and n.value == name)
        formatted = sum(
            1
            for f in iter_nodes(scope)
            if isinstance(f, cst.FormattedStringExpression)
            for n in iter_nodes(f.expression)
            if isinstance(n, cst.Name) and n.value == name
        )
        return uses > 1 and formatted == uses - 1

    def _strips_prefix(self) -> bool:
        """`if p.startswith(root + "/"): return p[len(root):]`: the test guards removing the
        prefix (a display or key path), it grants or refuses nothing."""
        stack = self.ancestors
        test_if = stack[-2] if len(stack) >= 2 else None
        if not isinstance(test_if, cst.If) or test_if.test is not stack[-1]:
            return False
        body = getattr(test_if.body, "body", ())
        first = body[0] if body else None
        small = first.body[0] if isinstance(first, cst.SimpleStatementLine) and first.body else None
        value = getattr(small, "value", None)
        return isinstance(value, cst.Subscript) and _sliced_by_length(value)

    def _in_assert(self) -> bool:
        """An `assert` states a test's precondition; it grants or refuses nothing."""
        return any(isinstance(anc, cst.Assert) for anc in self.ancestors)

    def _uri_constant(self, expr) -> bool:
        """A module constant bound to a URI text (`PREFIX = f"{SCHEME}://workspaces/"`)."""
        return isinstance(expr, cst.Name) and expr.value in self.uri_constants

    def _used_as_check(self) -> bool:
        """`p.relative_to(root)` inside a `try:` whose ValueError is the answer: the value is
        thrown away (the call exists for its exception), or the handler refuses (raises or
        returns). A value kept with a fallback (`rel = p.relative_to(root)` / `except
        ValueError: rel = p`, `continue`, `pass`) computes a key or a display path."""
        stack = self.ancestors
        parent = self.parent()
        discarded = isinstance(parent, cst.Expr) or (
            isinstance(parent, cst.Assign)
            and all(isinstance(t.target, cst.Name) and t.target.value == "_" for t in parent.targets)
        )  # `_ = p.relative_to(root)`: bound to the name that says "thrown away"
        for i in range(len(stack) - 2, -1, -1):
            anc = stack[i]
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(anc, cst.Try) and stack[i + 1] is anc.body:
                return any(_answers(handler, discarded) for handler in anc.handlers)
        return False

    def _common(self, node: cst.Call, prefix: bool) -> None:
        """`os.path.commonpath([p, root])`: a check when an element comes from roots and another
        (the checked path) does not."""
        args = positional(node)
        if len(args) != 1 or not isinstance(args[0].value, (cst.List, cst.Tuple)) or self._in_assert():
            return
        elements = [e.value for e in args[0].value.elements if not isinstance(e, cst.StarredElement)]
        if len(elements) != len(args[0].value.elements):
            return
        origins = [self._origin(e) for e in elements]
        roots = [e for e, o in zip(elements, origins) if o]
        checked = [e for e, o in zip(elements, origins) if not o]
        if not roots or not checked:
            return
        # The checked paths must be resolved; an unresolved root only makes the check stricter.
        unsound = CHARACTERS if prefix else None if all(self.flow.resolved(e) for e in checked) else UNRESOLVED
        fix = self._fix_common(node, elements) if unsound else None
        self._decide(node, roots[0], frozenset().union(*(o for o in origins if o)), unsound, fix)

    # ----- fixes ----------------------------------------------------------------------------
    def _side(self, expr: cst.BaseExpression, strip_separator: bool = False) -> cst.BaseExpression | None:
        """The path inside a side of the check, without `str()`/`Path()`/`+ os.sep` around it;
        None when the side is not a plain path (a URI, a tuple of prefixes, a string with text)."""
        while True:
            if strip_separator and self.flow.separator_terminated(expr) and isinstance(expr, cst.BinaryOperation):
                expr = expr.left
                continue
            if (
                isinstance(expr, cst.Call)
                and len(expr.args) == 1
                and not expr.args[0].keyword
                and not expr.args[0].star
            ):
                if call_qualified(self.resolver, expr) in _STRIP:
                    expr = expr.args[0].value
                    continue
            break
        if isinstance(
            expr, (cst.Tuple, cst.List, cst.Set, cst.FormattedString, cst.SimpleString, cst.ConcatenatedString)
        ):
            return None
        if isinstance(expr, cst.Call) and call_qualified(self.resolver, expr) in ("tuple", "list", "set", "frozenset"):
            return None
        text = code_of(expr)
        if "uri" in text.lower() or "url" in text.lower():
            return None  # a file:// URI is not a path: convert it first (RT102)
        return bare(expr)

    def _resolved_path(self, expr: cst.BaseExpression, path_name: cst.BaseExpression) -> cst.Call:
        return method(call(path_name, expr), "resolve")

    def _fix_method(self, node: cst.Call, name: str, subject, other) -> Fix | None:
        left = self._side(subject)
        right = self._side(other, strip_separator=True)
        spelled = self.spelling.spell("pathlib", "Path")
        if left is None or right is None or spelled is None:
            return None
        path_name, needed = spelled
        new_method = "relative_to" if name == "relative_to" else "is_relative_to"
        new = method(self._resolved_path(left, path_name), new_method, self._resolved_path(right, path_name))
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
        return Fix((Replace(node, new),), imports=(needed,), display=True)

    def _fix_common(self, node: cst.Call, elements: list) -> Fix | None:
        """`commonpath([p, root]) == root` -> `Path(p).resolve().is_relative_to(Path(root).resolve())`."""
        if len(elements) != 2:
            return None
        stack = self.ancestors
        comparison = stack[-2] if len(stack) >= 2 else None
        if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
            return None
        target = comparison.comparisons[0]
        if comparison.left is node:
            other = target.comparator
        elif target.comparator is node:
            other = comparison.left
        else:
            return None
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return None
        texts = [code_of(bare(e)) for e in elements]
        other_text = code_of(bare(other))
        if other_text not in texts or texts[0] == texts[1]:
            return None
        root = elements[texts.index(other_text)]
        path = elements[1 - texts.index(other_text)]
        left, right = self._side(path), self._side(root, strip_separator=True)
        spelled = self.spelling.spell("pathlib", "Path")
        if left is None or right is None or spelled is None:
            return None
        path_name, needed = spelled
        new = method(self._resolved_path(left, path_name), "is_relative_to", self._resolved_path(right, path_name))
        if isinstance(target.operator, cst.NotEqual):
            new = cst.UnaryOperation(operator=cst.Not(), expression=new)
        new = new.with_changes(lpar=comparison.lpar, rpar=comparison.rpar)
        return Fix((Replace(comparison, new),), imports=(needed,), display=True)


#: Words that say a value is a separator, extension or scheme, not a directory (`path_sep_tuple`).
_NOT_DIRECTORY_WORDS = frozenset(
    {
        "sep",
        "seps",
        "separator",
        "separators",
        "ext",
        "exts",
        "extension",
        "extensions",
        "suffix",
        "suffixes",
        "scheme",
        "schemes",
        "char",
        "chars",
        "marker",
        "markers",
        "magic",
    }
)


def _returns_resolved(flow: Flow, scope, returned) -> bool:
    """A function's returned value is resolved: `x.resolve()`, or a name whose last binding in
    its function is a resolved value (`value = Path(value).resolve()` ... `return value`)."""
    if flow.resolved(returned):
        return True
    if not isinstance(returned, cst.Name):
        return False
    values = [
        v for t, v, k in scope.bindings if k == "assign" and isinstance(t, cst.Name) and t.value == returned.value
    ]
    return bool(values) and flow.resolved(values[-1])


def _extending_call(function: cst.FunctionDef, name: str, value: cst.BaseExpression):
    """The statement of `function` that puts `value` into the collection `name`
    (`name.extend(value)`, `name += value`)."""
    for node in iter_nodes(function):
        if isinstance(node, cst.Call) and node.args and node.args[-1].value is value:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in EXTENDERS:
                if isinstance(func.value, cst.Name) and func.value.value == name:
                    return node
        if isinstance(node, cst.AugAssign) and node.value is value:
            return node
    return None


def _sliced_by_length(node: cst.Subscript) -> bool:
    """`x[len(prefix):]`."""
    sl = node.slice[0].slice if len(node.slice) == 1 else None
    lower = getattr(sl, "lower", None) if isinstance(sl, cst.Slice) else None
    return isinstance(lower, cst.Call) and isinstance(lower.func, cst.Name) and lower.func.value == "len"


def _uri_text(expr: cst.BaseExpression) -> bool:
    """A string or f-string whose text holds `://`."""
    if isinstance(expr, cst.FormattedString):
        return any(isinstance(p, cst.FormattedStringText) and "://" in p.value for p in expr.parts)
    value = literal(expr)
    return value is not None and "://" in value


def _not_a_directory(expr: cst.BaseExpression) -> bool:
    name = last_identifier(expr)
    return bool(name) and bool(_NOT_DIRECTORY_WORDS.intersection(words(name)))


def _answers(handler: cst.ExceptHandler, discarded: bool) -> bool:
    """Does this handler make the ValueError the check's answer? A bare or broad handler
    around a discarded call does; around a kept value only a ValueError handler that refuses."""
    if handler.type is None or not _catches(handler.type):
        return False
    if discarded:
        return True
    return _catches(handler.type, frozenset({"ValueError"})) and ends_with(handler.body, (cst.Raise, cst.Return))


def _catches(expr: cst.BaseExpression, names: frozenset = _CATCHES) -> bool:
    if isinstance(expr, cst.Tuple):
        return any(_catches(e.value, names) for e in expr.elements)
    name = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
    return name in names


class _Comprehension:
    """A comprehension entered (`self.bound`): its variables that come from roots are worked
    out when a node inside first asks (`_bound`), from the variables around it."""

    def __init__(self, node, function) -> None:
        self.node = node
        self.function = function
        self.bound: dict | None = None


def _bound(origins: Origins, entries: tuple) -> dict:
    """The comprehension variables in force at the last of `entries` (`self.bound` as it was):
    a function's or the module's own entry is empty; a comprehension's is worked out once, from
    the entry before it."""
    first = len(entries) - 1
    while isinstance(entries[first], _Comprehension) and entries[first].bound is None:
        first -= 1
    entry = entries[first]
    bound: dict = (entry.bound or {}) if isinstance(entry, _Comprehension) else entry
    for entry in entries[first + 1 :]:
        bound = entry.bound = origins.comprehension(entry.node, origins.scope_of(entry.function), bound)
    return bound


class _Origins:
    """The origins of a call's arguments (`gate_calls`), worked out when first read: only a
    file whose functions decide access reads them (`_gates`). The rule is held weakly: a cycle
    would keep the file's whole tree alive until the collector runs, which is seldom
    (`commands.process`' thresholds)."""

    def __init__(self, rule: RootsAsSandbox, values: list, where: tuple) -> None:
        self.rule = weakref.ref(rule)
        self.values = values
        self.where = where
        self.found: list | None = None

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self):
        if self.found is None:
            rule = self.rule()
            assert rule is not None  # read by the rule itself, in its own walk
            self.found = [rule._origin_at(value, self.where) for value in self.values]
        return iter(self.found)
