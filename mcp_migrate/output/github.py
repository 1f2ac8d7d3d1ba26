"""`--format github`: GitHub Actions workflow commands, so findings show inline in a pull request.

`::error file=a.py,line=4,col=11,endLine=4,endColumn=44,title=RT004::message` per finding, the
level by severity (breaks -> error, deprecated/warning -> warning, info -> notice). Values are
escaped as the Actions runner expects (`%`, CR, LF everywhere; `:` and `,` in properties).
"""

from __future__ import annotations

from mcp_migrate.output.printable import printable

LEVELS = {"breaks": "error", "error": "error", "deprecated": "warning", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The runner's escapes, after `printable` (a file name that is not UTF-8 shows as `\\xff`)."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{name} {props}::{escape_data(message)}" if props else f"::{name}::{escape_data(message)}"


def workflow_commands(run) -> list:
    lines = []
    for f in run.findings:
        lines.append(
            command(
                LEVELS.get(f.severity, "warning"),
                f"{f.message} ({f.name})",
                file=f.path,
                line=f.line,
                col=f.column,
                endLine=f.end_line,
                endColumn=f.end_column,
                title=f.code,
            )
        )
    for e in run.errors:
        lines.append(command("error", e.message, file=e.path, title=f"mcp-migrate {e.code}"))
    if run.baseline is not None:
        for entry in run.baseline.stale:
            message = f"stale baseline entry {entry['code']} x{entry['count']}: rewrite it with --write-baseline"
            lines.append(command("notice", message, file=entry["path"], title="mcp-migrate baseline"))
    return lines
