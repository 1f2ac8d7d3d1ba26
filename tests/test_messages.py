"""Messages as ruff writes them (issue 22 §4): every finding has a short message (what is wrong,
at most 90 characters) and a help (what to do), carried apart in every format: concise and
GitHub show the message, the full format shows the help under the snippet, JSON and SARIF
carry both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.api import check_bytes, check_source
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.messages import MAX_MESSAGE, Message
from mcp_migrate.rules import all_rules

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
SERVER = (FIXTURES / "example" / "server.py").read_text()
#: Words that give advice; a message says what is wrong, the help what to do.
ADVICE = (" delete ", " use `", "; take ", ": take ", " remove the ", " give the server", " write `")


def _every_finding() -> list:
    found = []
    for path in sorted(FIXTURES.glob("**/*.py")):
        found += check_bytes(path.read_bytes(), str(path)).findings
    for rule in all_rules():
        for example in rule.INVALID:
            found += check_source(example.code)
    return found


ALL = _every_finding()


def test_every_message_is_short_and_gives_no_advice():
    assert len(ALL) > 400
    too_long = sorted({f.message for f in ALL if len(f.message) > MAX_MESSAGE})
    assert too_long == []
    advising = sorted({f.message for f in ALL if any(word in f" {f.message}" for word in ADVICE)})
    assert advising == []


def test_every_rule_finding_says_what_to_do():
    silent = sorted({(f.code, f.message) for f in ALL if f.code[:2] in ("RT", "HA") and not f.help})
    assert silent == []
    assert {f.code for f in ALL} >= {"RT001", "RT002", "RT004", "RT102", "RT103", "HA001", "RT900", "RT901"}


def test_a_message_formats_its_help_too():
    message = Message("`{name}` is wrong", "rename `{name}`").format(name="x")
    assert message == ("`x` is wrong", "rename `x`")


def test_the_rt001_help_names_the_strategies_and_the_message_does_not():
    (finding,) = [f for f in check_source(SERVER) if f.code == "RT001"]
    assert finding.message == "`ctx.session.list_roots()` asks for roots, deprecated by SEP-2577"
    assert finding.help == (
        "on a 2026-07-28 connection it raises NoBackChannelError; take the directories as a tool parameter,"
        " a resource URI, or server configuration (rewrites: tool-parameter, resource-uri, server-config)"
    )


# Each format carries them apart ----------------------------------------------------------------
@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "server.py").write_text(SERVER)
    return tmp_path


def run(*args):
    return CliRunner().invoke(cli, ["check", "--no-cache", *args, "server.py"], catch_exceptions=False)


MESSAGE = "server.py:14:20: RT001 `ctx.session.list_roots()` asks for roots, deprecated by SEP-2577"


def test_concise_and_github_show_the_message_only(project):
    assert run("--output-format", "concise").stdout.splitlines()[0] == MESSAGE
    github = run("--output-format", "github").stdout.splitlines()[0]
    assert github.endswith("::`ctx.session.list_roots()` asks for roots, deprecated by SEP-2577 (roots-request)")
    assert "NoBackChannelError" not in github


def test_full_shows_the_help_under_the_snippet(project):
    lines = run().stdout.splitlines()
    assert lines[0] == MESSAGE
    at = lines.index("   |                    ^^^^^^^^^^^^^^^^^^^^^^^^ RT001")
    assert lines[at + 1] == "   |"
    assert lines[at + 2].startswith("help: on a 2026-07-28 connection it raises NoBackChannelError; take the")
    assert lines[at + 3].startswith("= unsafe fix")


def test_json_and_sarif_carry_both(project):
    (finding,) = json.loads(run("--output-format", "json").stdout)["findings"]
    assert finding["message"] == MESSAGE.split(" RT001 ", 1)[1]
    assert finding["help"].startswith("on a 2026-07-28 connection")
    (line,) = run("--output-format", "json-lines").stdout.splitlines()
    assert json.loads(line)["help"] == finding["help"]
    (result,) = json.loads(run("--output-format", "sarif").stdout)["runs"][0]["results"]
    assert result["message"] == {"text": finding["message"]}
    assert result["properties"] == {"help": finding["help"]} and result["fixes"]


def test_the_cache_keeps_the_help(project):
    first = json.loads(CliRunner().invoke(cli, ["check", "--output-format", "json", "server.py"]).stdout)
    again = json.loads(CliRunner().invoke(cli, ["check", "--output-format", "json", "server.py"]).stdout)
    assert first == again and again["findings"][0]["help"]
