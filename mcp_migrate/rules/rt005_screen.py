"""RT005's screens, without LibCST: the list_changed tokens, and a handler's registration or the
method's string or constant on the standard library's `ast`. The rule
(`rt005_list_changed_handler`) inherits them."""

from __future__ import annotations

from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import none_or_false
from mcp_migrate.vocabulary.wire_names import (
    LIST_CHANGED,
    LIST_CHANGED_SPELLINGS,
    LIST_CHANGED_TOKENS,
)
from mcp_migrate.vocabulary.wire_screen import method_in_code


class ListChangedHandlerScreen(Rule):
    """The screens `ListChangedHandler` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT005"

    WIRE_STRINGS = LIST_CHANGED_SPELLINGS

    SCREEN = LIST_CHANGED_TOKENS

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """`on_roots_list_changed=` (not None/False), the notification type named (a handler
        table key, a registration, isinstance, match, a handler's signature), or the method's
        string or constant; a handler def reported by its registration needs one of these."""
        if any(not none_or_false(value) for _, value in syntax.keyword_calls("on_roots_list_changed")):
            return True
        if syntax.mentions("RootsListChangedNotification"):
            return True
        return method_in_code(syntax, cls.WIRE_STRINGS, LIST_CHANGED)
