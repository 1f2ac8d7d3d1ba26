"""RT003 roots-capability: a roots capability declared or probed by hand."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.checks.base import Invalid, Rule, Valid
from mcp_migrate.checks.shapes import capability_mapping
from mcp_migrate.core.fixes import remove_arg, remove_element
from mcp_migrate.core.syntax import is_false_or_none, keyword, literal

MSG_DECLARE = (
    "declares the roots capability; Roots is deprecated by SEP-2577: stop declaring it once the "
    "client no longer provides roots (directories travel as tool arguments or server configuration)"
)
MSG_PROBE = (
    "probes the client's roots capability; Roots is deprecated by SEP-2577: take the directories as a "
    "tool parameter or from server configuration instead of asking the client"
)


class RootsCapabilityDeclared(Rule):
    CODE = "RT003"
    SCREEN = (b"ClientCapabilities", b"RootsCapability")
    #: `roots=`, a `"roots"` key or `.roots`: every finding names roots.
    GATE = (b"oots",)
    #: A `roots` key or attribute counts only beside a capabilities word (sympy is full of roots).
    KEYS = (b'"roots"', b"'roots'", b".roots")
    #: A capabilities mapping is keyed or named `capabilities` (raw initialize params, the
    #: `_meta` key, `capabilities=`), or lives in a file that imports an MCP SDK.
    CAPABILITY_WORDS = (b"apabilities", b"mcp")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        if any(token in data for token in cls.SCREEN):
            return True
        return any(t in data for t in cls.CAPABILITY_WORDS) and any(t in data for t in cls.KEYS)

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
            arg = keyword(node, "roots")
            if arg is not None and not is_false_or_none(arg.value):
                self.context.claim(arg.value)
                if self._in_check():
                    self.report(arg, MSG_PROBE)
                else:
                    self.report(arg, MSG_DECLARE, fix=remove_arg(node, arg, unsafe=True))
        elif symbol == "RootsCapability" and not self.context.is_claimed(node):
            self.report(node, MSG_DECLARE)

    def _in_check(self) -> bool:
        for anc in reversed(self.ancestors[:-1]):
            if isinstance(anc, cst.Call) and isinstance(anc.func, cst.Attribute) and "capabilit" in anc.func.attr.value:
                return True
        return False

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if literal(node.key) != "roots" or self.context.is_claimed(node.value):
            return
        if capability_mapping(self.resolver, self.ancestors, len(self.ancestors) - 2):
            self.report(node, MSG_DECLARE, fix=remove_element(self.ancestors[-2], node, unsafe=True))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "roots":
            return
        owner = node.value
        if isinstance(owner, cst.Attribute) and owner.attr.value in ("capabilities", "client_capabilities"):
            if not self.resolver.imports_sdk:
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
