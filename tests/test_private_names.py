"""Which private definitions a run lets go with the fixes that leave them unread
(run.private_names), and that the decision survives the results cache (a warm run decides as a
cold one)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core.findings import FileResult
from mcp_migrate.project.cache_codec import _checked_result, _result
from mcp_migrate.run.private_names import removable


def _readers(files: dict) -> list:
    return [(path, (lambda data=data: data)) for path, data in files.items()]


def test_a_name_spelled_only_in_its_own_file_may_go():
    files = {"a.py": b"def _answer(): ...\nH = {'roots/list': _answer}\n", "b.py": b"x = 1\n"}
    assert removable([("a.py", "_answer")], _readers(files)) == ((("a.py", "_answer"),), ())


def test_another_file_that_spells_the_name_keeps_it():
    """As an attribute, an import or in a string: any spelling as a word."""
    for spelling in (b"session._answer()\n", b"from a import _answer\n", b"getattr(s, '_answer')\n"):
        files = {"a.py": b"def _answer(): ...\n", "tests/test_a.py": spelling}
        assert removable([("a.py", "_answer")], _readers(files)) == ((), ())


def test_a_name_spelled_only_in_roots_tests_besides_may_go_with_them():
    """conduit's tests call `session._handle_roots_list_changed()` directly: where they are tests
    of the Roots behaviour (a test file with Roots findings), the name goes in the second tier,
    suggested with those tests; another file that spells it still keeps it."""
    files = {"a.py": b"def _answer(): ...\n", "tests/test_a.py": b"session._answer()\n"}
    tests = frozenset({"tests/test_a.py"})
    assert removable([("a.py", "_answer")], _readers(files), tests) == ((), (("a.py", "_answer"),))
    files["b.py"] = b"_answer()\n"
    assert removable([("a.py", "_answer")], _readers(files), tests) == ((), ())


def test_a_longer_name_is_not_a_spelling():
    files = {"a.py": b"def _answer(): ...\n", "b.py": b"_answer_cache = 1\nmy_answer = _answers\n"}
    assert removable([("a.py", "_answer")], _readers(files)) == ((("a.py", "_answer"),), ())


def test_an_unreadable_file_spells_every_name():
    def unreadable() -> bytes:
        raise PermissionError("b.py")

    readers = [("a.py", lambda: b"def _answer(): ...\n"), ("b.py", unreadable)]
    assert removable([("a.py", "_answer")], readers) == ((), ())


def test_two_files_with_the_same_private_name_keep_each_other():
    files = {"a.py": b"def _answer(): ...\n", "b.py": b"def _answer(): ...\n"}
    assert removable([("a.py", "_answer"), ("b.py", "_answer")], _readers(files)) == ((), ())


def test_no_candidate_reads_no_file():
    def never() -> bytes:
        raise AssertionError("read")

    assert removable([], [("a.py", never)]) == ((), ())


def test_the_notes_survive_the_results_cache():
    result = FileResult("a.py")
    result.notes.private_removals = ["_answer", "_handle"]
    again = _checked_result("a.py", json.loads(json.dumps(_result(result))))
    assert again.notes.private_removals == ["_answer", "_handle"]


PROVIDER = """from mcp import ClientSession
from mcp.types import ListRootsResult


class Host:
    def stdio(self, read, write):
        return ClientSession(read, write, list_roots_callback=self._list_roots)

    def http(self, read, write):
        return ClientSession(read, write, list_roots_callback=self._list_roots)

    async def _list_roots(self, context) -> ListRootsResult:
        return ListRootsResult(roots=[])
"""


def test_a_warm_run_decides_as_a_cold_one(tmp_path, monkeypatch):
    """The provider wired in twice goes with both wirings (suggested, as they are: the roots the
    method gives are unknown here), cold and warm; a second file naming it keeps it, warm too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "host.py").write_text(PROVIDER)

    def kinds() -> list:
        result = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
        return [(f["line"], f["fix"]) for f in json.loads(result.stdout)["findings"]]

    assert kinds() == [(7, "display"), (10, "display"), (12, "display")]
    assert kinds() == [(7, "display"), (10, "display"), (12, "display")]
    (tmp_path / "other.py").write_text("def f(host):\n    return host._list_roots\n")
    assert kinds() == [(7, "display"), (10, "display"), (12, "none")]
    assert kinds() == [(7, "display"), (10, "display"), (12, "none")]
    (tmp_path / "other.py").unlink()
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert "def _list_roots" not in (tmp_path / "host.py").read_text()
    assert "list_roots_callback=" not in (tmp_path / "host.py").read_text()


HOST_WITH_ROOTS = PROVIDER.replace("ListRootsResult(roots=[])", "ListRootsResult(roots=self.roots)")


def test_the_marker_names_where_the_roots_live_not_the_provider_that_goes(tmp_path, monkeypatch):
    """The wiring's review marker names `self.roots` (what the provider returned), which stays
    true after the provider itself goes with its wiring; a provider whose return reads its own
    locals is named as before."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "host.py").write_text(HOST_WITH_ROOTS)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    text = (tmp_path / "host.py").read_text()
    assert "def _list_roots" not in text
    assert text.count("# mcp-migrate: RT002 review: the roots came from `self.roots` at run time;") == 2
    local = PROVIDER.replace(
        "return ListRootsResult(roots=[])", "found = context.x\n        return ListRootsResult(roots=found)"
    )
    (tmp_path / "host.py").write_text(local)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert "the roots came from `self._list_roots`" in (tmp_path / "host.py").read_text()


SESSION = """from mcp import types


class Session:
    def __init__(self):
        self.roots = None
        self.handlers = {"notifications/roots/list_changed": self._handle_roots_list_changed}

    async def _handle_roots_list_changed(self, notification: types.RootsListChangedNotification) -> None:
        self.roots = None
"""

SESSION_TEST = """import asyncio

from mcp import types

from pkg.session import Session


def test_roots_list_changed_clears_the_cache():
    session = Session()
    session.roots = ["x"]
    asyncio.run(session._handle_roots_list_changed(types.RootsListChangedNotification()))
    assert session.roots is None


def test_other():
    assert Session().handlers is not None
"""


def test_a_private_handler_its_roots_tests_call_goes_with_them(tmp_path, monkeypatch):
    """conduit's tests call the private `_handle_roots_list_changed` directly: it used to keep no
    edit (another file spells it), so the code kept Roots and the tests waited for it. Where the
    only other spellings are in test files with Roots findings and the code is migrated once it
    goes, its removal is suggested and the test of it goes too: `fix --apply-suggestions` leaves
    no call of a deleted method, and nothing to report."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "session.py").write_text(SESSION)
    (tmp_path / "tests" / "test_session.py").write_text(SESSION_TEST)

    def kinds() -> list:
        result = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
        return [(f["path"], f["line"], f["code"], f["fix"]) for f in json.loads(result.stdout)["findings"]]

    expected = [
        ("pkg/session.py", 7, "RT005", "display"),
        ("pkg/session.py", 9, "RT005", "display"),
        ("tests/test_session.py", 11, "RT004", "display"),
    ]
    assert kinds() == expected
    assert kinds() == expected  # warm
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert "_handle_roots_list_changed" not in (tmp_path / "pkg" / "session.py").read_text()
    assert (tmp_path / "tests" / "test_session.py").read_text() == (
        "from pkg.session import Session\n\n\ndef test_other():\n    assert Session().handlers is not None\n"
    )
    assert kinds() == []
    (tmp_path / "pkg" / "other.py").write_text("def f(s):\n    return s._handle_roots_list_changed\n")
    (tmp_path / "tests" / "test_session.py").write_text(SESSION_TEST)
    (tmp_path / "pkg" / "session.py").write_text(SESSION)
    assert ("pkg/session.py", 9, "RT005", "none") in kinds()  # code outside the tests spells it


def test_the_names_other_files_import_from_a_fixed_file():
    """`from server import (A, B as C)`, relative and dotted spellings, comments dropped; a
    module whose name only starts the same (`serverless`), or a dotted path the file's path does
    not end with (`from mcp.client import` is not `examples/roots/client.py`: keeping its names
    left them unused there), is another module."""
    from mcp_migrate.run.reexports import imported_names

    files = {
        "server.py": b"from mcp.types import ClientCapabilities\n",
        "test_server.py": b"from server import find_root\nfrom server import (\n    Caps,  # c\n    Result as R,\n)\n",
        "pkg/__init__.py": b"",
        "other.py": b"from .pkg import Thing\nfrom a.b.server import Zed\nfrom serverless import No\n",
        "examples/roots/client.py": b"from mcp.client import Client\n",
        "examples/roots/run.py": b"from mcp.client import Session\nfrom .client import main\n",
        "src/app/server.py": b"",
        "src/app/cli.py": b"from app.server import serve\n",
    }
    fixed = ["server.py", "pkg/__init__.py", "examples/roots/client.py", "src/app/server.py"]
    assert imported_names(fixed, _readers(files)) == (
        ("examples/roots/client.py", "main"),
        ("pkg/__init__.py", "Thing"),
        ("server.py", "Caps"),
        ("server.py", "Result"),
        ("server.py", "find_root"),
        ("src/app/server.py", "serve"),
    )


REEXPORTING = """from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ClientCapabilities, ListRootsResult, RootsCapability

mcp = FastMCP("files")


@mcp.tool()
async def files(ctx: Context) -> list[str]:
    if not ctx.session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
        return []
    result: ListRootsResult = await ctx.session.list_roots()
    return [str(root.uri) for root in result.roots]
"""


def test_a_fix_keeps_the_imports_other_files_take_from_it(tmp_path, monkeypatch):
    """mcp-devtools' tests import `ClientCapabilities` and `ListRootsResult` from `server`: the
    server's fix no longer reads them, and removing their imports broke the whole test module
    (session 50's first look). What another file imports stays; the rest goes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(REEXPORTING)
    (tmp_path / "test_server.py").write_text(
        "from server import ClientCapabilities, ListRootsResult\n\n\ndef test_types():\n"
        "    assert ClientCapabilities and ListRootsResult\n"
    )
    CliRunner().invoke(cli, ["fix", "--unsafe-fixes", "."])
    fixed = (tmp_path / "server.py").read_text()
    assert "from mcp.types import ClientCapabilities, ListRootsResult\n" in fixed
    assert "RootsCapability" not in fixed
    (tmp_path / "server.py").write_text(REEXPORTING)
    (tmp_path / "test_server.py").unlink()
    CliRunner().invoke(cli, ["fix", "--unsafe-fixes", "."])
    assert "from mcp.types import" not in (tmp_path / "server.py").read_text()
