"""RT002/RT003 rewrites: the client stops providing roots and stops declaring the capability.

Removing a provider must not lose directories that were written down: literal roots (a list of
URIs or paths, a callback returning fixed `Root(...)` values, `Path.cwd()`) move into the
server's environment when the strategy is server-config and the client launches the server over
stdio (`StdioServerParameters(..., env=...)`); otherwise a `# mcp-migrate: RT002` comment lists
the directories that must now travel as tool arguments.
"""

from __future__ import annotations

import builtins
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
from mcp_migrate.migrate.consumers import bound_names, is_store
from mcp_migrate.migrate.server import STILL_ASKS

_STDIO = "StdioServerParameters"


def server_still_asks(context) -> bool:
    """A server in this fix run still asks for roots (a request no rewrite touched): the
    client's roots stay, or the project's own client-server tests would break."""
    return any(tuple(entry) == STILL_ASKS for entry in context.settings.migrated_tools)


def note_still_asks(context) -> None:
    """Record that this file's server keeps asking for roots (a request no rewrite touched, or
    an era-portable bridge kept on purpose): clients in the same run keep theirs."""
    if STILL_ASKS not in context.migrated_tools:
        context.migrated_tools.append(STILL_ASKS)


def remove_provider_arg(context, call: cst.Call, arg: cst.Arg) -> Optional[Fix]:
    """Drop `list_roots_callback=` / `roots=` / the positional callback; keep literal roots."""
    if server_still_asks(context):
        return None
    args = positional(call)
    if arg.keyword is None and arg is not args[-1]:
        edits = [Replace(arg.value, cst.Name("None"))]  # later positional arguments keep their slots
    else:
        edits = [RemoveArg(call, arg)]
    orphans = _callback_names(arg.value)
    dead = _dead_callback(context, orphans)
    helpers = _called_functions(context, dead) if dead is not None else ()
    if dead is not None and (helpers or isinstance(arg.value, cst.Call)):
        # Removed with the argument, and so are the helpers only it called (not left to the
        # orphan clean-up, which runs after the pass): an edit another fix makes inside them
        # then conflicts and is dropped, instead of leaving behind an import it added.
        edits.append(RemoveStatement(dead))
        only_here = [h for h in helpers if _only_used_inside(context, h, dead)]
        edits.extend(RemoveStatement(module_binding(context.module, h)) for h in only_here)
        orphans = tuple(h for h in helpers if h not in only_here)
    local = _local_binding(context, arg.value)
    if local is not None:  # `roots = [...]` only fed the argument: it goes too (no unused local)
        edits.append(RemoveStatement(local))
    dirs = directories_of(context, local.value if local is not None else arg.value)
    return _with_directories(context, edits, dirs, orphans)


def _callback_names(value: cst.BaseExpression) -> tuple:
    """The module function the removed argument named, or called to build the callback
    (`_roots_callback(str(repo))`): deleted when nothing else in the file uses it."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return (value.func.value,)
    return (value.value,) if isinstance(value, cst.Name) else ()


def _dead_callback(context, names: tuple) -> Optional[cst.FunctionDef]:
    """The module-level callback (or callback factory) the argument named, when that argument
    is the only use of its name in the file."""
    if len(names) != 1:
        return None
    func = module_binding(context.module, names[0])
    if not isinstance(func, cst.FunctionDef) or func.decorators:
        return None
    parents = context.memo.setdefault("parents", parent_map(context.module))
    uses = [
        n
        for n in iter_nodes(context.module)
        if isinstance(n, cst.Name) and n.value == names[0] and is_reference(n, parents.get(id(n)))
    ]
    return func if len(uses) == 1 else None


def _only_used_inside(context, name: str, func: cst.FunctionDef) -> bool:
    """Every reference to `name` in the file is inside `func`."""
    inside = {id(n) for n in iter_nodes(func)}
    parents = context.memo.setdefault("parents", parent_map(context.module))
    uses = [
        n
        for n in iter_nodes(context.module)
        if isinstance(n, cst.Name) and n.value == name and is_reference(n, parents.get(id(n)))
    ]
    return bool(uses) and all(id(n) in inside for n in uses)


def _called_functions(context, func: cst.FunctionDef) -> tuple:
    """Module-level functions `func` calls by name: orphans once `func` is gone."""
    called = {n.func.value for n in iter_nodes(func.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)}
    return tuple(sorted(n for n in called if isinstance(module_binding(context.module, n), cst.FunctionDef)))


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
    if server_still_asks(context):
        return None
    statement = whole_statement(context.ancestors)
    if statement is None:
        return None
    args = positional(call)
    dirs = directories_of(context, args[0].value) if args else []
    return _with_directories(context, [RemoveStatement(statement)], dirs, ())


# ----- literal directories ---------------------------------------------------------------------
def directories_of(context, value: cst.BaseExpression, scope: Optional[cst.FunctionDef] = None) -> list:
    """[(is_literal, text)] for the directories a roots value names: a literal path (True), or
    the text of an expression that gives one at run time (False: `str(Path.cwd())`, a path a
    helper turns into roots); (None, source) for roots computed in a way the rewrite cannot
    follow, so a marker can say where they came from. `scope`: the callback whose locals
    (assigned once) may be followed."""
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


def _local_value(scope: Optional[cst.FunctionDef], name: str) -> Optional[cst.BaseExpression]:
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
_URL_TYPES = frozenset({"FileUrl", "AnyUrl", "AnyHttpUrl", "Url"})


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
        return [(False, f"str({code_of(interpolated)})")]
    return _one_path(context, value) or [_unknown(value)]


def _file_fstring(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
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
    found = directories_of(context, returns[0].value, func)
    if any(lit is False and _reads_locals(text, func) for lit, text in found):
        return [(None, f"{func.name.value}()")]  # computed from the callback's own variables
    return found


def _reads_locals(text: str, func: cst.FunctionDef) -> bool:
    """The expression reads a parameter or local of `func`: it cannot be evaluated elsewhere."""
    own = bound_names(func)
    return any(name in own for name in _free_names(text))


def _free_names(text: str) -> set:
    expr = parse_expr(text)
    parents = parent_map(expr)
    return {n.value for n in iter_nodes(expr) if isinstance(n, cst.Name) and is_reference(n, parents.get(id(n)))}


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
    if len(calls) != 1 or not _evaluable_at(context, dirs, calls[0]):
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
        name_arg, arguments = _call_tool_args(node)
        name = literal(name_arg.value) if name_arg is not None else None
        param = wanted.get(name)
        if param is None:
            continue
        current = arguments.value if arguments is not None else None
        if isinstance(current, cst.Dict) and any(literal(getattr(el, "key", None)) == param for el in current.elements):
            continue
        fits = known and _evaluable_at(context, dirs, node)
        edit = _call_edit(context, node, name_arg, arguments, param, dirs) if fits else None
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
        if param == "uris" and any(_as_uri(_quote(t) if lit else _unstr(t)).startswith("Path(") for lit, t in dirs):
            imports.append(("pathlib", "Path"))
    return edits, imports


def _evaluable_at(context, dirs: list, node: cst.CSTNode) -> bool:
    """Every run-time directory expression can be evaluated at `node`: it reads only builtins
    and module-level names, or locals of the function that gave the roots when `node` is in
    that same function (`str(tmp_path)` in one test). Elsewhere it would be an undefined name
    or another value."""
    computed = [text for lit, text in dirs if lit is False]
    if not computed:
        return True
    provider = enclosing(context.ancestors, cst.FunctionDef)
    parents = context.memo.setdefault("parents", parent_map(context.module))
    here = node
    while here is not None and not isinstance(here, cst.FunctionDef):
        here = parents.get(id(here))
    local = bound_names(provider) if provider is not None and here is provider else set()
    known = local | _module_names(context) | set(dir(builtins))
    return all(_free_names(text) <= known for text in computed)


def _module_names(context) -> set:
    """Names bound at module level: imports, definitions, assignments."""
    names = context.memo.get("module_names")
    if names is None:
        names = set()
        for stmt in context.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                names.add(stmt.name.value)
            for node in iter_nodes(stmt) if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(node, cst.ImportAlias):
                    names.add((node.asname.name.value if node.asname else code_of(node.name)).split(".")[0])
                elif isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
                    names.add(node.target.value)
        context.memo["module_names"] = names
    return names


def _call_tool_args(node: cst.Call) -> tuple:
    """(the tool-name Arg, the arguments Arg or None) of `call_tool(name, arguments)`, either
    written positionally or by keyword (`call_tool(name="x", arguments={...})`)."""
    args = positional(node)
    name = args[0] if args else keyword(node, "name")
    arguments = args[1] if len(args) >= 2 else keyword(node, "arguments")
    return name, arguments


def _call_edit(context, node: cst.Call, name: cst.Arg, arguments: Optional[cst.Arg], param: str, dirs: list):
    if param == "uris":
        values = ", ".join(_as_uri(_quote(t) if lit else _unstr(t)) for lit, t in dirs)
    else:
        values = ", ".join(_quote(t) if lit else t for lit, t in dirs)
    entry = f'"{param}": [{values}]'
    if arguments is not None:
        if not isinstance(arguments.value, cst.Dict):
            return None  # a variable or a call: a human adds the entry
        current = arguments.value
        inner = code_of(current).strip()[1:-1].strip().rstrip(",")
        new = parse_expr("{" + (inner + ", " if inner else "") + entry + "}")
        return Replace(current, fit(context, current, new))
    if any(arg.star for arg in node.args):
        return None
    value = parse_expr("{" + entry + "}")
    if name.keyword is None and name is node.args[-1]:
        added = cst.Arg(value)  # call_tool("x") -> call_tool("x", {...})
    else:
        added = cst.Arg(value, keyword=cst.Name("arguments"), equal=_TIGHT_EQUAL)
    closing = node.args[-1].whitespace_after_arg  # the line break before `)`, if any, moves on
    last = node.args[-1].with_changes(
        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")), whitespace_after_arg=cst.SimpleWhitespace("")
    )
    added = added.with_changes(whitespace_after_arg=closing)
    return Replace(node, fit(context, node, node.with_changes(args=[*node.args[:-1], last, added])))


_TIGHT_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _as_uri(path: str) -> str:
    """A file URI from a path expression: `.as_uri()` straight on an absolute Path chain."""
    if path.endswith((".resolve()", ".absolute()")):
        return f"{path}.as_uri()"
    return f"Path({path}).resolve().as_uri()"


def _unstr(text: str) -> str:
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


def _statement_above(parents: dict, node: cst.CSTNode):
    while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents.get(id(node))
    return node
