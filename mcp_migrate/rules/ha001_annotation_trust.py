"""HA001 annotation-trust: a host lets tool annotations decide whether the user is asked.

A *hint read* is `x.readOnlyHint` / `x.read_only_hint` (and the destructive, idempotent and
open-world hints), `m["readOnlyHint"]`, `m.get("readOnlyHint", ...)` or
`getattr(x, "readOnlyHint", ...)`. It is a finding when it feeds an approval decision:

A project's accessor that takes the hint's name as a string (`flag(tool, "readOnlyHint")`) is a
read too.

1. it sits in the callable given to openai-agents `require_approval=` (a call resolved to the
   `agents` package), google-adk `require_confirmation=` (`google.adk`), pydantic-ai
   `toolset.approval_required(...)` / `ApprovalRequiredToolset(approval_required_func=...)`: a
   lambda written there, a function passed there by name, or a function that lambda calls;
2. it sits in a function whose name says it decides approval (`needs_approval`, `auto_approve`,
   `should_confirm`, `requires_confirmation`, `needs_permission(s)`, `skip_prompt`, ...);
3. it is in the test of an `if`/`while`/conditional expression whose branches call a tool
   (`call_tool(...)`, `run_tool`, ...) or ask the user (`input()`, `confirm(...)`, `ask(...)`,
   `request_approval(...)`), directly or through a variable assigned from the hint, or through a
   function returning it that such a test calls;
4. it is in the test of an `if` or conditional expression that returns a verdict (`"allow"`,
   `Verdict.ASK`, `Result(behavior="deny")`): the hint decides whether a call is allowed
   without asking, whatever the function is called.

Each hint a decision reads is a finding of its own (each exempts tools by itself).

One call away (issue 19 §3): a hint read in an accessor (a method, a property, a helper) that
returns it, or returns a label it decides (`return "read_only"`, `"safe" if hint else "ask"`), is
a finding when an approval decision (2.) or an acting test (3.) in the same file reads that
accessor. So is a hint mapped into a policy label (`ToolPolicy(trusted=hint)`,
`{"read_only": hint}`, `self.auto_ok = hint`) when such a decision or test reads that label
(`policy.trusted`, `p["read_only"]`). An approval decision (2.) that reads such an accessor or
label is reported there too (`return not self.is_read_only()`): that is the line to change.

Further (issue 35 §4, the model's hint -> approval decision, `vocabulary.hint_flow`): a read none of these decides is followed through its module
(returns and returned tuples, callers of callers, properties, labels read back in another class)
to a gate it decides; a gate is also an `if` whose branches record or raise a refusal
(`violations.append(...)`, `raise PermissionError`), as an information-flow policy that lets a
tool run in a tainted context.

Reading a hint anywhere else (a badge, sorting, logging) is not a finding, nor is declaring one
(`ToolAnnotations(readOnlyHint=True)`, `annotations={"readOnlyHint": True}`).
"""

from __future__ import annotations

import ast

import libcst as cst

from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.sdk import OPENAI_AGENTS, PYDANTIC_AI, in_package
from mcp_migrate.core.syntax import keyword, literal, positional
from mcp_migrate.core.walk import children
from mcp_migrate.rules.ha001_screen import (
    _PROMPT_WORDS,
    _RUN_WORDS,
    _VERDICT_WORDS,
    HINTS,
    AnnotationTrustScreen,
    _refuses,
    decision_function,
    refusal_raised,
)
from mcp_migrate.vocabulary.calls import call_qualified, returns_constant
from mcp_migrate.vocabulary.hint_flow import Flow
from mcp_migrate.vocabulary.words import last_identifier, words

#: The default each hint takes when the server sent none (the spec's ToolAnnotations defaults).
DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}

ALLOW_LIST = (
    "keep the user's approval and exempt tools only through a host-side allow-list keyed by trusted server "
    'and tool name (e.g. `require_approval={{"never": {{"tool_names": TRUSTED_READONLY}}}}`)'
)
MSG = Message(
    "untrusted hint `{hint}` decides {what}",
    "tool annotations are hints set by the server, untrusted unless the server is, and must not decide"
    " whether the user approves a call; " + ALLOW_LIST,
)
MSG_MISSING = Message(
    "`{hint}` decides {what}; missing counts as safe",
    "annotations are untrusted server hints, and missing ones default to readOnlyHint=false,"
    " destructiveHint=true, openWorldHint=true; " + ALLOW_LIST,
)

WHAT_AGENTS = "openai-agents' `require_approval=`"
WHAT_ADK = "google-adk's `require_confirmation=`"
WHAT_PYDANTIC = "pydantic-ai's `approval_required(...)`"
WHAT_BRANCH = "whether a tool runs or the user is asked"
WHAT_VERDICT = "whether a call is allowed without asking"
WHAT_GATE = "a policy gate that lets a tool run without asking"
MSG_FLOW = Message(
    "untrusted hint `{hint}` reaches a gate via `{label}`",
    "the value made here from the hint is carried (returned, unpacked, stored and read back as"
    " `{label}`) to {what}; tool annotations are hints set by the server, untrusted unless the"
    " server is, and must not decide whether the user approves a call; " + ALLOW_LIST,
)
MSG_DECIDER = Message(
    "`{name}()` decides by untrusted hint `{hint}`, via `{via}`",
    "tool annotations are hints set by the server and must not decide whether the user approves a call; " + ALLOW_LIST,
)


def _acts(call: cst.Call) -> bool:
    name = last_identifier(call.func)
    if not name:
        return False
    ws = set(words(name))
    if "tool" in ws and ws & _RUN_WORDS:
        return True
    return bool(ws & _PROMPT_WORDS)


def _verdict(expr) -> bool:
    """A value an approval decision returns: a literal, a name or member (`"allow"`,
    `Decision.ASK`), or a call given one (`PermissionResult(behavior="deny")`)."""
    if isinstance(expr, cst.Call):
        return any(_verdict(arg.value) for arg in expr.args)
    if isinstance(expr, cst.Dict):  # `{"passed": False, "reason": ...}`
        return any(_verdict(e.key) or _verdict(e.value) for e in expr.elements if isinstance(e, cst.DictElement))
    value = literal(expr)
    name = (
        value
        if isinstance(value, str)
        else last_identifier(expr)
        if isinstance(expr, (cst.Name, cst.Attribute))
        else None
    )
    return bool(set(words(name or "")) & _VERDICT_WORDS)


def _returns_verdict(owner) -> bool:
    """An `if` on a hint that returns a verdict (`if hint: return "allow"`), or a conditional
    expression of verdicts (`"allow" if hint else "ask"`): the hint decides the approval."""
    if isinstance(owner, cst.IfExp):
        return _verdict(owner.body) or _verdict(owner.orelse)
    if not isinstance(owner, cst.If):
        return False
    branches = [owner.body] + ([owner.orelse.body] if isinstance(owner.orelse, cst.Else) else [])
    for branch in branches:
        lines = branch.body if isinstance(branch, cst.IndentedBlock) else [branch]  # or `if x: return y`
        for stmt in lines:
            for small in stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ():
                if isinstance(small, cst.Return) and small.value is not None and _verdict(small.value):
                    return True
    return False


def _raises_refusal(exc) -> bool:
    """`raise PermissionError(...)`, `raise PolicyViolation`: an exception named as a refusal."""
    target = exc.func if isinstance(exc, (cst.Call, ast.Call)) else exc
    name = last_identifier(target) if isinstance(target, cst.BaseExpression) else screen_last_identifier(target)
    return refusal_raised(name)


def gate(owner) -> str | None:
    """What an `if`/`while`/conditional expression decides when its test is hint-derived: its
    branches call a tool or ask the user, return a verdict (at any depth: `if cap is not None:
    try: ... return {"passed": False}`), record or enforce a refusal (`violations.append(...)`,
    `self._block_call(...)`) or raise one (`raise PermissionError`). None: a display, a log.
    One walk of the branches (the engine's syntax children, not LibCST's visitor)."""
    verdict = isinstance(owner, cst.IfExp) and (_verdict(owner.body) or _verdict(owner.orelse))
    refusal = False
    stack = [b for b in _branches(owner) if b is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, cst.Call):
            if _acts(node):
                return WHAT_BRANCH
            func = node.func
            if _refuses(last_identifier(func)) or (
                isinstance(func, cst.Attribute) and _refuses(last_identifier(func.value))
            ):
                refusal = True
        elif isinstance(node, cst.Return) and node.value is not None and not verdict:
            verdict = _verdict(node.value)
        elif isinstance(node, cst.Raise) and node.exc is not None and _raises_refusal(node.exc):
            refusal = True
        stack.extend(children(node))
    return WHAT_VERDICT if verdict else WHAT_GATE if refusal else None


def _branches_act(memo: dict, *nodes) -> bool:
    """Whether a call in one of `nodes` calls a tool or asks the user (`_acts`), the bodies of
    the functions and lambdas defined there aside. Each node's answer is kept in `memo` (id of
    the node -> bool, one module's, the rule's): every `if` of an `elif` chain and of nested
    `if`s asks again of the branches the one around it asked of, and a walk of each anew made
    the rule's time grow with the square of a chain's length (issue 37: a 4,000-line module of
    agent-framework, 7 % of its check)."""
    return any(node is not None and _acts_below(node, memo) for node in nodes)


def _acts_below(root, memo: dict) -> bool:
    """`_branches_act` of one node, its subtree's answers kept in `memo` (an explicit stack:
    no recursion limit on deeply nested code)."""
    known = memo.get(id(root))
    if known is not None:
        return known
    stack: list = [(root, None)]
    while stack:
        node, below = stack.pop()
        if below is None:
            if id(node) in memo:
                continue
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                memo[id(node)] = False
                continue
            below = children(node)
            stack.append((node, below))
            stack.extend((child, None) for child in below if id(child) not in memo)
        else:
            memo[id(node)] = (isinstance(node, cst.Call) and _acts(node)) or any(memo[id(child)] for child in below)
    return memo[id(root)]


class _Names(cst.CSTVisitor):
    """Names (attribute names included), called names and string keys an expression reads."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set = set()
        self.calls: set = set()
        #: name -> the first node that reads it (a call of it, else the attribute or name)
        self.sites: dict = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        self.sites.setdefault(node.value, node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.sites.setdefault(node.attr.value, node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = literal(node)
        if isinstance(value, str) and value.isidentifier():
            self.names.add(value)

    def visit_Call(self, node: cst.Call) -> None:
        name = last_identifier(node.func)
        if name:
            self.calls.add(name)
            self.sites.setdefault(name, node)


class _Read:
    __slots__ = (
        *("node", "hint", "lambdas", "functions", "function", "function_id", "owner", "variable"),
        *("missing", "returned", "label"),
    )
    node: cst.CSTNode
    hint: str
    lambdas: list[int]
    functions: list[str]
    function: cst.FunctionDef | None
    function_id: int
    owner: cst.If | cst.While | cst.IfExp | None
    variable: str | None
    missing: bool
    returned: bool
    label: str | None

    def __init__(self, **kw) -> None:
        for k, v in kw.items():
            setattr(self, k, v)


class AnnotationTrust(AnnotationTrustScreen, Rule):
    VALID = [
        Valid(
            "def badge(tool):\n    return 'read-only' if flag(tool, 'readOnlyHint') else ''\n",
            "an accessor read for display",
        ),
        Valid(
            "from mcp.server.fastmcp import FastMCP\nfrom mcp.types import ToolAnnotations\nmcp = FastMCP('x')\n\n"
            "@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))\ndef read() -> str:\n    return 'x'\n",
            "a server declaring annotations",
        ),
        Valid(
            "def badge(tool):\n    return 'read-only' if tool.annotations.readOnlyHint else ''\n",
            "displaying a badge",
        ),
        Valid(
            "def order(tools):\n    return sorted(tools, key=lambda t: bool(t.annotations and t.annotations.readOnlyHint))\n",
            "sorting",
        ),
        Valid(
            "import logging\n\ndef log_tool(tool):\n    logging.info('destructive=%s', tool.annotations.destructiveHint)\n",
            "logging",
        ),
        Valid(
            "def css(tool):\n    if tool.annotations.destructiveHint:\n        return 'danger'\n    return 'plain'\n",
            "a branch on a hint returning a display label, not a verdict",
        ),
        Valid(
            "def labels(tool):\n    ro = getattr(tool.annotations, 'readOnlyHint', None)\n    return (ro is True, tool.name)\n\n"
            "def tag(tool, props):\n    shown, name = labels(tool)\n    props['shown'] = shown\n\n"
            "def render(props):\n    if props.get('shown'):\n        print('read-only')\n",
            "a hint carried through a returned tuple and a label that only a display reads",
        ),
    ]
    INVALID = [
        Invalid(
            "from agents.mcp import MCPServerStdio\n\nserver = MCPServerStdio(params={}, require_approval=lambda ctx, agent, tool:\n"
            "    not (tool.annotations and tool.annotations.readOnlyHint))\n",
            "openai-agents require_approval callable",
        ),
        Invalid(
            "import pydantic_ai\n\ndef build(toolset):\n    return toolset.approval_required(\n"
            "        lambda ctx, td, args: not (td.metadata or {}).get('annotations', {}).get('readOnlyHint'))\n",
            "pydantic-ai approval_required",
        ),
        Invalid(
            "async def run(session, tool, args):\n    if tool.annotations and tool.annotations.readOnlyHint:\n"
            "        return await session.call_tool(tool.name, args)\n",
            "a branch that calls the tool without asking",
        ),
        Invalid(
            "def needs_approval(tool):\n    return tool.annotations.destructive_hint is not False\n",
            "a function that decides approval",
        ),
        Invalid(
            "def needs_permission(tool):\n    return not flag(tool, 'readOnlyHint')\n",
            "a hint read through an accessor that takes the key as a string, in a permission decision",
        ),
        Invalid(
            "def permission_for(tool):\n    if _hint(tool.annotations, 'readOnlyHint') is True:\n"
            "        return 'allow'\n    return 'ask'\n",
            "a branch on a hint that returns a verdict: allowed without asking",
        ),
        Invalid(
            "def labels(tool):\n    ro = getattr(tool.annotations, 'readOnlyHint', None)\n    return (ro is True, tool.name)\n\n"
            "def tag(tool, props):\n    tainted_ok, name = labels(tool)\n    props['tainted_ok'] = tainted_ok\n\n"
            "def gate(props, violations):\n    if not props.get('tainted_ok', False):\n"
            "        violations.append('untrusted context')\n",
            "a hint carried through a returned tuple and a label to a policy gate in another function",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self.approval_lambdas: dict = {}
        self.approval_names: dict = {}
        self.reads: list = []
        #: (function id, names in the test, functions called in the test) for tests whose branches act.
        self.acting_tests: list = []
        #: id of a node -> whether a call below it acts (`_branches_act`).
        self.acting_below: dict = {}
        #: (function name, function id, names and calls in its body, where each is read) of the
        #: approval decisions.
        self.deciders: list = []
        #: the read of a hint-derived value in a decision one call away -> (decision, value, hint)
        self._decided: dict = {}
        #: every function of the module, for the flow of hints no decision here reads
        self.functions: list = []

    # ----- where approval decisions are made -----------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._approval_site(node)
        self._hint_call(node)

    def _approval_site(self, node: cst.Call) -> None:
        q = call_qualified(self.resolver, node) or ""
        arg = keyword(node, "require_approval")
        if arg is not None and in_package(q, OPENAI_AGENTS):
            self._approval_callable(arg.value, WHAT_AGENTS)
        arg = keyword(node, "require_confirmation")
        if arg is not None and q.startswith("google.adk."):
            self._approval_callable(arg.value, WHAT_ADK)
        if in_package(q, PYDANTIC_AI) and q.endswith("ApprovalRequiredToolset"):
            arg = keyword(node, "approval_required_func")
            if arg is not None:
                self._approval_callable(arg.value, WHAT_PYDANTIC)
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "approval_required"
            and PYDANTIC_AI.encode() in self.context.data
        ):
            args = positional(node) or [a for a in node.args if a.keyword is not None]
            if args:
                self._approval_callable(args[0].value, WHAT_PYDANTIC)

    def _approval_callable(self, value: cst.BaseExpression, what: str) -> None:
        if isinstance(value, cst.Lambda):
            self.approval_lambdas[id(value)] = what
            names = _Names()
            value.body.visit(names)
            for name in names.calls:
                self.approval_names.setdefault(name, what)
        elif isinstance(value, (cst.Name, cst.Attribute)):
            self.approval_names.setdefault(last_identifier(value), what)

    def _test_acts(self, node, *branches) -> None:
        if _branches_act(self.acting_below, *branches):
            names = _Names()
            node.test.visit(names)
            self.acting_tests.append((self._function_id(), names.names, names.calls))

    def visit_If(self, node: cst.If) -> None:
        self._test_acts(node, node.body, node.orelse)

    def visit_While(self, node: cst.While) -> None:
        self._test_acts(node, node.body)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test_acts(node, node.body, node.orelse)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """An approval decision's body: what it reads, for hints one call away."""
        self.functions.append(node)
        if decision_function(node.name.value) or node.name.value in self.approval_names:
            names = _Names()
            node.body.visit(names)
            self.deciders.append((node.name.value, id(node), names.names | names.calls, names.sites))

    # ----- hint reads ------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        hint = HINTS.get(node.attr.value)
        if hint:
            self._read(node, hint, missing=False)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            hint = HINTS.get(literal(node.slice[0].slice.value) or "")
            if hint:
                self._read(node, hint, missing=False)

    def _hint_call(self, node: cst.Call) -> None:
        """`m.get("readOnlyHint", False)`, `getattr(a, "readOnlyHint", None)`, and a project's
        accessor that takes the hint's name as a string (`flag(tool, "readOnlyHint")`)."""
        args = positional(node)
        key_index = next((i for i, a in enumerate(args) if HINTS.get(literal(a.value) or "")), None)
        if key_index is None or self._declares(node):
            return
        hint = HINTS[literal(args[key_index].value) or ""]  # (found by that key above)
        missing = False
        if len(args) > key_index + 1:
            default = args[key_index + 1].value
            if isinstance(default, cst.Name) and default.value in ("True", "False"):
                missing = (default.value == "True") != DEFAULTS[hint]
        self._read(node, hint, missing=missing)

    def _declares(self, node: cst.Call) -> bool:
        """`setattr(a, "readOnlyHint", True)` and `d.setdefault(...)` write a hint, not read it."""
        name = last_identifier(node.func) or ""
        return name.startswith("set") or name in ("update", "pop")

    def _function(self) -> cst.FunctionDef | None:
        for anc in reversed(self.ancestors):
            if isinstance(anc, cst.FunctionDef):
                return anc
        return None

    def _function_id(self) -> int:
        function = self._function()
        return id(function) if function is not None else 0

    def _read(self, node: cst.CSTNode, hint: str, missing: bool) -> None:
        """Record a hint read with what its statement says about it; `leave_Module` decides."""
        stack = self.ancestors
        facts = _statement_facts(stack)
        self.reads.append(
            _Read(
                node=node,
                hint=hint,
                lambdas=[id(a) for a in stack if isinstance(a, cst.Lambda)],
                functions=[a.name.value for a in stack if isinstance(a, cst.FunctionDef)],
                function=self._function(),
                function_id=self._function_id(),
                owner=facts.owner,
                variable=facts.variable,
                missing=missing or facts.missing,
                returned=facts.returned,
                label=facts.label,
            )
        )

    # ----- decide -----------------------------------------------------------------------------
    def leave_Module(self, node: cst.Module) -> None:
        """Each hint a decision reads, once per decision (kagent's `_should_require_confirmation`
        reads three, each an exemption of its own); then each decision that reads a hint-derived
        value one call away, at that read (`return not self.is_read_only()`). The reads left
        open are followed further through the module (`vocabulary.hint_flow`)."""
        reported: set = set()
        open_reads: dict = {}
        for read in self.reads:
            what = self._decision(read)
            if what is None:
                open_reads[id(read.node)] = (read.hint, read.missing)
                continue
            unit, what = what
            if (unit, read.hint) in reported:
                continue
            reported.add((unit, read.hint))
            missing = read.missing or (unit[0] == "function" and _skips_missing(read.function))
            message = MSG_MISSING if missing else MSG
            self.report(read.node, message.format(hint=read.hint, what=what))
        for site, (name, via, hint) in self._decided.items():
            self.report(site, MSG_DECIDER.format(name=name, via=via, hint=hint))
        if open_reads:
            self._follow(open_reads)

    def _follow(self, open_reads: dict) -> None:
        """Hint reads no decision here or one call away reads, followed through returns,
        tuples, labels and other functions of the module to a gate they decide."""
        flow = Flow(self.functions, open_reads, gate, self._decides)
        for decided in flow.run():
            origin = decided.origin
            if origin.site in self._decided:
                continue
            if origin.label is not None:
                message = MSG_FLOW.format(hint=origin.hint, label=origin.label, what=decided.what)
            else:
                message = (MSG_MISSING if origin.missing else MSG).format(hint=origin.hint, what=decided.what)
            self.report(origin.site, message)

    def _decides(self, function: cst.FunctionDef) -> str | None:
        """What an approval decision function decides (None: it is not one)."""
        name = function.name.value
        if name in self.approval_names:
            return self.approval_names[name]
        return f"`{name}()`, which approves calls" if decision_function(name) else None

    def _decision(self, read: _Read):
        for lam in read.lambdas:
            if lam in self.approval_lambdas:
                return ("lambda", lam), self.approval_lambdas[lam]
        for name in reversed(read.functions):
            if name in self.approval_names:
                return ("function", read.function_id), self.approval_names[name]
        if read.functions and decision_function(read.functions[-1]):
            return ("function", read.function_id), f"`{read.functions[-1]}()`, which approves calls"
        if read.owner is not None and _branches_act(self.acting_below, *_branches(read.owner)):
            return ("test", id(read.owner)), WHAT_BRANCH
        if read.owner is not None and _returns_verdict(read.owner):
            return ("test", id(read.owner)), WHAT_VERDICT
        for function_id, names, calls in self.acting_tests:
            if read.variable and function_id == read.function_id and read.variable in names:
                return ("variable", read.function_id, read.variable), WHAT_BRANCH
            if read.returned and read.functions and read.functions[-1] in calls | names:
                return ("function", read.function_id), WHAT_BRANCH
            if read.label and function_id != read.function_id and read.label in names:
                return ("label", id(read.node)), f"whether a tool runs (via `{read.label}`)"
        return self._one_call_away(read)

    def _one_call_away(self, read: _Read):
        """An approval decision that reads the accessor returning the hint (or a label it
        decides), or the label the hint was mapped into (issue 19 §3)."""
        accessor = read.functions[-1] if read.returned and read.functions else None
        found = None
        for name, function_id, refs, sites in self.deciders:
            if function_id == read.function_id:
                continue
            via = accessor if accessor is not None and accessor in refs else None
            if via is None and read.label and read.label in refs:
                via = read.label
            if via is None:
                continue
            site = sites.get(via)
            if site is not None:  # the decision's own line: what is to change
                shown = f"{via}()" if isinstance(site, cst.Call) else via
                self._decided.setdefault(site, (name, shown, read.hint))
            if found is None:
                found = (
                    (("function", read.function_id), f"`{name}()` via `{accessor}`")
                    if via == accessor
                    else (("label", id(read.node)), f"`{name}()` via label `{read.label}`")
                )
        return found


class _Facts:
    """Where a hint read sits in its statement (see `_statement_facts`)."""

    __slots__ = ("owner", "variable", "returned", "missing", "label")

    def __init__(self) -> None:
        self.owner: cst.If | cst.While | cst.IfExp | None = None
        self.variable: str | None = None
        self.label: str | None = None
        self.returned = self.missing = False


def _statement_facts(stack: list) -> _Facts:
    """Walk from the read up to its statement: the `if`/`while`/conditional whose test holds it
    (`owner`), the name it is assigned to (`variable`), whether it is returned, and whether an
    `or` treats a missing annotation as safe (`not tool.annotations or ...`)."""
    facts = _Facts()
    for i in range(len(stack) - 2, -1, -1):
        anc, child = stack[i], stack[i + 1]
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(anc, cst.BooleanOperation) and isinstance(anc.operator, cst.Or) and _missing_is_safe(anc.left):
            facts.missing = True
        if facts.owner is None and isinstance(anc, (cst.If, cst.While, cst.IfExp)) and child is anc.test:
            facts.owner = anc
        if facts.variable is None and isinstance(anc, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                facts.variable = targets[0].value
        if isinstance(anc, cst.Return):
            facts.returned = True
        if facts.label is None:
            facts.label = _label_of(anc, child)
        if isinstance(anc, cst.BaseSmallStatement):
            break
    if facts.owner is not None and not facts.returned and returns_constant(facts.owner):
        facts.returned = True  # `if hint: return "read_only"`: the hint decides what is returned
    return facts


def _label_of(anc, child) -> str | None:
    """The label a hint is mapped into at this step: a keyword argument's name, a literal dict
    key, or an attribute assigned (`self.auto_ok = hint`)."""
    if isinstance(anc, cst.Arg) and anc.keyword is not None and child is anc.value:
        return anc.keyword.value
    if isinstance(anc, cst.DictElement) and child is anc.value:
        key = literal(anc.key)
        return key if isinstance(key, str) and key.isidentifier() else None
    if isinstance(anc, cst.Assign) and child is anc.value and len(anc.targets) == 1:
        target = anc.targets[0].target
        if isinstance(target, cst.Attribute):
            return target.attr.value
    return None


def _branches(owner) -> tuple:
    if isinstance(owner, cst.If):
        return owner.body, owner.orelse
    if isinstance(owner, cst.IfExp):
        return owner.body, owner.orelse
    return (owner.body,)


def _skips_missing(function: cst.FunctionDef | None) -> bool:
    """`if tool.annotations is None: return False` (no approval) in an approval function."""
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return False
    for stmt in function.body.body:
        if not isinstance(stmt, cst.If):
            continue
        absent = _missing_is_safe(stmt.test)
        body = stmt.body.body
        first = body[0] if body else None
        small = first.body[0] if isinstance(first, cst.SimpleStatementLine) and first.body else first
        if (
            absent
            and isinstance(small, cst.Return)
            and isinstance(small.value, cst.Name)
            and small.value.value == "False"
        ):
            return True
    return False


def _missing_is_safe(expr: cst.BaseExpression) -> bool:
    """`not tool.annotations` / `tool.annotations is None` on the left of an `or`."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return last_identifier(expr.expression) == "annotations"
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        target = expr.comparisons[0]
        return (
            isinstance(target.operator, cst.Is)
            and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"
            and last_identifier(expr.left) == "annotations"
        )
    return False
