"""The command line's layer over every config file, as ruff lays its flags over each config it
resolves: `--exclude` replaces a config's `exclude`, `--extend-exclude` adds to its
`extend-exclude`, `--per-file-ignores` replaces its `per-file-ignores`,
`--extend-per-file-ignores` adds to them, `--include-templates` sets `include-templates`.

Kept apart from config.py: a config file's globs are relative to its own folder, the flags'
to the current folder (as ruff reads them), so the flags travel with their own root rather
than being merged into a file's lists.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from mcp_migrate.core.record import record, replace
from mcp_migrate.project import selection
from mcp_migrate.project.config import Config, ConfigError, plain_glob
from mcp_migrate.project.gitignore import PatternSet, glob_problem


@record(frozen=True)
class Overrides:
    #: The folder the flags' globs are relative to (the current folder when the run started).
    root: str
    exclude: tuple | None = None
    extend_exclude: tuple = ()
    #: ((glob, frozenset of codes), ...), as Config.per_file_ignores; None: the config's.
    per_file_ignores: tuple | None = None
    extend_per_file_ignores: tuple = ()
    include_templates: bool | None = None

    @property
    def active(self) -> bool:
        """Whether any flag was given (else configs are handed out untouched)."""
        return self != Overrides(self.root)

    @property
    def excludes(self) -> bool:
        return self.exclude is not None or bool(self.extend_exclude)

    def apply(self, config: Config) -> Config:
        return replace(config, overrides=self) if self.active else config

    def per_file_ignore_sets(self, own: list) -> list:
        """A config's [(PatternSet, codes)] (`own`) with the flags laid over them."""
        base = own if self.per_file_ignores is None else self._sets(self.per_file_ignores)
        return base + self._sets(self.extend_per_file_ignores)

    def exclude_layers(self, config: Config, default: tuple) -> list:
        """[(root, globs)] in the order they are matched (the last match decides): the exclude
        list (`--exclude`, else the config's, else `default`), the config's `extend-exclude`,
        then `--extend-exclude`."""
        if self.exclude is not None:
            first = (self.root, self.exclude)
        else:
            first = (config.root, config.exclude if config.exclude is not None else default)
        return [first, (config.root, tuple(config.extend_exclude)), (self.root, self.extend_exclude)]

    def _sets(self, pairs: tuple) -> list:
        return [(PatternSet.from_lines(self.root, [plain_glob(glob)]), codes) for glob, codes in pairs]


def split_globs(values: Sequence[str], option: str) -> tuple | None:
    """`--exclude a,b --exclude c` -> ("a", "b", "c") (ruff's spelling: comma-separated, and
    repeatable); None when the flag was not given. `--exclude ""` is an empty list: it clears
    the exclude list, default folders included."""
    if not values:
        return None
    globs = tuple(plain_glob(part.strip()) for value in values for part in value.split(",") if part.strip())
    for glob in globs:
        problem = glob_problem(glob)
        if problem is not None:
            raise ConfigError(f"{option}: malformed glob {glob!r}: {problem}")
    return globs


def split_pairs(values: Sequence[str], option: str) -> tuple | None:
    """`--per-file-ignores 'tests/*:RT004,RT005'` -> (("tests/*", frozenset of codes),): each
    value is `GLOB:CODE[,CODE]`, repeatable; a comma-separated part without `:` is one more code
    of the pair before it, so ruff's spelling (`a/*:RT004,b/*:RT005`, one code per pair) means
    what it means in ruff. Codes may be prefixes, as in the config. None when not given."""
    if not values:
        return None
    pairs: list = []
    for value in values:
        current: list | None = None
        for part in (part.strip() for part in value.split(",")):
            if ":" in part:
                glob, _, code = part.rpartition(":")
                glob = glob.strip()
                if not glob or not code.strip():
                    raise ConfigError(f"{option}: expected GLOB:CODE[,CODE...], got {value!r}")
                problem = glob_problem(glob)
                if problem is not None:
                    raise ConfigError(f"{option}: malformed glob {glob!r}: {problem}")
                current = [glob, code.strip()]
                pairs.append(current)
            elif current is None:
                raise ConfigError(f"{option}: expected GLOB:CODE[,CODE...], got {value!r}")
            elif part:
                current.append(part)
    out = []
    for glob, *codes in pairs:
        try:
            out.append((glob, selection.expand(codes)))
        except selection.UnknownCodeError as exc:
            raise ConfigError(f"{option}: {exc}") from None
    return tuple(out)


def from_flags(
    exclude=(), extend_exclude=(), per_file_ignores=(), extend_per_file_ignores=(), include_templates=None
) -> Overrides:
    """The Overrides of the command line's raw values (click's tuples of strings)."""
    return Overrides(
        root=os.getcwd(),
        exclude=split_globs(exclude, "--exclude"),
        extend_exclude=split_globs(extend_exclude, "--extend-exclude") or (),
        per_file_ignores=split_pairs(per_file_ignores, "--per-file-ignores"),
        extend_per_file_ignores=split_pairs(extend_per_file_ignores, "--extend-per-file-ignores") or (),
        include_templates=include_templates,
    )
