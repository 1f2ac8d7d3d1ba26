"""A tool's new signature: one parameter added (and an unused Context dropped) in the layout
the function already has."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import ReplaceSignature
from mcp_migrate.core.record import record


def annotation_head(ann: cst.BaseExpression) -> cst.BaseExpression:
    return ann.value if isinstance(ann, cst.Subscript) else ann


class SignatureRefused(Exception):
    """The signature cannot be rebuilt without losing something (a comment inside it)."""


@record(frozen=True)
class NewParam:
    """`name: Annotated[<inner>, <field>]`, shown on one line or split like black splits it."""

    name: str
    inner: str
    field: str
    #: The default's source (`None`), or "" for a required parameter.
    default: str = ""

    def one_line(self) -> str:
        return f"{self.name}: Annotated[{self.inner}, {self.field}]{self._default()}"

    def split(self, indent: str, room: int = 0) -> str:
        """Split like black; `room`: the columns the field's line may take after its step (0: no
        limit). A `Field(description="...")` longer than that is split too, its text into two
        implicitly joined strings where it has a parenthesised part (no new E501, issue 20 §3)."""
        step = indent + "    "
        field = self.field
        if room and len(step) + len(field) + 1 > room:
            field = _split_field(field, step)
        return f"{self.name}: Annotated[\n{step}{self.inner},\n{step}{field},\n{indent}]{self._default()}"

    def _default(self) -> str:
        return f" = {self.default}" if self.default else ""


def _split_field(field: str, step: str) -> str:
    """`Field(description="A (b).")` over three or four lines, as black would leave it."""
    head, sep, text = field.partition('description="')
    if head != "Field(" or not sep or not text.endswith('")'):
        return field
    text = text[: -len('")')]
    inner = step + "    "
    cut = text.find(" (")
    if cut > 0:
        body = f'description="{text[:cut]}"\n{inner}"{text[cut:]}"'
    else:
        body = f'description="{text}"'
    return f"Field(\n{inner}{body},\n{step})"


def rebuild(
    func: cst.FunctionDef, drop: cst.Param | None, add: NewParam | None, depth: int, indent_unit: str, width: int
) -> ReplaceSignature:
    """The edit that gives `func` its new parameter list (`depth`: blocks enclosing the def)."""
    params = func.params
    if any(isinstance(n, cst.Comment) for n in _nodes(params)) or _has_comment(func.whitespace_before_params):
        raise SignatureRefused("the signature holds comments")
    posonly = [_text(p) for p in params.posonly_params if p is not drop]
    plain: list[str | NewParam] = [_text(p) for p in params.params if p is not drop]
    kwonly: list[str | NewParam] = [_text(p) for p in params.kwonly_params if p is not drop]
    star = params.star_arg
    starred = _text(star, "star_arg") if isinstance(star, cst.Param) else None
    if add is not None:
        defaults = any(p.default is not None for p in [*params.posonly_params, *params.params] if p is not drop)
        keyword_only = not isinstance(star, cst.MaybeSentinel) or (defaults and not add.default)
        (kwonly if keyword_only else plain).append(add)
    items: list[str | NewParam] = [*posonly, *(["/"] if posonly else []), *plain]
    if starred is not None:
        items.append(starred)
    elif kwonly:
        items.append("*")
    items += kwonly
    if isinstance(params.star_kwarg, cst.Param):
        items.append(_text(params.star_kwarg, "star_kwarg"))
    outer = indent_unit * depth
    head = f"{outer}{'async ' if func.asynchronous else ''}def {func.name.value}("
    tail = ")" + (_returns(func) or "") + ":"
    flat = ", ".join(i.one_line() if isinstance(i, NewParam) else i for i in items)
    was_split = "\n" in cst.Module([]).code_for_node(params) or isinstance(
        func.whitespace_before_params, cst.ParenthesizedWhitespace
    )
    if not was_split and len(head) + len(flat) + len(tail) <= width:
        return _edit(func, flat)
    inner = outer + indent_unit
    lines = []
    for item in items:
        if isinstance(item, NewParam):  # existing parameters keep their own line breaks
            short = item.one_line()
            item = short if len(inner) + len(short) + 1 <= width else item.split("    ", width - len(inner))
        lines.append("    " + item + ",")
    return _edit(func, "\n" + "\n".join(lines) + "\n")


def _edit(func: cst.FunctionDef, text: str) -> ReplaceSignature:
    parsed = cst.parse_statement(f"def f({text}): pass\n")
    assert isinstance(parsed, cst.FunctionDef)  # parsed from a `def`
    return ReplaceSignature(func, parsed.params, parsed.whitespace_before_params)


def _text(param: cst.Param, slot: str = "params") -> str:
    """A parameter's own text, without its comma (rendered inside a Parameters of its slot:
    a default needs its parent to render)."""
    clean = param.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=cst.SimpleWhitespace(""))
    if slot == "params":
        holder = cst.Parameters(params=[clean])
    elif slot == "star_arg":
        holder = cst.Parameters(star_arg=clean)
    else:
        holder = cst.Parameters(star_kwarg=clean)
    return cst.Module([]).code_for_node(holder).strip()


def _returns(func: cst.FunctionDef) -> str:
    if func.returns is None:
        return ""
    return " -> " + cst.Module([]).code_for_node(func.returns.annotation)


def _nodes(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _has_comment(ws) -> bool:
    return any(isinstance(n, cst.Comment) for n in _nodes(ws)) if isinstance(ws, cst.CSTNode) else False


def depth_of(ancestors: list, func: cst.FunctionDef) -> int:
    """How many indented blocks enclose `func` (its indentation level)."""
    index = next(i for i, node in enumerate(ancestors) if node is func)
    return sum(isinstance(node, cst.IndentedBlock) for node in ancestors[:index])
