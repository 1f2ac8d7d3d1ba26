"""Layout: the project's line length (found as ruff finds it), review comments wrapped to it,
and the file's indent unit."""

from __future__ import annotations

import functools
import sys
import textwrap
from pathlib import Path

import libcst as cst

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


DEFAULT_LINE_LENGTH = 88


def wrap_comment(text: str, width: int) -> list:
    """A `# ...` comment as lines within `width`: the first keeps its marker form, the rest
    continue it as `#   ...`."""
    body = text[1:].strip() if text.startswith("#") else text
    lines = textwrap.wrap(body, width=max(width - 4, 40), break_long_words=False, break_on_hyphens=False)
    return [f"# {lines[0]}", *(f"#   {line}" for line in lines[1:])] if lines else [text]


def line_length(path: str) -> int:
    """The project's line length, found the way ruff finds its configuration: the nearest
    folder with `.ruff.toml`, `ruff.toml` or a pyproject.toml wins ([tool.ruff], else
    [tool.black] there); 88, ruff's and black's default, when none says."""
    try:
        start = Path(path).resolve().parent
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    return _configured_length(start)


#: Per folder, in ruff's order of precedence: (file name, the tables that may hold line-length).
_LENGTH_SOURCES = (
    (".ruff.toml", ((),)),
    ("ruff.toml", ((),)),
    ("pyproject.toml", (("tool", "ruff"), ("tool", "black"))),
)


@functools.lru_cache(maxsize=256)
def _configured_length(folder: Path) -> int:
    for candidate in (folder, *folder.parents):
        for name, tables in _LENGTH_SOURCES:
            config = candidate / name
            if config.is_file():
                return _length_in(config, tables)
    return DEFAULT_LINE_LENGTH


def _length_in(config: Path, tables: tuple) -> int:
    """`line-length` from the first of `tables` (key paths into the TOML) that sets it."""
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    for keys in tables:
        table = data
        for key in keys:
            table = table.get(key, {}) if isinstance(table, dict) else {}
        value = table.get("line-length") if isinstance(table, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def without_form_feed_indent(module: cst.Module) -> cst.Module:
    """LibCST takes the first indented line's whitespace, form feed included, for the file's
    indent unit; a block the fix adds would then nest as "\\f    \\f    ", which Python rejects.
    The unit without form feeds (the original's form feeds are copied back by exact_output)."""
    if "\f" not in module.default_indent:
        return module
    return module.with_changes(default_indent=module.default_indent.replace("\f", "") or "    ")
