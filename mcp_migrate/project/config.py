"""`[tool.mcp-migrate]` in pyproject.toml: find it, validate it strictly, hold it.

Strict on purpose: a typo in a key or a rule code would otherwise silently check the wrong
thing. Every problem is a ConfigError with one line, `path: what is wrong`.
"""

from __future__ import annotations

import keyword
import os
from typing import TYPE_CHECKING

from mcp_migrate.core.catalog import SEVERITIES
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.record import record
from mcp_migrate.core.settings import STRATEGIES
from mcp_migrate.core.toml_files import TOMLDecodeError, parsed_toml
from mcp_migrate.project import selection
from mcp_migrate.project.gitignore import PatternSet, glob_problem, walk_up
from mcp_migrate.project.paths import display_path
from mcp_migrate.project.regular import read_regular  # a FIFO named by --config must not hang

if TYPE_CHECKING:  # the flags' layer is built from a Config (project.overrides imports this module)
    from mcp_migrate.project.overrides import Overrides

SECTION = "mcp-migrate"
#: The largest integer TOML has (a 64-bit signed one): Python's TOML reader accepts more, which
#: no file size, and no `read()` count, can be.
MAX_INTEGER = 2**63 - 1
_QUALNAME = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class ConfigError(Exception):
    """Bad config or bad selection input; the CLI prints it on one line and exits 2."""


class UnreadableConfig(ConfigError):
    """A config file that cannot be read as TOML at all (not TOML, not UTF-8, unreadable):
    fatal for `--config` and the run's own config, a warning for one found below them
    (`ConfigResolver`): a cookiecutter template's `pyproject.toml` holding Jinja must not
    refuse the whole repository."""


@record(frozen=True)
class Config:
    #: The file the settings came from (None: defaults). Globs are relative to `root`.
    path: str | None = None
    root: str = "."
    select: tuple | None = None
    ignore: tuple = ()
    exclude: tuple | None = None
    extend_exclude: tuple = ()
    #: ((glob, frozenset of codes), ...)
    per_file_ignores: tuple = ()
    #: ((code, (qualified name, ...)), ...) sorted by code
    extend_apis: tuple = ()
    unsafe_fixes: bool | None = None
    #: Apply `exclude` / `extend-exclude` to files named explicitly too (pre-commit, editors).
    force_exclude: bool | None = None
    #: Migration strategy and the names rewrites introduce (core.settings.Settings).
    strategy: str | None = None
    parameter: str | None = None
    env_var: str | None = None
    #: Where check results are cached (relative to `root`); None: `.mcp_migrate_cache`.
    cache_dir: str | None = None
    #: Codes added to the selection (`extend-select`), the lowest severity that fails a run
    #: (`fail-on`), and the base URL of the rule pages SARIF links (`docs-url`).
    extend_select: tuple = ()
    fail_on: str | None = None
    docs_url: str | None = None
    #: Files over this many bytes are reported (E997), not parsed; 0: no limit; None: the default.
    max_file_size: int | None = None
    #: Fix applicability, as ruff's keys: the rules whose fixes may be applied (None: all), those
    #: whose fixes may not, those whose unsafe fixes count as safe, and whose safe ones as unsafe.
    fixable: tuple | None = None
    unfixable: tuple = ()
    extend_safe_fixes: tuple = ()
    extend_unsafe_fixes: tuple = ()
    #: Walk into template folders (a name holding `{{`, `}}` or `{%`); None: skip them.
    include_templates: bool | None = None
    #: The command line's layer over every config file (project.overrides.Overrides), or None.
    overrides: Overrides | None = None
    #: The keys the file set (TOML spelling), so `mcp-migrate config` can say where values came from.
    keys: frozenset = frozenset()

    def per_file_ignore_sets(self) -> list:
        """[(PatternSet, codes)]: this file's `per-file-ignores`, or the command line's in their
        place (`--per-file-ignores`), then `--extend-per-file-ignores`."""
        own = [(PatternSet.from_lines(self.root, [plain_glob(glob)]), codes) for glob, codes in self.per_file_ignores]
        return own if self.overrides is None else self.overrides.per_file_ignore_sets(own)

    @property
    def templates_included(self) -> bool:
        """Whether discovery walks into template folders (`--include-templates`, else the key)."""
        flag = getattr(self.overrides, "include_templates", None)
        return bool(flag if flag is not None else self.include_templates)


def plain_glob(glob: str) -> str:
    """`./tests/` means what `tests/` means: people write keys relative to the project root
    the way their shell shows paths, and a gitignore pattern never starts with `./`."""
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    while body.startswith("./"):
        body = body[2:]
    return ("!" if negated else "") + body


def _load_toml(path: str, data: bytes | None = None) -> dict:
    """The TOML document of the config file at `path` (`data`: its bytes, where read already)."""
    shown = display_path(path)
    try:
        return parsed_toml((_read_config(path) if data is None else data).decode("utf-8"))
    except TOMLDecodeError as exc:
        raise UnreadableConfig(f"{shown}: invalid TOML: {' '.join(str(exc).split())}") from None
    except UnicodeDecodeError as exc:
        raise UnreadableConfig(f"{shown}: invalid TOML: not UTF-8 text (at byte {exc.start})") from None


def _read_config(path: str) -> bytes:
    """The bytes of the config file at `path`; UnreadableConfig where it cannot be read."""
    try:
        return read_regular(path)[0]
    except FileNotFoundError:
        raise UnreadableConfig(f"{display_path(path)}: config file not found") from None
    except OSError as exc:
        raise UnreadableConfig(f"{display_path(path)}: cannot read: {exc.strerror or exc}") from None


def may_hold_section(data: bytes) -> bool:
    """Whether a pyproject.toml's bytes can hold a `[tool.mcp-migrate]` table: every way TOML
    writes its key spells `mcp-migrate` (`[tool."mcp-migrate"]`, `tool.mcp-migrate.select`),
    but for a basic string's escapes (`"mcp\\u002Dmigrate"`)."""
    return b"mcp-migrate" in data or b"\\u" in data or b"\\U" in data


def _section(data: dict):
    tool = data.get("tool")
    return tool.get(SECTION) if isinstance(tool, dict) else None


#: The config files looked for in each folder, in this order (as ruff looks for `.ruff.toml`,
#: `ruff.toml`, then `pyproject.toml`): the first two are the table itself and count even when
#: empty; a pyproject.toml counts only with a `[tool.mcp-migrate]` table.
CONFIG_FILES = (".mcp-migrate.toml", "mcp-migrate.toml", "pyproject.toml")


def config_in(folder: str, names=None) -> str | None:
    """The config file of `folder` itself (see CONFIG_FILES), or None; `names`, when given,
    the lowered names of the folder's listing: a config file not among them is not there."""
    for name in CONFIG_FILES:
        if names is not None and name not in names:
            continue
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            if name != "pyproject.toml" or _section(_load_toml(candidate)) is not None:
                return candidate
    return None


def _at_or_above(folder: str, where: str) -> bool:
    """Whether `folder` is `where` or a folder above it."""
    folder, where = os.path.normcase(os.path.abspath(folder)), os.path.normcase(os.path.abspath(where))
    return where == folder or where.startswith(folder.rstrip(os.sep) + os.sep)


def _start_folder(start: str) -> str:
    folder = os.path.abspath(start)
    return folder if os.path.isdir(folder) else os.path.dirname(folder)


def find_config(start: str) -> str | None:
    """The nearest config file at or above `start` (a folder or a file): `.mcp-migrate.toml`,
    `mcp-migrate.toml`, or a pyproject.toml with a `[tool.mcp-migrate]` table; a pyproject.toml
    without the table does not stop the search (as ruff)."""
    for each in walk_up(_start_folder(start)):
        found = config_in(each)
        if found is not None:
            return found
    return None


class _Validator:
    """Type checks that name the offending key in the message."""

    def __init__(self, shown: str):
        self.shown = shown

    def fail(self, what: str):
        raise ConfigError(f"{self.shown}: {what}")

    def str_list(self, key: str, value) -> tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"'{key}' must be a list of strings")
        return tuple(value)

    def codes(self, key: str, value) -> tuple:
        codes = self.str_list(key, value)
        try:
            selection.expand(codes)
        except selection.UnknownCodeError as exc:
            self.fail(f"'{key}': {exc}")
        return codes

    def identifier(self, key: str, value: str) -> str:
        """A name rewrites put into code: `parameter` becomes a tool parameter, so a keyword
        (or `__debug__`, which cannot be assigned) would make the fix output not parse."""
        if not value.isidentifier():
            self.fail(f"'{key}' must be an identifier, got {value!r}")
        if key == "parameter" and (keyword.iskeyword(value) or value == "__debug__"):
            self.fail(f"'{key}' must not be a Python keyword, got {value!r}")
        return value

    def globs(self, key: str, globs) -> tuple:
        """Every glob well formed: git would read a stray `[` literally, which in a config is
        almost always a typo that silently excludes nothing."""
        for glob in globs:
            problem = glob_problem(glob)
            if problem is not None:
                self.fail(f"'{key}': malformed glob {glob!r}: {problem}")
        return tuple(globs)

    def table(self, key: str, value) -> dict:
        if not isinstance(value, dict):
            self.fail(f"'{key}' must be a table")
        return value

    def scalar(self, key: str, value, kind):
        if not isinstance(value, kind):
            self.fail(f"'{key}' must be a {kind.__name__ if kind is not bool else 'boolean'}")
        return value


def parse_section(section: dict, path: str | None) -> Config:
    """Validate one `[tool.mcp-migrate]` table (or a standalone config's top level)."""
    shown = display_path(path) if path else "<config>"
    v = _Validator(shown)
    if not isinstance(section, dict):
        v.fail(f"[tool.{SECTION}] must be a table")
    fields: dict = {}
    for key, value in section.items():
        if key in (
            "select",
            "ignore",
            "extend-select",
            "fixable",
            "unfixable",
            "extend-safe-fixes",
            "extend-unsafe-fixes",
        ):
            fields[key.replace("-", "_")] = v.codes(key, value)
        elif key in ("exclude", "extend-exclude"):
            fields[key.replace("-", "_")] = v.globs(key, v.str_list(key, value))
        elif key == "per-file-ignores":
            table = v.table(key, value)
            v.globs(key, list(table))
            fields["per_file_ignores"] = tuple(
                (glob, selection.expand(v.codes(f"{key}.{glob}", codes))) for glob, codes in table.items()
            )
        elif key == "extend-apis":
            apis = []
            for code, names in v.table(key, value).items():
                try:
                    code = selection.check_exact(code)
                except selection.UnknownCodeError as exc:
                    v.fail(f"'{key}': {exc}")
                names = v.str_list(f"{key}.{code}", names)
                bad = [n for n in names if not _QUALNAME.match(n)]
                if bad:
                    v.fail(f"'{key}.{code}': not a qualified name: {bad[0]!r}")
                apis.append((code, names))
            fields["extend_apis"] = tuple(sorted(apis))
        elif key in ("unsafe-fixes", "force-exclude", "include-templates"):
            fields[key.replace("-", "_")] = v.scalar(key, value, bool)
        elif key == "fail-on":
            fields["fail_on"] = check_fail_on(v.scalar(key, value, str), f"{shown}: 'fail-on'")
        elif key == "docs-url":
            fields["docs_url"] = v.scalar(key, value, str).rstrip("/")
        elif key == "strategy":
            fields[key] = check_strategy(v.scalar(key, value, str), f"{shown}: 'strategy'")
        elif key == "max-file-size":
            if type(value) is not int or not 0 <= value <= MAX_INTEGER:  # bool is an int; so is 10**23
                v.fail(f"'{key}' must be a whole number of bytes from 0 (no limit) to {MAX_INTEGER}, got {value!r}")
            fields["max_file_size"] = value
        elif key == "cache-dir":
            fields["cache_dir"] = v.scalar(key, value, str)
            if "\0" in value:  # no file system has such a path (os.stat would raise ValueError)
                v.fail(f"'{key}' must be a path, got {value!r} (it holds a NUL character)")
        elif key in ("parameter", "env-var"):
            fields[key.replace("-", "_")] = v.identifier(key, v.scalar(key, value, str))
        else:
            v.fail(f"unknown key '{key}' in [tool.{SECTION}]{did_you_mean(key, KEYS)}")
    root = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    return Config(path=path, root=root, keys=frozenset(section), **fields)


#: Every key `[tool.mcp-migrate]` accepts (TOML spelling), for "did you mean" on a typo.
KEYS = (
    "select",
    "extend-select",
    "ignore",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "extend-apis",
    "unsafe-fixes",
    "force-exclude",
    "include-templates",
    "strategy",
    "parameter",
    "env-var",
    "fail-on",
    "docs-url",
    "max-file-size",
    "cache-dir",
    "fixable",
    "unfixable",
    "extend-safe-fixes",
    "extend-unsafe-fixes",
)


def did_you_mean(word: str, choices) -> str:
    """` (did you mean 'x'?)` for the closest known spelling, else nothing (as click does for options)."""
    import difflib

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def check_strategy(value: str, where: str) -> str:
    """`value` when it names a known strategy, else a ConfigError naming `where`."""
    if value not in STRATEGIES:
        raise ConfigError(f"{where}: unknown strategy {value!r} (choose from {', '.join(STRATEGIES)})")
    return value


def check_fail_on(value: str, where: str) -> str:
    """`value` when it names a severity, else a ConfigError naming `where`."""
    if value not in SEVERITIES:
        raise ConfigError(f"{where}: unknown severity {value!r} (choose from {', '.join(SEVERITIES)})")
    return value


def load_config(path: str) -> Config:
    """Read an explicit config file. A pyproject.toml (or any file with a `[tool.mcp-migrate]`
    table) uses that table; another TOML file, e.g. `mcp-migrate.toml`, is the table itself."""
    return _config_from(_load_toml(path), path) or parse_section({}, path)


def _config_from(data: dict, path: str) -> Config | None:
    """The Config a file's TOML holds; None for a pyproject.toml without the table (no config)."""
    section = _section(data)
    if section is None:
        if os.path.basename(path) == "pyproject.toml":
            return None
        section = data
    return parse_section(section, path)


def resolve_config(paths, explicit: str | None = None, isolated: bool = False) -> Config:
    """The run's Config: `--config FILE`, else (unless `isolated`, which reads no config file)
    the nearest config file above the first path, else defaults rooted at the CWD. Values of
    the run as a whole (cache-dir, docs-url) come from it; each file's own settings come from
    `ConfigResolver` (which finds this one its own way, tolerant below the current folder)."""
    if explicit and isolated:
        raise ConfigError(f"--config {explicit} cannot be used with --isolated, which reads no config file")
    if explicit:
        return load_config(explicit)
    if isolated:
        return Config(root=os.getcwd())
    found = find_config(paths[0] if paths else ".")
    return load_config(found) if found else Config(root=os.getcwd())


class ConfigResolver:
    """Each file's Config, as ruff resolves it: the closest config file at or above the file's
    folder, with its globs relative to that file's folder, so a monorepo's sub-projects each keep
    their own settings in one run. `--config` (or `--isolated`) gives every file the run's
    Config; so does a file with no config file above it. Folders and files are looked up once.

    Unlike ruff, a config file below the current folder (or in another tree a PATH names) that
    cannot be read as TOML (a cookiecutter template's `pyproject.toml` full of Jinja, a file not
    in UTF-8, one without read permission) does not stop the run: it is said once in `warnings`
    and counts as absent, so its folder takes the closest readable config above. One in the
    current folder or above it is the project's own and stops the run, as `--config` does. A
    readable table with a wrong key or value stops it wherever it is: that file is meant for
    mcp-migrate, and guessing past a typo would check with settings nobody chose. `overrides` (the command line's excludes and
    per-file ignores, project.overrides) is laid over every Config handed out."""

    def __init__(self, base: Config, fixed: bool = False, overrides=None) -> None:
        self.overrides = overrides
        self.base = self._over(base)
        self.fixed = fixed
        self._folders: dict = {}
        #: config file path -> its Config, or None (a pyproject.toml without the table, or unreadable)
        self._loaded: dict = {base.path: self.base} if base.path else {}
        #: One line per config file ignored because it cannot be read, in the order met.
        self.warnings: list = []

    @classmethod
    def for_run(cls, paths, explicit: str | None = None, isolated: bool = False, overrides=None) -> ConfigResolver:
        """The resolver of a run; its `base` is `--config`, or the closest config above the
        first path (`resolve_config`'s answer, found the resolver's way)."""
        if explicit or isolated:
            return cls(resolve_config(paths, explicit, isolated), fixed=True, overrides=overrides)
        resolver = cls(Config(root=os.getcwd()), overrides=overrides)
        resolver.base = resolver.for_path(paths[0] if paths else ".")
        return resolver

    def _over(self, config: Config) -> Config:
        return config if self.overrides is None else self.overrides.apply(config)

    def for_folder(self, folder: str, names=None) -> Config:
        """`folder`'s Config; `names`, when given, the lowered names of `folder`'s own listing
        (discovery has it: no config file is looked for there that it does not hold)."""
        if self.fixed:
            return self.base
        known = self._folders.get(folder)  # discovery asks of each folder it lists, then of each file's
        if known is not None:
            return known
        seen = []
        config = self.base
        for each in walk_up(folder):
            known = self._folders.get(each)
            if known is not None:
                config = known
                break
            seen.append(each)
            found = self._config_of(each, names if each == folder else None)
            if found is not None:
                config = found
                break
        for each in seen:
            self._folders[each] = config
        return config

    def for_path(self, path: str) -> Config:
        """The Config of a file (its folder's) or of a folder (its own)."""
        return self.for_folder(_start_folder(path))

    def for_file(self, path: str) -> Config:
        """The Config of a file discovery found (its folder's): no stat to tell it from a folder."""
        return self.for_folder(os.path.dirname(os.path.abspath(path)))

    def _config_of(self, folder: str, names=None) -> Config | None:
        """The Config of `folder`'s own config file (CONFIG_FILES, in order), skipping one that
        cannot be read; None when it has none."""
        for name in CONFIG_FILES:
            if names is not None and name not in names:
                continue
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                config = self._load(candidate)
                if config is not None:
                    return config
        return None

    def _load(self, path: str) -> Config | None:
        if path in self._loaded:
            return self._loaded[path]
        try:
            data = self._document(path)
        except UnreadableConfig as exc:
            if _at_or_above(os.path.dirname(path), os.getcwd()):
                raise  # the project's own config, where the run stands: not to be guessed past
            self.warnings.append(f"{exc}; ignored: its folder uses the closest config above it")
            config = None
        else:
            found = None if data is None else _config_from(data, path)
            config = None if found is None else self._over(found)
        self._loaded[path] = config
        return config

    @staticmethod
    def _document(path: str) -> dict | None:
        """The TOML of a config file, or None for a pyproject.toml below the current folder that
        cannot hold the table (`may_hold_section`): another tool's file, whose TOML no setting
        depends on, is not parsed, nor warned about when it is not TOML (agent-framework's 42
        packages each have one: 28 % of its discovery's instructions, issue 37). At or above
        the current folder a pyproject.toml is the project's own, read whole: a broken one
        stops the run."""
        if os.path.basename(path) != "pyproject.toml" or _at_or_above(os.path.dirname(path), os.getcwd()):
            return _load_toml(path)
        raw = _read_config(path)
        return _load_toml(path, raw) if may_hold_section(raw) else None

    @property
    def configs(self) -> list:
        """Every Config this run has used so far, the run's own first."""
        out = [self.base]
        for config in self._folders.values():
            if all(config is not other for other in out):
                out.append(config)
        return out
