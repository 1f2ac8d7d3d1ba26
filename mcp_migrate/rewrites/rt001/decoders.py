"""A project function that decodes a file URI into a local path: what RT001's rewrite may give a
directory instead of a root's URI (`file_url_to_path(root.uri)` -> `Path(directory)`).

Eight of the corpus's RT001 review markers were a root's URI handed to such a helper, most of
them imported from another module of the project (`core.utils.file_url_to_path`,
`file_access.file_uri_to_path`). A helper is known by what its body does, never by its name: its
first parameter (or a local computed from it) is parsed as a URI (`urlparse`, `urlsplit`,
`unquote`, `url2pathname`, or a `file://` prefix cut off), and it returns a path: its return
annotation names `Path` or `str`, or every value it returns is built by `Path(...)` (`.resolve()`
and the like chained on) or `str(...)`. The summaries are computed once per module, from its
bytes with the standard library's parse: the checked file's own (kept for the file's check), or
the helper module's one import away (kept in the run's project view by the module's size and
mtime, and recorded as consulted so the results cache checks the caller again when the helper
changes).

A helper may do more than decode (resolve the path strictly, return None when the folder does
not exist, refuse another host): the rewrite that replaces its call is therefore only ever
suggested, and says so (rewrites.rt001.consumers)."""

from __future__ import annotations

import ast

import libcst as cst

from mcp_migrate.core.modules import imported_module_file
from mcp_migrate.core.project_view import MODULE_LIMIT, read, view_of
from mcp_migrate.core.syntax import module_binding

#: Calls that parse a URI, by their last name (`urllib.parse.urlparse`, `parse.unquote`).
_URI_PARSERS = frozenset({"urlparse", "urlsplit", "unquote", "unquote_plus", "url2pathname"})
#: What a helper returns: a pathlib path or a string path.
PATH, STR = "path", "str"


def decoder_kind(context, call: cst.Call) -> str | None:
    """PATH or STR when `call` calls a project function that decodes the file URI given as its
    first argument into a path of that kind; None otherwise (unknown, or not such a helper)."""
    if not isinstance(call.func, cst.Name):
        return None
    name = call.func.value
    local = module_binding(context.module, name)
    if isinstance(local, cst.FunctionDef):
        # The checked file's own decoders, summarised once per file from its bytes.
        if "uri decoders" not in context.memo:
            context.memo["uri decoders"] = _module_summaries(context.data)
        return context.memo["uri decoders"].get(name)
    if local is not None:
        return None
    qualified = context.resolver.qualified(call.func)
    if not qualified or "." not in qualified:
        return None
    source = imported_module_file(view_of(context.settings), context.path, qualified)
    if source is None:
        return None
    attribute = qualified.rpartition(".")[2]

    def compute(stat):
        data = read(source, stat, MODULE_LIMIT)
        return {} if data is None else _module_summaries(data)

    summaries = view_of(context.settings).per_file("uri decoders", source, None, compute, {})
    return summaries.get(attribute)


def _module_summaries(data: bytes) -> dict:
    """{function name: PATH or STR} for the module's top-level URI decoders."""
    if not any(parser.encode() in data for parser in _URI_PARSERS) and b"file:" not in data:
        return {}
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind = _function_kind(node)
            if kind is not None:
                out[node.name] = kind
    return out


def _function_kind(function) -> str | None:
    """PATH or STR for a synchronous function decoding its first parameter; None otherwise."""
    if isinstance(function, ast.AsyncFunctionDef) or not function.args.args:
        return None  # an awaited helper would need `await` kept: not this rewrite's shape
    if function.args.args[0].arg in ("self", "cls"):
        return None
    if not _decodes(function, function.args.args[0].arg):
        return None
    return _returns(function)


def _decodes(function, parameter: str) -> bool:
    """The parameter, or a local computed from it, is parsed as a URI."""
    tainted = {parameter}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _names(node.value) & tainted:
            for target in node.targets:
                tainted |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if callee in _URI_PARSERS and node.args and _names(node.args[0]) & tainted:
            return True
        if (
            callee == "removeprefix"
            and isinstance(node.func, ast.Attribute)
            and _names(node.func.value) & tainted
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("file:")
        ):
            return True
    return False


def _names(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _returns(function) -> str | None:
    """What the function returns: from its annotation, else from every value it returns."""
    if function.returns is not None:
        text = ast.unparse(function.returns)
        words = set(text.replace("|", " ").replace("[", " ").replace("]", " ").replace(",", " ").split())
        words.discard("None")
        words.discard("Optional")
        if words <= {"Path", "pathlib.Path"} and words:
            return PATH
        if words == {"str"}:
            return STR
        return None
    values = [
        node.value
        for node in ast.walk(function)
        if isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value)
    ]
    kinds = {_built_by(value) for value in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _built_by(value: ast.AST) -> str | None:
    """PATH for `Path(...)` (with methods chained on it), STR for `str(...)`."""
    while (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    if isinstance(value, ast.Call):
        callee = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", None)
        if callee == "Path":
            return PATH
        if callee == "str":
            return STR
    return None
