"""RT004's screens, without LibCST: the list_changed tokens, the import followers (a project
method one import away, or a typed receiver's, that sends it) and `sends_in`, each send as the
standard library's `ast` shows it. The rule (`rt004_list_changed_send`) inherits them."""

from __future__ import annotations

import ast

from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.sdk import mentions_mcp
from mcp_migrate.vocabulary.effects import NOTIFIES
from mcp_migrate.vocabulary.helper_screens import module_may_do, runs_by
from mcp_migrate.vocabulary.typed_doers import follows_to_a_doer, typed_module_files
from mcp_migrate.vocabulary.wire_names import (
    LIST_CHANGED,
    LIST_CHANGED_SPELLINGS,
    LIST_CHANGED_TOKENS,
)
from mcp_migrate.vocabulary.wire_screen import method_in_code
from mcp_migrate.vocabulary.wrappers_screen import imported_module_files

_NOTIFICATION = "RootsListChangedNotification"


def sends_in(syntax) -> bool:
    """The syntax screen of every send `visit_Call`, `visit_ClassDef` and the wire strings
    report: `.send_roots_list_changed()`, the notification type called (built, to be sent or
    wrapped) or re-implemented (a class of that name), or the method's string or constant; a
    same-file helper's call site needs one of these in the helper. The type only named (a
    handler table's key, an annotation) is an answer's business (RT005), not a send."""
    if syntax.method_calls("send_roots_list_changed") or syntax.calls_to(_NOTIFICATION):
        return True
    if any(node.name == _NOTIFICATION for node in syntax.of(ast.ClassDef)):
        return True
    return method_in_code(syntax, ListChangedSendScreen.WIRE_STRINGS, LIST_CHANGED)


class ListChangedSendScreen(Rule):
    """The screens `ListChangedSend` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT004"

    WIRE_STRINGS = LIST_CHANGED_SPELLINGS

    SCREEN = LIST_CHANGED_TOKENS

    @classmethod
    def screen_imports(cls, data: bytes, path: str, settings) -> bool:
        """A project function, method or module imported here whose body sends list_changed
        (its effects summary's NOTIFIES, vocabulary/effects.py), whatever its name; in files
        that mention MCP (core.sdk.mentions_mcp), as RT001's: reading the modules a large tree's
        files import cost 1.7 s of 5.4 on the speed benchmark's site-packages."""
        if not mentions_mcp(data):
            return False
        limit, view = settings.max_file_size, view_of(settings)
        return follows_to_a_doer(data, path, view, limit, NOTIFIES)

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A send written here (`sends_in`), or a call that may run a helper of this project
        whose module sends (one call away, across modules)."""
        if sends_in(syntax):
            return True
        limit, tokens, view = settings.max_file_size, cls.SCREEN, view_of(settings)
        runs = runs_by(syntax, annotations=False)  # `_imported`: a call

        def worth(source: str) -> bool:
            return module_may_do(source, limit, tokens, sends_in, syntax.mentions, view, runs)

        return any(map(worth, imported_module_files(syntax, view))) or any(
            map(worth, typed_module_files(syntax.data, syntax.path, view, tokens, worth))
        )
