"""A test module of Roots behaviour its project deprecates: it accepts the warning.

Where the run deprecates the project's Roots API instead of removing it (core.fix.suggested: a
parameter or a function that now warns), the behaviour stays, and so do the tests of it (issue
36 §4: tests move with the code they test). What such a test module gains with the deprecation
is what a library's deprecation pull request gives its tests: it accepts that warning. Without
it, every test of the deprecated API warns, and fails where the project turns warnings into
errors (python-sdk's `filterwarnings = ["error", ...]`). The edit is one module-level mark,

    pytestmark = pytest.mark.filterwarnings(
        "ignore:.*MCP Roots are deprecated by SEP-2577:DeprecationWarning"
    )

matching only the warnings the deprecations write (core.fix.suggested.ROOTS_DEPRECATED), added
to an existing `pytestmark` where there is one. Only in a module that imports pytest: another
test runner would not read the mark. A module that carries it tests deprecated behaviour on
purpose: its Roots findings are kept aside (core.engine), so one run converges.
"""

from __future__ import annotations

import re

import libcst as cst

from mcp_migrate.core.deprecated import LEADING
from mcp_migrate.core.fix.edits import Fix, Insert, Replace
from mcp_migrate.core.fix.layout import DEFAULT_LINE_LENGTH, ignores_deprecations, line_length
from mcp_migrate.core.fix.suggested import ROOTS_DEPRECATED
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.syntax import ancestry, code_of, enclosing, iter_nodes

#: The warnings filter the mark adds (pytest's `action:message:category`; the message is a
#: regular expression matched from the start).
WARNING_FILTER = f"ignore:.*{ROOTS_DEPRECATED}:DeprecationWarning"
#: The name pytest reads a module's marks from.
_MARKS = "pytestmark"


#: What a deprecation's warning names: `x` in "x is deprecated: ..." (a parameter) and `x()`
#: in "x() is deprecated: ..." (a function), as core.fix.suggested writes them.
_WARNED = lazy_compile(r"\b([A-Za-z_]\w*(?:\(\))?) is deprecated: " + re.escape(ROOTS_DEPRECATED))


def warned(functions, fixes, parents: dict) -> set:
    """What warns once the `fixes` are applied, among the `functions` (FunctionDef nodes) of a
    module: `f()` for a deprecated function (any use reaches it), `Owner(p=` for a deprecated
    parameter `p` of the function or class `Owner` (it warns only where a call of `Owner`
    passes it: a mock's `assert_called_once_with(p=ANY)` reaches nothing)."""
    found = set()
    for function in functions:
        body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
        for statement in body[: LEADING + 1]:  # (a docstring first)
            found |= _qualified(warned_in(code_of(statement)), function, parents)
    for fix in fixes:
        for edit in fix.edits:
            for statement in getattr(edit, "statements", ()):
                names = warned_in(code_of(statement))
                if names:
                    function = enclosing(ancestry(edit.anchor, parents)[:-1], cst.FunctionDef)
                    found |= _qualified(names, function, parents)
    return found


def _qualified(names: set, function, parents: dict) -> set:
    """`names` (`warned_in`), each parameter's with its owner: the function, or the class
    whose `__init__` takes it."""
    out = set()
    for name in names:
        if name.endswith("()") or function is None:
            out.add(name)
            continue
        owner = function.name.value
        if owner == "__init__":
            holder = enclosing(ancestry(function, parents), cst.ClassDef)
            owner = holder.name.value if holder is not None else owner
        out.add(f"{owner}({name}")
    return out


def warned_in(text: str) -> set:
    """What the Roots deprecation warnings written in `text` name: `f()` for a function, `p=`
    for a parameter."""
    return {name if name.endswith("()") else name + "=" for name in _WARNED.findall(text)}


def spells_any(module: cst.Module, warned_names: frozenset) -> bool:
    """Whether the module uses what warns (`warned`): refers to a deprecated function (a call,
    an attribute, a name) or passes a deprecated parameter by keyword to a call of its owner
    (`Owner(...)` or `x.Owner(...)`). A test module that does neither reaches no warning of the
    run's deprecations and needs no mark."""
    functions = {name[:-2] for name in warned_names if name.endswith("()")}
    keywords: dict = {}
    for name in warned_names:
        if "(" in name and not name.endswith("()"):
            owner, keyword = name[:-1].split("(", 1)
            keywords.setdefault(owner, set()).add(keyword)
    if not (functions or keywords):
        return False
    for node in iter_nodes(module):
        if isinstance(node, cst.Name) and node.value in functions:
            return True
        if isinstance(node, cst.Call) and keywords:
            callee = node.func.attr if isinstance(node.func, cst.Attribute) else node.func
            wanted = keywords.get(callee.value, ()) if isinstance(callee, cst.Name) else ()
            if any(arg.keyword is not None and arg.keyword.value in wanted for arg in node.args):
                return True
    return False


def accepts_deprecation(module: cst.Module) -> bool:
    """Whether a module-level `pytestmark` already holds the mark."""
    return any(WARNING_FILTER in code_of(value) for value in _pytestmarks(module))


def acceptance(module: cst.Module, path: str = "", view=None) -> Fix | None:
    """The suggested edit that makes a test module accept the deprecation warning, or None
    where it already does, does not import pytest at module level, or keeps comments inside
    its `pytestmark` (rewriting it would lose them). Laid out as the project's formatter would
    at its line length (core.fix.layout.line_length of the module's `path`): on one line where it fits (a project at 120 columns re-joins
    a wrapped mark: ruff format), else the call's argument on a line of its own."""
    if accepts_deprecation(module) or not _imports_pytest(module) or ignores_deprecations(path, view):
        return None
    width = line_length(path, view) if path else DEFAULT_LINE_LENGTH
    indent = module.default_indent
    short = f'pytest.mark.filterwarnings("{WARNING_FILTER}")'
    wrapped = f'pytest.mark.filterwarnings(\n{indent}"{WARNING_FILTER}"\n)'
    values = _pytestmarks(module)
    if values:
        value = values[-1]
        if "#" in code_of(value):
            return None
        items = [code_of(item.value) for item in value.elements] if isinstance(value, cst.List) else [code_of(value)]
        one_line = f"{_MARKS} = [{', '.join([*items, short])}]"
        if "\n" not in one_line and len(one_line) <= width:
            joined = cst.parse_expression(one_line.split(" = ", 1)[1])
        else:
            mark = short if len(indent) + len(short) + 1 <= width else wrapped
            lines = [f"{indent}{_nested(item, indent)}," for item in [*items, mark]]
            joined = cst.parse_expression("[\n" + "\n".join(lines) + "\n]")
        return Fix((Replace(value, joined),), display=True, imports=(("pytest", None),))
    anchor = _last_import(module)
    if anchor is None:
        return None
    mark = short if len(f"{_MARKS} = {short}") <= width else wrapped
    statement = cst.parse_statement(f"{_MARKS} = {mark}\n").with_changes(leading_lines=[cst.EmptyLine()])
    return Fix((Insert(anchor, (statement,)),), display=True, imports=(("pytest", None),))


def _nested(text: str, indent: str) -> str:
    """`text` one level further in: its continuation lines gain `indent`."""
    return text.replace("\n", "\n" + indent)


def _pytestmarks(module: cst.Module) -> list:
    """The values assigned to `pytestmark` at module level, in order."""
    values = []
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == _MARKS
            ):
                values.append(small.value)
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                if small.target.value == _MARKS and small.value is not None:
                    values.append(small.value)
    return values


def _imports_pytest(module: cst.Module) -> bool:
    """`import pytest` or `from pytest import ...` among the module-level statements."""
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import) and any(code_of(alias.name) == "pytest" for alias in small.names):
                return True
            if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                if code_of(small.module) == "pytest":
                    return True
    return False


def _last_import(module: cst.Module) -> cst.SimpleStatementLine | None:
    """The last module-level line of imports: the mark goes right below them."""
    found = None
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
        ):
            found = statement
    return found
