"""`--output-format grouped`: findings grouped by file, as ruff's `grouped` format prints them.

    server.py:
      14:20 RT001 [*] `ctx.session.list_roots()` asks the client for roots, ...

A file's name on a line of its own, then one line per finding, `line:column` right-aligned on the
widest line number and left-aligned on the widest column of that file, `[*]` where plain
`mcp-migrate fix` would apply the finding's fix (a safe fix, or an unsafe one where
`unsafe-fixes` is on); a blank line after each file.
"""

from __future__ import annotations

from itertools import groupby


def fixable_now(run, finding) -> bool:
    """Whether plain `mcp-migrate fix` applies this finding's fix (ruff's `[*]`)."""
    if finding.fix == "safe":
        return True
    if finding.fix != "unsafe":
        return False
    enabled = getattr(run, "unsafe_fixes_for", None)
    return bool(enabled(finding.path) if enabled is not None else getattr(run, "unsafe_fixes", False))


def called_count(finding) -> str:
    """` (called from 3 places)`: how many callers of its helper a finding holds (core.callers)."""
    n = len(finding.related)
    return f" (called from {n} place{'s' if n != 1 else ''})" if n else ""


def grouped_lines(run, markup: bool = True):
    """(text, style) lines, as `report._finding_lines` yields them: rich markup, or plain text."""
    from rich.markup import escape

    for path, group in groupby(run.findings, key=lambda f: f.path):
        findings = list(group)
        row_width = max(len(str(f.line)) for f in findings)
        col_width = max(len(str(f.column)) for f in findings)
        yield (f"[bold underline]{escape(path)}[/]:" if markup else f"{path}:"), ""
        for f in findings:
            row = f"{f.line:>{row_width}}"
            col = f"{f.column:<{col_width}}"
            mark = "[*] " if fixable_now(run, f) else ""
            message = f.message + called_count(f)
            if markup:
                style = "red" if f.severity in ("breaks", "error") else "yellow"
                yield (
                    f"  {row}[cyan]:[/]{col} [bold {style}]{escape(f.code)}[/] {escape(mark)}{escape(message)}",
                    "",
                )
            else:
                yield f"  {row}:{col} {f.code} {mark}{message}", ""
        yield "", ""
