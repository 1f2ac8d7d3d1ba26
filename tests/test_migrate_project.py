"""One fix run over a repository with a client and its server leaves them consistent."""

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    shutil.copytree(EXAMPLE, tmp_path / "app")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path / "app"


def test_tool_parameter_client_passes_the_new_argument(repo):
    result = CliRunner().invoke(cli, ["fix", "--unsafe-fixes", "app"])
    assert result.exit_code == 0, result.output
    server = (repo / "server.py").read_text()
    client = (repo / "client.py").read_text()
    # No pyproject here: wrapped at 88, the default line length.
    assert "async def find_files(\n    pattern: str,\n    directories: Annotated[\n        list[str]," in server
    # Past 88 characters the argument dict is exploded, one entry per line.
    assert 'call_tool("find_files", {\n' in client
    assert '"pattern": "*.py",\n                "directories": ["/home/user/project"],\n' in client
    assert "list_roots_callback" not in client and "send_roots_list_changed" not in client


def test_server_config_client_sets_the_environment(repo):
    result = CliRunner().invoke(cli, ["fix", "--unsafe-fixes", "--strategy", "server-config", "app"])
    assert result.exit_code == 0, result.output
    server = (repo / "server.py").read_text()
    client = (repo / "client.py").read_text()
    assert 'MCP_ROOTS = [d for d in os.environ.get("MCP_ROOTS", "").split(os.pathsep) if d]' in server
    assert 'env={"MCP_ROOTS": os.pathsep.join(["/home/user/project"])}' in client
    assert 'call_tool("find_files", {"pattern": "*.py"})' in client
