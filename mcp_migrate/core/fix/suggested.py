"""The last edit a Roots finding gets before a review marker: the removal of its construct,
suggested (issue 36 §3: "every RT001-RT006 finding carries an edit ... a comment marker is
the last resort, only where no edit can be written").

A rule's own rewrite knows the recipe (a tool parameter, a setting); where it has none for a
finding, what the rule's help says in words ("delete this provider", "drop `roots=`") is still
an edit that can be written: the keyword argument, the dict entry, the statement, the branch a
capability probe guards, or the definition itself. It changes what the code does (the
directories must reach the server another way), so it is only ever a suggestion: shown by
`check`, `--diff`, SARIF and the migration report, applied by `fix --apply-suggestions`.

A removal is never suggested where it would leave a name behind: a definition goes only when
nothing else in its file refers to it except code the same rule's other fixes remove, and only
where no other module can reach it (a nested function; a public one is deprecated instead, a
private one left alone). Nor in test code: a test of the Roots behaviour is updated with the
code it tests or left alone (issue 36 §4), and deleting what it calls while keeping its
assertions is neither (core.engine decides).
Unused imports the removal leaves are dropped by the fix itself (core.fix.imports)."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.deprecated import documents_deprecation
from mcp_migrate.core.fix.apply import touched
from mcp_migrate.core.fix.branches import branch_removal
from mcp_migrate.core.fix.edits import Fix, Insert, RemoveArg, RemoveElement, RemoveStatement, Replace
from mcp_migrate.core.fix.hollowed import hollowed_method
from mcp_migrate.core.syntax import ancestry, code_of, is_call_of, is_docstring, iter_nodes

#: Said before the help of a finding whose edit is this removal.
SUGGESTED_REMOVAL = (
    "a suggested removal (`fix --apply-suggestions` applies it): it deletes this Roots code, so what"
    " relied on it changes"
)

#: Said before the help of a private definition's finding whose removal goes with the fixes
#: that leave it unread.
GOES_WITH_ITS_USES = "an unsafe removal: the fixes of its uses leave it unread, and no other file of this run names it"

#: Said before the help of a parameter's finding whose edit is its deprecation.
SUGGESTED_PARAMETER_DEPRECATION = (
    "a suggested deprecation (`fix --apply-suggestions` applies it): callers may still pass this"
    " parameter, so it warns when given instead of going; remove it once they have moved"
)

#: Said before the help of a public function's finding whose edit is its deprecation.
SUGGESTED_DEPRECATION = (
    "a suggested deprecation (`fix --apply-suggestions` applies it): other code may call this"
    " function, so it warns instead of going; delete it once its callers have moved"
)


#: Said before the help of a public class's finding whose edit is its deprecation.
SUGGESTED_CLASS_DEPRECATION = (
    "a suggested deprecation (`fix --apply-suggestions` applies it): other code may use this"
    " class, so its docstring says it is deprecated instead of it going; delete it once nothing uses it"
)

#: The notes of the candidates that deprecate instead of removing: the behaviour stays.
DEPRECATION_NOTES = frozenset({SUGGESTED_PARAMETER_DEPRECATION, SUGGESTED_DEPRECATION, SUGGESTED_CLASS_DEPRECATION})

#: Expressions a finding's node can sit in and still be the whole value of what holds it:
#: `types.RootsCapability(...)` (the callee's attribute), the call itself, `await` of it.
_SAME_VALUE = (cst.Attribute, cst.Call, cst.Await)


class Candidate(NamedTuple):
    """A removal one finding could be given: its edit, and, when it deletes a binding other code
    could use (a definition, an attribute set), the name it binds: every other reference to it in
    the file must go too."""

    edit: object
    binds: cst.Name | None = None
    #: The imports the edit needs, as core.fix.edits.Fix's.
    imports: tuple = ()
    #: Said before the finding's help.
    note: str = ""
    #: A deprecated function's name: the deprecation holds only where nothing else in the file
    #: names it but calls (a function registered here goes with its registration, or is left
    #: alone; a call keeps working with it: core.fix.kept_working.calls).
    alone: cst.Name | None = None
    #: A private module- or class-level definition: other modules may still call it, so its
    #: removal holds only where the run finds its name in no other file (RunPlan.removable).
    private: bool = False


def candidate(node: cst.CSTNode, parents: dict) -> Candidate | None:
    """The construct a finding at `node` stands for, as a removal, or None. `parents`: id(node)
    -> parent over the module (core.syntax.ModuleIndex.parents; a rule may report from
    anywhere, a definition's name at the end of the walk). A removal that would leave a public
    method with nothing to do (`def send_roots_list_changed(self): await self.session.send_...`)
    deprecates it instead: a silent no-op breaks its callers without a word (session 47's first
    look, fastmcp's `Client.send_roots_list_changed`)."""
    chain = ancestry(node, parents)
    found = _candidate(node, chain)
    if found is not None and isinstance(found.edit, RemoveStatement):
        method = hollowed_method(chain, found.edit.node)
        if method is not None:
            return deprecation(method)
    return found


def _candidate(node: cst.CSTNode, chain: list) -> Candidate | None:
    parameter = parameter_of(chain)
    if parameter is not None:
        return _parameter_deprecation(*parameter)
    definition = _definition(chain)
    if definition is not None:
        return _definition_removal(definition, chain)
    if isinstance(node, (cst.Arg, cst.DictElement)):
        value, i = node, len(chain) - 1
    else:
        value, i = _climb(chain, len(chain) - 1)
    word: object
    while True:
        holder = value if isinstance(value, (cst.Arg, cst.DictElement)) else (chain[i - 1] if i > 0 else None)
        if isinstance(holder, cst.Arg):
            word = holder.keyword.value if holder.keyword is not None else None
            outer = chain[_at(chain, holder) - 1]
        elif isinstance(holder, cst.DictElement):
            word = holder.key.evaluated_value if isinstance(holder.key, cst.SimpleString) else None
            outer = chain[_at(chain, holder) - 1]
        else:
            break
        if isinstance(word, str) and _names_roots(word):
            if isinstance(holder, cst.Arg):
                return Candidate(RemoveArg(outer, holder)) if isinstance(outer, cst.Call) else None
            return Candidate(RemoveElement(outer, holder)) if isinstance(outer, cst.Dict) else None
        if not isinstance(outer, (cst.Call, cst.Dict)):
            return None
        # The finding is part of a message the call sends or the dict spells (its method, a
        # notification): the whole goes where it is a statement of its own.
        value, i = _climb(chain, _at(chain, outer))
    if isinstance(holder, cst.Expr) and holder.value is value:
        return Candidate(RemoveStatement(holder))
    assigned = _registration(chain, i, value)
    if assigned is not None:
        return assigned
    branch = branch_removal(chain, i, value)
    return Candidate(branch) if branch is not None else None


def _registration(chain: list, i: int, value: cst.CSTNode) -> Candidate | None:
    """A registration by assignment, `handlers["roots/list"] = answer` or
    `client.on_list_roots = answer`: the statement goes. An attribute set binds a name other
    code may read (`self._list_roots_callback`): only where nothing else in the file reads it,
    and, on `self`, only a private attribute (another module may read a public one)."""
    holder = chain[i - 1] if i > 0 else None
    if isinstance(holder, cst.Index) and i > 2 and isinstance(chain[i - 2], cst.SubscriptElement):
        subscript = chain[i - 3]
        statement = chain[i - 5] if i > 4 and isinstance(chain[i - 4], cst.AssignTarget) else None
        if (
            isinstance(subscript, cst.Subscript)
            and isinstance(statement, cst.Assign)
            and _single_target(statement, subscript)
        ):
            return Candidate(RemoveStatement(statement))
        return None
    if isinstance(value, cst.Attribute) and isinstance(holder, cst.AssignTarget) and i > 1:
        statement = chain[i - 2]
        if not (isinstance(statement, cst.Assign) and _single_target(statement, value)):
            return None
        on_self = isinstance(value.value, cst.Name) and value.value.value == "self"
        private = value.attr.value.startswith("_") and not value.attr.value.endswith("__")
        if on_self and not private:
            return None
        return Candidate(RemoveStatement(statement), value.attr)
    return None


def _single_target(statement, target: cst.CSTNode) -> bool:
    return isinstance(statement, cst.Assign) and len(statement.targets) == 1 and statement.targets[0].target is target


def _climb(chain: list, i: int) -> tuple:
    """From `chain[i]` up through what evaluates to it (`_holds_as_value`): the expression a
    holder holds, and its index."""
    value = chain[i]
    while i > 0 and isinstance(chain[i - 1], _SAME_VALUE) and _holds_as_value(chain[i - 1], value):
        value, i = chain[i - 1], i - 1
    return value, i


def _at(chain: list, node: cst.CSTNode) -> int:
    """The index of `node` in `chain`, by identity (syntax nodes compare by value)."""
    return next(i for i, x in enumerate(chain) if x is node)


def _names_roots(word: str) -> bool:
    """A keyword or dict key that carries Roots itself (`roots=`, `list_roots_callback=`,
    `"roots": {...}`, `list_changed=`, `"listChanged"`), not a message's `method`, `params` or
    `request` that merely contain the finding: removing those would break the message."""
    lowered = word.lower().replace("_", "")
    return "root" in lowered or lowered == "listchanged"


def _holds_as_value(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether `child` is what `parent` evaluates to, not an argument of it: the callee of a
    call, the attribute of an access, the awaited expression."""
    if isinstance(parent, cst.Call):
        return parent.func is child
    if isinstance(parent, cst.Attribute):
        return parent.attr is child or parent.value is child
    return isinstance(parent, cst.Await) and parent.expression is child


def _definition(chain: list) -> cst.FunctionDef | cst.ClassDef | None:
    node = chain[-1]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node
    parent = chain[-2] if len(chain) > 1 else None
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
        return parent
    return None


def _definition_removal(definition, chain: list) -> Candidate | None:
    """A definition no other module can reach: nested in a function. A private name is no such
    promise: a corpus project's tests call its private `_handle_roots_list_changed` directly
    (conduit), so a module-level or class-level private definition goes only where the run finds
    its name in no other file (`private`, decided by the engine with the run's plan); a public
    one is deprecated."""
    name = definition.name.value
    nested = any(isinstance(outer, (cst.FunctionDef, cst.Lambda)) for outer in chain[: _at(chain, definition)])
    if nested:
        return Candidate(RemoveStatement(definition), definition.name)
    private = name.startswith("_") and not name.endswith("__")
    if private:
        return Candidate(RemoveStatement(definition), definition.name, private=True)
    if isinstance(definition, cst.ClassDef):
        return class_deprecation(definition, _body_indent(chain, definition))
    return deprecation(definition)


def _body_indent(chain: list, definition: cst.ClassDef) -> str:
    """The indentation of `definition`'s body: its own block's under the blocks above it."""
    module = chain[0] if chain and isinstance(chain[0], cst.Module) else None
    default = module.default_indent if module is not None else "    "
    blocks = [b for b in (*chain[: _at(chain, definition)], definition.body) if isinstance(b, cst.IndentedBlock)]
    return "".join(b.indent if b.indent is not None else default for b in blocks)


def parameter_of(chain: list) -> tuple | None:
    """(the function, the parameter) a finding on a parameter (or its name) stands for.
    `chain`: the nodes from the module down to the finding's node."""
    node = chain[-1]
    if isinstance(node, cst.Name) and len(chain) > 1 and isinstance(chain[-2], cst.Param):
        chain = chain[:-1]
        node = chain[-1]
    if not isinstance(node, cst.Param) or len(chain) < 3 or not isinstance(chain[-2], cst.Parameters):
        return None
    function = chain[-3]
    return (function, node) if isinstance(function, cst.FunctionDef) else None


#: What every deprecation written here says (the tests' filter matches it: accept_deprecation).
ROOTS_DEPRECATED = "MCP Roots are deprecated by SEP-2577"
#: What a deprecated parameter says when it is given (short: a line of its own).
PARAMETER_DEPRECATED = "{name} is deprecated: " + ROOTS_DEPRECATED


def parameter_warned(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function`'s body (past its docstring) already warns that parameter `name` is
    deprecated, in the words a suggested deprecation writes."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    rest = body[1:] if body and is_docstring(body[0]) else body
    text = PARAMETER_DEPRECATED.format(name=name)
    return any(text in code_of(statement) for statement in rest)


def _parameter_deprecation(function: cst.FunctionDef, param: cst.Param) -> Candidate | None:
    """A provider passed in as an optional parameter (`list_roots_callback: ListRootsFnT |
    None = None`) is a public option of a library or a class: removing it breaks its callers,
    and keeping it silently leaves it without effect once the rest goes. The SDKs' way: it
    warns when given, first thing in the body (after the docstring), and keeps working. Only
    a parameter whose default is None (given = not None), in a body of its own (not a
    placeholder, an overload or an abstract method), and not already warned about."""
    if not (isinstance(param.default, cst.Name) and param.default.value == "None"):
        return None
    decorators = [_decorator_name(d.decorator) for d in function.decorators]
    if not isinstance(function.body, cst.IndentedBlock) or any(d not in _CALLED_THROUGH for d in decorators):
        return None  # an overload, an abstract method, or a wrapper whose frames are not known
    # A context manager's body runs from contextlib's `__enter__`: one frame further out.
    level = 2 + sum(1 for d in decorators if d in ("contextmanager", "asynccontextmanager"))
    body = list(function.body.body)
    docstring = bool(body) and is_docstring(body[0])
    rest = body[1:] if docstring else body
    if not rest or all(_is_placeholder(statement) for statement in rest):
        return None
    name = param.name.value
    text = PARAMETER_DEPRECATED.format(name=name)
    if parameter_warned(function, name):
        return None
    warn = cst.parse_statement(
        f'if {name} is not None:\n    warnings.warn(\n        "{text}",\n        DeprecationWarning,\n'
        f"        stacklevel={level},\n    )\n"
    )
    return Candidate(
        Insert(body[0], (warn,), before=not docstring),
        imports=(("warnings", None),),
        note=SUGGESTED_PARAMETER_DEPRECATION,
    )


#: Decorators through which a parameter's warning still points at the caller (with the frame
#: count `_parameter_deprecation` gives): the method kinds, and contextlib's context managers.
_CALLED_THROUGH = frozenset({"staticmethod", "classmethod", "contextmanager", "asynccontextmanager"})


def _decorator_name(decorator: cst.BaseExpression) -> str | None:
    """`overload` in `@overload`, `@typing.overload` and `@abc.abstractmethod()`."""
    if isinstance(decorator, cst.Call):
        decorator = decorator.func
    if isinstance(decorator, cst.Attribute):
        return decorator.attr.value
    return decorator.value if isinstance(decorator, cst.Name) else None


#: What a public function of the project says once it is deprecated (short: a line of its own).
DEPRECATED = "{name}() is deprecated: " + ROOTS_DEPRECATED


def deprecation(definition) -> Candidate | None:
    """A public function or method other modules (or users of a library) may call: deleting it
    would break them, so it is deprecated instead, the way the SDKs did it: a
    `DeprecationWarning` as its first statement (after its docstring). Not a class, a decorated
    function (a framework calls it: its registration is the finding to remove), a dunder, a
    body left for others to write (`...`, `pass`, `raise` of the abstract-method error), or one
    that already warns (a class is deprecated in its docstring: `class_deprecation`)."""
    if not isinstance(definition, cst.FunctionDef) or definition.decorators:
        return None
    name = definition.name.value
    if name.startswith("__") or not isinstance(definition.body, cst.IndentedBlock):
        return None
    body = list(definition.body.body)
    docstring = bool(body) and is_docstring(body[0])
    rest = body[1:] if docstring else body
    if not rest or all(_is_placeholder(statement) for statement in rest):
        return None
    if any("SEP-2577" in code_of(statement) for statement in rest[:3]):
        return None
    text = DEPRECATED.format(name=name)
    warn = cst.parse_statement(f'warnings.warn(\n    "{text}",\n    DeprecationWarning,\n    stacklevel=2,\n)\n')
    anchor = body[0]
    return Candidate(
        Insert(anchor, (warn,), before=not docstring),
        imports=(("warnings", None),),
        note=SUGGESTED_DEPRECATION,
        alone=definition.name,
    )


#: The sentence a deprecated class's docstring gains (core.deprecated reads it back).
CLASS_DEPRECATED = "Deprecated by SEP-2577 (MCP 2026-07-28) with the rest of Roots."


def class_deprecation(definition: cst.ClassDef, indent: str = "    ") -> Candidate | None:
    """A public class other modules may use (a re-implemented `ListRootsResult`, a provider
    class): it is deprecated in its docstring, the way the `mcp` SDK deprecated its own Roots
    protocol types. A warning would fire each time the project's own code still builds one for a
    2025-era peer. The sentence ends an existing triple-quoted docstring, or becomes the
    docstring; a one-line body, or a docstring of another form, gets none. `indent`: the
    class body's indentation, where the docstring's own lines do not show it."""
    if not isinstance(definition.body, cst.IndentedBlock) or not definition.body.body:
        return None
    first = definition.body.body[0]
    if not is_docstring(first):
        new = cst.parse_statement(f'"""{CLASS_DEPRECATED}"""\n')
        return Candidate(Insert(first, (new,), before=True), note=SUGGESTED_CLASS_DEPRECATION)
    if documents_deprecation(first) or not isinstance(first, cst.SimpleStatementLine):
        return None
    small = first.body[0]
    literal = small.value if isinstance(small, cst.Expr) else None
    if not isinstance(literal, cst.SimpleString) or literal.quote not in ('"""', "'''"):
        return None
    start = len(literal.prefix) + 3
    head, body, quote = literal.value[:start], literal.value[start:-3], literal.quote
    if body.endswith("\\") or quote[0] in body[-1:]:
        return None
    lines = body.split("\n")
    if len(lines) > 1 and not lines[-1].strip():  # the closing quotes on a line of their own
        inner = lines[-1]
        text = body.rstrip(" \t").rstrip("\n") + f"\n\n{inner}{CLASS_DEPRECATED}\n{inner}"
    else:
        written = [line for line in lines[1:] if line.strip()]
        inner = written[-1][: len(written[-1]) - len(written[-1].lstrip())] if written else indent
        text = body.rstrip() + f"\n\n{inner}{CLASS_DEPRECATED}\n{inner}"
    return Candidate(
        Replace(literal, literal.with_changes(value=head + text + quote)), note=SUGGESTED_CLASS_DEPRECATION
    )


#: What an abstract method raises (`raise X` or `raise X(...)`).
_ABSTRACT_ERROR = "NotImplemented" + "Error"


def _is_placeholder(statement) -> bool:
    """`...`, `pass` or a raise of the abstract-method error: a body others write."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(small.value, cst.Ellipsis)):
            continue
        if isinstance(small, cst.Raise) and _raised_name(small.exc) == _ABSTRACT_ERROR:
            continue
        return False
    return True


def _raised_name(exc) -> str | None:
    """The name a `raise` raises: `X` in `raise X` and `raise X(...)`."""
    if isinstance(exc, cst.Call):
        exc = exc.func
    return exc.value if isinstance(exc, cst.Name) else None


def suggested_removals(module: cst.Module, wanted: list, others: list, parents: dict) -> dict:
    """{index in `wanted`: (Fix, the note said before the finding's help)} for the candidates
    (`wanted`: Candidate or None each) that hold: a deprecated function only when nothing else in
    the file names it; a definition's removal only when every other reference to its name in the
    file lies in code that
    another removal here (a candidate, or a fix in `others`) deletes, decided until nothing
    changes (dropping one definition's removal may keep a reference to another alive)."""
    chosen = {i: c for i, c in enumerate(wanted) if c is not None}
    removed_by_others: set = set()
    for fix in others:
        removed_by_others |= touched(fix)
    references = _references(module, {n.value for c in chosen.values() for n in (c.binds, c.alone) if n is not None})
    for i, c in list(chosen.items()):
        named = [ref for ref in references.get(c.alone.value, ()) if ref is not c.alone] if c.alone else []
        if any(not is_call_of(ref, parents) for ref in named):  # a registration: it goes with that
            del chosen[i]
    while True:
        gone = set(removed_by_others)
        for c in chosen.values():
            gone |= touched(Fix((c.edit,)))
        dropped = [
            i
            for i, c in chosen.items()
            if c.binds is not None
            and any(id(ref) not in gone for ref in references.get(c.binds.value, ()) if ref is not c.binds)
        ]
        if not dropped:
            break
        for i in dropped:
            del chosen[i]
    return {
        i: (
            Fix((c.edit,), display=True, imports=c.imports, keeps_working=c.note in DEPRECATION_NOTES),
            c.note or SUGGESTED_REMOVAL,
        )
        for i, c in chosen.items()
    }


def private_definition(candidate_: Candidate | None) -> str | None:
    """The name of a private module- or class-level definition `candidate_` removes, or None."""
    if candidate_ is None or not candidate_.private or candidate_.binds is None:
        return None
    return candidate_.binds.value


def with_applied(fix: Fix, note: str, candidate_: Candidate, module: cst.Module, applied: list) -> tuple:
    """(fix, note) of a definition's removal (`fix`, suggested, said with `note`): an unsafe fix
    when the fixes `applied` (safe or unsafe) already remove every other reference to it, so the
    command that leaves it unread removes it too (a provider goes with its wiring) instead of
    leaving dead code to a second command."""
    name = candidate_.binds
    if name is None:
        return fix, note
    gone: set = set()
    for other in applied:
        gone |= touched(other)
    references = [ref for ref in _references(module, {name.value}).get(name.value, ()) if ref is not name]
    if references and all(id(ref) in gone for ref in references):
        return Fix(fix.edits, unsafe=True, imports=fix.imports), GOES_WITH_ITS_USES
    return fix, note


def _references(module: cst.Module, names: set) -> dict:
    """{name: the Name nodes that spell it} for `names`, wherever they stand: a variable, an
    attribute (`self._list_roots`), a keyword's value, a string holding the name alone (a
    registration by name, `__all__`)."""
    found: dict = {}
    if not names:
        return found
    for node in iter_nodes(module):
        if isinstance(node, cst.Name) and node.value in names:
            found.setdefault(node.value, []).append(node)
        elif isinstance(node, cst.SimpleString) and node.value.strip("\"'") in names:
            found.setdefault(node.value.strip("\"'"), []).append(node)
    return found
