"""A team's own wrappers (`[tool.mcp-migrate.extend-apis]`) are reported like the SDK's APIs,
through the same import resolution: the name alone is never enough."""

import dataclasses

from click.testing import CliRunner

from mcp_migrate.api import check_source, default_settings
from mcp_migrate.commands.cli import cli

WRAPPER = (("RT001", ("myapp.mcp.get_client_roots",)),)


def _settings():
    return dataclasses.replace(default_settings(), extend_apis=WRAPPER)


def test_wrapper_calls_are_reported_through_every_import_spelling():
    source = (
        "from myapp.mcp import get_client_roots\n"
        "import myapp.mcp as m\n"
        "from myapp.mcp import get_client_roots as roots_of\n\n"
        "async def tool(ctx):\n"
        "    a = await get_client_roots(ctx)\n"
        "    b = await m.get_client_roots(ctx)\n"
        "    c = await roots_of(ctx)\n"
    )
    found = [(f.line, f.column, f.code) for f in check_source(source, settings=_settings())]
    assert found == [(6, 15, "RT001"), (7, 15, "RT001"), (8, 15, "RT001")]


def test_a_same_named_function_of_another_module_is_not_reported():
    source = "from otherlib import get_client_roots\n\ndef f(ctx):\n    return get_client_roots(ctx)\n"
    assert check_source(source, settings=_settings()) == []
    own = "def get_client_roots(ctx):\n    return []\n\nget_client_roots(None)\n"
    assert check_source(own, settings=_settings()) == []


def test_wrappers_come_from_pyproject(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-migrate.extend-apis]\nRT001 = ["myapp.mcp.get_client_roots"]\n')
    (tmp_path / "tool.py").write_text("from myapp.mcp import get_client_roots\n\nroots = get_client_roots(None)\n")
    result = CliRunner().invoke(cli, ["check", "tool.py"])
    assert result.exit_code == 1
    assert "tool.py:3:9: RT001" in result.output
    ignored = CliRunner().invoke(cli, ["check", "--ignore", "RT001", "tool.py"])
    assert ignored.exit_code == 0
