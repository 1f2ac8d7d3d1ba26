"""What one file's analysis tells the rest of its run, and what the run tells the file, as typed
records the walk and the rewrites use. The three values a rewrite notes (`MigratedTool`,
`ClientCall`, `KeptPlumbing`) are named tuples: immutable, ordered by their fields, and made in
a sixth of a frozen ordered dataclass's time on import (issue 37: 1.0-1.2 ms each, on every run).

A file's rewrites leave `FileNotes` (the tools an RT001 rewrite gives a directories parameter,
whether its server still asks for roots, the client calls and environment variables it makes
use the directories, the plumbing it marked for review): the results cache keeps them and the
migration report lists them. What the run decides from every file's notes reaches each file as
its `Settings.run`, a `RunPlan`: the engine and the rewrites consult only this interface (the
tools clients now pass the directories to, and what becomes of a client-side fix); a check
keeps the questions it asked with their answers (`AskedPlan`), so the run checks a file again
under another plan only where that plan answers one of them otherwise. The plan that
knows Roots (which servers still ask, `fix` against `fix --unsafe-fixes`, the words a withheld
fix's help gets) is the run floor's: run.roots_plan.
"""

from __future__ import annotations

from typing import NamedTuple

from mcp_migrate.core.record import field, record


class MigratedTool(NamedTuple):
    """A tool whose RT001 rewrite adds a parameter: clients calling it must pass the directories.
    `optional`: the parameter has a default (roots only stood in for a missing argument);
    `single`: it is the tool's own parameter for one directory (a client passes the first
    directory its roots gave, not a list)."""

    tool: str
    parameter: str
    optional: bool = False
    single: bool = False


class ClientCall(NamedTuple):
    """A client call a rewrite makes pass the directories: `kind` "tool" (a `call_tool` of
    `target` now passes the parameter `passes`) or "env" (the stdio server `target` is started
    with the environment variable `passes`)."""

    target: str
    passes: str
    kind: str = "tool"


class KeptPlumbing(NamedTuple):
    """A project's public plumbing for roots (a `list_roots_callback=` parameter passed through
    to the SDK) that a rewrite marked for review instead of leaving it silently dead: `kind`
    "parameter" of `owner` (a function's qualified name). The migration report lists it among
    the interface changes (issue 20 §3)."""

    kind: str
    name: str
    owner: str


@record
class FileNotes:
    """What one file's analysis tells the run (and the migration report's interface changes)."""

    tools: list = field(default_factory=list)
    #: A server in this file keeps asking for roots (a request no rewrite touched, or an
    #: era-portable bridge kept on purpose).
    still_asks: bool = False
    #: MigratedTools whose rewrite is only suggested (a display fix): `fix --apply-suggestions`
    #: applies it, so that command's plan counts on them (`tools` holds the applied ones).
    suggested_tools: list = field(default_factory=list)
    #: The file's server keeps asking even once its suggestions are applied: a request with no
    #: edit or only a review marker, or a bridge kept on purpose (still_asks says more: it is
    #: also set by a request whose rewrite is only suggested).
    asks_past_suggestions: bool = False
    #: Environment variables this file's rewrites make the server read (server-config).
    env_vars: list = field(default_factory=list)
    #: ClientCalls this file's rewrites make pass the directories.
    client_calls: list = field(default_factory=list)
    #: KeptPlumbing this file's rewrites marked for review (callers still hand roots to it).
    kept: list = field(default_factory=list)
    #: A file outside test code with a Roots finding that gets no edit at all (no rewrite, no
    #: suggestion, or only a review marker): the project keeps that Roots behaviour, and its
    #: tests with it.
    keeps_roots: bool = False
    #: The names (a function, a parameter) whose use warns of Roots' deprecation in this file,
    #: outside test code, once its suggestions are applied (a deprecation they write, or one it
    #: already has): the tests that spell one accept the warning (core.fix.accept_deprecation).
    warned_names: list = field(default_factory=list)
    #: Private definitions of this file (module- or class-level names) whose removal it would
    #: suggest with the fixes that leave them unread, provided no other file of the run spells
    #: their name (a test calling `session._handle_roots_list_changed()` directly): only the run
    #: can tell (RunPlan.removable). keeps_roots counts them as given their edit.
    private_removals: list = field(default_factory=list)
    #: The tools a client of this file that gives roots calls by name (`call_tool("x", ...)`):
    #: while the run withholds that client's fix, a rewrite of those tools breaks its calls.
    called_tools: list = field(default_factory=list)
    #: The tools an applied server-config rewrite of this file changes (every tool the file
    #: serves: the directories now come from a setting the file's clients do not give).
    served_tools: list = field(default_factory=list)


@record(frozen=True)
class RunPlan:
    """What the rest of the run tells one file before it is fixed, as the engine and the
    rewrites consult it. This one is a file's alone (the default): no other file's tools, no fix
    held back; a run's own plan (run.roots_plan.RootsPlan) says more."""

    #: MigratedTools: the tools whose rewrite (in any file of the run) adds a parameter, which a
    #: client's calls to them now pass.
    tools: tuple = ()

    def client_fix(self, kind: str) -> tuple | None:
        """What becomes of a client-side fix (its rule's page says `side = "client"`) of kind
        `kind` in this run: None, it stays as the rule made it; or (kind, note): the fix is
        withheld from the run, its finding reported with that kind and the note before its help."""
        return None

    def removable(self, path: str, name: str) -> bool:
        """Whether the private definition `name` of the file `path` (display path) may go with
        the fixes that leave it unread: no other file of the run spells its name. A file alone
        cannot know (another module may call it), so: no."""
        return False

    def kept_imports(self, path: str) -> frozenset:
        """The names other files of the run import from the file `path`: its fixes keep their
        imports though nothing in it reads them any more. A file alone knows of none."""
        return frozenset()

    def removable_as_suggestion(self, path: str, name: str) -> bool:
        """Whether that definition's removal may be suggested though the run's Roots tests spell
        its name: they go with the code, as suggestions too. A file alone cannot know: no."""
        return False

    def warned(self) -> frozenset:
        """The names whose use warns of Roots' deprecation in code of the run outside its tests
        once the suggestions are applied (FileNotes.warned_names): a Roots test that spells one
        accepts that warning. A file alone knows nothing of the code its tests test: none."""
        return frozenset()

    def suggestions_wait(self) -> bool:
        """Whether this is the plan of `fix --apply-suggestions` while a server of the run still
        asks once the suggestions are applied: a client-side suggestion then waits too, unless
        it keeps the roots working (a deprecation). A file alone: no."""
        return False

    def held_server(self, path: str) -> str | None:
        """Why the RT001 rewrites of the file `path` (display path) are only suggested in this
        run, or None: a client of the run that gives roots calls one of its tools, and the run
        withholds that client's fix, so its calls would reach the rewritten tool without the
        directories. A file alone knows no client: None."""
        return None

    def tests_go_with_code(self) -> bool:
        """Whether a test of the Roots behaviour may be removed with the code it tests: only
        where the run knows that no file outside test code keeps a Roots finding without an
        edit (FileNotes.keeps_roots). A file alone knows nothing of the code its tests test."""
        return False


#: Said before the help of a finding in test code whose module accepts the deprecation warning
#: (core.fix.accept_deprecation): an edit of the tests, never withheld as a client-side fix is.
TESTS_ACCEPT = (
    "a suggestion with the deprecations of the code this tests (`fix --apply-suggestions` applies them together):"
    " that code keeps its Roots behaviour and warns, so this test module accepts the warning"
)


def with_note(help_text: str, note: str | None) -> str:
    """A finding's help with the run's reason (issue 20 §1: the reason goes in the help; the
    message stays short)."""
    if not note or help_text == note or help_text.startswith(f"{note}; "):
        return help_text  # said once (the engine and the run's coordination may both say it)
    return f"{note}; {help_text}" if help_text else note


#: Why a client-side fix is held while a server still asks (run.roots_plan.WITHHELD ends so).
LEGACY_CLIENTS = "its legacy clients need this"
#: How a suggestion's help says which command applies it (core.fix.suggested's prefixes).
APPLIES = "(`fix --apply-suggestions` applies it)"
#: APPLIES of a client-side suggestion that waits for a server that still asks.
APPLIES_ONCE_FREED = "(`fix --apply-suggestions` applies it once that server no longer asks)"
#: Said of a client-side suggestion that waits for a server that still asks once the
#: suggestions are applied (RunPlan.suggestions_wait).
WAITS = "`fix --apply-suggestions` leaves it too, until that server no longer asks"


#: Words of the help of a suggestion that keeps the roots working (a deprecation, or what goes
#: with one: core.fix.suggested, core.engine): `fix --apply-suggestions` applies it even while a
#: server still asks.
KEEPS_WORKING = ("a suggested deprecation (", ", which deprecates `")


def waiting(help_text: str) -> str:
    """The help of a client-side suggestion that `fix --apply-suggestions` leaves while a server
    still asks after it: its "applies it" said with the condition, or the condition added (the
    final re-review of session 52: the help said the command applies what it had left). A
    deprecation's help stays: that command applies it."""
    if any(words in help_text for words in KEEPS_WORKING):
        return help_text
    if APPLIES in help_text:
        return help_text.replace(APPLIES, APPLIES_ONCE_FREED)
    if LEGACY_CLIENTS in help_text:  # right after the reason it is held
        return help_text.replace(LEGACY_CLIENTS, f"{LEGACY_CLIENTS}; {WAITS}", 1)
    return with_note(help_text, WAITS)


def note_still_asks(context, suggested: bool = False) -> None:
    """Record that this file's server keeps asking for roots: after `fix --apply-suggestions`
    too, unless the request's rewrite is `suggested` (a display fix that command applies)."""
    context.notes.still_asks = True
    if not suggested:
        context.notes.asks_past_suggestions = True


def note_migrated_tool(context, tool: MigratedTool) -> None:
    """Record that this file's rewrite gives `tool` a parameter."""
    context.notes.tools.append(tool)


def note_called_tools(context, names) -> None:
    """Record the tools a client of this file that gives roots calls by name."""
    for name in names:
        if name not in context.notes.called_tools:
            context.notes.called_tools.append(name)


def note_served_tools(context, names) -> None:
    """Record the tools this file's server-config rewrite changes."""
    for name in names:
        if name not in context.notes.served_tools:
            context.notes.served_tools.append(name)


def note_env_var(context, name: str) -> None:
    """Record that this file's rewrite makes the server read the environment variable `name`."""
    if name not in context.notes.env_vars:
        context.notes.env_vars.append(name)


def note_client_call(context, call: ClientCall) -> None:
    """Record that this file's rewrite makes a client call pass the directories."""
    if call not in context.notes.client_calls:
        context.notes.client_calls.append(call)


def note_kept_plumbing(context, item: KeptPlumbing) -> None:
    """Record that this file's rewrite marked `item` for review instead of removing its use."""
    if item not in context.notes.kept:
        context.notes.kept.append(item)


#: The RunPlan questions an analysis may ask: its methods, and its one field (`tools`).
PLAN_QUESTIONS = frozenset(
    {"tools", *(name for name, value in vars(RunPlan).items() if callable(value) and not name.startswith("_"))}
)


class AskedPlan:
    """A RunPlan that answers as `plan` does and keeps each question with its answer (`asked`:
    (question, arguments, the answer as `plain` data), in the order asked). A file's check under
    one plan is its check under another that answers each of those questions alike
    (`same_answers`): the analysis reads nothing else of the run, so the run's coordination
    need not check that file again (run.coordination)."""

    def __init__(self, plan: RunPlan) -> None:
        self._plan = plan
        self.asked: list = []

    @property
    def tools(self) -> tuple:
        answer = self._plan.tools
        self.asked.append(("tools", (), plain(answer)))
        return answer

    def __getattr__(self, name: str):
        if name not in PLAN_QUESTIONS:
            raise AttributeError(name)
        method = getattr(self._plan, name)

        def asked(*args):
            answer = method(*args)
            self.asked.append((name, args, plain(answer)))
            return answer

        return asked


def plain(answer):
    """An answer as plain data, tuples of strings, booleans and None (what the results cache
    keeps, and what `same_answers` compares): a set sorted, a MigratedTool as its fields."""
    if isinstance(answer, (frozenset, set)):
        return tuple(sorted(plain(item) for item in answer))
    if isinstance(answer, MigratedTool):
        return (answer.tool, answer.parameter, answer.optional, answer.single)
    if isinstance(answer, (tuple, list)):
        return tuple(plain(item) for item in answer)
    return answer


def same_answers(asked: tuple, plan: RunPlan, data: bytes) -> bool:
    """Whether `plan` answers each of a check's questions (`AskedPlan.asked`) as they were
    answered, for the file of `data`. The names whose use warns (`warned`) count only where the
    file spells them (core.fix.accept_deprecation.spells_any): a name whose last identifier is
    nowhere in its bytes cannot change what the check made of it."""
    for name, args, answer in asked:
        now = plain(plan.tools if name == "tools" else getattr(plan, name)(*args))
        if now == answer:
            continue
        if name != "warned" or any(_may_spell(data, changed) for changed in set(now) ^ set(answer)):
            return False
    return True


def _may_spell(data: bytes, warned_name: str) -> bool:
    """Whether the file's bytes may use a warned name: its identifier occurs in them (`f()`:
    `f`; `Owner(p=`: `p`, the keyword a call passes). An identifier other than ASCII may be
    spelled in another encoding: it may, then."""
    if warned_name.endswith("()"):
        identifier = warned_name[:-2].rpartition(".")[2]
    else:
        identifier = warned_name.rpartition("(")[2].rstrip("=")
    return not identifier.isascii() or identifier.encode() in data
