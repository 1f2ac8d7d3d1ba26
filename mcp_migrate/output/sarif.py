"""`--format sarif`: a SARIF 2.1.0 log with one run, for GitHub code scanning and other viewers.

The driver lists every rule of the catalog (plus the engine's file-level codes: E999, E902, E997, E998, E900). Each result has a physical
location (1-based lines and columns counted in code points, exclusive end), `fixes` where the
finding has one, and `suppressions` when an inline comment (`inSource`, with its reason) or the
baseline (`external`) silenced it. A fix is computed by the fix engine for that rule in that
file (by the runner, which hands it over in the RunResult: reporters only report) and given as
byte-range replacements, one per changed hunk.
"""

from __future__ import annotations

import base64
import difflib
import os
import re
from pathlib import Path
from urllib.parse import quote

from mcp_migrate import __version__
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import FILE_CODES

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"breaks": "error", "error": "error", "deprecated": "warning", "warning": "warning", "info": "note"}
#: Codes outside the catalog that results can carry.
EXTRA_RULES = tuple((code, name, "error", summary) for code, name, summary in FILE_CODES)


#: Where the rule pages live: `<DOCS_URL>/rules/<CODE>-<name>.md` is each rule's `helpUri`. A
#: placeholder until the repository is published; the config key `docs-url` replaces it.
DOCS_URL = "https://github.com/OWNER/mcp-migrate/blob/main"


def docs_url(run=None) -> str:
    """The base of the rule pages' URLs: the config's `docs-url` when the run carries one."""
    value = getattr(run, "docs_url", None)
    return value.rstrip("/") if value else DOCS_URL


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
    rules = []
    for info in load_catalog().values():
        properties = {"severity": info.severity, "fix": info.fix, "tags": list(info.tags)}  # the page's `tags`
        if info.security_severity:  # from the rule page's front matter
            properties["security-severity"] = info.security_severity
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
    """A relative path against %SRCROOT% (the current folder); an absolute one as a file URI.
    Both percent-encode the path's bytes."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    # The name's bytes, percent-encoded: exact for a name that is not UTF-8 (os.fsdecode's
    # surrogate escapes), where quoting the text would raise.
    return {"uri": quote(os.fsencode(path.replace(os.sep, "/"))), "uriBaseId": SRCROOT}


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


def sarif_fix(path: str, code: str, unsafe: bool, proposal, display: bool = False) -> dict:
    """A SARIF `fix` from the runner's proposal for one rule in one file (RunResult.fixes):
    the description names the command that applies it; unsafe ones name `--unsafe-fixes`;
    display-only ones say that no command applies them."""
    if display:
        text = f"A suggested {code} change, applied only by `mcp-migrate fix --apply-suggestions`, if it is right here"
    elif unsafe:
        text = (
            f"Apply mcp-migrate's unsafe {code} fixes to this file (`mcp-migrate fix --unsafe-fixes`):"
            " they change behaviour or an interface, review them"
        )
    else:
        text = f"Apply mcp-migrate's safe {code} fixes to this file (`mcp-migrate fix`)"
    return {
        "description": {"text": text},
        "artifactChanges": [
            {"artifactLocation": artifact_location(path), "replacements": replacements(proposal.old, proposal.new)}
        ],
    }


def _fix_for(run, finding):
    """The SARIF fix of a finding, from what the runner computed (reporters only report). A
    review marker is a comment for a human, not a fix: no SARIF fix."""
    if finding.fix in ("none", "marker"):
        return None
    key = (finding.path, finding.code, finding.fix != "safe")
    proposal = getattr(run, "fixes", {}).get(key)
    return None if proposal is None else sarif_fix(*key, proposal, display=finding.fix == "display")


def _fingerprint(finding, lines_of: dict, run) -> dict:
    from mcp_migrate.project.baseline import file_lines, finding_hash

    if finding.path not in lines_of:
        lines_of[finding.path] = file_lines(run, finding.path)
    return {"mcpMigrateLineHash/v1": f"{finding.code}:{finding_hash(finding, lines_of[finding.path])}"}


def _related(number: int, related) -> dict:
    """One related location (core.findings.Related): a point, as its line and column say."""
    region = {"startLine": related.line, "startColumn": related.column}
    return {
        "id": number,
        "physicalLocation": {"artifactLocation": artifact_location(related.path), "region": region},
        "message": {"text": related.message},
    }


def sarif_log(run) -> dict:
    rules = rule_descriptors(docs_url(run))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
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
        if finding.related:  # a helper's callers (core.callers)
            item["relatedLocations"] = [_related(i, r) for i, r in enumerate(finding.related)]
        if finding.code in index:
            item["ruleIndex"] = index[finding.code]
        if finding.help:  # what to do: the message says only what is wrong
            item["properties"] = {"help": finding.help}
        fix = _fix_for(run, finding)
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
