"""Config discovery and strict validation; rule selection with prefixes and layers."""

import pytest

from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.project import selection
from mcp_migrate.project.config import Config, ConfigError, find_config, load_config, resolve_config

ALL = frozenset(load_catalog())


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def test_nearest_pyproject_with_the_section_wins(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.mcp-migrate]\nignore = ['RT002']\n")
    write(tmp_path / "pkg/pyproject.toml", "[project]\nname = 'x'\n")  # no section: keep walking
    write(tmp_path / "pkg/src/a.py", "")
    assert find_config(str(tmp_path / "pkg/src/a.py")) == str(tmp_path / "pyproject.toml")
    config = resolve_config([str(tmp_path / "pkg/src")])
    assert config.ignore == ("RT002",)
    assert config.root == str(tmp_path)


def test_no_config_gives_defaults(tmp_path):
    config = resolve_config([str(tmp_path)])
    assert config.path is None and config.select is None


def test_all_keys_parse(tmp_path):
    path = write(
        tmp_path / "pyproject.toml",
        """
[tool.mcp-migrate]
select = ["RT"]
ignore = ["RT00"]
exclude = ["gen/"]
extend-exclude = ["*_pb2.py"]
unsafe-fixes = true
strategy = "tool-parameter"
force-exclude = true
parameter = "workspace"
env-var = "WORKSPACE"

[tool.mcp-migrate.per-file-ignores]
"tests/**" = ["RT004"]

[tool.mcp-migrate.extend-apis]
RT001 = ["myapp.mcp.get_client_roots"]
""",
    )
    config = load_config(str(path))
    assert config.select == ("RT",) and config.ignore == ("RT00",)
    assert config.exclude == ("gen/",) and config.extend_exclude == ("*_pb2.py",)
    assert config.per_file_ignores == (("tests/**", frozenset({"RT004"})),)
    assert config.extend_apis == (("RT001", ("myapp.mcp.get_client_roots",)),)
    assert (config.unsafe_fixes, config.strategy, config.parameter, config.env_var) == (
        True, "tool-parameter", "workspace", "WORKSPACE",
    )  # fmt: skip
    assert config.force_exclude is True and "env-var" in config.keys and "select" in config.keys


def test_migration_settings_reach_each_files_settings(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.mcp-migrate]\nstrategy = 'resource-uri'\nenv-var = 'WS'\n")
    config = resolve_config([str(tmp_path)])
    settings = selection.selection_for(config, None, None).settings_for(str(tmp_path / "a.py"))
    assert (settings.strategy, settings.parameter, settings.env_var) == ("resource-uri", "directories", "WS")
    cli = selection.selection_for(config, None, None, "server-config").settings_for(str(tmp_path / "a.py"))
    assert cli.strategy == "server-config"  # the flag wins over the config
    default = selection.selection_for(Config(root=str(tmp_path)), None, None).settings_for("a.py")
    assert (default.strategy, default.parameter, default.env_var) == (None, "directories", "MCP_ROOTS")


@pytest.mark.parametrize(
    "body, message",
    [
        ("colour = 1", "unknown key 'colour'"),
        ("select = ['RX9']", "'select': unknown rule code: RX9"),
        ("ignore = 'RT001'", "'ignore' must be a list of strings"),
        ("exclude = [1]", "'exclude' must be a list of strings"),
        ("unsafe-fixes = 'yes'", "'unsafe-fixes' must be a boolean"),
        ("strategy = 3", "'strategy' must be a str"),
        ("strategy = 'parameter'", "'strategy': unknown strategy 'parameter' (choose from tool-parameter,"),
        ("parameter = 'not ok'", "'parameter' must be an identifier"),
        ("force-exclude = 1", "'force-exclude' must be a boolean"),
        ("per-file-ignores = {'a.py' = ['RT999']}", "'per-file-ignores.a.py': unknown rule code: RT999"),
        ("extend-apis = {RT0 = ['a.b']}", "'extend-apis': unknown rule code: RT0"),
        ("extend-apis = {RT001 = ['not a name']}", "not a qualified name"),
        ("select = [", "invalid TOML"),
        # (issue 33: these two were tracebacks, an OverflowError and a ValueError)
        ("max-file-size = 100000000000000000000000", "'max-file-size' must be a whole number of bytes from 0"),
        ("max-file-size = 1e23", "'max-file-size' must be a whole number of bytes from 0 (no limit) to"),
        ('cache-dir = "\\u0000"', "'cache-dir' must be a path, got '\\x00' (it holds a NUL character)"),
    ],
)
def test_errors_are_one_line_with_the_path(tmp_path, body, message):
    write(tmp_path / "pyproject.toml", f"[tool.mcp-migrate]\n{body}\n")
    with pytest.raises(ConfigError) as info:
        resolve_config([str(tmp_path)])
    text = str(info.value)
    assert text.startswith("pyproject.toml: ") and message in text and "\n" not in text


def test_explicit_config_file(tmp_path):
    standalone = write(tmp_path / "conf/mcp-migrate.toml", "ignore = ['RT001']\n")
    assert load_config(str(standalone)).ignore == ("RT001",)
    with pytest.raises(ConfigError, match="config file not found"):
        resolve_config(["."], str(tmp_path / "missing.toml"))


def test_prefixes_expand():
    assert selection.expand(["RT"]) == {c for c in ALL if c.startswith("RT")}
    assert selection.expand(["ALL"]) == ALL
    assert selection.expand(["RT00"]) == {c for c in ALL if c.startswith("RT00")}
    assert selection.expand(["rt004"]) == {"RT004"}
    assert selection.expand(["E999", "E902"]) == frozenset()  # accepted, never filtered
    with pytest.raises(selection.UnknownCodeError):
        selection.expand(["RT4"])


def test_cli_select_replaces_config_layer():
    config = (["RT001", "RT004"], ["RT004"])
    assert selection.resolve([config]) == {"RT001"}
    assert selection.resolve([config, (None, ["RT001"])]) == frozenset()
    assert selection.resolve([config, (["RT004"], None)]) == {"RT004"}  # config ignore dropped


def test_per_file_ignores_and_extend_apis(tmp_path):
    config = Config(
        root=str(tmp_path),
        per_file_ignores=(("tests/", frozenset({"RT004"})), ("*_old.py", frozenset({"RT001"}))),
        extend_apis=(("RT001", ("a.b",)), ("RT004", ("c.d",))),
    )
    selector = selection.selection_for(config, None, None)
    plain = selector.settings_for(str(tmp_path / "src/a.py"))
    assert plain.select == ALL and len(plain.extend_apis) == 2
    in_tests = selector.settings_for(str(tmp_path / "tests/unit/test_a.py"))
    assert in_tests.select == ALL - {"RT004"}
    assert in_tests.extend_apis == (("RT001", ("a.b",)),)
    assert selector.settings_for(str(tmp_path / "x_old.py")).select == ALL - {"RT001"}
