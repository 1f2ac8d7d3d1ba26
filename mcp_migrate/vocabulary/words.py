"""Identifier words: what a name says it holds (a resolved path, a separator, a hint). Where a
value comes from roots is never read from its name (vocabulary/roots_origin.py)."""

from __future__ import annotations

import re

import libcst as cst

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")


_RESOLVED_WORDS = frozenset({"resolved", "real", "realpath", "canonical", "canon"})


def words(name: str) -> list:
    """`allowedDirs` / `ALLOWED_DIRS` / `allowed_dirs` -> ["allowed", "dirs"]."""
    out: list[str] = []
    for part in name.split("_"):
        out.extend(w.lower() for w in _WORD.findall(part))
    return out


def resolved_name(name: str) -> bool:
    return bool(_RESOLVED_WORDS.intersection(words(name)))


def last_identifier(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None
