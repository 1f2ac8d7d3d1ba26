"""The pure core: bytes in, findings out. The CLI, the hook and the tests all call this.

Per file: screen the raw bytes for tokens the selected rules need (most files stop here),
then screen the code as the standard library's parser reads it (core.screening, each rule's
`screen_tree`: the run does this before it loads a rule or LibCST, and the view keeps the answer
for this module), parse once with LibCST only when a rule is left, walk the tree once while every
rule that passed both screens gets its callbacks, compute positions only when something was
reported, then apply suppressions (a bare `# noqa` last: core.suppress).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from hashlib import blake2b

import libcst as cst

from mcp_migrate.core import partial
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import (
    FILE_CODES,
    FILE_TOO_LARGE_CODE,
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    PARSER_LIMIT_CODE,
    REVIEW_PENDING_CODE,
    SYNTAX_ERROR_CODE,
    UNUSED_SUPPRESSION_CODE,
)
from mcp_migrate.core.collector import collector_paused
from mcp_migrate.core.context import Report
from mcp_migrate.core.coordination import TESTS_ACCEPT, AskedPlan, RunPlan, waiting, with_note
from mcp_migrate.core.deep import call_deep
from mcp_migrate.core.deprecated import DEPRECATED, deprecated_for_roots, deprecated_functions
from mcp_migrate.core.dispatch import run_rules
from mcp_migrate.core.findings import FileError, FileResult, Finding, HelperSite, Suppressed
from mcp_migrate.core.gates import roots_migration
from mcp_migrate.core.generated import GENERATED, is_generated
from mcp_migrate.core.heap import release_freed
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.limits import (
    encoding_refusal,
    nesting_problem,
    over_size,
    size_problem,
)
from mcp_migrate.core.messages import MAX_MESSAGE, Message, fit, split
from mcp_migrate.core.modules import in_test_code
from mcp_migrate.core.partial import Reduced, reduced
from mcp_migrate.core.positions import node_ranges, top_level_spans
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.record import record, replace
from mcp_migrate.core.screening import Screened, keep_screens, screens, screens_key
from mcp_migrate.core.settings import Settings, with_view
from mcp_migrate.core.suppress import MARKERS, SuppressionIndex, review_markers
from mcp_migrate.core.syntax import ModuleIndex, ancestry


def _take_tree(decided: Screened, settings: Settings):
    """The screen's `ast` tree, for this analysis only: the view's last-file answer is kept
    without it, so no file's tree outlives its check (a 1.26 MB module's is 30 MB)."""
    kept = view_of(settings).table("last screened")
    last = kept.get(None)
    if decided.tree is not None and last is not None and last[3] is decided:
        kept[None] = (*last[:3], decided._replace(tree=None))
    return decided.tree


def _syntax_error(path: str, exc: Exception, data: bytes = b"") -> Finding:
    """E999 at the position its message is about. LibCST's parser message carries its own
    `error at L:C` that need not match its reported position, so Python's compiler, whose
    position and message agree, describes the error when it rejects the file too."""
    line = getattr(exc, "raw_line", None) or getattr(exc, "lineno", None) or 1
    column = (getattr(exc, "raw_column", None) or 0) + 1
    if isinstance(exc, cst.ParserSyntaxError):
        python = _python_syntax_error(data)
        if python is None:  # Python accepts it: the parser's grammar is the limit, not the code
            text = " ".join(_PARSER_POSITION.sub("", exc.message).split())
            return file_finding(
                path,
                PARSER_LIMIT_CODE,
                Message("not analysed: valid Python the parser does not support", f"LibCST's parser says: {text}"),
                line,
                column,
            )
        line, column, text = python
        message = f"cannot parse: {text}"
    elif isinstance(exc, (UnicodeDecodeError, LookupError)):
        message = f"cannot decode: {exc}"
    else:
        message = f"cannot parse: {type(exc).__name__}: {exc}"
    return file_finding(path, SYNTAX_ERROR_CODE, message, line, column)


def file_finding(path: str, code: str, message, line: int = 1, column: int = 1) -> Finding:
    """A finding about the whole file, from the engine's own codes (core.codes.FILE_CODES).
    `message`: a core.messages.Message or the message alone; a message over MAX_MESSAGE
    characters (a parser's or the system's own words) is cut, and given whole as the help."""
    name = next(name for known, name, _ in FILE_CODES if known == code)
    text, advice = split(message)
    text, advice = " ".join(text.split()), " ".join(advice.split())
    if len(text) > MAX_MESSAGE:
        text, advice = fit(text), f"{text}; {advice}" if advice else text
    return Finding(path, line, column, line, column, code, name, text, "error", "none", advice)


#: The project view's table of the partial sources worked out (`_in_part`).
PARTIAL_SOURCES = "partial sources"
#: The position LibCST's parser writes into its messages (`parser error: error at 4:0: `).
_PARSER_POSITION = lazy_compile(r"^(?:parser error:\s*)?error at \d+:\d+:\s*")


def _python_syntax_error(data: bytes):
    """(line, 1-based column, message) of Python's own SyntaxError for `data`, or None when
    Python accepts the file (syntax newer than LibCST's grammar) or gives no position. The
    whole compiler is asked, not only its parser: `return` outside a function parses but is a
    SyntaxError all the same (nothing runs: compile() only builds the code object)."""
    try:
        compile(data, "<checked>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        if exc.lineno:
            return exc.lineno, max(exc.offset or 1, 1), exc.msg
    except Exception:  # noqa: BLE001 - recursion, memory: fall back to LibCST's report
        return None
    return None


@record
class Analysis:
    """What one parse produced: the tree (None when screened out or unparsable), the kept
    reports paired with their findings (same order), and the file's result."""

    module: cst.Module | None
    pairs: list
    result: FileResult
    #: The module's whole-tree indexes, shared by the rules' rewrites, the positions and the
    #: previews of this analysis (core.syntax.ModuleIndex).
    index: ModuleIndex | None = None
    #: Where each top-level statement starts and ends, and the statements of a class's or
    #: function's body, from the screen's `ast` tree when it had one and a finding has a fix
    #: (core.positions.top_level_spans): the previews slice the module's code by statement
    #: from the file instead of generating it.
    spans: tuple | None = None
    #: The project view the analysis read the project through (core.project_view): its fixes
    #: and previews read the project's line length through it too.
    view: object = None
    #: The run's plan (a RunPlan, or the AskedPlan recording a check's questions to it) and the
    #: file's path, for `kept_imports`.
    plan: RunPlan | AskedPlan | None = None
    path: str = ""
    #: Where LibCST parsed the module in part (core.partial): the bytes it parsed, which its
    #: code and the previews' slices are, and the stand-ins a fix's output is spliced back from.
    part: Reduced | None = None

    def source(self, data: bytes) -> bytes:
        """The bytes the module was parsed from: `data`, or its partial source."""
        return self.part.data if self.part is not None else data

    def whole(self, new: bytes) -> bytes:
        """The file's bytes for `new`, the module's code after a fix: itself, or spliced back
        into the whole file. A stand-in a fix changed is an internal error (the fix is lost,
        never half applied)."""
        if self.part is None:
            return new
        out = self.part.whole(new)
        if out is None:
            raise RuntimeError("a fix changed a statement the partial parse left out")
        return out

    def kept_imports(self) -> frozenset:
        """Names other files of the run import from this one (RunPlan.kept_imports): its fixes
        keep their imports. Asked of the plan only by a fix that leaves an import unread (a
        question the check asks is one a plan must answer alike for its result to stand:
        core.coordination.AskedPlan)."""
        return self.plan.kept_imports(self.path) if self.plan is not None else frozenset()


def analyze(data: bytes, path: str, settings: Settings) -> Analysis:
    """Screen, parse once, run the active rules in one traversal, position and filter reports.
    The parse and everything after it run on the deep-stack thread (core.deep), after the
    size and nesting limits: no file can crash the process or exhaust its recursion limit.
    The other files the screens and the rules read, through the project view the settings
    carry (a fresh one when they carry none), go with the result (`depends`)."""
    settings = with_view(settings)
    view = view_of(settings)
    with view.recording() as seen, view.using() as used:
        analysis = _analyze(data, path, settings)
    analysis.view = settings.view
    analysis.plan, analysis.path = settings.run, path
    if seen:
        analysis.result.depends = tuple(sorted(seen))
    if analysis.result.findings:  # it may be checked again, in another worker
        analysis.result.handed = tuple((name, key, answer) for (name, key), answer in used.items())
    return analysis


def _analyze(data: bytes, path: str, settings: Settings) -> Analysis:
    result = FileResult(path)
    refused = encoding_refusal(data)
    if refused is not None:  # before the gate: such a cookie hides from the gate what the parser sees
        result.findings.append(file_finding(path, IO_ERROR_CODE, refused))
        return Analysis(None, [], result)
    decided = screens(data, path, settings)
    keep_screens(data, path, settings, decided)
    tree = _take_tree(decided, settings)
    if not decided.byte_rules and not decided.audit:
        return Analysis(None, [], result)
    problem = size_problem(data, settings)
    if problem is None and not decided.parses:  # only the syntax screen knew: nothing to parse
        return Analysis(None, [], result)
    codes = decided.codes  # the screens' classes or the rules: the rules of those codes run
    rules, audit = [rule for rule in settings.rules if rule.CODE in codes], decided.audit
    part = _in_part(data, path, settings, rules, tree) if problem is None else None
    if problem is None:
        problem = _nesting_problem(data, part.data if part is not None else data, view_of(settings), tree)
    if problem is not None:
        result.findings.append(file_finding(path, *problem))
        return Analysis(None, [], result)
    if part is not None:  # the whole module's `ast` tree goes before LibCST parses the rest
        del decided
        tree = None
        view_of(settings).drop_readings()  # and every other module's (issue 37: <= 200 MB)
        release_freed(len(data))
        tree = ast.parse(part.data)
    try:
        with view_of(settings).analysing(path):  # another worker waits for its answers (run.board)
            analysis = call_deep(_parse_and_analyze, data, path, settings, rules, audit, tree, part)
        if part is not None:  # what the parsers freed goes back before the run reads the next module
            release_freed(len(data))
        return analysis
    except RecursionError:
        # Nesting the guard does not measure (thousands of implicit string pieces beyond
        # even the deep thread's limit) costs this file only, never the run.
        result.findings.append(file_finding(path, PARSER_LIMIT_CODE, "not analysed: too deeply nested to analyse"))
        return Analysis(None, [], result)


def _nesting_problem(data: bytes, source: bytes, view, tree=None):
    """core.limits.nesting_problem of the file (shown from the screens' `ast` tree, `tree`,
    where it can be), unless the view keeps the tree of `source`, what LibCST parses of it
    (its partial source, a huge test module's), from a first check: that check measured it
    within the limits. The measure reads every byte (0.63 s for a 1.26 MB module), which the
    check again paid a second time (issue 37)."""
    return None if view.parsed(source) is not None else nesting_problem(data, tree)


def too_large(path: str, size: int, limit: int) -> Finding:
    """E997 for a file of `size` bytes over max-file-size `limit` (found by stat, or read)."""
    return file_finding(path, FILE_TOO_LARGE_CODE, over_size(size, limit))


def _parse_and_analyze(
    data: bytes, path: str, settings: Settings, rules: list, audit: bool, tree=None, part: Reduced | None = None
) -> Analysis:
    """Parse `data` (its partial source, `part`, where it has one: `tree` is then that source's
    `ast` tree) and analyse it."""
    result = FileResult(path)
    view = view_of(settings)
    source = part.data if part is not None else data
    module = view.parsed(source)
    if module is None:
        try:
            with collector_paused():
                module = cst.parse_module(source)
        except RecursionError:
            raise
        except Exception as exc:  # syntax errors, undecodable bytes, unknown coding cookies
            result.findings.append(_syntax_error(path, exc, data))
            return Analysis(None, [], result)
    analysis = _analyze_module(module, source, path, settings, rules, audit, result, tree, part)
    analysis.part = part
    if analysis.pairs:  # checked again once the run has its plan (run.coordination)
        # A partial tree too: the check again reads the whole module with `ast` beside it, but a
        # kept tree is about 22 times its source, far under the parse's own peak (issue 37: the
        # 1.26 MB module's check peaks at 170.8 MB either way, and parses its 251 KB part once).
        view.keep_parsed(source, module)
    return analysis


def _in_part(data: bytes, path: str, settings: Settings, rules: list, tree) -> Reduced | None:
    """The partial source LibCST parses in place of a huge test module (core.partial), or None:
    the module is parsed whole. Test code only: a test spells what it tests, while a module of
    the project's own can carry roots through names no word or screen gives away (its own
    `add_root`, which the run's plan knows; checked with every file of the corpus in part).
    Where a rule follows the module's calls into helper modules (its import screen holds), the
    definitions whose syntax screen holds with the imports they read stay: such a call names no
    root, but the screen follows it (issue 37: a gateway's 1.26 MB test module, checked in its
    project, peaked at 636 MB parsed whole)."""
    if not in_test_code(path) or len(data) < partial.PARTIAL_MIN_BYTES:  # (before the screens' cost)
        return None
    # Kept for the view's life by the bytes' digest: a test module with Roots findings is
    # checked again under the run's plan, which no screen reads (issue 37: the partial source
    # of a 1.26 MB module took 2-4 s to work out, each time). With the helper modules its screens
    # read: the check again reads them too, through this answer (the results cache keeps the
    # check again's result, and a changed helper must make the module be checked again).
    key = (screens_key(path, settings), tuple(rule.CODE for rule in rules), len(data), blake2b(data).digest())
    return view_of(settings).remembered(
        PARTIAL_SOURCES, key, lambda: reduced(data, tree, rules, MARKERS, settings, path), handed=True
    )


def _analyze_module(module, data, path, settings, rules, audit, result, tree=None, part=None) -> Analysis:
    """The rules' walk over a parsed module, then positions, suppressions and reviews. `tree`:
    the screen's `ast` tree of the file, when it has one; `part`: the partial source `data` is,
    when the module was parsed in part (core.partial)."""
    reports, sites = [], {}
    if rules:
        context, _ = run_rules(path, data, module, settings, rules, result.errors)
        # What a rule reported before it broke stands: an internal error never hides a finding.
        reports = list(context.reports)
        sites = context.helper_sites
        result.notes = context.notes
        index = context.index
    else:
        index = ModuleIndex(module)
    if not reports and not audit:
        return Analysis(module, [], result, index)
    # The source text without a codegen pass: the decoded bytes themselves (utf-8-sig drops a
    # BOM as LibCST does). They equal `module.code` except where LibCST's codegen loses bytes
    # (a form feed before an indented line, a CR-only file's final CR): positions count in the
    # real file's text, which is what a reader and the fixer see (core/preserve.py).
    text = data.decode(module.encoding)
    has_markers = any(marker in data for marker in MARKERS)
    suppressions = SuppressionIndex.from_text(text, tree) if has_markers else SuppressionIndex([])
    if reports:
        test_code = in_test_code(path)
        private = _decide_fixes(reports, module, settings, rules, test_code, index, path)
        if not test_code:
            result.notes.private_removals = sorted(set(private.values()))
            if _keeps_roots([rep for rep in reports if id(rep) not in private], rules):
                result.notes.keeps_roots = True
            result.notes.warned_names = _warned_names(reports, data, module, index)
        notes = result.notes
        if test_code and (
            notes.tools or notes.suggested_tools or notes.env_vars or notes.client_calls or notes.served_tools
        ):
            # Test code's rewrites are suggestions: no tool gains a parameter, nothing reads a
            # setting, no call passes directories, and its request stays (the run's plan).
            # Their tools count for `fix --apply-suggestions` only where the tests go with their
            # code (otherwise the requests keep no edit: _tests_wait).
            suggested = notes.suggested_tools + notes.tools if settings.run.tests_go_with_code() else []
            result.notes = replace(
                notes,
                tools=[],
                suggested_tools=suggested,
                env_vars=[],
                client_calls=[],
                served_tools=[],
                still_asks=True,
            )
    kept = _position(reports, module, text, path, suppressions, result, tree, index, sites) if reports else []
    kept.sort(key=lambda pair: pair[1].sort_key())
    pairs = _dedupe(kept)
    if any(rep.carrier is not None for rep, _ in pairs):
        pairs = _name_carriers(pairs)
    result.findings.extend(f for _, f in pairs)
    if audit:
        result.findings.extend(_reviews(module.code, suppressions, settings, path, result, result.findings, tree))
        if UNUSED_SUPPRESSION_CODE in settings.select:
            result.findings.extend(_stale(suppressions, settings, path))
        result.findings.sort(key=Finding.sort_key)
    if suppressions.blanket:
        pairs = _blanket(pairs, suppressions, result)
    fixable = tree is not None and any(report.fix is not None for report, _ in pairs)
    return Analysis(module, pairs, result, index, _spans(tree, part) if fixable else None)


def _spans(tree, part: Reduced | None) -> tuple:
    """Where each top-level statement of the parsed module starts and ends."""
    return part.spans if part is not None else top_level_spans(tree)


def _position(reports, module, text, path, suppressions, result, tree=None, index=None, sites=None) -> list:
    """Findings for reports, minus the suppressed ones (kept aside with their reason).
    Only the statements holding reported nodes are positioned (core.positions). `sites`: the
    rules' helpers, (code, owner, name) -> a reported node, placed as `result.helpers`."""
    ranges = node_ranges(module, text, [(rep.node, rep.ancestors) for rep in reports], tree, index)
    result.helpers = tuple(
        HelperSite(code, owner, name, ranges[id(node)].start.line, ranges[id(node)].start.column + 1)
        for (code, owner, name), node in sorted(
            (sites or {}).items(), key=lambda item: (item[0][0], item[0][1] or "", item[0][2])
        )
        if id(node) in ranges
    )
    catalog = load_catalog()
    roots_codes = roots_migration()
    kept = []
    for rep in reports:
        rng = ranges[id(rep.node)]
        info = catalog[rep.code]
        finding = Finding(
            path,
            rng.start.line,
            rng.start.column + 1,
            rng.end.line,
            rng.end.column + 1,
            rep.code,
            info.name,
            rep.message,
            rep.severity or info.severity,
            _fix_kind(rep),
            rep.help,
            via=rep.via,
        )
        migrated = rep.migrated or (
            deprecated_for_roots(rep.node, _holders(rep, index)) if rep.code in roots_codes else None
        )
        if migrated is not None:
            result.suppressed.append(Suppressed(finding, DEPRECATED, migrated))
            continue
        match = suppressions.match(finding)
        if match is None:
            kept.append((rep, finding))
        else:
            result.suppressed.append(Suppressed(finding, match.kind, match.reason))
    return kept


def _holders(rep: Report, index) -> list:
    """The nodes holding a report's node, outermost first: the walk's ancestors, or, for a
    definition's name reported from its class at the end of the walk (a roots store's getter),
    the whole chain the module index knows, its `def` included (core.deprecated looks there)."""
    parents = index.parents if index is not None else {}
    return ancestry(rep.node, parents)[:-1] if id(rep.node) in parents else list(rep.ancestors)


def _blanket(pairs: list, suppressions: SuppressionIndex, result: FileResult) -> list:
    """`pairs` without the findings a bare `# noqa` covers, which move from `result.findings`
    (reviews and stale suppressions too) to `result.suppressed`: honoured last, on what the
    code-naming comments left, and gone from the pairs the fix loop and the previews apply."""
    covered = [f for f in result.findings if suppressions.blanket_covers(f)]
    if not covered:
        return pairs
    result.findings = [f for f in result.findings if not suppressions.blanket_covers(f)]
    result.suppressed.extend(Suppressed(f, "noqa", "") for f in covered)
    result.suppressed.sort(key=lambda s: s.finding.sort_key())
    return [(rep, f) for rep, f in pairs if not suppressions.blanket_covers(f)]


def _reviews(
    text: str,
    suppressions: SuppressionIndex,
    settings: Settings,
    path: str,
    result: FileResult,
    findings: Iterable = (),
    tree=None,
) -> list:
    """RT901 findings, one per review marker `fix` (or a person) left; produced here as RT900's
    are, because the rules walk the syntax tree and comments are not in it. A suppression
    comment may silence one like any finding. A marker right above the statement that still
    holds its rule's finding is that finding's note, not a second finding: the marker a fix
    left without changing code (core.fix.edits.Fix.marker_only) must not make the count rise
    (issue 33 §3); once the finding is gone, the marker is reported."""
    if REVIEW_PENDING_CODE not in settings.select:
        return []
    info = load_catalog()[REVIEW_PENDING_CODE]
    kept = []
    markers = review_markers(text, load_catalog())
    answered = _markers_with_their_finding(markers, findings, text, tree) if markers else set()
    for marker in markers:
        if marker in answered:
            continue
        reason = marker.reason or "no reason given"
        finding = Finding(
            path,
            marker.line,
            marker.column,
            marker.line,
            marker.end_column,
            REVIEW_PENDING_CODE,
            info.name,
            _review_message(marker.code, reason),
            info.severity,
            "none",
            f"{reason}; remove the marker once a human has decided",
        )
        match = suppressions.match(finding)
        if match is None:
            kept.append(finding)
        else:
            result.suppressed.append(Suppressed(finding, match.kind, match.reason))
    return kept


def _markers_with_their_finding(markers: list, findings: Iterable, text: str, tree=None) -> set:
    """The markers whose rule still reports a finding in the statement right below them (the
    statement that starts on the line after the marker's last line)."""
    lines: dict = {}
    for finding in findings:
        lines.setdefault(finding.code, set()).add(finding.line)
    candidates = [m for m in markers if lines.get(m.code)]
    if not candidates:
        return set()
    ends = statement_ends(text, tree)
    out = set()
    for marker in candidates:
        first = marker.last_line + 1
        last = ends.get(first, first)
        if any(first <= line <= last for line in lines[marker.code]):
            out.add(marker)
    return out


def statement_ends(text: str, tree=None) -> dict:
    """First line -> last line of every statement of `text` (`ast`, the screen's tree when
    given); {} when CPython cannot parse it (then a statement is taken as one line)."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
    ends: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            end = getattr(node, "end_lineno", None) or node.lineno
            ends[node.lineno] = max(ends.get(node.lineno, 0), end)
    return ends


def _stale(suppressions: SuppressionIndex, settings: Settings, path: str) -> list:
    info = load_catalog()[UNUSED_SUPPRESSION_CODE]
    selected = settings.select - {UNUSED_SUPPRESSION_CODE}
    return [
        Finding(
            path,
            s.line,
            s.column,
            s.line,
            s.end_column,
            UNUSED_SUPPRESSION_CODE,
            info.name,
            f"unused suppression: no {code} finding on this line",
            info.severity,
            "none",
            f"remove `{code}` from the comment",
        )
        for s, code in suppressions.stale(selected)
    ]


def _fix_kind(report: Report) -> str:
    """A finding's fix kind, said once, by the Fix the rule built: none when it could not
    describe one here (or `_decide_fixes` settled it). The rule page documents the kind;
    tests/test_catalog.py checks they agree."""
    if report.kind is not None:
        return report.kind
    if report.fix is None:
        return "none"
    if report.fix.display:
        return "display"
    if report.fix.marker_only:  # a comment for a human, not a fix: the finding stays
        return "marker"
    return "unsafe" if report.fix.unsafe else "safe"


#: Said before the help of a client-side finding whose file keeps providing roots.
CLIENT_SIDE_TOGETHER = (
    "a suggestion while this file keeps providing roots (a provider here keeps no edit, or its removal is only"
    " suggested):"
    " the client side of Roots goes together"
)
#: Said before the help of a finding in test code that waits for the code it tests.
TESTS_WAIT = (
    "no edit in test code while code outside the tests keeps Roots behaviour: the test changes with the code it tests"
)
#: The reason a Roots finding in a test module that accepts the deprecation warning is kept aside.
ACCEPTS_DEPRECATION = "a test of Roots behaviour its project deprecated: the module accepts the warning"
#: Said before the help of a finding in test code whose fix is only suggested.
IN_TEST_CODE = (
    "a suggestion in test code: applied, it would change what the test checks; update the test with the code it tests"
)


def _decide_fixes(
    reports: list, module, settings: Settings, rules: list, test_code: bool = False, index=None, path: str = ""
) -> dict:
    """What the run and the file make of each report's fix, before positions: a safe removal
    whose orphan clean-up deletes a function is unsafe (core.fix.orphans.doomed_functions);
    in test code a fix is a suggestion (it would change what the test checks: issue 36 §4,
    tests move with the code they test); where a client-side fix is already a suggestion (a
    provider whose removal would leave the project's plumbing without effect), every client-side
    fix of the file is (issue 36 §1: the flow goes together); a client-side fix while a server
    in the run still asks is withheld from this run, and its finding says why (the run's plan
    decides: core.coordination.RunPlan.client_fix). In a generated module nothing is edited
    (core.generated). Returns {id(report): name} of the private definitions the file's fixes
    leave unread (_suggest_removals)."""
    if is_generated(module):
        for rep in reports:
            rep.fix, rep.kind, rep.help = None, None, with_note(rep.help, GENERATED)
        return {}
    candidates = [
        rep for rep in reports if rep.fix is not None and rep.fix.orphans and not (rep.fix.unsafe or rep.fix.display)
    ]
    if candidates:
        from mcp_migrate.core.fix.imports import name_uses
        from mcp_migrate.core.fix.orphans import doomed_functions

        doomed = doomed_functions(module, [rep.fix for rep in candidates], name_uses(module))
        for rep in candidates:
            if doomed.intersection(rep.fix.orphans):
                rep.kind = "unsafe"
    if test_code:
        for rep in reports:
            if not (rep.fix is not None and rep.fix.hands_over):  # that one keeps what the test checks
                _suggest(rep, IN_TEST_CODE)
    plan = settings.run
    if test_code and not plan.tests_go_with_code():
        _tests_wait(reports, rules)
    kept = {rule.CODE for rule in rules if rule.kept_while_server_asks()}
    if any(rep.code in kept and rep.fix is not None and rep.fix.display for rep in reports):
        # The file keeps providing roots (a removal that would leave its plumbing without effect
        # is only suggested): its capability, list_changed sends and handlers stay with it.
        for rep in reports:
            if rep.code in kept:
                _suggest(rep, CLIENT_SIDE_TOGETHER)
    for rep in reports:
        if rep.fix is None or rep.code not in kept:
            continue
        decided = plan.client_fix(_fix_kind(rep))
        if decided is not None:
            kind, note = decided
            # A held removal stays the finding's edit as a suggestion (shown, never applied by
            # `fix` alone); any other held fix leaves the finding without one in this run.
            held = replace(rep.fix, display=True) if kind == "display" else None
            rep.fix, rep.kind, rep.help = held, None if held else kind, with_note(rep.help, note)
    private = _suggest_removals(reports, module, rules, test_code, index, path, plan)
    if plan.suggestions_wait():
        # `fix --apply-suggestions` while a server still asks after it: the client keeps its
        # roots (a demo's client lost `roots=` while its server's request kept a review marker:
        # session 52's final review, #01); a deprecation keeps them working and stays.
        for rep in reports:
            if rep.code in kept and rep.fix is not None and not rep.fix.keeps_working:
                rep.fix, rep.kind, rep.help = None, None, waiting(rep.help)
    migrating = {rule.CODE for rule in rules if rule.migrates_roots()}
    _carry_with_their_flow([rep for rep in reports if rep.code in migrating], module)
    _still_providing(reports, rules, kept)
    if test_code and not plan.tests_go_with_code():
        _tests_accept(reports, rules, module, plan, (path, settings.view))
    return private


def _still_providing(reports: list, rules: list, kept: set) -> None:
    """A provider that keeps no edit at all, once every fix and carry is decided (easymcp's
    session answers `roots/list` by hand beside a public `register_roots_callback`): the file
    still provides roots, so its capability and list_changed fixes are only suggested, with the
    findings carried by them (the final review of session 48, #17: the capability went, the
    public callback API went silently dead)."""
    providers = {rule.CODE for rule in rules if rule.PROVIDES_ROOTS}
    if not any(rep.code in providers and rep.via is None and rep.fix is None for rep in reports):
        return
    for rep in reports:
        if rep.code in kept and rep.carrier is None:
            _suggest(rep, CLIENT_SIDE_TOGETHER)
    for rep in reports:
        if rep.carrier is not None and rep.carrier.fix is not None:
            _goes_with(rep, rep.carrier)  # of its carrier's new kind


def _name_carriers(pairs: list) -> list:
    """Each carried finding's help with its carrier's line (core.fix.carried.with_line)."""
    from mcp_migrate.core.fix.carried import with_line

    lines = {id(rep): finding.line for rep, finding in pairs}
    out = []
    for rep, finding in pairs:
        line = lines.get(id(rep.carrier)) if rep.carrier is not None else None
        if line is not None:
            finding = replace(finding, help=with_line(finding.help, rep.carrier.code, line))
        out.append((rep, finding))
    return out


def _carry_with_their_flow(reports: list, module) -> None:
    """A finding left without an edit whose construct another finding's fix deletes goes with
    that fix, of its kind, its help saying which (core.fix.carried): no edit of its own, and
    gone once that fix is applied. The carrier's line is added once positions are known."""
    kinds = [_fix_kind(rep) for rep in reports]
    if "none" not in kinds or not {"safe", "unsafe", "display"} & set(kinds):
        return
    from mcp_migrate.core.fix.carried import GOES_WITH, carriers

    found = carriers(reports, module, _fix_kind)
    for rep in reports:
        carrier = found.get(id(rep))
        if carrier is not None:
            _goes_with(rep, carrier)
            rep.help = with_note(rep.help, GOES_WITH.format(code=carrier.code))


def _goes_with(rep: Report, carrier: Report) -> None:
    """`rep` goes with `carrier`'s fix: no edit of its own, of the carrier's kind."""
    from mcp_migrate.core.fix.edits import Fix

    rep.fix = Fix((), unsafe=carrier.fix.unsafe, display=carrier.fix.display)
    rep.kind, rep.carrier = carrier.kind, carrier


def _tests_wait(reports: list, rules: list) -> None:
    """Test code whose run keeps Roots behaviour outside the tests (or a test file checked
    alone) keeps its Roots plumbing: the code it tests still provides or asks for roots, and a
    test that loses its `list_roots_callback=` but keeps its assertions fails (issue 36 §4:
    never delete the call under test and keep its assertions; gtags and codevira's suites, three
    rejects of session 47's first look). A review marker stays (it changes no code)."""
    migrating = {rule.CODE for rule in rules if rule.migrates_roots()}
    for rep in reports:
        if rep.code in migrating and rep.fix is not None and not rep.fix.marker_only:
            own = rep.help.removeprefix(IN_TEST_CODE + "; ")
            rep.fix, rep.kind, rep.help = None, None, with_note(own, TESTS_WAIT)


def _tests_accept(reports: list, rules: list, module, plan, where: tuple) -> None:
    """Test code that waits for the code it tests (`_tests_wait`), where that code warns of its
    deprecation once the suggestions are applied (the names whose use warns, `plan.warned()`,
    asked only where a finding waits) and the test module spells one of them: it accepts the
    warning, laid out for the project's line length (`where`: the path and the project view),
    suggested with the deprecations (core.fix.accept_deprecation), and each Roots finding still
    without an edit carries it. A
    module that already accepts it tests the deprecated behaviour on purpose: its Roots
    findings are kept aside (`Report.migrated`), so the run after the suggestions converges."""
    from mcp_migrate.core.fix.accept_deprecation import acceptance, accepts_deprecation, spells_any

    migrating = {rule.CODE for rule in rules if rule.migrates_roots()}
    roots = [rep for rep in reports if rep.code in migrating and not (rep.fix is not None and rep.fix.marker_only)]
    if roots and accepts_deprecation(module):
        for rep in roots:
            rep.fix, rep.kind, rep.migrated = None, None, ACCEPTS_DEPRECATION
        return
    waiting = [rep for rep in roots if rep.fix is None and rep.kind is None]
    accepting = acceptance(module, *where) if waiting and spells_any(module, plan.warned()) else None
    for rep in waiting if accepting is not None else ():
        own = rep.help.removeprefix(TESTS_WAIT + "; ")
        rep.fix, rep.help = accepting, with_note(own, TESTS_ACCEPT)


def _warned_names(reports: list, data: bytes, module, index) -> list:
    """What warns of Roots' deprecation in this file once its suggestions are applied
    (core.fix.accept_deprecation.warned): what the deprecations its fixes write name (whichever
    writes them: a suggested removal's deprecation, a hollowed method's, a forwarding
    helper's), and what an earlier run's name (their words: core.fix.suggested)."""
    from mcp_migrate.core.fix.accept_deprecation import warned
    from mcp_migrate.core.fix.suggested import ROOTS_DEPRECATED

    fixes = [rep.fix for rep in reports if rep.fix is not None]
    written = ROOTS_DEPRECATED.encode() in data  # else no body warns yet: only the fixes are read
    if not (written or fixes):
        return []
    index = index if index is not None else ModuleIndex(module)
    return sorted(warned(index.nodes(cst.FunctionDef) if written else (), fixes, index.parents))


def _keeps_roots(reports: list, rules: list) -> bool:
    """A Roots finding here gets no edit (or only a review marker): the project keeps that Roots
    behaviour (core.coordination.FileNotes.keeps_roots)."""
    migrating = {rule.CODE for rule in rules if rule.migrates_roots()}
    # A caller of a helper that asks (`via`) goes with the helper's own finding and edit. A
    # deprecation keeps the behaviour too (it warns), and so does code its project already
    # deprecated: the tests of it stay (fastapi-mcp-router's tests of its deprecated
    # `roots_manager=` went with the suggestions while it still worked).
    return any(
        rep.code in migrating and rep.via is None and (rep.fix is None or rep.fix.marker_only or rep.fix.keeps_working)
        for rep in reports
    )


def _suggest_removals(reports: list, module, rules: list, test_code: bool, index, path: str, plan) -> dict:
    """A Roots finding still without an edit gets the removal of its construct as a suggestion
    where one can be written without leaving a name behind; then every unsafe or suggested Roots
    fix also removes the local bindings it leaves unread (core.fix.suggested; issue 36 §3, §5).
    In test code, only where the run lets tests go with their code (core.fix.suggested_tests).
    A private definition the file's other fixes leave unread goes only where the run's plan
    finds its name in no other file. Returns {id(report): name} of those private definitions,
    given their edit or not (FileNotes.private_removals: the run decides from them)."""
    migrating = {rule.CODE for rule in rules if rule.migrates_roots()}
    roots = [rep for rep in reports if rep.code in migrating and rep.via is None]
    bare = [rep for rep in roots if rep.fix is None and rep.kind is None and rep.removable]
    if not bare and not any(rep.fix is not None for rep in roots):
        return {}
    tests_go = plan.tests_go_with_code()
    from mcp_migrate.core.fix.kept_working import already_deprecated, deprecated_parameter
    from mcp_migrate.core.fix.suggested import (
        SUGGESTED_DEPRECATION,
        SUGGESTED_PARAMETER_DEPRECATION,
        candidate,
        private_definition,
        suggested_removals,
        with_applied,
    )
    from mcp_migrate.core.fix.suggested_tests import plumbing_only, test_removal
    from mcp_migrate.core.fix.unread import without_unread_locals

    parents = index.parents if index is not None else ModuleIndex(module).parents
    plumbing: set = set()
    if test_code and not tests_go:
        # The code the tests test keeps its Roots behaviour somewhere in the run (or the run is
        # unknown): its tests stay as they are (issue 36 §4).
        bare = []
    elif test_code:
        # A test of the Roots behaviour goes whole, and a rule's own fix inside it (a
        # `list_roots_callback=` it passes) gives way: cutting what the assertions read and
        # keeping them is no update (issue 36 §4). In a test of something else the roots it
        # passes along go as in other code; outside a test (helpers, fixtures other tests use)
        # nothing is suggested.
        kept = []
        for rep in roots:
            found = test_removal(rep.node, parents, path)
            if found is not None and found[0] == "test":
                own = rep.help.removeprefix(IN_TEST_CODE + "; ")  # that note was about the own fix
                rep.fix, rep.kind, rep.help = found[1], None, with_note(own, found[2])
            elif found is not None and rep.fix is None and rep.kind is None:
                kept.append(rep)
                plumbing.add(id(rep))
        bare = kept
    if not test_code:
        _deprecate_instead_of_hollowing(roots, parents)
    # Per rule: a removal counts only on the same rule's fixes to take what names it along
    # (`--select` may take one rule's fixes without another's; suggestions imply unsafe fixes).
    pending: dict = {}
    deprecated: list = []
    functions: list = []  # (a function the suggestions deprecate, the report whose fix does)
    for code in sorted({rep.code for rep in bare}):
        mine = [rep for rep in bare if rep.code == code]
        wanted = [
            plumbing_only(candidate(rep.node, parents)) if id(rep) in plumbing else candidate(rep.node, parents)
            for rep in mine
        ]
        others = [r.fix for r in roots if r.code == code and r.fix is not None and not r.fix.marker_only]
        applied = [r.fix for r in roots if r.code == code and _fix_kind(r) in ("safe", "unsafe")]
        for i, (fix, note) in suggested_removals(module, wanted, others, parents).items():
            name = private_definition(wanted[i])
            if name is not None:
                pending[id(mine[i])] = name
                if plan.removable(path, name):
                    fix, note = with_applied(fix, note, wanted[i], module, applied)
                elif not plan.removable_as_suggestion(path, name):
                    continue  # another file of the run may call it (run.private_names)
            mine[i].fix, mine[i].help = fix, with_note(mine[i].help, note)
            if note == SUGGESTED_PARAMETER_DEPRECATION:
                found = deprecated_parameter(mine[i].node, parents)
                if found is not None:
                    deprecated.append((*found, mine[i]))
            elif note == SUGGESTED_DEPRECATION and wanted[i] is not None and wanted[i].alone is not None:
                function = parents.get(id(wanted[i].alone))
                if isinstance(function, cst.FunctionDef):
                    functions.append((function, mine[i]))
    for rep in roots:
        found = already_deprecated(rep.node, parents)
        if found is not None:
            deprecated.append((*found, None))
            # The parameter itself: its function warns when it is given (a suggested
            # deprecation applied), which is the migration a library merges for it.
            rep.fix, rep.kind, rep.migrated = None, None, DEPRECATED_PARAMETER.format(name=found[1])
    _keep_deprecated_working(roots, deprecated, parents)
    if any(rep.fix is not None for rep in roots):  # and those an earlier run deprecated
        defined = (index if index is not None else ModuleIndex(module)).nodes(cst.FunctionDef)
        functions += [(function, None) for function in deprecated_functions(defined)]
    _keep_deprecated_functions_working(roots, functions, parents)
    # Per rule and kind, the fixes one command applies together (`--select` may take one rule's
    # without another's; `fix` takes safe fixes without unsafe ones). A safe fix keeps its
    # locals: deleting an assignment drops its value's side effects.
    groups: dict = {}
    for rep in roots:
        if rep.fix is not None and not rep.fix.marker_only and _fix_kind(rep) in ("unsafe", "display"):
            groups.setdefault((rep.code, _fix_kind(rep)), []).append(rep)
    for group in groups.values():
        for rep, fix in zip(group, without_unread_locals([rep.fix for rep in group], parents)):
            rep.fix = fix
    return pending


#: Said before the help of a finding that passes on a parameter the suggestions deprecate (the
#: carrier's line is added once positions are known: core.fix.carried.with_line).
KEPT_WORKING = (
    "it goes with the fix of the {code} finding, which deprecates `{name}`: this keeps the deprecated"
    " parameter working until it goes"
)
#: The reason a finding that passes on an already deprecated parameter is kept aside.
PASSES_ON_DEPRECATED = "keeps `{name}` working, a parameter its project deprecated for Roots"
#: The reason a parameter its function already warns about is kept aside.
DEPRECATED_PARAMETER = "`{name}`, a parameter its project deprecated for Roots"


def _keep_deprecated_working(roots: list, deprecated: list, parents: dict) -> None:
    """A removal that would stop passing on a deprecated parameter is withdrawn
    (core.fix.kept_working): a deprecation warns and keeps the behaviour. `deprecated`: (the
    function, the parameter's name, the report whose fix deprecates it, or None where the
    function already warns). A pass-through, the statement storing the parameter on `self` for
    a later one, and Roots code left without an edit that reads the parameter or what its
    function computes from it (core.fix.kept_working.reads) go with the suggested deprecation
    (its flow's plan: issue 36 §1); once the parameter warns, it serves the deprecated API as the code
    core.deprecated keeps aside does, and is kept aside with it (`Report.migrated`), so the
    run after `fix --apply-suggestions` has nothing left to say."""
    if not deprecated:
        return
    from mcp_migrate.core.fix.kept_working import passes_on, reads, stores
    from mcp_migrate.core.fix.suggested import SUGGESTED_REMOVAL

    for rep in roots:
        if rep.migrated is not None or (rep.fix is not None and rep.fix.marker_only):
            continue
        if rep.fix is not None:
            passed = passes_on(rep.fix, deprecated, parents)
        elif rep.carrier is None:
            passed = stores(rep.node, parents, deprecated) or reads(rep.node, parents, deprecated)
        else:
            passed = None
        if passed is None:
            continue
        _function, name, carrier = passed
        own = rep.help.removeprefix(SUGGESTED_REMOVAL + "; ")  # that note was about the removal
        if carrier is None:
            rep.fix, rep.kind, rep.help = None, None, own
            rep.migrated = PASSES_ON_DEPRECATED.format(name=name)
        else:
            rep.help = with_note(own, KEPT_WORKING.format(code=carrier.code, name=name))
            _goes_with(rep, carrier)
            rep.fix = replace(rep.fix, keeps_working=True)


#: The reason a finding whose removal would drop a call of an already deprecated function is
#: kept aside: the call keeps working with the function.
CALLS_DEPRECATED = "calls `{name}()`, which its project deprecated for Roots"
#: Said before the help of a finding whose fix lies inside a function the suggestions deprecate.
INSIDE_DEPRECATED = (
    "it goes with the fix of the {code} finding, which deprecates `{name}`: a deprecated function keeps"
    " working until it goes, and this is part of it"
)


def _keep_deprecated_functions_working(roots: list, functions: list, parents: dict) -> None:
    """A fix inside a function the same suggestions deprecate is withdrawn: the deprecation warns
    and keeps the function working until it goes (mcp-use's `set_roots()` was deprecated, and
    the safe removal of its `send_roots_list_changed()` left it storing roots and telling no
    server: its test of the notification failed). So is the removal of a statement that calls
    such a function (kept_working.calls): the project's own use keeps working with it. The
    finding goes with the deprecation."""
    if not functions:
        return
    from mcp_migrate.core.fix.kept_working import calls, within

    for rep in roots:
        if rep.fix is None or rep.fix.marker_only or rep.fix.keeps_working:
            continue
        others = [entry for entry in functions if entry[1] is not rep]
        found = within(rep.fix, parents, [e for e in others if e[1] is not None]) or calls(rep.fix, others)
        if found is not None and found[1] is None:  # a call of a function already deprecated
            rep.fix, rep.kind, rep.migrated = None, None, CALLS_DEPRECATED.format(name=found[0].name.value)
        elif found is not None:
            function, carrier = found
            rep.help = with_note(rep.help, INSIDE_DEPRECATED.format(code=carrier.code, name=function.name.value))
            _goes_with(rep, carrier)
            rep.fix = replace(rep.fix, keeps_working=True)


def _deprecate_instead_of_hollowing(roots: list, parents: dict) -> None:
    """A rule's own removal that would leave a public function with nothing to do (a library's
    `send_roots_list_changed()` whose only statement is the send) becomes that function's
    deprecation, suggested: a silent no-op breaks its callers without a word, a warning tells
    them (session 47's first look: fastmcp's `Client.send_roots_list_changed`). A removal
    already only suggested (held while a server in the run still asks) too: `fix
    --apply-suggestions` applies it (session 51: fastmcp's method was left a docstring)."""
    from mcp_migrate.core.fix.hollowed import deprecation_instead
    from mcp_migrate.core.fix.suggested import deprecation

    for rep in roots:
        if rep.fix is None or rep.fix.marker_only or rep.fix.orphans:
            continue
        found = deprecation_instead(rep.fix, parents, deprecation)
        if found is None:
            continue
        method, warning = found
        if warning is not None:
            rep.fix = replace(rep.fix, edits=(warning.edit,), display=True, imports=warning.imports, keeps_working=True)
            rep.kind, rep.help = None, with_note(rep.help, warning.note)
        else:  # no deprecation to write (one is there already: core.deprecated keeps it aside)
            rep.fix, rep.kind = None, None


def _suggest(rep: Report, note: str) -> None:
    """Make a fix that writes code a suggestion (display-only), the reason before its help."""
    if rep.fix is not None and not (rep.fix.display or rep.fix.marker_only):
        rep.fix, rep.kind, rep.help = replace(rep.fix, display=True), None, with_note(rep.help, note)


def _dedupe(pairs: Iterable) -> list:
    seen, out = set(), []
    for rep, finding in pairs:
        key = (finding.code, finding.line, finding.column, finding.end_line, finding.end_column)
        if key in seen:
            continue
        seen.add(key)
        out.append((rep, finding))
    return out


def check_bytes(data: bytes, path: str, settings: Settings) -> FileResult:
    """Check one file's raw bytes with `settings` (its `rules` chosen by mcp_migrate.api).
    Never raises for bad input: it becomes an E999 finding."""
    return analyze(data, path, settings).result


def _review_message(code: str, reason: str) -> str:
    """`review pending (CODE): reason`, the reason fitted after its prefix (which reports read)."""
    prefix = f"review pending ({code}): "
    return prefix + fit(reason, MAX_MESSAGE - len(prefix))


def internal_error_finding(error: FileError) -> Finding:
    """An internal error as a finding at the top of its file, naming the rule involved (a message
    over MAX_MESSAGE is fitted, and given whole as the help)."""
    text = f"{error.code}: {error.message}"
    short = fit(text)
    return Finding(
        error.path,
        1,
        1,
        1,
        1,
        INTERNAL_ERROR_CODE,
        "internal-error",
        short,
        "error",
        help=text if short != text else "",
    )
