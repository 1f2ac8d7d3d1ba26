"""Helpers shared by the behavioural tests: run migrated code in-process with the real SDK."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import sys
import warnings
from pathlib import Path

from mcp.shared.exceptions import MCPDeprecationWarning

_MODULE_IDS = itertools.count()


def load(path: Path):
    """Import a source file as a fresh module under a unique name."""
    name = f"_behaviour_{path.stem}_{next(_MODULE_IDS)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def run(coro, *, record: bool = False):
    """Run `coro`; the SDK's deprecation warnings are silenced, or recorded and returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always" if record else "ignore", MCPDeprecationWarning)
        value = asyncio.run(coro)
    return value, [w for w in caught if issubclass(w.category, MCPDeprecationWarning)]


def outcome(result) -> tuple:
    """What a tool call returned, in a comparable form."""
    texts = [getattr(c, "text", repr(c)) for c in result.content]
    return bool(result.is_error), result.structured_content, texts
