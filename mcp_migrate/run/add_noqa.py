"""`check --add-noqa`: append `# noqa: CODE` to each current finding's line (ruff's adoption path).

Bytes in, bytes out: only the lines that get a directive change; their line endings, the file's
encoding and a UTF-8 BOM are kept. A finding's directive goes on its first line, or on its last
line when the first one ends inside a multi-line string or a backslash continuation (the engine
honours either); the tokenizer decides, so a `#` never lands inside a string. An existing
`# noqa: X` on that line is extended (`# noqa: X, RT001`) rather than repeated, and a bare
`# noqa` becomes `# noqa: RT001`. Running it again adds nothing: the findings it silenced are
gone. `add_noqa_to_files` does it to a run's files and prints nothing: `commands.check` says
what it did. Loaded by `--add-noqa` only.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from mcp_migrate.core.codes import UNFILTERED_CODES, UNUSED_SUPPRESSION_CODE
from mcp_migrate.core.findings import FileError
from mcp_migrate.core.fix.loop import verify_parses
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.suppress import NOQA
from mcp_migrate.project.regular import TooLarge
from mcp_migrate.project.writer import snapshot, write_atomic, write_target
from mcp_migrate.run.analysis import check as check_bytes  # honours a bare noqa comment

#: Never silenced this way: not real findings (E999, E902) or about suppressions themselves.
SKIPPED_CODES = (*UNFILTERED_CODES, UNUSED_SUPPRESSION_CODE)


def _line_ends(text: str) -> set | None:
    """Lines whose end is outside any string or continuation (a comment may go there);
    None when the tokenizer cannot read the file."""
    ends = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                ends.add(tok.start[0])
            elif tok.type == tokenize.COMMENT:
                ends.add(tok.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return ends


def _comments(text: str) -> dict:
    """line -> 0-based column of its comment token."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.start[1]
    return found


def _with_codes(content: str, comment_col: int | None, codes: list) -> str:
    """`content` (one line without its ending) carrying a noqa directive for `codes`."""
    if comment_col is not None:
        match = NOQA.search(content, comment_col)
        if match is not None:
            present = set(re.findall(r"[A-Z]+[0-9]+", match.group(0).upper()))
            extra = [code for code in codes if code not in present]
            if not extra:
                return content
            return content[: match.end()] + ", " + ", ".join(extra) + content[match.end() :]
        bare = _BARE_NOQA.search(content, comment_col)
        if bare is not None:  # a bare directive gains the codes; it is never repeated after itself
            return content[: bare.start()] + "# noqa: " + ", ".join(codes) + content[bare.end() :]
    return content.rstrip(" \t") + "  # noqa: " + ", ".join(codes)


#: A bare noqa directive (no codes): the directive an added code merges into.
_BARE_NOQA = lazy_compile(r"#\s*noqa\b(?!\s*:)", re.IGNORECASE)


class NoqaEdit(NamedTuple):
    """What `add_noqa` did to one file: the new bytes (None: unchanged), how many codes it
    added, and the findings it found no place for."""

    data: bytes | None
    added: int
    unplaced: list


def add_noqa(data: bytes, findings) -> NoqaEdit:
    """(new bytes or None, directives added, findings that could not be placed)."""
    wanted = [f for f in findings if f.code not in SKIPPED_CODES]
    if not wanted:
        return NoqaEdit(None, 0, [])
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    body = data[len(bom) :]
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        encoding = "utf-8" if encoding == "utf-8-sig" else encoding
        text = body.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return NoqaEdit(None, 0, wanted)
    ends = _line_ends(text)
    if ends is None:
        return NoqaEdit(None, 0, wanted)
    per_line: defaultdict[int, list[str]] = defaultdict(list)
    unplaced: list = []
    for f in wanted:
        line = f.line if f.line in ends else f.end_line if f.end_line in ends else None
        if line is None:
            unplaced.append(f)
        elif f.code not in per_line[line]:
            per_line[line].append(f.code)
    if not per_line:
        return NoqaEdit(None, 0, unplaced)
    comments = _comments(text)
    lines = body.splitlines(keepends=True)
    added = 0
    for number, codes in per_line.items():
        raw = lines[number - 1]
        content = raw.rstrip(b"\r\n")
        ending = raw[len(content) :]
        old = content.decode(encoding)
        new = _with_codes(old, comments.get(number), sorted(codes))
        if new != old:
            lines[number - 1] = new.encode(encoding) + ending
            added += len(codes)
    out = bom + b"".join(lines)
    return NoqaEdit(out if out != data else None, added, unplaced)


class NoqaRun(NamedTuple):
    """What `check --add-noqa` did to a run's files: directives added, files changed, the files
    it could not change (FileErrors) and the findings with no place for a directive."""

    added: int
    files: int
    errors: list
    unplaced: list


def add_noqa_to_files(run, paths) -> NoqaRun:
    """Add directives file by file: re-read (snapshot), re-check those bytes, edit, verify the
    result still parses, write through the same atomic writer as `fix`. Prints nothing."""
    roots = [Path(p) for p in paths]
    added = files = 0
    errors, unplaced = list(run.errors), []
    for result in run.results:
        ref = run.files.get(result.path)
        if not result.findings or ref is None or ref.path is None:
            continue
        try:
            snap = snapshot(Path(ref.path), ref.settings.max_file_size)
        except TooLarge:
            continue  # E997: not analysed, so nothing to suppress
        except OSError as exc:
            errors.append(FileError(result.path, "write", f"cannot read: {exc.strerror or exc}"))
            continue
        current = check_bytes(snap.data, result.path, ref.settings)
        new, count, missed = add_noqa(snap.data, current.findings)
        unplaced.extend(missed)
        if new is None:
            continue
        problem = verify_parses(new, result.path)
        if problem is None:
            target, problem = write_target(Path(ref.path), roots)
            if target is not None:
                problem = write_atomic(target, new, snap)
        if problem is not None:
            errors.append(FileError(result.path, "noqa", f"not changed: {problem}"))
            continue
        added += count
        files += 1
    return NoqaRun(added, files, errors, unplaced)
