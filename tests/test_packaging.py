"""Every install route the README shows, run as written on a local clone: `pip install .`,
`pipx install .`, and a wheel built with `python -m build` installed into a fresh virtual
environment. A non-editable install must ship the rule catalog (`explain` works from
site-packages, far from the source tree's `rules/` folder) and the licence.

These need the package registry (the build backend and the dependencies); MCP_MIGRATE_OFFLINE=1
skips them. One clone and one built wheel serve the whole module."""

import email
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from clone import REPO, make_clone

pytestmark = pytest.mark.network
VERSION_LINE = "mcp-migrate 0.2.0"


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if os.environ.get("MCP_MIGRATE_OFFLINE"):
        pytest.skip("MCP_MIGRATE_OFFLINE is set: installing needs the package registry")
    return make_clone(tmp_path_factory.mktemp("packaging") / "mcp-migrate")


@pytest.fixture(scope="module")
def dist(clone):
    """`python -m build` in the clone, as the README says: (wheel, sdist)."""
    proc = subprocess.run([sys.executable, "-m", "build"], cwd=clone, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = (clone / "dist").glob("*.whl")
    (sdist,) = (clone / "dist").glob("*.tar.gz")
    return wheel, sdist


def fresh_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return path / "bin"


def pip_install(bin_dir: Path, *args, cwd) -> None:
    proc = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", *args], capture_output=True, text=True, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def assert_installed_tool_works(command: Path, cwd: Path) -> None:
    """--version, a check of the shipped example (exit 1: it has findings), explain, rules."""

    def run(*args):
        return subprocess.run([str(command), *args], capture_output=True, text=True, cwd=cwd)

    version = run("--version")
    assert version.returncode == 0 and version.stdout.strip() == VERSION_LINE, version.stdout + version.stderr
    check = run("check", str(REPO / "fixtures" / "example"))
    assert check.returncode == 1, check.stdout + check.stderr
    assert ":14:20: RT001 " in check.stdout
    explain = run("explain", "RT001")
    assert explain.returncode == 0, explain.stderr
    assert explain.stdout.startswith("RT001 roots-request")
    assert "RT006" in run("rules").stdout


def test_built_wheel_and_sdist_carry_the_licence_and_urls(dist):
    wheel, sdist = dist
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(zf.read(metadata))
        (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert zf.read(licence).decode() == (REPO / "LICENSE").read_text()
        assert any(n.startswith("mcp_migrate/_catalog/RT001-") for n in names)
        # Pages and code, each in its own place: the catalog ships its pages (rules/*.md) only,
        # the rules' package (mcp_migrate/rules/) its code only, and the vocabulary beside it.
        assert "mcp_migrate/rules/rt006_list_changed_flag.py" in names and "mcp_migrate/rules/rt102/rule.py" in names
        assert "mcp_migrate/vocabulary/wire.py" in names
        assert not [n for n in names if n.startswith("mcp_migrate/rules/") and not n.endswith(".py")]
        assert not [n for n in names if n.startswith("mcp_migrate/_catalog/") and not n.endswith((".md", ".py"))]
        assert "mcp_migrate/schemas/report.schema.json" in names
        assert "mcp_migrate/core/sdk_api.json" in names  # the SDKs' API the resolver asks (core/sdk_api.py)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Repository", "Issues", "Changelog"}
    assert not any("License ::" in c for c in meta.get_all("Classifier") or [])
    with tarfile.open(sdist) as tf:
        assert any(n.endswith("/LICENSE") for n in tf.getnames())


def test_built_wheel_installs_into_a_fresh_venv(dist, tmp_path):
    wheel, _ = dist
    bin_dir = fresh_venv(tmp_path / "venv")
    pip_install(bin_dir, str(wheel), cwd=tmp_path)
    assert_installed_tool_works(bin_dir / "mcp-migrate", tmp_path)
    module = subprocess.run(
        [str(bin_dir / "python"), "-m", "mcp_migrate", "--version"], capture_output=True, text=True, cwd=tmp_path
    )
    assert module.stdout.strip() == VERSION_LINE


def test_pip_install_from_a_clone(clone, tmp_path):
    """`python3 -m venv .venv && .venv/bin/pip install .` in the clone."""
    bin_dir = fresh_venv(tmp_path / ".venv")
    pip_install(bin_dir, ".", cwd=clone)
    assert_installed_tool_works(bin_dir / "mcp-migrate", tmp_path)


def test_pipx_install_from_a_clone(clone, tmp_path):
    """`pipx install .` in the clone, with pipx's folders kept under tmp_path."""
    env = dict(os.environ)
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"), PIPX_MAN_DIR=str(tmp_path / "man"))
    env.pop("PIPX_DEFAULT_PYTHON", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pipx", "install", "."], cwd=clone, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert_installed_tool_works(tmp_path / "bin" / "mcp-migrate", tmp_path)
