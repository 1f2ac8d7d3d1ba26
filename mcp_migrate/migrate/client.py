"""RT002/RT003 rewrites: the client stops providing roots and stops declaring the capability.

Removing a provider must not lose directories that were written down: literal roots (a list of
URIs or paths, a callback returning fixed `Root(...)` values, `Path.cwd()`) move into the
server's environment when the strategy is server-config and the client launches the server over
stdio (`StdioServerParameters(..., env=...)`); otherwise a `# mcp-migrate: RT002` comment lists
the directories that must now travel as tool arguments.
"""

from __future__ import annotations

import json
from typing import Optional
from urllib.parse import urlparse
from urllib.request import url2pathname

import libcst as cst

from mcp_migrate.core.fixer import line_length
from mcp_migrate.core.fixes import AddComment, Fix, RemoveArg, RemoveStatement, Replace, whole_statement
from mcp_migrate.core.syntax import (
    code_of,
    enclosing,
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
from mcp_migrate.migrate.consumers import is_store

_STDIO = "StdioServerParameters"


def remove_provider_arg(context, call: cst.Call, arg: cst.Arg) -> Optional[Fix]:
    """Drop `list_roots_callback=` / `roots=` / the positional callback; keep literal roots."""
    args = positional(call)
    if arg.keyword is None and arg is not args[-1]:
        edits = [Replace(arg.value, cst.Name("None"))]  # later positional arguments keep their slots
    else:
        edits = [RemoveArg(call, arg)]
    orphans = (arg.value.value,) if isinstance(arg.value, cst.Name) else ()
    local = _local_binding(context, arg.value)
    if local is not None:  # `roots = [...]` only fed the argument: it goes too (no unused local)
        edits.append(RemoveStatement(local))
    dirs = directories_of(context, local.value if local is not None else arg.value)
    return _with_directories(context, edits, dirs, orphans)


def _local_binding(context, value: cst.BaseExpression) -> Optional[cst.Assign]:
    """The one `name = ...` of a local whose only read is `value` (the removed argument)."""
    func = enclosing(context.ancestors, cst.FunctionDef)
    if func is None or not isinstance(value, cst.Name):
        return None
    parents = parent_map(func.body)
    assigns, reads = [], 0
    for node in iter_nodes(func.body):
        if not (isinstance(node, cst.Name) and node.value == value.value):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, cst.AssignTarget):
            assigns.append(parents.get(id(parent)))
        elif is_store(node, parent):
            return None
        elif is_reference(node, parent):
            reads += 1
    if len(assigns) != 1 or reads != 1 or not isinstance(assigns[0], cst.Assign) or len(assigns[0].targets) != 1:
        return None
    return assigns[0]


def remove_provider_statement(context, call: cst.Call) -> Optional[Fix]:
    """`client.set_roots(...)` as a whole statement."""
    statement = whole_statement(context.ancestors)
    if statement is None:
        return None
    args = positional(call)
    dirs = directories_of(context, args[0].value) if args else []
    return _with_directories(context, [RemoveStatement(statement)], dirs, ())


# ----- literal directories ---------------------------------------------------------------------
def directories_of(context, value: cst.BaseExpression) -> list:
    """[(is_literal, text)] for the directories a roots value names: a literal path, or the
    text of an expression that gives one (`str(Path.cwd())`); (None, source) for roots computed
    in a way the rewrite cannot follow, so a marker can say where they came from."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return [d for el in value.elements for d in _one_root(context, el.value)]
    if isinstance(value, cst.ListComp):
        return _comprehended(context, value)
    if isinstance(value, cst.Lambda):
        return directories_of(context, value.body)
    if isinstance(value, cst.Name) and value.value == "None":
        return []  # no roots at all: nothing to pass on
    if isinstance(value, cst.Name):
        target = module_binding(context.module, value.value)
        if isinstance(target, cst.FunctionDef):
            return _returned_roots(context, target)
        if target is not None:
            return directories_of(context, target)
    if isinstance(value, cst.Call) and context.resolver.sdk_name(value.func) == "ListRootsResult":
        roots = keyword(value, "roots")
        return directories_of(context, roots.value) if roots is not None else [_unknown(value)]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and len(value.args) == 1:
        helper = module_binding(context.module, value.func.value)
        given = directories_of(context, value.args[0].value)
        if isinstance(helper, cst.FunctionDef) and given and all(lit for lit, _ in given):
            return given  # a helper building roots from a written-down list of directories
    return [_unknown(value)]


def _unknown(value: cst.BaseExpression) -> tuple:
    return (None, short(value))


def _comprehended(context, comp: cst.ListComp) -> list:
    """`[Root(uri=to_uri(d)) for d in DIRS]` over a written-down list: DIRS are the directories."""
    if comp.for_in.inner_for_in is not None or comp.for_in.ifs:
        return [_unknown(comp)]
    given = directories_of(context, comp.for_in.iter)
    return given if given and all(lit for lit, _ in given) else [_unknown(comp)]


#: URL types a root's `uri` is often wrapped in; the string inside is the URI.
_URL_TYPES = frozenset({"FileUrl", "AnyUrl", "AnyHttpUrl", "Url"})


def _one_root(context, value: cst.BaseExpression) -> list:
    text = literal(value)
    if text is not None:
        return [(True, _uri_to_path(text))]
    if isinstance(value, cst.Name):
        bound = module_binding(context.module, value.value)
        if bound is not None and not isinstance(bound, cst.FunctionDef):
            return _one_root(context, bound)
    if isinstance(value, cst.Call) and _is_root_or_url(context, value.func):
        uri = keyword(value, "uri") or (positional(value)[0] if positional(value) else None)
        return _one_root(context, uri.value) if uri is not None else [_unknown(value)]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "as_uri":
        return [(False, f"str({code_of(value.func.value)})")]
    return [_unknown(value)]


def _is_root_or_url(context, func: cst.BaseExpression) -> bool:
    if context.resolver.sdk_name(func) in ("Root", "FileUrl"):
        return True
    qualified = context.resolver.qualified(func) or ""
    return qualified.startswith("pydantic") and qualified.rpartition(".")[2] in _URL_TYPES


def _describe(dirs: list) -> str:
    """What the marker asks a human to do with the directories the roots named."""
    known = [_quote(t) if lit else t for lit, t in dirs if lit is not None]
    unknown = [t for lit, t in dirs if lit is None]
    where = "to the server as tool arguments or in its configuration (env/args)"
    if not unknown:
        return f"pass these directories {where}: {', '.join(known)}"
    computed = ", ".join(f"`{t}`" for t in dict.fromkeys(unknown))
    if not known:
        return f"the roots came from {computed} at run time; pass those directories {where}"
    return f"pass these directories {where}: {', '.join(known)}; and the ones {computed} gave at run time"


def _returned_roots(context, func: cst.FunctionDef) -> list:
    returns = [n for n in iter_nodes(func.body) if isinstance(n, cst.Return) and n.value is not None]
    if len(returns) != 1:
        return [(None, f"{func.name.value}()")]
    return directories_of(context, returns[0].value)


def _quote(text: str) -> str:
    """A str literal in double quotes, as black writes it (JSON escaping is valid Python)."""
    return json.dumps(text, ensure_ascii=False)


def _uri_to_path(text: str) -> str:
    if text.startswith("file:"):
        return url2pathname(urlparse(text).path)
    return text


# ----- where the directories go ----------------------------------------------------------------
def _with_directories(context, edits: list, dirs: list, orphans: tuple) -> Fix:
    fully_known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    if fully_known and context.settings.strategy == "server-config":
        env_edit = _stdio_env_edit(context, dirs)
        if env_edit is not None:
            return Fix(tuple(edits + [env_edit]), orphans=orphans, unsafe=True, imports=(("os", None),))
    if context.settings.migrated_tools:
        calls, imports = _tool_call_edits(context, dirs)
        if calls and fully_known:
            return Fix(tuple(edits + calls), orphans=orphans, unsafe=True, imports=tuple(imports))
        edits += calls
    if dirs:
        listed = _describe(dirs)
        statement = enclosing(context.ancestors, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        if statement is not None:
            note = f"# mcp-migrate: RT002 review: {listed}"
            edits.append(AddComment(statement, note))
    return Fix(tuple(edits), orphans=orphans, unsafe=True)


def _stdio_env_edit(context, dirs: list):
    calls = [
        n for n in iter_nodes(context.module) if isinstance(n, cst.Call) and context.resolver.sdk_name(n.func) == _STDIO
    ]
    if len(calls) != 1:
        return None
    call = calls[0]
    env_var = context.settings.env_var
    items = ", ".join(_quote(t) if lit else t for lit, t in dirs)  # all known here
    entry = f'"{env_var}": os.pathsep.join([{items}])'
    env = keyword(call, "env")
    if env is None:
        new_arg = cst.Arg(
            value=parse_expr("{" + entry + "}"),
            keyword=cst.Name("env"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
        )
        args = list(call.args)
        if args and not isinstance(args[-1].comma, cst.Comma):
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return Replace(call, fit(context, call, call.with_changes(args=[*args, new_arg])))
    if isinstance(env.value, cst.Dict):
        if any(literal(getattr(el, "key", None)) == env_var for el in env.value.elements):
            return None
        merged = parse_expr("{**" + code_of(env.value) + ", " + entry + "}")
    else:
        merged = parse_expr("{**(" + code_of(env.value) + " or {}), " + entry + "}")
    return Replace(env.value, merged)


def fit(context, old: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new` in place of `old`, exploded one item per line (black's style, trailing comma) when
    the statement would otherwise run past the file's line length."""
    parents = parent_map(context.module)
    statement, depth, node = None, 0, old
    while node is not None:
        node = parents.get(id(node))
        if statement is None and isinstance(node, cst.SimpleStatementLine):
            statement = node
        depth += isinstance(node, cst.IndentedBlock)
    if statement is None:
        return new
    indent = context.module.default_indent * depth
    rendered = code_of(statement.deep_replace(old, new))
    width = line_length(context.path)
    if all(len(indent) + len(line) <= width for line in rendered.splitlines()):
        return new
    return _exploded(new)


def _exploded(node: cst.BaseExpression) -> cst.BaseExpression:
    """A call's arguments or a dict's entries one per line, with a trailing comma."""
    if isinstance(node, cst.Call):
        items, head, close = node.args, code_of(node.func) + "(", ")"
    elif isinstance(node, cst.Dict):
        items, head, close = node.elements, "{", "}"
    else:
        return node
    if any("\n" in code_of(item) for item in items):
        return node
    texts = [code_of(item.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for item in items]
    return parse_expr(head + "\n" + "".join(f"    {t},\n" for t in texts) + close)


def _tool_call_edits(context, dirs: list) -> tuple:
    """`call_tool("name", {...})` calls to tools that now require the directories (a rewrite
    in the same run gave them the parameter): the argument is added with the same directories
    (as URIs for a `uris` parameter); where it cannot be (directories computed at run time,
    arguments not written as a dict), a marker says the call must pass it. (edits, imports)"""
    wanted = {entry[0]: entry[1] for entry in context.settings.migrated_tools}
    optional = {entry[0] for entry in context.settings.migrated_tools if entry[2:] == ("optional",)}
    known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    edits, imports = [], []
    parents = None
    for node in iter_nodes(context.module):
        if not (
            isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "call_tool"
        ):
            continue
        args = positional(node)
        name = literal(args[0].value) if args else None
        param = wanted.get(name)
        if param is None:
            continue
        current = args[1].value if len(args) >= 2 else None
        if isinstance(current, cst.Dict) and any(literal(getattr(el, "key", None)) == param for el in current.elements):
            continue
        edit = _call_edit(context, node, args, param, dirs) if known else None
        if edit is None:
            parents = parents or parent_map(context.module)
            statement = _statement_above(parents, node)
            needs = "takes an optional" if name in optional else "now requires"
            note = (
                f"# mcp-migrate: RT002 review: tool `{name}` {needs} `{param}`:"
                " pass the directories this client gave as roots"
            )
            if statement is not None:
                edits.append(AddComment(statement, note))
            continue
        edits.append(edit)
        if param == "uris":
            imports.append(("pathlib", "Path"))
    return edits, imports


def _call_edit(context, node: cst.Call, args: list, param: str, dirs: list):
    if param == "uris":
        values = ", ".join(f"Path({_quote(t) if lit else t}).resolve().as_uri()" for lit, t in dirs)
    else:
        values = ", ".join(_quote(t) if lit else t for lit, t in dirs)
    entry = f'"{param}": [{values}]'
    if len(args) >= 2 and isinstance(args[1].value, cst.Dict):
        current = args[1].value
        inner = code_of(current).strip()[1:-1].strip().rstrip(",")
        new = parse_expr("{" + (inner + ", " if inner else "") + entry + "}")
        return Replace(current, fit(context, current, new))
    if len(args) == 1 and keyword(node, "arguments") is None:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        new_args = [*node.args[:-1], args[0].with_changes(comma=comma), cst.Arg(parse_expr("{" + entry + "}"))]
        return Replace(node, fit(context, node, node.with_changes(args=new_args)))
    return None


def _statement_above(parents: dict, node: cst.CSTNode):
    while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents.get(id(node))
    return node
