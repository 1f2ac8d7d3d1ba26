"""Where the results cache may live, and whose word decides it (issue 33).

A config file comes with the repository, not from the user: a cloned project's
`cache-dir = "../Desktop"` would have the cache adopt the user's folder, hide what they later
save there from backups (`CACHEDIR.TAG`) and let `mcp-migrate clean` delete it. So a config
file may put the cache only inside its own project (below the folder holding it) or below the
user's cache folder, decided on the real path (symlinks and `..` resolved); anywhere else is a
one-line warning and the default `.mcp_migrate_cache/` at the project root. The environment's
`MCP_MIGRATE_CACHE_DIR` is the user's own choice and goes anywhere (an empty folder there, made
by the user for it, may be adopted).

The signing key is the other thing a repository must never supply: when the user's cache folder
(`XDG_CACHE_HOME`) lies inside a tree being checked, the key there could have been committed with
a signed table saying "no findings"; it is not read, and the run is cold with a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from mcp_migrate.core.record import record
from mcp_migrate.project import cache_key
from mcp_migrate.project.paths import display_path

DEFAULT_DIR = ".mcp_migrate_cache"
ENV_VAR = "MCP_MIGRATE_CACHE_DIR"


@record(frozen=True)
class Place:
    """This run's cache folder and how it was chosen."""

    folder: str
    #: The user chose it (MCP_MIGRATE_CACHE_DIR): an existing empty folder there may be adopted.
    users_choice: bool = False
    #: Why the config's `cache-dir` was not followed (one line), or None.
    warning: str | None = None


def cache_place(config) -> Place:
    """Where this run's cache lives: the environment, then the config (inside the project or
    the user's cache folder only), then `.mcp_migrate_cache/` at the project root."""
    default = os.path.join(config.root, DEFAULT_DIR)
    chosen = os.environ.get(ENV_VAR)
    if chosen:
        return Place(_resolved_parent(config.root, chosen), users_choice=True)
    chosen = getattr(config, "cache_dir", None)
    if not chosen:
        return Place(default)
    folder = _resolved_parent(config.root, chosen)
    home = cache_key.user_cache_home()
    if within(folder, config.root) or (home is not None and within(folder, home)):
        return Place(folder)
    where = display_path(config.path) if config.path else "the configuration"
    return Place(
        default,
        warning=(
            f"cache-dir {chosen!r} in {where} is outside the project and the user's cache folder: "
            f"using {display_path(default)} (set {ENV_VAR} to put the cache elsewhere)"
        ),
    )


def _resolved_parent(root: str, chosen: str) -> str:
    """`chosen` (relative to `root`) with its parent folders resolved as the system will
    (`build/../cache` is `cache` even when `build` does not exist yet) and its last part kept
    as named, so a symlink there is still seen as one."""
    path = os.path.join(root, chosen)
    head, tail = os.path.split(path.rstrip(os.sep) or os.sep)
    if tail in ("", ".", ".."):
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(head), tail)


def below(path: str, folder: str) -> bool:
    """Whether `path` is strictly inside `folder`, both resolved (symlinks, `..`)."""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real != top and real.startswith(top.rstrip(os.sep) + os.sep)


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it, both resolved."""
    return os.path.realpath(path) == os.path.realpath(folder) or below(path, folder)


def key_in_tree(trees: Iterable[str]) -> str | None:
    """Why the user's key may not be used because it lies inside one of `trees` (the paths
    being checked or cleaned, the project's root), or None."""
    path = cache_key.key_path()
    if path is None:
        return None
    real = os.path.realpath(path)
    for tree in trees:
        top = os.path.realpath(tree)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return (
                f"results cache off: the cache's private key {display_path(path)} is inside the checked "
                f"files (a repository could ship one); set XDG_CACHE_HOME to a folder outside {display_path(tree)}"
            )
    return None
