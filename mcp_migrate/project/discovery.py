"""Which files a run checks: walk the PATHs for `*.py`, skipping the usual noise.

Skipped while walking: folders named in the default list (replaced by config `exclude`,
extended by `extend-exclude`; `--exclude` / `--extend-exclude` do the same from the command
line), virtualenvs (any folder holding `pyvenv.cfg`), whatever `.gitignore` files ignore,
symlinked folders (no loops), and template folders (`{{cookiecutter.slug}}`, unless
`include-templates`). Explicitly named files are always checked, unless `force-exclude` is on
(pre-commit, editors): then they are skipped when excluded, in a template folder, or not
Python (neither `.py`/`.pyi` nor a python shebang), as ruff treats a file it excludes. The
result is sorted by display path so output and tests are deterministic.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from mcp_migrate.core.record import field, record
from mcp_migrate.project.gitignore import IgnoreStack, PatternLayers, PatternSet
from mcp_migrate.project.paths import display_path
from mcp_migrate.project.regular import read_regular

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", "site-packages", "node_modules", "__pycache__",
    "build", "dist", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
)  # fmt: skip


class PathNotFoundError(Exception):
    def __init__(self, path: str):
        super().__init__(f"path not found: {path}")
        self.path = path


class SourceFile(NamedTuple):
    path: str  # absolute, for reading
    display: str  # what reports show


@record
class Discovery:
    files: list = field(default_factory=list)
    #: (display path, message) for folders that could not be listed.
    unreadable: list = field(default_factory=list)
    #: Explicitly named files skipped by force-exclude.
    skipped: int = 0
    #: One-line warnings: ignore files that exist but cannot be read.
    warnings: list = field(default_factory=list)
    #: Display paths (ending in `/`) of the template folders the walk skipped.
    templates: list = field(default_factory=list)


def exclude_patterns(config):
    """The config's exclude globs (default: the folder names above), relative to its root, with
    the command line's `--exclude` / `--extend-exclude` (relative to the current folder) laid
    over them: a PatternSet, or PatternLayers when flags were given."""
    default = tuple(f"{name}/" for name in DEFAULT_EXCLUDE)
    overrides = getattr(config, "overrides", None)
    if overrides is None or not overrides.excludes:
        base = config.exclude if config.exclude is not None else default
        return PatternSet.from_lines(config.root, base + tuple(config.extend_exclude))
    layers = overrides.exclude_layers(config, default)
    return PatternLayers([PatternSet.from_lines(root, globs) for root, globs in layers if globs])


def is_template_folder(name: str) -> bool:
    """A folder whose name is a template expression (cookiecutter's `{{cookiecutter.slug}}`,
    copier's and Jinja's `{% if %}`): what it holds is source for a generator, not code to
    check, and its pyproject.toml is usually not even TOML."""
    return "{{" in name or "}}" in name or "{%" in name


def in_template_folder(path: str, config) -> bool:
    """Whether a named path is a template folder or lies in one (below the config's root)."""
    full = os.path.abspath(path)
    base = os.path.abspath(config.root)
    drive_full, drive_base = os.path.splitdrive(full)[0], os.path.splitdrive(base)[0]
    rel = os.path.relpath(full, base) if drive_full == drive_base else os.path.splitdrive(full)[1]
    if rel.split(os.sep)[0] == os.pardir:  # outside the config's folder: every part counts
        rel = os.path.splitdrive(full)[1]
    parts = rel.split(os.sep) if os.path.isdir(full) else rel.split(os.sep)[:-1]
    return any(is_template_folder(part) for part in parts)


def check_paths_exist(paths: Sequence[str]) -> None:
    for path in paths:
        if not os.path.lexists(path):
            raise PathNotFoundError(path)


def _join(parent_display: str, name: str) -> str:
    return name if parent_display in ("", ".") else f"{parent_display.rstrip('/')}/{name}"


class _Exclusions:
    """The exclude patterns of each folder's Config (per file configuration: a sub-project's own
    `exclude` applies inside it), each Config's patterns compiled once."""

    def __init__(self, configs) -> None:
        self.configs = configs
        self._patterns: dict = {}

    def config(self, folder: str, names=None):
        """`folder`'s Config; `names`, when given, the lowered names of its listing (a config
        file not among them is not looked for)."""
        return self.configs.for_folder(folder, names) if hasattr(self.configs, "for_folder") else self.configs

    def patterns(self, config):
        found = self._patterns.get(id(config))
        if found is None or found[0] is not config:
            found = self._patterns[id(config)] = (config, exclude_patterns(config))
        return found[1]

    def for_folder(self, folder: str, names=None):
        """(exclude patterns, whether template folders are walked) of `folder`'s Config."""
        config = self.config(folder, names)
        return self.patterns(config), config.templates_included


def _walk(root: str, shown: str, exclusions: _Exclusions, ignores: IgnoreStack, out: Discovery) -> None:
    """Every file under `root`, depth first in name order, with a stack of folders still to
    list instead of recursion: a tree 1,000 folders deep (deeper than Python's recursion
    limit) is walked like any other. The entries of a folder are judged by that folder's
    Config, as ruff does: a sub-project's config applies below its own folder, while the folder
    itself was judged by its parent's. What a folder holds (a virtual environment's
    `pyvenv.cfg`, a `.gitignore`, a config file) is read from its own listing: a name not in it
    costs no system call (on a 414-folder tree, 2,000 of them)."""
    stack = [(root, shown, ignores, True)]
    while stack:
        folder, shown, ignores, top = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            out.unreadable.append((shown, f"cannot list folder: {exc.strerror or exc}"))
            continue
        names = {entry.name.lower() for entry in entries}  # lowered: the file system may ignore case
        if not top and "pyvenv.cfg" in names and os.path.exists(os.path.join(folder, "pyvenv.cfg")):
            continue  # a virtual environment
        if not top and ".gitignore" in names:
            ignores = ignores.child(folder)
        excluded, templates = exclusions.for_folder(folder, names)
        folders = []
        for entry in entries:
            path = entry.path
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.name.endswith(".py") and entry.is_file()
            except OSError:
                continue
            if not (is_dir or is_file):
                continue
            if excluded.matches(path, is_dir) or ignores.ignored(path, is_dir):
                continue
            if is_dir and not templates and is_template_folder(entry.name):
                out.templates.append(_join(shown, entry.name) + "/")
            elif is_dir:
                folders.append((path, _join(shown, entry.name), ignores, False))
            else:
                out.files.append(SourceFile(path, _join(shown, entry.name)))  # root is absolute
        stack.extend(reversed(folders))


def looks_like_python(path: str) -> bool:
    """A `.py` / `.pyi` file, or one whose first line is a python shebang."""
    if path.endswith((".py", ".pyi")):
        return True
    try:
        head, _st = read_regular(path, 256)
    except OSError:
        return False
    first = head.split(b"\n", 1)[0]
    return first.startswith(b"#!") and b"python" in first


def force_excluded(path: str, config) -> bool:
    """Whether force-exclude drops an explicitly named file (or stdin's `--stdin-filename`):
    excluded, in a template folder the config does not include, or not Python."""
    if not config.templates_included and in_template_folder(path, config):
        return True
    patterns = exclude_patterns(config)
    full = os.path.abspath(path)
    if os.path.isdir(full):
        return patterns.matches(full, is_dir=True) or patterns.matches_with_parents(full)
    return patterns.matches_with_parents(full) or not looks_like_python(full)


def discover(paths: Sequence[str], config, force_exclude=False) -> Discovery:
    """All files to check under `paths` (raises PathNotFoundError before any work). `config` is
    one Config for every file, or a ConfigResolver (each folder's own); `force_exclude` a bool,
    or a function of a Config (the named path's) that says whether force-exclude is on."""
    check_paths_exist(paths)
    exclusions = _Exclusions(config)
    out = Discovery()
    for given in paths:
        # A named path is judged by its own closest config, as ruff does.
        full = os.path.abspath(given)
        own = exclusions.config(full if os.path.isdir(full) else os.path.dirname(full))
        forced = force_exclude(own) if callable(force_exclude) else force_exclude
        if forced and force_excluded(given, own):
            out.skipped += 1
        elif os.path.isdir(given):
            _walk(
                os.path.abspath(given), display_path(given), exclusions, IgnoreStack.for_root(given, out.warnings), out
            )
        else:
            out.files.append(SourceFile(os.path.abspath(given), display_path(given)))
    seen, unique = set(), []
    for item in sorted(out.files, key=lambda f: f.display):
        key = os.path.normcase(item.path)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    out.files = unique
    out.warnings = list(dict.fromkeys(out.warnings))  # a folder under two PATHs says it once
    out.templates = sorted(set(out.templates))
    return out
