"""HA002 approval-disabled: the user's approval is switched off for a whole MCP server.

Flagged:

* openai-agents (calls resolved to the `agents` package, e.g. `MCPServerStdio`,
  `MCPServerSse`, `MCPServerStreamableHttp`): `require_approval="never"`, `require_approval=False`,
  or a `{tool_name: "never", ...}` mapping whose every value is `"never"` (tools it does not list
  are not asked about either);
* a hosted MCP tool configuration (`HostedMCPTool(tool_config={...})`, or any mapping with
  `"type": "mcp"` or a `"server_label"`) with `"require_approval": "never"`;
* google-adk `McpToolset(..., require_confirmation=False)` / `McpTool(...)` (resolved to
  `google.adk`), given explicitly.

Not flagged: `"always"`, callables (HA001 judges those), and the per-tool allow-list form
`{"never": {"tool_names": [...]}}`, which is the recommended way to exempt trusted tools.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.sdk import OPENAI_AGENTS, in_package
from mcp_migrate.core.syntax import keyword, literal
from mcp_migrate.rules.ha002_screen import ApprovalDisabledScreen
from mcp_migrate.vocabulary.calls import call_qualified

_CONSENT = "hosts must get the user's explicit consent before invoking a tool"
_SUPPRESS = "or suppress this line with `# noqa: HA002` for a server the team trusts"
MSG_AGENTS = Message(
    "`require_approval={value}` switches off approval for every tool of this MCP server",
    _CONSENT + ", and any server may change its tools; exempt only named tools you trust"
    ' (`{{"never": {{"tool_names": [...]}}}}`), ' + _SUPPRESS,
)
MSG_ADK = Message(
    "`require_confirmation=False` switches off confirmation for every tool of this toolset",
    _CONSENT + "; confirm at least the tools that write (a callable or `True`), " + _SUPPRESS,
)


def _never(expr: cst.BaseExpression) -> str | None:
    """How the value turns approval off for every tool, or None."""
    if literal(expr) == "never":
        return '"never"'
    if isinstance(expr, cst.Name) and expr.value == "False":
        return "False"
    if isinstance(expr, cst.Dict) and expr.elements:
        keys = [literal(e.key) if isinstance(e, cst.DictElement) else None for e in expr.elements]
        if any(k in ("always", "never") for k in keys):
            return None  # the tool-list schema: an allow-list of named tools
        if all(isinstance(e, cst.DictElement) and literal(e.value) == "never" for e in expr.elements):
            return '{...: "never"}'
    return None


class ApprovalDisabled(ApprovalDisabledScreen, Rule):
    VALID = [
        Valid(
            'from agents.mcp import MCPServerStdio\nMCPServerStdio(params={}, require_approval="always")\n',
            "approval kept",
        ),
        Valid(
            "from agents.mcp import MCPServerStdio\n"
            'MCPServerStdio(params={}, require_approval={"never": {"tool_names": ["read_file"]}})\n',
            "an allow-list of named tools",
        ),
        Valid('def f(require_approval="never"):\n    return require_approval\n', "not an MCP server"),
    ]
    INVALID = [
        Invalid(
            'from agents.mcp import MCPServerStdio\nMCPServerStdio(params={}, require_approval="never")\n', "never"
        ),
        Invalid(
            "from google.adk.tools.mcp_tool import McpToolset\nMcpToolset(connection_params=p, require_confirmation=False)\n",
            "adk confirmation off",
        ),
        Invalid(
            'from agents import HostedMCPTool\nHostedMCPTool(tool_config={"type": "mcp", "server_label": "x", '
            '"server_url": "https://x", "require_approval": "never"})\n',
            "hosted MCP tool",
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        q = call_qualified(self.resolver, node) or ""
        if in_package(q, OPENAI_AGENTS):
            arg = keyword(node, "require_approval")
            value = _never(arg.value) if arg is not None else None
            if value:
                self.report(arg, MSG_AGENTS.format(value=value))
        elif q.startswith("google.adk."):
            symbol = q.rpartition(".")[2].lower()
            arg = keyword(node, "require_confirmation")
            if arg is not None and "mcp" in symbol and isinstance(arg.value, cst.Name) and arg.value.value == "False":
                self.report(arg, MSG_ADK)

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if literal(node.key) != "require_approval":
            return
        value = _never(node.value)
        if not value or value == "False":
            return
        stack = self.ancestors
        container = stack[-2] if len(stack) >= 2 else None
        if not isinstance(container, cst.Dict):
            return
        keys = {literal(e.key): e for e in container.elements if isinstance(e, cst.DictElement)}
        hosted = "server_label" in keys or (keys.get("type") is not None and literal(keys["type"].value) == "mcp")
        if not hosted and len(stack) >= 4 and isinstance(stack[-3], cst.Arg) and isinstance(stack[-4], cst.Call):
            hosted = (call_qualified(self.resolver, stack[-4]) or "").endswith("HostedMCPTool")
        if hosted:
            self.report(node, MSG_AGENTS.format(value=value))
