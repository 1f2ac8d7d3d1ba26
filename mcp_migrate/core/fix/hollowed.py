"""A removal that would leave a library's public method with nothing to do: the method is
deprecated instead (core.fix.suggested.deprecation). Session 47's first look at unseen
repositories: fastmcp's public `Client.send_roots_list_changed()`, whose only statement is the
send, became a silent no-op, "an undocumented behaviour break of a public API". A warning tells
the method's callers; a no-op breaks them without a word. Only a method of a public class: a module-level function of an
application emptied so keeps working for its callers, and its removal stays the fix."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.edits import AddComment, RemoveStatement
from mcp_migrate.core.syntax import ancestry, code_of, is_docstring


def deprecation_instead(fix, parents: dict, deprecate) -> tuple | None:
    """(method, its deprecation or None where it already warns) for the public method a rule's
    own removal (`fix`: statements removed and review comments, nothing else) would leave with
    nothing to do; None where the method keeps work. `deprecate`: core.fix.suggested.deprecation
    (passed in: that module imports this one)."""
    if not all(isinstance(edit, (RemoveStatement, AddComment)) for edit in fix.edits):
        return None
    for edit in (e for e in fix.edits if isinstance(e, RemoveStatement)):
        method = hollowed_method(ancestry(edit.node, parents), edit.node)
        if method is not None:
            return method, deprecate(method)
    return None


def library_method(chain, function: cst.FunctionDef) -> bool:
    """`function` is a public method of a public class, nested in no function or class: a
    library's API others call on its objects (`Client.send_roots_list_changed()`,
    `Context.list_roots()`). `chain`: the nodes from the module down to `function` (an ancestry
    or the walk's ancestors)."""
    at = next((i for i, node in enumerate(chain) if node is function), 0)
    owner = chain[at - 2] if at >= 2 else None  # ClassDef > IndentedBlock > def
    if not isinstance(owner, cst.ClassDef) or owner.name.value.startswith("_"):
        return False
    if any(isinstance(n, (cst.FunctionDef, cst.ClassDef)) for n in chain[: at - 2]):
        return False
    return not function.name.value.startswith("_")


def hollowed_method(chain: list, statement: cst.CSTNode) -> cst.FunctionDef | None:
    """The public method of a public class (a library's API: `Client.send_roots_list_changed`),
    not nested in a function, whose only statement (besides a docstring) is `statement`. A
    module-level function of an application emptied so keeps working for its callers, and the
    removal stays."""
    functions = [n for n in chain if isinstance(n, cst.FunctionDef)]
    if len(functions) != 1 or functions[0] is statement:
        return None
    function = functions[0]
    if not library_method(chain, function) or not isinstance(function.body, cst.IndentedBlock):
        return None
    body = list(function.body.body)
    rest = body[1:] if body and is_docstring(body[0]) else body
    rest = [statement for statement in rest if "SEP-2577" not in code_of(statement)]  # its deprecation
    if len(rest) != 1:
        return None
    only = rest[0]
    inside = only is statement or (
        isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1 and only.body[0] is statement
    )
    return function if inside else None
