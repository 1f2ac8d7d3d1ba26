"""Reporters: text (rich, coloured on a terminal), JSON, the rules table, `explain`.

rich and json are imported inside the functions so commands that do not print through them
start faster. All user text (paths, messages, docs) goes through `rich.markup.escape`, and
consoles never highlight, wrap or replace `:emoji:` codes, so output is exactly the data.
"""
from __future__ import annotations

import os
import sys
from collections import Counter


def use_color(no_color: bool = False) -> bool:
    """False for --no-color or a non-empty NO_COLOR (no-color.org); rich handles pipes."""
    return not (no_color or os.environ.get("NO_COLOR"))


def make_console(*, stderr: bool = False, color: bool = True):
    from rich.console import Console

    return Console(
        stderr=stderr,
        highlight=False,
        soft_wrap=True,
        emoji=False,
        color_system="auto" if color else None,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(run) -> str:
    """`Checked N files: M findings (RT001: 2, RT004: 1)` or `Checked N files: no findings`."""
    findings = run.findings
    head = f"Checked {_plural(run.files_checked, 'file')}: "
    if findings:
        counts = Counter(f.code for f in findings)
        detail = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
        head += f"{_plural(len(findings), 'finding')} ({detail})"
    else:
        head += "no findings"
    safe = sum(1 for f in findings if f.fix == "safe")
    unsafe = sum(1 for f in findings if f.fix == "unsafe")
    if safe:
        head += f"; {safe} fixable with `mcp-migrate fix`"
    if unsafe:
        head += f"; {unsafe} more with `mcp-migrate fix --unsafe-fixes`"
    if run.errors:
        head += f"; {_plural(len(run.errors), 'error')}"
    return head


def print_text(run, *, color: bool = True) -> None:
    from rich.markup import escape

    out = make_console(color=color)
    err = make_console(stderr=True, color=color)
    for e in run.errors:
        err.print(f"[bold]{escape(e.path)}[/]: [red]error[/]: [bold red]{escape(e.code)}[/] {escape(e.message)}")
    for f in run.findings:
        style = "red" if f.severity in ("breaks", "error") else "yellow"
        out.print(f"[bold]{escape(f.path)}[/]:{f.line}:{f.column}: [bold {style}]{escape(f.code)}[/] {escape(f.message)}")
    if run.findings:
        out.print()
    out.print(summary_line(run))


def json_document(run) -> dict:
    from mcp_migrate import __version__

    return {
        "version": __version__,
        "files_checked": run.files_checked,
        "findings": [f.to_json() for f in run.findings],
        "errors": [e.to_json() for e in run.errors],
    }


def print_json(run) -> None:
    import json

    sys.stdout.write(json.dumps(json_document(run), indent=2) + "\n")


RULE_COLUMNS = ("code", "name", "fix", "severity", "summary")


def print_rules(catalog: dict, *, color: bool = True) -> None:
    """A table on a terminal; plain aligned columns, no header, when piped (grep-friendly)."""
    from rich.markup import escape

    console = make_console(color=color)
    rows = [tuple(getattr(info, col) for col in RULE_COLUMNS) for info in catalog.values()]
    if console.is_terminal:
        from rich.table import Table

        table = Table(*RULE_COLUMNS, highlight=False)
        for row in rows:
            table.add_row(*(escape(cell) for cell in row))
        console.print(table)
        return
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(len(RULE_COLUMNS) - 1)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths)] + [row[-1]]
        console.print(escape("  ".join(cells)))


def print_explain(info, *, color: bool = True) -> None:
    from rich.markup import escape

    console = make_console(color=color)
    console.print(f"[bold]{escape(info.code)} {escape(info.name)}[/] ({escape(info.severity)}, fix: {escape(info.fix)})")
    console.print()
    console.print(escape(info.doc.rstrip("\n")))
