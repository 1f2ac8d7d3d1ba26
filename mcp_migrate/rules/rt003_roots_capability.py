"""RT003 roots-capability: a roots capability declared or probed by hand."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.builders import remove_arg, remove_element
from mcp_migrate.core.fix.edits import Fix, RemoveStatement, Replace
from mcp_migrate.core.messages import Message
from mcp_migrate.core.record import replace
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.syntax import enclosing, is_false_or_none, iter_nodes, keyword, literal, name_paths
from mcp_migrate.rewrites.names import sole_local_binding
from mcp_migrate.rules.rt003_screen import (
    _CAPABILITIES_NAME,
    RootsCapabilityScreen,
)
from mcp_migrate.vocabulary.capabilities import capability_mapping, expected_value, roots_capability_shape
from mcp_migrate.vocabulary.wire_names import CAPABILITY_KEYS
from mcp_migrate.vocabulary.words import last_identifier

MSG_DECLARE = Message(
    "declares the roots capability, deprecated by SEP-2577",
    "stop declaring it once the client no longer provides roots (directories travel as tool arguments"
    " or server configuration)",
)
MSG_PROBE = Message(
    "probes the client's roots capability, deprecated by SEP-2577",
    "take the directories as a tool parameter or from server configuration instead of asking the client",
)


class RootsCapabilityDeclared(RootsCapabilityScreen, Rule):
    VALID = [
        Valid('config = {"roots": ["/srv"]}\n', "a roots key outside a capabilities mapping"),
        Valid("from pydantic import RootModel\nclass M(RootModel[int]): pass\n", "pydantic RootModel"),
        Valid("from mcp.types import ClientCapabilities\nc = ClientCapabilities(sampling=None)\n", "no roots"),
        Valid("x.capabilities.roots\n", "attribute shape without an MCP import"),
        Valid(
            "from mcp.types import ClientCapabilities\n\ndef f(caps: ClientCapabilities):\n    caps.roots = None\n",
            "removing the roots capability is the migration, not a finding",
        ),
    ]
    INVALID = [
        Invalid(
            "from mcp.types import ClientCapabilities, RootsCapability\n"
            "caps = ClientCapabilities(roots=RootsCapability())\n",
            "capability declared with the SDK types",
        ),
        Invalid('params = {"capabilities": {"roots": {}}}\n', "raw initialize params"),
        Invalid(
            "import mcp\n\ndef f(ctx):\n    return ctx.session.client_params.capabilities.roots\n",
            "capability probed by reading it",
        ),
        Invalid(
            "from mcp.server.fastmcp import Context\n\ndef f(ctx: Context):\n"
            "    caps = ctx.session.client_params.capabilities\n    return caps.roots is not None\n",
            "the client capabilities read through a local variable",
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        symbol = self.resolver.sdk_name(node.func)
        if symbol == "ClientCapabilities":
            self._capabilities_call(node, fixable=True)
        elif symbol == "RootsCapability" and not self.context.is_claimed(node):
            self.report(node, MSG_DECLARE)
        elif symbol is None and self._own_capabilities(node):
            self._capabilities_call(node, fixable=False)
        elif symbol is None and (self._getattr_probe(node) or self._get_probe(node)):
            self.report(node, MSG_PROBE)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """`"roots" in client_caps` / `"roots" not in caps`: a probe of a capabilities mapping
        (by its name), in MCP code."""
        if literal(node.left) != "roots" or len(node.comparisons) != 1:
            return
        test = node.comparisons[0]
        if isinstance(test.operator, (cst.In, cst.NotIn)) and _capabilities_named(test.comparator):
            if self.context.evidence.mcp:
                self.report(node, MSG_PROBE)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """A project's own MCP types: `class ClientRootsCapability(BaseModel)` defines the roots
        capability; a `*Capabilities` model whose `roots` field defaults to a capability
        declares it for every instance."""
        name = node.name.value
        if name.endswith("RootsCapability") and self._mcp_code():
            self.report(node, MSG_DECLARE)
        elif name.endswith("Capabilities") and self._mcp_code():
            for field in _fields(node):
                if _field_name(field) == "roots" and field.value is not None and not is_false_or_none(field.value):
                    self.report(field, MSG_DECLARE)

    def _capabilities_call(self, node: cst.Call, fixable: bool) -> None:
        """`ClientCapabilities(roots=...)`: one finding for the call and the capability in it."""
        arg = keyword(node, "roots")
        if arg is None or is_false_or_none(arg.value):
            return
        self.context.claim(arg.value)
        table = self._requirement_entry(node)
        if table is not None:  # a named requirement a check reads: the entry goes, as a suggestion
            mapping, element = table
            fix = remove_element(mapping, element) if _only_roots(node) else None
            self.context.report(
                self.CODE,
                arg,
                MSG_PROBE,
                fix=replace(fix, display=True) if fix else None,
                help=REQUIREMENT_HELP,
                removable=False,
            )
        elif self._in_check():  # without `roots=` the check would always pass: no removal
            self.context.report(self.CODE, arg, MSG_PROBE, removable=False)
        else:
            fixable = fixable and not expected_value(self.ancestors)  # what a test asserts on
            self.report(arg, MSG_DECLARE, fix=self._without_arg(node, arg) if fixable else None)

    def _requirement_entry(self, node: cst.Call):
        """(the dict, its entry) where `node` is the value of an entry of a dict display in a
        function that checks capabilities (`declared = {"roots": ClientCapabilities(roots=...),
        ...}` then `check_client_capability(capability)` for each: python-sdk's docs). Without
        `roots=` the entry's check would always pass (the final review of session 52, #16:
        the tool then reported roots for every client), so the entry is what goes, or None."""
        stack = self.ancestors
        if len(stack) < 3 or not isinstance(stack[-2], cst.DictElement) or stack[-2].value is not node:
            return None
        mapping = stack[-3]
        func = enclosing(stack, cst.FunctionDef)
        if not isinstance(mapping, cst.Dict) or func is None:
            return None
        if not any(_capability_check(call) for call in iter_nodes(func) if isinstance(call, cst.Call)):
            return None
        return mapping, stack[-2]

    def _without_arg(self, call: cst.Call, arg: cst.Arg) -> Fix:
        """`roots=` removed, and `roots = RootsCapability(...)` with it when that local only fed
        this argument (left behind it is a dead variable: issue 20 §4)."""
        fix = remove_arg(call, arg, unsafe=True)
        local = sole_local_binding(self.context, arg.value)
        if local is None or not isinstance(local.value, cst.Call):
            return fix
        return Fix((*fix.edits, RemoveStatement(local)), orphans=fix.orphans, unsafe=True)

    def _mcp_code(self) -> bool:
        """The SDK, a module of the project's own MCP implementation (`myapp.mcp.types`), or a
        module that is part of one (its file lives in a package folder named `mcp`)."""
        return self.context.evidence.mcp

    def _own_capabilities(self, node: cst.Call) -> bool:
        """In MCP code, a project's own capability model (`ClientCapabilities(roots=...)` of its
        own MCP implementation), or a stand-in given as `capabilities=` (a test double's
        `SimpleNamespace(roots=...)`)."""
        if keyword(node, "roots") is None:
            return False
        name = last_identifier(node.func) or ""
        if name.endswith("Capabilities") and name != "Capabilities" or name == "ClientCapabilities":
            return self._mcp_code()
        holder = self.parent()
        return (
            isinstance(holder, cst.Arg)
            and holder.keyword is not None
            and holder.keyword.value in CAPABILITY_KEYS
            and self._mcp_code()
        )

    def _getattr_probe(self, node: cst.Call) -> bool:
        """`getattr(caps, "roots", None)` on a capabilities object, in MCP code."""
        if not (isinstance(node.func, cst.Name) and node.func.value == "getattr" and len(node.args) >= 2):
            return False
        if literal(node.args[1].value) != "roots" or self.resolver.lookup("getattr") is not None:
            return False
        return _capabilities_named(node.args[0].value) and self._mcp_code()

    def _get_probe(self, node: cst.Call) -> bool:
        """`caps.get("roots")` on a mapping named like capabilities, in MCP code."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "get" and node.args):
            return False
        if literal(node.args[0].value) != "roots" or not _capabilities_named(func.value):
            return False
        return self.context.evidence.mcp

    def _in_check(self) -> bool:
        """The capabilities are what a check compares with (`check_client_capability(
        ClientCapabilities(roots=...))`), inline or through a local only such checks read
        (`caps = ClientCapabilities(roots=...)`, then `check_client_capability(caps)`)."""
        for anc in reversed(self.ancestors[:-1]):
            if _capability_check(anc):
                return True
        holder = self.ancestors[-2] if len(self.ancestors) >= 2 else None
        if not (isinstance(holder, cst.Assign) and holder.value is self.ancestors[-1] and len(holder.targets) == 1):
            return False
        target = holder.targets[0].target
        func = next((a for a in reversed(self.ancestors) if isinstance(a, cst.FunctionDef)), None)
        if not isinstance(target, cst.Name) or func is None:
            return False
        reads = [path for path in name_paths(func, target.value) if path[-1] is not target]
        return bool(reads) and all(
            len(path) >= 3 and isinstance(path[-2], cst.Arg) and _capability_check(path[-3]) for path in reads
        )

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """`{"capabilities": {"roots": {}}}`, also as one branch of a conditional expression
        (`{"roots": {}} if roots else {}`). A boolean `{"roots": True}` is a status flag and a
        list or a string a list of paths: a capability is an object."""
        if literal(node.key) != "roots" or self.context.is_claimed(node.value) or _not_an_object(node.value):
            return
        stack = self.ancestors
        index = len(stack) - 2
        if index >= 1 and isinstance(stack[index - 1], cst.IfExp):
            index -= 1  # the IfExp stands where the mapping would
        if capability_mapping(self.resolver, stack, index) or roots_capability_shape(node.value):
            self.report(node, MSG_DECLARE, fix=self._without_key(stack[-2], node, stack[index]))

    def _without_key(self, mapping: cst.Dict, element: cst.DictElement, holder) -> Fix | None:
        """The mapping without its roots key. As a branch of `{"roots": {}} if roots else {}`
        both branches become `{}`: the whole conditional is `{}` (its test is a plain name), not
        `{} if roots else {}`. None while a server in the same run still asks for roots (its
        tests declare the capability on purpose: core.coordination)."""
        if expected_value(self.ancestors):
            return None  # what a test asserts on (issue 20 §4)
        if not isinstance(holder, cst.IfExp):
            return remove_element(mapping, element, unsafe=True)
        other = holder.orelse if holder.body is mapping else holder.body
        if (
            len(mapping.elements) == 1
            and isinstance(other, cst.Dict)
            and not other.elements
            and isinstance(holder.test, (cst.Name, cst.Attribute))
        ):
            return Fix((Replace(holder, cst.Dict([])),), unsafe=True)
        return None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "roots":
            return
        owner = node.value
        if isinstance(owner, (cst.Attribute, cst.Name)) and _capabilities_named(owner):
            # `x.capabilities.roots`, or a local bound from a helper's return (`caps.roots`)
            if not self._mcp_code():
                return
        elif self.resolver.sdk_instance(owner) != "ClientCapabilities":
            return
        assign = self.parent(2)  # Attribute <- AssignTarget <- Assign
        if isinstance(self.parent(), cst.AssignTarget) and isinstance(assign, cst.Assign):
            # `caps.roots = ...` declares rather than probes; a RootsCapability(...) value is
            # reported by itself, and `= None` removes the capability.
            value = assign.value
            if is_false_or_none(value) or (
                isinstance(value, cst.Call) and self.resolver.sdk_name(value.func) == "RootsCapability"
            ):
                return
            self.report(node, MSG_DECLARE)
            return
        self.report(node, MSG_PROBE)


def _capabilities_named(expr: cst.BaseExpression) -> bool:
    name = last_identifier(expr)
    return bool(name) and _CAPABILITIES_NAME.search(name) is not None


def _capability_check(node: cst.CSTNode) -> bool:
    """`session.check_client_capability(...)` and the like: a call that tests capabilities."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and "capabilit" in node.func.attr.value


def _boolean(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value in ("True", "False")


def _not_an_object(expr: cst.BaseExpression) -> bool:
    """A value no capability has: a boolean, a list, tuple or set display, a string, a number."""
    return _boolean(expr) or isinstance(
        expr, (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.SetComp, cst.BaseString, cst.Integer, cst.Float)
    )


def _fields(node: cst.ClassDef) -> list:
    """The class body's `name: T = value` and `name = value` statements."""
    out: list = []
    for stmt in getattr(node.body, "body", ()):
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(small for small in stmt.body if isinstance(small, (cst.AnnAssign, cst.Assign)))
    return out


def _field_name(field) -> str:
    target = field.target if isinstance(field, cst.AnnAssign) else field.targets[0].target
    return target.value if isinstance(target, cst.Name) else ""


#: The help of a roots entry in a table of capabilities a check reads.
REQUIREMENT_HELP = (
    "the entry names the roots requirement a capability check reads: without `roots=` the check"
    " would pass for every client, so the entry goes (Roots is deprecated by SEP-2577)"
)


def _only_roots(call: cst.Call) -> bool:
    """The capabilities call says nothing but `roots=`: its entry names the roots requirement."""
    return len(call.args) == 1 and call.args[0].keyword is not None and call.args[0].keyword.value == "roots"
