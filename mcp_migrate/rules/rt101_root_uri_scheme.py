"""RT101 root-uri-scheme: a root is built with a URI that is not `file://`.

Where a root's URI is written, and what each library accepts:

* `Root(uri=...)` from an MCP SDK (`mcp.types`, `mcp_types`, fastmcp re-exports): `Root.uri` is a
  pydantic `FileUrl`, so anything but a `file:` URL fails validation at construction;
* mcp-agent / fast-agent `MCPRootSettings(uri=..., server_uri_alias=...)`: a validator rejects
  anything that does not start with `file://`;
* fastmcp `Client(..., roots=[...])`, `client.set_roots([...])` and pydantic-ai's MCP toolsets
  (`roots=`, forwarded to fastmcp): each string becomes `pydantic.FileUrl(s)`, so a bare path
  (`"/home/x"`) is rejected just like `"https://..."`;
* a raw root mapping `{"uri": ...}` inside a roots list (`{"roots": [...]}`, `roots=[...]`):
  the wire format the spec defines, where `uri` MUST be a `file://` URI.

Only values whose scheme can be read are judged: string literals, f-strings and concatenations
that start with text, and `FileUrl("...")`/`AnyUrl("...")` around them. Names are not followed.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.messages import Message
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.sdk import (
    FASTMCP,
    FASTMCP_CLIENTS,
    HOST_FRAMEWORKS,
    PYDANTIC_AI,
    URL_TYPES,
    in_package,
    sdk_symbol,
)
from mcp_migrate.core.syntax import keyword, literal, positional
from mcp_migrate.rules.rt101_screen import (
    RootUriSchemeScreen,
    _judge,
)

MSG_SCHEME = Message(
    "root URI `{value}` uses the `{scheme}` scheme, not `file://`",
    "the spec requires every root's `uri` to be a `file://` URI, and the SDK's `Root.uri` is a `FileUrl`"
    " (pydantic rejects anything else); expose non-file locations as resources or tool parameters instead",
)
MSG_PATH = Message(
    "root `{value}` is a bare path, not a `file://` URI",
    "the spec requires a `file://` URI{lib}; write `Path(p).resolve().as_uri()` (or `file:///...`)",
)
MSG_SETTINGS = Message(
    "root URI `{value}` is not `file://`: `MCPRootSettings` rejects it",
    '`MCPRootSettings` raises "Root URI must start with file://", as the spec requires; write a `file://` URI',
)
_FASTMCP_LIB = " (fastmcp turns each string in `roots=` into a `pydantic.FileUrl`, which rejects it)"


def _leading_text(expr: cst.BaseExpression) -> tuple | None:
    """(text, complete) for the start of a string value we can read, else None."""
    value = literal(expr)
    if value is not None:
        return value, True
    if isinstance(expr, cst.FormattedString) and expr.parts and "b" not in expr.prefix.lower():
        first = expr.parts[0]
        if isinstance(first, cst.FormattedStringText):
            return first.value, False
        return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left = _leading_text(expr.left)
        return (left[0], False) if left else None
    return None


def _agent_settings(q: str | None) -> bool:
    """mcp-agent / fast-agent `MCPRootSettings`."""
    return bool(q) and q.partition(".")[0] in HOST_FRAMEWORKS and q.endswith(".MCPRootSettings")


def classify(expr: cst.BaseExpression) -> tuple | None:
    """("scheme", scheme, shown) or ("path", None, shown) for a URI that is not `file:`; None when
    it is a file URI or cannot be read."""
    if isinstance(expr, cst.Call) and expr.args and isinstance(expr.func, (cst.Name, cst.Attribute)):
        name = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else expr.func.value
        if name in URL_TYPES:
            return classify(expr.args[0].value)
        return None
    lead = _leading_text(expr)
    if lead is None:
        return None
    return _judge(*lead)


class RootUriScheme(RootUriSchemeScreen, Rule):
    VALID = [
        Valid('from mcp.types import Root\nRoot(uri="file:///home/user/repo", name="repo")\n', "a file URI"),
        Valid(
            'from fastmcp import Client\nclient = Client("server.py", roots=["file:///home/user/repo"])\n',
            "fastmcp roots given as file URIs",
        ),
        Valid(
            'from fastmcp.skills import SkillsDirectoryProvider\nSkillsDirectoryProvider(roots=["/home/x/skills"])\n',
            "skill directories, not MCP roots",
        ),
        Valid(
            'class Root:\n    def __init__(self, uri): ...\n\nRoot(uri="https://example.com")\n', "a user's own Root"
        ),
        Valid('links = [{"uri": "https://example.com"}]\n', "a uri mapping that is not in a roots list"),
    ]
    INVALID = [
        Invalid('from mcp.types import Root\nRoot(uri="https://example.com/repo")\n', "an https root"),
        Invalid('result = {"roots": [{"uri": "s3://bucket/data", "name": "data"}]}\n', "a raw roots result"),
        Invalid(
            'from fastmcp import Client\nclient = Client("server.py", roots=["/home/x"])\n', "a bare path for fastmcp"
        ),
        Invalid('import mcp_types\nmcp_types.Root(uri=f"https://{host}/repo")\n', "an f-string with another scheme"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        """Three places write a root's URI: the SDK's `Root(uri=...)`, mcp-agent/fast-agent
        `MCPRootSettings(...)`, and fastmcp/pydantic-ai `roots=[...]` lists."""
        q = self.resolver.qualified(node.func)
        symbol = sdk_symbol(q)
        if symbol == "Root":
            self._sdk_root(node)
        elif _agent_settings(q):
            self._root_settings(node)
        elif self._takes_fastmcp_roots(node, q, symbol):
            self._fastmcp_roots(node)

    def _sdk_root(self, node: cst.Call) -> None:
        arg = keyword(node, "uri")
        if arg is not None:
            self._check(arg.value, MSG_SCHEME, "")

    def _root_settings(self, node: cst.Call) -> None:
        for kw in ("uri", "server_uri_alias"):
            arg = keyword(node, kw)
            bad = classify(arg.value) if arg is not None else None
            if bad is not None:
                self.report(arg.value, MSG_SETTINGS.format(value=bad[2]))

    def _fastmcp_roots(self, node: cst.Call) -> None:
        """Each literal (or f-string, or concatenation) in `roots=[...]` / `set_roots([...])`."""
        arg = keyword(node, "roots")
        if arg is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "set_roots":
            args = positional(node)
            arg = args[0] if args else None
        if arg is None or not isinstance(arg.value, (cst.List, cst.Tuple)):
            return
        for el in arg.value.elements:
            if literal(el.value) is not None or isinstance(el.value, (cst.FormattedString, cst.BinaryOperation)):
                self._check(el.value, MSG_SCHEME, _FASTMCP_LIB)

    def _takes_fastmcp_roots(self, node: cst.Call, q: str | None, symbol: str | None) -> bool:
        if in_package(q, FASTMCP) and symbol in FASTMCP_CLIENTS:
            return True
        if in_package(q, PYDANTIC_AI) and "MCP" in q.rpartition(".")[2]:
            return True
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "set_roots":
            owner = self.resolver.instance_type(node.func.value) or ""
            return in_package(owner, FASTMCP) and owner.endswith("Client")
        return False

    def _check(self, value: cst.BaseExpression, scheme_message: Message, lib: str) -> None:
        bad = classify(value)
        if bad is None:
            return
        kind, scheme, shown = bad
        if kind == "scheme":
            self.report(value, scheme_message.format(value=shown, scheme=scheme))
        else:
            self.report(value, MSG_PATH.format(value=shown, lib=lib))

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if literal(node.key) != "uri":
            return
        stack = self.ancestors
        # DictElement <- Dict (a root) <- Element <- List/Tuple <- DictElement "roots" | Arg roots=
        if len(stack) < 5 or not isinstance(stack[-2], cst.Dict) or not isinstance(stack[-3], cst.Element):
            return
        if not isinstance(stack[-4], (cst.List, cst.Tuple)):
            return
        holder = stack[-5]
        in_roots = (
            isinstance(holder, cst.DictElement) and literal(holder.key) == "roots" and holder.value is stack[-4]
        ) or (isinstance(holder, cst.Arg) and holder.keyword is not None and holder.keyword.value == "roots")
        if in_roots:
            self._check(node.value, MSG_SCHEME, "")
