"""The pre-commit hooks for real: pre-commit builds a virtual environment, pip-installs this
project into it (so it needs the package registry) and runs the hooks in a temporary git
repository. Skipped with MCP_MIGRATE_OFFLINE=1; CI runs it.

The hooks come from a local clone (tests/clone.py: a committed snapshot of the working tree)
rather than from the working tree itself, so the test sees uncommitted and untracked changes too
(try-repo's own shadow repository only carries changes to tracked files). One test runs the
README's `pre-commit try-repo /path/to/clone mcp-migrate --all-files`; the others run
`pre-commit run` with a config naming the clone at its head SHA, as a user's config does. That
is not only closer to real use: pre-commit's store keeps the hook environment by repository and
rev, so the module installs it once, where try-repo builds a fresh store (a pip install, 25 s to
90 s on CI's 2 cores) on every call."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from clone import commit_all, make_clone

REPO = Path(__file__).resolve().parent.parent
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
FIXABLE = """\
import mcp.types as types
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
    await session.send_notification(types.ClientNotification(types.RootsListChangedNotification()))
"""


def test_hook_manifest_offline():
    """The manifest is valid for pre-commit and declares what the README promises."""
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"mcp-migrate", "mcp-migrate-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["types"] == ["python"]
        assert hook["require_serial"] is True and hook["pass_filenames"] is True
        assert "--force-exclude" in hook["entry"] and "--unsafe-fixes" not in hook["entry"]
    assert hooks["mcp-migrate"]["entry"].startswith("mcp-migrate check")
    assert hooks["mcp-migrate-fix"]["entry"].startswith("mcp-migrate fix")
    # one job each, so a config with both prints a finding once: the fix hook lists only what it
    # changed, the check hook lists the findings and fixes nothing
    assert "--fix-only" in hooks["mcp-migrate-fix"]["entry"].split()
    assert not {"--fix", "--fix-only", "--diff"} & set(hooks["mcp-migrate"]["entry"].split())


def make_repo(root: Path, files: dict) -> Path:
    root.mkdir(parents=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return commit_all(root, "initial")


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """(hook repository, environment with a private PRE_COMMIT_HOME)."""
    if os.environ.get("MCP_MIGRATE_OFFLINE"):
        pytest.skip("MCP_MIGRATE_OFFLINE is set: pre-commit installs the hook from the package registry")
    base = tmp_path_factory.mktemp("pre-commit")
    snapshot = make_clone(base / "hook-repo")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(base / "home"), NO_COLOR="1", PRE_COMMIT_COLOR="never")
    return snapshot, env


def pre_commit(hooks, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m pre_commit ARGS` in `cwd` with the module's private PRE_COMMIT_HOME."""
    _, env = hooks
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc


def try_repo(hooks, cwd: Path, hook: str, *args: str) -> subprocess.CompletedProcess:
    return pre_commit(hooks, cwd, "try-repo", str(hooks[0]), hook, "--color", "never", *args)


def head_of(snapshot: Path) -> str:
    """The clone's head commit SHA: the rev a user's config pins."""
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=snapshot, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def run_hook(hooks, cwd: Path, hook: str, *args: str) -> subprocess.CompletedProcess:
    """`pre-commit run HOOK` in `cwd` with a config (kept outside the repository, so no hook
    sees it) naming the clone at its head: the module's runs share one hook environment."""
    snapshot = hooks[0]
    head = head_of(snapshot)
    config = cwd.parent / f"{cwd.name}-{hook}.pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {snapshot}\n  rev: {head}\n  hooks:\n  - id: {hook}\n")
    return pre_commit(hooks, cwd, "run", hook, "--config", str(config), "--color", "never", *args)


@pytest.mark.network
def test_check_hook_fails_on_findings_and_skips_excluded_files(hooks, tmp_path):
    work = make_repo(
        tmp_path / "work",
        {
            "server.py": SERVER,
            "generated/server.py": SERVER,
            "pyproject.toml": '[tool.mcp-migrate]\nextend-exclude = ["generated/"]\n',
            "README.md": "# notes mentioning ctx.session.list_roots()\n",
        },
    )
    proc = try_repo(hooks, work, "mcp-migrate", "--all-files")
    assert proc.returncode == 1, proc.stdout
    assert "server.py:14:20: RT001 " in proc.stdout
    assert "generated/" not in proc.stdout  # excluded even though pre-commit named it
    quiet = run_hook(hooks, work, "mcp-migrate", "--verbose", "--files", "generated/server.py", "README.md")
    assert quiet.returncode == 0, quiet.stdout
    assert "Passed" in quiet.stdout
    assert "RT001" not in quiet.stdout and "Checked" not in quiet.stdout and "warning" not in quiet.stdout


@pytest.mark.network
def test_fix_hook_fails_when_it_changed_something_then_passes(hooks, tmp_path):
    work = make_repo(tmp_path / "work", {"client.py": FIXABLE, "README.md": "# client\n"})
    first = run_hook(hooks, work, "mcp-migrate-fix", "--all-files")
    assert first.returncode == 1, first.stdout
    assert "client.py:6: fixed RT004" in first.stdout
    assert "files were modified by this hook" in first.stdout
    fixed = (work / "client.py").read_text()
    assert "send_roots_list_changed" not in fixed and "RootsListChangedNotification" not in fixed
    second = run_hook(hooks, work, "mcp-migrate-fix", "--all-files")
    assert second.returncode == 0, second.stdout
    assert (work / "client.py").read_text() == fixed


@pytest.mark.network
def test_hooks_print_one_summary_however_many_files(hooks, tmp_path):
    """require_serial: pre-commit would otherwise split the files into one batch per CPU, each
    printing its own summary (and, for the fix hook, its own hints)."""
    files = {f"pkg/server_{i:02}.py": SERVER for i in range(12)}
    files.update({f"pkg/client_{i:02}.py": FIXABLE for i in range(12)})
    work = make_repo(tmp_path / "work", files)
    check = run_hook(hooks, work, "mcp-migrate", "--all-files")
    assert check.returncode == 1, check.stdout
    assert check.stdout.count("Checked 24 files") == 1, check.stdout
    assert check.stdout.count("Checked ") == 1, check.stdout
    fix = run_hook(hooks, work, "mcp-migrate-fix", "--all-files", "--verbose")  # a hook that passes is quiet
    assert fix.returncode == 0, fix.stdout  # the servers beside them leave the clients' fixes unsafe
    assert fix.stdout.count("No findings fixed (36 fixes available with `--unsafe-fixes`).") == 1, fix.stdout


@pytest.mark.network
def test_fix_hook_leaves_unsafe_fixes_to_the_check_hook(hooks, tmp_path):
    """Only unsafe fixes here: the fix hook changes nothing, passes and says how many
    `--unsafe-fixes` would apply; the check hook fails and lists the finding."""
    work = make_repo(tmp_path / "work", {"server.py": SERVER})
    for _ in range(2):
        proc = run_hook(hooks, work, "mcp-migrate-fix", "--all-files", "--verbose")  # a hook that passes is quiet
        assert proc.returncode == 0, proc.stdout
        assert "No findings fixed (1 fix available with `--unsafe-fixes`)." in proc.stdout
        assert "RT001" not in proc.stdout
        assert (work / "server.py").read_text() == SERVER
    check = run_hook(hooks, work, "mcp-migrate", "--all-files")
    assert check.returncode == 1, check.stdout
    assert "server.py:14:20: RT001 " in check.stdout
    assert "1 fixable with `mcp-migrate fix --unsafe-fixes`" in check.stdout


FINDING_LINE = re.compile(r"^\S+\.py:\d+:\d+: [A-Z]+\d+ ", re.M)


@pytest.mark.network
def test_both_hooks_of_the_readme_print_each_finding_once(hooks, tmp_path):
    """The README's snippet configures both hooks; `pre-commit run` runs them one after the
    other on the same files, and each finding is printed once (the fix hook lists only fixes)."""
    snapshot, env = hooks
    work = repo_with_the_readme_config(snapshot, tmp_path / "work")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "mcp-migrate (fix)" in proc.stdout and "- hook id: mcp-migrate\n" in proc.stdout  # both ran
    assert FINDING_LINE.findall(proc.stdout) == ["server.py:14:20: RT001 "], proc.stdout


README = (REPO / "README.md").read_text()
PLACEHOLDER_URL = "https://github.com/OWNER/mcp-migrate"


def readme_precommit_config(repo_url: str) -> str:
    """The README's `.pre-commit-config.yaml` snippet, with the placeholder address replaced."""
    blocks = [b.split("\n```", 1)[0] for b in README.split("```yaml\n")[1:]]
    (snippet,) = [b for b in blocks if b.startswith("repos:")]
    return snippet.replace(PLACEHOLDER_URL, repo_url) + "\n"


def repo_with_the_readme_config(snapshot, work):
    """A git repository holding `SERVER` and the README's pre-commit snippet, its rev the clone's
    head SHA: what a user gets by pasting the snippet and the SHA."""
    head = head_of(snapshot)
    config = readme_precommit_config(str(snapshot)).replace("0123456789abcdef0123456789abcdef01234567", head)
    return make_repo(work, {".pre-commit-config.yaml": config, "server.py": SERVER})


def test_readme_snippet_pins_a_commit_and_autoupdate_writes_one(tmp_path):
    """The snippet names no tag (none exists, and pre-commit stops at a rev it cannot find): its
    rev is a 40-hex commit SHA placeholder, and the README's autoupdate command, run against a
    clone, replaces it with the clone's head SHA. Needs git only, not the package registry."""

    import yaml

    config_text = readme_precommit_config(PLACEHOLDER_URL)
    (repo,) = yaml.safe_load(config_text)["repos"]
    assert re.fullmatch(r"[0-9a-f]{40}", repo["rev"]), repo["rev"]
    assert [h["id"] for h in repo["hooks"]] == ["mcp-migrate-fix", "mcp-migrate"]
    assert "pre-commit autoupdate --bleeding-edge --freeze --repo https://github.com/OWNER/mcp-migrate" in README
    snapshot = make_clone(tmp_path / "hook-repo")
    head = head_of(snapshot)
    work = make_repo(tmp_path / "work", {".pre-commit-config.yaml": readme_precommit_config(str(snapshot))})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "home"), NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--bleeding-edge", "--freeze", "--repo", str(snapshot)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (updated,) = yaml.safe_load((work / ".pre-commit-config.yaml").read_text())["repos"]
    assert updated["rev"] == head


@pytest.mark.network
def test_readme_snippet_runs_with_a_commit_sha_as_rev(hooks, tmp_path):
    """`pre-commit run` (not try-repo) with the README's config, the clone as the repository and
    its head SHA as rev: what a user gets by pasting the snippet and the SHA."""
    snapshot, env = hooks
    work = repo_with_the_readme_config(snapshot, tmp_path / "work")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "mcp-migrate", "--all-files", "--color", "never"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "server.py:14:20: RT001 " in proc.stdout


def test_the_project_runs_its_own_checks_before_each_commit():
    """The project's .pre-commit-config.yaml: ruff format, ruff check (pinned to the ruff the
    test extras install) and the fast test tier CONTRIBUTING.md documents."""
    import yaml  # pre-commit's own dependency, installed with the test extras

    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {hook["id"]: (repo["repo"], repo.get("rev"), hook) for repo in config["repos"] for hook in repo["hooks"]}
    assert hooks["ruff-format"][:2] == hooks["ruff"][:2] == ("https://github.com/astral-sh/ruff-pre-commit", "v0.17.6")
    assert '-m "not slow and not network"' in hooks["fast-tests"][2]["entry"]
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert 'pytest -m "not slow and not network"' in contributing
