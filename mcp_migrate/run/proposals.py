"""Fix proposals for the reporters that show fixes (SARIF, the full text format): each fixable
finding's rule fix as bytes before and after, taken from the check's own previews where it made
them, else computed here; reporters only report, they never run the fixer.
"""

from __future__ import annotations

from mcp_migrate.core.record import replace
from mcp_migrate.run.plan import fixes_of
from mcp_migrate.run.records import FileRef, FixProposal, RunResult


def propose_fixes(run: RunResult) -> RunResult:
    """Fill `run.fixes` with each fixable finding's rule fix, for SARIF and the full text
    format, so reporters show fixes without running the fixer themselves. A check run with
    `previews` already computed them from its own parse (FileResult.fix_previews, cached with
    the findings); otherwise one fixer run per (file, rule, safety) computes them here."""
    previews = {r.path: r.fix_previews for r in run.results if r.fix_previews}
    for finding in run.findings:
        if finding.fix == "none":
            continue
        key = (finding.path, finding.code, finding.fix != "safe")
        if key not in run.fixes:
            ref = run.files.get(finding.path)
            known = previews.get(finding.path)
            if fixes_of(getattr(ref, "policy", None)).adjusted(finding.code):
                # The config made this rule's fixes all one kind: its preview is all of them.
                run.fixes[key] = _propose(ref, finding.path, finding.code, True)
            elif known is not None:
                # A safe fix the run plan leaves to `--unsafe-fixes`, or holds as a suggestion
                # while a server still asks (run.roots_plan), was previewed with the safe ones.
                held = finding.fix in ("unsafe", "display")
                new = known.get(key[1:]) or (known.get((finding.code, False)) if held else None)
                run.fixes[key] = _from_preview(ref, new)
            else:
                run.fixes[key] = _propose(ref, *key, display=finding.fix == "display")
    run.fixes = {key: proposal for key, proposal in run.fixes.items() if proposal is not None}
    return run


def _from_preview(ref: FileRef | None, new: bytes | None) -> FixProposal | None:
    if ref is None or new is None:
        return None
    try:
        return FixProposal(ref.read(), new)
    except OSError:
        return None


def _propose(ref: FileRef | None, path: str, code: str, unsafe: bool, display: bool = False) -> FixProposal | None:
    from mcp_migrate.run import analysis

    if ref is None:
        return None
    try:
        data = ref.read()
    except OSError:
        return None
    settings = replace(
        ref.settings,
        select=frozenset({code}),
        extend_apis=tuple(api for api in ref.settings.extend_apis if api[0] == code),
    )
    if display:  # never applied by fix: the preview pass shows it
        from mcp_migrate import api

        new = api.rule_previews(data, path, settings).get((code, True))
        return FixProposal(data, new) if new is not None else None
    result = analysis.fix(data, path, settings, unsafe)
    if result.fixed_source is None or result.errors:
        return None
    return FixProposal(data, result.fixed_source)
