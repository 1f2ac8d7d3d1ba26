"""Layout: the project's line length (found as ruff finds it), review comments wrapped to it,
the file's indent unit, the oldest Python the project declares (for the syntax a fix writes),
and whether its pytest configuration already ignores every DeprecationWarning (a test module
then needs no mark accepting the deprecations' warnings: core.fix.accept_deprecation).
The project's configuration is read per folder once per project view (core.project_view), and
afresh without one."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import libcst as cst

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.toml_files import parsed_toml

DEFAULT_LINE_LENGTH = 88


def wrap_comment(text: str, width: int) -> list:
    """A `# ...` comment as lines within `width`: the first keeps its marker form, the rest
    continue it as `#   ...`."""
    body = text[1:].strip() if text.startswith("#") else text
    lines = textwrap.wrap(body, width=max(width - 4, 40), break_long_words=False, break_on_hyphens=False)
    return [f"# {lines[0]}", *(f"#   {line}" for line in lines[1:])] if lines else [text]


def line_length(path: str, view=None) -> int:
    """The project's line length, found the way ruff finds its configuration: the nearest
    folder with `.ruff.toml`, `ruff.toml` or a pyproject.toml wins ([tool.ruff], else
    [tool.black] there); 88, ruff's and black's default, when none says. Kept per folder in
    `view` (a core.project_view.ProjectView) when given."""
    try:
        start = Path(path).resolve().parent
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    return _per_folder(view, "line length", start, _configured_length)


def _per_folder(view, table: str, folder: Path, compute):
    """`compute(folder)`, kept in the view's `table` when there is a view."""
    if view is None:
        return compute(folder)
    known = view.table(table)
    if folder not in known:
        known[folder] = compute(folder)
    return known[folder]


#: Per folder, in ruff's order of precedence: (file name, the tables that may hold line-length).
_LENGTH_SOURCES = (
    (".ruff.toml", ((),)),
    ("ruff.toml", ((),)),
    ("pyproject.toml", (("tool", "ruff"), ("tool", "black"))),
)


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
        data = parsed_toml(config.read_text(encoding="utf-8"))
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


def python_floor(path: str, view=None) -> tuple | None:
    """The oldest Python the project declares, as (major, minor): the nearest pyproject.toml's
    `requires-python` lower bound, else ruff's `target-version` (`py39`) in the nearest ruff
    config; None when nothing says."""
    try:
        start = Path(path).resolve().parent
    except (OSError, ValueError):
        return None
    return _per_folder(view, "python floor", start, _floor_in)


def _floor_in(folder: Path) -> tuple | None:
    for candidate in (folder, *folder.parents):
        for name in (".ruff.toml", "ruff.toml", "pyproject.toml"):
            config = candidate / name
            if not config.is_file():
                continue
            try:
                data = parsed_toml(config.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            project = data.get("project", {}) if name == "pyproject.toml" else {}
            requires = project.get("requires-python") if isinstance(project, dict) else None
            if isinstance(requires, str):
                found = re.search(r"(?:>=|~=|==|>)\s*(\d+)\.(\d+)", requires)
                if found:
                    return int(found.group(1)), int(found.group(2))
            ruff = data.get("tool", {}).get("ruff", {}) if name == "pyproject.toml" else data
            target = ruff.get("target-version") if isinstance(ruff, dict) else None
            if isinstance(target, str) and re.fullmatch(r"py3\d+", target):
                return 3, int(target[3:])
    return None


def union_types_run(path: str, module: cst.Module, view=None) -> bool:
    """Whether `X | None` in an annotation evaluated at definition time runs on every Python
    the project declares: a module with `from __future__ import annotations`, or a floor of
    3.10 or newer (or none declared)."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name):
                    if small.module.value == "__future__" and not isinstance(small.names, cst.ImportStar):
                        if any(getattr(a.name, "value", None) == "annotations" for a in small.names):
                            return True
    floor = python_floor(path, view)
    return floor is None or floor >= (3, 10)


def without_form_feed_indent(module: cst.Module) -> cst.Module:
    """LibCST takes the first indented line's whitespace, form feed included, for the file's
    indent unit; a block the fix adds would then nest as "\\f    \\f    ", which Python rejects.
    The unit without form feeds (the original's form feeds are copied back by exact_output)."""
    if "\f" not in module.default_indent:
        return module
    return module.with_changes(default_indent=module.default_indent.replace("\f", "") or "    ")


#: pytest's configuration files, in the order it looks in each folder: (name, section).
_PYTEST_CONFIGS = (
    ("pytest.ini", "pytest"),
    ("pyproject.toml", None),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)
#: A filter that ignores every DeprecationWarning (openmcp-python's pyproject): the mark adds nothing.
_IGNORES_ALL = lazy_compile(r"^\s*ignore::DeprecationWarning\s*$")


def ignores_deprecations(path: str, view=None) -> bool:
    """Whether the pytest configuration that governs `path` (the nearest folder holding one, as
    pytest finds it) already ignores every DeprecationWarning."""
    if not path:
        return False
    try:
        start = Path(path).resolve().parent
    except (OSError, ValueError):
        return False
    return _per_folder(view, "pytest ignores deprecations", start, _ignores_in)


def _ignores_in(folder: Path) -> bool:
    for candidate in (folder, *folder.parents):
        for name, section in _PYTEST_CONFIGS:
            filters = _filters(candidate / name, section)
            if filters is not None:
                return any(_IGNORES_ALL.match(entry) for entry in filters)
    return False


def _filters(config: Path, section: str | None) -> list | None:
    """The `filterwarnings` entries of a pytest configuration file, or None where the file
    holds no pytest configuration (pytest goes on looking)."""
    if not config.is_file():
        return None
    try:
        text = config.read_text(encoding="utf-8")
        if section is None:
            options = parsed_toml(text).get("tool", {}).get("pytest", {}).get("ini_options")
            if not isinstance(options, dict):
                return None
            value = options.get("filterwarnings", [])
            return [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
    except (OSError, ValueError, AttributeError):
        return None
    return _ini_filters(text, section)


def _ini_filters(text: str, section: str) -> list | None:
    """`_filters` of an INI file's text (pytest.ini, tox.ini, setup.cfg)."""
    import configparser  # here: a project without one never loads it (8 M instructions of a check with previews)

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except (ValueError, AttributeError, configparser.Error):
        return None
    if not parser.has_section(section):
        return None
    return parser.get(section, "filterwarnings", fallback="").splitlines()
