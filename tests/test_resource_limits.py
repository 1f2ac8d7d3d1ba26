"""Resource limits that could be bypassed (issue 23 §3): brackets inside f-string fields, a file
over `max-file-size` read before its size was known, a literal dense enough to cost gigabytes
under the byte limit, a folder tree deeper than Python's recursion limit.

The attacks run the CLI in a child process under a memory limit (RLIMIT_AS, 1 GiB: the deep
parser thread reserves half of it) and a timeout: before these fixes each one ran out of that
memory (the parser aborts the process) or took minutes; the tests check what is reported."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core import limits, project_view
from mcp_migrate.core.nesting import measure
from mcp_migrate.project import regular

resource = pytest.importorskip("resource")

#: An RT004 finding: every file below passes the gate and would be parsed.
HEAD = (
    "from mcp import ClientSession\n\n\n"
    "async def run(session: ClientSession) -> None:\n"
    "    await session.send_roots_list_changed()\n\n\n"
)
RT004 = "client.py:5:11: RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28 revision"
MEMORY = 1 << 30


def run_limited(cwd, *args, memory: int = MEMORY) -> subprocess.CompletedProcess:
    """`mcp-migrate ARGS` in a child process that may use `memory` bytes of address space."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    code = "from mcp_migrate.commands.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )


def concise_lines(result: subprocess.CompletedProcess) -> list:
    return [line for line in result.stdout.splitlines() if line]


# --- brackets inside f-string fields -------------------------------------------------------
FSTRING_DEPTHS = {
    "a field holding brackets": ('f"{' + "(" * 300 + "1" + ")" * 300 + '}"', 301),
    "a format spec's fields": ('f"{x:' + "{" * 300 + "1" + "}" * 300 + '}"', 301),
    "f-strings nested with one quote (PEP 701)": ('f"{' * 300 + "1" + '}"' * 300, 300),
    "a triple-quoted raw f-string": ('rf"""\\{' + "[" * 300 + "1" + "]" * 300 + '}"""', 301),
}


@pytest.mark.parametrize("name", sorted(FSTRING_DEPTHS))
def test_brackets_inside_fstring_fields_are_counted(name):
    """The guard read an f-string as one string token: 2,000 levels in 4 KB cost 25-45 s and
    3.3 GB, and under a memory limit the parser aborted the process."""
    expression, depth = FSTRING_DEPTHS[name]
    assert measure(f"y = {expression}\n".encode()).problem() == f"{depth} nested brackets (the limit is 200)"


@pytest.mark.parametrize(
    "expression",
    [
        'f"{{' + "(" * 300 + '}}"',  # doubled braces are text
        'f"\\N{' + "(" * 300 + '}"',  # so are the braces of a named escape
        '"{' + "(" * 300 + '}"',  # and a plain string's
        "f'{x!r:>8}' " + "'(" * 150 + "'",
    ],
)
def test_fstring_text_is_not_counted(expression):
    assert measure(f"y = {expression}\n".encode()).problem() is None


def test_a_4kb_fstring_nested_2000_deep_is_refused_within_a_memory_limit(tmp_path):
    deep = 'y = f"{x:' + "{" * 2000 + "1" + "}" * 2000 + '}"\n'
    (tmp_path / "deep.py").write_text(HEAD + deep)
    (tmp_path / "client.py").write_text(HEAD)
    assert (tmp_path / "deep.py").stat().st_size < 4200
    result = run_limited(tmp_path, "check", "--no-cache", "--output-format", "concise", "-j", "1", ".")
    assert result.returncode == 1, result.stderr[-500:]
    assert concise_lines(result) == [
        RT004,
        "deep.py:1:1: E998 not analysed: too deeply nested for the parser",
        "Checked 2 files: 2 findings (E998: 1, RT004: 1); 1 fixable with `mcp-migrate fix`",
    ]


# --- max-file-size before reading ------------------------------------------------------------
def test_a_file_over_max_file_size_is_refused_by_its_stat(tmp_path, monkeypatch):
    """The size is known before the file is opened; nothing is read."""
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * 100)
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *args, **kwargs: opened.append(args[0]) or real_open(*args, **kwargs))
    with pytest.raises(regular.TooLarge) as raised:
        regular.read_regular(str(path), max_size=599)
    assert (raised.value.size, raised.value.limit, opened) == (600, 599, [])
    assert regular.read_regular(str(path), max_size=600)[0] == b"x = 1\n" * 100


def test_a_file_growing_while_read_is_never_read_past_the_limit(tmp_path, monkeypatch):
    """A file whose stat was under the limit but that grew before it was read: at most the
    limit and one byte are read, and it is refused."""
    path = tmp_path / "grows.py"
    path.write_bytes(b"#" * 100)
    real_fstat = os.fstat

    def fstat_then_grow(fd):
        st = real_fstat(fd)
        with open(path, "ab") as handle:
            handle.write(b"#" * 10_000)
        return st

    with monkeypatch.context() as patched:
        patched.setattr(os, "fstat", fstat_then_grow)
        with pytest.raises(regular.TooLarge) as raised:
            regular.read_regular(str(path), max_size=200)
    assert raised.value.size > 200


def _peak_of(read) -> int:
    """The most memory Python held at once while `read()` ran (tracemalloc, in bytes)."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_read_with_a_limit_allocates_what_the_file_holds_not_the_limit(tmp_path):
    """A read allocates its whole count first: a 100-byte helper module read under the 4 MB
    module limit (core.project_view.read), or a cache table under its limit
    (project.regular.read_regular), allocated the limit and gave it back (issue 37: 4 MB, an
    mmap and an mremap for each helper module a run read)."""
    path = tmp_path / "helper.py"
    path.write_bytes(b"x = 1\n" * 20)
    stat = os.stat(path)
    for limit in (64 << 20, 4 << 20):
        assert project_view.read(str(path), stat, limit) == b"x = 1\n" * 20
        assert regular.read_regular(str(path), limit)[0] == b"x = 1\n" * 20
        assert _peak_of(lambda n=limit: project_view.read(str(path), stat, n)) < 1 << 20
        assert _peak_of(lambda n=limit: regular.read_regular(str(path), n)) < 1 << 20
    assert project_view.read(str(path), stat, 10) is None  # over the limit by its stat
    assert project_view.read(str(path), stat, 10, prefix=7) == b"x = 1\nx"
    assert regular.read_regular(str(path), 7)[0] == b"x = 1\nx"


@pytest.mark.parametrize(
    ("at_stat", "now", "reads"),
    [
        # it grew: read on to the limit and one byte, never more
        (100, 300, [(1000, b"#" * 300), (200, b"#" * 201)]),
        # it shrank: what it holds now, with a limit or without
        (300, 100, [(1000, b"#" * 100), (0, b"#" * 100)]),
    ],
)
def test_a_module_that_changed_size_since_its_stat_is_read_as_it_is_now(tmp_path, at_stat, now, reads):
    path = tmp_path / "helper.py"
    path.write_bytes(b"#" * at_stat)
    stat = os.stat(path)
    path.write_bytes(b"#" * now)
    assert [project_view.read(str(path), stat, limit) for limit, _ in reads] == [data for _, data in reads]
    assert regular.read_regular(str(path), 250)[0] == b"#" * min(now, 250)


def test_a_read_that_returns_less_than_asked_reads_on(tmp_path, monkeypatch):
    """`os.read` may return less than asked (Linux gives at most 2 GB a call): every reader
    reads on to what it wants or to the end, never stopping at the first short read."""
    path = tmp_path / "helper.py"
    body = bytes(range(256)) * 40
    path.write_bytes(body)
    stat = os.stat(path)
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: real_read(fd, min(n, 7)))
    assert regular.read_regular(str(path))[0] == body
    assert regular.read_regular(str(path), max_size=len(body))[0] == body
    assert regular.read_regular(str(path), 5000)[0] == body[:5000]
    assert project_view.read(str(path), stat, 0) == body
    assert project_view.read(str(path), stat, 1 << 20) == body
    assert project_view.read(str(path), stat, 0, prefix=1000) == body[:1000]


def test_a_whole_file_is_one_read_of_its_descriptor(tmp_path, monkeypatch):
    """A run reads every checked file once, whole: one `os.read` on the descriptor, no buffered
    file object over it (issue 37: its `isatty` and `tell` were two system calls more for each
    of a run's files)."""
    path = tmp_path / "server.py"
    path.write_bytes(b"x = 1\n" * 20)
    stat = os.stat(path)
    reads, wrapped = [], []
    real_read, real_fdopen = os.read, os.fdopen
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    monkeypatch.setattr(os, "fdopen", lambda *args, **kwargs: wrapped.append(args) or real_fdopen(*args, **kwargs))
    assert regular.read_regular(str(path), max_size=1 << 20)[0] == b"x = 1\n" * 20
    assert project_view.read(str(path), stat, 4 << 20) == b"x = 1\n" * 20
    assert (reads, wrapped) == ([121, 121], [])


@pytest.mark.parametrize(
    "value, status, said",
    [
        (
            "100000000000000000000000",
            2,
            ("must be a whole number of bytes from 0 (no limit) to 9223372036854775807",) * 2,
        ),
        ("9223372036854775807", 1, ("server.py:5:11: RT004", "Would fix 1 finding.")),  # a limit, not an allocation
    ],
)
def test_max_file_size_beyond_any_file_is_a_config_error_or_a_limit(tmp_path, monkeypatch, value, status, said):
    """10**23 was an OverflowError traceback ("internal error"), and so was 2**63 - 1, TOML's
    largest integer: a read of the limit and one byte asked to allocate that much."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.mcp-migrate]\nmax-file-size = {value}\n")
    (tmp_path / "server.py").write_text(HEAD)
    for command, text in ((["check", "--no-cache"], said[0]), (["check"], said[0]), (["fix", "--diff"], said[1])):
        result = CliRunner().invoke(cli, [*command, "--output-format", "concise", "server.py"])
        shown = result.stdout + result.stderr
        assert (result.exit_code, text in shown, "internal error" in shown) == (status, True, False), shown
        if status == 2:
            assert result.stderr.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "truncate"), reason="needs sparse files")
@pytest.mark.parametrize("command", ["check", "fix"])
def test_a_6gb_file_is_reported_without_reading_it(tmp_path, command):
    """A 6 GB file (sparse: no disk used) exhausted memory; with the full format its source
    line was read again for the report."""
    with open(tmp_path / "huge.py", "wb") as handle:
        handle.write(HEAD.encode())
        handle.truncate(6 << 30)
    (tmp_path / "client.py").write_text(HEAD)
    args = [command, "--output-format", "full", "-j", "1", "."]
    result = run_limited(tmp_path, *args if command == "fix" else [*args, "--no-cache"])
    assert result.returncode == 1, result.stderr[-500:]
    assert "huge.py:1:1: E997 not analysed: 6144 MiB is over max-file-size (4 MiB)\n" in result.stdout
    assert "| ^ E997" not in result.stdout  # its source is not shown: that would read it


def test_a_dense_literal_under_the_byte_limit_is_refused_by_its_tokens(tmp_path):
    """A 3 MB list literal (two million tokens) cost 4.3 GB and two minutes under the 4 MiB
    byte limit; the limit bounds the parser's work in tokens too (one per 4 bytes)."""
    (tmp_path / "table.py").write_text(HEAD + "x = [" + "0, " * 1_000_000 + "]\n")
    (tmp_path / "client.py").write_text(HEAD)
    result = run_limited(tmp_path, "check", "--no-cache", "--output-format", "concise", "-j", "1", ".")
    assert result.returncode == 1, result.stderr[-500:]
    assert concise_lines(result) == [
        RT004,
        "table.py:1:1: E997 not analysed: 2,000,026 tokens is over the 1,048,576 max-file-size allows",
        "Checked 2 files: 2 findings (E997: 1, RT004: 1); 1 fixable with `mcp-migrate fix`",
    ]


def test_the_token_count_over_counts_and_ordinary_modules_fit():
    """Names and numbers are one token each, every other byte but whitespace one: the count is
    what a tokenizer would see, strings and comments counted as code. The standard library's
    largest modules are far under one token per 4 bytes."""
    assert limits.count_tokens(b"") == 0
    assert limits.count_tokens(b"abc = f(x1, 2.5)  # ok\n") == 12
    assert limits.count_tokens("naïve = 'é'\n".encode()) == 5
    import decimal
    import inspect

    for module in (decimal, inspect):
        source = open(module.__file__, "rb").read()
        assert limits.count_tokens(source) * limits.BYTES_PER_TOKEN < len(source)


# --- a tree deeper than the recursion limit --------------------------------------------------
def test_a_folder_tree_1000_deep_is_walked(tmp_path, monkeypatch):
    """The walk recursed per folder: 1,000 levels ended the run ("input nested too deeply")."""
    folder = str(tmp_path)
    for _ in range(1000):
        folder = os.path.join(folder, "d")
        os.mkdir(folder)
        with open(os.path.join(folder, ".gitignore"), "w") as handle:
            handle.write("ignored.py\n")
    with open(os.path.join(folder, "client.py"), "w") as handle:
        handle.write(HEAD)
    with open(os.path.join(folder, "ignored.py"), "w") as handle:
        handle.write(HEAD)
    monkeypatch.chdir(tmp_path)
    try:
        for args in (["check", "--no-cache"], ["check"], ["fix", "--diff"]):
            result = CliRunner().invoke(cli, [*args, "--output-format", "concise", "-j", "1", "."])
            assert result.exit_code == 1, result.output
            if args[0] == "check":
                assert result.stdout.splitlines()[0] == "d/" * 1000 + RT004
            else:
                assert result.stdout.count("-    await session.send_roots_list_changed()\n") == 1
    finally:
        _remove_deep_tree(str(tmp_path / "d"))


def _remove_deep_tree(top: str) -> None:
    """shutil.rmtree and os.walk recurse per level too (before Python 3.12), and pytest's
    clean-up of old temporary folders would fail on this one: remove it bottom-up by hand."""
    folders, stack = [], [top]
    while stack:
        folder = stack.pop()
        folders.append(folder)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    os.unlink(entry.path)
    for folder in reversed(folders):
        os.rmdir(folder)


# --- a module the RT001 rule follows an imported helper into --------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("attack", ["deep", "huge"])
def test_an_imported_helper_module_is_parsed_within_the_same_limits(tmp_path, attack):
    """RT001 reads and parses the project module a call's helper comes from: that parse had no
    guard, so checking one clean 11-line file cost 3.3 GB and 25 s when the helper module held a
    2,000-level f-string, and a 6 GB helper module was read whole."""
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "RT001"
    (tmp_path / "caller.py").write_text((fixtures / "imported_helper_call.py").read_text())
    helper = (fixtures / "roots_binding.py").read_text()
    if attack == "deep":
        (tmp_path / "roots_binding.py").write_text(helper + 'y = f"{x:' + "{" * 2000 + "1" + "}" * 2000 + '}"\n')
    else:
        with open(tmp_path / "roots_binding.py", "wb") as handle:
            handle.write(helper.encode())
            handle.truncate(6 << 30)
    # A call one step away from the request is an info finding: --fail-on info makes it fail the run.
    args = ("check", "--no-cache", "--fail-on", "info", "--output-format", "concise", "caller.py")
    result = run_limited(tmp_path, *args)
    assert (result.returncode, concise_lines(result)) == (0, ["Checked 1 file: no findings"]), result.stderr[-500:]
    (tmp_path / "roots_binding.py").write_text(helper)  # within the limits, the helper is followed
    result = run_limited(tmp_path, *args)
    assert result.returncode == 1 and concise_lines(result)[0].startswith("caller.py:11:24: RT001 runs ")
