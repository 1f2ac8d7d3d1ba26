"""A repository is never refused because of one broken config file (issue 33 §1).

Three of 38 real repositories ended `check` and every `fix` mode with exit 2 and no findings:
each held a cookiecutter template whose `pyproject.toml` is Jinja, not TOML. Now template
folders are skipped (and listed as skipped by `--show-files`), a config file below the current
folder that cannot be read is one warning and counts as absent, and only `--config` or the
project's own config (at or above the current folder) stops the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
SERVER = (EXAMPLE / "server.py").read_text()  # RT001 and more: a real finding
NOTIFY = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
"""
JINJA_PYPROJECT = '[project]\nname = "{{ cookiecutter.slug }}"\n{{ cookiecutter.slug }} = "x"\n'
TEMPLATE = "{{cookiecutter.slug}}"
#: tomllib's words for JINJA_PYPROJECT's third line.
JINJA_ERROR = "invalid TOML: Invalid statement (at line 3, column 1)"
IGNORED = "; ignored: its folder uses the closest config above it"


def write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


def paths(result) -> list:
    return sorted({f["path"] for f in json.loads(result.stdout)["findings"]})


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A root config that ignores RT004 everywhere, a real finding in `app/`, and a cookiecutter
    template folder whose pyproject.toml is Jinja and whose code has findings of its own."""
    write(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'gw'\n\n[tool.mcp-migrate]\nignore = ['RT004']\n",
            "app/server.py": SERVER,
            f"templates/{TEMPLATE}/pyproject.toml": JINJA_PYPROJECT,
            f"templates/{TEMPLATE}/src/server.py": SERVER,
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


# (a) template folders ----------------------------------------------------------------------
def test_a_template_folder_is_skipped_and_the_rest_is_reported(project):
    """Before: `mcp-migrate: error: templates/{{cookiecutter.slug}}/pyproject.toml: invalid
    TOML: ...`, exit 2, no findings."""
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 1, result.output
    assert paths(result) == ["app/server.py"]
    assert result.stderr == ""
    for mode in ([], ["--diff", "--unsafe-fixes"]):
        fixed = run("fix", *mode, ".")
        assert fixed.exit_code == 1, fixed.output  # findings remain; the diff is not empty
        assert "app/server.py" in fixed.stdout and TEMPLATE not in fixed.stdout
        assert "mcp-migrate:" not in fixed.stderr  # (--diff says "Would fix 1 finding." there)
    assert (project / f"templates/{TEMPLATE}/src/server.py").read_text() == SERVER


def test_show_files_lists_a_template_folder_as_skipped(project):
    result = run("check", "--show-files", ".")
    assert result.exit_code == 0
    assert result.stdout == "app/server.py\n"  # still one path a line, for scripts
    assert result.stderr == (
        f"mcp-migrate: skipped (template folder): templates/{TEMPLATE}/  (--include-templates checks it)\n"
    )


@pytest.mark.parametrize("how", ["flag", "key"])
def test_template_folders_are_checked_on_request(project, how):
    """`--include-templates` or `include-templates = true`: the template's code is checked and
    its files take the root config. Its Jinja pyproject.toml cannot hold a `[tool.mcp-migrate]`
    table, so it is not read (no warning); one whose table is Jinja is one warning."""
    args = ["--include-templates"] if how == "flag" else []
    if how == "key":
        (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nignore = ['RT004']\ninclude-templates = true\n")
    shown = run("check", "--show-files", *args, ".")
    assert shown.stdout == f"app/server.py\ntemplates/{TEMPLATE}/src/server.py\n"
    assert shown.stderr == ""
    (project / f"templates/{TEMPLATE}/pyproject.toml").write_text(JINJA_PYPROJECT + "[tool.mcp-migrate]\n")
    warning = f"mcp-migrate: warning: templates/{TEMPLATE}/pyproject.toml: {JINJA_ERROR}{IGNORED}\n"
    shown = run("check", "--show-files", *args, ".")
    assert shown.stdout == f"app/server.py\ntemplates/{TEMPLATE}/src/server.py\n"
    assert shown.stderr == warning
    result = run("check", "--output-format", "json", *args, ".")
    assert result.exit_code == 1
    assert paths(result) == ["app/server.py", f"templates/{TEMPLATE}/src/server.py"]
    assert result.stderr == warning
    off = run("check", "--output-format", "json", "--no-include-templates", ".")
    assert paths(off) == ["app/server.py"]  # the flag wins over the key


def test_a_file_named_in_a_template_folder_is_checked_unless_force_exclude(project):
    """As ruff treats an excluded file named on the command line: checked, unless
    `--force-exclude` (pre-commit, editors), which skips it."""
    named = f"templates/{TEMPLATE}/src/server.py"
    result = run("check", "--output-format", "json", named)
    assert result.exit_code == 1 and paths(result) == [named]
    skipped = run("check", "--output-format", "json", "--force-exclude", named, "app/server.py")
    assert paths(skipped) == ["app/server.py"]
    included = run("check", "--output-format", "json", "--force-exclude", "--include-templates", named)
    assert paths(included) == [named]


@pytest.mark.parametrize("name", ["{{ cookiecutter.project }}", "{% if docs %}docs{% endif %}", "x}}"])
def test_what_makes_a_template_folder(name):
    from mcp_migrate.project.discovery import is_template_folder

    assert is_template_folder(name)
    assert not is_template_folder("{x}") and not is_template_folder("src")


# (b) a nested config file that cannot be read ----------------------------------------------
@pytest.fixture
def nested(project):
    """`pkg/` holds a pyproject.toml that is not TOML, and files in two folders under it whose
    only finding (RT004) the root config ignores."""
    write(
        project,
        {
            "pkg/pyproject.toml": "[tool.mcp-migrate\nignore = []\n",
            "pkg/a/notify.py": NOTIFY,
            "pkg/b/notify.py": NOTIFY,
            "pkg/notify.py": NOTIFY,
        },
    )
    return project


NESTED_WARNING = (
    "mcp-migrate: warning: pkg/pyproject.toml: invalid TOML: Expected ']' at the end of a table"
    f" declaration (at line 1, column 18){IGNORED}\n"
)


def test_an_unreadable_nested_config_is_one_warning_and_the_root_config_applies(nested):
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 1, result.output
    assert paths(result) == ["app/server.py"]  # pkg/'s RT004 ignored: the root config applies
    assert json.loads(result.stdout)["files_checked"] == 4
    assert result.stderr == NESTED_WARNING  # once, for three folders under it


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ([], 1),  # RT001's unsafe fix left: a finding remains
        (["--diff", "--unsafe-fixes"], 1),  # the diff is not empty
        (["--unsafe-fixes"], 0),  # everything fixed
        (["--fix-only"], 0),
    ],
)
def test_fix_goes_on_past_an_unreadable_nested_config(nested, mode, code):
    result = run("fix", *mode, ".")
    assert result.exit_code == code, result.output
    assert result.stderr.startswith(NESTED_WARNING) and result.stderr.count("mcp-migrate:") == 1
    assert "pkg/" not in result.stdout
    assert (nested / "pkg/a/notify.py").read_text() == NOTIFY  # RT004 ignored by the root config
    assert ((nested / "app/server.py").read_text() != SERVER) == (mode == ["--unsafe-fixes"])


def test_the_next_config_file_of_the_folder_counts_when_the_first_is_unreadable(nested):
    """`.mcp-migrate.toml` is looked for first; unreadable, the folder's pyproject.toml table
    is the closest readable config."""
    write(nested, {"pkg/.mcp-migrate.toml": b"ignore = ['\xff']\n", "pkg/pyproject.toml": "[tool.mcp-migrate]\n"})
    result = run("check", "--output-format", "json", "pkg")
    assert paths(result) == ["pkg/a/notify.py", "pkg/b/notify.py", "pkg/notify.py"]
    assert result.stderr == (
        f"mcp-migrate: warning: pkg/.mcp-migrate.toml: invalid TOML: not UTF-8 text (at byte 11){IGNORED}\n"
    )


def test_a_nested_config_without_read_permission_is_a_warning(nested, monkeypatch):
    from mcp_migrate.project import config

    real = config.read_regular

    def refuse(path, *args, **kwargs):
        if path.endswith("pyproject.toml") and "pkg" in path:
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(config, "read_regular", refuse)
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 1 and paths(result) == ["app/server.py"]
    assert result.stderr == f"mcp-migrate: warning: pkg/pyproject.toml: cannot read: Permission denied{IGNORED}\n"


def test_another_tools_pyproject_below_is_not_read_as_toml(project, monkeypatch):
    """A pyproject.toml below the current folder whose bytes cannot spell the table (a monorepo's
    packages: agent-framework has 42) is no config and is not parsed, broken or not; one that
    spells it through a basic string's escape is still read, and its table applies."""
    from mcp_migrate.project import config

    write(
        project,
        {
            "pkg/pyproject.toml": "[project]\nname = 'pkg'\n",
            "pkg/notify.py": NOTIFY,
            "broken/pyproject.toml": "[project\nname = \n",
            "broken/notify.py": NOTIFY,
            "escaped/pyproject.toml": '[tool."mcp\\u002Dmigrate"]\nselect = ["RT004"]\n',
            "escaped/notify.py": NOTIFY,
        },
    )
    parsed = []
    real = config.parsed_toml
    monkeypatch.setattr(config, "parsed_toml", lambda text: parsed.append(text) or real(text))
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 1 and result.stderr == ""
    # The root config ignores RT004; the escaped table selects it again for its folder.
    assert paths(result) == ["app/server.py", "escaped/notify.py"]
    assert sorted(text.partition("\n")[0] for text in parsed) == ["[project]", '[tool."mcp\\u002Dmigrate"]']


def test_the_projects_own_pyproject_is_read_whole_without_the_table(project, monkeypatch):
    """At or above the current folder a pyproject.toml is the project's own: a broken one stops
    the run whether or not it spells the table."""
    write(project, {"pkg/pyproject.toml": "[project\nname = \n", "pkg/notify.py": NOTIFY})
    result = CliRunner().invoke(cli, ["check", "."], env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code == 1  # from the project root: pkg/'s file is another tool's
    monkeypatch.chdir(project / "pkg")
    result = CliRunner().invoke(cli, ["check", "."], env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stderr.startswith("mcp-migrate: error: pyproject.toml: invalid TOML: ")


def test_standard_input_says_the_warning_too(nested):
    result = CliRunner().invoke(
        cli, ["check", "--output-format", "json", "--stdin-filename", "pkg/a/notify.py", "-"], input=NOTIFY
    )
    assert result.exit_code == 0 and paths(result) == []
    assert result.stderr == NESTED_WARNING


def test_the_projects_own_config_still_stops_the_run(nested, monkeypatch):
    """At or above the current folder, the broken file is the project's own config."""
    monkeypatch.chdir(nested / "pkg")
    result = run("check", ".")
    assert result.exit_code == 2
    assert result.stderr == (
        "mcp-migrate: error: pyproject.toml: invalid TOML: Expected ']' at the end of a table"
        " declaration (at line 1, column 18)\n"
    )


def test_a_readable_nested_table_with_a_wrong_key_still_stops_the_run(nested):
    """Meant for mcp-migrate and wrong: guessing past a typo would check with settings nobody chose."""
    (nested / "pkg/pyproject.toml").write_text("[tool.mcp-migrate]\nignor = ['RT004']\n")
    result = run("check", ".")
    assert result.exit_code == 2
    assert result.stderr == (
        "mcp-migrate: error: pkg/pyproject.toml: unknown key 'ignor' in [tool.mcp-migrate] (did you mean 'ignore'?)\n"
    )


# (c) the same broken file named by --config -------------------------------------------------
@pytest.mark.parametrize("command", ["check", "fix"])
@pytest.mark.parametrize("broken", ["pkg/pyproject.toml", f"templates/{TEMPLATE}/pyproject.toml"])
def test_a_broken_file_named_by_config_stops_the_run(nested, command, broken):
    result = run(command, "--config", broken, ".")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"mcp-migrate: error: {broken}: invalid TOML: ")
