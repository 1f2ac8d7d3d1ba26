"""RT103 roots-as-sandbox: access control that trusts a string prefix or an unresolved path.

What counts as "comes from roots" (the data-flow heuristic, see `vocabulary.root_flow.Flow`):
a name or attribute whose words say it holds access-bounding directories (`root`, `roots`,
`workspace`, `sandbox`, `allowlist`, `allowed_dirs`, `ALLOWED_ROOTS`, `base_dir`, ...; not
`root_key`, `root_logger`, `allowed_hosts` or ASGI's `root_path`), a `.roots` attribute or
`list_roots()` result, an environment variable with such a key, a name bound in the same scope
to any of these, a `for` or comprehension variable over one (not `os.walk`'s), and
transformations of one (`str(r)`, `Path(r)`, `r.uri`, `r + os.sep`, `os.path.abspath(r)`,
`roots[0]`, `r.rstrip("/")`). A side named as a separator, extension or scheme
(`PATH_SEP_TUPLE`) is not a directory.

What is flagged, when a side comes from roots (for the methods, the argument: the container):

* `a.startswith(b)` where neither side is a string literal. It is safe only when the checked path
  is resolved *and* the prefix ends with a separator (`real.startswith(os.path.realpath(root) + os.sep)`).
* `a.is_relative_to(b)` when `a` was not resolved (`..` and symlinks walk out).
* `a.relative_to(b)` used as a check (inside a `try` that catches `ValueError`) when `a` was not resolved.
* `os.path.commonpath([...])` when an element was not resolved; `os.path.commonprefix` always
  (it compares characters, not path components).

A path is resolved when it is `x.resolve()`, `os.path.realpath(x)`, a `str()`/`Path()` of one,
or a name bound to one in the same scope (or named `real_*`/`resolved_*`).
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from mcp_migrate.core.fix.edits import Fix, Replace
from mcp_migrate.core.fix.nodes import bare, call, method
from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import within
from mcp_migrate.core.sdk import EXAMPLE_IMPORT, mcp_file
from mcp_migrate.core.syntax import code_of, iter_nodes, literal, positional, shorten
from mcp_migrate.vocabulary.calls import call_qualified, ends_with, is_literal
from mcp_migrate.vocabulary.root_flow import Flow, TreeFlow, separator_terminated_tree
from mcp_migrate.vocabulary.spelling import Spelling
from mcp_migrate.vocabulary.words import last_identifier, words

NOT_ACL = "roots are guidance, not access control: isolation comes from the server process's permissions"
_RESOLVED = "`Path(p).resolve().is_relative_to(Path(root).resolve())`"
MSG_PREFIX = Message(
    "`{expr}` treats a root as a string prefix",
    "`/srv/app-secrets` starts with `/srv/app`, and `..` or a symlink walks out; resolve both sides and"
    f" compare components ({_RESOLVED}); " + NOT_ACL,
)
MSG_UNRESOLVED = Message(
    "`{expr}` checks a path not resolved against a root",
    f"`..` or a symlink walks out; resolve both sides first ({_RESOLVED}); " + NOT_ACL,
)
MSG_COMMONPREFIX = Message(
    "`{expr}` compares characters, not path components",
    f"`/srv/app-secrets` shares the prefix `/srv/app`, and `..` or a symlink walks out; use {_RESOLVED}; " + NOT_ACL,
)

#: Second screen stage: the words `Flow.rootish` needs somewhere in the file (case-insensitive).
_ROOTISH_BYTES = re.compile(
    rb"(?i)root|workspace|sandbox|allowlist|whitelist|jail|allowed|(?:allow|permitted|trusted|safe|base)_*"
    rb"(?:dir|path|folder|prefix)"
)
_COMMONPATH = frozenset({"os.path.commonpath", "posixpath.commonpath", "ntpath.commonpath"})
_COMMONPREFIX = frozenset({"os.path.commonprefix", "posixpath.commonprefix", "ntpath.commonprefix"})
#: Wrappers the fix strips from a side before wrapping it in `Path(...).resolve()`.
_STRIP = frozenset({"str", "os.fspath", "pathlib.Path", "pathlib.PurePath", "os.path.abspath", "os.path.normpath"})
_CATCHES = frozenset({"ValueError", "Exception", "BaseException"})


class RootsAsSandbox(Rule):
    CODE = "RT103"
    SCREEN = (b"startswith", b"relative_to", b"commonpath", b"commonprefix")

    #: Without one of these the file is neither MCP code (an SDK or host-library import) nor
    #: code naming an allow-list of directories: a bare `path.startswith(root)` in a tree walker
    #: of a library that has nothing to do with MCP is out of this rule's scope (and its cost).
    CONTEXT = (b"allowed_dir", b"allowed_root", b"allowed_path", b"ALLOWED_DIR", b"ALLOWED_ROOT", b"ALLOWED_PATH")

    @classmethod
    def applies(cls, data: bytes) -> bool:
        return any(token in data for token in cls.CONTEXT) or mcp_file(data)

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """A prefix or containment check and a word that can make a side come from roots
        (byte scans first; the regex runs on the few files left)."""
        return any(token in data for token in cls.SCREEN) and _ROOTISH_BYTES.search(data) is not None

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A check `visit_Call` would judge, by its syntax: `p.startswith(x)`, `p.is_relative_to(x)`
        or `p.relative_to(x)` used as a check (`_used_as_check`), or `commonpath`/`commonprefix`
        of a list, where a side may come from roots (`TreeFlow`); minus what the rule drops for
        reasons the syntax shows alone (a literal side, a separator or extension name, an
        `assert`, a test that guards stripping the prefix, a side resolved in plain sight, an
        argument that does not come from roots)."""
        methods = [c for name in ("startswith", "is_relative_to", "relative_to") for c in syntax.method_calls(name)]
        commons = syntax.calls_to(*_COMMON_NAMES)
        if not methods and not commons:
            return False
        flow = TreeFlow(syntax)
        asserted = _asserted_calls(syntax) if methods else set()
        answered = None
        strips = _prefix_strips(syntax) if methods else set()
        for check in methods:
            if len(check.args) != 1 or check.keywords or check.args[0].__class__ is ast.Starred:
                continue
            subject, other = check.func.value, check.args[0]
            if id(check) in asserted or _literal_tree(subject) or _literal_tree(other):
                continue
            if _not_a_directory_tree(subject) or _not_a_directory_tree(other):
                continue
            name = check.func.attr
            if name == "startswith":
                if separator_terminated_tree(other) and flow.resolved(subject):
                    continue
            elif flow.resolved(subject):
                continue
            if name == "relative_to":
                answered = _answered_calls(syntax) if answered is None else answered
                if id(check) not in answered:
                    continue
            if id(check) in strips:
                continue
            if flow.rootish(other):  # the argument is the container, and must be the root (`_method`)
                return True
        for common in commons:
            args = screen_positional(common)
            if len(args) != 1 or args[0].__class__ not in (ast.List, ast.Tuple):
                continue
            elements = args[0].elts
            if any(e.__class__ is ast.Starred for e in elements) or not any(flow.rootish(e) for e in elements):
                continue
            if "commonprefix" not in syntax.symbols(common.func) and all(flow.resolved(e) for e in elements):
                continue
            return True
        return False

    VALID = [
        Valid("def inside(path, root):\n    return path.startswith(root)\n", "not MCP code: out of this rule's scope"),
        Valid('def f(name):\n    return name.startswith("_")\n', "a literal prefix is not a directory check"),
        Valid('def f(url):\n    return url.startswith("https://")\n', "a scheme check"),
        Valid('def f(line):\n    return line.startswith("#")\n', "a comment check"),
        Valid(
            "from pathlib import Path\n\ndef inside(p, root):\n"
            "    return Path(p).resolve().is_relative_to(Path(root).resolve())\n",
            "already resolved on both sides",
        ),
        Valid("def f(text, prefix):\n    return text.startswith(prefix)\n", "neither side comes from roots"),
        Valid(
            "import os\n\ndef inside(p, root):\n"
            "    return os.path.realpath(p).startswith(os.path.realpath(root) + os.sep)\n",
            "resolved path against a separator-terminated resolved root",
        ),
        Valid("def f(root_key, key):\n    return key.startswith(root_key)\n", "`root_key` is not a directory"),
        Valid(
            EXAMPLE_IMPORT + 'def row(path, root):\n    ok = path.startswith(root + "/")\n    return f"{path}: {ok}"\n',
            "a check only written into text grants or refuses nothing",
        ),
    ]
    INVALID = [
        Invalid(
            EXAMPLE_IMPORT + 'def read(path, root):\n    ok = path.startswith(root + "/")\n'
            '    if not ok:\n        raise PermissionError(path)\n    return f"{path}: {ok}"\n',
            "a check written into text and also deciding",
        ),
        Invalid(
            EXAMPLE_IMPORT + "def inside(path, root):\n    return path.startswith(root)\n",
            "a string prefix against a root",
        ),
        Invalid(
            EXAMPLE_IMPORT + "def inside(p, roots):\n    return any(str(p).startswith(str(r)) for r in roots)\n",
            "a loop over roots",
        ),
        Invalid(
            EXAMPLE_IMPORT
            + "from pathlib import Path\n\ndef inside(p, workspace):\n    return Path(p).is_relative_to(workspace)\n",
            "is_relative_to on a path that was not resolved",
        ),
        Invalid(
            EXAMPLE_IMPORT + "import os\n\ndef inside(p, root):\n    return os.path.commonpath([p, root]) == root\n",
            "commonpath on unresolved paths",
        ),
        Invalid(
            EXAMPLE_IMPORT + "async def f(ctx, p):\n    result = await ctx.session.list_roots()\n"
            "    for r in result.roots:\n        if p.startswith(r.uri.path):\n            return True\n",
            "a list_roots() result",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self.flow = Flow(self.resolver)
        self.spelling = Spelling(context)
        #: module names bound to a URI text: a prefix of URIs, not of directories.
        self.uri_constants: set = set()
        #: function name -> for each plain call, which positional arguments were resolved.
        self.calls: dict = {}
        #: ((function, position), node, message, fix) for checks on an unresolved parameter.
        self.held: list = []

    # ----- data flow ------------------------------------------------------------------------
    def visit_FunctionDef(self, node) -> None:
        self.flow.push()

    def leave_FunctionDef(self, node) -> None:
        self.flow.pop()

    def visit_Lambda(self, node) -> None:
        self.flow.push()

    def leave_Lambda(self, node) -> None:
        self.flow.pop()

    def _visit_comp(self, node) -> None:
        self.flow.push()
        self.flow.bind_comprehension(node)

    def _leave_comp(self, node) -> None:
        self.flow.pop()

    visit_GeneratorExp = visit_ListComp = visit_SetComp = visit_DictComp = _visit_comp
    leave_GeneratorExp = leave_ListComp = leave_SetComp = leave_DictComp = _leave_comp

    def visit_For(self, node: cst.For) -> None:
        self.flow.bind_loop(node.target, node.iter)

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.flow.bind_value(target.target, node.value)
            if len(self.flow.scopes) == 1 and isinstance(target.target, cst.Name) and _uri_text(node.value):
                self.uri_constants.add(target.target.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.flow.bind_value(node.target, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.flow.bind_value(node.target, node.value)

    # ----- checks ---------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._note_call(node)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("startswith", "is_relative_to", "relative_to"):
            self._method(node, func.attr.value, func.value)
            return
        q = call_qualified(self.resolver, node)
        if q in _COMMONPATH or q in _COMMONPREFIX:
            self._common(node, q in _COMMONPREFIX)

    def _method(self, node: cst.Call, name: str, subject: cst.BaseExpression) -> None:
        """`p.startswith(root)`, `p.is_relative_to(root)`, `p.relative_to(root)` as a check."""
        args = positional(node)
        if len(args) != 1 or len(node.args) != 1:
            return
        other = args[0].value
        # The argument is the container: `root.relative_to(home)` asks whether a root lies in a
        # directory the program chose, which is not a check against the roots.
        if not self.flow.rootish(other) or not self._directory_check(subject, other):
            return
        flow = self.flow
        fixable = True
        if name == "startswith":
            separated = flow.separator_terminated(other)
            if separated and flow.resolved(subject):
                return
            # `p.startswith(root + os.sep)` already compares whole components: only `..` and
            # symlinks in an unresolved `p` remain, and rewriting it changes the `/` root.
            message, fixable = (MSG_UNRESOLVED, False) if separated else (MSG_PREFIX, True)
        else:
            if flow.resolved(subject):
                return
            if name == "relative_to" and not self._used_as_check():
                return
            message = MSG_UNRESOLVED
        fix = self._fix_method(node, name, subject, other) if fixable else None
        held = self._parameter(subject) if message is MSG_UNRESOLVED else None
        if held is not None:
            self.held.append((held, node, message.format(expr=shorten(code_of(node))), fix))
            return
        self.report(node, message.format(expr=shorten(code_of(node), 36)), fix=fix)

    # ----- paths resolved by every caller ---------------------------------------------------------
    def _note_call(self, node: cst.Call) -> None:
        """For each call of a plain function name: which positional arguments are resolved."""
        if isinstance(node.func, cst.Name):
            resolved = [self.flow.resolved(a.value) for a in node.args if a.keyword is None and not a.star]
            self.calls.setdefault(node.func.value, []).append(resolved)

    def _parameter(self, subject) -> tuple | None:
        """(function name, position) when the unresolved side is a positional parameter of a
        module-level function: its callers in this file may all pass resolved paths."""
        stack = self.ancestors
        function = next((a for a in reversed(stack) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if not isinstance(subject, cst.Name) or not isinstance(function, cst.FunctionDef):
            return None
        if len(stack) < 2 or stack[stack.index(function) - 1] is not stack[0]:
            return None  # a method or a nested function: its callers are not plain calls
        names = [p.name.value for p in function.params.params]
        if subject.value not in names:
            return None
        return function.name.value, names.index(subject.value)

    def leave_Module(self, node: cst.Module) -> None:
        """Report the held checks unless every call of their function in this file passes a
        resolved path at that position (`_check(canonical_data, canonical_project)`)."""
        for (function, position), check, message, fix in self.held:
            calls = self.calls.get(function, [])
            if calls and all(len(c) > position and c[position] for c in calls):
                continue
            self.report(check, message, fix=fix)

    def _directory_check(self, subject, other) -> bool:
        """Both sides can be directories, one comes from roots, the checked side is input (not
        a path the program enumerated itself), and the check is not a test's assertion."""
        if is_literal(subject) or is_literal(other) or self._uri_constant(subject) or self._uri_constant(other):
            return False
        flow = self.flow
        if not (flow.rootish(subject) or flow.rootish(other)):
            return False
        if _not_a_directory(subject) or _not_a_directory(other) or flow.walked(subject):
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
        discarded = isinstance(self.parent(), cst.Expr)
        for i in range(len(stack) - 2, -1, -1):
            anc = stack[i]
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(anc, cst.Try) and stack[i + 1] is anc.body:
                return any(_answers(handler, discarded) for handler in anc.handlers)
        return False

    def _common(self, node: cst.Call, prefix: bool) -> None:
        args = positional(node)
        if len(args) != 1 or not isinstance(args[0].value, (cst.List, cst.Tuple)):
            return
        elements = [e.value for e in args[0].value.elements if not isinstance(e, cst.StarredElement)]
        if len(elements) != len(args[0].value.elements) or not any(self.flow.rootish(e) for e in elements):
            return
        # The checked paths (the elements not from roots) must be resolved; an unresolved root
        # can only make the check stricter. With no such element, every one must be.
        checked = [e for e in elements if not self.flow.rootish(e) or self.flow.resolved(e)] or elements
        if not prefix and all(self.flow.resolved(e) for e in checked):
            return
        message = MSG_COMMONPREFIX if prefix else MSG_UNRESOLVED
        self.report(node, message.format(expr=shorten(code_of(node), 36)), fix=self._fix_common(node, elements))

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


#: The last components `_COMMONPATH` / `_COMMONPREFIX` end in.
_COMMON_NAMES = ("commonpath", "commonprefix")


def _literal_tree(node) -> bool:
    """`is_literal` on the standard library's nodes."""
    if node.__class__ is ast.Constant and node.value.__class__ in (str, bytes):
        return True
    if node.__class__ in (ast.Tuple, ast.List):
        return bool(node.elts) and all(_literal_tree(e) for e in node.elts)
    return False


def _catches_tree(node, names: frozenset = _CATCHES) -> bool:
    """`_catches` on the standard library's nodes."""
    if node.__class__ is ast.Tuple:
        return any(_catches_tree(e, names) for e in node.elts)
    return screen_last_identifier(node) in names


def _asserted_calls(syntax) -> set:
    """Ids of the calls inside an `assert` (`_in_assert`)."""
    return {id(found) for node in syntax.of(ast.Assert) for found in within(node, ast.Call)}


def _answered_calls(syntax) -> set:
    """Ids of the calls `_used_as_check` can take for a check: in the body of a `try` (no
    function, lambda or class between) with a handler whose ValueError is the answer (`_answers`:
    any handler catching it around a discarded call; a ValueError handler that raises or
    returns around a kept value)."""
    stop = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    discarded = {id(node.value) for node in syntax.of(ast.Expr)}
    found = set()
    for node in syntax.of(ast.Try):
        typed = [h for h in node.handlers if h.type is not None and _catches_tree(h.type)]
        if not typed:
            continue
        refuses = any(
            _catches_tree(h.type, frozenset({"ValueError"})) and h.body[-1].__class__ in (ast.Raise, ast.Return)
            for h in typed
        )
        for stmt in node.body:
            for inner in within(stmt, ast.Call, stop=stop):
                if refuses or id(inner) in discarded:
                    found.add(id(inner))
    return found


def _prefix_strips(syntax) -> set:
    """Ids of the checks that are an `if` test whose body starts by slicing the prefix off
    (`_strips_prefix`: `if p.startswith(root + "/"): return p[len(root):]`)."""
    found = set()
    for node in syntax.of(ast.If):
        first = node.body[0] if node.body else None
        value = getattr(first, "value", None)
        if value.__class__ is ast.Subscript and value.slice.__class__ is ast.Slice:
            lower = value.slice.lower
            if lower.__class__ is ast.Call and lower.func.__class__ is ast.Name and lower.func.id == "len":
                found.add(id(node.test))
    return found


def _not_a_directory_tree(node) -> bool:
    """`_not_a_directory` on the standard library's nodes."""
    name = screen_last_identifier(node)
    return bool(name) and bool(_NOT_DIRECTORY_WORDS.intersection(words(name)))
