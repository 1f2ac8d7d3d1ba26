"""Resource limits that could be bypassed (issue 23 §3): brackets inside f-string fields.

The attacks run the CLI in a child process under a memory limit (RLIMIT_AS, 1 GiB: the deep
parser thread reserves half of it) and a timeout: before these fixes each one ran out of that
memory (the parser aborts the process) or took minutes; the tests check what is reported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcp_migrate.core.nesting import measure

resource = pytest.importorskip("resource")

#: An RT004 finding: every file below passes the gate and would be parsed.
HEAD = (
    "from mcp import ClientSession\n\n\n"
    "async def run(session: ClientSession) -> None:\n"
    "    await session.send_roots_list_changed()\n\n\n"
)
RT004 = (
    "client.py:5:11: RT004 sends `notifications/roots/list_changed`, removed in the 2026-07-28"
    " revision (Roots is deprecated by SEP-2577): delete it; new directories travel with the next tool call"
)
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
        "deep.py:1:1: E998 not analysed: too deeply nested for the parser: 2001 nested brackets (the limit is 200)",
        "Checked 2 files: 2 findings (E998: 1, RT004: 1); 1 fixable with `mcp-migrate fix`",
    ]
