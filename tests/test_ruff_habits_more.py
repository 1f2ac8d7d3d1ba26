"""ruff's habits, round two (issue 22 §6): `--color`, `--fix-only`, `--exit-non-zero-on-fix` on
`check --fix`, `-v` timings, bare `# noqa`, and the fix-applicability keys `unfixable`,
`extend-safe-fixes` and `extend-unsafe-fixes`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

import mcp_migrate
from mcp_migrate.commands.cli import cli

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
CLIENT = (REPO / "fixtures" / "example" / "client.py").read_text()
ESC = "\x1b["
#: One finding with an unsafe fix and no server asking for roots (issue 20 §1: a server that
#: still asks keeps the run's list_changed sends).
UNSAFE_ONLY = (
    "from mcp.types import ClientCapabilities, RootsCapability\n\nCAPS = ClientCapabilities(roots=RootsCapability())\n"
)


def run(*args, input=None, env=None):
    return CliRunner().invoke(cli, list(args), input=input, env=env, catch_exceptions=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("MCP_MIGRATE_OUTPUT_FORMAT", raising=False)
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    return tmp_path


# --color ---------------------------------------------------------------------------------------
def test_color_always_colours_a_pipe_even_with_no_color_set(project):
    (project / "server.py").write_text(SERVER)
    for env in ({}, {"NO_COLOR": "1"}):
        result = run("check", "--output-format", "concise", "--color", "always", "server.py", env=env)
        assert result.stdout.startswith(f"{ESC}1mserver.py{ESC}0m:14:20: {ESC}1;31mRT001{ESC}0m "), result.stdout


@pytest.mark.parametrize("args", [("--color", "never"), ("--color", "auto"), ("--no-color",), ()])
def test_color_auto_and_never_leave_a_pipe_plain(project, args):
    (project / "server.py").write_text(SERVER)
    result = run("check", "--output-format", "concise", *args, "server.py")
    assert result.stdout.startswith("server.py:14:20: RT001 ") and ESC not in result.stdout


def test_color_on_every_command_that_prints(project):
    (project / "a.py").write_text(FIXABLE)
    fixed = run("fix", "--color", "always", "a.py")
    assert f"{ESC}1ma.py{ESC}0m:6: fixed {ESC}32mRT004{ESC}0m" in fixed.stdout
    page = run("explain", "--color", "always", "RT001")  # piped: the page's Markdown, as written
    assert page.exit_code == 0 and page.stdout.startswith("RT001 roots-request (breaks, fix: unsafe)\n")
    assert run("rules", "--color", "never").exit_code == 0
    both = run("check", "--no-color", "--color", "always", "a.py")
    assert both.exit_code == 2
    assert both.stderr == "mcp-migrate: error: --no-color and --color always cannot be combined\n"
    bad = run("check", "--color", "sometimes", "a.py")
    assert bad.exit_code == 2 and "'sometimes' is not one of 'auto', 'always', 'never'" in bad.stderr


# check --fix --exit-non-zero-on-fix, --fix-only ---------------------------------------------
def test_check_fix_exit_non_zero_on_fix(project):
    (project / "a.py").write_text(FIXABLE)
    first = run("check", "--fix", "--exit-non-zero-on-fix", "--no-color", "a.py")
    assert first.exit_code == 1, first.output  # nothing remains, but it changed a file
    assert (project / "a.py").read_text() == FIXED
    assert first.stdout == (
        "a.py:6: fixed RT004\na.py:7: fixed RT004\nFixed 2 findings.\nChecked 1 file: no findings\n"
    )
    again = run("check", "--fix", "--exit-non-zero-on-fix", "a.py")
    assert again.exit_code == 0
    plain = run("check", "--exit-non-zero-on-fix", "a.py")  # accepted without --fix, as ruff: no effect
    assert plain.exit_code == 0


@pytest.mark.parametrize("command", [("check", "--fix-only"), ("fix", "--fix-only"), ("check", "--fix", "--fix-only")])
def test_fix_only_fixes_and_neither_reports_nor_fails_on_what_remains(project, command):
    (project / "a.py").write_text(FIXABLE)
    (project / "server.py").write_text(UNSAFE_ONLY)
    result = run(*command, "--no-color", ".")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "a.py:6: fixed RT004\n"
        "a.py:7: fixed RT004\n"
        "Fixed 2 findings (1 additional fix available with `--unsafe-fixes`).\n"
    )
    assert result.stderr == ""
    assert (project / "a.py").read_text() == FIXED and (project / "server.py").read_text() == UNSAFE_ONLY
    nothing = run(*command, "--no-color", ".")
    assert (nothing.exit_code, nothing.stdout) == (0, "No findings fixed (1 fix available with `--unsafe-fixes`).\n")
    clean = run(*command, "--no-color", "a.py")
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_fix_only_with_exit_non_zero_on_fix_and_other_outputs(project):
    (project / "a.py").write_text(FIXABLE)
    assert run("check", "--fix-only", "--exit-non-zero-on-fix", "a.py").exit_code == 1
    (project / "a.py").write_text(FIXABLE)
    quiet_json = run("check", "--fix-only", "--output-format", "json", "a.py")
    assert (quiet_json.exit_code, quiet_json.stdout) == (0, "")  # as ruff: nothing to report
    assert (project / "a.py").read_text() == FIXED
    (project / "b.py").write_text(FIXABLE)
    diff = run("check", "--fix-only", "--diff", "b.py")  # --diff wins: show, write nothing, exit 1
    assert diff.exit_code == 1 and diff.stdout.startswith("--- a/b.py\n")
    assert (project / "b.py").read_text() == FIXABLE
    piped = run("check", "--fix-only", "--stdin-filename", "s.py", "-", input=SERVER + FIXABLE.split("\n\n\n")[1])
    assert piped.exit_code == 0 and piped.stderr == ""


# -v ----------------------------------------------------------------------------------------------
SECONDS = r"\d+\.\d{3} s"


def verbose_lines(stderr: str) -> list:
    lines = stderr.splitlines()
    assert all(line.startswith("mcp-migrate: verbose: ") for line in lines), stderr
    return [line[len("mcp-migrate: verbose: ") :] for line in lines]


def test_verbose_says_which_configs_apply_and_times_each_phase(project):
    import re

    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\nignore = ['RT002']\n")
    (project / "sub").mkdir()
    (project / "sub" / ".mcp-migrate.toml").write_text("")
    (project / "a.py").write_text(FIXABLE)
    (project / "sub" / "server.py").write_text(SERVER)
    quiet = run("check", "--no-color", "--no-cache", ".")
    cold = run("check", "-v", "--no-color", ".")
    assert cold.stdout == quiet.stdout, "-v only adds to stderr"
    patterns = [
        rf"discover: 2 files in {SECONDS}",
        "config: pyproject.toml",
        r"config per file: pyproject.toml \(1 file\), sub/.mcp-migrate.toml \(1 file\)",
        rf"check: 2 files \(0 from the cache, 2 analysed; 1 process\) in {SECONDS}",
        rf"fix previews: {SECONDS}",
        rf"report: full in {SECONDS}",
        rf"total: {SECONDS}",
    ]
    lines = verbose_lines(cold.stderr)
    assert len(lines) == len(patterns) and all(re.fullmatch(p, line) for p, line in zip(patterns, lines)), lines
    warm = verbose_lines(run("check", "--verbose", ".").stderr)
    assert re.fullmatch(rf"check: 2 files \(2 from the cache, 0 analysed; 1 process\) in {SECONDS}", warm[3])
    as_json = verbose_lines(run("check", "--verbose", "--output-format", "json", ".").stderr)
    assert re.fullmatch(rf"report: json in {SECONDS}", as_json[4])  # json shows no fix: no previews phase
    isolated = verbose_lines(run("check", "-v", "--isolated", "--no-cache", ".").stderr)
    assert isolated[1] == "config: none found, defaults (--isolated)"
    assert re.fullmatch(rf"check: 2 files \(1 process\) in {SECONDS}", isolated[2])


def test_verbose_fix_times_fixing_and_writing(project):
    import re

    (project / "a.py").write_text(FIXABLE)
    result = run("fix", "-v", "--no-color", "a.py")
    assert result.exit_code == 0
    lines = verbose_lines(result.stderr)
    patterns = [
        rf"discover: 1 file in {SECONDS}",
        "config: none found, defaults",
        rf"fix: 1 file \(fixes computed, nothing written\) in {SECONDS}",
        rf"write: 1 file changed in {SECONDS}",
        rf"fix previews: {SECONDS}",
        rf"report: full in {SECONDS}",
        rf"total: {SECONDS}",
    ]
    assert len(lines) == len(patterns) and all(re.fullmatch(p, line) for p, line in zip(patterns, lines)), lines
    both = run("check", "-v", "-q", "a.py")
    assert (both.exit_code, both.stderr) == (2, "mcp-migrate: error: --verbose and --quiet cannot be combined\n")


# bare noqa directives -------------------------------------------------------------------------
SEND = "    await s.send_roots_list_changed()"
#: (comment, suppressed?) as ruff 0.17.6 reads them (checked against ruff itself below).
DIRECTIVES = [
    ("# noqa", True),
    ("#noqa", True),
    ("# NOQA", True),
    ("# noqa because the handler is tested elsewhere", True),
    ("# type: ignore # noqa", True),
    ("# noqa# and more", True),
    ("# noqa:", False),  # a colon wants codes: none named, nothing suppressed
    ("# noqa: E501", False),  # another tool's code
    ("# noqab", False),
    ("# noqa-x", False),
    ("# xnoqa", False),
    ("# see noqa", False),
]


def directive_file(statement: str) -> str:
    """One `statement` per directive (`{i}` numbered), then one with `# noqa` inside a string."""
    body = "".join(f"{statement.format(i=i)}  {comment}\n" for i, (comment, _) in enumerate(DIRECTIVES))
    return body + f'{statement.format(i=len(DIRECTIVES))}; x = "# noqa"\n'  # inside a string: not a comment


def test_bare_noqa_suppresses_every_finding_on_its_line_as_ruff_reads_it(project):
    source = "from mcp import ClientSession\n\n\nasync def main(s: ClientSession) -> None:\n" + directive_file(SEND)
    (project / "a.py").write_text(source)
    doc = json.loads(run("check", "--no-cache", "--output-format", "json", "a.py").stdout)
    first = 5
    expected = [first + i for i, (_, suppressed) in enumerate(DIRECTIVES) if not suppressed] + [first + len(DIRECTIVES)]
    assert [f["line"] for f in doc["findings"]] == expected
    assert [(s["line"], s["suppression"]) for s in doc["suppressed"]] == [
        (first + i, {"kind": "noqa", "reason": ""}) for i, (_, suppressed) in enumerate(DIRECTIVES) if suppressed
    ]
    assert not any(f["code"] == "RT900" for f in doc["findings"]), "a bare noqa is never reported as unused"


def test_the_directive_table_is_what_ruff_itself_does(project):
    """The same comments after an unused import, checked by ruff (a test dependency)."""
    import subprocess
    import sys

    (project / "r.py").write_text(directive_file("import os as m{i}"))
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "F401", "--output-format",
         "json", "r.py"],
        capture_output=True, text=True, cwd=project,
    )  # fmt: skip
    reported = sorted(d["location"]["row"] for d in json.loads(proc.stdout))
    assert reported == [i + 1 for i, (_, suppressed) in enumerate(DIRECTIVES) if not suppressed] + [len(DIRECTIVES) + 1]


def test_bare_noqa_on_the_last_line_of_a_multi_line_finding_and_never_on_e999(project):
    (project / "a.py").write_text(
        "import mcp.types as types\n\n\nasync def f(s) -> None:\n"
        "    await s.send_notification(\n"
        "        types.ClientNotification(types.RootsListChangedNotification())\n"
        "    )  # noqa\n"
    )
    (project / "bad.py").write_text("from mcp.types import ListRootsResult\nx = (  # noqa\n")
    doc = json.loads(run("check", "--no-cache", "--output-format", "json", "a.py", "bad.py").stdout)
    assert [(f["path"], f["code"]) for f in doc["findings"]] == [("bad.py", "E999")]
    assert [(s["path"], s["code"], s["line"], s["end_line"]) for s in doc["suppressed"]] == [("a.py", "RT004", 5, 7)]


def test_fix_leaves_what_a_bare_noqa_covers_byte_for_byte(project):
    """A BOM, CRLF line endings and non-ASCII text before the comment: the fix removes the
    other notification and nothing else changes (no trace of how the directive was honoured)."""
    head = "\ufefffrom mcp import ClientSession\r\n\r\n\r\nasync def main(s: ClientSession) -> None:\r\n"
    kept = '    label = "é"; await s.send_roots_list_changed()  # noqa  (démo)\r\n'
    source = head + kept + "    await s.send_roots_list_changed()\r\n"
    (project / "a.py").write_bytes(source.encode("utf-8"))
    result = run("fix", "--no-color", "a.py")
    assert result.exit_code == 0, result.output
    assert result.stdout == "a.py:6: fixed RT004\nFixed 1 finding.\nChecked 1 file: no findings\n"
    assert (project / "a.py").read_bytes() == (head + kept).encode("utf-8")
    again = run("fix", "--diff", "a.py")
    assert (again.exit_code, again.stdout) == (0, "")


def test_previews_and_standard_input_honour_a_bare_noqa(project):
    source = f"from mcp import ClientSession\n\n\nasync def main(s: ClientSession) -> None:\n{SEND}  # noqa\n{SEND}\n"
    (project / "a.py").write_text(source)
    full = run("check", "--no-cache", "--no-color", "a.py")
    assert (
        "= fix (applied by `mcp-migrate fix`):\n@@ line 6 @@\n-     await s.send_roots_list_changed()\n" in full.stdout
    )
    assert "@@ line 5 @@" not in full.stdout and "line 5" not in full.stdout.split("Checked")[0].split("a.py:6")[1]
    assert full.stdout.count("a.py:") == 1
    piped = run("check", "--output-format", "json", "--stdin-filename", "a.py", "-", input=source)
    assert [f["line"] for f in json.loads(piped.stdout)["findings"]] == [6]
    fixed = run("fix", "--stdin-filename", "a.py", "-", input=source)
    assert fixed.stdout == source.replace(f"{SEND}\n", "", 1).replace(f"{SEND}  # noqa\n", f"{SEND}  # noqa\n")
    assert fixed.stdout.count("send_roots_list_changed") == 1 and "# noqa\n" in fixed.stdout


# fixable / unfixable / extend-safe-fixes / extend-unsafe-fixes -----------------------------------
def config(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text("[tool.mcp-migrate]\n" + body)


def kinds(*args) -> list:
    doc = json.loads(run("check", "--no-cache", "--output-format", "json", *args).stdout)
    return [(f["code"], f["line"], f["fix"]) for f in doc["findings"]]


def test_unfixable_keeps_the_findings_and_drops_their_fixes(project):
    (project / "a.py").write_text(FIXABLE)
    assert kinds("a.py") == [("RT004", 6, "safe"), ("RT004", 7, "safe")]
    config(project, 'unfixable = ["RT004"]\n')
    assert kinds("a.py") == [("RT004", 6, "none"), ("RT004", 7, "none")]
    concise = run("check", "--no-cache", "--output-format", "concise", "a.py")
    assert concise.stdout.splitlines()[-1] == "Checked 1 file: 2 findings (RT004: 2)"  # nothing fixable
    full = run("check", "--no-cache", "--no-color", "a.py")
    assert "= fix" not in full.stdout
    fixed = run("fix", "--unsafe-fixes", "a.py")
    assert fixed.exit_code == 1 and "fixed" not in fixed.stdout
    assert (project / "a.py").read_text() == FIXABLE
    config(project, 'fixable = ["RT1", "HA"]\n')  # ruff's `fixable`: everything else is unfixable
    assert kinds("a.py") == [("RT004", 6, "none"), ("RT004", 7, "none")]


def test_extend_safe_fixes_lets_plain_fix_apply_a_rules_unsafe_fixes(project):
    (project / "server.py").write_text(SERVER)
    assert kinds("server.py") == [("RT001", 14, "unsafe")]
    config(project, 'extend-safe-fixes = ["RT001"]\n')
    assert kinds("server.py") == [("RT001", 14, "safe")]
    grouped = run("check", "--no-cache", "--output-format", "grouped", "server.py")
    assert grouped.stdout.startswith("server.py:\n  14:20 RT001 [*] ")
    assert grouped.stdout.splitlines()[-1].endswith("; 1 fixable with `mcp-migrate fix`")
    full = run("check", "--no-cache", "--no-color", "server.py")
    assert "= fix (applied by `mcp-migrate fix`):\n" in full.stdout and "unsafe fix" not in full.stdout
    fixed = run("fix", "--no-color", "server.py")  # no --unsafe-fixes
    assert fixed.exit_code == 0, fixed.output
    assert "server.py:14: fixed RT001" in fixed.stdout
    assert "list_roots" not in (project / "server.py").read_text()


def test_extend_unsafe_fixes_holds_a_rules_safe_fixes_back(project):
    (project / "a.py").write_text(FIXABLE)
    config(project, 'extend-unsafe-fixes = ["RT004"]\n')
    assert kinds("a.py") == [("RT004", 6, "unsafe"), ("RT004", 7, "unsafe")]
    plain = run("fix", "--no-color", "a.py")
    assert plain.exit_code == 1 and "fixed" not in plain.stdout
    assert plain.stdout.splitlines()[-1].endswith("; 2 fixable with `mcp-migrate fix --unsafe-fixes`")
    assert (project / "a.py").read_text() == FIXABLE
    unsafe = run("fix", "--unsafe-fixes", "--no-color", "a.py")
    assert unsafe.exit_code == 0 and (project / "a.py").read_text() == FIXED


def test_the_more_specific_entry_wins_and_unsafe_at_a_tie(project):
    from mcp_migrate.project import selection

    safe, unsafe = selection.fix_safety(["RT"], ["ALL", "RT002"])
    assert "RT001" in safe and "RT004" in safe and "RT002" in unsafe and "HA001" in unsafe
    safe, unsafe = selection.fix_safety(["RT002"], ["RT002"])
    assert (safe, unsafe) == (frozenset(), frozenset({"RT002"}))
    safe, unsafe = selection.fix_safety(["RT00"], ["RT"])  # RT00 is the more specific
    assert "RT004" in safe and "RT101" in unsafe
    (project / "a.py").write_text(FIXABLE)
    config(project, 'extend-safe-fixes = ["RT004"]\nextend-unsafe-fixes = ["RT004"]\n')
    assert kinds("a.py") == [("RT004", 6, "unsafe"), ("RT004", 7, "unsafe")]


def test_fix_keys_are_validated_like_select(project):
    (project / "a.py").write_text(FIXABLE)
    config(project, 'unfixable = ["RT7"]\n')
    bad = run("check", "a.py")
    assert (bad.exit_code, bad.stderr) == (
        2,
        "mcp-migrate: error: pyproject.toml: 'unfixable': unknown rule code: RT7\n",
    )
    config(project, 'extend-safe-fix = ["RT001"]\n')
    typo = run("check", "a.py")
    assert typo.stderr == (
        "mcp-migrate: error: pyproject.toml: unknown key 'extend-safe-fix' in [tool.mcp-migrate]"
        " (did you mean 'extend-safe-fixes'?)\n"
    )


def test_a_server_whose_rewrite_is_withheld_keeps_its_clients_roots(project):
    """RT001 unfixable: the server keeps asking for roots, so even with --unsafe-fixes the
    client in the same run keeps supplying them (and keeps notifying), as when a rewrite cannot
    apply; without the key the run migrates both."""
    (project / "server.py").write_text(SERVER)
    (project / "client.py").write_text(CLIENT)
    config(project, 'unfixable = ["RT001"]\n')
    held = run("fix", "--unsafe-fixes", "--no-color", ".")
    assert ": fixed " not in held.stdout, held.stdout
    assert (project / "server.py").read_text() == SERVER and (project / "client.py").read_text() == CLIENT
    (project / "pyproject.toml").unlink()
    both = run("fix", "--unsafe-fixes", "--no-color", ".")
    assert "server.py:14: fixed RT001" in both.stdout and "client.py:17: fixed RT004" in both.stdout


def test_config_command_shows_the_fix_keys(project):
    config(project, 'unfixable = ["RT004"]\nextend-safe-fixes = ["RT001"]\n')
    lines = run("config").stdout.splitlines()
    assert 'fixable = ["ALL"]  # default' in lines
    assert 'unfixable = ["RT004"]  # pyproject' in lines
    assert 'extend-safe-fixes = ["RT001"]  # pyproject' in lines
    assert "extend-unsafe-fixes = []  # default" in lines
