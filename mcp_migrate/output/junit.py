"""`--output-format junit`: a JUnit XML report, in the shape ruff's `junit` format writes it, for
CI systems that show test reports (GitLab, Jenkins, Azure, CircleCI).

One `<testsuite>` per file with findings (named by the file's path), one `<testcase>` per finding
(`name="org.mcp-migrate.RT001"`, `classname` the path without its extension, `line` and
`column` attributes, the severity as a property) failing with the message. Internal errors are
`<error>` test cases (ruff has none). A clean run is one passing test case, as in ruff.
"""

from __future__ import annotations

import os
from xml.sax.saxutils import escape, quoteattr

from mcp_migrate.output.printable import printable

PROGRAM = "mcp-migrate"
PACKAGE = f"org.{PROGRAM}"


def _text(value: str) -> str:
    """XML character data: escaped, and characters XML 1.0 cannot carry replaced."""
    return escape(_xml_chars(value))


def _attr(value) -> str:
    return quoteattr(_xml_chars(str(value)), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def _xml_chars(value: str) -> str:
    return "".join(
        c if c in "\t\n\r" or 0x20 <= ord(c) <= 0xD7FF or 0xE000 <= ord(c) <= 0xFFFD or ord(c) > 0xFFFF else "\ufffd"
        for c in printable(value)
    )


def _classname(path: str) -> str:
    return os.path.splitext(path)[0]


def junit_xml(run) -> str:
    findings = run.findings
    errors = run.errors
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    total = len(findings) + len(errors)
    if not total:
        lines.append(f'<testsuites name="{PROGRAM}" tests="1" skipped="0" failures="0" errors="0">')
        lines.append(
            f'    <testsuite name="{PROGRAM}" tests="1" skipped="0" errors="0" failures="0" package="{PACKAGE}">'
        )
        lines.append(f'        <testcase name="No findings" classname="{PROGRAM}"/>')
        lines.append("    </testsuite>")
        lines.append("</testsuites>")
        return "\n".join(lines) + "\n"
    lines.append(
        f'<testsuites name="{PROGRAM}" tests="{total}" skipped="0" failures="{len(findings)}" errors="{len(errors)}">'
    )
    cases: dict = {}
    for f in findings:
        cases.setdefault(f.path, []).append(("failure", f))
    for e in errors:
        cases.setdefault(e.path, []).append(("error", e))
    for path in sorted(cases):
        entries = cases[path]
        failures = sum(1 for kind, _ in entries if kind == "failure")
        lines.append(
            f'    <testsuite name={_attr(path)} tests="{len(entries)}" skipped="0"'
            f' errors="{len(entries) - failures}" failures="{failures}" package="{PACKAGE}">'
        )
        for kind, item in entries:
            if kind == "failure":
                lines.append(
                    f"        <testcase name={_attr(f'{PACKAGE}.{item.code}')} classname={_attr(_classname(path))}"
                    f' line="{item.line}" column="{item.column}">'
                )
                lines.append("            <properties>")
                lines.append(f'                <property name="severity" value={_attr(item.severity)}/>')
                lines.append("            </properties>")
                body = f"line {item.line}, col {item.column}, {item.message}"
                if getattr(item, "help", ""):
                    body += f"\nhelp: {item.help}"
                lines.append(f"            <failure message={_attr(item.message)}>{_text(body)}</failure>")
            else:
                lines.append(
                    f"        <testcase name={_attr(f'{PACKAGE}.{item.code}')} classname={_attr(_classname(path))}>"
                )
                lines.append(f"            <error message={_attr(item.message)}>{_text(item.message)}</error>")
            lines.append("        </testcase>")
        lines.append("    </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"
