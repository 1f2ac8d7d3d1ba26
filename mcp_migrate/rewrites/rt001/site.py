"""One RT001 site rewritten: the request replaced by the directories, the code that consumed
its result rewritten (consumers), capability guards unwrapped, and what only led to the
request (dead locals, an unused Context parameter) dropped."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from mcp_migrate.core.coordination import MigratedTool, note_migrated_tool
from mcp_migrate.core.fix.edits import AddComment, Fix, Insert, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.fix.layout import line_length
from mcp_migrate.core.sdk import CONTEXT_CLASSES, LIST_ROOTS_RESULT, ROOT, TYPES_MODULE
from mcp_migrate.core.syntax import (
    code_of,
    is_reference,
    iter_nodes,
    keyword,
    module_binding,
    parent_map,
    parse_expr,
    parse_stmt,
    positional,
)
from mcp_migrate.rewrites.names import bound_names, is_store
from mcp_migrate.rewrites.rt001.consumers import ConsumerRewriter
from mcp_migrate.rewrites.rt001.flow import always_exits, tolerates_none, unreachable_after
from mcp_migrate.rewrites.rt001.outcomes import CannotApply, NoRewrite, NotUnderstood, SideChannel, SideChannelSite
from mcp_migrate.rewrites.rt001.signature import (
    NewParam,
    SignatureRefused,
    all_params,
    annotation_head,
    depth_of,
    rebuild,
)
from mcp_migrate.rewrites.rt001.strategies import (
    PARAM_DESCRIPTION,
    URI_DESCRIPTION,
    URI_HELPER,
    config_anchor,
    constant_name,
    is_docstring,
    uri_prologue,
)
from mcp_migrate.rewrites.rt001.tools import is_tool_function, tool_name


class SiteRewrite:
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
            raise SideChannelSite(str(exc)) from None
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
                raise CannotApply(f"the function binds `{self.target}` itself; set `env-var` to another name")
            return
        params = {p.name.value for p in all_params(self.func.params)}
        wanted = {self.target} | ({"uris"} if self.strategy == "resource-uri" else set())
        clash = wanted & bound_names(self.func)
        # A second request in a tool that already gained the parameter reuses it.
        if clash and not (clash <= params and self._already_migrated(params)) and not self._own_prologue():
            name = sorted(clash)[0]
            raise CannotApply(f"the function already uses the name `{name}`; set `parameter` to another name")

    def _check_no_fallback_handler(self) -> None:
        """A request inside `try:` with an `except` branch: that branch is what a 2026 client
        got (the request raises there); removing the request would leave it dead and change
        behaviour without a trace. A human decides what the fallback means now."""
        parents = parent_map(self.func)
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, (cst.Try, cst.TryStar)) and parent.body is node and parent.handlers:
                raise NoRewrite(
                    "the request sits in a `try:` whose `except` branch is the fallback a 2026 client got;"
                    " decide what that fallback means once the directories are passed in"
                )
            node = parent

    def _own_prologue(self) -> bool:
        """resource-uri binds `directories` in its own prologue line on an earlier pass."""
        if self.strategy != "resource-uri" or not isinstance(self.func.body, cst.IndentedBlock):
            return False
        prologues = {uri_prologue(self.target, optional) for optional in (False, True)}
        return any(code_of(stmt).strip() in prologues for stmt in self.func.body.body[:2])

    def _already_migrated(self, names: set) -> bool:
        wanted = "uris" if self.strategy == "resource-uri" else self.target
        return wanted in names and self._param_marker_present()

    def _param_marker_present(self) -> bool:
        for p in all_params(self.func.params):
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
            self.imports += [("pathlib", "Path"), (TYPES_MODULE, ROOT)]
            if self.kind == "result":
                self.imports.append((TYPES_MODULE, LIST_ROOTS_RESULT))
        self.edits.append(Replace(self.value, parse_expr(shaped)))
        self.dropped.append(self.value)
        line = statement_of(self.func, self.value)
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
        self.edits.append(Insert(config_anchor(self.module, self.resolver), (const,)))

    def _tool_parameter(self) -> None:
        names = {p.name.value for p in all_params(self.func.params)}
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
        description = URI_DESCRIPTION if self.strategy == "resource-uri" else PARAM_DESCRIPTION
        field = f'Field(description="{description}")'
        if optional:
            field = f'Field(description="{description[:-1]} (used when `{fallback_for}` is not given).")'
            self._new_param = NewParam(param_name, "list[str] | None", field, "None")
            note_migrated_tool(self.context, MigratedTool(tool_name(self.func), param_name, optional=True))
            return
        self._new_param = NewParam(param_name, "list[str]", field)
        note_migrated_tool(self.context, MigratedTool(tool_name(self.func), param_name))

    def _fallback_for(self) -> Optional[str]:
        """The parameter (with a default) whose absence the roots stood in for: the request sits
        in `if p is None:` / `if not p:`."""
        optional = {p.name.value for p in all_params(self.func.params) if p.default is not None}
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
            raise CannotApply("a one-line function body")
        first = body.body[0]
        anchor = body.body[1] if is_docstring(first) and len(body.body) > 1 else first
        prologue = parse_stmt(uri_prologue(self.target, optional) + "\n")
        self.edits.append(Insert(anchor, (prologue,), before=True))
        if not module_binding(self.module, URI_HELPER) is not None:
            helper = parse_stmt(
                f"def {URI_HELPER}(uri: str) -> str:\n"
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
            self.edits.append(Insert(config_anchor(self.module, self.resolver), (helper,)))

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
            raise CannotApply(str(exc)) from None
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
        for p in all_params(self.func.params):
            if (
                p.annotation is not None
                and self.resolver.sdk_name(annotation_head(p.annotation.annotation)) in CONTEXT_CLASSES
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


def statement_of(func: cst.FunctionDef, node: cst.CSTNode) -> cst.CSTNode:
    parents = parent_map(func)
    current = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parents.get(id(current))
    return current
