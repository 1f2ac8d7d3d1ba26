"""Where a removed provider's directories go: the stdio server's environment (server-config),
the tool calls that now take them, or a review comment listing them."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import libcst as cst

from mcp_migrate.core.coordination import (
    ClientCall,
    KeptPlumbing,
    note_called_tools,
    note_client_call,
    note_kept_plumbing,
)
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


def with_directories(context, edits: list, dirs: list, orphans: tuple, client: cst.Call | None = None) -> Fix:
    """The provider's removal with what it gave handed over: a stdio server's environment or a
    migrated tool's calls where the directories are known, else a marker listing them. Roots
    computed at run time (a user setting, a public parameter or setter, `self._roots`) would be
    left without effect by the removal: unless the client calls a tool this run migrates (its
    server no longer asks, so they already reach nothing), it is only suggested (issue 36 §4),
    and the report lists what fed them. `client`: the call that built the client the roots were
    given to (its tool calls are the ones handed the directories, `_session_scope`)."""
    fully_known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    tool_calls = list(_tool_calls(context, _session_scope(context, client)))
    # Until this fix is applied, the client keeps calling those tools as it does now: the run
    # holds a rewrite of them while it withholds this fix (RunPlan.held_server).
    note_called_tools(context, sorted({name for _, _, _, name in tool_calls if name is not None}))
    if fully_known and context.settings.strategy == "server-config":
        env_edit = _stdio_env_edit(context, dirs)
        if env_edit is not None:
            note_client_call(context, ClientCall("the stdio server", context.settings.env_var, "env"))
            return Fix(tuple(edits + [env_edit]), orphans=orphans, unsafe=True, imports=(("os", None),))
    calls: list = []
    if context.settings.run.tools:
        calls, imports = _tool_call_edits(context, dirs, tool_calls)
        if calls and fully_known:
            whole = not any(isinstance(edit, AddComment) for edit in calls)  # no call left to a human
            return Fix(tuple(edits + calls), orphans=orphans, unsafe=True, imports=tuple(imports), hands_over=whole)
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
    before = code_of(statement.deep_replace(old, cst.Name(_HERE))).partition(_HERE)[0]
    if "\n" in before:
        return new  # on a continuation line: its split would be indented wrong; a long line instead
    return _exploded(new, width - len(indent) - len(context.module.default_indent))


#: A name no source spells, put where the replaced node stands to find the line it starts on.
_HERE = "_mcp_migrate_node_here_"


def _exploded(node: cst.BaseExpression, room: int) -> cst.BaseExpression:
    """A call's arguments or a dict's entries split as black splits them: all on one indented
    line when they fit in `room` columns, else one per line with a trailing comma."""
    items: Sequence[cst.CSTNode]
    if isinstance(node, cst.Call):
        items, head, close = node.args, code_of(node.func) + "(", ")"
    elif isinstance(node, cst.Dict):
        items, head, close = node.elements, "{", "}"
    else:
        return node
    texts = [code_of(_bare(item)).strip() for item in items]
    if any("\n" in text or "#" in text for text in texts):
        return node  # an item split over lines, or a comment: kept as written
    together = ", ".join(texts)
    if len(texts) > 1 and len(together) <= room:
        return parse_expr(head + "\n    " + together + "\n" + close)
    return parse_expr(head + "\n" + "".join(f"    {t},\n" for t in texts) + close)


def _session_scope(context, client: cst.Call | None) -> tuple:
    """(block, name) where the client built by `client` makes its calls: the body of
    `async with ClientSession(..., list_roots_callback=...) as name:`, or the function (or
    module) where `name = [await] Client(...)` binds it. (None, None) where the client's calls
    cannot be told apart (stored on an instance, handed on): every `call_tool` of the file is
    then its own."""
    if client is None:
        return None, None
    parents = context.index.parents
    parent = parents.get(id(client))
    if isinstance(parent, cst.WithItem):
        asname = parent.asname
        with_node = parents.get(id(parent))
        if asname is not None and isinstance(asname.name, cst.Name) and isinstance(with_node, cst.With):
            return with_node.body, asname.name.value
        return None, None
    holder = parents.get(id(parent)) if isinstance(parent, cst.Await) else parent
    if isinstance(holder, cst.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Name):
        func = enclosing(context.ancestors, cst.FunctionDef)
        return (func.body if func is not None else context.module), holder.targets[0].target.value
    return None, None


def _made_by(parents: dict, node: cst.Call, scope: tuple) -> bool:
    """Whether `node` (a `call_tool`) is the scoped client's call: `name.call_tool(...)` inside
    its block (any call, where the client's calls cannot be told apart)."""
    block, name = scope
    if block is None:
        return True
    receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
    if not (isinstance(receiver, cst.Name) and receiver.value == name):
        return False
    here: cst.CSTNode | None = node
    while here is not None and here is not block:
        here = parents.get(id(here))
    return here is block


def _bare(item: cst.CSTNode) -> cst.CSTNode:
    """An argument or dict entry without its comma and the line breaks around it."""
    item = item.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    if isinstance(item, cst.Arg):
        item = item.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    return item


def _tool_calls(context, scope: tuple):
    """(call, its tool-name Arg, its arguments Arg or None, the tool's name or None) of each
    `call_tool(...)` the scoped client makes (`_session_scope`)."""
    parents = context.index.parents
    for node in context.index.nodes(cst.Call):
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "call_tool"):
            continue
        if not _made_by(parents, node, scope):
            continue
        name_arg, arguments = _call_tool_args(node)
        name = literal(name_arg.value) if name_arg is not None else None
        yield node, name_arg, arguments, (name if isinstance(name, str) else None)


def _tool_call_edits(context, dirs: list, tool_calls: list) -> tuple:
    """`call_tool("name", {...})` calls, by the client the roots were given to (`tool_calls`), to
    tools that now require the directories (a rewrite in the same run gave them the parameter):
    the argument is added with the same directories (as URIs for a `uris` parameter); where it
    cannot be (directories computed at run time, arguments not written as a dict), a marker says
    the call must pass it. (edits, imports)"""
    wanted = {tool.tool: tool.parameter for tool in context.settings.run.tools}
    optional = {tool.tool for tool in context.settings.run.tools if tool.optional}
    single = {tool.tool for tool in context.settings.run.tools if tool.single}
    known = bool(dirs) and all(lit is not None for lit, _ in dirs)
    edits, imports = [], []
    parents = context.index.parents
    for node, name_arg, arguments, name in tool_calls:
        param = wanted.get(name)
        if param is None:
            continue
        current = arguments.value if arguments is not None else None
        if isinstance(current, cst.Dict) and any(literal(getattr(el, "key", None)) == param for el in current.elements):
            continue
        fits = known and _evaluable_at(context, dirs, node) and (name not in single or len(dirs) == 1)
        edit = _call_edit(context, node, name_arg, arguments, param, dirs, name in single) if fits else None
        if edit is None:
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


def _call_edit(
    context, node: cst.Call, name: cst.Arg, arguments: cst.Arg | None, param: str, dirs: list, single: bool = False
):
    """The call passing `param`: the directories as a list, or the one directory itself for
    a tool's own single-directory parameter (`single`)."""
    if param == "uris":
        values = ", ".join(as_uri(quote(t) if lit else unstr(t)) for lit, t in dirs)
    else:
        values = ", ".join(quote(t) if lit else t for lit, t in dirs)
    entry = f'"{param}": {values}' if single else f'"{param}": [{values}]'
    if arguments is not None:
        if not isinstance(arguments.value, cst.Dict):
            return None  # a variable or a call: a human adds the entry
        current = arguments.value
        new = _with_entry(current, entry)
        args = [arg.with_changes(value=new) if arg is arguments else arg for arg in node.args]
        return Replace(node, fit(context, node, node.with_changes(args=args)))
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


def _with_entry(current: cst.Dict, entry: str) -> cst.BaseExpression:
    """The dict display with `entry` added last, laid out as its entries are: one per line after
    a trailing comma where the dict is written so (the final review of session 52, #10: the
    entries were joined into `{"title": "test PR",` ... `"user_approved": False, "x": ...},`)."""
    elements = list(current.elements)
    one = parse_expr("{" + entry + "}")
    assert isinstance(one, cst.Dict)  # (an entry, written above)
    added = one.elements[0]
    if elements and isinstance(elements[-1].comma, cst.Comma) and "\n" in code_of(current):
        # the line break and indent between two entries: after the one before last, or after `{`
        if len(elements) > 1 and isinstance(elements[-2].comma, cst.Comma):
            between = elements[-2].comma
        else:
            between = cst.Comma(whitespace_after=current.lbrace.whitespace_after)
        if "\n" in code_of(cst.Dict([cst.DictElement(cst.Name("k"), cst.Name("v"), comma=between)])):
            elements[-1] = elements[-1].with_changes(comma=between)
            return current.with_changes(elements=[*elements, added.with_changes(comma=current.elements[-1].comma)])
    inner = code_of(current).strip()[1:-1].strip().rstrip(",")
    return parse_expr("{" + (inner + ", " if inner else "") + entry + "}")


_TIGHT_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _statement_above(parents: dict, node: cst.CSTNode | None):
    while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = parents.get(id(node))
    return node
