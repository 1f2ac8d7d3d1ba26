"""`core.modules.in_test_code`: which modules are test code, whose hand-built requests are
input to the code under test (issue 35 §3). pytest's own naming, on either separator."""

import json

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core.modules import in_test_code


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_roots.py",
        "/repo/tests/helpers/fake_server.py",
        "/repo/test/fake.py",
        "src/pkg/test_client.py",
        "src/pkg/client_test.py",
        "conftest.py",
        "C:\\repo\\tests\\fake.py",
    ],
)
def test_test_code(path):
    assert in_test_code(path) is True


@pytest.mark.parametrize(
    "path",
    [
        "src/pkg/server.py",
        "src/pkg/latest.py",
        "src/attestation.py",
        "src/testing/fake.py",
        "contest.py",
        "",
        "<stdin>",
    ],
)
def test_not_test_code(path):
    assert in_test_code(path) is False


SENDER = b"from mcp import ClientSession\n\n\nasync def f(s: ClientSession):\n    await s.send_roots_list_changed()\n"
SERVER = b"""from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("t")


@mcp.tool()
async def files(ctx: Context) -> list[str]:
    roots = await ctx.session.list_roots()
    return [str(root.uri) for root in roots.roots]
"""


def _run(*args) -> str:
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_a_fix_in_test_code_is_a_suggestion_that_only_apply_suggestions_takes(tmp_path, monkeypatch):
    """Tests move with the code they test (issue 36 §4): a fix in test code would change what the
    test checks, so it is suggested (shown, with the reason first in the help), never applied by
    `fix`; the same code outside the tests is fixed; `--apply-suggestions` takes it."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_client.py").write_bytes(SENDER)
    (tmp_path / "client.py").write_bytes(SENDER)
    monkeypatch.chdir(tmp_path)
    doc = json.loads(_run("check", "--no-cache", "--exit-zero", "--output-format", "json", "."))
    got = [(f["path"], f["line"], f["column"], f["code"], f["fix"]) for f in doc["findings"]]
    assert got == [("client.py", 5, 11, "RT004", "safe"), ("tests/test_client.py", 5, 11, "RT004", "display")]
    assert doc["findings"][1]["help"].startswith("a suggestion in test code: applied, it would change what the test")
    _run("fix", ".")
    assert (tmp_path / "tests" / "test_client.py").read_bytes() == SENDER
    assert (tmp_path / "client.py").read_bytes() == SENDER.replace(b"await s.send_roots_list_changed()", b"pass")
    _run("fix", "--apply-suggestions", ".")
    assert (tmp_path / "tests" / "test_client.py").read_bytes() == (tmp_path / "client.py").read_bytes()


def test_a_test_server_that_asks_still_asks(tmp_path, monkeypatch):
    """A test's server whose rewrite is only suggested keeps asking for roots: it holds the run's
    client-side removals (a suggestion each), and no tool of it gains a parameter."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_server.py").write_bytes(SERVER)
    (tmp_path / "client.py").write_bytes(SENDER)
    monkeypatch.chdir(tmp_path)
    doc = json.loads(_run("check", "--no-cache", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."))
    got = [(f["path"], f["line"], f["code"], f["fix"]) for f in doc["findings"]]
    assert got == [("client.py", 5, "RT004", "display"), ("tests/test_server.py", 8, "RT001", "display")]
    assert "in tests/test_server.py" in doc["findings"][0]["help"]
    _run("fix", "--unsafe-fixes", ".")
    assert (tmp_path / "tests" / "test_server.py").read_bytes() == SERVER
    assert (tmp_path / "client.py").read_bytes() == SENDER
