"""RT102's vocabulary: its messages, the standard-library names it knows, the byte screens, and
small predicates on literals and expressions."""

from __future__ import annotations

import ast
import re

import libcst as cst

from mcp_migrate.core.messages import Message
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.syntax import ancestry, enclosing, literal
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


SLICE_BYTES = re.compile(rb"[78]\s*:\s*\]")


FILE_BYTES = re.compile(rb"(?i)['\"]file:/")


URI_BYTES = re.compile(rb"(?i)uri")


SURGERY = frozenset({"replace", "removeprefix", "lstrip", "strip", "split", "rsplit", "partition", "rpartition"})


URLPARSE = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})


URL2PATHNAME = frozenset({"urllib.request.url2pathname", "nturl2path.url2pathname"})


UNQUOTE = frozenset({"urllib.parse.unquote"})


URL_BUILDERS = frozenset({"urllib.parse.urlunparse", "urllib.parse.urlunsplit", "urllib.parse.urljoin"})


#: An MCP module is in scope when it mentions roots or resources (not an LSP bridge's document URIs).
ROOTS_OR_RESOURCES = re.compile(rb"(?i)root|resource")


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


def file_text_tree(node) -> bool:
    text = screen_string(node)
    return text is not None and text[:6].lower() == "file:/"


def surgery_tree(syntax) -> bool:
    """String surgery or assembly on a `file:/` literal (`_surgery`, `_split_index`, `_format`,
    `visit_FormattedString`, `visit_BinaryOperation`)."""
    for name in SURGERY:
        for call in syntax.method_calls(name):
            args = screen_positional(call)
            if args and file_text_tree(args[0]):
                return True
    for call in syntax.method_calls("format"):
        text = screen_string(call.func.value)
        if text is not None and text.startswith("file://"):
            return True
    for node in syntax.of(ast.JoinedStr):
        first = screen_string(node.values[0]) if node.values else None
        if first is not None and len(node.values) > 1 and first.lower().startswith("file://"):
            return True
    for node in syntax.of(ast.BinOp):
        text = screen_string(node.left)
        if text is not None and node.op.__class__ in (ast.Add, ast.Mod) and text.lower().startswith("file://"):
            return True
    return False


def first_given(call):
    """The first argument's value (LibCST's `call.args[0].value`: positional or keyword)."""
    first = call.args[0] if call.args else call.keywords[0].value if call.keywords else None
    return first.value if first.__class__ is ast.Starred else first


def uri_named_tree(node) -> bool:
    """`_holds_file_uri`'s words on the standard library's nodes: `uri`, `root_uri`, `x.uri`,
    `r["uri"]`, and `str()`/`os.fspath()` of one."""
    kind = node.__class__
    if node is None:
        return False
    if kind is ast.Call:
        given = node.args + [kw.value for kw in node.keywords]
        if len(given) == 1 and screen_last_identifier(node.func) in ("str", "fspath"):
            only = given[0]
            return uri_named_tree(only.value if only.__class__ is ast.Starred else only)
        return False
    if kind is ast.Attribute:
        return node.attr == "uri" or "uri" in words(node.attr)
    if kind is ast.Name:
        return "uri" in words(node.id)
    if kind is ast.Subscript:
        return screen_string(node.slice) == "uri"
    return False


def a_root_tree(node) -> bool:
    """`a_root` on the standard library's nodes."""
    if node.__class__ is ast.Subscript:
        node = node.value
    return says_root(screen_last_identifier(node))


def scheme_test_tree(syntax) -> bool:
    """`x.scheme == "file"` / `!=` somewhere (`visit_Comparison`'s guard)."""
    for node in syntax.of(ast.Compare):
        if len(node.ops) != 1 or node.ops[0].__class__ not in (ast.Eq, ast.NotEq):
            continue
        sides = (node.left, node.comparators[0])
        if any(screen_string(side) == "file" for side in sides) and any(
            side.__class__ is ast.Attribute and side.attr == "scheme" for side in sides
        ):
            return True
    return False


#: Where a value built from a path stops being carried on: a statement, a function, a class.
_STOPS = (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Module)


def says_root(name: str | None) -> bool:
    """An identifier whose words name a root or roots (`roots`, `ClientRoot`, `root_uri`,
    `_make_list_roots_result`, `mock_root`)."""
    if not name:
        return False
    return bool({"root", "roots"} & set(words(name)))


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
