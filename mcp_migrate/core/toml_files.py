"""TOML documents parsed once per process. A project's pyproject.toml is read for its
`[tool.mcp-migrate]` table while the run is planned (project.config), then again for its line
length, its Python floor and its pytest filters when a fix is previewed (core.fix.layout): the
same text was parsed up to four times (issue 37: langroid's 11 KB pyproject.toml, twice, 1 % of
its check)."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: What `parsed_toml` raises for a document that is not TOML.
TOMLDecodeError = tomllib.TOMLDecodeError

#: The text of each document parsed -> its table: a function of the text, wherever it was read.
#: A run reads a few configuration files, each small; emptied when it holds `_KEPT`.
_PARSED: dict = {}
_KEPT = 256


def parsed_toml(text: str) -> dict:
    """The TOML document `text` as tomllib parses it (its TOMLDecodeError raised), the same
    table for every caller asking with the same text: read it, never change it."""
    found = _PARSED.get(text)
    if found is None:
        if len(_PARSED) >= _KEPT:
            _PARSED.clear()
        found = _PARSED[text] = tomllib.loads(text)
    return found
