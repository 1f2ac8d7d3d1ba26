"""Identifier words: what a name says it holds (a resolved path, a separator, a hint). Where a
value comes from roots is never read from its name (vocabulary/roots_origin.py)."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.identifiers import words  # the rules import it from here

_RESOLVED_WORDS = frozenset({"resolved", "real", "realpath", "canonical", "canon"})


def resolved_name(name: str) -> bool:
    return bool(_RESOLVED_WORDS.intersection(words(name)))


def last_identifier(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None
