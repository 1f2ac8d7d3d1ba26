"""Shapes of code found in a file's bytes, for the rules' byte screens (core.rule.Rule.screen),
which must never lose a finding. Between two tokens of one expression Python allows more than
a space: a newline inside brackets, a comment, a backslash continuation. `GAP` allows all of
them, so a shape written across lines or with a comment in it is still found.

A token that is part of a longer identifier (`always_require_approval` for `require_approval`)
is not the token: `words` finds it only where no identifier byte touches it."""

from __future__ import annotations

import re
from collections.abc import Iterator

#: What may stand between two tokens of one expression (nothing included).
GAP = rb"(?:\s|#[^\n]*|\\\r?\n)*"
#: GAP, with opening parentheses (`f(("x"))`: the argument is the literal all the same).
OPEN_GAP = rb"(?:\s|\(|#[^\n]*|\\\r?\n)*"
#: The bytes of an ASCII identifier: one before or after a token makes it part of another name.
IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def words(data: bytes, token: bytes) -> Iterator[int]:
    """The offsets of `token` in `data` where no identifier byte comes just before or after it."""
    at, size = data.find(token), len(token)
    while at >= 0:
        end = at + size
        if (at == 0 or data[at - 1] not in IDENTIFIER_BYTES) and (
            end == len(data) or data[end] not in IDENTIFIER_BYTES
        ):
            yield at
        at = data.find(token, at + 1)


def given_by_keyword(data: bytes, name: bytes) -> bool:
    """`name=` in `data` as a keyword argument (or any `name =` binding; not `name ==`), `name`
    a whole identifier."""
    follows = re.compile(GAP + rb"=(?!=)")
    return any(follows.match(data, at + len(name)) for at in words(data, name))
