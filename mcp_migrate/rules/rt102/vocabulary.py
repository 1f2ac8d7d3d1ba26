"""RT102's vocabulary: its messages, the standard-library names it knows, the byte screens, and
small predicates on literals and expressions."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.messages import Message
from mcp_migrate.core.syntax import ancestry, enclosing, literal
from mcp_migrate.rules.rt102.landing_screen import says_root
from mcp_migrate.vocabulary.calls import call_qualified
from mcp_migrate.vocabulary.words import last_identifier, words

MSG_TO_PATH = Message(
    "`{expr}` turns a `file://` URI into a path by string surgery",
    "percent-escapes (`%20`) stay, a Windows drive becomes `/C:/x` and `file://host/` URIs become relative"
    " paths; use `url2pathname(urlparse(uri).path)` (urllib.request, urllib.parse)",
)


MSG_PATH_ONLY = Message(
    "`{expr}` is a `file://` URI's path, not a local path",
    "it keeps the `/C:/x` form of Windows drives{escapes}; hand it to `url2pathname`"
    " (`url2pathname(urlparse(uri).path)`)",
)


MSG_TO_URI = Message(
    "`{expr}` builds a `file://` URI by concatenation",
    "nothing is percent-encoded and a relative path slips through; use `Path(path).absolute().as_uri()`",
)


URLPARSE = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})


URL2PATHNAME = frozenset({"urllib.request.url2pathname", "nturl2path.url2pathname"})


UNQUOTE = frozenset({"urllib.parse.unquote"})


URL_BUILDERS = frozenset({"urllib.parse.urlunparse", "urllib.parse.urlunsplit", "urllib.parse.urljoin"})


#: Calls that touch the file system with a path argument.
FS_MODULES = ("pathlib.", "os.", "shutil.", "glob.", "io.open", "git.")


#: Words of a name that holds a file-system path (`repo_path`, `cwd`, `workspace_dir`).
PATH_WORDS = frozenset({"path", "dir", "directory", "folder", "cwd", "repo", "root", "workspace", "file"})


#: Words of a name that holds a resource name rather than a path (`file:///{name}`).
NAME_WORDS = frozenset({"name", "id", "key", "slug", "title", "label", "topic", "resource", "uid", "uuid"})


#: String methods that only test (`path.startswith("/")`) or change case before a test.
TESTS = frozenset({"startswith", "endswith", "count", "find", "index", "isalpha", "isdigit"})


CASE_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})


EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


TEST_OPERATORS = (cst.In, cst.NotIn, cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)


def file_literal(expr) -> str | None:
    """A literal that starts a file URI: `file:/`, `file://`, `file:///` (any case). A bare
    `"file:"` is left out: it is also setuptools' `file:` directive and similar."""
    value = literal(expr)
    return value if value is not None and value.lower().startswith("file:/") else None


def int_value(expr) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, cst.Integer)
    ):
        return -int(expr.expression.value)
    return None


def not_a_path_uri(text: str) -> bool:
    """Literal text with `..` or an encoded separator (`%2f`, `%5c`): deliberately malformed
    data (a traversal fuzz input in a test), not a path made into a URI."""
    lowered = text.lower()
    return ".." in lowered or "%2f" in lowered or "%5c" in lowered


def virtual_name(expr) -> bool:
    """`f"file:///{name}"`: a resource namespace keyed by a name, not a file-system path."""
    name = last_identifier(expr)
    ws = set(words(name)) if name else set()
    return bool(ws) and ws <= NAME_WORDS


def a_root(expr) -> bool:
    """`root`, `r` over `.roots`, `result.roots[0]`, `self.root`: the owner of a root's `.uri`."""
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    return says_root(last_identifier(expr))


def is_builtin_open(resolver, node: cst.Call) -> bool:
    return call_qualified(resolver, node) == "open"


# ----- the same predicates on the standard library's nodes, for RT102's syntax screen ------------


#: Where a value built from a path stops being carried on: a statement, a function, a class.
_STOPS = (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Module)


def lands_in_root(node: cst.CSTNode, parents: dict, follow=None) -> bool:
    """Whether the value of `node` becomes a root, as far as its expression and statement say:
    an argument of a call or keyword named for roots (`Root(uri=...)`, `roots=[...]`,
    `scan_roots([...])`), a `"roots"` entry, an assignment to a root-named target
    (`roots = [...]`, `mock_root.uri = ...`), the return value of a root-named function, or
    a comparison with a root's value. Wrappers in between (`FileUrl(...)`, a list, a dict) carry
    it. `follow(name)`: for a plain local it is assigned to, whether that local lands in a root
    (one step of flow, `file_url = FileUrl(...)` then `Root(uri=file_url)`); `follow(function)`
    for the function it is returned from, whether that function gives roots (its signature says
    so, or it is handed to a root-named keyword)."""
    child, here = node, parents.get(id(node))
    while here is not None:
        if isinstance(here, cst.Call) and says_root(last_identifier(here.func)):
            return True
        if isinstance(here, cst.Arg) and here.keyword is not None and says_root(here.keyword.value):
            return True
        if isinstance(here, cst.DictElement) and here.value is child and says_root(literal(here.key)):
            return True
        if isinstance(here, cst.Comparison):
            operands = [here.left, *(c.comparator for c in here.comparisons)]
            return any(names_root(op) for op in operands if op is not child)
        if isinstance(here, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in here.targets] if isinstance(here, cst.Assign) else [here.target]
            if any(names_root(target) for target in targets):
                return True
            plain = [t.value for t in targets if isinstance(t, cst.Name)]
            return follow is not None and any(follow(name) for name in plain)
        if isinstance(here, cst.Return):
            func = enclosing(ancestry(here, parents), cst.FunctionDef)
            if func is None:
                return False
            return says_root(func.name.value) or (follow is not None and follow(func))
        if isinstance(here, _STOPS) or isinstance(here, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        child, here = here, parents.get(id(here))
    return False


def names_root(expr: cst.CSTNode) -> bool:
    """Any name or attribute in `expr` whose words name a root (`mgr.roots[0].uri`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and says_root(node.value):
            return True
        if isinstance(node, cst.SimpleString) and says_root(literal(node)):
            return True
        stack.extend(node.children)
    return False
