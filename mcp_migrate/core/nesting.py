"""How deeply a file's expressions nest, measured from its bytes before LibCST sees them.

LibCST's native parser recurses once per nesting level: brackets inside brackets, and the
left-recursive chains of one operator (`a + a + ...`, `a.b.c...`, `a[0][0]...`, `not not ...`).
Deep enough, it overflows the C stack and the process dies (a segmentation fault no `except`
can catch); long before that its cost grows much faster than the input. So the engine measures
first, with one pass of a small tokenizer, and reports a file beyond these limits (E998,
core.codes.PARSER_LIMIT_CODE) instead of parsing it; every other parse runs on a thread with a
large stack (core.deep).

Brackets inside an f-string's (or t-string's) replacement fields count like any others: the
scanner follows the fields as the parser does (PEP 701: a field holds code, nested strings
included, whatever their quotes, and a `{` in a format spec opens another field), so a
4 KB `f"{((((...))))}"` is measured, not skipped as one string.

The measure errs on the high side (a `-` is counted as an operator wherever it stands) but
only by a little, and the limits sit far above what real code does: across 18,637 files (the
20 corpus repositories, every fixture, CPython's standard library and its site-packages) the
deepest bracket nesting is 27, the longest chain of one operator 557 (a generated polynomial
in sympy), of trailers 36 and of `elif`s 52; none is over a limit.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple, cast

from mcp_migrate.core.ast_nodes import DEFINITIONS, first_line
from mcp_migrate.core.lazy_regex import lazy_compile

#: Beyond these the file is not parsed. The parse runs on a thread with a 512 MB stack
#: (core.deep), where the parser would survive about 60 times more, but its time grows with the
#: cube of the nesting (200 nested calls: 0.8 s; 1,000: 36 s) and quickly with a chain's length
#: (2,000 `+` terms: 12 s; 4,000: 77 s; subscripts are worse: 2,000 `a[0]`: 47 s).
MAX_DEPTH = 200
MAX_CHAIN = 3000
MAX_TRAILERS = 1000


class Nesting(NamedTuple):
    """The deepest bracket nesting; the longest chain of one binary or unary operator (at one
    precedence level, in one expression at one bracket depth); the longest chain of trailers
    (`.name`, calls, subscripts); the longest `elif` chain."""

    depth: int = 0
    chain: int = 0
    trailers: int = 0
    elifs: int = 0

    def problem(self) -> str | None:
        """Why the file is beyond the parser's limits, or None."""
        if self.depth > MAX_DEPTH:
            return f"{self.depth} nested brackets (the limit is {MAX_DEPTH})"
        if self.chain > MAX_CHAIN:
            return f"an expression chains {self.chain} operators (the limit is {MAX_CHAIN})"
        if self.trailers > MAX_TRAILERS:
            return f"an expression chains {self.trailers} attributes, calls or subscripts (the limit is {MAX_TRAILERS})"
        if self.elifs > MAX_CHAIN:
            return f"an `if` statement has {self.elifs} `elif` branches (the limit is {MAX_CHAIN})"
        return None


_TOKEN = lazy_compile(
    rb"(\#[^\r\n]*)"  # 1 comment
    rb"|([rRbBuUfFtT]{0,2})('''|\"\"\"|'|\")"  # 2 prefix, 3 quote: a string starts
    rb"|([(\[{])"  # 4 opening bracket
    rb"|([)\]}])"  # 5 closing bracket
    rb"|(\\(?:\r\n|\r|\n))"  # 6 line continuation
    rb"|(\r\n|\r|\n)"  # 7 newline
    rb"|(,|;|:=?|(?<![=!<>])=(?!=)|(?:\*\*|//|<<|>>|[-+*/%@|&^])=|->)"  # 8 ends an operand chain
    rb"|(\d\w*(?:\.\w*)?|\.\d\w*)"  # 9 number
    rb"|([A-Za-z_]\w*|[^\x00-\x7f]+)"  # 10 word
    rb"|(\*\*|//|<<|>>|[<>!=]=|[-+*/%@|&^~.<>])"  # 11 operator
)
#: Precedence level of each operator (a higher level binds tighter); a unary `-` differs.
_LEVEL = {
    b"lambda": 0,
    b"if": 1,
    b"else": 1,
    b"or": 2,
    b"and": 3,
    b"not": 4,
    b"in": 5,
    b"is": 5,
    b"<": 5,
    b">": 5,
    b"==": 5,
    b"!=": 5,
    b"<=": 5,
    b">=": 5,
    b"|": 6,
    b"^": 7,
    b"&": 8,
    b"<<": 9,
    b">>": 9,
    b"+": 10,
    b"-": 10,
    b"*": 11,
    b"/": 11,
    b"//": 11,
    b"%": 11,
    b"@": 11,
    b"~": 12,
    b"**": 13,
    b"await": 14,
    b".": 15,
}
_UNARY, _TRAILER, _LEVELS = 12, 15, 16
_STRING_ENDS: dict = {}


def _string_end(data: bytes, start: int, quote: bytes) -> int:
    """Where the string whose quote ends at `start` ends (an unterminated one: at its line end)."""
    pattern = _STRING_ENDS.get(quote)
    if pattern is None:
        q = re.escape(quote)
        if len(quote) == 3:
            pattern = re.compile(rb"(?:[^\\]|\\.)*?" + q, re.S)
        else:
            pattern = re.compile(rb"(?:[^\\\r\n]|\\(?:\r\n|.))*?(?:" + q + rb"|(?=[\r\n])|\Z)", re.S)
        _STRING_ENDS[quote] = pattern
    match = pattern.match(data, start)
    return match.end() if match else len(data)


#: The text of an f-string (its body, or a field's format spec) up to what matters: an escape
#: (`\\N{...}` holds braces that open nothing), a doubled brace, a brace, the closing quote, a
#: line end (a single-quoted string ends there, unterminated). Keyed by (quote, raw).
_FSTRING_TEXT: dict = {}
_OPEN, _CLOSE, _END = 0, 1, 2


def _fstring_text(data: bytes, pos: int, quote: bytes, raw: bool, spec: bool) -> tuple:
    """(position after the event, event) for the literal text of an f-string from `pos`:
    _OPEN after a `{` that opens a field, _CLOSE after the `}` that ends the field whose
    format spec this is, _END after the closing quote (or at an unterminated string's end).
    In a format spec every brace counts (LibCST reads `{{` there as a field holding a set)."""
    pattern = _FSTRING_TEXT.get((quote, raw))
    if pattern is None:
        escapes = rb"\\(?:\r\n|[^{])" if raw else rb"\\N\{[^}\r\n]*\}|\\(?:\r\n|[^{])"
        end = re.escape(quote) + (rb"|[\r\n]" if len(quote) == 1 else b"")
        pattern = re.compile(escapes + rb"|(\{\{|\}\})|(\{)|(\})|(" + end + rb")", re.S)
        _FSTRING_TEXT[(quote, raw)] = pattern
    while True:
        match = pattern.search(data, pos)
        if match is None:
            return len(data), _END
        pos = match.end()
        kind = match.lastindex
        if kind == 1:  # `{{` / `}}`: a literal brace in the body, braces in a spec
            if not spec:
                continue
            return match.start() + 1, (_OPEN if data[match.start()] == 0x7B else _CLOSE)
        if kind == 2:
            return pos, _OPEN
        if kind == 3:
            if spec:
                return pos, _CLOSE
            continue  # a lone `}` in the body: an error the parser reports
        if kind == 4:
            if match.group(4) in (b"\r", b"\n"):
                return match.start(), _END
            return pos, _END


#: The operators whose chains the parser recurses on (`and`, `or` and comparisons it loops
#: over; an `if ... else` chain nests once per `else`): only these are counted.
_COUNTED = frozenset(_LEVEL) - {b"if", b"or", b"and", b"in", b"is", b"<", b">", b"==", b"!=", b"<=", b">="}


def _could_exceed(data: bytes, start: int = 0, end: int | None = None) -> bool:
    """Whether the file (or its bytes from `start` to `end`) holds enough brackets, or counted
    operators, to exceed a limit at all (counting bytes, strings and comments included,
    over-counts): most files that reach the parser are small enough to skip the tokenizer."""
    if end is None:
        end = len(data)
    opens = data.count(b"(", start, end) + data.count(b"[", start, end) + data.count(b"{", start, end)
    if opens > MAX_DEPTH:
        return True
    links = opens + sum(data.count(op, start, end) for op in _COUNTED if len(op) == 1)
    links += sum(data.count(word, start, end) for word in (b"elif", b"not", b"else", b"lambda", b"await"))
    return links > min(MAX_CHAIN, MAX_TRAILERS)


def measure(data: bytes) -> Nesting:
    """The file's Nesting (all zeros when it is too small to exceed any limit)."""
    if not _could_exceed(data):
        return Nesting()
    return _scan(data)


def within_limits(data: bytes, tree: ast.Module) -> bool:
    """Whether the file is shown within every limit statement by statement, from its exact
    `ast` tree, without the scan of every byte `measure` makes (0.34 s for a gateway's 897 KB
    admin module; issue 37). False only means "not shown": `measure` then decides.

    A statement starts at bracket depth 0 and ends every operator chain before it, and an
    `elif` run at its column or deeper, so what `_could_exceed` counts in the bytes from one
    statement's first line to the next one's bounds what `_scan` finds in them. A statement
    whose counts could reach a limit is split into its header and its body's statements (a
    class or a function), else scanned alone. A line after a backslash continuation, or a
    lone `\r` (a line end for Python's parser, not for these offsets), is no place to split:
    the whole file is left to `measure`."""
    if not _could_exceed(data):
        return True
    if data.count(b"\r") != data.count(b"\r\n"):
        return False
    starts = [0]
    starts.extend(match.end() for match in _LINE_FEED.finditer(data))
    try:
        return _statements_fit(data, tree.body, 0, len(data), starts)
    except _NoSplit:
        return False


#: Line feeds: the first byte of each line is after one (a lone `\r` leaves `within_limits`).
_LINE_FEED = lazy_compile(rb"\n")


class _NoSplit(Exception):
    """A statement starts on a line that continues the one before it."""


def _split_at(data: bytes, start: int) -> int:
    """`start`, a line's first byte, unless the line before ends in a backslash (`_NoSplit`)."""
    if data[max(start - 3, 0) : start].rstrip(b"\r\n")[-1:] == b"\\":
        raise _NoSplit
    return start


def _statements_fit(data: bytes, statements: list, begin: int, end: int, starts: list) -> bool:
    """Whether each statement's bytes, the first from `begin`, the last to `end`, are within
    the limits (`within_limits`)."""
    firsts = [first_line(stmt) for stmt in statements]
    for i, stmt in enumerate(statements):
        start = begin if i == 0 else starts[firsts[i] - 1]
        stop = starts[firsts[i + 1] - 1] if i + 1 < len(statements) else end
        if i and start != starts[firsts[i - 1] - 1]:
            _split_at(data, start)
        if stop <= start or not _could_exceed(data, start, stop):
            continue
        body = stmt.body if stmt.__class__ in DEFINITIONS else None  # split into header and body
        if body and first_line(body[0]) > firsts[i]:
            header = _split_at(data, starts[first_line(body[0]) - 1])
            if _could_exceed(data, start, header) and _scan(data[start:header]).problem() is not None:
                return False
            if not _statements_fit(data, body, header, stop, starts):
                return False
        elif _scan(data[start:stop]).problem() is not None:
            return False
    return True


def _scan(data: bytes) -> Nesting:  # noqa: C901 - one tokenizer loop, kept in one place for speed
    max_depth = max_chain = max_trailers = max_elifs = 0
    # Per bracket depth: the current run length of each precedence level, then the number
    # of `lambda`s whose `:` is still to come (that `:` continues the chain, not ends it).
    runs = [[0] * (_LEVELS + 1)]
    operand = False  # the previous token ends an operand (so `-` is binary, `(` a trailer)
    line_start = True
    elifs: dict = {}
    # The f-string replacement fields open around this point, innermost last: (its bracket
    # depth, the string's quote, raw?, opened from a format spec?, which string).
    fields: list = []
    strings = 0
    search = _TOKEN.search
    pos = 0

    def text(pos: int, quote: bytes, raw: bool, spec: bool, string: int) -> int:
        """Scan an f-string's literal text from `pos` up to a field it opens (pushed; the
        tokenizer goes on inside it) or its end; a `}` ending a spec resumes the outer text."""
        nonlocal max_depth
        while True:
            pos, event = _fstring_text(data, pos, quote, raw, spec)
            if event == _OPEN:
                runs.append([0] * (_LEVELS + 1))
                max_depth = max(max_depth, len(runs) - 1)
                fields.append((len(runs) - 1, quote, raw, spec, string))
                return pos
            if event == _END:  # drop this string's fields a malformed spec left open
                while fields and fields[-1][4] == string:
                    del runs[fields.pop()[0] :]
                return pos
            del runs[fields[-1][0] :]
            spec = fields.pop()[3]

    while True:
        match = search(data, pos)
        if match is None:
            break
        kind = match.lastindex
        pos = match.end()
        if kind == 3 or kind == 2:
            prefix = match.group(2).lower()
            end = _string_end(data, pos, match.group(3))
            if (b"f" in prefix or b"t" in prefix) and data.find(b"{", pos, end) >= 0:
                strings += 1
                pos = text(pos, match.group(3), b"r" in prefix, False, strings)
                in_field = bool(fields) and fields[-1][4] == strings
                operand, line_start = not in_field, False
                continue
            pos = end
            operand, line_start = True, False
            continue
        if kind == 1 or kind == 6:
            continue
        depth = len(runs) - 1
        if kind == 7:
            if depth == 0:
                runs[0] = [0] * (_LEVELS + 1)
                operand, line_start = False, True
            continue
        if kind == 4:
            if operand:  # a call or subscript trailer: one more link of the chain
                _link(runs[depth], _TRAILER)
                max_trailers = max(max_trailers, runs[depth][_TRAILER])
            runs.append([0] * (_LEVELS + 1))
            max_depth = max(max_depth, len(runs) - 1)
            operand, line_start = False, False
            continue
        if kind == 5:
            if fields and fields[-1][0] == depth:
                if match.group(5) == b"}":  # the field ends: back to the string's text
                    _, quote, raw, spec, string = fields.pop()
                    runs.pop()
                    pos = text(pos, quote, raw, spec, string)
                    operand = not (fields and fields[-1][4] == string)
                # a `)` or `]` closing the field is an error the parser reports: ignored
                line_start = False
                continue
            if depth:
                runs.pop()
            operand, line_start = True, False
            continue
        if kind == 8:
            levels = runs[depth]
            if levels[_LEVELS] and match.group(8) == b":":
                levels[_LEVELS] -= 1  # `lambda ...:` goes on
            elif fields and fields[-1][0] == depth and match.group(8)[:1] == b":":
                # a field's format spec (`:=` too): text, in which a `{` opens a field
                _, quote, raw, _, string = fields[-1]
                pos = text(match.start() + 1, quote, raw, True, string)
                operand = not (fields and fields[-1][4] == string)
                line_start = False
                continue
            else:
                runs[depth] = [0] * (_LEVELS + 1)
            operand, line_start = False, False
            continue
        if kind == 9:
            operand, line_start = True, False
            continue
        word = match.group(cast(int, kind))  # every alternative of _TOKEN is a group: never None
        if kind == 10:
            if line_start and depth == 0:
                max_elifs = max(max_elifs, _count_elif(data, match.start(), word, elifs))
            line_start = False
            level = _LEVEL.get(word)
            if level is None:
                operand = True
                continue
        else:
            level = _LEVEL[word]
            if not operand and word in (b"-", b"+"):
                level = _UNARY
        levels = runs[depth]
        _link(levels, level, word in _COUNTED)
        if level == _TRAILER:
            max_trailers = max(max_trailers, levels[level])
        elif word in _COUNTED:
            max_chain = max(max_chain, levels[level])
            if level == 0:
                levels[_LEVELS] += 1
        operand = False
        line_start = False
    return Nesting(max_depth, max_chain, max_trailers, max_elifs)


def _link(levels: list, level: int, counted: bool = True) -> None:
    """One more operator at `level`: the chains of tighter-binding operators end here."""
    levels[level] += counted
    for tighter in range(level + 1, _LEVELS):
        levels[tighter] = 0


def _count_elif(data: bytes, start: int, word: bytes, elifs: dict) -> int:
    """The `elif` run at this statement's column: counted by `elif`, kept by `else`, ended by
    any other statement at that column or left of it."""
    column = start - max(data.rfind(b"\n", 0, start), data.rfind(b"\r", 0, start)) - 1
    if word == b"elif":
        elifs[column] = elifs.get(column, 0) + 1
        return elifs[column]
    if word != b"else":
        for col in [col for col in elifs if col >= column]:
            del elifs[col]
    return 0
