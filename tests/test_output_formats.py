"""The output formats CI systems read, in ruff's shapes (issue 22 §6): grouped, json-lines, junit
and gitlab; `MCP_MIGRATE_OUTPUT_FORMAT`; and `fix` reporting what remains in any of them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
NOTIFY = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
    await session.send_roots_list_changed()
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "notify.py").write_text(NOTIFY)
    (tmp_path / "server.py").write_text((EXAMPLE / "server.py").read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MCP_MIGRATE_OUTPUT_FORMAT", raising=False)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    return tmp_path


def run(*args, env=None, input=None):
    return CliRunner().invoke(cli, list(args), env=env, input=input)


def findings(*args) -> list:
    result = run("check", "--no-cache", "--output-format", "json", *args)
    return json.loads(result.stdout)["findings"]


def test_grouped_prints_each_file_then_its_findings_aligned(project):
    (project / "pkg" / "notify.py").write_text("\n" * 9 + NOTIFY)  # lines 13 and 14: two digits
    f = findings(".")
    result = run("check", "--no-cache", "--output-format", "grouped", ".")
    assert result.exit_code == 1
    assert result.stdout == (
        "pkg/notify.py:\n"
        f"  14:11 RT004 {f[0]['message']}\n"
        f"  15:11 RT004 {f[1]['message']}\n"
        "\n"
        "server.py:\n"
        f"  14:20 RT001 {f[2]['message']}\n"
        "\n"
        "Checked 2 files: 3 findings (RT001: 1, RT004: 2); 3 fixable with `mcp-migrate fix --unsafe-fixes`\n"
    )
    # The server still asks for roots until `--unsafe-fixes` migrates it: plain `fix` keeps the
    # client's list_changed sends (issue 20 §1), and their help says so.
    assert f[0]["help"].startswith(
        "fixed only by `mcp-migrate fix --unsafe-fixes`, which also migrates the server in server.py that still asks"
        " for roots; "
    )
    # `[*]` is what plain `fix` applies: with unsafe fixes on, RT001's too; widths are per file
    (project / "short.py").write_text(NOTIFY.replace("    await session.send_roots_list_changed()\n", "", 1))
    unsafe = run("check", "--no-cache", "--unsafe-fixes", "--output-format", "grouped", "server.py", "short.py")
    assert unsafe.stdout.splitlines()[:6] == [
        "server.py:",
        f"  14:20 RT001 [*] {f[2]['message']}",
        "",
        "short.py:",
        f"  5:11 RT004 [*] {f[0]['message']}",
        "",
    ]


def test_json_lines_is_one_compact_finding_per_line(project):
    f = findings(".")
    result = run("check", "--no-cache", "--output-format", "json-lines", ".")
    assert result.exit_code == 1
    assert result.stdout == "".join(json.dumps(item, separators=(",", ":")) + "\n" for item in f)
    assert [json.loads(line)["line"] for line in result.stdout.splitlines()] == [5, 6, 14]
    clean = run("check", "--no-cache", "--output-format", "json-lines", "--select", "HA")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_junit_is_ruffs_report_shape(project):
    f = findings(".")
    result = run("check", "--no-cache", "--output-format", "junit", ".")
    assert result.exit_code == 1
    m = [item["message"] for item in f]  # no character of theirs needs escaping
    h = [item["help"] for item in f]
    assert result.stdout == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="mcp-migrate" tests="3" skipped="0" failures="3" errors="0">\n'
        '    <testsuite name="pkg/notify.py" tests="2" skipped="0" errors="0" failures="2" package="org.mcp-migrate">\n'
        '        <testcase name="org.mcp-migrate.RT004" classname="pkg/notify" line="5" column="11">\n'
        "            <properties>\n"
        '                <property name="severity" value="breaks"/>\n'
        "            </properties>\n"
        f'            <failure message="{m[0]}">line 5, col 11, {m[0]}\nhelp: {h[0]}</failure>\n'
        "        </testcase>\n"
        '        <testcase name="org.mcp-migrate.RT004" classname="pkg/notify" line="6" column="11">\n'
        "            <properties>\n"
        '                <property name="severity" value="breaks"/>\n'
        "            </properties>\n"
        f'            <failure message="{m[1]}">line 6, col 11, {m[1]}\nhelp: {h[1]}</failure>\n'
        "        </testcase>\n"
        "    </testsuite>\n"
        '    <testsuite name="server.py" tests="1" skipped="0" errors="0" failures="1" package="org.mcp-migrate">\n'
        '        <testcase name="org.mcp-migrate.RT001" classname="server" line="14" column="20">\n'
        "            <properties>\n"
        '                <property name="severity" value="breaks"/>\n'
        "            </properties>\n"
        f'            <failure message="{m[2]}">line 14, col 20, {m[2]}\nhelp: {h[2]}</failure>\n'
        "        </testcase>\n"
        "    </testsuite>\n"
        "</testsuites>\n"
    )
    ET.fromstring(result.stdout.encode())  # well-formed
    clean = run("check", "--no-cache", "--output-format", "junit", "--select", "HA")
    assert clean.exit_code == 0
    assert clean.stdout == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="mcp-migrate" tests="1" skipped="0" failures="0" errors="0">\n'
        '    <testsuite name="mcp-migrate" tests="1" skipped="0" errors="0" failures="0" package="org.mcp-migrate">\n'
        '        <testcase name="No findings" classname="mcp-migrate"/>\n'
        "    </testsuite>\n"
        "</testsuites>\n"
    )


def test_junit_escapes_what_xml_cannot_carry(project):
    (project / "a&<b>.py").write_text(NOTIFY)
    result = run("check", "--no-cache", "--output-format", "junit", "a&<b>.py")
    root = ET.fromstring(result.stdout.encode())
    (suite,) = root
    assert suite.get("name") == "a&<b>.py"
    assert 'name="a&amp;&lt;b&gt;.py"' in result.stdout


def test_gitlab_is_a_code_quality_report_with_stable_fingerprints(project):
    f = findings(".")
    result = run("check", "--no-cache", "--output-format", "gitlab", ".")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert result.stdout == json.dumps(report, indent=2) + "\n"
    assert [{key: value for key, value in issue.items() if key != "fingerprint"} for issue in report] == [
        {
            "check_name": item["code"],
            "description": f"{item['code']}: {item['message']}",
            "severity": "critical",  # breaks
            "location": {
                "path": item["path"],
                "positions": {
                    "begin": {"line": item["line"], "column": item["column"]},
                    "end": {"line": item["end_line"], "column": item["end_column"]},
                },
            },
        }
        for item in f
    ]
    marks = [issue["fingerprint"] for issue in report]
    assert all(len(mark) == 16 and int(mark, 16) >= 0 for mark in marks)
    assert len(set(marks)) == 3, "two findings on identical lines still get distinct fingerprints"
    # Lines inserted above move the findings but keep their fingerprints (GitLab matches by them).
    (project / "server.py").write_text("# a comment\n\n" + (EXAMPLE / "server.py").read_text())
    moved = json.loads(run("check", "--no-cache", "--output-format", "gitlab", ".").stdout)
    assert [issue["fingerprint"] for issue in moved] == marks
    assert moved[2]["location"]["positions"]["begin"]["line"] == 16
    # Paths are relative to CI_PROJECT_DIR when GitLab sets it.
    under = run("check", "--no-cache", "--output-format", "gitlab", ".", env={"CI_PROJECT_DIR": str(project.parent)})
    assert json.loads(under.stdout)[2]["location"]["path"] == f"{project.name}/server.py"
    clean = run("check", "--no-cache", "--output-format", "gitlab", "--select", "HA")
    assert (clean.exit_code, clean.stdout) == (0, "[]\n")


def test_gitlab_severity_follows_the_rules(project):
    (project / "client.py").write_text((EXAMPLE / "client.py").read_text())
    report = json.loads(run("check", "--no-cache", "--output-format", "gitlab", "client.py").stdout)
    assert [(issue["check_name"], issue["severity"]) for issue in report] == [
        ("RT002", "minor"),  # deprecated
        ("RT002", "minor"),
        ("RT004", "critical"),  # breaks
    ]


def test_output_format_from_the_environment(project):
    env = {"MCP_MIGRATE_OUTPUT_FORMAT": "json-lines"}
    result = run("check", "--no-cache", "server.py", env=env)
    assert [json.loads(line)["code"] for line in result.stdout.splitlines()] == ["RT001"]
    flag_wins = run("check", "--no-cache", "--output-format", "concise", "server.py", env=env)
    assert flag_wins.stdout.startswith("server.py:14:20: RT001 ")
    bad = run("check", "server.py", env={"MCP_MIGRATE_OUTPUT_FORMAT": "xml"})
    assert bad.exit_code == 2 and "'xml' is not one of" in bad.stderr
    assert "MCP_MIGRATE_OUTPUT_FORMAT" in run("check", "--help").stdout
    assert "MCP_MIGRATE_OUTPUT_FORMAT" in run("fix", "--help").stdout


@pytest.mark.parametrize("command", [("fix",), ("check", "--fix")])
def test_fix_reports_what_remains_as_json_and_nothing_else_on_stdout(project, command):
    result = run(*command, "--output-format", "json", ".")
    assert result.exit_code == 1, result.output  # RT001 (unsafe fix) remains
    doc = json.loads(result.stdout)
    # The server still asks, so the client's sends stay too (issue 20 §1): all three remain,
    # each fixable with `--unsafe-fixes`.
    assert [(f["path"], f["code"], f["fix"]) for f in doc["findings"]] == [
        ("pkg/notify.py", "RT004", "unsafe"),
        ("pkg/notify.py", "RT004", "unsafe"),
        ("server.py", "RT001", "unsafe"),
    ]
    assert doc["files_checked"] == 2
    assert "send_roots_list_changed" in (project / "pkg" / "notify.py").read_text()


@pytest.mark.parametrize("fmt", ["json-lines", "junit", "gitlab", "sarif", "github", "grouped"])
def test_fix_accepts_every_format_offered_in_its_help(project, fmt):
    result = run("fix", "--output-format", fmt, ".")
    assert result.exit_code == 1, result.output
    if fmt == "sarif":  # the driver lists every rule; the results are what remains
        assert [r["ruleId"] for r in json.loads(result.stdout)["runs"][0]["results"]] == ["RT004", "RT004", "RT001"]
    else:
        assert "RT001" in result.stdout and "RT004" in result.stdout and "fixed RT004" not in result.stdout
    assert "fix --output-format" not in result.stderr


def test_fix_output_file_keeps_stdout_for_the_fixed_lines(project):
    (project / "server.py").unlink()  # no server in the run still asks: the client's sends go
    (project / "pkg" / "other.py").write_text(NOTIFY.replace("await session", "x = await session"))  # no fix
    result = run("fix", "--output-format", "gitlab", "-o", "quality.json", ".")
    assert result.exit_code == 1
    assert "pkg/notify.py:5: fixed RT004" in result.stdout
    assert [issue["check_name"] for issue in json.loads((project / "quality.json").read_text())] == ["RT004"] * 2


def test_fix_stdin_with_a_machine_format_puts_the_document_on_stderr(project):
    result = run(
        "fix", "--output-format", "json-lines", "--stdin-filename", "server.py", "-",
        input=(EXAMPLE / "server.py").read_text(),
    )  # fmt: skip
    assert result.stdout == (EXAMPLE / "server.py").read_text()
    assert [json.loads(line)["code"] for line in result.stderr.splitlines()] == ["RT001"]


def test_statistics_work_with_grouped_too(project):
    result = run("check", "--no-cache", "--statistics", "--output-format", "grouped", ".")
    # RT004's removals wait for the server's migration, which only `--unsafe-fixes` does (issue 20 §1)
    assert result.stdout.splitlines()[:2] == ["2  RT004  [-] roots-list-changed-send", "1  RT001  [-] roots-request"]
    bad = run("check", "--statistics", "--output-format", "gitlab", ".")
    assert bad.exit_code == 2
    assert bad.stderr == "mcp-migrate: error: --statistics works with --output-format full, concise, grouped or json\n"
