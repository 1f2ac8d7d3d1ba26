"""One file checked or fixed the way the CLI promises, around the pure core (which honours a
bare `# noqa` itself: core.suppress): the fix previews, and the config's fix applicability
(run.applicability). The runner's workers, standard input and `--add-noqa` all come
through here."""

from __future__ import annotations

from mcp_migrate import api
from mcp_migrate.api import may_report
from mcp_migrate.core.coordination import AskedPlan
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.record import replace
from mcp_migrate.run import parser_handover
from mcp_migrate.run.applicability import NO_POLICY, FixPolicy, adjust, staged_fix


def check(data: bytes, display: str, settings):
    """The engine's check of one file (with its fix previews when `settings.fix_previews`).
    Fix kinds are the engine's: callers apply the config's FixPolicy
    (`applicability.adjust`) after the results cache. A file no selected rule can report on
    (core.gates) gets the engine's empty result without loading the rules or LibCST, and so
    does one whose screens leave no rule to run (api.screened_out: the rules' screens only). In a
    pool worker that has not loaded LibCST, a file left to it may be handed over (run.parser_handover)."""
    if not may_report(data, settings):
        return unreported(display, settings)
    done = api.screened_out(data, display, settings)
    if done is not None:
        done.previewed = bool(settings.fix_previews)
        done.plan_asked = ()
        return done
    if parser_handover.hands_over(len(data)):  # a pool worker without LibCST: to the worker that has it
        return parser_handover.HANDED
    asked = AskedPlan(settings.run)
    settings = replace(settings, run=asked)
    if not settings.fix_previews:
        result = api.check_bytes(data, display, settings)
    else:
        result = _with_previews(api.analyze(data, display, settings), data, display, settings)
        result.previewed = True
        result.finding_fixes = _as_hunks(data, result.finding_fixes)
    result.plan_asked = tuple(asked.asked)
    return result


def unreported(display: str, settings) -> FileResult:
    """The check's result for a file no selected rule can report on (`may_report` False):
    empty, and previewed when the run previews (there is nothing to preview); it asked its
    run's plan nothing."""
    return FileResult(display, previewed=bool(settings.fix_previews), plan_asked=())


def _with_previews(analysis, data: bytes, display: str, settings):
    """The check's result plus its fix previews, built from the tree the check parsed (no
    second parse or walk): each rule's change, and each finding's own where its rule has
    others in the file (as bytes here; `check` keeps only their hunks). A rule whose fixes
    overlap (two requests in one tool) has its preview continued as `fix` applies them."""
    result = analysis.result
    if not result.errors and any(f.fix != "none" for f in result.findings):
        from mcp_migrate.core.fix.loop import continued_previews, previews

        rules, result.finding_fixes = previews(analysis, data, display)
        if rules:
            rules = continued_previews(
                display, analysis, rules, lambda current: api.analyze(current, display, settings)
            )
        result.fix_previews = rules
    return result


def _as_hunks(data: bytes, previews: dict) -> dict:
    """Each finding's preview as the hunks of its diff: a few lines, not a copy of the file
    (they cross the process pool and live in the results cache)."""
    if not previews:
        return {}
    from mcp_migrate.output.full import decode_lines, hunks

    before = decode_lines(data)
    return {
        key: [
            [first, last, list(removed), list(added)]
            for first, last, removed, added in hunks(before, decode_lines(new))
        ]
        for key, new in previews.items()
    }


def fix(data: bytes, display: str, settings, unsafe: bool, policy: FixPolicy = NO_POLICY):
    """The fix of one file: what `fix_bytes` does, minus the fixes the policy withholds (or plus
    those it promotes); findings with the policy's kinds."""
    if not may_report(data, settings) or api.screened_out(data, display, settings) is not None:
        return FileResult(display)

    plain = settings if not settings.fix_previews else _without_previews(settings)
    return adjust(staged_fix(data, display, plain, unsafe, policy, api.fix_bytes, api.check_bytes), policy)


def _without_previews(settings):
    return replace(settings, fix_previews=False)
