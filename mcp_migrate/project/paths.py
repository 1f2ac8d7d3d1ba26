"""How paths are shown to the user: relative to the working directory, POSIX separators."""

from __future__ import annotations

import os


def display_path(path: str) -> str:
    """Relative to the CWD (POSIX separators) when under it, else as given."""
    try:
        rel = os.path.relpath(os.path.abspath(path))
    except ValueError:
        return path
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return path
    return rel.replace(os.sep, "/")
