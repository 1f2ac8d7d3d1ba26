"""`mcp-migrate clean`, as `ruff clean`: remove the results caches mcp-migrate made, the one the
configuration names for each PATH and every `.mcp_migrate_cache` folder below it. Only a folder
carrying mcp-migrate's owner mark for this user is touched, only the files the cache wrote are
removed, and the folder only when that empties it (project.cache_removal); a key inside the
PATHs (XDG_CACHE_HOME in the checkout) recognises no folder."""

from __future__ import annotations

import os
import sys

from mcp_migrate.core.codes import EXIT_CLEAN, EXIT_ERROR
from mcp_migrate.output.printable import one_line
from mcp_migrate.project.cache_key import existing_key
from mcp_migrate.project.cache_place import DEFAULT_DIR, cache_place, key_in_tree
from mcp_migrate.project.cache_removal import removal_refused, remove_cache
from mcp_migrate.project.config import ConfigResolver
from mcp_migrate.project.paths import display_path

#: Folders never walked into when looking for caches below a path.
_SKIP = frozenset({".git", ".hg", ".svn", "node_modules"})


def cache_folders(paths, config_file=None, isolated: bool = False, warnings=None) -> list:
    """The cache folders of PATHs: each one's configured cache dir (`cache-dir` inside its
    project, the environment's MCP_MIGRATE_CACHE_DIR, else `.mcp_migrate_cache/` at its project
    root), then every folder of the default name below each PATH; each once, in order, existing
    ones only. A `cache-dir` not followed adds its one line to `warnings`, once."""
    found: dict = {}
    resolver = ConfigResolver.for_run(list(paths), config_file, isolated)
    for path in paths:
        place = cache_place(resolver.for_path(path))
        if place.warning and warnings is not None and place.warning not in warnings:
            warnings.append(place.warning)
        found.setdefault(os.path.abspath(place.folder), None)
        if not os.path.isdir(path):
            continue
        for folder, dirs, _files in os.walk(path):
            if DEFAULT_DIR in dirs:
                found.setdefault(os.path.abspath(os.path.join(folder, DEFAULT_DIR)), None)
            dirs[:] = sorted(d for d in dirs if d not in _SKIP and d != DEFAULT_DIR)
    return [folder for folder in found if os.path.lexists(folder)]


def run_clean(paths, config_file=None, isolated: bool = False, quiet: bool = False) -> int:
    """Remove the caches; `Removing cache at: DIR` per folder (ruff's words), a warning for each
    one that is left alone and for what was kept in one. Exit 0 (nothing to remove is not an
    error), 2 when a removal failed."""
    warnings: list = []
    folders = cache_folders(paths, config_file, isolated, warnings)
    key = existing_key()
    untrusted = key_in_tree(paths)
    if untrusted is not None:
        warnings.append(untrusted.replace("results cache off", "no cache removed", 1))
        key = None
    for warning in warnings:
        sys.stderr.write(f"mcp-migrate: warning: {one_line(warning)}\n")
    status = EXIT_CLEAN
    for folder in folders:
        if not os.path.lexists(folder):  # inside a cache removed before it
            continue
        shown = one_line(display_path(folder))
        refused = removal_refused(folder, key)
        if refused is not None:
            sys.stderr.write(f"mcp-migrate: warning: {one_line(refused.replace(folder, shown, 1))}\n")
            continue
        removal = remove_cache(folder, key)
        if not quiet:
            sys.stdout.write(f"Removing cache at: {shown}\n")
        kept = removal.left_line(shown)
        if kept is not None:
            sys.stderr.write(f"mcp-migrate: warning: {one_line(kept)}\n")
        if removal.problem is not None:
            sys.stderr.write(f"mcp-migrate: error: {one_line(removal.problem.replace(folder, shown, 1))}\n")
            status = EXIT_ERROR
    return status
