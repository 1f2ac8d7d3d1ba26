"""A fix changes only the bytes its edits mean to change, and `fix --diff | patch -p1` writes
exactly what `fix` writes (issue 14, items 6 and 7): form feeds, CR-only files, lone CRs."""

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_migrate.api import default_settings, fix_bytes
from mcp_migrate.core.fix.preserve import exact_output
from mcp_migrate.output.diff import patch_lines, unified_diff

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOLDEN_INPUTS = sorted(FIXTURES.glob("*/fix_*.py"))
HEADER = (
    b"import mcp.types as types\nfrom mcp import ClientSession\n\n\nasync def main(session: ClientSession) -> None:\n"
)
NOTIFY = b"    await session.send_roots_list_changed()\n"


def fixed(data: bytes, unsafe: bool = False) -> bytes:
    result = fix_bytes(data, "x.py", unsafe=unsafe)
    assert not result.errors, result.errors
    return result.fixed_source if result.fixed_source is not None else data


def test_form_feed_before_a_kept_indented_line_survives():
    data = HEADER + b"    x = 1\n" + NOTIFY + b"\x0c    y = 2\n    if x:\n        y = 3\n\x0c        y = 4\n"
    assert fixed(data) == HEADER + b"    x = 1\n\x0c    y = 2\n    if x:\n        y = 3\n\x0c        y = 4\n"


@pytest.mark.parametrize("ending", [b"\r", b"\r\r", b"\r    # last\r", b"\r\x0c\r"])
def test_cr_only_file_keeps_its_final_cr(ending):
    data = (HEADER + b"    x = 1\n" + NOTIFY + b"    return x").replace(b"\n", b"\r") + ending
    expected = (HEADER + b"    x = 1\n    return x").replace(b"\n", b"\r") + ending
    assert fixed(data) == expected


def test_last_line_rewritten_in_a_cr_only_file_keeps_the_final_cr():
    data = (HEADER + NOTIFY).replace(b"\n", b"\r")
    assert fixed(data) == (HEADER + b"    pass\n").replace(b"\n", b"\r")


def test_exact_output_trusts_a_round_trip_libcst_got_right():
    assert exact_output(b"a\n", b"a\n", b"b\n") == b"b\n"


def test_diff_lines_end_where_patch_ends_them():
    """Only b"\\n" ends a line for patch: a lone CR (in a string, or a CR-only file) does not."""
    assert patch_lines(b'x = """a\rb"""\r\ny = 1') == [b'x = """a\rb"""\r\n', b"y = 1"]
    assert patch_lines(b"a\rb\r") == [b"a\rb\r"]
    assert patch_lines(b"a\x0cb\x1c\n\n") == [b"a\x0cb\x1c\n", b"\n"]
    diff = unified_diff(b"a\rb\r", b"a\rc\r", "p/x.py")
    assert (
        diff
        == b"--- a/p/x.py\n+++ b/p/x.py\n@@ -1 +1 @@\n-a\rb\r\n\\ No newline at end of file\n+a\rc\r\n\\ No newline at end of file\n"
    )


def test_removed_line_that_looks_like_a_header_still_gets_its_marker():
    diff = unified_diff(b"x = 1\n--y", b"x = 1\n", "x.py")
    assert diff.endswith(b"\n---y\n\\ No newline at end of file\n")


def apply_with_patch(tmp_path: Path, name: str, old: bytes, new: bytes) -> bytes:
    """`old` written to tmp_path/pkg/name, the diff to `new` applied with `patch -p1`."""
    target = tmp_path / "pkg" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(old)
    diff = unified_diff(old, new, f"pkg/{name}")
    subprocess.run(["patch", "-p1", "--quiet", "--batch"], input=diff, cwd=tmp_path, check=True)
    return target.read_bytes()


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", GOLDEN_INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_patch_applies_every_golden_diff_exactly(tmp_path, path, unsafe):
    data = path.read_bytes()
    out = fixed(data, unsafe)
    assert apply_with_patch(tmp_path, path.name, data, out) == out


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize(
    "old, new",
    [
        (b'x = """a\rb"""\ny = 1\n', b'x = """a\rb"""\ny = 2\n'),
        (b'x = 1; s = """a\rb"""\n', b'x = 2; s = """a\rb"""\n'),
        (b"a = 1\rb = 2\r", b"a = 1\rb = 3\r"),
        (b"a = 1\rb = 2", b"a = 1\rb = 2\r"),
        (b"a = 1\r\nb = 2\r\n", b"a = 1\r\n"),
        (b"a = 1\n\x0c\nb = 2\x1c\n", b"a = 1\n\x0c\nb = 3\x1c\n"),
        (b"\xef\xbb\xbfa = 1\n--b\n", b"\xef\xbb\xbfa = 1\n"),
        (b"a = 1\n", b"a = 1"),
    ],
    ids=[
        "lone-cr-in-string",
        "lone-cr-on-changed-line",
        "cr-only",
        "cr-only-adds-final",
        "crlf-drops-last",
        "ff-fs",
        "bom-dashes",
        "drops-final",
    ],
)
def test_patch_reproduces_byte_shapes_difflib_splits_differently(tmp_path, old, new):
    assert apply_with_patch(tmp_path, "x.py", old, new) == new


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("name", ["my file.py", "café.py", 'q"t\\b.py', "tab\there.py", "x.py"])
def test_patch_finds_files_whose_names_need_quoting(tmp_path, name):
    assert apply_with_patch(tmp_path, name, b"a = 1\n", b"a = 2\n") == b"a = 2\n"


def test_a_line_inserted_after_a_lone_cr_does_not_merge_into_a_crlf():
    """Mixed CR and LF endings: the inserted line's LF next to the original CR would read as
    one CRLF line break, swallowing a blank line; found by tests/test_fuzz.py."""
    data = (
        b"from mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('a')\rmcp = FastMCP('b')\n\n\n"
        b"@mcp.tool()\nasync def count(ctx: Context) -> int:\n    return len((await ctx.session.list_roots()).roots)\n"
    )
    server_config = dataclasses.replace(default_settings(), strategy="server-config")
    out = fix_bytes(data, "x.py", server_config, unsafe=True).fixed_source
    assert b"\r\n" not in out
    assert b"mcp = FastMCP('a')\r\r# Directories this server works in" in out


def test_a_line_inserted_after_a_lone_cr_does_not_merge_in_a_file_that_has_crlfs_too():
    """The same where the file also has a CRLF (`\r\r\n`: a lone CR, then an empty CRLF line):
    resource-uri's helper went in after `mcp = FastMCP("waits")\r`, whose CR and the helper's
    first blank line made one CRLF (found by tests/test_fuzz.py in CI). The line keeps its lone
    CR and the blank lines inserted after it are CRs."""
    data = (
        b"from mcp.server.fastmcp import Context, FastMCP\n\nmcp = FastMCP('waits')\r\r\n@mcp.tool()\n"
        b"async def count(ctx: Context) -> int:\n    return len((await ctx.session.list_roots()).roots)\n"
    )
    resource_uri = dataclasses.replace(default_settings(), strategy="resource-uri")
    out = fix_bytes(data, "x.py", resource_uri, unsafe=True).fixed_source
    assert b"mcp = FastMCP('waits')\r\r\rdef _file_uri_to_path(" in out
    assert b"    return url2pathname(parsed.path)\n\r\n@mcp.tool()" in out  # the empty CRLF line kept
    assert fix_bytes(out, "x.py", resource_uri, unsafe=True).fixed_source is None


def test_a_form_feed_in_the_first_indent_is_not_the_indent_unit_of_added_code():
    """LibCST took "\\f    " for the indent unit: the helper resource-uri adds nested it as
    "\\f    \\f    " and the fix was dropped as unparsable; found by tests/test_fuzz.py."""
    data = (
        b"from mcp.server.mcpserver import Context, MCPServer\n\napp = MCPServer('grep')\n\n\n@app.tool()\n"
        b"async def grep(needle: str, ctx: Context) -> list[str]:\n"
        b"\x0c    roots = (await ctx.session.list_roots()).roots\n    return [str(r.uri) for r in roots]\n"
    )
    resource_uri = dataclasses.replace(default_settings(), strategy="resource-uri")
    result = fix_bytes(data, "x.py", resource_uri, unsafe=True)
    assert not result.errors
    assert b"\n    if parsed.scheme != " in result.fixed_source and b"\x0c" not in result.fixed_source


def test_restoring_bytes_stays_fast_on_a_long_file_of_repeated_lines():
    """difflib alone took minutes on 7,000 lines that repeat (blank lines, `return y`); the
    patience alignment is near-linear."""
    import time

    import libcst as cst

    functions = [
        f"def f{i}(x):\n    a = 1\n{'' if i % 2 else chr(12)}    y = x\n    return y\n\n\n" for i in range(1000)
    ]
    data = "".join(functions).encode()
    roundtrip = cst.parse_module(data).bytes
    assert roundtrip != data  # LibCST drops the form feeds
    new = roundtrip.replace(b"def f500(x):\n    a = 1\n    y = x\n", b"def f500(x):\n    a = 1\n    pass\n")
    start = time.process_time()
    out = exact_output(data, roundtrip, new)
    assert time.process_time() - start < 2
    assert out == data.replace(b"def f500(x):\n    a = 1\n\x0c    y = x\n", b"def f500(x):\n    a = 1\n    pass\n")
