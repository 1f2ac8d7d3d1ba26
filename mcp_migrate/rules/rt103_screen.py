"""RT103's screens, without LibCST: its scope, and whether any value can come from roots (a
`list_roots` call or a roots type named). The rule (`rt103_roots_as_sandbox`) inherits them."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import holds, named_in_code
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.sdk import ROOT_TYPES, mcp_file


class RootsAsSandboxScreen(Rule):
    """The screens `RootsAsSandbox` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT103"

    #: Every value RT103 follows starts at a `list_roots()` call or an annotation naming a roots type.
    SCREEN = (b"list_roots", b"Root")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """`list_roots`, or a roots type's name spelled whole (core.sdk.ROOT_TYPES: `Root`,
        `ListRootsResult`): `Origins` starts only at a name, an attribute or a string
        annotation's name that is one, never at a longer word (`MCPRootSettings`, `RootModel`)
        nor at prose (`"Root URI must start with file://"` in fast-agent's settings module,
        107 KB, read with `ast` for it)."""
        if holds(data, b"list_roots"):
            return True
        return any(named_in_code(data, name.encode()) for name in ROOT_TYPES)

    @classmethod
    def applies(cls, data: bytes) -> bool:
        return mcp_file(data) or holds(data, b"list_roots")

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A source of roots in the file's syntax: a `list_roots` attribute, or a name or
        attribute that is one of the SDK's roots types (the annotations `Origins` reads, and the
        aliases it makes of them). Without one, no value comes from roots (`Origins`)."""
        for node in syntax.of(ast.Attribute):
            if node.attr == "list_roots" or node.attr in ROOT_TYPES:
                return True
        for node in syntax.of(ast.Name):
            if node.id in ROOT_TYPES:
                return True
        for node in syntax.of(ast.arg):  # a string annotation: "list[Root]"
            annotation = node.annotation
            if annotation is not None and any(
                n.__class__ is ast.Constant and n.value.__class__ is str and any(t in n.value for t in ROOT_TYPES)
                for n in ast.walk(annotation)
            ):
                return True
        return False
