"""The fix loop: analyse, apply the chosen fixes in one pass, check the output parses, repeat
while new fixable findings appear (at most MAX_PASSES times); previews of one rule's fixes for
reporters. Bytes in, bytes out; never raises."""

from __future__ import annotations

import ast
import sys
from functools import cached_property
from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.collector import collector_paused
from mcp_migrate.core.deep import call_deep
from mcp_migrate.core.engine import Analysis, analyze
from mcp_migrate.core.findings import FIXED, MARKED, Applied, FileError, FileResult
from mcp_migrate.core.fix.apply import edit_transformer, separated, touched
from mcp_migrate.core.fix.edits import RemoveStatement
from mcp_migrate.core.fix.import_block import add_imports
from mcp_migrate.core.fix.imports import name_uses, remove_orphaned_imports
from mcp_migrate.core.fix.layout import line_length, without_form_feed_indent
from mcp_migrate.core.fix.orphans import remove_orphan_functions
from mcp_migrate.core.fix.pieces import Pieces, module_bytes, module_pieces
from mcp_migrate.core.fix.preserve import exact_output
from mcp_migrate.core.fix.shared_statements import statements_shared
from mcp_migrate.core.positions import source_spans
from mcp_migrate.core.settings import Settings, with_view
from mcp_migrate.core.syntax import iter_nodes

MAX_PASSES = 5


class FixPass(NamedTuple):
    """One pass of the fix loop: the new bytes (None: no fix applied), the fixes applied as
    Applied records, and the analysis of the bytes the pass started from."""

    new: bytes | None
    applied: list
    analysis: Analysis


def fix_once(data: bytes, path: str, settings: Settings, unsafe: bool, suggestions: bool = False) -> FixPass:
    """One pass over `data`: apply every chosen fix that does not overlap another. `fix` never
    applies the display-only ones; `suggestions` does (what the file would be with the
    suggestions taken: tests of the suggestions, and the fix benchmark's review)."""
    analysis = analyze(data, path, settings)
    # A review marker is written with the unsafe fixes (it is never counted as one).
    kinds: tuple = ("safe", "unsafe", "marker") if unsafe else ("safe",)
    kinds += ("display",) if suggestions else ()
    wanted = lambda finding: finding.fix in kinds  # noqa: E731 - the pass's one predicate
    new, applied = _apply_pass(data, analysis, path, wanted)
    return FixPass(new, applied, analysis)


def _without_overlaps(pairs: list, module: cst.Module) -> list:
    """The (report, finding) pairs one pass applies, in the findings' order, each skipped where
    it overlaps one already chosen, or where another fix removes all it touches and more (a fix
    inside a function another fix deletes, itself or by its orphan clean-up, would otherwise go
    first and leave what it added behind: a setting its rewrite reads). A skipped fix is planned
    again on the next pass's code."""
    touches = [touched(report.fix) for report, _ in pairs]
    # What each fix removes, with the functions its orphan clean-up deletes (those are shared by
    # every registration of one handler, so they count here and not as overlaps).
    reach = list(touches)
    orphans = {name for (report, finding) in pairs if finding.fix != "safe" for name in report.fix.orphans}
    if orphans:
        doomed = {
            s.name.value: {id(n) for n in iter_nodes(s)}
            for s in module.body
            if isinstance(s, cst.FunctionDef) and s.name.value in orphans
        }
        for i, (report, finding) in enumerate(pairs):
            if finding.fix != "safe":
                for name in report.fix.orphans:
                    reach[i] = reach[i] | doomed.get(name, set())
    taken: set = set()
    removed: dict = {}  # id -> statement, every statement the taken fixes remove whole
    kept = []
    for i, pair in enumerate(pairs):
        mine = touches[i]
        clash = mine & taken
        if clash:
            clash -= _removed_alike(pair[0].fix, removed)
        if clash or (mine and any(j != i and mine < other for j, other in enumerate(reach))):
            continue
        taken |= mine
        removed.update(_whole_removals(pair[0].fix))
        kept.append(pair)
    return kept


def _whole_removals(fix) -> dict:
    """id -> statement for the statements `fix` removes whole."""
    return {id(edit.node): edit.node for edit in fix.edits if isinstance(edit, RemoveStatement)}


def _removed_alike(fix, removed: dict) -> set:
    """The node ids inside statements that `fix` removes whole and a taken fix removes too: the
    same edit twice is no clash (two flows that both leave one local unread each delete it; one
    applied without the other left its reader with an undefined name)."""
    shared = [node for key, node in _whole_removals(fix).items() if key in removed]
    return {id(n) for node in shared for n in iter_nodes(node)}


def _apply_pass(
    data: bytes,
    analysis,
    path: str,
    wanted,
    inputs: _PassInputs | None = None,
):
    """Apply, in one transform, the fixes of the findings `wanted` accepts that do not overlap
    one already chosen: (new bytes or None, [Applied(code, line, kind)]). `inputs`: the
    module's name uses, code and line length, when the caller shares them (a file's previews:
    many passes over the one parsed module, whose parent map the analysis's index keeps)."""
    chosen, applied, orphans, imports = [], [], set(), []
    pairs = [(report, finding) for report, finding in analysis.pairs if report.fix is not None and wanted(finding)]
    for report, finding in _without_overlaps(pairs, analysis.module):
        if not report.fix.edits:
            continue  # it goes with another finding's fix (core.fix.carried): counted as gone with it
        chosen.extend(report.fix.edits)
        imports.extend(report.fix.imports)
        applied.append(Applied(finding.code, finding.line, MARKED if report.fix.marker_only else FIXED))
        if finding.fix != "safe":  # a safe fix never deletes a function (engine._decide_fixes)
            orphans.update(report.fix.orphans)
    if not chosen:
        return None, []
    module = without_form_feed_indent(analysis.module)
    width = inputs.width if inputs is not None else line_length(path, analysis.view)
    index = analysis.index
    parents = index.parents if index is not None and index.module is module else None
    try:
        new_module = module.visit(edit_transformer(module, chosen, width, parents))
    except cst.CSTValidationError:  # `return"x" % p` -> `returnPath(p)...`: needs a separator
        new_module = module.visit(edit_transformer(module, separated(chosen), width, parents))
    if orphans:
        new_module = remove_orphan_functions(new_module, orphans)
    new_module = remove_orphaned_imports(
        module, new_module, inputs.used_before if inputs is not None else None, analysis.kept_imports
    )
    if imports:
        # Only what the new code uses: a fix whose edits lay inside a function another fix's
        # orphan clean-up deleted in the same pass (an RT102 suggestion in a provider that the
        # migration removes) needs none.
        uses = name_uses(new_module)
        needed = [(mod, name) for mod, name in imports if uses.get(name or mod.split(".")[0], 0) > 0]
        if needed:
            new_module = add_imports(new_module, needed)
    source = analysis.source(data)
    if inputs is None or module is not analysis.module:
        return analysis.whole(exact_output(source, module.bytes, new_module.bytes)), applied
    pieces = inputs.roundtrip
    return analysis.whole(exact_output(source, pieces.bytes, module_bytes(new_module, pieces))), applied


class _PassInputs:
    """What every preview pass over one analysis needs, each computed once and only when a
    pass needs it: the parsed module's name uses and its code by statement (core.fix.pieces),
    and the project's line length. The rules' previews and the findings' previews of a file
    share one."""

    def __init__(self, analysis, data: bytes, path: str) -> None:
        self.analysis = analysis
        self.data = data
        self.path = path

    @cached_property
    def used_before(self) -> dict:
        return name_uses(self.analysis.module)

    @cached_property
    def roundtrip(self) -> Pieces:
        source = self.analysis.source(self.data)
        spans = self.analysis.spans if self.analysis.spans is not None else source_spans(source)
        return module_pieces(self.analysis.module, source, spans)

    @cached_property
    def width(self) -> int:
        return line_length(self.path, self.analysis.view)


def analysis_previews(analysis, data: bytes, path: str) -> dict:
    """(code, unsafe?) -> the file's bytes after that rule's fixes of that kind (unsafe? is true
    for the fixes plain `fix` does not apply: unsafe and display-only ones): one transform
    per (rule, fix kind) of the tree the check already parsed and walked (`analysis`, from
    engine.analyze of `data`), the module's name uses counted once for all of them. A preview
    is one pass, like the first pass of `fix`; what `fix` writes is still verified there.
    Runs on the deep-stack thread; a preview that cannot be computed is left out (the finding
    is still reported)."""
    return previews(analysis, data, path, findings=False)[0]


def previews(analysis, data: bytes, path: str, *, rules: bool = True, findings: bool = True) -> tuple:
    """(analysis_previews, finding_previews) of one analysis, from one call on the deep-stack
    thread whose passes share the parsed module's name uses, code and parent map (and each
    top-level statement's, core.fix.shared_statements). Either is {} when it cannot be computed
    or was not asked for (`rules`, `findings`)."""
    try:
        with statements_shared():
            return call_deep(_previews, analysis, data, path, rules, findings)
    except Exception:  # noqa: BLE001 - previews only illustrate findings
        return {}, {}


def _previews(analysis, data: bytes, path: str, rules: bool, findings: bool) -> tuple:
    inputs = _PassInputs(analysis, data, path)
    out = []
    for wanted, make in ((rules, _analysis_previews), (findings, _finding_previews)):
        try:
            out.append(make(analysis, data, path, inputs) if wanted else {})
        except Exception:  # noqa: BLE001 - one kind of preview lost, not the other
            out.append({})
    return tuple(out)


def _analysis_previews(analysis, data: bytes, path: str, inputs: _PassInputs) -> dict:
    previews: dict = {}
    if analysis.module is None:
        return previews
    keys = dict.fromkeys((f.code, f.fix != "safe") for r, f in analysis.pairs if f.fix != "none" and r.fix is not None)
    for code, unsafe in keys:
        kinds = _preview_kinds(analysis, code, unsafe)
        new, _ = _apply_pass(
            data,
            analysis,
            path,
            lambda f, c=code, k=kinds: f.code == c and f.fix in k,
            inputs,
        )
        if new is not None and new != data:
            previews[(code, unsafe)] = new
    return previews


def continued_previews(path: str, analysis, previews: dict, reanalyze) -> dict:
    """`previews` (analysis_previews of `analysis`) with each rule preview whose one pass left
    out a fix of that rule overlapping one it applied (two requests in one tool) continued as
    `fix` continues: its bytes analysed again (`reanalyze`: bytes -> Analysis, with the check's
    settings) and that rule's fixes of that kind applied, a pass at a time (MAX_PASSES in all),
    while the output parses. So a rule's preview is its whole fix in the file (issue 33 §3). A
    continuation that fails leaves the one-pass preview."""
    incomplete = [key for key in previews if _overlapping(analysis, _kind_of(analysis, *key))]
    if not incomplete:
        return previews
    out = dict(previews)
    for key in incomplete:
        try:
            out[key] = call_deep(_continue, out[key], path, reanalyze, _kind_of(analysis, *key))
        except Exception:  # noqa: BLE001 - previews only illustrate findings
            continue
    return out


def _kind_of(analysis, code: str, unsafe: bool):
    """The predicate of the findings a rule preview (code, unsafe?) applies."""
    kinds = _preview_kinds(analysis, code, unsafe)
    return lambda finding: finding.code == code and finding.fix in kinds


def _preview_kinds(analysis, code: str, unsafe: bool) -> tuple:
    """The fix kinds a rule preview (code, unsafe?) takes: the safe ones; else what
    `fix --unsafe-fixes` writes (unsafe fixes, markers), or the suggestions where the rule has
    only those in the file. A rule with both (RT002's removals and its suggested ones) previews
    what fix writes; each suggestion then has its own finding preview."""
    if not unsafe:
        return ("safe",)
    written = any(f.code == code and f.fix in ("unsafe", "marker") for _r, f in analysis.pairs)
    return ("unsafe", "marker") if written else ("display",)


def _overlapping(analysis, wanted) -> bool:
    """Whether two fixes `wanted` accepts touch the same nodes (the pass applies one)."""
    taken: set = set()
    for report, finding in analysis.pairs:
        if report.fix is not None and wanted(finding):
            nodes = touched(report.fix)
            if nodes & taken:
                return True
            taken |= nodes
    return False


def _continue(current: bytes, path: str, reanalyze, wanted) -> bytes:
    for _ in range(MAX_PASSES - 1):
        step, _applied = _apply_pass(current, reanalyze(current), path, wanted)
        if step is None or step == current or verify_parses(step, path, compiles=False) is not None:
            break
        current = step
    return current


#: Findings a check previews one by one (each one more transform of the tree it parsed), per
#: file; past this, a finding whose rule has other fixes in the file shows the part of their
#: shared diff near it, and the command that prints the rest.
MAX_FINDING_PREVIEWS = 32


def finding_previews(analysis, data: bytes, path: str) -> dict:
    """(code, line, column, unsafe?) -> the file's bytes after that one finding's fix alone, for
    the findings whose rule has more than one fix of that kind in the file (for the others
    the rule's preview, analysis_previews, is that finding's whole fix). The first
    MAX_FINDING_PREVIEWS such findings only; one that cannot be computed is left out."""
    return previews(analysis, data, path, rules=False)[1]


def _finding_previews(analysis, data: bytes, path: str, inputs: _PassInputs) -> dict:
    previews: dict = {}
    if analysis.module is None:
        return previews
    shared: dict = {}
    for report, finding in analysis.pairs:
        if report.fix is not None and finding.fix != "none":
            key = (finding.code, finding.fix != "safe")
            shared[key] = shared.get(key, 0) + 1
    alone = [
        f
        for r, f in analysis.pairs
        if r.fix is not None and f.fix != "none" and shared.get((f.code, f.fix != "safe"), 0) > 1
    ]
    if not alone:
        return previews
    for finding in alone[:MAX_FINDING_PREVIEWS]:
        unsafe = finding.fix != "safe"
        new, _ = _apply_pass(
            data,
            analysis,
            path,
            lambda f, one=finding: f is one,
            inputs,
        )
        if new is not None and new != data:
            previews[(finding.code, finding.line, finding.column, unsafe)] = new
    return previews


def verify_parses(data: bytes, path: str, *, compiles: bool = True) -> str | None:
    """Why `data` is unusable as fix output, or None. LibCST must parse it; CPython must compile
    it when it compiled the input (`compiles`): syntax newer than this interpreter (a 3.12
    `type` statement on 3.11) is checked by the parser that accepted the input, LibCST."""
    try:
        with collector_paused():
            cst.parse_module(data)
    except Exception as exc:  # noqa: BLE001 - any failure means the fix is unusable
        return f"{type(exc).__name__}: {exc}"
    if compiles:
        return _cpython_problem(data, path)
    return None


def _cpython_problem(data: bytes, path: str) -> str | None:
    try:
        compile(data, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except Exception as exc:  # noqa: BLE001 - any failure means the code does not compile
        return f"{type(exc).__name__}: {exc}"
    return None


def fix_bytes(
    data: bytes, path: str, settings: Settings, *, unsafe: bool = False, suggestions: bool = False
) -> FileResult:
    """Fix one file's bytes. `fixed_source` is None when nothing changed; `findings` are what
    remains after fixing; a fix whose output does not parse is dropped with a FileError. Never
    raises: an internal error leaves the file untouched and is one of the result's `errors`.
    Runs on the deep-stack thread (core.deep): the transforms recurse as deep as the syntax.
    Every pass reads the project through one view (core.project_view: the settings' own)."""
    settings = with_view(settings)
    try:
        return call_deep(_fix_bytes, data, path, settings, unsafe, suggestions)
    except Exception as exc:  # noqa: BLE001 - bytes in, a result out: never an exception
        return _untouched(data, path, settings, "internal", f"fix raised {type(exc).__name__}: {exc}")


def _untouched(data: bytes, path: str, settings: Settings, code: str, message: str) -> FileResult:
    """The result of a fix that cannot be made: the input's own findings plus the error."""
    try:
        result = analyze(data, path, settings).result
    except Exception:  # noqa: BLE001 - the error below is what matters
        result = FileResult(path)
    result.errors.append(FileError(path, code, " ".join(f"{message}; file left untouched".split())))
    return result


def _fix_bytes(data: bytes, path: str, settings: Settings, unsafe: bool, suggestions: bool = False) -> FileResult:
    suggestions = suggestions or settings.apply_suggestions
    unsafe = unsafe or suggestions  # taking suggestions takes the unsafe fixes too (commands.cli)
    current, applied = data, []
    compiles = None  # does this interpreter compile the input? asked once, when a fix applies
    for _ in range(MAX_PASSES):
        try:
            new, done, analysis = fix_once(current, path, settings, unsafe, suggestions)
        except RecursionError:
            return _untouched(data, path, settings, "internal", "too deeply nested to fix")
        if new is None or new == current:
            break
        if compiles is None:
            compiles = _cpython_problem(data, path) is None
        problem = verify_parses(new, path, compiles=compiles)
        if problem is not None:
            codes = ",".join(sorted({applied_fix.code for applied_fix in done}))
            if not compiles:
                problem += f"; Python {sys.version_info[0]}.{sys.version_info[1]} cannot compile the input either"
            return _untouched(data, path, settings, codes or "internal", f"fix output does not parse ({problem})")
        current = new
        applied.extend(done)
    else:
        analysis = analyze(current, path, settings)
    result = analysis.result
    result.fixed_source = current if current != data else None
    result.applied = applied
    return result
