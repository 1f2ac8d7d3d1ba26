"""The run's plan for Roots, decided from every file's check before any file is fixed: which
tools an RT001 rewrite gives a directories parameter, whether a server in the run still asks for
roots after this run's fixes, and what that makes of a client-side fix. The engine consults it
through the generic interface it knows (core.coordination.RunPlan: `tools`, `client_fix`).

A fix run first checks every file; each file's analysis leaves `FileNotes` (the tools its RT001
rewrite gives a directories parameter, whether its server still asks for roots after the
rewrites); the run joins them, with every file's remaining RT001 findings, into one `RootsPlan`
per kind of run (`plans`): the plan of `fix` and the plan of `fix --unsafe-fixes`. Every file
is then fixed with its run's plan (`Settings.run`), decided once before any file is fixed, so
the result does not depend on file order, flag order or how often fix runs, and `check` says
exactly what each command changes (`coordinated`).

The client side of Roots (the rules whose page says `side = "client"`: a roots
provider, a declared capability, list_changed sends, handlers and flags) keeps its fixes
withheld while a server in the run still asks for roots after the run's fixes: its legacy
clients, and the project's own client-server tests, need them.
"""

from __future__ import annotations

from typing import NamedTuple

from mcp_migrate.core.coordination import LEGACY_CLIENTS, FileNotes, RunPlan
from mcp_migrate.core.findings import FIXING_KINDS
from mcp_migrate.core.gates import roots_migration
from mcp_migrate.core.modules import in_test_code
from mcp_migrate.core.record import record, replace

#: The code of the rule whose findings are a server asking for roots.
REQUEST_CODE = "RT001"
#: The code of the rule whose fix reads the plan's tools (a client's calls to a migrated tool
#: pass the directories): `check` previews its fixes under the plan of `fix --unsafe-fixes`.
TOOL_CALLER_CODE = "RT002"


#: The fields the whole run decides, the same in each of its plans.
RUN_DECISIONS = ("code_migrated", "removable_names", "suggested_names", "imported_names", "warned_names")


@record(frozen=True)
class RootsPlan(RunPlan):
    """What the whole run knows before any file is fixed (`tools`: the MigratedTools of the
    run's RT001 rewrites, as core.coordination.RunPlan has them)."""

    #: Some server in the run still asks for roots after this run's fixes: clients keep theirs
    #: (their tests talk to it), and the client side's fixes are withheld.
    server_still_asks: bool = False
    #: For a run without unsafe fixes: every server that still asks is one `fix --unsafe-fixes`
    #: migrates, so a fix withheld here is reported as applied by that command.
    freed_by_unsafe: bool = False
    #: The files whose server still asks (display paths, sorted): the first is named in messages.
    asking: tuple = ()
    #: Every file outside test code that has a Roots finding gives it an edit (FileNotes
    #: .keeps_roots is nowhere set): the code the Roots tests test goes, and they may go with it.
    code_migrated: bool = False
    #: The names whose use warns of Roots' deprecation once the suggestions are applied, in any
    #: file outside test code (FileNotes.warned_names): the Roots tests that wait and spell one
    #: accept that warning.
    warned_names: tuple = ()
    #: (display path, name): the private definitions no other file of the run spells, which go
    #: with the fixes that leave them unread (FileNotes.private_removals, run.coordination).
    removable_names: tuple = ()
    #: (display path, name): the private definitions only the run's Roots tests spell besides
    #: their own file, where the code is migrated once they go (`code_migrated`): their removal
    #: is suggested, and applied with the suggested removals of those tests.
    suggested_names: tuple = ()
    #: (display path, name): the names other files of the run import from a file its fixes may
    #: change (run.reexports): their imports stay.
    imported_names: tuple = ()
    #: The plan of `fix --apply-suggestions`: a client-side fix it withholds is not applied either
    #: (its suggestion waits for the server that still asks once the suggestions are applied).
    applies_suggestions: bool = False
    #: (server path, tool, client path): the files whose RT001 rewrites are held as suggestions,
    #: because a client of the run that gives roots calls one of their tools and its fix is
    #: withheld (`held`).
    held: tuple = ()

    def suggestions_wait(self) -> bool:
        return self.applies_suggestions and self.server_still_asks

    def held_server(self, path: str) -> str | None:
        for server, tool, client in self.held:
            if server == path:
                others = tuple(where for where in self.asking if where != path)
                return HELD.format(tool=tool, client=client, where=where_asking(others))
        return None

    def decided_as(self, run: RootsPlan) -> RootsPlan:
        """This plan with what the whole run decided as `run` has it (the same in each of the
        run's plans: `plans`), for a file checked again under it."""
        return replace(self, **{field: getattr(run, field) for field in RUN_DECISIONS})

    def kept_imports(self, path: str) -> frozenset:
        return frozenset(name for where, name in self.imported_names if where == path)

    def tests_go_with_code(self) -> bool:
        return self.code_migrated

    def warned(self) -> frozenset:
        return frozenset(self.warned_names)

    def removable(self, path: str, name: str) -> bool:
        return (path, name) in self.removable_names

    def removable_as_suggestion(self, path: str, name: str) -> bool:
        return (path, name) in self.suggested_names

    @classmethod
    def joined(cls, notes) -> RootsPlan:
        """One plan from every file's notes (order-independent)."""
        notes = list(notes)
        return cls(
            tools=tuple(sorted({tool for note in notes for tool in note.tools})),
            server_still_asks=any(note.still_asks for note in notes),
            code_migrated=not any(note.keeps_roots or note.private_removals for note in notes),
            warned_names=tuple(sorted({name for note in notes for name in note.warned_names})),
        )

    def client_fix(self, kind: str) -> tuple | None:
        """While a server in the run still asks, a client-side fix is withheld (`coordinated`);
        otherwise it stays as the rule made it (None)."""
        if not self.server_still_asks:
            return None
        return coordinated(kind, self)


class FileAsks(NamedTuple):
    """One checked file, as the plans need it: its display path, its notes, its RT001 findings
    (kinds as the engine gave them) and suppressed RT001 findings, and whether `fix` and
    `fix --unsafe-fixes` apply RT001's rewrite in it (its config's unsafe-fixes and fix policy)."""

    path: str
    notes: FileNotes
    requests: tuple
    suppressed_requests: int
    rewritten_by_fix: bool
    rewritten_by_unsafe: bool
    #: A test file with Roots findings: its tests of the Roots behaviour may go with the code.
    roots_test: bool = False
    #: A finding of the file has an edit: a fix may change it (run.reexports reads its importers).
    edited: bool = False


def file_asks(result, rewritten_by_fix: bool, rewritten_by_unsafe: bool) -> FileAsks:
    """A caller of a helper that asks (a finding with `via`) asks only through that helper:
    whether the helper still asks is its own finding's, in its own file (djinnvim's first run
    kept its list_changed handler for a call of a helper the same run rewrote)."""
    return FileAsks(
        result.path,
        result.notes,
        tuple(f for f in result.findings if f.code == REQUEST_CODE and f.via is None),
        sum(1 for s in result.suppressed if s.finding.code == REQUEST_CODE),
        rewritten_by_fix,
        rewritten_by_unsafe,
        in_test_code(result.path) and any(f.code in roots_migration() for f in result.findings),
        any(f.fix != "none" for f in result.findings),
    )


def _asks_after(entry: FileAsks, rewritten: bool, suggestions: bool = False) -> bool:
    """Whether the file's server still asks for roots after a run that does (`rewritten`) or
    does not apply RT001's rewrite in it. A request without a rewrite (a hand-built `roots/list`,
    a caller of a helper), one a comment suppresses, a marker or a refusal (the notes) all stay;
    a request whose rewrite is a suggestion stays unless the run applies `suggestions`."""
    asks = entry.notes.asks_past_suggestions if suggestions else entry.notes.still_asks
    if asks or entry.suppressed_requests:
        return True
    applied = (*FIXING_KINDS, "display") if suggestions else FIXING_KINDS
    return any(f.fix not in applied or not rewritten for f in entry.requests)


class Plans(NamedTuple):
    """The plan of `fix` (each file's own unsafe-fixes), of `fix --unsafe-fixes`, and of
    `fix --apply-suggestions` (which takes the unsafe fixes too, and the suggested rewrites:
    their tools gain the parameter, their servers stop asking, so clients hand over)."""

    fix: RootsPlan
    unsafe: RootsPlan
    suggestions: RootsPlan


def plans(entries, removable: tuple = (), with_tests: tuple = (), imported: tuple = ()) -> Plans:
    """The two plans of a run, from every file's FileAsks (order-independent). `removable`:
    the (path, name) of FileNotes.private_removals that no other file of the run spells;
    `with_tests`: those that only the run's Roots tests spell besides, which go (as
    suggestions) only where the code is migrated once they do, its tests going with it."""
    entries = sorted(entries, key=lambda e: e.path)
    removable = tuple(sorted(set(removable)))
    with_tests = tuple(sorted(set(with_tests)))
    if with_tests and _code_migrated(entries, removable + with_tests):
        suggested = with_tests
    else:
        suggested = ()

    def one(attr: str) -> tuple:
        asking = tuple(e.path for e in entries if _asks_after(e, getattr(e, attr)))
        kept = held(entries, attr) if asking else ()
        holding = {server for server, _, _ in kept}
        tools = tuple(sorted({t for e in entries if getattr(e, attr) and e.path not in holding for t in e.notes.tools}))
        return tools, tuple(sorted({*asking, *holding})), kept

    unsafe_tools, unsafe_asking, unsafe_held = one("rewritten_by_unsafe")
    taken = [e for e in entries if e.rewritten_by_unsafe]
    suggested_tools = tuple(sorted({t for e in taken for t in (*e.notes.tools, *e.notes.suggested_tools)}))
    suggested_asking = tuple(e.path for e in entries if _asks_after(e, e.rewritten_by_unsafe, suggestions=True))
    fix_tools, fix_asking, fix_held = one("rewritten_by_fix")
    # What the whole run decided, the same in the three plans.
    run = RootsPlan(
        code_migrated=_code_migrated(entries, removable + suggested),
        warned_names=tuple(sorted({name for e in entries for name in e.notes.warned_names})),
        removable_names=removable,
        suggested_names=suggested,
        imported_names=imported,
    )
    unsafe = replace(
        run, tools=unsafe_tools, server_still_asks=bool(unsafe_asking), asking=unsafe_asking, held=unsafe_held
    )
    fix = replace(
        run,
        tools=fix_tools,
        server_still_asks=bool(fix_asking),
        freed_by_unsafe=bool(fix_asking) and not unsafe_asking,
        asking=fix_asking,
        held=fix_held,
    )
    suggestions = replace(
        run,
        tools=suggested_tools,
        server_still_asks=bool(suggested_asking),
        asking=suggested_asking,
        applies_suggestions=True,
    )
    return Plans(fix, unsafe, suggestions)


def held(entries, attr: str) -> tuple:
    """(server path, tool, client path) of each file whose RT001 rewrite the run applies
    (`attr` of its FileAsks) and that serves a tool a client of the run calls by name while it
    gives roots: in a run where a server still asks, that client's fix is withheld, so it keeps
    calling the tool without the directories, and the rewrite would break the call (python-sdk's
    roots story: its server took a required `directories`, its client still called
    `call_tool("show_roots", {})`). A tool whose new parameter is optional keeps its callers."""
    callers: dict = {}
    for e in entries:
        for name in e.notes.called_tools:
            callers.setdefault(name, e.path)
    if not callers:
        return ()
    out = []
    for e in entries:
        if not getattr(e, attr):
            continue
        changed = {t.tool for t in e.notes.tools if not t.optional} | set(e.notes.served_tools)
        hit = sorted(changed & callers.keys())
        if hit:
            out.append((e.path, hit[0], callers[hit[0]]))
    return tuple(out)


def _code_migrated(entries, removable: tuple) -> bool:
    """No file of the run keeps Roots behaviour outside its tests: none keeps a finding without
    an edit, nor a private definition that another file spells (its removal is not written)."""
    kept = set(removable)
    return not any(
        e.notes.keeps_roots or any((e.path, name) not in kept for name in e.notes.private_removals) for e in entries
    )


def for_file(plan: RootsPlan, unsafe: bool) -> RootsPlan:
    """The plan a file is fixed with: in a run without unsafe fixes, a file whose own config
    applies them gets no promise that `--unsafe-fixes` frees its withheld fixes (it would apply
    them now)."""
    if unsafe and plan.freed_by_unsafe:
        return replace(plan, freed_by_unsafe=False)
    return plan


#: Why a server's rewrite is held as a suggestion (RootsPlan.held_server).
HELD = (
    "{client} calls its tool `{tool}` and still gives roots, its fix withheld while a server in {where}"
    " still asks: rewritten now, the tool would no longer get the directories that client gives"
)
#: Said before the help of a finding whose fix the run withholds, or leaves to `fix --unsafe-fixes`.
WITHHELD = "a suggestion while a server in this run still asks for roots, in {where}: " + LEGACY_CLIENTS
FREED = "fixed only by `mcp-migrate fix --unsafe-fixes`, which also migrates the server in {where} that still asks for roots"


def coordinated(kind: str, plan: RootsPlan) -> tuple:
    """(kind, note) of a client-side fix of kind `kind` under `plan`: unchanged while no server
    in the run still asks; else `unsafe` when `fix --unsafe-fixes` frees it, otherwise `display`
    (the removal is the migration's edit, shown as a suggestion: issue 36 §3, every finding
    carries its edit) or `none` for a review marker, with the reason to add to the help (None
    when unchanged). The fix itself is never applied under such a plan."""
    if kind == "none" or not plan.server_still_asks:
        return kind, None
    where = where_asking(plan.asking)
    if plan.freed_by_unsafe:  # a suggestion or a review marker stays what it is
        return ("unsafe" if kind in ("safe", "unsafe") else kind), FREED.format(where=where)
    return ("display" if kind in ("safe", "unsafe", "display") else "none"), WITHHELD.format(where=where)


def where_asking(asking: tuple) -> str:
    """The first file whose server still asks, and how many more."""
    if not asking:
        return "elsewhere"
    more = len(asking) - 1
    return asking[0] + (f" and {more} more file{'s' if more != 1 else ''}" if more else "")
