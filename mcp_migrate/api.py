"""The public API, and the one place that joins the engine to the rules (as `fixit/api.py` does):
the core runs whatever rule classes a Settings value carries, the rules know only the contract
in `core/rule.py`, and this module picks the classes for a selection.

    check_source(source, path="<string>", *, settings=None) -> list[Finding]
    check_bytes(data, path, settings=None) -> FileResult
    fix_source(source, path="<string>", *, settings=None, unsafe=False) -> the fixed source
    fix_bytes(data, path, settings=None, *, unsafe=False) -> FileResult
    settings(select=..., **fields) / default_settings(**fields) -> Settings with its rules

Every function takes a Settings value built anywhere (`Settings(select=...)`, or one of the
two builders here) and runs the rules its `select` and `extend_apis` name. A check or fix reads
the project's other files (helper modules one import away) through the project view the
Settings carry (`Settings.view`, core.project_view); without one it gets a fresh view of its
own, so no answer outlives the call.
"""

from __future__ import annotations

from functools import lru_cache

from mcp_migrate.core import callers, gates
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.findings import FileResult
from mcp_migrate.core.record import replace
from mcp_migrate.core.settings import Settings, with_view


@lru_cache(maxsize=64)
def rule_classes(select: frozenset, extend_apis: tuple = ()) -> tuple:
    """The rule classes that run for a selection: the selected catalog rules (found by walking
    the `mcp_migrate.rules` package), plus the extend-apis wrapper rule when a selected rule has
    configured wrappers."""
    from mcp_migrate.rules import all_rules
    from mcp_migrate.vocabulary.wrappers import WrapperCalls

    return _selected(all_rules(), WrapperCalls, select, extend_apis)


@lru_cache(maxsize=64)
def screen_classes(select: frozenset, extend_apis: tuple = ()) -> tuple:
    """The classes of the screens of `rule_classes(select, extend_apis)`, in the same order:
    each rule's screens in its module without LibCST, which the rule class inherits (found by
    walking `mcp_migrate.rules` too). A file is screened with these, and the rules are loaded
    only for a file they leave to the parser."""
    from mcp_migrate.rules import all_screens
    from mcp_migrate.vocabulary.wrappers_screen import WrapperCallsScreen

    return _selected(all_screens(), WrapperCallsScreen, select, extend_apis)


def _selected(classes: tuple, wrappers: type, select: frozenset, extend_apis: tuple) -> tuple:
    """The classes of `classes` whose code `select` names, plus `wrappers` (the extend-apis
    wrappers' class) when a selected rule has configured wrappers: what a selection runs."""
    chosen = tuple(cls for cls in classes if cls.CODE in select)
    if any(code in select for code, _ in extend_apis):
        chosen += (wrappers,)
    return chosen


#: Settings without a project view -> the same Settings with their rule classes: a run's files
#: share a few values. Those with a view are kept in their view (it dies with its run).
_COMPLETED: dict = {}


def with_rules(value: Settings) -> Settings:
    """`value` with the rule classes its selection names (the same object when it has them)."""
    completed = _COMPLETED if value.view is None else value.view.table("settings with rules")
    done = completed.get(value)
    if done is not None:
        return done
    wanted = rule_classes(value.select, value.extend_apis)
    done = value if value.rules == wanted else replace(value, rules=wanted)
    if len(completed) < 256:
        completed[value] = done
    return done


def settings(select, **fields) -> Settings:
    """Settings for the rule codes in `select` (and any other Settings field), rules included."""
    return with_rules(Settings(select=frozenset(select), **fields))


def default_settings(**fields) -> Settings:
    """Every rule of the catalog, with any other Settings field given."""
    return settings(frozenset(load_catalog()), **fields)


def _complete(value: Settings | None) -> Settings:
    """The rule classes, and a project view of the call's own when `value` carries none."""
    return with_view(default_settings() if value is None else with_rules(value))


def may_report(data: bytes, settings: Settings) -> bool:
    """False only where no rule `settings` selects can report on `data` (their gates, read
    from the catalog without importing a rule or LibCST: core.gates); the engine's result is then empty."""
    return gates.may_report(data, settings)


def screened_out(data: bytes, path: str, settings: Settings) -> FileResult | None:
    """The engine's result for a file whose screens leave it no rule to run and nothing to
    audit (core.screening), decided with the rules' screens (or the Settings' rules, when they
    carry them): no rule module and no LibCST is loaded. None for a file the engine must see:
    one the screens hand to LibCST, or whose coding cookie the engine refuses (E902)."""
    from mcp_migrate.core.limits import encoding_refusal
    from mcp_migrate.core.screening import screens

    if encoding_refusal(data) is not None:
        return None
    settings = with_view(settings)
    classes = settings.rules or screen_classes(settings.select, settings.extend_apis)
    decided = screens(data, path, settings, classes)
    if decided.parses:
        return None
    return FileResult(path, depends=tuple(sorted(decided.depends)))


def client_side(select: frozenset) -> frozenset:
    """The codes in `select` of Roots' client side, whose fixes wait while a server asks
    (core.coordination), read from the catalog without importing a rule (core.gates)."""
    return gates.client_side() & select


def load_engine(value: Settings) -> None:
    """Import the engine, LibCST and the rules `value` selects now: a run about to fork a pool
    for files its screens leave to LibCST imports them once, and the workers inherit them
    (issue 37: each worker importing them itself cost 0.3 s of CPU, twice on two cores)."""
    import mcp_migrate.core.engine  # noqa: F401

    with_rules(value)


def analyze(data: bytes, path: str, settings: Settings | None = None):
    """The engine's analysis of one file (the parsed tree, reports and result)."""
    from mcp_migrate.core.engine import analyze as engine_analyze

    return engine_analyze(data, path, _complete(settings))


def check_bytes(data: bytes, path: str, settings: Settings | None = None) -> FileResult:
    """Check one file's raw bytes. Never raises for bad input: it becomes an E999 finding."""
    from mcp_migrate.core.engine import check_bytes as engine_check

    return engine_check(data, path, _complete(settings))


def check_source(source, path: str = "<string>", *, settings: Settings | None = None) -> list:
    """Findings for one source text (str or bytes), sorted by position; an internal error (a
    rule that raised) is a finding too (INTERNAL_ERROR_CODE), so it can never pass as clean.
    Calls of a helper of the same text are related locations of the helper's finding
    (core.callers), as `check` reports them; those of a helper in another module stay findings."""
    from mcp_migrate.core.engine import internal_error_finding

    data = source.encode("utf-8") if isinstance(source, str) else source
    result = check_bytes(data, path, settings)
    callers.join([result])
    return result.findings + [internal_error_finding(e) for e in result.errors]


def fix_bytes(
    data: bytes, path: str, settings: Settings | None = None, *, unsafe: bool = False, suggestions: bool = False
) -> FileResult:
    """Fix one file's bytes (see core.fix.loop.fix_bytes). Never raises. `suggestions` also takes
    the display-only fixes `fix` never applies (RT102, RT103)."""
    from mcp_migrate.core.fix.loop import fix_bytes as engine_fix

    return engine_fix(data, path, _complete(settings), unsafe=unsafe, suggestions=suggestions)


def fix_source(
    source,
    path: str = "<string>",
    *,
    settings: Settings | None = None,
    unsafe: bool = False,
    suggestions: bool = False,
):
    """The fixed text (same type as given: str or bytes); unchanged input when nothing applies,
    and when an internal error stops the fix (never an exception: `fix_bytes` gives the same
    fix with its findings and errors)."""
    data = source.encode("utf-8") if isinstance(source, str) else source
    result = fix_bytes(data, path, settings, unsafe=unsafe, suggestions=suggestions)
    fixed = result.fixed_source if result.fixed_source is not None else data
    return fixed.decode("utf-8") if isinstance(source, str) else fixed


def rule_previews(data: bytes, path: str, settings: Settings | None = None) -> dict:
    """(code, unsafe?) -> the file's bytes after that rule's fixes of that kind."""
    from mcp_migrate.core.fix.loop import analysis_previews

    return analysis_previews(analyze(data, path, settings), data, path)
