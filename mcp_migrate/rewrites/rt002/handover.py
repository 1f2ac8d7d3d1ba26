"""Where a removed provider's directories go: the stdio server's environment (server-config),
the tool calls that now take them, or a review comment listing them."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import libcst as cst

from mcp_migrate.core.coordination import ClientCall, KeptPlumbing, note_client_call, note_kept_plumbing
from mcp_migrate.core.fix.edits import AddComment, Fix, Replace
from mcp_migrate.core.fix.layout import line_length
from mcp_migrate.core.sdk import STDIO_PARAMETERS
from mcp_migrate.core.syntax import (
    code_of,
    enclosing,
    iter_nodes,
    keyword,
    literal,
    parse_expr,
    positional,
)
from mcp_migrate.rewrites.names import bound_names
from mcp_migrate.rewrites.rt002.directories import as_uri, describe, free_names, quote, unstr


def with_directories(context, edits: list, dirs: list, orphans: tuple) -> Fix:
    """The provider's removal with what it gave handed over: a stdio server's environment or a
    migrated tool's calls where the directories are known, else a marker listing them. Roots
    computed at run time (a user setting, a public parameter or setter, `self._roots`) would be
    left without effect by the removal: unless the client calls a tool this run migrates (its
    server no longer asks, so they already reach nothing), it is only suggested (issue 36 §4),
    and the report lists what fed them."""
    fully_known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    if fully_known and context.settings.strategy == "server-config":
        env_edit = _stdio_env_edit(context, dirs)
        if env_edit is not None:
            note_client_call(context, ClientCall("the stdio server", context.settings.env_var, "env"))
            return Fix(tuple(edits + [env_edit]), orphans=orphans, unsafe=True, imports=(("os", None),))
    calls: list = []
    if context.settings.run.tools:
        calls, imports = _tool_call_edits(context, dirs)
        if calls and fully_known:
            return Fix(tuple(edits + calls), orphans=orphans, unsafe=True, imports=tuple(imports))
        edits += calls
    if dirs:
        listed = describe(dirs)
        statement = enclosing(context.ancestors, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):  # (not None)
            note = f"# mcp-migrate: RT002 review: {listed}"
            edits.append(AddComment(statement, note))
            _note_computed(context, dirs)
    computed = any(lit is None for lit, _ in dirs)
    return Fix(tuple(edits), orphans=orphans, unsafe=True, display=computed and not calls)


def _note_computed(context, dirs: list) -> None:
    """Roots computed at run time (a method, a closure over the project's settings or
    parameters): whatever fed them (a `roots` parameter, a setting) now reaches no server. The
    report lists it among the interface changes, beside the marker (issue 20 §3)."""
    func = enclosing(context.ancestors, cst.FunctionDef)
    owner = enclosing(context.ancestors, cst.ClassDef)
    where = ""
    if isinstance(func, cst.FunctionDef):
        where = f"{owner.name.value}.{func.name.value}" if isinstance(owner, cst.ClassDef) else func.name.value
    for lit, text in dirs:
        if lit is None:
            note_kept_plumbing(context, KeptPlumbing("callback", text, where))


def _stdio_env_edit(context, dirs: list):
    calls = [n for n in context.index.nodes(cst.Call) if context.resolver.sdk_name(n.func) == STDIO_PARAMETERS]
    if len(calls) != 1 or not _evaluable_at(context, dirs, calls[0]):
        return None
    call = calls[0]
    env_var = context.settings.env_var
    items = ", ".join(quote(t) if lit else t for lit, t in dirs)  # all known here
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
    parents = context.index.parents
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
    width = line_length(context.path, context.settings.view)
    if all(len(indent) + len(line) <= width for line in rendered.splitlines()):
        return new
    return _exploded(new)


def _exploded(node: cst.BaseExpression) -> cst.BaseExpression:
    """A call's arguments or a dict's entries one per line, with a trailing comma."""
    items: Sequence[cst.CSTNode]
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
    wanted = {tool.tool: tool.parameter for tool in context.settings.run.tools}
    optional = {tool.tool for tool in context.settings.run.tools if tool.optional}
    known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    edits, imports = [], []
    parents = None
    for node in context.index.nodes(cst.Call):
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "call_tool"):
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
            parents = parents or context.index.parents
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
        note_client_call(context, ClientCall(str(name), param))
        if param == "uris" and any(as_uri(quote(t) if lit else unstr(t)).startswith("Path(") for lit, t in dirs):
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
    parents = context.index.parents
    here = node
    while here is not None and not isinstance(here, cst.FunctionDef):
        here = parents.get(id(here))
    local = bound_names(provider) if provider is not None and here is provider else set()
    known = local | _module_names(context) | set(dir(builtins))
    return all(free_names(text) <= known for text in computed)


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
                    names.add((node.evaluated_alias or code_of(node.name)).split(".")[0])
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


def _call_edit(context, node: cst.Call, name: cst.Arg, arguments: cst.Arg | None, param: str, dirs: list):
    if param == "uris":
        values = ", ".join(as_uri(quote(t) if lit else unstr(t)) for lit, t in dirs)
    else:
        values = ", ".join(quote(t) if lit else t for lit, t in dirs)
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


def _statement_above(parents: dict, node: cst.CSTNode | None):
    while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents.get(id(node))
    return node
