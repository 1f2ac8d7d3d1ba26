"""One fix plan whatever the flags (issue 20 §1): the run-level coordination is decided once,
before any file is fixed, from the whole run's findings, so a fixture tree comes out the same
whatever the order of the runs (`fix` then `fix --unsafe-fixes`, or the unsafe run alone), the
order of the files, and however often fix runs; `--unsafe-fixes` only adds fixes; and what
`check` calls fixable is what each `fix` command changes."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core.gates import client_side

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: Every fixture folder, and the run-plan trees of fixtures/plan/ one by one (a server that
#: still asks whatever the flags; one that `--unsafe-fixes` migrates).
TREES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "plan") + sorted(
    f"plan/{p.name}" for p in (FIXTURES / "plan").iterdir() if p.is_dir()
)
SAFE, UNSAFE = [], ["--unsafe-fixes"]
#: Sequences of fix runs that must all leave the same tree as the unsafe run alone.
ORDERS = {
    "unsafe": [UNSAFE],
    "safe-then-unsafe": [SAFE, UNSAFE],
    "unsafe-twice": [UNSAFE, UNSAFE],
    "unsafe-then-safe": [UNSAFE, SAFE],
    "safe-twice-then-unsafe": [SAFE, SAFE, UNSAFE],
}


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def tree(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def copy(name: str, tmp_path: Path, label: str) -> Path:
    dest = tmp_path / label / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def python_files(root: Path) -> list:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def after(root: Path, runs: list, files=None) -> dict:
    for flags in runs:
        run("fix", "--exit-zero", "-q", *flags, *(files or ["."]))
    return tree(root)


@pytest.mark.parametrize("name", TREES)
def test_every_order_of_runs_leaves_one_tree(name, tmp_path, monkeypatch):
    results = {}
    for label, runs in ORDERS.items():
        root = copy(name, tmp_path, label)
        monkeypatch.chdir(root)
        results[label] = after(root, runs)
    # Files named in reverse order, and the flag before the command's other options.
    root = copy(name, tmp_path, "reversed")
    monkeypatch.chdir(root)
    results["files-reversed"] = after(root, [["--unsafe-fixes"]], list(reversed(python_files(root))))
    first = results["unsafe"]
    different = [label for label, files in results.items() if files != first]
    assert different == [], f"{name}: {different} differ from the unsafe run alone"


@pytest.mark.parametrize("name", TREES)
def test_safe_runs_agree_and_unsafe_only_adds(name, tmp_path, monkeypatch):
    """Plain `fix` twice is plain `fix` once, and what plain `fix` changes in a file the unsafe
    run changes too (it may only add)."""
    once = copy(name, tmp_path, "once")
    monkeypatch.chdir(once)
    safe = after(once, [SAFE])
    twice = copy(name, tmp_path, "twice")
    monkeypatch.chdir(twice)
    assert after(twice, [SAFE, SAFE]) == safe
    original = tree(FIXTURES / name)
    unsafe_root = copy(name, tmp_path, "unsafe")
    monkeypatch.chdir(unsafe_root)
    unsafe = after(unsafe_root, [UNSAFE])
    for path, data in safe.items():
        if data != original[path]:
            assert unsafe[path] != original[path], f"{name}/{path}: fixed by `fix`, untouched by `--unsafe-fixes`"


def _fixable(root: Path, unsafe: bool) -> Counter:
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--output-format", "json", "."))
    kinds = ("safe", "unsafe") if unsafe else ("safe",)
    return Counter((f["path"], f["code"]) for f in doc["findings"] if f["fix"] in kinds)


def _findings(root: Path, *, unmarked: bool = False) -> Counter:
    """(path, code) of every finding; with `unmarked`, only those without a review marker of
    their code right above their line (a marker-only fix leaves its finding: issue 22)."""
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--output-format", "json", "."))
    out = Counter()
    for f in doc["findings"]:
        if f["code"] == "RT901":
            continue
        if unmarked:
            lines = (root / f["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
            above = lines[max(0, f["line"] - 6) : f["line"] - 1]
            if any(line.strip().startswith(f"# mcp-migrate: {f['code']} review:") for line in above):
                continue
        out[(f["path"], f["code"])] += 1
    return out


@pytest.mark.parametrize("unsafe", [False, True], ids=["fix", "fix-unsafe"])
@pytest.mark.parametrize("name", TREES)
def test_check_calls_fixable_exactly_what_fix_changes(name, unsafe, tmp_path, monkeypatch):
    """Every finding `check` calls fixable with a command is gone after that command (or, for a
    marker-only fix, marked for review), and no finding is new. (A finding check calls not
    fixable may still go with the code another fix removes: a stale suppression, a handler's
    def with its registration.)"""
    root = copy(name, tmp_path, "work")
    monkeypatch.chdir(root)
    before = _findings(root)
    fixable = _fixable(root, unsafe)
    run("fix", "--exit-zero", "-q", *(UNSAFE if unsafe else SAFE), ".")
    assert _findings(root, unmarked=True) - (before - fixable) == Counter()
    assert _findings(root) - before == Counter()


def _kinds(tree: str, monkeypatch) -> dict:
    monkeypatch.chdir(FIXTURES / tree)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--output-format", "json", "."))
    return {(f["path"], f["line"], f["code"]): (f["fix"], f["help"]) for f in doc["findings"]}


def test_a_withheld_fix_is_not_fixable_and_says_why(monkeypatch):
    """A server that still asks whatever the flags: the client side's fixes are reported as not
    fixable but as suggestions (the removal is still the migration's edit, issue 36 §3), each
    help saying which server keeps them (issue 20 §1)."""
    kinds = _kinds("plan/held", monkeypatch)
    reason = (
        "a suggestion while a server in this run still asks for roots, in server.py: its legacy clients need this; "
    )
    held = {key[2]: value for key, value in kinds.items() if key[0] != "server.py"}
    assert set(held) == client_side()  # the pages saying `side = "client"`: RT002-RT006
    assert all(kind == "display" and help_text.startswith(reason) for kind, help_text in held.values())


def test_a_fix_only_unsafe_frees_is_reported_as_unsafe(monkeypatch):
    """A server the unsafe rewrite migrates: the client's safe removals wait for `--unsafe-fixes`
    (plain `fix` leaves the server asking), and say so."""
    kinds = _kinds("plan/freed", monkeypatch)
    note = "fixed only by `mcp-migrate fix --unsafe-fixes`, which also migrates the server in server.py that still asks for roots; "
    freed = sorted(code for (_path, _line, code), (kind, help_text) in kinds.items() if help_text.startswith(note))
    assert sorted(set(freed)) == sorted(client_side())  # (a handler's def goes with its registration's fix)
    assert all(kinds[key][0] == "unsafe" for key in kinds if kinds[key][1].startswith(note))


def test_security_rewrites_are_display_only(tmp_path, monkeypatch):
    """RT102 and RT103 rewrites are suggestions (issue 20 §4): `check` shows them, `fix` never
    applies them (not even with `--unsafe-fixes`), the summary does not count them, and the
    migration report says where to read them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.py").write_text("import mcp\n\n\ndef path_of(root):\n    return root.uri.replace('file://', '')\n")
    doc = json.loads(run("check", "--output-format", "json", "--exit-zero", "s.py"))
    assert [(f["code"], f["fix"]) for f in doc["findings"]] == [("RT102", "display")]
    shown = run("check", "--output-format", "full", "--exit-zero", "s.py")
    assert (
        "= suggestion (applied only by `mcp-migrate fix --apply-suggestions`" in shown
        and "+     return url2pathname(" in shown
    )
    assert "fixable" not in shown.splitlines()[-1]
    before = (tmp_path / "s.py").read_bytes()
    run("fix", "--unsafe-fixes", "--exit-zero", "s.py")
    assert (tmp_path / "s.py").read_bytes() == before
    run("check", "--exit-zero", "--report", "r.md", "s.py")
    assert "(suggested rewrite, applied only by `fix --apply-suggestions`" in (tmp_path / "r.md").read_text()


HELD_CLIENT_TAKEN = '''"""A client that provides roots, declares them and notifies when they change."""
from mcp import ClientSession
from mcp.types import ClientCapabilities

CAPABILITIES = ClientCapabilities()


async def run(read, write) -> None:
    # mcp-migrate: RT002 review: pass these directories to the server as tool
    #   arguments or in its configuration (env/args): "/srv/data"
    async with ClientSession(read, write) as session:
        await session.initialize()
'''
HELD_PROXY_TAKEN = '''"""A proxy that refreshes its cache when a client's roots change."""
from mcp.server.lowlevel import Server

server = Server("proxy")
'''


def test_apply_suggestions_takes_the_held_removals_and_plain_fix_does_not(tmp_path, monkeypatch):
    """`fix --apply-suggestions` applies the suggestions `check` shows (issue 36 §3): the client
    side's removals held while a server still asks. Without the flag the client files stay
    byte-identical; with it they are migrated, and a second run changes nothing."""
    tree = tmp_path / "held"
    shutil.copytree(FIXTURES / "plan" / "held", tree)
    monkeypatch.chdir(tree)
    before = {p.name: p.read_bytes() for p in tree.iterdir()}
    run("fix", "--unsafe-fixes", ".")
    assert (tree / "client.py").read_bytes() == before["client.py"]
    assert (tree / "proxy.py").read_bytes() == before["proxy.py"]
    run("fix", "--unsafe-fixes", "--apply-suggestions", ".")
    assert (tree / "client.py").read_text() == HELD_CLIENT_TAKEN
    assert (tree / "proxy.py").read_text() == HELD_PROXY_TAKEN
    after = {p.name: p.read_bytes() for p in tree.iterdir()}
    run("fix", "--unsafe-fixes", "--apply-suggestions", ".")
    assert {p.name: p.read_bytes() for p in tree.iterdir()} == after


HOST = """from mcp import ClientSession
from mcp.types import ListRootsResult, Root


class Host:
    def __init__(self, read, write, roots: list[str]):
        self.roots = roots
        self.session = ClientSession(read, write, list_roots_callback=self._handle_list_roots)

    async def _handle_list_roots(self, context) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=f"file://{r}") for r in self.roots])

    async def add_root(self, path: str) -> None:
        self.roots.append(path)
        await self.session.send_roots_list_changed()
"""


def test_a_file_that_keeps_providing_roots_keeps_its_list_changed_send(tmp_path, monkeypatch):
    """Issue 36 §1, the first-look review's gptme diff: the provider's removal would leave the
    public `roots`/`add_root` plumbing without effect, so it is only suggested; the same file's
    list_changed send then goes with it (a suggestion too) instead of being cut alone, which
    would leave legacy servers with stale roots. `fix --unsafe-fixes` changes nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "host.py").write_text(HOST)
    doc = json.loads(run("check", "--no-cache", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."))
    got = [(f["line"], f["code"], f["fix"]) for f in doc["findings"]]
    # The private provider goes with its wiring, as a suggestion (no other file of the run names
    # it: run.private_names); the public setter `add_root` is deprecated, as a suggestion.
    assert got == [(8, "RT002", "display"), (10, "RT002", "display"), (11, "RT102", "display"),
                   (13, "RT002", "display"), (15, "RT004", "display")]  # fmt: skip
    # The send is part of `add_root`, which the suggestions deprecate: it keeps working with it.
    assert doc["findings"][-1]["help"].startswith(
        "it goes with the fix of the RT002 finding on line 13, which deprecates `add_root`"
    )
    run("fix", "--unsafe-fixes", ".")
    assert (tmp_path / "host.py").read_text() == HOST
    # Another file of the run names the private provider (a test calls it): it is left alone.
    (tmp_path / "test_host.py").write_text("def test_answer(host):\n    assert host._handle_list_roots\n")
    doc = json.loads(
        run(
            "check", "--no-cache", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "host.py", "test_host.py"
        )
    )
    assert [(f["line"], f["fix"]) for f in doc["findings"] if f["line"] == 10] == [(10, "none")]


HELPER_SERVER = """from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("s")


async def _directories(ctx: Context) -> list[str]:
    result = await ctx.session.list_roots()
    return [str(root.uri) for root in result.roots]


@mcp.tool()
async def count(ctx: Context) -> int:
    return len(await _directories(ctx))
"""


def test_a_caller_of_a_helper_that_asks_does_not_keep_roots():
    """The tool's call of the helper is reported (and later joined into the helper's finding);
    it goes with the helper's edit, so the file keeps no Roots behaviour of its own and the
    run may let its Roots tests go in the same run (telegram-mcp took two runs before)."""
    from mcp_migrate.api import default_settings
    from mcp_migrate.run import analysis

    result = analysis.check(HELPER_SERVER.encode(), "server.py", default_settings())
    kinds = sorted((f.line, f.fix) for f in result.findings if f.code == "RT001")
    assert kinds[0][1] != "none" and any(fix == "none" for _, fix in kinds[1:])  # the caller
    assert result.notes.keeps_roots is False


def test_apply_suggestions_hands_the_directories_to_a_suggested_tool_s_tests(tmp_path, monkeypatch):
    """A tool whose rewrite is only suggested (its request sits in a recovering `try:`) and the
    project's tests that give it roots (DevNarrate's shape, issue 36 §4: tests move with the code
    they test). `fix --unsafe-fixes` changes nothing; `check` shows each test's hand-over as a
    suggestion saying which command takes it; `fix --apply-suggestions` migrates the tool and
    its tests together: the tests pass the directories their roots gave (a factory's argument, a
    nested callback's closure), and the callbacks go. A second run changes nothing."""
    tree = tmp_path / "suggested"
    shutil.copytree(FIXTURES / "plan" / "suggested", tree)
    monkeypatch.chdir(tree)
    before = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")}
    run("fix", "--unsafe-fixes", ".")
    assert {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")} == before
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--output-format", "json", "."))
    handed = [
        (f["line"], f["column"], f["fix"]) for f in doc["findings"] if f["code"] == "RT002" and f["fix"] != "none"
    ]
    # the callbacks' defs (lines 18 and 39) go with the arguments' removals
    assert handed == [(18, 15, "display"), (28, 43, "display"), (39, 15, "display"), (42, 43, "display")]
    note = (
        "a suggestion while a server in this run still asks for roots, in server.py: its legacy clients need this;"
        " `mcp-migrate fix --apply-suggestions` applies it with the suggested rewrite of that server; "
    )
    assert all(f["help"].startswith(note) for f in doc["findings"] if f["code"] == "RT002" and f["fix"] != "none")
    run("fix", "--unsafe-fixes", "--apply-suggestions", ".")
    assert (tree / "tests" / "test_server.py").read_text() == SUGGESTED_TESTS_TAKEN
    assert "directories: Annotated[" in (tree / "server.py").read_text()
    after = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")}
    run("fix", "--unsafe-fixes", "--apply-suggestions", ".")
    assert {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")} == after


SUGGESTED_TESTS_TAKEN = '''"""The tool end to end, through the SDK's in-memory client."""

import pytest
from mcp.shared.memory import create_connected_server_and_client_session as create_session

from server import mcp as server_mcp


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_counts_every_entry(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    async with create_session(server_mcp) as client:
        result = await client.call_tool(
            "count_entries", {"directories": [str(tmp_path)]}
        )
        assert result.content[0].text == "2"


@pytest.mark.anyio
async def test_counts_matching_entries(tmp_path):
    (tmp_path / "notes.md").write_text("n")
    (tmp_path / "main.py").write_text("m")
    repo = str(tmp_path)

    async with create_session(server_mcp) as client:
        result = await client.call_tool(
            "count_entries", {"pattern": ".py", "directories": [repo]}
        )
        assert result.content[0].text == "1"
'''


def test_a_tool_s_own_directory_parameter_is_the_way_in_and_its_tests_pass_it(tmp_path, monkeypatch):
    """The roots only filled in the tool's own `repo_path` when a caller left it out (DevNarrate's
    tools): `fix --unsafe-fixes` keeps the tool's no-roots answer instead of adding a second
    directory parameter (issue 36 §1), and the project's tests that gave roots now pass
    `repo_path` (issue 36 §4), applied with it in the same run: the test still checks the same
    tool on the same folder. `check` calls every one of those fixes fixable with
    `--unsafe-fixes`; a second run changes nothing."""
    tree = tmp_path / "reused"
    shutil.copytree(FIXTURES / "plan" / "reused", tree)
    monkeypatch.chdir(tree)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    kinds = sorted((f["path"], f["line"], f["code"], f["fix"]) for f in doc["findings"] if f["code"].startswith("RT00"))
    assert kinds == [
        ("server.py", 17, "RT001", "unsafe"),
        ("tests/test_server.py", 18, "RT002", "unsafe"),  # goes with line 28's fix
        ("tests/test_server.py", 28, "RT002", "unsafe"),
        ("tests/test_server.py", 39, "RT002", "unsafe"),  # goes with line 42's fix
        ("tests/test_server.py", 42, "RT002", "unsafe"),
    ]
    run("fix", "--unsafe-fixes", ".")
    assert (tree / "server.py").read_text() == REUSED_SERVER_TAKEN
    assert (tree / "tests" / "test_server.py").read_text() == REUSED_TESTS_TAKEN
    after = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")}
    run("fix", "--unsafe-fixes", ".")
    assert {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")} == after


REUSED_SERVER_TAKEN = '"""A repository tool: it takes the repository\'s path, or asks the client for its roots."""\n\nimport os\nfrom typing import Optional\n\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("repo-tools")\n\n\n@mcp.tool()\nasync def count_entries(pattern: str = "", repo_path: Optional[str] = None) -> str:\n    """Count the repository\'s top-level entries whose name contains `pattern`."""\n    try:\n        if repo_path is None:\n            return "error: no repository path given and no roots"\n        names = [name for name in os.listdir(repo_path) if pattern in name]\n        return str(len(names))\n    except Exception as exc:\n        return f"error: {exc}"\n'

REUSED_TESTS_TAKEN = '"""The tool end to end, through the SDK\'s in-memory client."""\n\nimport pytest\nfrom mcp.shared.memory import create_connected_server_and_client_session as create_session\n\nfrom server import mcp as server_mcp\n\n\n@pytest.fixture\ndef anyio_backend():\n    return "asyncio"\n\n\n@pytest.mark.anyio\nasync def test_counts_every_entry(tmp_path):\n    (tmp_path / "a.txt").write_text("a")\n    (tmp_path / "b.txt").write_text("b")\n    async with create_session(server_mcp) as client:\n        result = await client.call_tool("count_entries", {"repo_path": str(tmp_path)})\n        assert result.content[0].text == "2"\n\n\n@pytest.mark.anyio\nasync def test_counts_matching_entries(tmp_path):\n    (tmp_path / "notes.md").write_text("n")\n    (tmp_path / "main.py").write_text("m")\n    repo = str(tmp_path)\n\n    async with create_session(server_mcp) as client:\n        result = await client.call_tool(\n            "count_entries", {"pattern": ".py", "repo_path": repo}\n        )\n        assert result.content[0].text == "1"\n'


CALLER_SERVER = 'from pathlib import Path\n\nfrom mcp import types\nfrom mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP("sandbox")\n_stale = False\n\n\nasync def _on_roots_changed(_notification: types.RootsListChangedNotification) -> None:\n    global _stale\n    _stale = True\n\n\nmcp._mcp_server.notification_handlers[types.RootsListChangedNotification] = _on_roots_changed\n\n\nasync def _client_roots(ctx: Context) -> list[Path]:\n    result = await ctx.session.list_roots()\n    return [Path(root.uri.path) for root in result.roots]\n\n\n@mcp.tool()\nasync def list_files(ctx: Context) -> list[str]:\n    return [str(p) for root in await _client_roots(ctx) for p in root.iterdir()]\n'


def test_a_caller_of_a_rewritten_helper_does_not_hold_the_run(tmp_path, monkeypatch):
    """A tool calls a helper that asks; the run rewrites the helper's request. The tool's call
    (a caller's finding, joined to the helper's) asks only through the helper, so the file's
    list_changed handler goes in the same run instead of waiting for a second one (djinnvim,
    session 48's first look: issue 36 §5, one run converges)."""
    (tmp_path / "server.py").write_text(CALLER_SERVER)
    monkeypatch.chdir(tmp_path)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    assert [(f["line"], f["code"], f["fix"]) for f in doc["findings"] if f["code"].startswith("RT00")] == [
        (10, "RT005", "unsafe"),
        (15, "RT005", "unsafe"),
        (19, "RT001", "unsafe"),
    ]
    run("fix", "--unsafe-fixes", ".")
    once = (tmp_path / "server.py").read_text()
    assert "_on_roots_changed" not in once and "list_roots" not in once
    run("fix", "--unsafe-fixes", ".")
    assert (tmp_path / "server.py").read_text() == once


def test_a_reason_is_said_once_in_a_help():
    """The engine withholds a client-side fix under the run's plan and says why; the run's
    coordination of `check` says it again for the same finding: python-sdk's story client
    read "a suggestion while a server in this run still asks ..." twice (session 51)."""
    from mcp_migrate.core.coordination import with_note

    once = with_note("give the server its directories", "held")
    assert once == "held; give the server its directories"
    assert with_note(once, "held") == once
    assert with_note("held", "held") == "held"
    assert with_note(once, "other") == "other; held; give the server its directories"


#: The help every held server rewrite of fixtures/plan/caller starts its reason with.
CALLER_HELD = (
    "only suggested here: client.py calls its tool `{tool}` and still gives roots, its fix withheld while a"
    " server in legacy.py and 1 more file still asks: rewritten now, the tool would no longer get the"
    " directories that client gives)"
)


def test_a_server_rewrite_waits_for_the_client_that_calls_its_tool(tmp_path, monkeypatch):
    """python-sdk's roots story (session 51's suites): its server's tool took a required
    `directories`, while its client, whose fix waits for the SDK's other servers, kept calling
    `call_tool("show_roots", {})` with roots: four story tests failed after
    `fix --unsafe-fixes`. A rewrite of a tool (a new parameter, or a setting the server-config
    rewrite reads) that a client of the run calls while its fix is withheld is held with it, as
    a suggestion; `--apply-suggestions` takes both, the call passing the directories."""
    tree = tmp_path / "caller"
    shutil.copytree(FIXTURES / "plan" / "caller", tree)
    monkeypatch.chdir(tree)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    servers = {(f["path"], f["line"]): (f["fix"], f["help"]) for f in doc["findings"] if f["code"] == "RT001"}
    assert sorted(servers) == [("legacy.py", 11), ("lowlevel.py", 15), ("server.py", 10)]
    for key, tool in ((("server.py", 10), "listing"), (("lowlevel.py", 15), "show")):
        kind, help_text = servers[key]
        assert kind == "display"
        assert help_text.endswith(CALLER_HELD.format(tool=tool)), help_text
    before = {p.name: p.read_bytes() for p in tree.glob("*.py")}
    run("fix", "--unsafe-fixes", ".")
    assert {p.name: p.read_bytes() for p in tree.glob("*.py")} == before
    run("fix", "--apply-suggestions", ".")
    client = (tree / "client.py").read_text()
    assert 'await session.call_tool("listing", {"directories": ["/srv/data"]})' in client
    assert "list_roots" not in (tree / "server.py").read_text()
    assert all((tree / name).read_bytes() != data for name, data in before.items())


def test_a_server_rewrite_no_client_of_the_run_calls_goes_ahead(tmp_path, monkeypatch):
    """The hold follows the call, not a name: the same client calling another tool leaves the
    server's rewrite applied by `fix --unsafe-fixes`."""
    tree = tmp_path / "caller"
    shutil.copytree(FIXTURES / "plan" / "caller", tree)
    client = tree / "client.py"
    client.write_text(client.read_text().replace('"listing"', '"other"').replace('"show"', '"another"'))
    monkeypatch.chdir(tree)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    kinds = {f["path"]: f["fix"] for f in doc["findings"] if f["code"] == "RT001"}
    assert kinds == {"legacy.py": "display", "lowlevel.py": "unsafe", "server.py": "unsafe"}
    run("fix", "--unsafe-fixes", ".")
    assert "list_roots" not in (tree / "server.py").read_text()
    assert "list_roots" not in (tree / "lowlevel.py").read_text()


MARKED_CLIENT = '''"""A client of the listing tool that also serves a tool only a reviewer can rewrite."""
from mcp import ClientSession
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ListRootsResult, Root

mcp = FastMCP("marked")


async def provide(context) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri="file:///srv/data")])


async def run(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=provide) as session:
        await session.call_tool("listing", {})


@mcp.tool()
async def echo(ctx: Context) -> str:
    result = await ctx.session.list_roots()
    return str(result)
'''


def test_a_review_marker_stays_a_marker_under_the_suggestions_plan(tmp_path, monkeypatch):
    """A client file checked again under the plan of `fix --apply-suggestions` (that plan gives
    `listing` its parameter) shows its edits as suggestions; its review marker is no edit and
    stays a marker (python-sdk's test servers read "display" once the story's server was held)."""
    tree = tmp_path / "caller"
    shutil.copytree(FIXTURES / "plan" / "caller", tree)
    (tree / "marked.py").write_text(MARKED_CLIENT)
    monkeypatch.chdir(tree)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    kinds = sorted((f["line"], f["code"], f["fix"]) for f in doc["findings"] if f["path"] == "marked.py")
    assert kinds == [(9, "RT002", "display"), (14, "RT002", "display"), (20, "RT001", "marker")]


MARKED_SERVER = '''"""A server whose request no rewrite may touch: it still asks once the suggestions are applied."""
import asyncio

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("gathered")


@mcp.tool()
async def files(ctx: Context) -> list[str]:
    result, _ = await asyncio.gather(ctx.session.list_roots(), asyncio.sleep(0))
    return [str(root.uri) for root in result.roots]
'''

GIVING_CLIENT = '''"""A client that gives roots, and notifies through its own helper."""
from mcp import ClientSession
from mcp.types import ListRootsResult, Root


async def provide(context) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri="file:///srv/data")])


async def run(read, write) -> None:
    async with ClientSession(read, write, list_roots_callback=provide) as session:
        await session.initialize()
        await notify(session)


async def notify(session) -> None:
    print("roots changed")
    await session.send_roots_list_changed()
'''


def test_apply_suggestions_leaves_a_client_whose_server_still_asks_after_them(tmp_path, monkeypatch):
    """The final review of session 52 (#01): `fix --apply-suggestions` removed a demo client's
    `roots=` while the demo's server, whose request only a human can rewrite, still asked: every
    call then failed. A client-side suggestion withheld while a server still asks once the
    suggestions are applied waits under that command too, and its help says so."""
    (tmp_path / "server.py").write_text(MARKED_SERVER)
    (tmp_path / "client.py").write_text(GIVING_CLIENT)
    monkeypatch.chdir(tmp_path)
    doc = json.loads(run("check", "--no-cache", "--exit-zero", "--unsafe-fixes", "--output-format", "json", "."))
    client = [f for f in doc["findings"] if f["path"] == "client.py"]
    assert client and all(f["fix"] == "display" for f in client)
    waits = "`fix --apply-suggestions` leaves it too, until that server no longer asks"
    assert all(waits in f["help"] for f in client if f["line"] == 11), client
    applies = "(`fix --apply-suggestions` applies it)"  # never said of what that command leaves
    assert not [f for f in client if applies in f["help"]], client
    left = json.loads(run("fix", "--apply-suggestions", "--output-format", "json", "."))
    assert "list_roots_callback=provide" in (tmp_path / "client.py").read_text()
    assert "# mcp-migrate: RT001 review:" in (tmp_path / "server.py").read_text()
    remaining = [f for f in left["findings"] if f["path"] == "client.py"]
    assert remaining and not [f for f in remaining if applies in f["help"]], remaining
