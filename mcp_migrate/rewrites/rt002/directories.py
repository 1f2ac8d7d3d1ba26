"""The directories a roots provider held, read from the code: literal URIs and paths, Root(...)
values, Path.cwd(), comprehensions, a callback's returned roots."""

from __future__ import annotations

import json
from urllib.parse import urlparse

import libcst as cst

from mcp_migrate.core.sdk import FILE_URL_TYPES, ROOT_BUILDERS
from mcp_migrate.core.syntax import (
    ancestry,
    code_of,
    is_reference,
    iter_nodes,
    keyword,
    literal,
    module_binding,
    parent_map,
    parse_expr,
    positional,
    short,
)
from mcp_migrate.rewrites.names import bound_names, is_store


def directories_of(
    context, value: cst.BaseExpression, scope: cst.FunctionDef | None = None, local_def: cst.FunctionDef | None = None
) -> list:
    """[(is_literal, text)] for the directories a roots value names: a literal path (True), or
    the text of an expression that gives one at run time (False: `str(Path.cwd())`, a path a
    helper turns into roots); (None, source) for roots computed in a way the rewrite cannot
    follow, so a marker can say where they came from. `scope`: the callback whose locals
    (assigned once) may be followed; `local_def`: the nested callback `value` names."""
    if local_def is not None:
        found = _returned_roots(context, local_def)
        return found if all(lit is not None for lit, _ in found) else [_unknown(value)]
    if isinstance(value, (cst.List, cst.Tuple)):
        return [d for el in value.elements for d in _one_root(context, el.value, scope)]
    if isinstance(value, cst.ListComp):
        return _comprehended(context, value, scope)
    if isinstance(value, cst.Lambda):
        return directories_of(context, value.body, scope)
    if isinstance(value, cst.Name) and value.value == "None":
        return []  # no roots at all: nothing to pass on
    if isinstance(value, cst.Name):
        target = _local_value(scope, value.value) or module_binding(context.module, value.value)
        if isinstance(target, cst.FunctionDef):
            return _returned_roots(context, target)
        if target is not None:
            return directories_of(context, target, scope)
    if isinstance(value, cst.Attribute):
        followed = _own_method_roots(context, value)
        if followed:
            return followed
    if isinstance(value, cst.Call) and context.resolver.sdk_name(value.func) == "ListRootsResult":
        roots = keyword(value, "roots")
        return directories_of(context, roots.value, scope) if roots is not None else [_unknown(value)]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and len(value.args) == 1:
        helper = module_binding(context.module, value.func.value)
        given = directories_of(context, value.args[0].value, scope)
        if not given or any(lit is None for lit, _ in given):
            given = _one_path(context, value.args[0].value)
        if isinstance(helper, cst.FunctionDef) and given and all(lit is not None for lit, _ in given):
            # A helper (or a factory of callbacks) building roots from the directories given.
            return given
    return [_unknown(value)]


def _local_value(scope: cst.FunctionDef | None, name: str) -> cst.BaseExpression | None:
    """The value of `name = ...` when that is the one binding of `name` in `scope`."""
    if scope is None:
        return None
    assigns = [
        n
        for n in iter_nodes(scope.body)
        if isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, cst.Name)
        and n.targets[0].target.value == name
    ]
    parents = parent_map(scope.body)
    stores = sum(
        1
        for n in iter_nodes(scope.body)
        if isinstance(n, cst.Name) and n.value == name and is_store(n, parents.get(id(n)))
    )
    return assigns[0].value if len(assigns) == 1 and stores == 1 else None


#: Calls that give a directory's path at run time.
_PATH_CALLS = frozenset({"os.getcwd", "pathlib.Path.cwd", "pathlib.Path.home"})


def _one_path(context, value: cst.BaseExpression) -> list:
    """[(False, source)] for an expression that gives a directory's path at run time:
    `str(...)` of a name or a Path chain, `os.getcwd()`, `Path.cwd()`; [] otherwise."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "str"
        and len(value.args) == 1
        and context.resolver.lookup("str") is None
    ):
        inner = value.args[0].value
        if isinstance(inner, (cst.Name, cst.Attribute)) or _path_chain(context, inner):
            return [(False, code_of(value))]
    if _path_chain(context, value):
        return [(False, f"str({code_of(value)})")]
    return []


def _path_chain(context, value: cst.BaseExpression) -> bool:
    """`Path.cwd()`, `os.getcwd()`, `Path.cwd().absolute()`, `Path(x).resolve()`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and not value.args:
        if context.resolver.qualified(value.func) in _PATH_CALLS:
            return True
        if value.func.attr.value not in ("absolute", "resolve", "expanduser"):
            return False
        value = value.func.value
    if isinstance(value, cst.Call):
        qualified = context.resolver.qualified(value.func)
        return qualified in _PATH_CALLS or (qualified == "pathlib.Path" and len(value.args) == 1)
    return False


def _unknown(value: cst.BaseExpression) -> tuple:
    return (None, short(value))


def _comprehended(context, comp: cst.ListComp, scope=None) -> list:
    """`[Root(uri=to_uri(d)) for d in DIRS]` over a written-down list: DIRS are the directories."""
    if comp.for_in.inner_for_in is not None or comp.for_in.ifs:
        return [_unknown(comp)]
    given = directories_of(context, comp.for_in.iter, scope)
    return given if given and all(lit is not None for lit, _ in given) else [_unknown(comp)]


#: URL types a root's `uri` is often wrapped in; the string inside is the URI.


def _one_root(context, value: cst.BaseExpression, scope=None) -> list:
    text = literal(value)
    if text is not None:
        return [(True, _uri_to_path(text))]
    if isinstance(value, cst.Name):
        bound = _local_value(scope, value.value) or module_binding(context.module, value.value)
        if bound is not None and not isinstance(bound, cst.FunctionDef):
            return _one_root(context, bound, scope)
    if isinstance(value, cst.Call) and _is_root_or_url(context, value.func):
        uri = keyword(value, "uri") or (positional(value)[0] if positional(value) else None)
        return _one_root(context, uri.value, scope) if uri is not None else [_unknown(value)]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "as_uri":
        return [(False, f"str({code_of(value.func.value)})")]
    interpolated = _file_fstring(value)
    if interpolated is not None:  # f"file://{path}": the path itself
        text = code_of(interpolated)
        return [(False, text if _bound_to_text(context, interpolated) else f"str({text})")]
    return _one_path(context, value) or [_unknown(value)]


def _bound_to_text(context, expr: cst.BaseExpression) -> bool:
    """`repo` where the innermost function around `expr` that binds it does so once, to a
    string (`repo = str(tmp_path)`, a literal, an f-string): it needs no `str(...)` around it
    (the final review of session 52, #06: `{"repo_path": str(repo)}`)."""
    if not isinstance(expr, cst.Name):
        return False
    for func in reversed(ancestry(expr, context.index.parents)):
        bound = _local_value(func, expr.value) if isinstance(func, cst.FunctionDef) else None
        if bound is not None:
            return isinstance(bound, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)) or (
                isinstance(bound, cst.Call)
                and isinstance(bound.func, cst.Name)
                and bound.func.value == "str"
                and context.resolver.lookup("str") is None
            )
    return False


def _file_fstring(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """`path` in `f"file://{path}"`."""
    if not isinstance(value, cst.FormattedString) or len(value.parts) != 2:
        return None
    text, expr = value.parts
    if (
        isinstance(text, cst.FormattedStringText)
        and text.value == FILE_SCHEME
        and isinstance(expr, cst.FormattedStringExpression)
    ):
        if expr.conversion is None and expr.format_spec is None:
            return expr.expression
    return None


FILE_SCHEME = "file://"


def _is_root_or_url(context, func: cst.BaseExpression) -> bool:
    if context.resolver.sdk_name(func) in ROOT_BUILDERS:
        return True
    qualified = context.resolver.qualified(func) or ""
    return qualified.startswith("pydantic") and qualified.rpartition(".")[2] in FILE_URL_TYPES


def describe(dirs: list) -> str:
    """What the marker asks a human to do with the directories the roots named."""
    known = [quote(t) if lit else t for lit, t in dirs if lit is not None]
    unknown = [t for lit, t in dirs if lit is None]
    where = "to the server as tool arguments or in its configuration (env/args)"
    if not unknown:
        return f"pass these directories {where}: {', '.join(known)}"
    computed = ", ".join(f"`{t}`" for t in dict.fromkeys(unknown))
    if not known:
        return f"the roots came from {computed} at run time; pass those directories {where}"
    return f"pass these directories {where}: {', '.join(known)}; and the ones {computed} gave at run time"


def _returned_roots(context, func: cst.FunctionDef) -> list:
    returns = [n.value for n in iter_nodes(func.body) if isinstance(n, cst.Return) and n.value is not None]
    if len(returns) != 1:
        return [(None, f"{func.name.value}()")]
    found = directories_of(context, returns[0], func)
    if any(lit is False and _reads_locals(text, func) for lit, text in found):
        return [(None, f"{func.name.value}()")]  # computed from the callback's own variables
    return found


def _own_method_roots(context, value: cst.Attribute) -> list:
    """The roots `self.<method>` returns, where the method is defined in the class around the
    wiring and returns one `ListRootsResult(roots=...)` read from the instance (`self.roots`):
    the marker then names where the roots live, which stays true once the method itself goes
    with its wiring (core.fix.suggested). [] where the method's return cannot be followed."""
    if not (isinstance(value.value, cst.Name) and value.value.value == "self"):
        return []
    owner = next((a for a in reversed(context.ancestors) if isinstance(a, cst.ClassDef)), None)
    body = owner.body.body if owner is not None and isinstance(owner.body, cst.IndentedBlock) else ()
    method = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == value.attr.value), None)
    if method is None:
        return []
    found = _returned_roots(context, method)
    own = bound_names(method) - {"self"}
    if not found or found == [(None, f"{method.name.value}()")]:
        return []
    if any(own & free_names(text) for _, text in found):
        return []
    return found


def _reads_locals(text: str, func: cst.FunctionDef) -> bool:
    """The expression reads a parameter or local of `func`: it cannot be evaluated elsewhere."""
    own = bound_names(func)
    return any(name in own for name in free_names(text))


def free_names(text: str) -> set:
    expr = parse_expr(text)
    parents = parent_map(expr)
    return {n.value for n in iter_nodes(expr) if isinstance(n, cst.Name) and is_reference(n, parents.get(id(n)))}


def quote(text: str) -> str:
    """A str literal in double quotes, as black writes it (JSON escaping is valid Python)."""
    return json.dumps(text, ensure_ascii=False)


def _uri_to_path(text: str) -> str:
    if text.startswith("file:"):
        from urllib.request import url2pathname  # here: urllib.request costs 30 ms to import

        return url2pathname(urlparse(text).path)
    return text


def as_uri(path: str) -> str:
    """A file URI from a path expression: `.as_uri()` straight on an absolute Path chain."""
    if path.endswith((".resolve()", ".absolute()")):
        return f"{path}.as_uri()"
    return f"Path({path}).resolve().as_uri()"


def unstr(text: str) -> str:
    """`x` for `str(x)`: Path() takes either, and `Path(str(x))` is a round trip."""
    expr = parse_expr(text)
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "str"
        and len(expr.args) == 1
    ):
        return code_of(expr.args[0].value)
    return text
