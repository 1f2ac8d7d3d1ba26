"""No input takes the run down (issue 14, items 1, 2, 3, 5 and 12): a file too deeply nested
for LibCST's native parser is reported (E998) and costs only itself, deep but ordinary code is
fixed, the public API never raises, implicit concatenation costs linear time, a file over
`max-file-size` is reported (E997), and valid code the parser lacks is not called a syntax error."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcp_migrate import check_source, fix_source
from mcp_migrate.api import default_settings, fix_bytes, rule_previews
from mcp_migrate.core import codes, nesting, syntax
from mcp_migrate.core.nesting import MAX_DEPTH, measure
from mcp_migrate.core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
#: An RT004 finding with a safe fix: every file below passes the gate and is parsed.
HEAD = (
    "from mcp import ClientSession\n\n\n"
    "async def run(session: ClientSession) -> None:\n"
    "    await session.send_roots_list_changed()\n\n\n"
)

DEEP = {
    "parens": "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n",
    "plus": "x = " + " + ".join(["a"] * 8000) + "\n",
    "attributes": "x = a" + ".b" * 20000 + "\n",
}


def codes_of(findings) -> list:
    return [f.code for f in findings]


def _run(code: str, *args, cwd=None) -> subprocess.CompletedProcess:
    """Python in a child process, so a parser crash fails the test instead of ending the run."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


# --- item 1: a file the parser would crash on costs only that file ---------------------------
def test_deeply_nested_input_is_reported_not_parsed():
    """2,000 nested parentheses, an 8,000-term `+` chain and a 20,000-attribute chain used to
    kill the process (SIGSEGV in LibCST's parser): each is now an E998 finding, in check and fix."""
    code = textwrap.dedent(
        """
        import sys
        from mcp_migrate import check_source, fix_source
        for body in sys.argv[2:]:
            src = sys.argv[1] + body
            print(*[f.code for f in check_source(src)], fix_source(src) == src)
        """
    )
    result = _run(code, HEAD, *DEEP.values())
    assert result.returncode == 0, (result.returncode, result.stderr[-500:])
    assert result.stdout.splitlines() == ["E998 True"] * len(DEEP), result.stdout


def test_the_nesting_limit_is_cpythons():
    """Nothing CPython compiles is skipped for its brackets: CPython itself refuses more than
    200 nested brackets ("too many nested parentheses")."""
    fits = "x = " + "(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH + "\n"
    compile(fits, "fits.py", "exec")
    assert measure(fits.encode()).problem() is None
    deeper = "x = " + "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1) + "\n"
    with pytest.raises(SyntaxError):
        compile(deeper, "deeper.py", "exec")
    assert "201 nested brackets" in measure(deeper.encode()).problem()


def _tree(source: str):
    """`ast` of `source` under a recursion limit deep enough for a 3,001-link chain (the
    engine's screens read a file on the main thread, where such a chain has no tree)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return ast.parse(source)
    finally:
        sys.setrecursionlimit(limit)


#: Small statements whose brackets and operators, counted over the whole file, could reach a
#: limit: `measure` scans every byte, `within_limits` counts each statement's.
MANY = "".join(f"def f{i}(a, b):\n    return (a + b) * [a - b] - {{a: b}}\n\n\n" for i in range(300))
CHAIN = "x = " + " + ".join(["a"] * (nesting.MAX_CHAIN + 2)) + "\n"  # 3,001 operators


def test_a_file_of_small_statements_is_shown_within_the_limits_without_the_scan(monkeypatch):
    """A huge module's statements are each far from a limit: counting each one's bytes shows it
    (issue 37: a gateway's 897 KB admin module cost 0.75 s of scanning, for nothing)."""
    assert nesting._could_exceed(MANY.encode())
    scanned = []
    monkeypatch.setattr(nesting, "_scan", lambda data: scanned.append(data) or nesting.Nesting())
    assert nesting.within_limits(MANY.encode(), ast.parse(MANY))
    assert scanned == []


def test_the_engine_measures_a_module_from_its_screen_tree(monkeypatch):
    """The check hands the screens' tree to the nesting guard: a large module that passes the
    screens is not scanned, and its findings are the same."""
    scanned = []
    scan = nesting._scan
    monkeypatch.setattr(nesting, "_scan", lambda data: scanned.append(data) or scan(data))
    assert codes_of(check_source(HEAD + MANY)) == ["RT004"]
    assert scanned == []
    assert codes_of(check_source(HEAD + MANY + CHAIN)) == ["E998"]


@pytest.mark.parametrize("screen", [lambda syntax: True, None], ids=["screened", "assumed"])
def test_a_module_a_rule_follows_is_measured_from_its_screen_tree(monkeypatch, screen):
    """A helper module a rule reads alone (file_effects.rule_alone) is shown within the limits
    from the tree its syntax screen read, not scanned byte by byte (a gateway's 572 KB main
    module: 0.12 s); read without a screen, it is scanned, and one over a limit is refused."""
    from mcp_migrate.rules.rt001_roots_request import RootsRequest
    from mcp_migrate.vocabulary.file_effects import rule_alone

    scanned = []
    scan = nesting._scan
    monkeypatch.setattr(nesting, "_scan", lambda data: scanned.append(data) or scan(data))
    settings = default_settings()
    assert rule_alone("helpers.py", MANY.encode(), settings, RootsRequest, screen) is not None
    assert len(scanned) == (screen is None)
    assert rule_alone("deep.py", (MANY + CHAIN).encode(), settings, RootsRequest, screen) is None


@pytest.mark.parametrize(
    "source",
    [
        CHAIN,
        MANY + "class C:\n    def g(self):\n        pass\n\n    def h(self):\n        " + CHAIN,
        MANY + "def g(\n    a=" + CHAIN[4:-1] + ",\n):\n    pass\n",
    ],
    ids=["top level", "a method's statement", "a function's header"],
)
def test_a_statement_over_a_limit_is_not_shown_within_them(source):
    """The statement that could reach a limit, alone or inside a class's method, is scanned:
    `within_limits` says "not shown" and `measure` finds the chain, as before."""
    assert not nesting.within_limits(source.encode(), _tree(source))
    assert nesting.measure(source.encode()).problem() == "an expression chains 3001 operators (the limit is 3000)"


@pytest.mark.parametrize("end", ["\\\n", "\\\r\n"])
def test_a_statement_on_a_continued_line_leaves_the_file_to_the_scan(end):
    """A line after a backslash continuation does not start at bracket depth 0 for the scanner's
    counts: no statement is split there."""
    source = MANY + "y = 1 " + end + "; z = 2\nw = 3\n"
    tree = ast.parse(source)
    assert tree.body[-2].lineno == tree.body[-3].lineno + 1  # `z = 2` starts on the continued line
    assert not nesting.within_limits(source.encode(), tree)


def test_a_lone_carriage_return_leaves_the_file_to_the_scan():
    """Python's parser ends a line at a lone `\\r`; the offsets count `\\n` only."""
    source = MANY.replace("\n\n\n", "\r\r\r")
    assert not nesting.within_limits(source.encode(), ast.parse(source))


def test_the_guard_skips_no_fixture():
    """The nesting guard never skips real code: no fixture, golden file or rule example."""
    skipped = [
        str(path)
        for path in sorted((ROOT / "fixtures").rglob("*"))
        if path.is_file() and path.suffix in (".py", ".fixed") and measure(path.read_bytes()).problem()
    ]
    assert skipped == []


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_deep_file_does_not_stop_the_cli(tmp_path, command):
    """The CLI (one process, -j 1) reports the deep file and still reports and fixes the others."""
    (tmp_path / "deep.py").write_text(HEAD + DEEP["parens"])
    (tmp_path / "client.py").write_text(HEAD)
    cli = "from mcp_migrate.commands.cli import main; main()"
    result = _run(cli, command, "--output-format", "concise", "-j", "1", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "deep.py:1:1: E998 not analysed: too deeply nested for the parser\n" in result.stdout
    if command == "check":
        assert "client.py:5:11: RT004" in result.stdout
    else:
        assert "send_roots_list_changed" not in (tmp_path / "client.py").read_text()


def _crash_on_marker(item):
    """A worker that dies the way a parser crash kills it, on one file only."""
    from mcp_migrate.run.one_file import check_file

    if item[0].path.endswith("crash.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return check_file(item)


def test_a_dead_pool_worker_costs_one_file(tmp_path):
    """A worker killed (SIGSEGV from the parser, SIGKILL from the OOM killer) used to break the
    pool, and the whole run was redone in the main process, where the same crash ends
    everything. Now the files of the unfinished batches run again one process each: the
    crashing one is E998, every other is reported. Run in a child process: a regression kills
    that process, not the test run."""
    for index in range(12):
        (tmp_path / ("crash.py" if index == 6 else f"client_{index}.py")).write_text(HEAD)
    code = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        sys.path.insert(0, sys.argv[2])
        from test_robustness import _crash_on_marker
        from mcp_migrate.run import schedule
        from mcp_migrate.api import default_settings
        from mcp_migrate.project.discovery import SourceFile

        schedule.POOL_THRESHOLD = 4
        paths = sorted(Path(sys.argv[1]).glob("*.py"))
        items = [(SourceFile(str(p), p.name), default_settings()) for p in paths]
        for result in schedule.run_items(items, jobs=2, func=_crash_on_marker):
            print(result.path, *[f"{f.code}:{f.message}" for f in result.findings], sep="|")
        """
    )
    result = _run(code, str(tmp_path), str(Path(__file__).parent))
    assert result.returncode == 0, (result.returncode, result.stderr[-500:])
    rows = dict(line.split("|", 1) for line in result.stdout.splitlines())
    assert len(rows) == 12
    crashed = rows.pop("crash.py")
    assert crashed.startswith("E998:not analysed: the process analysing this file crashed (signal SIGKILL)")
    assert all(found.startswith("RT004:") and "|" not in found for found in rows.values()), rows


def test_a_crashed_fix_file_is_a_fix_outcome(tmp_path):
    """The fix path gets a FixOutcome for the crashed file, so the writer and report go on."""
    from mcp_migrate.project.discovery import SourceFile
    from mcp_migrate.run.one_file import fix_file
    from mcp_migrate.run.pool import _crashed
    from mcp_migrate.run.records import FixOutcome

    outcome = _crashed(fix_file, (SourceFile(str(tmp_path / "a.py"), "a.py"), default_settings(), False), -11)
    assert isinstance(outcome, FixOutcome)
    assert codes_of(outcome.result.findings) == ["E998"]


# --- item 2: every phase handles what the parser accepted ------------------------------------
ORDINARY_DEEP = {
    "elif": "if a:\n    pass\n" + "elif a:\n    pass\n" * 400,
    "concatenation": "x = (\n" + "    'a'\n" * 500 + ")\n",
    "plus": "x = " + " + ".join(["a"] * 350) + "\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ORDINARY_DEEP))
def test_fix_handles_deep_ordinary_code(name):
    """A 400-branch elif chain, 500 lines of implicit concatenation and a 350-term `+` chain
    raised RecursionError in fix (the recursion limit was restored before the edits ran)."""
    source = HEAD + ORDINARY_DEEP[name]
    assert codes_of(check_source(source)) == ["RT004"]
    fixed = fix_source(source)
    assert "send_roots_list_changed" not in fixed
    compile(fixed, "fixed.py", "exec")
    result = fix_bytes(source.encode(), "x.py")
    assert result.errors == [] and result.applied == [("RT004", 5, "fix")]
    assert rule_previews(source.encode(), "x.py", default_settings())


# --- item 3: the public API never raises -----------------------------------------------------
KEYWORD_TOUCHING = (
    "from mcp.types import Root\n\n\n"
    "def root_for(path):\n"
    "    return Root(uri=f'file://{path}')\n\n\n"
    "def uri(path):\n"
    '    return"file://%s" % path\n'
)


def test_a_replacement_after_a_keyword_without_space_is_parenthesised():
    """`return"file://%s" % path` made fix_source(unsafe=True) raise CSTValidationError."""
    fixed = fix_source(KEYWORD_TOUCHING, unsafe=True, suggestions=True)  # RT102: display-only
    assert "    return(Path(path).absolute().as_uri())\n" in fixed
    compile(fixed, "fixed.py", "exec")
    assert fix_source(fixed, unsafe=True, suggestions=True) == fixed


def test_an_internal_error_in_fix_is_part_of_the_result(monkeypatch):
    """fix_source returns its input unchanged; fix_bytes says why, with the findings."""
    from mcp_migrate.core.fix import loop as fixer

    def boom(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(fixer, "_apply_pass", boom)
    assert fix_source(HEAD) == HEAD
    result = fix_bytes(HEAD.encode(), "x.py")
    assert result.fixed_source is None
    assert codes_of(result.findings) == ["RT004"]
    assert [(e.code, e.message) for e in result.errors] == [
        ("internal", "fix raised ValueError: boom; file left untouched")
    ]


def test_the_engine_codes_are_said_once():
    """Every unfiltered code has a name and summary in codes.FILE_CODES and a README row."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = {code for code, _, _ in codes.FILE_CODES}
    assert set(codes.UNFILTERED_CODES) == named
    for code, name, _ in codes.FILE_CODES[2:]:
        assert f"| `{code}` | {name} |" in readme


# --- item 5: linear literals, bounded file size ----------------------------------------------
def test_implicit_concatenation_is_evaluated_once(monkeypatch):
    """Each piece of a concatenation is evaluated a bounded number of times (it was evaluated
    once per enclosing ConcatenatedString: 3,000 lines took 145 s)."""
    calls = []
    real = syntax._simple_value
    monkeypatch.setattr(syntax, "_simple_value", lambda node: calls.append(1) or real(node))
    pieces = 300
    source = HEAD + "x = (\n" + '    "roots/"\n' * pieces + ")\n"
    assert codes_of(check_source(source)) == ["RT004"]
    assert len(calls) <= 2 * pieces


def test_a_file_over_max_file_size_is_reported_not_parsed():
    settings = Settings(select=default_settings().select, max_file_size=100)
    (finding,) = check_source(HEAD, settings=settings)
    assert (finding.code, finding.name) == ("E997", "file-too-large")
    assert finding.message == f"not analysed: {len(HEAD.encode())} bytes is over max-file-size (100 bytes)"
    assert codes_of(check_source(HEAD, settings=Settings(select=settings.select, max_file_size=0))) == ["RT004"]


def test_max_file_size_is_a_config_key(tmp_path):
    from mcp_migrate.project.config import ConfigError, parse_section
    from mcp_migrate.project.selection import selection_for

    config = parse_section({"max-file-size": 1000}, None)
    assert selection_for(config, None, None).settings_for(str(tmp_path / "a.py")).max_file_size == 1000
    assert default_settings().max_file_size == codes.DEFAULT_MAX_FILE_SIZE == 4 * 1024 * 1024
    for bad in (-1, "4MB", True):
        with pytest.raises(ConfigError, match="max-file-size"):
            parse_section({"max-file-size": bad}, None)


# --- item 12: say what cannot read the file ---------------------------------------------------
def test_valid_code_the_parser_lacks_is_not_a_syntax_error():
    compile("(y): int = 0\n", "valid.py", "exec")
    (finding,) = check_source(HEAD + "(y): int = 0\n")
    assert finding.code == "E998"
    assert finding.message == "not analysed: valid Python the parser does not support"
    assert finding.help.startswith("LibCST's parser says: ")


@pytest.mark.parametrize("extra", ['x = "a\\x00b"\n'.replace("\\x00", "\x00"), "type X = int\n"])
def test_input_this_python_cannot_compile_is_still_fixed(extra):
    """NUL bytes and 3.12 syntax: the fix is verified by the parser that read the input."""
    result = fix_bytes((HEAD + extra).encode(), "x.py")
    assert result.errors == []
    assert result.fixed_source is not None and extra.encode() in result.fixed_source


#: The fuzz test's case (a fixture with a form feed and an `if True:` block spliced in): LibCST
#: refuses its indentation, Python's parser accepts it, Python's compiler does not.
DOES_NOT_COMPILE = b'\x0cif True:\n    """An app\'s own root registry, in a module that also serves MCP (like mcp-context-forge)."""\n    from dataclasses import dataclass, field\n\n    from mcp.server.fastmcp import Context, FastMCP\n\n    mcp = FastMCP("gateway")\n\n\n    @dataclass\n    class RootService:\n        roots: list[str] = field(default_factory=list)\n\n        async def list_roots(self) -> list[str]:\n            return list(self.roots)\n\n\n    def list_roots() -> list[str]:\n        return ["/srv/data"]\n\n\n    service = RootService(["/srv/a"])\n\n\n    @mcp.tool()\n    async def configured_roots(ctx: Context) -> list[str]:\n        await ctx.info("listing configured roots")\n        mine = await service.list_roots()\nif True:\n    \x0c        return mine + list_roots()\n\n\n        class Admin:\n            def __init__(self, svc: RootService) -> None:\n                self.svc = svc\n\n            async def show(self) -> list[str]:\n                return await self.svc.list_roots()\n'


def test_code_that_parses_but_does_not_compile_is_a_syntax_error_not_a_parser_limit():
    """`return` outside a function passes Python's parser and fails its compiler: the file is
    invalid (E999 with Python's message), not valid code LibCST lacks (E998)."""
    findings = check_source(DOES_NOT_COMPILE, "f.py")
    assert [(f.code, f.line, f.message) for f in findings] == [("E999", 30, "cannot parse: 'return' outside function")]
