"""Where a file sits in its project: the module it is (from its package folders), the files
of the modules it imports, and relative imports made absolute. Read from the file system (an
`__init__.py` per package), each answer kept in the project view it is asked through
(core.project_view: a run's, never the process's); never imports anything."""

from __future__ import annotations

import os

from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.project_view import ProjectView

#: How many folders up a project module is looked for from the importing file.
_MAX_UP = 8


def module_name(view: ProjectView, path: str) -> str | None:
    """The dotted module a file is (`src/pkg/roots/ops.py` -> `pkg.roots.ops`: package folders
    are those holding an `__init__.py`; a src layout's `src` holds none), or None without a
    path."""
    if not path or path.startswith("<"):
        return None
    full = os.path.abspath(path)
    known = view.table("module name")
    if full not in known:
        known[full] = _module_name(full)
    return known[full]


def _module_name(full: str) -> str | None:
    folder, name = os.path.split(full)
    stem = os.path.splitext(name)[0]
    parts = [] if stem == "__init__" else [stem]
    for _ in range(32):
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            break
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return ".".join(parts) or None


def is_package(path: str) -> bool:
    return os.path.basename(path) == "__init__.py"


def absolute(view: ProjectView, qualified: str, path: str) -> str | None:
    """`qualified` with a leading relative part (`.roots.Root`, `..mcp.types.X`) resolved
    against the module `path` is; an absolute name as it is; None when it cannot be."""
    if not qualified.startswith("."):
        return qualified
    here = module_name(view, path)
    if here is None:
        return None
    level = len(qualified) - len(qualified.lstrip("."))
    package = here.split(".") if is_package(path) else here.split(".")[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    rest = qualified[level:]
    return ".".join(base + ([rest] if rest else [])) or None


def module_file(view: ProjectView, directory: str, module: str) -> str | None:
    """The file of `module` in the project around `directory` (the calling file's): `<dir>/a/b.py`
    or `<dir>/a/b/__init__.py`, or the same under `<dir>/src/`, for that directory and its
    parents (kept in the view: a file calls many imported names, most of them from the same few
    modules or from no project file at all)."""
    known = view.table("module file")
    key = (directory, module)
    if key not in known:
        known[key] = _module_file(view, directory, module)
    return known[key]


def _module_file(view: ProjectView, directory: str, module: str) -> str | None:
    top = module.partition(".")[0]
    visible = _visible(view, directory)
    if visible is not None and top not in visible and top + ".py" not in visible:
        return None  # most names a file imports (`typing`, `httpx`) are in no folder looked in
    roots = _roots_naming(view, directory, (top, top + ".py"))  # listings answer before files are asked for
    known = view.table("module file, by the places looked in")
    key = (roots, module)
    found = known.get(key, _UNASKED)
    if found is _UNASKED:
        found = known[key] = _file_in_roots(view, roots, module)
    return found


def _file_in_roots(view: ProjectView, roots: tuple, module: str) -> str | None:
    """`module`'s file in the first of `roots` that has one. `_module_file` keeps it per roots
    and module, not per asking folder: the answer is the roots', and the folders of a package
    share theirs (issue 37: a check of fast-agent asked `isfile` 7,652 times, 3,696 since).
    The folder listings answer first (`_listed_folder`), as Python's own import finder reads
    them: a name imported from a package is most often a class or a function, not a submodule,
    and each of mcp-cli's cost two failed `stat`s (1,094 of them, issue 37); only a name the
    listing holds is asked of the file system, whether it is a file."""
    parts = module.split(".")
    last = parts[-1]
    for root in roots:
        folder = _listed_folder(view, root, parts[:-1])
        if folder is None:
            continue
        entries = _entries(view, folder)
        if last + ".py" in entries and os.path.isfile(full := os.path.join(folder, last + ".py")):
            return full
        if last in entries and "__init__.py" in _entries(view, package := os.path.join(folder, last)):
            if os.path.isfile(full := os.path.join(package, "__init__.py")):
                return full
    return None


def _listed_folder(view: ProjectView, root: str, parts: list) -> str | None:
    """The folder `root/part/part...` when each listing on the way holds the next part, else
    None (it does not exist, or cannot be listed: Python's import cannot find a module there
    either)."""
    folder = root
    for part in parts:
        if part not in _entries(view, folder):
            return None
        folder = os.path.join(folder, part)
    return folder


_UNASKED = object()


def _places(directory: str):
    """The folders `module_file` looks in from `directory`, in order: the package beside the
    directory, or in its `src/` (a src layout: tests/ and examples/ import `pkg` from
    `src/pkg`), then the same for each parent, `_MAX_UP` deep."""
    for _ in range(_MAX_UP):
        yield directory
        yield os.path.join(directory, "src")
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent


def may_have_submodules(view: ProjectView, path: str, module: str) -> bool:
    """Whether a submodule of `module` (`module.name`, as the file at `path` imports it:
    relative or absolute) can have a project file: its folder exists where `module_file` or,
    for a relative module, `imported_module_file` looks. A follower that resolves each name
    imported from a module as a submodule asks this once per module and folder instead (kept in
    the view, `folder_may_have_submodules`): a module file (`pkg/mod.py`) and a name outside
    the project have none."""
    return folder_may_have_submodules(view, file_folder(view, path), module)


def folder_may_have_submodules(view: ProjectView, directory: str, module: str) -> bool:
    """`may_have_submodules` for a file in `directory` (the absolute folder `file_folder`
    gives), kept per folder and module: a folder's files import the same modules, and a
    follower asks of every import of a file one after the other with its folder in hand."""
    known = view.table("module folder")
    key = (directory, module)
    found = known.get(key)
    if found is None:
        found = known[key] = (
            _relative_folder(directory, module) if module.startswith(".") else _folder(view, directory, module)
        )
    return found


def file_folder(view: ProjectView, path: str) -> str:
    """The folder of the file at `path`, kept in the view: its imports ask one after the other. A
    relative path's answer is kept per working folder (none for an absolute path): a process
    that changes folder, a test suite's runs, must not find a helper beside another folder's file."""
    cwd = "" if os.path.isabs(path) else os.getcwd()
    known = view.table("folder of a file")
    found = known.get((path, cwd))
    if found is None:  # `abspath` of the path made here: it would ask for the working folder again
        found = known[(path, cwd)] = os.path.dirname(os.path.normpath(os.path.join(cwd, path)))
    return found


def _relative_folder(directory: str, module: str) -> bool:
    """Whether the folder of a relative `module` imported from `directory` exists (every folder
    `imported_module_file` tries for its submodules is inside it; one of dots alone is a folder
    above the file's, which exists)."""
    level = len(module) - len(module.lstrip("."))
    for _ in range(level - 1):
        directory = os.path.dirname(directory)
    rest = module[level:]
    return not rest or os.path.isdir(os.path.join(directory, *rest.split(".")))


def _folder(view: ProjectView, directory: str, module: str) -> bool:
    """Whether the absolute `module` is a folder where `module_file` looks from `directory`."""
    top = module.partition(".")[0]
    visible = _visible(view, directory)
    if visible is not None and top not in visible:
        return False
    roots = _roots_naming(view, directory, (top,))
    known = view.table("module folder, by the places looked in")  # as `_module_file`
    key = (roots, module)
    found = known.get(key)
    if found is None:
        parts = module.split(".")
        found = known[key] = any(_is_listed_folder(view, root, parts) for root in roots)
    return found


def _is_listed_folder(view: ProjectView, root: str, parts: list) -> bool:
    """Whether `root/part/part...` is a folder, asked of the file system only where the listings
    on the way name it (`_file_in_roots`: on mcp-cli, 402 `isdir` calls, most of them failing)."""
    folder = _listed_folder(view, root, parts[:-1])
    return folder is not None and parts[-1] in _entries(view, folder) and os.path.isdir(os.path.join(folder, parts[-1]))


def _roots_naming(view: ProjectView, directory: str, names: tuple) -> tuple:
    """The folders `module_file` looks in from `directory` (`_places`, in order) whose listing
    holds one of `names`, kept per directory and names: a tree's files import many modules of
    the same top package, each of whose questions walked all the places again (issue 37:
    5,600 lookups, 0.2 s of fast-agent's import followers)."""
    known = view.table("folders naming")
    key = (directory, names)
    found = known.get(key)
    if found is None:
        found = known[key] = tuple(
            root for root, entries in _listed_places(view, directory) if any(name in entries for name in names)
        )
    return found


def _listed_places(view: ProjectView, directory: str) -> tuple:
    """(folder, its listing) for each folder `module_file` looks in from `directory` (`_places`),
    kept per directory: each name a directory's files import made the places again, with the
    joins and `dirname`s that make them (issue 37: 4,003 places made for the 78 folders of
    mcp-cli's files; 18 M of its 1,397 M instructions)."""
    known = view.table("places listed")
    found = known.get(directory)
    if found is None:
        found = known[directory] = tuple((root, _entries(view, root)) for root in _places(directory))
    return found


#: `_visible` gives up past this many names (a site-packages folder): the walk answers there.
_MAX_VISIBLE = 4096


def _visible(view: ProjectView, directory: str) -> frozenset | None:
    """The names in every folder `module_file` looks in from `directory` (it and its `src/`, and
    the same for its parents, `_MAX_UP` deep): a module whose top name is not among them has no
    project file, whatever the rest of its name. None past `_MAX_VISIBLE` names."""
    known = view.table("visible names")
    if directory not in known:
        known[directory] = _visible_names(view, directory)
    return known[directory]


def _visible_names(view: ProjectView, directory: str) -> frozenset | None:
    names: set = set()
    for _, entries in _listed_places(view, directory):
        names.update(entries)
        if len(names) > _MAX_VISIBLE:
            return None
    return frozenset(names)


def _entries(view: ProjectView, directory: str) -> frozenset:
    """The names in a folder (empty when it cannot be listed), listed once per view."""
    known = view.table("folder entries")
    found = known.get(directory)
    if found is None:
        try:
            found = frozenset(os.listdir(directory))
        except OSError:
            found = frozenset()
        known[directory] = found
    return found


def imported_module_file(view: ProjectView, path: str, qualified: str) -> str | None:
    """The project file a name imported by the file at `path` comes from (`.roots.Root` or
    `pkg.roots.Root` -> `.../pkg/roots.py`), trying the name as a module and as a member of
    one; None outside the project."""
    if not path or path.startswith("<"):
        return None
    directory = os.path.dirname(os.path.abspath(path))
    if qualified.startswith("."):
        return relative_module_file(directory, qualified)
    for candidate in (qualified, qualified.rpartition(".")[0]):
        if candidate:
            found = module_file(view, directory, candidate)
            if found:
                return found
    return None


def relative_module_file(directory: str, qualified: str) -> str | None:
    """`imported_module_file` of a relative name (`.roots.Root`, `..mcp.types`) imported by a
    file in `directory`: it depends on the folder only."""
    level = len(qualified) - len(qualified.lstrip("."))
    folder = directory
    for _ in range(level - 1):
        folder = os.path.dirname(folder)
    rest = qualified[level:]
    for candidate in (rest, rest.rpartition(".")[0]):
        if candidate:
            found = _file_in(folder, candidate)
            if found:
                return found
    return None


def _file_in(folder: str, module: str) -> str | None:
    relative = module.replace(".", os.sep)
    for candidate in (relative + ".py", os.path.join(relative, "__init__.py")):
        full = os.path.join(folder, candidate)
        if os.path.isfile(full):
            return full
    return None


def from_imports(node) -> list:
    """(bound name, module as written with its leading dots, imported name) for each name an
    `ast.ImportFrom` statement binds (`from ..guards import within as inside` -> `("inside",
    "..guards", "within")`; a star binds none): the one reading of a from-import that the
    project's types, the effects summary and RT103's lookups across modules share."""
    module = "." * node.level + (node.module or "")
    return [(alias.asname or alias.name, module, alias.name) for alias in node.names if alias.name != "*"]


#: A module pytest would collect or configure (`test_*.py`, `*_test.py`, `conftest.py`), or one
#: under a `tests`/`test` folder: test code.
_TEST_MODULE = lazy_compile(r"(?:^|[\\/])(?:tests?[\\/].*|test_[^\\/]*\.py|[^\\/]*_test\.py|conftest\.py)$")


def in_test_code(path: str) -> bool:
    """Test code. A request a test builds by hand is the input it hands the code under test, not
    a server asking (issue 35 §3); a fix there would gut the test of the Roots behaviour it
    checks, so it is only suggested (issue 36 §4, core.engine)."""
    return bool(path) and _TEST_MODULE.search(path.replace("\\", "/")) is not None
