"""Text that every stream and file accepts: a file name that is not valid UTF-8 reaches us
through os.fsdecode as lone surrogates (`bad\\udcff.py`), which a UTF-8 terminal, pipe or file
refuses with UnicodeEncodeError halfway through a report. Every human-readable output (and the
JSON documents, whose strict readers refuse lone surrogates too) shows such bytes as `\\xff`."""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with the bytes of a file name that is not UTF-8 shown as `\\xff`: os.fsdecode turns
    them into lone surrogates, which no UTF-8 stream or file accepts (UnicodeEncodeError
    halfway through a report). Valid text is returned as it is."""
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
    """A JSON-ready value with every string made `printable`: a lone surrogate would be
    escaped by json.dumps into text that strict JSON readers refuse."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(key): printable_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_data(item) for item in value]
    return value


class PrintableStream:
    """A text stream that writes through `printable`, so a console never raises on a path."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(printable(text))

    def __getattr__(self, name):
        return getattr(self._stream, name)
