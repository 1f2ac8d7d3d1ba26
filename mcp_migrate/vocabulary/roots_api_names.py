"""The names of a project's own roots API, for the screens as much as the rules: no LibCST
here (core/screening.py reads these before any file is parsed; `vocabulary.roots_api` reads
the parsed calls)."""

from __future__ import annotations

from mcp_migrate.core.lazy_regex import lazy_compile

#: A roots setter's name: `set_roots`, `set_roots_provider`, `update_roots`, `replace_roots`,
#: `register_roots_callback`, `add_root` (the shapes a wrapper gives its users to supply roots).
SETTER_NAME = lazy_compile(r"^(?:set|update|replace|register|add)_roots?(?:_\w+)?$")
