"""`--output-format gitlab`: a GitLab Code Quality report (a JSON array), as ruff's `gitlab`
format writes it, for `artifacts: reports: codequality:` in `.gitlab-ci.yml`.

Each finding is `check_name` (the code), `description` (`CODE: message`; GitLab does not show
`check_name`), `severity` (breaks: critical, warning: major, deprecated: minor, info: info, a
file that cannot be read or parsed: major), `fingerprint` and `location` (`path`, relative to
`CI_PROJECT_DIR` when set, and begin/end line and column). GitLab tells new findings from fixed
ones by the fingerprint: 16 hex digits over the code, the path and the finding's source line
with whitespace normalised (as the baseline does), so moving code up or down keeps it; a
repeat gets a fingerprint salted with the previous one, as ruff does.
"""

from __future__ import annotations

import hashlib
import os

from mcp_migrate.project.baseline import file_lines, finding_hash

SEVERITIES = {"breaks": "critical", "warning": "major", "deprecated": "minor", "info": "info", "error": "major"}


def _path(run, finding, project_dir) -> str:
    if not project_dir:
        return finding.path
    ref = run.files.get(finding.path)
    full = os.path.abspath(ref.path if ref is not None and ref.path else finding.path)
    try:
        return os.path.relpath(full, project_dir).replace(os.sep, "/")
    except ValueError:  # another drive
        return finding.path


def fingerprint(code: str, path: str, line_hash: str, salt: str = "") -> str:
    """A file name that is not UTF-8 reaches us with lone surrogates (os.fsdecode), which a
    plain `.encode()` refuses (the whole report failed with UnicodeEncodeError): they are
    hashed as they are (`surrogatepass`), so the fingerprint stays stable, and a UTF-8 name's
    is unchanged. The report itself shows such a path as `\\xff` (printable_data)."""
    text = f"{salt}\0{code}\0{path}\0{line_hash}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def code_quality(run, project_dir=None) -> list:
    if project_dir is None:
        project_dir = os.environ.get("CI_PROJECT_DIR")
    lines_of: dict = {}
    used: set = set()
    out = []
    for f in run.findings:
        if f.path not in lines_of:
            lines_of[f.path] = file_lines(run, f.path)
        path = _path(run, f, project_dir)
        line_hash = finding_hash(f, lines_of[f.path])
        mark = fingerprint(f.code, path, line_hash)
        while mark in used:
            mark = fingerprint(f.code, path, line_hash, mark)
        used.add(mark)
        out.append(
            {
                "check_name": f.code,
                "description": f"{f.code}: {f.message}",
                "severity": SEVERITIES.get(f.severity, "major"),
                "fingerprint": mark,
                "location": {
                    "path": path,
                    "positions": {
                        "begin": {"line": f.line, "column": f.column},
                        "end": {"line": f.end_line, "column": f.end_column},
                    },
                },
            }
        )
    return out
