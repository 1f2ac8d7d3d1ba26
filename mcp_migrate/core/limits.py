"""What a file must be for the engine to parse it, decided on its bytes alone (no LibCST, so the
screens ask it before any rule is loaded): an ASCII-compatible coding cookie (else E902), a size
within `max-file-size` in bytes and in tokens (else E997), nesting LibCST's parser can take
(else the parser-limit finding, core.nesting)."""

from __future__ import annotations

import io
import tokenize
import warnings
from functools import cache

from mcp_migrate.core.codes import (
    FILE_TOO_LARGE_CODE,
    PARSER_LIMIT_CODE,
)
from mcp_migrate.core.messages import Message
from mcp_migrate.core.nesting import measure, within_limits
from mcp_migrate.core.settings import Settings

#: `max-file-size` bounds the parser's work in tokens too, at one token per this many bytes:
#: LibCST costs 1-2 KB of memory and 10-20 us per token, so a 3 MB list literal (`0, ` a
#: million times: two million tokens) cost 4 GB and two minutes under the 4 MiB byte limit.
#: Ordinary modules are far sparser (CPython's standard library: 4.8 bytes per token; its
#: densest large modules 4.4) and stay under the budget at every size the byte limit allows.
BYTES_PER_TOKEN = 4


#: Each byte's class for counting tokens: `a` a name or number byte (ASCII word or non-ASCII),
#: a space for whitespace, `,` for anything else (one token each).
_TOKEN_CLASSES = bytes(
    ord("a") if chr(b).isalnum() or b == 0x5F or b >= 0x80 else ord(" ") if chr(b) in " \t\n\r\f\v" else ord(",")
    for b in range(256)
)


def count_tokens(data: bytes) -> int:
    """An over-count of the parser's tokens: every run of name or number bytes, and every other
    byte that is not whitespace (strings and comments counted as code). Byte counts over one
    translated copy: no regex, no per-token object, so a 4 MB file costs a few milliseconds."""
    classes = data.translate(_TOKEN_CLASSES)
    return classes.count(b",") + classes.count(b" a") + classes.count(b",a") + classes.startswith(b"a")


def over_size(size: int, limit: int) -> Message:
    return Message(
        f"not analysed: {_size(size)} is over max-file-size ({_size(limit)})",
        "raise `max-file-size` in the configuration (0: no limit) to analyse it",
    )


#: Bytes an ASCII-compatible encoding decodes to the same characters: every ASCII byte, and
#: the sequences that unicode_escape (`\\n`), UTF-7 (`+AGE-`) or IMAP's UTF-7 (`&AGE-`) decode
#: otherwise.
_ASCII_SAMPLE = bytes(range(128)) + b" \\n \\x41 \\u0041 +AGE- &AGE-"


def encoding_refusal(data: bytes) -> Message | None:
    """Why a file whose coding cookie names an encoding that is not ASCII-compatible is not
    read (an E902 message and help), else None. Python source must be ASCII-compatible, and the bytes
    every gate, screen and position works on are taken as such: under `unicode_escape` the
    parser saw a file of one line (and fix rewrote it so), under UTF-7 it saw calls no gate
    could (`+AGw-ist_roots`), UTF-16 and EBCDIC are other bytes altogether."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    if b"coding" not in (data if second < 0 else data[:second]):  # a cookie is on line 1 or 2
        return None

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown encoding, a BOM that disagrees: the parser reports it (E999)
        return None
    if _ascii_compatible(encoding):
        return None
    return Message(
        f"cannot read file: its coding cookie names {encoding}, which is not ASCII-compatible",
        "Python source must be in an ASCII-compatible encoding; the file is not analysed",
    )


@cache
def _ascii_compatible(encoding: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unicode_escape warns about `\\]`
            return _ASCII_SAMPLE.decode(encoding) == _ASCII_SAMPLE.decode("ascii")
    except (LookupError, UnicodeDecodeError, TypeError, ValueError):  # a bytes-to-bytes codec, ...
        return False


def size_problem(data: bytes, settings: Settings):
    """(code, message) when the file is too large in bytes or in tokens, else None."""
    limit = settings.max_file_size
    if limit and len(data) > limit:
        return FILE_TOO_LARGE_CODE, over_size(len(data), limit)
    budget = limit // BYTES_PER_TOKEN
    if limit and len(data) > budget:  # every token is a byte at least: smaller files fit
        tokens = count_tokens(data)
        if tokens > budget:
            return FILE_TOO_LARGE_CODE, Message(
                f"not analysed: {tokens:,} tokens is over the {budget:,} max-file-size allows",
                f"max-file-size ({_size(limit)}) allows one token per {BYTES_PER_TOKEN} bytes; raise it to analyse"
                " this file",
            )
    return None


def nesting_problem(data: bytes, tree=None):
    """(code, message) when the file is too deeply nested for LibCST's parser, else None.
    `tree`: the file's exact `ast` tree, when the screens read it, which can show the file
    within the limits statement by statement (core.nesting.within_limits)."""
    if tree is not None and within_limits(data, tree):
        return None
    problem = measure(data).problem()
    if problem is not None:
        return PARSER_LIMIT_CODE, Message("not analysed: too deeply nested for the parser", problem)
    return None


def _size(n: int) -> str:
    """Bytes for a message: `4 MiB`, `20.0 MiB`, `1,234 bytes`."""
    if n < 1024 * 1024:
        return f"{n:,} bytes"
    mib = n / (1024 * 1024)
    return f"{mib:.0f} MiB" if mib == int(mib) else f"{mib:.1f} MiB"
