"""What the files of one run decide together (run.roots_plan holds the plans themselves): a fix
run's plan, decided from a check of every file before any is fixed; a check's findings with the
fix kinds the run's `fix` commands give them, a client's file checked again under the plan of
`fix --unsafe-fixes`; and a helper's callers joined to its finding once every file is checked
(core.callers).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import NamedTuple

from mcp_migrate.core import callers
from mcp_migrate.core.coordination import TESTS_ACCEPT, same_answers, waiting, with_note
from mcp_migrate.core.findings import FIXING_KINDS, FileError, FileResult
from mcp_migrate.core.gates import roots_migration
from mcp_migrate.core.modules import in_test_code
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.record import replace
from mcp_migrate.project.discovery import SourceFile
from mcp_migrate.run import private_names, reexports
from mcp_migrate.run.one_file import check_data
from mcp_migrate.run.plan import adjusted, fixes_of
from mcp_migrate.run.records import FileRef, RunResult
from mcp_migrate.run.roots_plan import (
    TOOL_CALLER_CODE,
    WITHHELD,
    RootsPlan,
    coordinated,
    file_asks,
    for_file,
    plans,
    where_asking,
)
from mcp_migrate.run.schedule import run_items


def _applies_rt001(unsafe: bool, fixes) -> bool:
    """Whether a file's fix run applies RT001's rewrite (an unsafe fix, unless the policy
    withholds it or makes it safe)."""
    kind = fixes.kind("RT001", "unsafe")
    return kind == "safe" or (kind == "unsafe" and unsafe)


class PlannedRun(NamedTuple):
    """A fix run's items once planned (`with_run_plan`): (SourceFile, Settings with the run's
    plan, unsafe, FixPolicy) each; each file's check before the plan, in the same order; and
    whether the run decided anything beyond each file alone (without, every check's fix kinds
    are the fix run's too)."""

    items: list
    checks: list
    coordinated: bool


def with_run_plan(items: list, jobs: int, check: Callable | None = None) -> PlannedRun:
    """Every file's settings with the run's plan (run.roots_plan.RootsPlan: the tools that gain
    a directories parameter, whether a server still asks after this run), decided once from a
    check of every file before any is fixed, whatever the flags: plain `fix` and
    `fix --unsafe-fixes` see the same coordination, so the unsafe run only adds fixes. A server
    file whose RT001 rewrite this run does not apply (its config keeps unsafe fixes off, or
    RT001 unfixable) still asks for roots. Returns the items with their settings planned, each
    file's check, and whether the run decided anything beyond each file alone (PlannedRun);
    `check` checks [(SourceFile, Settings)] (the results cache, the pool), by default in the
    pool."""
    pairs = [(source, settings) for source, settings, _, _ in items]
    checks = check(pairs) if check is not None else run_items(pairs, jobs)
    entries = [
        file_asks(result, _applies_rt001(unsafe, fixes), _applies_rt001(True, fixes))
        for (_source, _settings, unsafe, fixes), result in zip(items, checks)
    ]
    readers = [
        (result.path, FileRef(source.path, settings).read) for (source, settings, *_), result in zip(items, checks)
    ]
    suggestions = any(settings.apply_suggestions for _source, settings, _, _ in items)
    run_plan = _fixed_with(plans(entries, *_searched(entries, readers)), suggestions)
    if run_plan == RootsPlan():
        return PlannedRun(items, checks, False)
    planned = [
        (source, replace(settings, run=for_file(run_plan, unsafe)), unsafe, fixes)
        for source, settings, unsafe, fixes in items
    ]
    return PlannedRun(planned, checks, True)


def _fixed_with(both, suggestions: bool) -> RootsPlan:
    """The plan a fix run applies: `fix --apply-suggestions` takes the suggested rewrites too, so
    its plan counts on their tools and servers (run.roots_plan.Plans.suggestions)."""
    return both.suggestions if suggestions else both.fix


def planned_settings(data: bytes, display: str, settings, unsafe: bool, fixes):
    """Standard input's settings with the plan of a run of that one file (`with_run_plan`)."""
    from mcp_migrate.run import analysis

    result = analysis.check(data, display, settings)
    entries = [file_asks(result, _applies_rt001(unsafe, fixes), _applies_rt001(True, fixes))]
    both = plans(entries, *_searched(entries, [(result.path, lambda: data)], imports=False))
    run_plan = _fixed_with(both, settings.apply_suggestions)
    return settings if run_plan == RootsPlan() else replace(settings, run=for_file(run_plan, unsafe))


def coordinate_check(run: RunResult, recheck: Callable | None = None) -> RunResult:
    """A check's findings with the fix kinds the run's `fix` commands give them
    (run.roots_plan): a client-side fix that plain `fix` withholds while a server still asks
    is `unsafe` when `fix --unsafe-fixes` frees it, else `none`, its help saying why; so what
    `check` calls fixable is what each command changes. Where the plan of `fix --unsafe-fixes`
    changes a client's fix itself (a tool's call now passes the directories), the client's file
    is checked again under that plan: its findings and previews are that command's fixes."""
    entries = []
    for result in run.results:
        ref = run.files.get(result.path)
        if ref is None:
            continue
        fixes = fixes_of(ref.policy)
        entries.append(
            file_asks(result, _applies_rt001(run.unsafe_fixes_for(result.path), fixes), _applies_rt001(True, fixes))
        )
    readers = ((path, ref.read) for path, ref in run.files.items())  # (read once, if at all)
    both = plans(entries, *_searched(entries, readers))
    if both.unsafe.tools or both.unsafe.held:
        _check_under(run, for_file(both.unsafe, True), recheck or run_items)
    decided = (both.fix.code_migrated, both.fix.warned_names, both.fix.removable_names, both.fix.suggested_names)
    if any(decided) or both.fix.imported_names:
        _check_again_under_run_plan(run, both.fix, recheck or run_items)
    if both.fix.server_still_asks:
        _withhold_client_fixes(run, both.fix, waits=both.suggestions.server_still_asks)
    if any(_freed_by_suggestions(both)):
        _check_under_suggestions(run, both, recheck or run_items)
    return run


def _withhold_client_fixes(run: RunResult, run_plan: RootsPlan, waits: bool = False) -> None:
    """Each client-side finding with the kind `fix` gives it while a server still asks; with
    `waits`, a server still asks once the suggestions are applied, and the help says that
    `fix --apply-suggestions` leaves the suggestion too (core.coordination.waiting)."""
    from mcp_migrate.api import client_side

    for result in run.results:
        ref = run.files.get(result.path)
        if ref is None:
            continue
        kept = client_side(ref.settings.select)  # no rule imported: a warm run may load none
        plan = for_file(run_plan, run.unsafe_fixes_for(result.path))

        def one(finding, kept=kept, plan=plan):
            if finding.code not in kept or finding.fix == "none" or finding.help.startswith(TESTS_ACCEPT):
                return finding  # (a test module accepting a deprecation is no client-side fix)
            kind, note = coordinated(finding.fix, plan)
            help_text = with_note(finding.help, note)
            if waits and kind == "display" and note is not None:
                help_text = waiting(help_text)
            return replace(finding, fix=kind, help=help_text)

        result.findings = [one(f) for f in result.findings]


def _freed_by_suggestions(both) -> tuple:
    """(freed, more_tools): how `fix --apply-suggestions` changes client fixes beyond `fix` and
    `fix --unsafe-fixes`: its suggested rewrites leave no server asking for roots, or give more
    tools the parameter."""
    freed = both.fix.server_still_asks and not both.suggestions.server_still_asks
    return freed, bool(set(both.suggestions.tools) - set(both.unsafe.tools))


#: Said before the help of a client's suggestion that the plan of `fix --apply-suggestions` makes.
WITH_SUGGESTIONS = "`mcp-migrate fix --apply-suggestions` applies it with the suggested rewrite of {which}"


def _check_under_suggestions(run: RunResult, both, recheck: Callable) -> None:
    """Check again, under the plan of `fix --apply-suggestions` (run.roots_plan.Plans
    .suggestions), the files whose client fixes it changes: clients hand their directories to
    the tools the suggested rewrites give a parameter, and no longer wait for a server those
    rewrites migrate. Only files `fix` and `fix --unsafe-fixes` leave untouched qualify (no
    applied fix whose preview the new plan could change), and only where the new plan gives an
    edit to every finding that had one: their findings become suggestions with that command's
    edits (the preview is the fix: issue 33 §3), the others stay as they were."""
    from mcp_migrate.api import client_side

    plan = for_file(both.suggestions, True)
    freed, more_tools = _freed_by_suggestions(both)
    chosen, clients = [], {}  # clients: index -> the file's client-side codes
    for index, result in enumerate(run.results):
        ref = run.files.get(result.path)
        if ref is None or result.errors or any(f.fix in FIXING_KINDS for f in result.findings):
            continue
        kept = client_side(ref.settings.select)
        if any(
            (freed and f.code in kept and f.fix != "none") or (more_tools and f.code == TOOL_CALLER_CODE)
            for f in result.findings
        ):
            chosen.append((index, ref, replace(ref.settings, run=plan)))
            clients[index] = kept
    if not chosen:
        return
    before = {index: run.results[index] for index, _, _ in chosen}
    _replace_results(run, chosen, recheck)
    if freed:  # the same reason as a withheld fix's, and what takes it
        note = (
            WITHHELD.format(where=where_asking(both.fix.asking)) + "; " + WITH_SUGGESTIONS.format(which="that server")
        )
    else:
        note = "a suggestion: " + WITH_SUGGESTIONS.format(which="the tools it calls")
    for index, ref, _settings in chosen:
        old, new = before[index], run.results[index]
        if new is old:
            continue
        had = {(f.code, f.line, f.column) for f in old.findings if f.fix != "none"}
        has = {(f.code, f.line, f.column) for f in new.findings if f.fix != "none"}
        if not had <= has:
            run.results[index], run.files[old.path] = old, ref  # the first check stands
            continue
        new.findings = [_as_suggestion(f, f.code in clients[index], note) for f in new.findings]


def _as_suggestion(finding, client: bool, note: str):
    """A finding of the `--apply-suggestions` check: shown as a suggestion (plain `fix` and
    `fix --unsafe-fixes` leave its file untouched); a client-side one says which server's
    suggested rewrite its edit goes with. A review marker stays one: it is no edit."""
    if finding.fix in ("none", "marker"):
        return finding
    return replace(finding, fix="display", help=with_note(finding.help, note if client else None))


def join_callers(run: RunResult) -> RunResult:
    """A helper's callers as related locations of the helper's finding (core.callers), once the
    run's plans have counted them (a caller's file still asks for roots while its helper does)."""

    def real_path(result) -> str:
        ref = run.files.get(result.path)
        return os.path.abspath(ref.path if ref is not None and ref.path else result.path)

    # After a fix, the files it rewrote: a helper there whose finding is gone asks no more.
    rewritten = {real_path(r) for r in run.results if r.fixed_source is not None} if run.fix_run else set()
    callers.join(run.results, real_path, frozenset(rewritten))
    return run


def _check_under(run: RunResult, unsafe_plan: RootsPlan, recheck: Callable) -> None:
    """Check again, with the plan of `fix --unsafe-fixes` (`unsafe_plan`), each file whose
    provider fix depends on it (run.roots_plan.TOOL_CALLER_CODE): that plan's migrated tools
    change the client's fix (its calls pass the directories instead of a review marker), so
    its findings' kinds and fix previews must come from that plan to be what
    `fix --unsafe-fixes` applies (issue 33 §3: the preview is the fix). `recheck` checks
    [(SourceFile or display path, Settings)] as the run did (its cache, its pool). The `fix`
    plan's kinds are then derived from these (coordinate_check). A server whose rewrite that plan
    holds (RootsPlan.held) is checked again too: its rewrite is that command's suggestion."""
    held = {server for server, _, _ in unsafe_plan.held}
    chosen = []
    for index, result in enumerate(run.results):
        ref = run.files.get(result.path)
        if ref is None or result.errors:
            continue
        # A test file's providers wait with no edit until the run knows its code migrated
        # (RootsPlan.tests_go_with_code): under that plan they may hand over too.
        waiting = unsafe_plan.tests_go_with_code() and in_test_code(result.path)
        if result.path in held or any(
            f.code == TOOL_CALLER_CODE and (f.fix != "none" or waiting) for f in result.findings
        ):
            chosen.append((index, ref, replace(ref.settings, run=unsafe_plan)))
    _replace_results(run, chosen, recheck, first=True)


def _replace_results(run: RunResult, chosen: list, recheck: Callable, first: bool = False) -> None:
    """Check `chosen` ([(index in run.results, FileRef, Settings)]) again and put the results
    in place of the first check's (which stand where the new check fails). With `first` (the
    results are still the checks' own: no coordination has changed them yet), a file whose
    check asked its plan nothing the new plan answers otherwise (core.coordination
    .same_answers) keeps its result: checked again, it would give the same one."""
    if first:
        chosen = [entry for entry in chosen if not _answered_alike(run, *entry)]
    if not chosen:
        return
    sources = [ref.path if ref.data is None else None for _, ref, _ in chosen]
    # What the first checks worked out that these would again (a huge test module's partial
    # source, the helper modules' analyses), for whichever worker process takes them
    # (core.project_view.handing).
    handed = tuple(entry for index, _, _ in chosen for entry in run.results[index].handed)
    with view_of(chosen[0][2]).handing(handed):
        if all(path is not None for path in sources):
            items = [(SourceFile(ref.path, run.results[i].path), s) for i, ref, s in chosen]
            again = recheck(items)
        else:
            again = _recheck_here([(run.results[i].path, ref, s) for i, ref, s in chosen])
    for (index, ref, settings), result in zip(chosen, again):
        if result.errors:
            continue  # the first check's result stands
        run.results[index] = adjusted([result], {result.path: ref.policy})[0]
        run.files[result.path] = ref._replace(settings=settings)  # what propose_fixes runs


def _answered_alike(run: RunResult, index: int, ref, settings) -> bool:
    """Whether the first check of `run.results[index]` stands under `settings` (its questions to
    the plan answered alike: core.coordination.same_answers); the file then goes on with
    `settings`, as a file checked again does (what propose_fixes runs)."""
    asked = run.results[index].plan_asked
    if asked is None:
        return False
    if any(name == "warned" for name, _, _ in asked):
        try:
            data = ref.read()
        except OSError:
            return False
    else:
        data = b""
    if not same_answers(asked, settings.run, data):
        return False
    run.files[run.results[index].path] = ref._replace(settings=settings)
    return True


def _check_again_under_run_plan(run: RunResult, run_plan: RootsPlan, recheck: Callable) -> None:
    """Check again, under what the whole run decided of them, the test files with Roots findings
    when no code outside the tests keeps Roots behaviour (RootsPlan.code_migrated: a test of
    that behaviour may then go with it) or that code warns of its deprecation (RootsPlan
    .warned_names: the tests accept the warning), and the files whose private definitions no other file
    spells (RootsPlan.removable_names: they go with the fixes that leave them unread). `fix`
    does both under the run's plan, so `check` shows the same edits. The plan carries nothing
    else: the client-side coordination of the rechecked findings is still `coordinate_check`'s."""
    codes = roots_migration()
    private = {path for path, _ in (*run_plan.removable_names, *run_plan.suggested_names, *run_plan.imported_names)}
    chosen = []
    for index, result in enumerate(run.results):
        ref = run.files.get(result.path)
        if ref is None or result.errors:
            continue
        waiting = run_plan.code_migrated or bool(run_plan.warned_names)
        tests = waiting and in_test_code(result.path) and any(f.code in codes for f in result.findings)
        if tests or result.path in private:
            plan = ref.settings.run if isinstance(ref.settings.run, RootsPlan) else RootsPlan()
            plan = plan.decided_as(run_plan)
            chosen.append((index, ref, replace(ref.settings, run=plan)))
    _replace_results(run, chosen, recheck, first=True)


def _searched(entries: list, readers: Iterable, imports: bool = True) -> tuple:
    """(RootsPlan.removable_names, the candidates for RootsPlan.suggested_names,
    RootsPlan.imported_names) of a run, from one read of each file for both byte searches: its
    files' private removals no other file spells, and those only its Roots tests spell
    (run.private_names); and, with `imports`, what other files import from the files a fix may
    change (run.reexports)."""
    candidates = [(e.path, name) for e in entries for name in e.notes.private_removals]
    spellings = private_names.Spellings(candidates, frozenset(e.path for e in entries if e.roots_test))
    importers = reexports.Importers([e.path for e in entries if e.edited] if imports else ())
    searches = [search for search in (spellings, importers) if search.wanted]
    if searches:
        for path, read in readers:
            data = private_names.read_or_none(read)
            for search in searches:
                search.feed(path, data)
    return (*spellings.result(), importers.result())


def _recheck_here(items: list) -> list:
    """[(display, FileRef, Settings)] checked in this process (standard input's bytes)."""
    out = []
    for display, ref, settings in items:
        try:
            out.append(check_data((SourceFile(ref.path or display, display), settings, ref.read())))
        except OSError as exc:
            out.append(FileResult(display, errors=[FileError(display, "internal", str(exc))]))
    return out
