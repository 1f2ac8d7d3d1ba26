"""Shapes of code found in a file's bytes, for the rules' byte screens (core.rule.Rule.screen),
which must never lose a finding. Between two tokens of one expression Python allows more than
a space: a newline inside brackets, a comment, a backslash continuation. `GAP` allows all of
them, so a shape written across lines or with a comment in it is still found.

A token that is part of a longer identifier (`always_require_approval` for `require_approval`)
is not the token: `whole_words` finds it only where no identifier byte touches it."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator

from mcp_migrate.core.lazy_regex import lazy_compile

#: A comment, read only whole (to the end of its line). A comment that could end anywhere
#: would let a gap split a block of comments in exponentially many ways, and a pattern that
#: then fails would try them all: 397 s on one 17 KB module of the corpus.
COMMENT = rb"#[^\n]*(?![^\n])"
#: What may stand between two tokens of one expression (nothing included). Each alternative
#: starts with a byte no other one starts with, so a gap is read in one way only.
GAP = rb"(?:\s|" + COMMENT + rb"|\\\r?\n)*"
#: GAP, with opening parentheses (`f(("x"))`: the argument is the literal all the same).
OPEN_GAP = rb"(?:\s|\(|" + COMMENT + rb"|\\\r?\n)*"
#: GAP, with closing parentheses (`u[(7):]`: the bound is 7 all the same).
CLOSE_GAP = rb"(?:\s|\)|" + COMMENT + rb"|\\\r?\n)*"
#: What stands between a statement's keyword and the name it defines (`class X`, `def f`):
#: blanks on the line, or a backslash continuation (no comment can).
STATEMENT_GAP = rb"(?:[ \t]|\\\r?\n)+"
#: The bytes of an ASCII identifier: one before or after a token makes it part of another name.
IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: IDENTIFIER_BYTES in a pattern: a name ends here (`path` in `.path`, not in `.pathname`).
NAME_ENDS = rb"(?![A-Za-z0-9_])"


#: Bytes that most of the Roots rules' screen tokens hold (`list_roots`, `ListRoots`,
#: `ROOTS_LIST`): a file without them holds none of those tokens (`holds`).
ROOTS_WORDS = (b"oots", b"OOTS")


def holds(data: bytes, token: bytes) -> bool:
    """`token in data`, for the gates and byte screens of the file they are on (the last file
    asked about; core.gates, core.screening, the rules' `screen`): each token is searched for
    once per file, where the gates and up to ten rules ask of the same ones (`oots`,
    `list_roots`) one after the other; and a token that holds a roots word is not
    searched for in a file without one, where the words' two searches answer for thirty
    tokens (issue 37: most MCP files that open the gate name no root, 626 of fast-agent's 795).
    A thread asking of other bytes meanwhile gets answers of its own: each is kept with the
    bytes it is of."""
    known = _answers(data)
    found = known.get(token)
    if found is None:
        word = _roots_word(token)
        found = known[token] = (word is None or holds(data, word)) and token in data
    return found


def _roots_word(token: bytes) -> bytes | None:
    """The roots word `token` holds (None where it holds none, or is one)."""
    found = _WORD_OF.get(token, _UNSET)
    if found is _UNSET:
        found = _WORD_OF[token] = next((word for word in ROOTS_WORDS if word in token and word != token), None)
    return found


def lowered(data: bytes) -> bytes:
    """`data.lower()`, made once for the last file asked about. It folds ASCII letters only, as
    a bytes pattern's IGNORECASE does, so a case-blind search of a word is a search of the
    lowered bytes for a literal (`holds_any_case`), where `(?i)word` makes the engine try every
    byte (issue 37: RT102's four such searches took 43-71 ms each over fast-agent's 699 MCP files;
    lowering them all takes 9 ms, searching the copies 11 ms). Kept with `holds`' answers."""
    known = _answers(data)
    found = known.get(_LOWER)
    if found is None:
        found = known[_LOWER] = data.lower()
    return found


def holds_any_case(data: bytes, word: bytes) -> bool:
    """`re.search(b"(?i)" + re.escape(word), data)` as a truth, for `word` in lower case."""
    return word in lowered(data)


def _answers(data: bytes) -> dict:
    """What the screens worked out of the last bytes asked about (`holds`' answers by token,
    `lowered`'s copy under `_LOWER`), made anew for other bytes."""
    held = _HELD[0]
    if held[0] is not data:
        held = _HELD[0] = (data, {})
    return held[1]


_HELD: list = [(None, {})]
#: `lowered`'s key among `holds`' answers: no token, which are bytes.
_LOWER = "lowered"
_WORD_OF: dict = {}
_UNSET = object()


def offsets(data: bytes, text: bytes) -> Iterator[int]:
    """Every offset of `text` in `data`, found as a string is (a pattern searched for itself
    would be tried at every byte)."""
    at = data.find(text)
    while at >= 0:
        yield at
        at = data.find(text, at + 1)


def whole_words(data: bytes, token: bytes) -> Iterator[int]:
    """The offsets of `token` in `data` where no identifier byte comes just before or after it."""
    at, size = data.find(token), len(token)
    while at >= 0:
        end = at + size
        if (at == 0 or data[at - 1] not in IDENTIFIER_BYTES) and (
            end == len(data) or data[end] not in IDENTIFIER_BYTES
        ):
            yield at
        at = data.find(token, at + 1)


def word_in(data: bytes, word: bytes) -> bool:
    """`re.search(rb"\\b" + re.escape(word) + rb"\\b", data)` as a truth, found by a scan for the
    literal where `word` begins and ends with identifier bytes (a name): a pattern that starts
    with `\\b` makes the engine try every byte (15-19 ms over a 1.26 MB module, against 1-2 ms)."""
    if word and word[0] in IDENTIFIER_BYTES and word[-1] in IDENTIFIER_BYTES:
        return next(whole_words(data, word), None) is not None
    return re.search(rb"\b" + re.escape(word) + rb"\b", data) is not None


def names_after(data: bytes, bound: bytes) -> Iterator[bytes]:
    """The names spelled after `bound.` (`m.Client` for a module bound to `m`), as
    `re.finditer(rb"\\b" + re.escape(bound) + rb"\\.(\\w+)", data)` finds them (each match's
    group), by a scan for the literal (see `word_in`): a match goes on after the name it
    found, a rejected place one byte on."""
    if not bound or bound[0] not in IDENTIFIER_BYTES:
        for match in re.finditer(rb"\b" + re.escape(bound) + rb"\.(\w+)", data):
            yield match.group(1)
        return
    prefix, pos = bound + b".", 0
    while True:
        at = data.find(prefix, pos)
        if at < 0:
            return
        name = _NAME.match(data, at + len(prefix)) if at == 0 or data[at - 1] not in IDENTIFIER_BYTES else None
        if name is None:
            pos = at + 1
        else:
            yield name.group()
            pos = name.end()


_NAME = lazy_compile(rb"\w+")


#: A word after a blank: in code, what follows a name so can only be a keyword (`Root as R`,
#: `Root if ok else None`); another word makes it prose (`"Root URI must start with"`).
_WORD_AFTER = lazy_compile(rb"[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_KEYWORDS = frozenset(word.encode() for word in keyword.kwlist)


def named_in_code(data: bytes, name: bytes) -> bool:
    """Whether `name` is spelled whole somewhere code (or a string annotation) can name it: not
    followed by a blank and a word that is not a keyword (prose: "Root directory; segments
    above it are not checked"), not in a comment, and not a string of its own given as data
    (`"title": "Root"`, `kind="Root"`). A test module of mcp-cli, its only file read with `ast`,
    held `Root` in those two alone (issue 37: 25 ms of a 330 ms check)."""
    for at in whole_words(data, name):
        after = _WORD_AFTER.match(data, at + len(name))
        if after is not None and after.group(1) not in _KEYWORDS:
            continue
        if not (_in_a_comment(data, at) or _a_data_string(data, at, at + len(name))):
            return True
    return False


def _in_a_comment(data: bytes, at: int) -> bool:
    """Whether the byte at `at` is in a comment for sure: a `#` before it on its line, with no
    quote before that `#` (one after a quote may be in a string)."""
    start = data.rfind(b"\n", 0, at) + 1
    hashed = data.find(b"#", start, at)
    return hashed >= 0 and data.find(b'"', start, hashed) < 0 and data.find(b"'", start, hashed) < 0


#: Bytes before which a string is given as a value, never written as an annotation: `=`
#: (`kind="Root"`, `== "Root"`, a default), `(` (an argument), `{` (a set or dict item).
_VALUE_AFTER = frozenset(b"=({")


def _a_data_string(data: bytes, at: int, end: int) -> bool:
    """Whether `data[at:end]` is the whole of a one-quoted string given as a value: after `=`,
    `(`, `{` or a string key's `:` (`"title": "Root"`). A parameter's annotation comes after
    a name's `:` or inside brackets, never there."""
    quote = data[at - 1 : at]
    if at < 2 or quote not in (b'"', b"'") or data[end : end + 1] != quote or data[at - 2 : at - 1] == quote:
        return False
    before = _before_blanks(data, at - 2)
    if before < 0:
        return False
    if data[before] in _VALUE_AFTER:
        return True
    if data[before] != ord(":"):
        return False
    key = _before_blanks(data, before - 1)
    return key >= 0 and data[key] in b"\"'"


def _before_blanks(data: bytes, at: int) -> int:
    """The offset of the last byte at or before `at` that is no space or tab (-1: none)."""
    while at >= 0 and data[at] in b" \t":
        at -= 1
    return at


def spelled(data: bytes, text: bytes) -> bool:
    """Whether `data` holds `text` with no identifier byte just after it (`.list_roots` in
    `s.list_roots(`, not in `s.list_roots_cached(`): a name spelled whole where `text` starts
    with what ends the name before it (a `.`, a module's `m.`)."""
    at, size = data.find(text), len(text)
    while at >= 0:
        end = at + size
        if end == len(data) or data[end] not in IDENTIFIER_BYTES:
            return True
        at = data.find(text, at + 1)
    return False


#: How far back `ends_before` looks: a shape's bytes before a token are a line or two.
LOOK_BACK = 1000


def ends_before(pattern: re.Pattern, data: bytes, at: int) -> bool:
    """Whether `pattern` (written to end with `$`) matches bytes that end at `at`, starting at
    most LOOK_BACK bytes before: a shape found backwards from a token the search found first,
    by its literal, which is fast, where searching for the shape itself would try the
    pattern at every `[` or `=` of the file."""
    return pattern.search(data, max(0, at - LOOK_BACK), at) is not None


#: What follows a name given by keyword (`name=`, `name =`; not `name ==`).
_GIVEN = lazy_compile(GAP + rb"=(?!=)")


def given_by_keyword(data: bytes, name: bytes) -> bool:
    """`name=` in `data` as a keyword argument (or any `name =` binding; not `name ==`), `name`
    a whole identifier."""
    return any(_GIVEN.match(data, at + len(name)) for at in whole_words(data, name))


_OPENING, _CLOSING, _QUOTES = frozenset(b"([{"), frozenset(b")]}"), frozenset(b"'\"")
#: An argument given by keyword (`name=`, not `name ==`) or unpacked from a mapping (`**kw`).
_KEYWORD_ARGUMENT = lazy_compile(GAP + rb"(?:\*\*|[A-Za-z_][A-Za-z0-9_]*" + GAP + rb"=(?!=))")


def commas_at_least(data: bytes, start: int, count: int, positional: bool = False) -> bool:
    """Whether the brackets opened just before `start` hold at least `count` commas of their own
    (not inside a nested bracket, a string or a comment): a call given `count + 1` arguments
    or more has them. With `positional`, only the commas before the call's first keyword
    argument count: no positional argument comes after one (a `*args` may, and `positional`
    arguments leave it out), so a call given six arguments by keyword is not one given six
    positionally (agent-framework's two largest modules, 474 KB, were read with `ast` for it).
    True where the bytes cannot be read to that comma (nothing is lost on code this cannot read)."""
    if positional and _KEYWORD_ARGUMENT.match(data, start):
        return False
    for at in bracket_stops(data, start):
        if at < 0:
            return True
        if data[at] != 0x2C:  # the closing bracket
            return False
        if positional and _KEYWORD_ARGUMENT.match(data, at + 1):
            return False
        count -= 1
        if count <= 0:
            return True
    return True


def bracket_stops(data: bytes, start: int) -> Iterator[int]:
    """The offset of each `,` the brackets opened just before `start` hold at their own depth
    (not inside a nested bracket, a literal or a comment), then of the bracket that closes
    them; -1 instead where the bytes end first, or where a quote may open a literal nested in
    an f-string's replacement field (Python 3.12 allows its own quotes there): what follows
    cannot be read here. The screens' one reading of a call's arguments."""
    depth, at, end = 0, start, len(data)
    while at < end:
        byte = data[at]
        if byte in _QUOTES:
            closed = string_end(data, at)
            if _f_string(data, at) and not _fields_closed(data[at:closed]):
                yield -1  # the quote closes no literal: it opens one nested in a `{...}`
                return
            at = closed
            continue
        if byte == 0x23:  # `#`: a comment, to the end of its line
            at = data.find(b"\n", at)
            if at < 0:
                break
        elif byte in _OPENING:
            depth += 1
        elif byte in _CLOSING:
            if depth == 0:
                yield at
                return
            depth -= 1
        elif byte == 0x2C and depth == 0:
            yield at
        at += 1
    yield -1


def _fields_closed(literal: bytes) -> bool:
    """Whether every `{` of an f-string's bytes (`{{` aside) is closed before its end: only
    inside an open replacement field can a 3.12 f-string hold its own quote."""
    depth = 0
    for byte in literal.replace(b"{{", b"").replace(b"}}", b""):
        if byte == 0x7B:
            depth += 1
        elif byte == 0x7D and depth:
            depth -= 1
    return not depth


def _f_string(data: bytes, quote: int) -> bool:
    """Whether the literal whose quote is at `quote` has an `f` among its prefix letters."""
    letters = data[max(0, quote - 2) : quote]
    while letters and letters[:1] not in (b"r", b"R", b"b", b"B", b"u", b"U", b"f", b"F"):
        letters = letters[1:]
    return b"f" in letters or b"F" in letters


#: What comes after a name that gives it another name (`ClientSession as CS`, `import urlsplit
#: as split_url`): the other name.
AS_NAME = lazy_compile(GAP + rb"as" + GAP + rb"([A-Za-z_][A-Za-z0-9_]*)")
#: The end of a value that names something, before its name: parentheses opened, then the
#: modules or objects it is an attribute of (`(mcp.ClientSession`).
NAMING_VALUE = GAP + rb"(?:\(" + GAP + rb")*(?:[A-Za-z_][A-Za-z0-9_]*" + GAP + rb"\." + GAP + rb")*$"
#: What comes before a name that is an assignment's value (`S = ClientSession`, `p =
#: parse.urlsplit`, `S = A if c else ClientSession`, `p := urlparse`): the syntax screen's
#: aliases (core.screen.Syntax.aliases) follow those.
ASSIGNED = lazy_compile(rb"(?:(?<![=!<>])=|\belse|\bif)" + NAMING_VALUE)


def string_end(data: bytes, at: int) -> int:
    """The offset just past the string literal whose opening quote (the first of three for a
    triple-quoted one) is at `at` (the end of the bytes where it is not closed)."""
    quote = data[at : at + 1]
    delimiter = quote * 3 if data.startswith(quote * 3, at) else quote
    position, end = at + len(delimiter), len(data)
    while position < end:
        if data[position] == 0x5C:  # a backslash: the next byte is escaped
            position += 2
        elif data.startswith(delimiter, position):
            return position + len(delimiter)
        else:
            position += 1
    return end
