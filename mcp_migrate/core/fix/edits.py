"""Fix descriptions: what a rule wants changed, as edits on original nodes.

Rules only describe edits; `core/fix/apply.py` applies every edit of a file in one transformer
pass. A `Fix` is a rule's whole change at one finding: its edits, the imports they need, the
functions they may orphan, and whether it is unsafe.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.record import record


@record(frozen=True)
class RemoveStatement:
    """Delete one small statement (`Expr`, `Assign`, ...), or a whole compound statement (an
    `if`, a `def`); an emptied block gets `pass`."""

    node: cst.BaseSmallStatement | cst.BaseStatement


@record(frozen=True)
class RemoveArg:
    call: cst.Call
    arg: cst.Arg


@record(frozen=True)
class RemoveElement:
    container: cst.Dict
    element: cst.BaseDictElement


@record(frozen=True)
class Replace:
    node: cst.CSTNode
    new: cst.CSTNode


@record(frozen=True)
class Insert:
    """Insert statements after (or, with `before`, before) a statement of a module or block;
    a statement whose text is already in that block is not inserted twice."""

    anchor: cst.BaseStatement
    statements: tuple
    before: bool = False


@record(frozen=True)
class Unwrap:
    """Replace an `if` statement by the statements of one of its branches ("body" or "orelse"),
    or a `try` by its body, edits inside that branch included. `first`: statements placed
    before the branch, the node's leading comments on the first of them (a `try:` whose
    `except` becomes `if not directories:` above what it guarded)."""

    node: cst.If | cst.Try
    keep: str
    first: tuple = ()


@record(frozen=True)
class ReplaceSignature:
    """Give a function new parameters (and the whitespace after its `(`), keeping every edit
    inside its body: replacing the whole `def` would drop those."""

    func: cst.FunctionDef
    params: cst.Parameters
    whitespace_before_params: cst.BaseParenthesizableWhitespace


@record(frozen=True)
class AddComment:
    """Put a `# mcp-migrate: ...` comment line above a statement, where a human must decide."""

    statement: cst.BaseStatement
    text: str


#: Every kind of edit `core/fix/apply.py` applies.
Edit = RemoveStatement | RemoveArg | RemoveElement | Replace | Insert | Unwrap | ReplaceSignature | AddComment


@record(frozen=True)
class Fix:
    #: Edits (see Edit); untyped while checks/rt004 reads `fix.edits[0].node` unnarrowed.
    edits: tuple
    #: Function names whose (module-level) definitions become deletable once the edits are
    #: applied and nothing in the file refers to them any more; deleting is an unsafe fix.
    orphans: tuple = ()
    unsafe: bool = False
    #: Display-only (ruff's third applicability): shown by `check` and the report as a
    #: suggestion, never applied by `fix`, not counted as fixable. The security rules' rewrites
    #: are, unless proven equivalent on every input.
    display: bool = False
    #: Imports the edits need, as (module, name) for `from module import name` or
    #: (module, None) for `import module`; added with LibCST's AddImportsVisitor.
    imports: tuple = ()
    #: A provider's removal that passes every directory it gave on to the calls of the tools
    #: the run migrates: a test making those calls keeps checking the same tool on the same
    #: directories, so in test code it is applied like any fix, not only suggested (issue 36
    #: §4: tests move with the code they test).
    hands_over: bool = False
    #: A deprecation, or code that keeps a deprecated parameter working: applied, the Roots
    #: behaviour stays (it warns), so the tests of it stay too (core.engine._keeps_roots).
    keeps_working: bool = False

    @property
    def marker_only(self) -> bool:
        """Whether the fix only leaves `# mcp-migrate: ... review:` markers (AddComment edits and
        nothing else): applying it changes no code, so its finding stays."""
        return (
            bool(self.edits)
            and not (self.orphans or self.imports)
            and all(isinstance(edit, AddComment) for edit in self.edits)
        )
