"""A local clone of this repository as it is now, for the tests that install it the way the
README tells a user to (pip, pipx, a built wheel, pre-commit try-repo).

The clone holds what `git clone` would give plus uncommitted and untracked (not ignored)
changes, committed in a fresh git repository, so a test sees the working tree and never writes
`build/` or `*.egg-info` into it. Outside a git checkout (an unpacked sdist) it copies the tree
minus the usual build and cache folders."""

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_JUNK = (".git", ".venv", "venv", "build", "dist", "__pycache__", "*.pyc", "*.egg-info", ".pytest_cache", ".hypothesis")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _tracked_and_untracked() -> list:
    proc = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
    )
    if proc.returncode != 0:
        return []
    return [name for name in proc.stdout.decode("utf-8").split("\0") if name]


def make_clone(dest: Path) -> Path:
    """Copy the repository into `dest` (which must not exist) and commit it there."""
    names = _tracked_and_untracked()
    if names:
        dest.mkdir(parents=True)
        for name in names:
            source = REPO / name
            if source.is_file():  # a tracked file deleted in the working tree is gone
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / name)
    else:
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*_JUNK))
    return commit_all(dest, "snapshot")


def commit_all(root: Path, message: str) -> Path:
    """Make `root` a git repository whose one commit holds everything in it."""
    git(root, "init", "-q")
    git(root, "config", "user.name", "mcp-migrate tests")
    git(root, "config", "user.email", "tests@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return root
