"""RT001's rewrite: the server stops asking the client for roots.

Strategies (the default: tool-parameter inside a tool function, server-config elsewhere):
  tool-parameter  the tool gains `directories: Annotated[list[str], Field(description=...)]`
  resource-uri    the tool gains `uris: ...` (file:// URIs), converted once by a helper
  server-config   a module constant read once from an environment variable at start-up
The consuming code is rewritten by ConsumerRewriter; what it does not understand gets a value
of the same shape built from the directories and a `# mcp-migrate: RT001` review comment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from mcp_migrate.core.fixer import line_length
from mcp_migrate.core.fixes import AddComment, Fix, Insert, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.settings import STRATEGIES
from mcp_migrate.core.syntax import (
    code_of,
    enclosing,
    is_reference,
    iter_nodes,
    keyword,
    module_binding,
    parent_map,
    parse_expr,
    parse_stmt,
    positional,
)
from mcp_migrate.migrate.consumers import (
    ConsumerRewriter,
    NotUnderstood,
    SideChannel,
    always_exits,
    bound_names,
    is_store,
    tolerates_none,
    unreachable_after,
)
from mcp_migrate.migrate.signature import NewParam, SignatureRefused, depth_of, rebuild

_SERVER_CLASSES = frozenset({"FastMCP", "MCPServer", "Server", "LowLevelServer"})
_CONTEXT_CLASSES = frozenset({"Context", "ServerRequestContext", "RequestContext"})
_URI_HELPER = "_file_uri_to_path"
_PARAM_DESCRIPTION = "Absolute paths of the directories to work in."
_URI_DESCRIPTION = "file:// URIs of the directories to work in."


@dataclass
class Outcome:
    fix: Optional[Fix]
    applicable: tuple
    reason: str = ""
    #: What a human must decide, where the site's roots are not directories at all (the rule
    #: says this instead of "take the directories as ...").
    decide: str = ""
    #: The fix only leaves a `# mcp-migrate:` review marker: the site stays a finding.
    marker_only: bool = False


#: The start of every review marker the RT001 rewrite leaves.
MARKER = "# mcp-migrate: RT001 review:"
#: What to do with roots that carry data (a session id, a timezone) instead of directories.
SIDE_CHANNEL_DECISION = (
    "these roots carry data, not directories: decide how a client passes that value now"
    " (a tool argument or server configuration), then drop the request"
)
_BY_HAND = "take the directories as a tool parameter, a resource URI, or server configuration by hand"


def constant_name(env_var: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in env_var.upper())
    return name if name and not name[0].isdigit() else f"_{name}"


#: Told through `migrated_tools` to every file of a fix run: a server in this run still asks for
#: roots (a site no rewrite touched), so a client's roots must stay (its tests talk to it).
STILL_ASKS = ("*", "roots/list")


def plan_request_rewrite(context, call: cst.Call, kind: str) -> Outcome:
    """Plan the rewrite of the roots request `call` seen at the current traversal point."""
    outcome = _plan(context, call, kind)
    if (outcome.fix is None or outcome.marker_only) and STILL_ASKS not in context.migrated_tools:
        context.migrated_tools.append(STILL_ASKS)  # see client.note_still_asks
    return outcome


def _plan(context, call: cst.Call, kind: str) -> Outcome:
    ancestors = context.ancestors
    settings = context.settings
    func = enclosing(ancestors[:-1], cst.FunctionDef)
    if func is None:
        return Outcome(None, (), "the request is not inside a function")
    tool = is_tool_function(func, context)
    applicable = STRATEGIES if tool else ("server-config",)
    strategy = settings.strategy or ("tool-parameter" if tool else "server-config")
    if strategy not in applicable:
        return Outcome(None, applicable, f"{strategy} applies only to tool functions")
    value = awaited_value(ancestors, call, context.resolver)
    if value is None:
        return _marked(func, call, _not_awaited_reason(ancestors, call), f"{_BY_HAND}, then rewrite this call")
    builder = _SiteRewrite(context, func, value, kind, strategy)
    try:
        fix = builder.build()
    except _SideChannelSite as exc:
        return _marked(func, value, str(exc), SIDE_CHANNEL_DECISION, side_channel=True)
    except _NoRewrite as exc:
        return _marked(func, value, str(exc), "")
    except _CannotApply as exc:
        return Outcome(None, applicable, str(exc))
    except Exception as exc:  # noqa: BLE001 - a planning bug must cost the fix, never the finding
        return Outcome(None, (), f"internal error while planning the rewrite ({type(exc).__name__}: {exc})")
    return Outcome(fix, applicable)


class _CannotApply(Exception):
    """The chosen strategy cannot rewrite this site (another one might)."""


class _NoRewrite(_CannotApply):
    """No strategy can rewrite this site without changing behaviour: report, and leave a
    review marker that says what a human must decide."""


class _SideChannelSite(_NoRewrite):
    """The roots carry data, not directories: there is nothing to pass as directories."""


def _marked(func: cst.FunctionDef, node: cst.CSTNode, reason: str, decide: str, *, side_channel=False) -> Outcome:
    """A site no rewrite may touch: its fix is a `# mcp-migrate: RT001 review:` line above the
    statement saying why and what to decide (none once that line is there, so the fix is
    idempotent); the finding stays either way."""
    statement = _statement_of(func, node)
    todo = f"{reason}{':' if side_channel else ';'} {decide}" if decide else reason
    rule_says = SIDE_CHANNEL_DECISION if side_channel else ""
    if statement is None or _has_marker(statement):
        return Outcome(None, (), reason, rule_says)
    fix = Fix((AddComment(statement, f"{MARKER} {todo}"),), unsafe=True)
    return Outcome(fix, (), reason, rule_says, marker_only=True)


def _has_marker(statement: cst.CSTNode) -> bool:
    lines = getattr(statement, "leading_lines", ())
    return any(line.comment is not None and line.comment.value.startswith(MARKER) for line in lines)


#: Wrappers whose awaited result is the wrapped awaitable's result (a timeout or a shield
#: changes when, not what): the whole `await wrapper(request, ...)` is the roots value.
_TRANSPARENT_WAITS = frozenset({"asyncio.wait_for", "asyncio.shield", "anyio.fail_after"})


def awaited_value(ancestors: list, call: cst.Call, resolver) -> Optional[cst.BaseExpression]:
    """The expression whose value is the roots result: `await request`, or the `await` of a
    transparent wrapper (`await asyncio.wait_for(request, timeout=1)`); None when the request's
    awaitable goes anywhere else (gather, create_task, a variable): replacing it with a list
    would hand a list to code that awaits it."""
    parent = ancestors[-2]
    if isinstance(parent, cst.Await) and parent.expression is call:
        return parent
    if len(ancestors) >= 4 and isinstance(parent, cst.Arg) and parent.keyword is None:
        wrapper, outer = ancestors[-3], ancestors[-4]
        if (
            isinstance(wrapper, cst.Call)
            and wrapper.args
            and wrapper.args[0] is parent
            and resolver.qualified(wrapper.func) in _TRANSPARENT_WAITS
            and isinstance(outer, cst.Await)
            and outer.expression is wrapper
        ):
            return outer
    return None


def _not_awaited_reason(ancestors: list, call: cst.Call) -> str:
    holder = ancestors[-3] if isinstance(ancestors[-2], cst.Arg) and len(ancestors) >= 3 else ancestors[-2]
    if isinstance(holder, cst.Call):
        return f"the request's awaitable is handed to `{code_of(holder.func)}(...)`, which would get a list"
    return "the request is not awaited where it is made (its awaitable is kept for later)"


class _SiteRewrite:
    def __init__(self, context, func, value, kind, strategy):
        self.context = context
        self.settings = context.settings
        self.resolver = context.resolver
        self.module = context.module
        self.func = func
        self.value = value
        self.kind = kind
        self.strategy = strategy
        self.imports = []
        self.edits = []
        self.dropped = []

    @property
    def target(self) -> str:
        if self.strategy == "server-config":
            return constant_name(self.settings.env_var)
        return self.settings.parameter

    def build(self) -> Fix:
        self._check_names()
        self._check_no_fallback_handler()
        guard = self._guard()
        if guard is not None and isinstance(guard.orelse, cst.Else):
            # The roots branch only existed for roots: keep the fallback branch alone.
            self.edits.append(Unwrap(guard, "orelse"))
            self.dropped.append(guard.test)
            self.dropped.append(guard.body)
            self._drop_dead_locals()
            self._drop_unused_context()
            return Fix(tuple(self.edits), unsafe=True, imports=())
        try:
            plan = ConsumerRewriter(self.func, self.value, self.kind, self.target, self.resolver).run()
            self.edits.extend(plan.edits)
            self.dropped.extend(plan.dropped)
            if plan.needs_path:
                self.imports.append(("pathlib", "Path"))
        except SideChannel as exc:
            raise _SideChannelSite(str(exc)) from None
        except NotUnderstood as exc:
            self._fallback(str(exc))
        if guard is not None:
            if guard.orelse is not None:  # an elif chain: a human decides
                self.edits.append(
                    AddComment(
                        guard,
                        "# mcp-migrate: RT001 review: this roots capability guard has an elif;"
                        " decide which branch runs now that the directories are passed in",
                    )
                )
            else:
                self.edits.append(Unwrap(guard, "body"))
                self.dropped.append(guard.test)
                if always_exits(guard.body):
                    self._drop_unreachable_after(guard)
        self._drop_negative_guards()
        if self.strategy == "server-config":
            self._server_config()
        else:
            self._tool_parameter()
        self._drop_dead_locals()
        self._drop_unused_context()
        return Fix(tuple(self.edits), unsafe=True, imports=tuple(self.imports))

    # --- preconditions -------------------------------------------------------------------------
    def _check_names(self) -> None:
        if self.strategy == "server-config":
            if self.target in bound_names(self.func):
                raise _CannotApply(f"the function binds `{self.target}` itself; set `env-var` to another name")
            return
        params = {p.name.value for p in _all_params(self.func.params)}
        wanted = {self.target} | ({"uris"} if self.strategy == "resource-uri" else set())
        clash = wanted & bound_names(self.func)
        # A second request in a tool that already gained the parameter reuses it.
        if clash and not (clash <= params and self._already_migrated(params)) and not self._own_prologue():
            name = sorted(clash)[0]
            raise _CannotApply(f"the function already uses the name `{name}`; set `parameter` to another name")

    def _check_no_fallback_handler(self) -> None:
        """A request inside `try:` with an `except` branch: that branch is what a 2026 client
        got (the request raises there); removing the request would leave it dead and change
        behaviour without a trace. A human decides what the fallback means now."""
        parents = parent_map(self.func)
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, (cst.Try, cst.TryStar)) and parent.body is node and parent.handlers:
                raise _NoRewrite(
                    "the request sits in a `try:` whose `except` branch is the fallback a 2026 client got;"
                    " decide what that fallback means once the directories are passed in"
                )
            node = parent

    def _own_prologue(self) -> bool:
        """resource-uri binds `directories` in its own prologue line on an earlier pass."""
        if self.strategy != "resource-uri" or not isinstance(self.func.body, cst.IndentedBlock):
            return False
        prologues = {_prologue(self.target, optional) for optional in (False, True)}
        return any(code_of(stmt).strip() in prologues for stmt in self.func.body.body[:2])

    def _already_migrated(self, names: set) -> bool:
        wanted = "uris" if self.strategy == "resource-uri" else self.target
        return wanted in names and self._param_marker_present()

    def _param_marker_present(self) -> bool:
        for p in _all_params(self.func.params):
            if p.annotation is not None and "Field(description=" in code_of(p.annotation.annotation):
                return True
        return False

    def _guard(self) -> Optional[cst.If]:
        """An `if` whose test only probes the roots capability and whose body holds the request."""
        parents = parent_map(self.func)
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, cst.If) and parent.body is node and _probes_roots(parent.test, self.resolver):
                return parent
            node = parent
        return None

    def _drop_negative_guards(self) -> None:
        """`if not <roots capability>: return ...`: a 2026 client declares no roots capability,
        so the guard would always leave early and the directories would never be used."""
        for node in iter_nodes(self.func.body):
            if (
                isinstance(node, cst.If)
                and node.orelse is None
                and isinstance(node.test, cst.UnaryOperation)
                and isinstance(node.test.operator, cst.Not)
                and _probes_roots(node.test.expression, self.resolver)
                and always_exits(node.body)
            ):
                self.edits.append(RemoveStatement(node))
                self.dropped.append(node)

    def _drop_unreachable_after(self, guard: cst.If) -> None:
        """The old fallback after an unwrapped guard whose body always returns."""
        edits, gone = unreachable_after(self.func, guard)
        self.edits.extend(edits)
        self.dropped.extend(gone)

    # --- fallbacks -------------------------------------------------------------------------------
    def _fallback(self, why: str) -> None:
        if self.kind == "raw":
            shaped = (
                f'{{"roots": [{{"uri": Path(d).resolve().as_uri(), "name": Path(d).name}} for d in {self.target}]}}'
            )
            self.imports.append(("pathlib", "Path"))
        else:
            roots = f"[Root(uri=Path(d).resolve().as_uri(), name=Path(d).name) for d in {self.target}]"
            shaped = f"ListRootsResult(roots={roots})" if self.kind == "result" else roots
            self.imports += [("pathlib", "Path"), ("mcp.types", "Root")]
            if self.kind == "result":
                self.imports.append(("mcp.types", "ListRootsResult"))
        self.edits.append(Replace(self.value, parse_expr(shaped)))
        self.dropped.append(self.value)
        line = _statement_of(self.func, self.value)
        self.edits.append(
            AddComment(
                line,
                f"# mcp-migrate: RT001 review: {why}; check that the value now rebuilt from `{self.target}` is used the same way",
            )
        )

    # --- strategies ------------------------------------------------------------------------------
    def _server_config(self) -> None:
        name = self.target
        if module_binding(self.module, name) is not None:
            return
        env = self.settings.env_var
        comment = cst.EmptyLine(
            comment=cst.Comment(
                "# Directories this server works in, from its configuration (replaces MCP Roots, SEP-2577)."
            )
        )
        const = parse_stmt(f'{name} = [d for d in os.environ.get("{env}", "").split(os.pathsep) if d]\n')
        const = const.with_changes(leading_lines=[cst.EmptyLine(), comment])
        self.imports.append(("os", None))
        self.edits.append(Insert(_anchor(self.module, self.resolver), (const,)))

    def _tool_parameter(self) -> None:
        names = {p.name.value for p in _all_params(self.func.params)}
        param_name = "uris" if self.strategy == "resource-uri" else self.target
        self.imports += [("typing", "Annotated"), ("pydantic", "Field")]
        fallback_for = self._fallback_for()
        # Roots only stood in for a missing argument: callers that pass it need nothing new, and
        # without directories (None) the tool takes its old no-roots branch.
        optional = fallback_for is not None and tolerates_none(self.func, self.edits, self.target)
        if self.strategy == "resource-uri" and self._reads_target():
            self._uri_prologue(optional)
        if param_name in names:
            return
        description = _URI_DESCRIPTION if self.strategy == "resource-uri" else _PARAM_DESCRIPTION
        field = f'Field(description="{description}")'
        if optional:
            field = f'Field(description="{description[:-1]} (used when `{fallback_for}` is not given).")'
            self._new_param = NewParam(param_name, "list[str] | None", field, "None")
            self.context.migrated_tools.append((tool_name(self.func), param_name, "optional"))
            return
        self._new_param = NewParam(param_name, "list[str]", field)
        self.context.migrated_tools.append((tool_name(self.func), param_name))

    def _fallback_for(self) -> Optional[str]:
        """The parameter (with a default) whose absence the roots stood in for: the request sits
        in `if p is None:` / `if not p:`."""
        optional = {p.name.value for p in _all_params(self.func.params) if p.default is not None}
        parents = parent_map(self.func)
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, cst.If) and parent.body is node and _absent(parent.test) in optional:
                return _absent(parent.test)
            node = parent
        return None

    def _reads_target(self) -> bool:
        """Some rewritten code reads the directories (a settled test may leave none that does:
        then the prologue would be an unused local)."""
        return any(
            isinstance(node, cst.Name) and node.value == self.target
            for edit in self.edits
            if isinstance(edit, Replace)
            for node in iter_nodes(edit.new)
        )

    def _uri_prologue(self, optional: bool) -> None:
        body = self.func.body
        if not isinstance(body, cst.IndentedBlock):
            raise _CannotApply("a one-line function body")
        first = body.body[0]
        anchor = body.body[1] if _is_docstring(first) and len(body.body) > 1 else first
        prologue = parse_stmt(_prologue(self.target, optional) + "\n")
        self.edits.append(Insert(anchor, (prologue,), before=True))
        if not module_binding(self.module, _URI_HELPER) is not None:
            helper = parse_stmt(
                f"def {_URI_HELPER}(uri: str) -> str:\n"
                f'    """The local path of a file:// URI (percent-decoded; Windows drives handled)."""\n'
                f"    parsed = urlparse(uri)\n"
                f'    if parsed.scheme != "file":\n'
                f'        raise ValueError(f"expected a file:// URI, got {{uri!r}}")\n'
                f'    if parsed.netloc not in ("", "localhost"):\n'
                f'        raise ValueError(f"a file:// URI on another host cannot be used: {{uri!r}}")\n'
                f"    return url2pathname(parsed.path)\n"
            )
            helper = helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
            self.imports += [("urllib.parse", "urlparse"), ("urllib.request", "url2pathname")]
            self.edits.append(Insert(_anchor(self.module, self.resolver), (helper,)))

    # --- the ctx parameter -----------------------------------------------------------------------
    def _drop_unused_context(self) -> None:
        """The tool's new signature: without a Context nothing uses any more, with the new
        parameter (see signature.rebuild for where it goes)."""
        new_param = getattr(self, "_new_param", None)
        ctx = self._context_param()
        drop = ctx if ctx is not None and not self._still_uses(ctx.name.value) else None
        if new_param is None and drop is None:
            return
        depth = depth_of(self.context.ancestors, self.func)
        width = line_length(self.context.path)
        try:
            edit = rebuild(self.func, drop, new_param, depth, self.module.default_indent, width)
        except SignatureRefused as exc:
            raise _CannotApply(str(exc)) from None
        self.edits.append(edit)

    def _drop_dead_locals(self) -> None:
        """Locals that only led to the request (`context = mcp.get_context()`, `session =
        ctx.session`) and that nothing reads any more: left behind they are new unused
        variables. Repeated so a chain (`ctx` -> `session`) goes as a whole."""
        ctx = self._context_param()
        sources = {ctx.name.value} if ctx is not None else set()
        candidates = self._context_locals(sources)
        removed = True
        while removed:
            removed = False
            for name, assign in list(candidates.items()):
                if not self._still_reads(name, assign):
                    self.edits.append(RemoveStatement(assign))
                    self.dropped.append(assign)
                    del candidates[name]
                    removed = True

    def _context_locals(self, sources: set) -> dict:
        """name -> its only assignment, for locals bound once to `get_context()` or to an
        attribute chain of the Context (or of another such local)."""
        parents = parent_map(self.func.body)
        stores: dict = {}
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and is_store(node, parents.get(id(node))):
                stores[node.value] = stores.get(node.value, 0) + 1
        found: dict = {}
        for node in iter_nodes(self.func.body):
            if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0].target
            if not isinstance(target, cst.Name) or stores.get(target.value) != 1:
                continue
            if _is_context_getter(node.value) or _chain_root(node.value) in sources | set(found):
                found[target.value] = node
        return found

    def _still_reads(self, name: str, assign: cst.Assign) -> bool:
        dropped = set()
        for node in self.dropped:
            dropped.update(id(n) for n in iter_nodes(node))
        own = assign.targets[0].target
        parents = parent_map(self.func.body)
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and node.value == name and node is not own and id(node) not in dropped:
                if is_reference(node, parents.get(id(node))):
                    return True
        return False

    def _context_param(self) -> Optional[cst.Param]:
        for p in _all_params(self.func.params):
            if (
                p.annotation is not None
                and self.resolver.sdk_name(_annotation_head(p.annotation.annotation)) in _CONTEXT_CLASSES
            ):
                if is_tool_function(self.func, self.context):
                    return p
        return None

    def _still_uses(self, name: str) -> bool:
        dropped = set()
        for node in self.dropped:
            dropped.update(id(n) for n in iter_nodes(node))
        parents = parent_map(self.func.body)
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and node.value == name and id(node) not in dropped:
                if is_reference(node, parents.get(id(node))):
                    return True
        return False


# ----- helpers ------------------------------------------------------------------------------------
def is_tool_function(func: cst.FunctionDef, context) -> bool:
    """Registered with `@<server>.tool(...)` / `@<server>.tool`, or `<server>.add_tool(func)`."""
    resolver = context.resolver
    for dec in func.decorators:
        target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if isinstance(target, cst.Attribute) and target.attr.value == "tool":
            kind = resolver.sdk_instance(target.value)
            if kind in ("FastMCP", "MCPServer") or (kind is None and resolver.imports_sdk):
                return True
    return func.name.value in _registered_tools(context)


def tool_name(func: cst.FunctionDef) -> str:
    """The name clients call the tool by: `@mcp.tool(name="...")`, else the function's name."""
    for dec in func.decorators:
        call = dec.decorator
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "tool":
            named = keyword(call, "name")
            if named is not None and isinstance(named.value, cst.SimpleString):
                return named.value.evaluated_value
            args = positional(call)
            if args and isinstance(args[0].value, cst.SimpleString):
                return args[0].value.evaluated_value
    return func.name.value


def _registered_tools(context) -> set:
    cached = context.memo.get("registered_tools")
    if cached is None:
        cached = set()
        for node in iter_nodes(context.module):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "add_tool"
            ):
                args = positional(node)
                if args and isinstance(args[0].value, cst.Name):
                    cached.add(args[0].value.value)
        context.memo["registered_tools"] = cached
    return cached


def _probes_roots(test: cst.BaseExpression, resolver) -> bool:
    """`session.check_client_capability(ClientCapabilities(roots=...))` or `....capabilities.roots`."""
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "check_client_capability"
    ):
        args = positional(test)
        if len(args) == 1 and isinstance(args[0].value, cst.Call):
            caps = args[0].value
            return (
                resolver.sdk_name(caps.func) == "ClientCapabilities"
                and keyword(caps, "roots") is not None
                and len(caps.args) == 1
            )
    if isinstance(test, cst.Attribute) and test.attr.value == "roots":
        owner = test.value
        return isinstance(owner, cst.Attribute) and owner.attr.value in ("capabilities", "client_capabilities")
    return False


def _prologue(target: str, optional: bool) -> str:
    """resource-uri's first line: the paths of the given URIs (none when `uris` is optional)."""
    return f"{target} = [{_URI_HELPER}(uri) for uri in {'uris or []' if optional else 'uris'}]"


def _absent(test: cst.BaseExpression) -> Optional[str]:
    """`p` for the tests `p is None` and `not p`."""
    if (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Name)
    ):
        return test.expression.value
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return test.left.value
    return None


def _is_context_getter(value: cst.BaseExpression) -> bool:
    """`get_context()` / `mcp.get_context()`: no arguments, no side effect worth keeping."""
    if not isinstance(value, cst.Call) or value.args:
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name == "get_context"


def _chain_root(value: cst.BaseExpression) -> Optional[str]:
    """`ctx` for `ctx.request_context.session`; None for anything but a plain attribute chain."""
    if not isinstance(value, cst.Attribute):
        return None
    while isinstance(value, cst.Attribute):
        value = value.value
    return value.value if isinstance(value, cst.Name) else None


def _anchor(module: cst.Module, resolver) -> cst.BaseStatement:
    """The statement after which module-level configuration goes: the server's assignment, else
    the last import at the top of the module."""
    last_import = None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                    if resolver.sdk_name(small.value.func) in _SERVER_CLASSES:
                        return stmt
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    last_import = stmt
    if last_import is None:
        raise _CannotApply("no module-level place for the configuration")
    return last_import


def _statement_of(func: cst.FunctionDef, node: cst.CSTNode) -> cst.CSTNode:
    parents = parent_map(func)
    current = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parents.get(id(current))
    return current


def _all_params(params: cst.Parameters) -> list:
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _annotation_head(ann: cst.BaseExpression) -> cst.BaseExpression:
    return ann.value if isinstance(ann, cst.Subscript) else ann


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
