"""Text that every stream and file accepts, and that cannot drive a terminal.

A file name that is not valid UTF-8 reaches us through os.fsdecode as lone surrogates
(`bad\\udcff.py`), which a UTF-8 terminal, pipe or file refuses with UnicodeEncodeError halfway
through a report. Every human-readable output (and the JSON documents, whose strict readers
refuse lone surrogates too) shows such bytes as `\\xff`. A stream whose encoding cannot show a
character (PYTHONIOENCODING=ascii) gets it as `\\xe9` (`backslashreplace`), never an error.

Source text and file names may hold control characters: an ESC sequence in a comment or a
file name would reach the terminal raw (clear the screen, retitle the window, hide lines).
Human-readable text shows them as ruff does, as Unicode control pictures (`\\x1b` as U+241B),
C1 controls as `\\x9b`, and the bidirectional overrides that reorder a line as `\\u202e`."""

from __future__ import annotations

from mcp_migrate.core.lazy_regex import lazy_compile

#: C0 controls but tab and newline, DEL, C1 controls, bidirectional embeddings and isolates.
_CONTROLS = lazy_compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the control picture: \x1b shows as ␛
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` for a person to read: the bytes of a file name that is not UTF-8 shown as `\\xff`
    (os.fsdecode turns them into lone surrogates, which no UTF-8 stream or file accepts), and
    control characters but tab and newline made visible. Plain text is returned as it is."""
    text = surrogate_free(text)
    return _CONTROLS.sub(_visible, text) if _CONTROLS.search(text) else text


def one_line(text: str) -> str:
    """`printable`, and a newline too made visible (U+240A): a file name or message holding one
    must not pass for a line of output of its own."""
    return printable(text).replace("\n", "\u240a")


def surrogate_free(text: str) -> str:
    """`text` with lone surrogates (the bytes of a file name that is not UTF-8) as `\\xff`."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_printable_char(c) for c in text)
    return text


def _printable_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if 0xD800 <= code <= 0xDFFF else char


def printable_data(value):
    """A JSON-ready value with every string `surrogate_free`: a lone surrogate would be escaped
    by json.dumps into text that strict JSON readers refuse (json.dumps escapes controls)."""
    if isinstance(value, str):
        return surrogate_free(value)
    if isinstance(value, dict):
        return {printable_data(key): printable_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_data(item) for item in value]
    return value


class PrintableStream:
    """A text stream that writes through `surrogate_free` and its stream's encoding with
    `backslashreplace`, so a console never raises on a path or a character its encoding lacks.
    (Controls are escaped before rich sees the text: rich's own colour codes pass here.)"""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        text = surrogate_free(text)
        encoding = getattr(self._stream, "encoding", None)
        if encoding:
            try:
                text.encode(encoding)
            except UnicodeEncodeError:
                text = text.encode(encoding, "backslashreplace").decode(encoding)
            except LookupError:
                pass
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)
