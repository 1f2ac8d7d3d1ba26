"""The project checks its own source clean: the package and the benchmarks hold the method
strings and root checks in code that reads code or writes test data, and none of it is a finding
(`mcp-migrate check mcp_migrate benchmarks`, as a user would run it on this repository)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_project_checks_its_own_source_clean():
    done = subprocess.run(
        [sys.executable, "-m", "mcp_migrate", "check", "mcp_migrate", "benchmarks", "--no-cache", "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
