"""The words of an identifier: `allowedDirs`, `ALLOWED_DIRS` and `allowed_dirs` all say
["allowed", "dirs"]. The rules' vocabulary reads names by their words (mcp_migrate.vocabulary
.words re-exports this), and so does the fix core where it asks what a test is named for."""

from __future__ import annotations

from mcp_migrate.core.lazy_regex import lazy_compile

_WORD = lazy_compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(name: str) -> list:
    """`allowedDirs` / `ALLOWED_DIRS` / `allowed_dirs` -> ["allowed", "dirs"]."""
    out: list[str] = []
    for part in name.split("_"):
        out.extend(w.lower() for w in _WORD.findall(part))
    return out
