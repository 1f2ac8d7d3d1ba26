"""The rule contract: one rule per class, its logic beside its examples (as in Fixit 2). The
engine knows this contract and no rule; rules know this contract and not the engine.

A rule declares `CODE` (its catalog page holds name, severity, fix kind, docs, and what the run
knows before it imports the rule: its gate, its side of Roots, its tags), the byte
tokens without which it can never fire (`SCREEN`), what its finding needs in the code
(`screen_tree`, on the standard library's reading of the file), and `VALID` / `INVALID` examples that the
test suite runs, each carrying the reason it stays silent or fires. Logic lives in
`visit_<Node>` / `leave_<Node>` methods called from the engine's single traversal.

The screens (`SCREEN`, `applies`, `screen`, `screen_imports`, `screen_tree`, the gate) are class
methods a run calls before it loads any rule module or LibCST (core.screening), so a rule keeps
them in a class of their own, in a module without LibCST beside it (`rules/<rule>_screen.py`,
found by `mcp_migrate.rules.all_screens`), and the rule class inherits them; this module
imports LibCST only for its type annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from mcp_migrate.core.byte_code import holds
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.gates import roots_migration
from mcp_migrate.core.record import record

if TYPE_CHECKING:  # the contract's screens run before LibCST is loaded (core/screening.py)
    import libcst as cst

    from mcp_migrate.core.context import FileContext


@record(frozen=True)
class Example:
    code: str
    reason: str


class Valid(Example):
    """Source on which the rule must stay silent."""


@record(frozen=True)
class Invalid(Example):
    """Source on which the rule must fire (at least once); `fixed`, when given, is the source
    after `fix --unsafe-fixes` (checked by the suite, as Fixit's `expected_replacement`)."""

    fixed: str | None = None


class Rule:
    CODE: ClassVar[str] = ""
    #: The rule runs on a file only when one of these byte strings occurs in it.
    SCREEN: ClassVar[tuple[bytes, ...]] = ()
    #: String values this rule wants to see: `visit_string` is called for every plain string
    #: literal (implicit concatenation included) whose value is one of these.
    WIRE_STRINGS: ClassVar[frozenset[str]] = frozenset()
    VALID: ClassVar[list] = []
    INVALID: ClassVar[list] = []
    #: The rule finds what supplies roots to servers (a provider, a `roots/list` answer): while
    #: one of its findings keeps no edit in a file, that file still provides roots, and its
    #: capability and list_changed fixes are only suggested (core.engine._still_providing).
    PROVIDES_ROOTS: ClassVar[bool] = False

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.resolver = context.resolver

    @classmethod
    def gate(cls) -> tuple[bytes, ...]:
        """Byte strings at least one of which every file this rule can report on contains: its
        page's `gate` (core.catalog), which the runner reads without importing the rule
        (core.gates). The engine joins the gates of all selected rules into one first test per
        file (few, short scans), so most files of a tree cost a handful of substring searches.
        A class without a page (or a gate on it) is gated by its SCREEN."""
        info = load_catalog().get(cls.CODE)
        return info.gate if info is not None and info.gate else cls.SCREEN

    @classmethod
    def kept_while_server_asks(cls) -> bool:
        """A client-side rule of Roots (its page's `side = "client"`: a provider, a capability,
        list_changed): its fixes are withheld while a server in the same run still asks for
        roots (core.coordination)."""
        info = load_catalog().get(cls.CODE)
        return info is not None and info.side == "client"

    @classmethod
    def migrates_roots(cls) -> bool:
        """A rule of either side of Roots (its page names a `side`): a finding its own rewrite
        leaves without an edit is given the removal of its construct as a suggestion
        (core.fix.suggested)."""
        return cls.CODE in roots_migration()

    @classmethod
    def gate_tokens(cls, settings) -> tuple[bytes, ...]:
        """The gate for one run's settings (a rule whose gate depends on configuration, such
        as the extend-apis wrappers, overrides this)."""
        return cls.gate()

    @classmethod
    def runs_on(cls, data: bytes, settings) -> bool:
        """Whether the engine runs this rule on a file: its scope and its screen both hold."""
        return cls.applies(data) and cls.screen(data)

    @classmethod
    def screen_imports(cls, data: bytes, path: str, settings) -> bool:
        """The byte screen's second chance, for a file its tokens miss: a call of an imported
        project function that does what the rule reports (one call away). False by default;
        like `screen`, False only where that cannot hold."""
        return False

    @classmethod
    def applies(cls, data: bytes) -> bool:
        """The rule's scope: files it looks at at all (the security rules look at MCP code
        only). Unlike `screen`, this is meaning, not a shortcut; both must hold."""
        return True

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """A cheap test that never loses a finding: False only where the rule cannot fire."""
        return any(holds(data, token) for token in cls.SCREEN)

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """The second screen, after the byte screens, on the file's code as the standard
        library's parser reads it (`syntax`: a core.screen.Syntax): False only where no finding
        of this rule can be, by the rule's own reasoning at the level of names, calls, keywords
        and literals. A rule without one runs wherever its byte screen lets it. Keep it beside
        the visits it mirrors: tests/test_screens.py fails on any finding it would drop."""
        return True

    def visit_string(self, node: cst.BaseString, value: str) -> None:
        """A string literal whose value is in WIRE_STRINGS (a wire method, say)."""

    def report(
        self,
        node: cst.CSTNode,
        message,
        *,
        severity: str | None = None,
        fix=None,
        help: str | None = None,
        via=None,
    ) -> None:
        """`message`: a core.messages.Message (what is wrong, and what to do), or the message
        alone with `help`. `via`: a caller's finding, the helper's it stands for (core.findings.Via)."""
        self.context.report(self.CODE, node, message, severity=severity, fix=fix, help=help, via=via)

    # Shared helpers ---------------------------------------------------------------------------
    @property
    def ancestors(self) -> list:
        """The nodes from the module down to (and including) the node being visited."""
        return self.context.ancestors

    def parent(self, depth: int = 1) -> cst.CSTNode | None:
        stack = self.context.ancestors
        return stack[-1 - depth] if len(stack) > depth else None
