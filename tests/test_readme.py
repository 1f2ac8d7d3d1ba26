"""The README a ruff user reads in one minute (issue 33 §5): it opens with the two commands
(install and run on the example, run the whole suite, with its duration and the fast tier), then
a quick start of at most 25 lines whose commands work, then a table of contents that matches the
headings below it."""

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
FAST_TIER = 'python -m pytest -m "not slow and not network"'


def fenced_blocks(text: str) -> list:
    return re.findall(r"^```[a-z]*\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def section(title: str) -> str:
    """The text under a level-2 heading, up to the next level-2 heading outside a fence."""
    lines = README.split("\n")
    start = lines.index(f"## {title}")
    body = []
    fence = False
    for line in lines[start + 1 :]:
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("## "):
            break
        body.append(line)
    return "\n".join(body).strip("\n")


def headings_after(first: str) -> list:
    """(level, title) of every `##`/`###` heading outside code fences from `first` on."""
    found, fence, started = [], None, False
    for line in README.split("\n"):
        mark = re.match(r"^(`{3,})", line)
        if mark:
            fence = None if fence and line.strip() == fence else (fence or mark.group(1))
            continue
        if fence:
            continue
        if line == f"## {first}":
            started = True
        match = re.match(r"^(#{2,3}) (.+)$", line)
        if started and match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def github_anchor(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def test_the_readme_opens_with_the_two_commands():
    first, second = fenced_blocks(README)[:2]
    assert "pip install . && .venv/bin/mcp-migrate check fixtures/example" in first
    assert second.strip().endswith(".venv/bin/python -m pytest")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/python -m pytest\n" in ci and "-e '.[test]'" in ci


def test_the_test_command_says_how_long_it_takes_and_names_the_fast_tier():
    intro = README[: README.index("```sh\npython3 -m venv .venv && .venv/bin/pip install -e")]
    paragraph = " ".join(intro.strip().split("\n\n")[-1].split())
    assert re.search(r"about \d+ minutes on two cores", paragraph), paragraph
    assert FAST_TIER in paragraph and re.search(r"fast tier.*takes about \d+ minutes", paragraph)
    # CONTRIBUTING.md names the same tier with the same duration.
    fast = re.search(r"takes about (\d+ minutes)", paragraph).group(1)
    assert FAST_TIER in CONTRIBUTING and fast in " ".join(CONTRIBUTING.split())


def test_the_quick_start_is_short_and_covers_install_check_fix_precommit_ci():
    assert README.index("## Quick start") < README.index("## Contents") < README.index("## Install")
    quick = section("Quick start")
    assert len(quick.split("\n")) <= 25
    for needed in ("pip install .", "mcp-migrate check", "mcp-migrate fix", "pre-commit", "hooks:", "uses: OWNER"):
        assert needed in quick, needed


def test_the_contents_match_the_headings():
    contents = section("Contents")
    listed = re.findall(r"^( *)- \[([^\]]+)\]\(#([^)]+)\)$", contents, re.MULTILINE)
    assert len(listed) == len(contents.split("\n"))
    expected = headings_after("Install")
    assert [(2 if not indent else 3, title) for indent, title, _ in listed] == expected
    for _, title, anchor in listed:
        assert anchor == github_anchor(title)


def test_every_quick_start_command_runs(tmp_path):
    """Each `mcp-migrate` line of the quick start, run on a copy of the example as `src/`: it
    exits as the tool promises (0 or 1), never with an error or a traceback."""
    shutil.copytree(REPO / "fixtures" / "example", tmp_path / "src")
    commands = [
        line.split("#")[0].strip()
        for line in fenced_blocks(section("Quick start"))[0].split("\n")
        if line.startswith("mcp-migrate ")
    ]
    assert len(commands) >= 5
    for command in commands:
        argv = shlex.split(command)[1:]
        proc = subprocess.run(
            [sys.executable, "-m", "mcp_migrate", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode in (0, 1), (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, command
    assert (tmp_path / "MIGRATION.md").is_file()
