"""A non-editable install in a fresh virtual environment ships the rule catalog: `explain`
must work from site-packages, far from the source tree's `rules/` folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.network
def test_wheel_install_can_explain(tmp_path):
    if os.environ.get("MCP_MIGRATE_OFFLINE"):
        pytest.skip("MCP_MIGRATE_OFFLINE is set: installing needs the package registry")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(REPO)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    explain = subprocess.run(
        [str(venv / "bin" / "mcp-migrate"), "explain", "RT001"], capture_output=True, text=True, cwd=tmp_path
    )
    assert explain.returncode == 0, explain.stderr
    assert explain.stdout.startswith("RT001 roots-request")
    listing = subprocess.run([str(venv / "bin" / "mcp-migrate"), "rules"], capture_output=True, text=True, cwd=tmp_path)
    assert "RT006" in listing.stdout
    check = subprocess.run(
        [str(python), "-m", "mcp_migrate", "check", str(REPO / "fixtures" / "example")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert check.returncode == 1 and "RT001" in check.stdout
