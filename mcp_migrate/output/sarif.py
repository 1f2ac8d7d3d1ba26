"""`--format sarif`: a SARIF 2.1.0 log with one run, for GitHub code scanning and other viewers.

The driver lists every rule of the catalog (plus E999 / E902). Each result has a physical
location (1-based lines and columns counted in code points, exclusive end), `fixes` where the
finding has one, and `suppressions` when an inline comment (`inSource`, with its reason) or the
baseline (`external`) silenced it. A fix is computed by the fix engine for that rule in that
file and given as byte-range replacements, one per changed hunk.
"""

from __future__ import annotations

import base64
import dataclasses
import difflib
import os
import re
from pathlib import Path
from urllib.parse import quote

from mcp_migrate.core.codes import IO_ERROR_CODE, SYNTAX_ERROR_CODE

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"breaks": "error", "error": "error", "deprecated": "warning", "warning": "warning", "info": "note"}
#: Codes outside the catalog that results can carry.
EXTRA_RULES = (
    (SYNTAX_ERROR_CODE, "syntax-error", "error", "The file cannot be decoded or parsed"),
    (IO_ERROR_CODE, "io-error", "error", "The file or folder cannot be read"),
)


#: Where the rule pages live: `<DOCS_URL>/rules/<CODE>-<name>.md` is each rule's `helpUri`. A
#: placeholder until the repository is published; a run whose Settings carry `docs_url` uses that.
DOCS_URL = "https://github.com/OWNER/mcp-migrate/blob/main"
#: SARIF tags by rule-code prefix (the first match wins): what kind of rule it is.
TAGS = (
    ("RT9", ("maintenance",)),
    ("RT1", ("security", "roots")),
    ("RT", ("roots",)),
    ("HA", ("security", "approval")),
)
#: GitHub code scanning ranks security results by this CVSS-like score (a string):
#: 0.1-3.9 low, 4.0-6.9 medium, 7.0-8.9 high, 9.0+ critical. Every rule tagged `security` has one.
SECURITY_SEVERITY = {
    "RT101": "3.7",  # a non-file root fails validation or points at something that is not a folder
    "RT102": "5.3",  # percent-encoding and hosts mishandled: the wrong path is read or written
    "RT103": "7.5",  # a prefix check on unresolved paths lets ../ and symlinks out of the sandbox
    "HA001": "8.1",  # a server's own annotations decide that its tool runs without the user's approval
    "HA002": "7.3",  # every tool of a server runs without the user's approval
}


def tags(code: str) -> list:
    for prefix, names in TAGS:
        if code.startswith(prefix):
            return list(names)
    return []


def docs_url(run=None) -> str:
    """The base of the rule pages' URLs: a `docs_url` setting when the run's Settings have one."""
    for ref in getattr(run, "files", {}).values():
        value = getattr(ref.settings, "docs_url", None)
        if value:
            return value.rstrip("/")
    return DOCS_URL


def level(severity: str) -> str:
    return LEVELS.get(severity, "warning")


def _first_paragraph(doc: str, fallback: str) -> str:
    """The first paragraph under `## What it finds` (else the first prose paragraph)."""
    section = doc.split("## What it finds", 1)
    text = section[1] if len(section) == 2 else doc
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if block and not block.startswith("#"):
            return " ".join(block.split())
    return fallback


def rule_descriptors(base: str = DOCS_URL) -> list:
    from mcp_migrate.core.catalog import load_catalog

    rules = []
    for info in load_catalog().values():
        properties = {"severity": info.severity, "fix": info.fix, "tags": tags(info.code)}
        if info.code in SECURITY_SEVERITY:
            properties["security-severity"] = SECURITY_SEVERITY[info.code]
        rules.append(
            {
                "id": info.code,
                "name": info.name,
                "shortDescription": {"text": info.summary},
                "fullDescription": {"text": _first_paragraph(info.doc, info.summary)},
                "help": {"text": info.doc, "markdown": info.doc},
                "helpUri": f"{base}/rules/{info.code}-{info.name}.md",
                "defaultConfiguration": {"level": level(info.severity)},
                "properties": properties,
            }
        )
    for code, name, severity, summary in EXTRA_RULES:
        rules.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": summary},
                "fullDescription": {"text": summary},
                "help": {"text": summary},
                "defaultConfiguration": {"level": level(severity)},
                "properties": {"severity": severity, "fix": "none"},
            }
        )
    return rules


def artifact_location(path: str) -> dict:
    """A relative path against %SRCROOT% (the current folder); an absolute one as a file URI."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _region(finding) -> dict:
    return {
        "startLine": finding.line,
        "startColumn": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column,
    }


def _content(data: bytes) -> dict:
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"binary": base64.b64encode(data).decode("ascii")}


def replacements(old: bytes, new: bytes) -> list:
    """One SARIF replacement per changed hunk of lines, as byte offsets into `old`."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        region = {"byteOffset": starts[i1], "byteLength": starts[i2] - starts[i1]}
        replacement = {"deletedRegion": region}
        if j2 > j1:
            replacement["insertedContent"] = _content(b"".join(b[j1:j2]))
        out.append(replacement)
    return out


class _Fixes:
    """Per (file, rule, unsafe?) fixes, computed once with the file's own Settings."""

    def __init__(self, run):
        self.run = run
        self.cache: dict = {}

    def for_finding(self, finding):
        if finding.fix == "none":
            return None
        key = (finding.path, finding.code, finding.fix == "unsafe")
        if key not in self.cache:
            self.cache[key] = self._compute(*key)
        return self.cache[key]

    def _compute(self, path: str, code: str, unsafe: bool):
        from mcp_migrate.core.fixer import fix_bytes

        ref = self.run.files.get(path)
        if ref is None:
            return None
        try:
            data = ref.read()
        except OSError:
            return None
        settings = dataclasses.replace(
            ref.settings,
            select=frozenset({code}),
            extend_apis=tuple(api for api in ref.settings.extend_apis if api[0] == code),
        )
        result = fix_bytes(data, path, settings, unsafe=unsafe)
        if result.fixed_source is None or result.errors:
            return None
        if unsafe:
            text = (
                f"Apply mcp-migrate's unsafe {code} fixes to this file (`mcp-migrate fix --unsafe-fixes`):"
                " they change behaviour or an interface, review them"
            )
        else:
            text = f"Apply mcp-migrate's safe {code} fixes to this file (`mcp-migrate fix`)"
        return {
            "description": {"text": text},
            "artifactChanges": [
                {"artifactLocation": artifact_location(path), "replacements": replacements(data, result.fixed_source)}
            ],
        }


def _fingerprint(finding, lines_of: dict, run) -> dict:
    from mcp_migrate.project.baseline import file_lines, finding_hash

    if finding.path not in lines_of:
        lines_of[finding.path] = file_lines(run, finding.path)
    return {"mcpMigrateLineHash/v1": f"{finding.code}:{finding_hash(finding, lines_of[finding.path])}"}


def sarif_log(run) -> dict:
    from mcp_migrate import __version__

    rules = rule_descriptors(docs_url(run))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    fixes = _Fixes(run)
    lines_of: dict = {}

    def result(finding, suppressions=None) -> dict:
        item = {
            "ruleId": finding.code,
            "level": level(finding.severity),
            "message": {"text": finding.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": artifact_location(finding.path), "region": _region(finding)}}
            ],
            "partialFingerprints": _fingerprint(finding, lines_of, run),
        }
        if finding.code in index:
            item["ruleIndex"] = index[finding.code]
        fix = fixes.for_finding(finding)
        if fix is not None:
            item["fixes"] = [fix]
        if suppressions:
            item["suppressions"] = suppressions
        return item

    results = [result(f) for f in run.findings]
    for finding, _kind, reason in run.suppressed:
        suppression = {"kind": "inSource"}
        if reason:
            suppression["justification"] = reason
        results.append(result(finding, [suppression]))
    if run.baseline is not None:
        justification = f"recorded in the baseline {run.baseline.file}"
        for finding in run.baseline.matched:
            results.append(result(finding, [{"kind": "external", "justification": justification}]))
    notifications = [
        {
            "level": "error",
            "message": {"text": f"{error.code}: {error.message}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(error.path)}}],
        }
        for error in run.errors
    ]
    cwd = Path(os.getcwd()).as_uri().rstrip("/") + "/"
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcp-migrate",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": not run.errors, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }
