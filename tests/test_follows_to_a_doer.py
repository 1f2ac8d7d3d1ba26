"""RT001's and RT004's import followers asked only where the file spells a name under which a
module they would read does what the rule reports (vocabulary.typed_doers.follows_to_a_doer,
issue 37): the walk's answer must cover every file `imports_a_doer` reads, the ones the walk
itself leaves out included (a project package named like the SDK, a submodule of a module file
or of a namespace package), and every name it finds a doer under (a re-export's own name, a
method of an imported class)."""

from __future__ import annotations

import textwrap

import pytest

from mcp_migrate.core.modules import may_have_submodules, module_file
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.vocabulary import imported_asks, typed_doers
from mcp_migrate.vocabulary.effects import ASKS, NOTIFIES
from mcp_migrate.vocabulary.imported_asks import imports_a_doer
from mcp_migrate.vocabulary.typed_doers import follows_to_a_doer

ASKER = """
async def get_dirs(ctx):
    return await ctx.list_roots()
"""
QUIET = """
def describe(dirs):
    return ", ".join(dirs)
"""


def _project(tmp_path, files: dict) -> str:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return str(tmp_path / "app.py")


def _both(path: str, effect: str = ASKS) -> tuple:
    data = open(path, "rb").read()
    return imports_a_doer(data, path, 0, ProjectView(), effect), follows_to_a_doer(data, path, ProjectView(), 0, effect)


#: Each a caller whose helper `imports_a_doer` finds outside the walk's own starts.
CASES = {
    "a package of the project named like the SDK": {
        "mcp/__init__.py": "",
        "mcp/dirs.py": ASKER,
        "app.py": "from mcp.dirs import get_dirs\n\nasync def tool(ctx):\n    return await get_dirs(ctx)\n",
    },
    "a helper re-exported from a package named like the SDK": {
        "mcp/__init__.py": "",
        "mcp/dirs.py": ASKER,
        "helpers.py": "from mcp.dirs import get_dirs\n",
        "app.py": "from helpers import get_dirs\n\nasync def tool(ctx):\n    return await get_dirs(ctx)\n",
    },
    "a submodule beside a module file of the same name": {
        "tools.py": QUIET,
        "tools/asker.py": ASKER,
        "app.py": "from tools import asker\n\nasync def tool(ctx):\n    return await asker.get_dirs(ctx)\n",
    },
    "a helper re-exported under another name": {
        "dirs.py": ASKER,
        "helpers.py": "from dirs import get_dirs as allowed_dirs\n",
        "app.py": "from helpers import allowed_dirs\n\nasync def tool(ctx):\n    return await allowed_dirs(ctx)\n",
    },
    "a method that asks, of a class imported from a package": {
        "kit/__init__.py": "from .client import Client\n",
        "kit/client.py": "class Client:\n    async def folders(self, ctx):\n        return await ctx.list_roots()\n",
        "app.py": "from kit import Client\n\nasync def tool(ctx):\n    return await Client().folders(ctx)\n",
    },
    "a submodule of a namespace package": {
        "ns/asker.py": ASKER,
        "app.py": "from ns import asker\n\nasync def tool(ctx):\n    return await asker.get_dirs(ctx)\n",
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_helper_the_walk_does_not_start_from_is_still_followed(tmp_path, case):
    assert _both(_project(tmp_path, CASES[case])) == (True, True)


#: Projects without a module that asks or sends, each a caller and what it imports.
QUIET_PROJECTS = {
    "helpers and a package": {
        "helpers.py": QUIET,
        "pkg/__init__.py": "from .more import describe\n",
        "pkg/more.py": QUIET,
        "app.py": "import helpers\nfrom pkg import describe\n\ndef tool(d):\n    return helpers.describe(describe(d))\n",
    },
    # fast-agent: `from mcp import ...` in a module beside the project's own `mcp/` package
    # resolves to it; the walk follows it instead of counting the module as able to do anything.
    "a package of the project named like the SDK, one import away": {
        "mcp/__init__.py": "from .dirs import describe\n",
        "mcp/dirs.py": QUIET,
        "helpers.py": "from mcp import describe\n",
        "app.py": "from helpers import describe\n\ndef tool(d):\n    return describe(d)\n",
    },
}


@pytest.mark.parametrize("case", sorted(QUIET_PROJECTS))
def test_a_project_whose_modules_hold_no_ask_is_not_searched_name_by_name(tmp_path, monkeypatch, case):
    app = _project(tmp_path, QUIET_PROJECTS[case])
    data = open(app, "rb").read()

    def searched(*args):
        raise AssertionError("imports_a_doer searched a project without a module that asks")

    monkeypatch.setattr(typed_doers, "imports_a_doer", searched)
    assert follows_to_a_doer(data, app, ProjectView(), 0, ASKS) is False
    assert follows_to_a_doer(data, app, ProjectView(), 0, NOTIFIES) is False


def test_a_file_naming_none_of_a_modules_askers_is_not_searched_name_by_name(tmp_path, monkeypatch):
    """The file imports from a module that asks, and reaches it through another, but spells
    neither the asking function nor its re-exported name: no name it imports can be a doer."""
    app = _project(
        tmp_path,
        {
            "helpers.py": ASKER + QUIET,
            "more.py": "from helpers import get_dirs as allowed\n",
            "app.py": "import more\nfrom helpers import describe\n\ndef tool(d):\n    return describe(d)\n",
        },
    )
    data = open(app, "rb").read()
    calls = []
    real = typed_doers.imports_a_doer
    monkeypatch.setattr(typed_doers, "imports_a_doer", lambda *a: calls.append(a[-1]) or real(*a))
    assert follows_to_a_doer(data, app, ProjectView(), 0, ASKS) is False
    assert calls == []
    spelled = data.replace(b"return describe(d)", b"return more.allowed(d)")
    assert follows_to_a_doer(spelled, app, ProjectView(), 0, ASKS) is True
    assert calls == [ASKS]


def test_a_helper_that_asks_one_import_away_is_searched_for(tmp_path, monkeypatch):
    app = _project(
        tmp_path,
        {
            "helpers.py": ASKER,
            "app.py": "from helpers import get_dirs\n\nasync def tool(ctx):\n    return await get_dirs(ctx)\n",
        },
    )
    calls = []
    real = typed_doers.imports_a_doer
    monkeypatch.setattr(typed_doers, "imports_a_doer", lambda *a: calls.append(a[-1]) or real(*a))
    data = open(app, "rb").read()
    assert follows_to_a_doer(data, app, ProjectView(), 0, ASKS) is True
    assert follows_to_a_doer(data, app, ProjectView(), 0, NOTIFIES) is False
    assert calls == [ASKS]  # the module asks, and sends no list_changed: only ASKS is searched


def test_a_module_file_has_submodules_only_beside_a_folder_of_its_name(tmp_path):
    app = _project(tmp_path, {"tools.py": QUIET, "other.py": QUIET, "tools/asker.py": ASKER, "app.py": ""})
    view = ProjectView()
    assert may_have_submodules(view, app, "tools")
    assert not may_have_submodules(view, app, "other")
    assert not may_have_submodules(view, app, "typing")
    assert may_have_submodules(view, app, ".tools")
    assert not may_have_submodules(view, app, ".other")
    assert may_have_submodules(view, app, ".")


def test_both_followers_of_one_file_walk_its_imports_once(tmp_path, monkeypatch):
    """RT001's and RT004's followers ask of the same file in turn: its imports are read and
    resolved once, with the files the search would follow beyond the walk's starts, and the
    second effect's gate walks nothing again."""
    app = _project(
        tmp_path,
        {
            "helpers.py": "import more\n" + QUIET,
            "more.py": QUIET,
            "app.py": "import os\nfrom helpers import describe\n",
        },
    )
    data = open(app, "rb").read()
    resolved, solved, statements = [], [], []
    real_resolved, real_solve = typed_doers._resolved, typed_doers._solve
    real_read = imported_asks.import_statements
    monkeypatch.setattr(typed_doers, "_resolved", lambda p, *a: resolved.append((p, a[-1])) or real_resolved(p, *a))
    monkeypatch.setattr(typed_doers, "_solve", lambda root, *a: solved.append(root) or real_solve(root, *a))
    monkeypatch.setattr(imported_asks, "import_statements", lambda d, *a: statements.append(d) or real_read(d, *a))
    view = ProjectView()
    assert follows_to_a_doer(data, app, view, 0, ASKS) is False
    walked = list(solved)
    assert follows_to_a_doer(data, app, view, 0, NOTIFIES) is False
    assert [bytes_ for path, bytes_ in resolved if path == app] == [data] and statements.count(data) == 1
    assert [root.rsplit("/", 1)[-1] for root in walked] == ["helpers.py"] and solved == walked


def test_the_types_are_read_only_where_a_module_reached_is_worth_asking_about(tmp_path, monkeypatch):
    app = _project(
        tmp_path,
        {
            "client.py": "from mcp.types import ListRootsResult\n\nclass Client:\n    def roots(self):\n        return 1\n",
            "app.py": "import mcp\nfrom client import Client\n\ndef tool():\n    return Client().roots()\n",
        },
    )
    data = open(app, "rb").read()
    read = []
    monkeypatch.setattr(typed_doers, "typed_classes", lambda *args: read.append(args[1]) or [])
    tokens = (b"list_roots", b"ListRoots")
    asked = []
    assert typed_doers.typed_module_files(data, app, ProjectView(), tokens, lambda f: asked.append(f) and False) == []
    assert asked == [str(tmp_path / "client.py")] and read == []
    typed_doers.typed_module_files(data, app, ProjectView(), tokens, lambda f: True)
    assert read == [app]


def test_a_file_s_folder_is_made_once_for_all_its_imports(tmp_path, monkeypatch):
    """The followers ask of each import of a file whether its submodules can have project files:
    the file's folder is made once, not once per import (issue 37: 7,000 of fast-agent's)."""
    from mcp_migrate.core import modules

    app = _project(tmp_path, {"tools.py": QUIET, "tools/asker.py": ASKER, "app.py": ""})
    made = []
    real = modules.os.path.normpath
    monkeypatch.setattr(modules.os.path, "normpath", lambda p: made.append(p) or real(p))
    view = ProjectView()
    assert [may_have_submodules(view, app, name) for name in ("tools", "typing", "json")] == [True, False, False]
    assert made.count(app) == 1


def test_the_names_a_file_imports_are_looked_up_from_its_folder_made_once(tmp_path, monkeypatch):
    """A file's path as a run gives it is relative to the working folder: each name it imports
    from a package was looked up with the path, and each made the folder again with a system
    call for the working folder (issue 37: 275 of mcp-cli's). The folder is made once."""
    from mcp_migrate.core import modules

    _project(tmp_path, {"pkg/__init__.py": "", "pkg/sub.py": QUIET, "app.py": ""})
    monkeypatch.chdir(tmp_path)
    data = b"from pkg import sub, other, third\n\nprint(sub.describe(other), third.x)\n"
    asked = []
    real = modules.os.getcwd
    monkeypatch.setattr(modules.os, "getcwd", lambda: asked.append(1) or real())
    assert not imports_a_doer(data, "app.py", 0, ProjectView(), ASKS)
    assert len(asked) == 1


def test_a_module_is_found_in_the_nearest_place_that_holds_it(tmp_path):
    _project(tmp_path, {"one/pkg/m.py": "", "one/src/pkg/m.py": "", "src/pkg/n.py": "", "one/app.py": ""})
    view = ProjectView()
    assert module_file(view, str(tmp_path / "one"), "pkg.m") == str(tmp_path / "one" / "pkg" / "m.py")
    assert module_file(view, str(tmp_path / "one"), "pkg.n") == str(tmp_path / "src" / "pkg" / "n.py")
    assert module_file(view, str(tmp_path / "one" / "src"), "pkg.m") == str(tmp_path / "one" / "src" / "pkg" / "m.py")
    assert module_file(view, str(tmp_path / "one"), "pkg.o") is None


def test_a_relative_path_is_asked_about_from_the_working_folder(tmp_path, monkeypatch):
    _project(tmp_path, {"one/app.py": "", "one/pkg/m.py": "", "two/app.py": "", "two/pkg/sub/m.py": ""})
    view = ProjectView()
    monkeypatch.chdir(tmp_path / "one")
    assert not may_have_submodules(view, "app.py", "pkg.sub")
    monkeypatch.chdir(tmp_path / "two")
    assert may_have_submodules(view, "app.py", "pkg.sub")


def test_the_files_of_one_folder_resolve_an_import_once(tmp_path, monkeypatch):
    """A module's file as a file imports it depends on the file's folder only: the files of
    one folder share the answer, relative and absolute (issue 37: fast-agent's followers asked
    of 16,978 (file, module) pairs, 5,736 (folder, module) ones)."""
    from mcp_migrate.core import modules

    _project(tmp_path, {"pkg/__init__.py": "", "pkg/tools.py": QUIET, "pkg/a.py": "", "pkg/b.py": "", "app.py": ""})
    looked: list = []
    real = modules._file_in
    monkeypatch.setattr(modules, "_file_in", lambda folder, module: looked.append(module) or real(folder, module))
    view = ProjectView()
    tools = str(tmp_path / "pkg" / "tools.py")
    for name in ("a.py", "b.py"):
        path = str(tmp_path / "pkg" / name)
        assert imported_asks.module_source(path, ".tools", view) == tools
        assert imported_asks.module_source(path, "pkg.tools", view) == tools
    assert looked == ["tools.x", "tools"]  # the relative import, looked for once
    assert imported_asks.module_source("", ".tools", view) is None  # no path, no relative import


def test_the_folders_of_a_package_share_where_a_module_is(tmp_path, monkeypatch):
    """Where `module_file` finds a module depends on the folders it looks in that name its top
    package, not on the asking folder: the folders that share them ask the file system once
    (issue 37: a check of fast-agent asked `isfile` 7,652 times, 3,696 since)."""
    from mcp_migrate.core import modules

    _project(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/m.py": "", "src/pkg/one/x.py": "", "src/pkg/two/y.py": ""})
    asked: list = []
    real = modules.os.path.isfile
    monkeypatch.setattr(modules.os.path, "isfile", lambda p: asked.append(p) or real(p))
    view = ProjectView()
    found = [module_file(view, str(tmp_path / "src" / "pkg" / sub), "pkg.m") for sub in ("one", "two")]
    assert found == [str(tmp_path / "src" / "pkg" / "m.py")] * 2
    assert asked == [str(tmp_path / "src" / "pkg" / "m.py")]


def test_a_name_that_is_no_submodule_is_answered_by_the_listings(tmp_path, monkeypatch):
    """A name imported from a package is most often a class or a function: the folder listings
    say it is no submodule, as Python's import finder reads them, with no `stat` (issue 37: 1,094
    failed ones in a check of mcp-cli). Only a listed name is asked whether it is a file or a
    folder: a folder named `x.py` is no module, a folder without `__init__.py` no package."""
    from mcp_migrate.core import modules

    _project(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/m.py": "",
            "src/pkg/sub/__init__.py": "",
            "src/pkg/bare/x.py": "",
            "src/pkg/odd.py/x.py": "",
            "app.py": "",
        },
    )
    asked: list = []
    for name in ("isfile", "isdir"):
        real = getattr(modules.os.path, name)
        monkeypatch.setattr(modules.os.path, name, lambda p, real=real: asked.append(p) or real(p))
    view = ProjectView()
    src = tmp_path / "src"
    for name in ("pkg.Klass", "pkg.sub.Klass", "pkg.m.Klass", "pkg.nothing.deeper"):
        assert module_file(view, str(tmp_path), name) is None
        assert not modules.folder_may_have_submodules(view, str(tmp_path), name)
    assert asked == []
    assert module_file(view, str(tmp_path), "pkg.bare") is None
    assert module_file(view, str(tmp_path), "pkg.odd") is None
    assert module_file(view, str(tmp_path), "pkg.m") == str(src / "pkg" / "m.py")
    assert module_file(view, str(tmp_path), "pkg.sub") == str(src / "pkg" / "sub" / "__init__.py")
    assert modules.folder_may_have_submodules(view, str(tmp_path), "pkg.bare")
    assert sorted(asked) == sorted(
        [str(src / "pkg" / "odd.py"), str(src / "pkg" / "m.py"), str(src / "pkg" / "sub" / "__init__.py")]
        + [str(src / "pkg" / "bare")]
    )


def test_the_folders_looked_in_from_a_folder_are_made_once(tmp_path, monkeypatch):
    """Every module asked for from one folder is looked for in the same places (the folder, its
    `src/`, its parents): they are made and listed once per folder, whatever the names asked
    (issue 37: 4,003 places made for the 78 folders of mcp-cli's files)."""
    from mcp_migrate.core import modules

    _project(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/m.py": "", "src/pkg/one/x.py": "", "lib/tool.py": ""})
    made: list = []
    real = modules._places
    monkeypatch.setattr(modules, "_places", lambda folder: made.append(folder) or real(folder))
    view = ProjectView()
    one = str(tmp_path / "src" / "pkg" / "one")
    assert module_file(view, one, "pkg.m") == str(tmp_path / "src" / "pkg" / "m.py")
    assert module_file(view, one, "lib.tool") == str(tmp_path / "lib" / "tool.py")
    assert module_file(view, one, "typing") is None
    assert modules.folder_may_have_submodules(view, one, "pkg") and not modules.folder_may_have_submodules(
        view, one, "lib.tool"
    )
    assert made == [one]


def test_the_names_a_file_imports_are_each_named_once():
    """A module imported in each of a test module's tests (`import json` twice, `m.X` thrice) is
    searched for once and each of its names looked up once (issue 37: a 1.26 MB test module's
    repeated plain imports were scanned, and each name looked up, once per import)."""
    data = (
        b"from pkg.a import A\nfrom pkg.a import A\ndef t1():\n    import pkg.m as m\n    m.X()\n" * 2 + b"m.X; m.Y\n"
    )
    imports = imported_asks.from_imports(data)
    plain = imported_asks.plain_imports(data)
    assert len(plain) == 2
    assert typed_doers._imported_names(data, imports, plain) == ["pkg.a.A", "pkg.m.X", "pkg.m.Y"]
