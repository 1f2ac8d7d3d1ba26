"""Baselines: adopt mcp-migrate on a large codebase by recording today's findings and failing
only on new ones.

An entry is keyed by rule code, path (relative to the baseline file's folder, `/`-separated)
and a hash of the finding's source line with whitespace normalised, with a count for identical
lines. Inserting or deleting lines above a finding therefore does not make it new; editing the
line itself does. Entries that no longer match anything in a file that was checked (or whose
file is gone) are stale and reported, so a baseline only ever shrinks.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

from mcp_migrate.core.record import field, record
from mcp_migrate.project.config import ConfigError
from mcp_migrate.project.regular import read_regular
from mcp_migrate.project.writer import replace_file

FORMAT_VERSION = 1


class BaselineError(ConfigError):
    """A baseline file that cannot be read or written, or is not one of ours (bad input: exit 2)."""


def line_hash(line: bytes) -> str:
    """16 hex digits of SHA-256 over the line with runs of whitespace collapsed and ends trimmed."""
    return hashlib.sha256(b" ".join(line.split())).hexdigest()[:16]


def finding_hash(finding, lines: list) -> str:
    """The hash of the finding's first line (`lines`: the file's bytes split into lines)."""
    index = finding.line - 1
    return line_hash(lines[index] if 0 <= index < len(lines) else b"")


def _relative(path: str, folder: str) -> str:
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, folder)
    except ValueError:  # another drive
        rel = full
    return rel.replace(os.sep, "/")


def file_lines(run, display: str) -> list:
    ref = run.files.get(display)
    if ref is None:
        return []
    try:
        return ref.read().splitlines()
    except OSError:
        return []


def keyed_findings(run, folder: str) -> list:
    """[((code, relative path, hash), finding)] for every finding of `run`."""
    out, lines_of = [], {}
    for finding in run.findings:
        if finding.path not in lines_of:
            lines_of[finding.path] = file_lines(run, finding.path)
        key = (finding.code, _relative(finding.path, folder), finding_hash(finding, lines_of[finding.path]))
        out.append((key, finding))
    return out


def write_baseline(path: str, run) -> int:
    """Record every current finding of `run` in `path`; returns how many."""
    folder = os.path.dirname(os.path.abspath(path))
    counts = Counter(key for key, _ in keyed_findings(run, folder))
    entries = [
        {"code": code, "path": rel, "hash": digest, "count": n} for (code, rel, digest), n in sorted(counts.items())
    ]
    doc = {"tool": "mcp-migrate", "version": FORMAT_VERSION, "findings": entries}
    text = json.dumps(doc, indent=2) + "\n"
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise BaselineError(f"{path}: cannot write baseline: it is a folder")
    try:
        target = Path(path)
        like = os.stat(target) if target.is_file() else None
        replace_file(target, text.encode("utf-8"), like=like)  # atomic; no temporary file left behind
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc.strerror or exc}") from None
    return sum(counts.values())


def load_baseline(path: str) -> Counter:
    """(code, relative path, hash) -> count, from a file written by `write_baseline`."""
    try:
        doc = json.loads(read_regular(path)[0].decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BaselineError(f"{path}: not a baseline: not UTF-8 text (at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}: not a baseline: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(doc, dict) or doc.get("tool") != "mcp-migrate" or doc.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: not an mcp-migrate baseline (version {FORMAT_VERSION})")
    counts: Counter = Counter()
    try:
        for entry in doc["findings"]:
            count = entry["count"]
            if type(count) is not int or count < 1:  # 1e400 is a float (infinity), True a bool
                raise BaselineError(
                    f"{path}: malformed baseline entry: count must be a whole number of at least 1, got {count!r}"
                )
            counts[(entry["code"], entry["path"], entry["hash"])] += count
    except (KeyError, TypeError, ValueError):
        raise BaselineError(f"{path}: malformed baseline entry") from None
    return counts


@record
class BaselineOutcome:
    """What applying a baseline did: the findings it hid and the entries nothing matched."""

    file: str
    matched: list = field(default_factory=list)
    #: [{"code", "path", "hash", "count"}] for checked (or vanished) files only.
    stale: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"file": self.file, "matched": len(self.matched), "stale": self.stale}


def apply_baseline(run, path: str) -> BaselineOutcome:
    """Drop the findings of `run` that `path` records (mutating its results) and set
    `run.baseline`. Findings beyond an entry's count are new."""
    folder = os.path.dirname(os.path.abspath(path))
    remaining = load_baseline(path)
    hidden = set()
    outcome = BaselineOutcome(path)
    for key, finding in keyed_findings(run, folder):
        if remaining[key] > 0:
            remaining[key] -= 1
            hidden.add(id(finding))
            outcome.matched.append(finding)
    for result in run.results:
        result.findings = [f for f in result.findings if id(f) not in hidden]
    checked = {_relative(display, folder) for display in run.files}
    for (code, rel, digest), n in sorted(remaining.items()):
        if n > 0 and (rel in checked or not os.path.exists(os.path.join(folder, rel))):
            outcome.stale.append({"code": code, "path": rel, "hash": digest, "count": n})
    run.baseline = outcome
    return outcome
