"""One RT001 site rewritten: the request replaced by the directories, the code that consumed
its result rewritten (consumers), capability guards unwrapped, and what only led to the
request (dead locals, an unused Context parameter) dropped."""

from __future__ import annotations

from functools import cached_property, partial

import libcst as cst

from mcp_migrate.core.coordination import MigratedTool, note_migrated_tool
from mcp_migrate.core.fix.edits import AddComment, Edit, Fix, RemoveStatement, Replace, Unwrap
from mcp_migrate.core.fix.layout import line_length
from mcp_migrate.core.sdk import CONTEXT_CLASSES
from mcp_migrate.core.syntax import (
    all_params,
    attribute_root,
    is_reference,
    iter_nodes,
    parent_map,
    statement_of,
)
from mcp_migrate.rewrites.names import is_store
from mcp_migrate.rewrites.rt001.additive import added_in_place, beside_another_source
from mcp_migrate.rewrites.rt001.consumers import ConsumerRewriter
from mcp_migrate.rewrites.rt001.decoders import decoder_kind
from mcp_migrate.rewrites.rt001.flow import always_exits, unreachable_after
from mcp_migrate.rewrites.rt001.outcomes import CannotApply, NoRewrite, NotUnderstood, SideChannel, SideChannelSite
from mcp_migrate.rewrites.rt001.probes import assigned_once, probes_roots, without_roots_refusal
from mcp_migrate.rewrites.rt001.reuse import (
    Reused,
    attempted_after_explicit,
    fills_from_the_roots,
    missing_test,
    only_passes,
)
from mcp_migrate.rewrites.rt001.signature import (
    NewParam,
    SignatureRefused,
    annotation_head,
    depth_of,
    rebuild,
)
from mcp_migrate.rewrites.rt001.strategies import Strategy
from mcp_migrate.rewrites.rt001.tools import is_tool_function, tool_name

#: Context managers that only bound the time of what they hold.
_TIME_LIMITS = frozenset(
    {
        "anyio.fail_after",
        "anyio.move_on_after",
        "asyncio.timeout",
        "asyncio.timeout_at",
        "async_timeout.timeout",
        "trio.fail_after",
        "trio.move_on_after",
    }
)
#: What a `try:` around the request means (the reason of its marker or suggestion).
FALLBACK_REASON = "the request sits in a `try:` whose `except` branch is the fallback a 2026 client got"
#: Why a rewrite inside such a `try:` is only suggested.
FALLBACK_KEPT = (
    f"{FALLBACK_REASON}; rewritten inside it, the `try:` now runs with no directories where the"
    " `except` ran before: check it does what the `except` did when nothing is configured"
)


class SiteRewrite:
    """The rewrite of one request inside one function, with one strategy (strategies.py says
    where the directories come from; this class rewrites everything around the request).
    `edits`, `imports` and `dropped` collect the fix; `new_param` is the parameter a strategy
    gives the tool, if any."""

    def __init__(self, context, func, value, kind, strategy: Strategy):
        self.context = context
        self.settings = context.settings
        self.resolver = context.resolver
        self.module = context.module
        self.func = func
        self.value = value
        self.kind = kind
        self.strategy = strategy
        self.imports: list[tuple[str, str | None]] = []
        self.edits: list[Edit] = []
        self.dropped: list[cst.CSTNode] = []
        self.new_param: NewParam | None = None
        #: Why the fix is only a suggestion (empty: applied with `--unsafe-fixes`).
        self.suggested_because = ""

    @cached_property
    def parents(self) -> dict:
        """id(node) -> parent over the function: every walk up from the request reads it."""
        return parent_map(self.func)

    @property
    def target(self) -> str:
        """The local name the rewritten code reads the directories from."""
        return self.strategy.target

    def build(self) -> Fix:
        filled = self._fills_a_parameter()
        if filled is not None:
            # The directories already have a way in: the parameter the roots only filled in.
            return self._without(filled)
        attempt = attempted_after_explicit(self.func, self.value, self.parents, self._leading_ids)
        if attempt is not None:
            # What a 2026-07-28 client got: the request raised and the `except` passed, after the
            # function's own argument was tried first; the attempt goes.
            return self._without(*attempt)
        added = added_in_place(self.func, self.value, self.parents)
        if added is not None:
            # The roots were only added to a list from another source: they go, it stays.
            return self._without(*added)
        beside = beside_another_source(self.func, self.context.ancestors)
        if beside is not None:
            # The helper only added its roots to another source: it goes, and that source stays.
            self.edits.extend(beside)
            self.dropped.append(self.func)
            return Fix(tuple(self.edits), unsafe=True, imports=())
        if self.strategy.NAME == "tool-parameter":
            reused = self._fills_from_the_roots()
            if reused is not None:
                return self._reuse(*reused)
        self.strategy.check_names(self)
        fallback = self._fallback_try()
        if fallback is not None and not self._fallback_is_exact(fallback):
            # Rewritten inside the `try:`, but with nothing configured the code there now runs
            # with no directories instead of the `except` branch: a reviewer decides.
            self.suggested_because = FALLBACK_KEPT
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
            decoder = partial(decoder_kind, self.context)
            plan = ConsumerRewriter(self.func, self.value, self.kind, self.target, self.resolver, decoder).run()
            self.edits.extend(plan.edits)
            self.dropped.extend(plan.dropped)
            if plan.needs_path:
                self.imports.append(("pathlib", "Path"))
            if plan.suggested:
                self.suggested_because = "; ".join(r for r in (self.suggested_because, plan.suggested) if r)
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
        if fallback is not None and not self.suggested_because:
            self._fallback_when_unconfigured(fallback)
        self.strategy.provide(self)
        self._drop_dead_locals()
        self._drop_unused_context()
        self._drop_emptied_time_limits()
        return Fix(
            tuple(self.edits),
            unsafe=True,
            display=bool(self.suggested_because),
            imports=tuple(self.imports),
        )

    def _drop_emptied_time_limits(self) -> None:
        """`with anyio.fail_after(t): result = await session.list_roots()`: the time limit only
        bounded the request, so it goes with it instead of staying around `pass`. Only a time
        limit (its qualified name), binding nothing: another context manager may do something of
        its own (`async with connect(cfg):` still connects)."""
        for i, edit in enumerate(self.edits):
            if not isinstance(edit, RemoveStatement):
                continue
            line = self.parents.get(id(edit.node))
            block = self.parents.get(id(line))
            scope = self.parents.get(id(block))
            if not (
                isinstance(line, cst.SimpleStatementLine)
                and len(line.body) == 1
                and isinstance(block, cst.IndentedBlock)
                and len(block.body) == 1
                and isinstance(scope, cst.With)
            ):
                continue
            if all(
                item.asname is None
                and isinstance(item.item, cst.Call)
                and self.resolver.qualified(item.item.func) in _TIME_LIMITS
                for item in scope.items
            ):
                self.edits[i] = RemoveStatement(scope)
                self.dropped.append(scope)

    # --- a `try:` with a fallback ----------------------------------------------------------------
    def _fallback_try(self) -> cst.Try | None:
        """The innermost `try:` with `except` branches whose body holds the request. Its
        `except` is what a 2026 client got (the request raises there): removing the request
        must not leave it dead without a trace (issue 12, defect 5; issue 36 §2)."""
        parents = self.parents
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, (cst.Try, cst.TryStar)) and parent.body is node and parent.handlers:
                if isinstance(parent, cst.TryStar):
                    raise NoRewrite(
                        f"{FALLBACK_REASON}; decide what that fallback means once the directories are passed in"
                    )
                return parent
            node = parent
        return None

    def _fallback_is_exact(self, block: cst.Try) -> bool:
        """The `try:` guards the request alone and its one `except` always leaves the function
        without reading the exception: then `if not <directories>: <that branch>` above the
        request is exactly the old behaviour with nothing configured, and the rest runs with
        the directories. Anything else (more code under the `try:`, an `except` that goes on,
        an `else:` or `finally:`) is rewritten inside the `try:` and only suggested."""
        if block.orelse is not None or block.finalbody is not None or len(block.handlers) != 1:
            return False
        body = block.body.body if isinstance(block.body, cst.IndentedBlock) else ()
        if len(body) != 1 or statement_of(self.value, self.parents) is not body[0]:
            return False
        handler = block.handlers[0]
        if not isinstance(handler.body, cst.IndentedBlock) or not always_exits(handler.body):
            return False
        name = handler.name.name if handler.name is not None else None
        return not (
            isinstance(name, cst.Name)
            and any(isinstance(n, cst.Name) and n.value == name.value for n in iter_nodes(handler.body))
        )

    def _fills_a_parameter(self) -> cst.If | cst.Try | None:
        """The statement to remove where the roots only fill in a parameter the caller left
        out (issue 36 §1: reuse the server's own directory input, never a second one):
        `if repo_path is None:` around a `try:` that asks and assigns `repo_path`, whose
        `except` only passes (or logs). A 2026 client's request raises there and the `except`
        runs: the `try:` does nothing a caller cannot do by passing `repo_path`, so it goes
        (the `if` too when it holds nothing else). Not where a name the `try:` binds is read
        after it, nor where the `except` does more."""
        parents = self.parents
        params = {p.name.value for p in all_params(self.func.params)}
        block, guard, node = None, None, self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, cst.Try) and parent.body is node and block is None:
                block = parent
            if block is not None and isinstance(parent, cst.If) and parent.body is node:
                name = missing_test(parent.test)
                if name in params:
                    guard = parent
                break
            node = parent
        if block is None or guard is None or block.orelse is not None or block.finalbody is not None:
            return None
        if not all(only_passes(handler) for handler in block.handlers):
            return None
        name = missing_test(guard.test)
        bound = {n.value for n in iter_nodes(block.body) if isinstance(n, cst.Name) and is_store(n, parents.get(id(n)))}
        if name not in bound:
            return None
        inside = {id(n) for n in iter_nodes(block)}
        for n in iter_nodes(self.func.body):
            if (
                isinstance(n, cst.Name)
                and n.value in bound - {name}
                and id(n) not in inside
                and is_reference(n, parents.get(id(n)))
            ):
                return None
        alone = isinstance(guard.body, cst.IndentedBlock) and len(guard.body.body) == 1 and guard.body.body[0] is block
        return guard if alone and guard.orelse is None else block

    def _without(self, *statements: cst.BaseStatement) -> Fix:
        """The fix that removes `statements`, with the locals and the Context only they used."""
        for statement in statements:
            self.edits.append(RemoveStatement(statement))
            self.dropped.append(statement)
        self._drop_dead_locals()
        self._drop_unused_context()
        return Fix(tuple(self.edits), unsafe=True, imports=())

    def _fills_from_the_roots(self) -> Reused | None:
        """Where the roots only fill in a parameter the caller left out and the function has
        its own answer without them (reuse.fills_from_the_roots)."""
        return fills_from_the_roots(self.func, self.value, self.parents, self._leading_ids)

    @cached_property
    def _leading_ids(self) -> set:
        """Identities of the assignments that only lead to the request (`ctx = get_context()`)."""
        ctx = self._context_param()
        return {id(a) for a in self._context_locals({ctx.name.value} if ctx is not None else set()).values()}

    def _reuse(self, guard: cst.If, param: str, kept: cst.IndentedBlock) -> Fix:
        """The guard with only its no-roots branch; the locals that led to the request go with
        it, and clients in the run pass `param` (one directory: MigratedTool.single)."""
        self.edits.append(Replace(guard.body, kept))
        self.dropped.append(guard.body)
        self._drop_dead_locals(outside=guard.body)
        self._drop_unused_context()
        if is_tool_function(self.func, self.context):
            note_migrated_tool(self.context, MigratedTool(tool_name(self.func), param, optional=True, single=True))
        return Fix(tuple(self.edits), unsafe=True, imports=())

    def _fallback_when_unconfigured(self, block: cst.Try) -> None:
        """`try: result = <request>` / `except E: <fallback>` becomes `if not <directories>:
        <fallback>` followed by the (rewritten) request statement."""
        handler = block.handlers[0]
        test = cst.UnaryOperation(operator=cst.Not(), expression=cst.Name(self.target))
        branch = cst.If(test=test, body=handler.body, leading_lines=handler.leading_lines)
        self.edits.append(Unwrap(block, "body", first=(branch,)))

    def _guard(self) -> cst.If | None:
        """An `if` whose test only probes the roots capability and whose body holds the request."""
        parents = self.parents
        node = self.value
        while node is not None and node is not self.func:
            parent = parents.get(id(node))
            if isinstance(parent, cst.If) and parent.body is node and probes_roots(parent.test, self.resolver):
                return parent
            node = parent
        return None

    def _drop_negative_guards(self) -> None:
        """`if not <roots capability>: return ...` (or `... is None`): a 2026 client declares no
        roots capability, so the guard would always leave early and the directories would never
        be used. It goes; where the refusal is one condition of an `or`, only that condition."""
        for node in iter_nodes(self.func.body):
            if not (isinstance(node, cst.If) and node.orelse is None and always_exits(node.body)):
                continue
            rest = without_roots_refusal(node.test, self.resolver, self._assigned_once)
            if rest is True:
                self.edits.append(RemoveStatement(node))
                self.dropped.append(node)
            elif rest is not None:
                self.edits.append(Replace(node.test, rest))

    @cached_property
    def _assigned_once(self) -> dict:
        """The function's locals bound once by `name = value` (probes.assigned_once), walked
        once per site: the guards, the dead locals and the leading statements all read it."""
        return assigned_once(self.func, self.parents)

    def _drop_unreachable_after(self, guard: cst.If) -> None:
        """The old fallback after an unwrapped guard whose body always returns."""
        edits, gone = unreachable_after(self.func, guard)
        self.edits.extend(edits)
        self.dropped.extend(gone)

    # --- fallbacks -------------------------------------------------------------------------------
    def _fallback(self, why: str) -> None:
        """A use of the roots result no rewrite covers: no value of the same shape is rebuilt
        from the directories (`ListRootsResult(roots=[Root(...)...])`: made-up `Root`s that the
        code reads paths back from, and a provider our own RT002 then reports); a marker says
        where the directories must go, and the request stays."""
        raise NoRewrite(f"{why}; give that code the directories by hand")

    # --- the ctx parameter -----------------------------------------------------------------------
    def _drop_unused_context(self) -> None:
        """The tool's new signature: without a Context nothing uses any more, with the new
        parameter (see signature.rebuild for where it goes)."""
        new_param = self.new_param
        ctx = self._context_param()
        drop = ctx if ctx is not None and not self._still_uses(ctx.name.value) else None
        if new_param is None and drop is None:
            return
        depth = depth_of(self.context.ancestors, self.func)
        width = line_length(self.context.path, self.context.settings.view)
        try:
            edit = rebuild(self.func, drop, new_param, depth, self.module.default_indent, width)
        except SignatureRefused as exc:
            raise CannotApply(str(exc)) from None
        self.edits.append(edit)

    def _drop_dead_locals(self, outside: cst.CSTNode | None = None) -> None:
        """Locals that only led to the request (`context = mcp.get_context()`, `session =
        ctx.session`) and that nothing reads any more: left behind they are new unused
        variables. Repeated so a chain (`ctx` -> `session`) goes as a whole. Those inside
        `outside` (a block the fix replaces) go with it already."""
        ctx = self._context_param()
        sources = {ctx.name.value} if ctx is not None else set()
        candidates = self._context_locals(sources)
        if outside is not None:
            within = {id(n) for n in iter_nodes(outside)}
            candidates = {name: a for name, a in candidates.items() if id(a) not in within}
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
        found: dict = {}
        for name, node in self._assigned_once.items():
            if _is_context_getter(node.value) or attribute_root(node.value) in sources | set(found):
                found[name] = node
        return found

    def _still_reads(self, name: str, assign: cst.Assign) -> bool:
        dropped: set[int] = set()
        for node in self.dropped:
            dropped.update(id(n) for n in iter_nodes(node))
        own = assign.targets[0].target
        parents = parent_map(self.func.body)
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and node.value == name and node is not own and id(node) not in dropped:
                if is_reference(node, parents.get(id(node))):
                    return True
        return False

    def _context_param(self) -> cst.Param | None:
        for p in all_params(self.func.params):
            if (
                p.annotation is not None
                and self.resolver.sdk_name(annotation_head(p.annotation.annotation)) in CONTEXT_CLASSES
            ):
                if is_tool_function(self.func, self.context):
                    return p
        return None

    def _still_uses(self, name: str) -> bool:
        dropped: set[int] = set()
        for node in self.dropped:
            dropped.update(id(n) for n in iter_nodes(node))
        parents = parent_map(self.func.body)
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and node.value == name and id(node) not in dropped:
                if is_reference(node, parents.get(id(node))):
                    return True
        return False


def _is_context_getter(value: cst.BaseExpression) -> bool:
    """`get_context()` / `mcp.get_context()`: no arguments, no side effect worth keeping."""
    if not isinstance(value, cst.Call) or value.args:
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name == "get_context"
