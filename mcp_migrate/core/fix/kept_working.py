"""A parameter the suggestions deprecate keeps working (the final review of session 49: mcp-use's
`MCPClient(list_roots_callback=...)` was deprecated and, in the same suggestions, no longer passed
on to the sessions, so it warned and then did nothing; its unit tests went from 1 to 13
failures). A deprecation warns and keeps the behaviour until the parameter goes, so the
removals that would stop passing it on are withdrawn: an argument or dict entry whose value is
the parameter itself inside its function, or `self.<attr>` where that function stores the
parameter on `self.<attr>`."""

from __future__ import annotations

from functools import partial

import libcst as cst

from mcp_migrate.core.fix.apply import edit_anchor
from mcp_migrate.core.fix.edits import RemoveArg, RemoveElement, RemoveStatement
from mcp_migrate.core.fix.suggested import parameter_of, parameter_warned
from mcp_migrate.core.syntax import ancestry, enclosing, iter_nodes


def deprecated_parameter(node: cst.CSTNode, parents: dict) -> tuple | None:
    """(the function, the parameter's name) of a finding on a parameter (or its name)."""
    found = parameter_of(ancestry(node, parents))
    return (found[0], found[1].name.value) if found is not None else None


def already_deprecated(node: cst.CSTNode, parents: dict) -> tuple | None:
    """(the function, the name) of a finding on a parameter its function already warns about
    (the warning a suggested deprecation writes), or None: a later pass of `fix` keeps it
    working too."""
    found = deprecated_parameter(node, parents)
    return found if found is not None and parameter_warned(*found) else None


def passes_on(fix, deprecated: list, parents: dict | None = None) -> tuple | None:
    """The entry of `deprecated` ((function, name, ...) each) whose parameter `fix` stops passing
    on, by removing an argument or dict entry whose value is that parameter, or None. With
    `parents`, `self.<name>` anywhere in the parameter's class counts too: the class keeps it
    under its own name, stored by a base class's `__init__` through `super()` (mcp-use's
    connectors pass `list_roots_callback=self.list_roots_callback` to the session)."""
    if fix is None or not deprecated:
        return None
    values = []
    for edit in fix.edits:
        if isinstance(edit, RemoveArg):
            values.append(edit.arg.value)
        elif isinstance(edit, RemoveElement) and isinstance(edit.element, cst.DictElement):
            values.append(edit.element.value)
    return next(
        (
            entry
            for value in values
            for entry in deprecated
            if _carries(value, entry[0], entry[1])
            or _same_name_in_class(value, entry[0], entry[1], parents)
            or _computed_from_store(value, entry[0], entry[1], parents)
        ),
        None,
    )


def _same_name_in_class(value, function: cst.FunctionDef, name: str, parents: dict | None) -> bool:
    """`self.<name>` in the class whose method takes the deprecated parameter `name`."""
    if parents is None or not isinstance(value, cst.Attribute) or value.attr.value != name:
        return False
    if not (isinstance(value.value, cst.Name) and value.value.value == "self"):
        return False
    return _in_class_of(function, ancestry(value, parents), parents)


def _computed_from_store(value, function: cst.FunctionDef, name: str, parents: dict | None) -> bool:
    """A local of another method of the parameter's class computed from where the parameter is
    stored on `self` (python-sdk's `ClientSession` keeps `self._list_roots_callback =
    list_roots_callback or _default_list_roots_callback`, and declares the roots capability
    with `roots = RootsCapability(...) if self._list_roots_callback is not ... else None`:
    dropping `roots=roots` left the deprecated parameter without effect)."""
    if parents is None or not isinstance(value, cst.Name):
        return False
    stored = _stored_on_self(function, name)
    chain = ancestry(value, parents)
    method = enclosing(chain, cst.FunctionDef)
    if not stored or method is None:
        return False
    reads_store = partial(_reads_store, stored=stored, in_class=_in_class_of(function, chain, parents))
    for node in iter_nodes(method):
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value == value.value for t in node.targets
        ):
            if any(reads_store(n) for n in iter_nodes(node.value)):
                return True
    return False


def _reads_store(node, stored: set, in_class: bool) -> bool:
    """`self.<attr>` in the class, or `<anything>.<attr>` anywhere for a private attribute (the
    class's own, read by a module-level helper that takes the instance: topsport-agent's session
    factory reads `client._roots_provider`), where `attr` keeps the deprecated parameter."""
    if not (isinstance(node, cst.Attribute) and node.attr.value in stored):
        return False
    return (in_class and _is_self_attr(node, stored)) or node.attr.value.startswith("_")


def _in_class_of(function: cst.FunctionDef, chain: list, parents: dict) -> bool:
    """Whether `chain` (a node's ancestry) lies in the class whose method `function` is."""
    owner = enclosing(ancestry(function, parents), cst.ClassDef)
    return owner is not None and any(n is owner for n in chain)


def _is_self_attr(node, names: set) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
        and node.attr.value in names
    )


def stores(node: cst.CSTNode, parents: dict, deprecated: list) -> tuple | None:
    """The entry of `deprecated` whose parameter the statement holding `node` stores on `self`
    (`self.list_roots_callback = list_roots_callback` in that parameter's function), or None."""
    chain = ancestry(node, parents)
    statement = next((n for n in reversed(chain) if isinstance(n, cst.Assign)), None)
    if statement is None or not isinstance(statement.value, cst.Name):
        return None
    on_self = all(
        isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name) and t.target.value.value == "self"
        for t in statement.targets
    )
    for entry in deprecated:
        function, name = entry[0], entry[1]
        if on_self and statement.value.value == name and any(n is function for n in chain):
            return entry
    return None


def reads(node: cst.CSTNode, parents: dict, deprecated: list) -> tuple | None:
    """The entry of `deprecated` whose parameter the code at `node` serves, or None: inside that
    parameter's function (a nested handler too), the statement holding `node` (the whole `if`
    whose test holds it: the branch it guards) reads the parameter or a local computed from it
    (`_roots_manager = roots_manager if roots_manager is not None else RootsManager()`, then
    `if method == "roots/list": return {"roots": _roots_manager.list_roots()}`: fastapi-mcp-
    router's dispatch answers with what the deprecated parameter gives); or, in another method
    of its class, reads the attribute the parameter is stored on (python-sdk's capability
    declaration reads `self._list_roots_callback`)."""
    chain = ancestry(node, parents)
    statement = _statement(chain)
    if statement is None:
        return None
    targets = {id(n) for t in iter_nodes(statement) if isinstance(t, cst.AssignTarget) for n in iter_nodes(t)}
    for entry in deprecated:
        function, name = entry[0], entry[1]
        if not any(n is function for n in chain):
            stored = _stored_on_self(function, name)
            reads_store = partial(_reads_store, stored=stored, in_class=_in_class_of(function, chain, parents))
            if stored and any(reads_store(n) for n in iter_nodes(statement)):
                return entry  # other code reads where the parameter is kept
            continue
        derived = _derived(function, name)
        if any(isinstance(n, cst.If) and _when_absent(n.test, derived) for n in chain):
            continue  # `if list_roots_callback is None: list_roots_callback = default`: not given
        if any(isinstance(n, cst.Name) and n.value in derived and id(n) not in targets for n in iter_nodes(statement)):
            return entry
    return None


def within(fix, parents: dict, functions: list) -> tuple | None:
    """The entry of `functions` ((function, ...) each: functions the suggestions deprecate) whose
    function holds what `fix` edits, or None: a deprecated function keeps working until it goes,
    so its Roots code stays with it (mcp-use's `set_roots()` kept storing roots and stopped
    notifying once its send was removed)."""
    if fix is None or not fix.edits:
        return None
    chain = ancestry(edit_anchor(fix.edits[0]), parents)
    return next((entry for entry in functions if any(n is entry[0] for n in chain)), None)


def calls(fix, functions: list) -> tuple | None:
    """The entry of `functions` ((function, ...) each: functions the suggestions deprecate) that
    a statement `fix` removes calls, by name or as `self.<name>(...)`, or None: the deprecated
    function keeps working until it goes, and so does the project's own use of it
    (mcp-context-forge registered its configured default roots with `await self.add_root(uri)`,
    which became `pass` while `add_root()` itself was deprecated)."""
    if fix is None or not functions:
        return None
    names = {entry[0].name.value: entry for entry in functions}
    for edit in fix.edits:
        if not isinstance(edit, RemoveStatement):
            continue
        for node in iter_nodes(edit.node):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Name) and func.value in names:
                return names[func.value]
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and func.attr.value in names
            ):
                return names[func.attr.value]
    return None


def _when_absent(test: cst.BaseExpression, derived: set) -> bool:
    """`x is None`, `x == None` or `not x` of a name in `derived`: the branch runs when the
    parameter is not given (a default provider of the project's own, no part of the deprecation)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return isinstance(test.expression, cst.Name) and test.expression.value in derived
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        return (
            isinstance(test.left, cst.Name)
            and test.left.value in derived
            and isinstance(target.operator, (cst.Is, cst.Equal))
            and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"
        )
    return False


def _statement(chain: list) -> cst.CSTNode | None:
    """The statement holding the last node of `chain`: the `if` whose test holds it, else the
    innermost statement line or compound statement."""
    for i in range(len(chain) - 1, 0, -1):
        node = chain[i]
        if isinstance(chain[i - 1], cst.If) and chain[i - 1].test is node:
            return chain[i - 1]
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return node
    return None


def _derived(function: cst.FunctionDef, name: str) -> set:
    """`name` and the local names `function` (its nested functions too) computes from it, by
    plain assignment, until nothing is added."""
    derived = {name}
    assignments = [
        (node.targets[0].target.value, node.value)
        for node in iter_nodes(function)
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
    ]
    changed = True
    while changed:
        changed = False
        for target, value in assignments:
            if target not in derived and any(isinstance(n, cst.Name) and n.value in derived for n in iter_nodes(value)):
                derived.add(target)
                changed = True
    return derived


def _carries(value: cst.BaseExpression, function: cst.FunctionDef, name: str) -> bool:
    if isinstance(value, cst.Name):
        return value.value == name and any(node is value for node in iter_nodes(function))
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
        return value.attr.value in _stored_on_self(function, name)
    return False


def _stored_on_self(function: cst.FunctionDef, name: str) -> set:
    """The attributes `function` stores `name` on: `self.callback = callback`, or with a
    default where it is not given (`callback or default`)."""
    out = set()
    for node in iter_nodes(function):
        if isinstance(node, cst.Assign) and _given(node.value, name):
            for target in node.targets:
                t = target.target
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    out.add(t.attr.value)
    return out


def _given(value: cst.BaseExpression, name: str) -> bool:
    """`name` itself, or `name or default`: the value is the parameter wherever it is given."""
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        value = value.left
    return isinstance(value, cst.Name) and value.value == name
