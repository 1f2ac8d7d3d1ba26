"""Which names other files of the run import from a file: a fix's import clean-up must not take
them away. mcp-devtools' tests do `from server import ClientCapabilities, ListRootsResult`; the
server's fix stopped using them and removed their imports, and the whole test module failed to
import (session 50's first look). An import another module takes a name from is in use, though
nothing in its own file reads it.

A plain byte search over the run's files, once per run and only for the files a fix may change:
`from <...>stem import a, b as c, (d, e)`, where `stem` is the module's file name (a package's
folder for `__init__.py`), and the module names that file: a relative module from the
importer's folder, an absolute one whose dotted path ends the file's path (`from mcp.client
import Client` is not `examples/roots/client.py`: keeping its names left them unused there). A file that cannot be read imports nothing (its imports are
unknown, and keeping every import of every fixed file for it would undo the clean-up). `import
server` followed by `server.Name` is not seen."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from mcp_migrate.core.line_scan import line_matches
from mcp_migrate.run.private_names import read_or_none


def imported_names(fixed: Iterable[str], readers: Iterable[tuple]) -> tuple:
    """(display path, name) for every name another file of the run imports from one of the
    `fixed` files (display paths). `readers`: (display path, a callable returning its bytes)."""
    search = Importers(fixed)
    if search.wanted:
        for path, read in readers:
            search.feed(path, read_or_none(read))
    return search.result()


class Importers:
    """The byte search of `imported_names`, fed one file at a time (run.coordination reads each
    file once for every search of the run's plan)."""

    def __init__(self, fixed: Iterable[str]) -> None:
        self.by_stem: dict = {}
        for path in sorted(set(fixed)):
            self.by_stem.setdefault(_stem(path), []).append(path)
        self.wanted = bool(self.by_stem)
        stems = b"|".join(re.escape(os.fsencode(stem)) for stem in sorted(self.by_stem))
        #: Unanchored, found where it begins a line (core.line_scan): `(?m)^[ \t]*from ...` made
        #: the regular expression engine try every position of every file of the run (issue 37:
        #: 48 ms of langroid's 438 files, for one fixed file).
        self.pattern = re.compile(
            rb"from[ \t]+(\.*(?:[\w.]*\.)?(?:" + stems + rb"))[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
        )
        self.found: set = set()

    def feed(self, importer: str, data: bytes | None) -> None:
        """A file of the run (None: it cannot be read, and imports nothing known)."""
        for match in line_matches(self.pattern, data or b""):
            module = os.fsdecode(match.group(1))
            targets = [p for p in self.by_stem.get(module.rsplit(".", 1)[-1], ()) if p != importer]
            targets = [p for p in targets if _names_file(module, importer, p)]
            for name in _names(match.group(2)) if targets else ():
                self.found.update((path, name) for path in targets)

    def result(self) -> tuple:
        return tuple(sorted(self.found))


def _names_file(module: str, importer: str, path: str) -> bool:
    """Whether `from <module> import` in the file `importer` can mean the file `path`: a relative
    module from the importer's folder; an absolute one whose dotted path ends the file's path
    (`mcp.client` is `.../mcp/client.py`, not `examples/roots/client.py`), or a bare name: a
    module beside the importer or in a folder above it (the script's folder and the project's
    root are where sys.path finds them: tests/test_server.py's `from server import` is the
    root's server.py)."""
    target = path.replace(os.sep, "/")
    target = target[: -len("/__init__.py")] if target.endswith("/__init__.py") else target.removesuffix(".py")
    dots = len(module) - len(module.lstrip("."))
    parts = [part for part in module[dots:].split(".") if part]
    if dots:
        folder = os.path.dirname(importer.replace(os.sep, "/"))
        for _ in range(dots - 1):
            folder = os.path.dirname(folder)
        wanted = "/".join([folder, *parts]) if folder else "/".join(parts)
        return os.path.normpath(target) == os.path.normpath(wanted)
    suffix = "/".join(parts)
    if len(parts) == 1:  # a bare name: a module beside the importer or in a folder above it
        home = os.path.dirname(target)
        folder = os.path.dirname(importer.replace(os.sep, "/"))
        return os.path.basename(target) == suffix and (not home or folder == home or folder.startswith(home + "/"))
    return target == suffix or target.endswith("/" + suffix)


def _stem(path: str) -> str:
    base = os.path.basename(path)
    if base == "__init__.py":
        return os.path.basename(os.path.dirname(path)) or base
    return base[:-3] if base.endswith(".py") else base


def _names(text: bytes) -> list:
    """The imported names of `a, b as c` or `(a,\\n b)`, comments dropped."""
    words = re.sub(rb"#[^\n]*", b"", text).strip(b"()\\ \t\n")
    out = []
    for part in words.split(b","):
        name = part.strip().split()[0] if part.strip() else b""
        if re.fullmatch(rb"[A-Za-z_]\w*", name):
            out.append(name.decode())
    return out
