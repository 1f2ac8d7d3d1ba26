"""The rewrites RT102 proposes (display-only: shown, never applied by fix): a URI to a path with `url2pathname(urlparse(X).path)`,
a path to a URI with `Path(X).absolute().as_uri()` (both str, like the original), spelled so they
do not clash with the file's own names, imports added."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import Fix, Replace
from mcp_migrate.core.fix.nodes import bare, call, method
from mcp_migrate.rules.rt102.vocabulary import UNQUOTE


def to_path_fix(spelling, resolver, ancestors: list, node: cst.BaseExpression, uri: cst.BaseExpression) -> Fix | None:
    """`url2pathname(urlparse(uri).path)` in place of `node` (and of an `unquote(node)` around
    it: url2pathname decodes, never twice)."""
    parse = spelling.spell("urllib.parse", "urlparse")
    topath = spelling.spell("urllib.request", "url2pathname")
    if not (parse and topath):
        return None
    new = call(topath[0], cst.Attribute(value=call(parse[0], bare(uri)), attr=cst.Name("path")))
    old = unquoted_by(resolver, ancestors, node) or node
    return Fix(
        (Replace(old, new.with_changes(lpar=old.lpar, rpar=old.rpar)),), imports=(parse[1], topath[1]), display=True
    )


def unquoted_by(resolver, ancestors: list, node: cst.CSTNode) -> cst.Call | None:
    """The `unquote(node)` call around the node being visited (`unquote(u[8:])`)."""
    if len(ancestors) < 3 or ancestors[-1] is not node:
        return None
    arg, holder = ancestors[-2], ancestors[-3]
    if (
        isinstance(arg, cst.Arg)
        and isinstance(holder, cst.Call)
        and len(holder.args) == 1
        and resolver.qualified(holder.func) in UNQUOTE
    ):
        return holder
    return None


def path_only_fix(spelling, node: cst.BaseExpression, owner) -> Fix | None:
    """`url2pathname(owner.path)` in place of `node` (a `.path`, perhaps unquoted)."""
    topath = spelling.spell("urllib.request", "url2pathname")
    if not topath:
        return None
    new = call(topath[0], cst.Attribute(value=owner, attr=cst.Name("path")))
    return Fix((Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), imports=(topath[1],), display=True)


def to_uri_fix(spelling, resolver, node: cst.BaseExpression, path: cst.BaseExpression) -> Fix | None:
    """`Path(path).absolute().as_uri()` in place of `node`; `path.as_uri()` when `path` is an
    absolute Path already (no round trip through str)."""
    if resolved_path(resolver, path):
        new = method(bare(path), "as_uri")
        return Fix((Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), display=True)
    spelled = spelling.spell("pathlib", "Path")
    if not spelled:
        return None
    new = method(method(call(spelled[0], bare(path)), "absolute"), "as_uri")
    return Fix((Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), imports=(spelled[1],), display=True)


def resolved_path(resolver, expr) -> bool:
    """`Path(x).resolve()` / `pathlib.Path(x).absolute()`: an absolute Path, `.as_uri()` works."""
    return (
        isinstance(expr, cst.Call)
        and not expr.args
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value in ("resolve", "absolute")
        and isinstance(expr.func.value, cst.Call)
        and resolver.qualified(expr.func.value.func) == "pathlib.Path"
    )
