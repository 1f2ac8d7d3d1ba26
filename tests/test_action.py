"""The composite GitHub Action (`action.yml`): its shape, and its shell steps run here as GitHub
would run them (bash, the inputs' defaults in the environment), so the command line it builds
is one our CLI accepts and the SARIF it writes is valid."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from clone import REPO, make_clone

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
SARIF_SCHEMA = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
EXAMPLE = REPO / "fixtures" / "example"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def step(name: str) -> dict:
    (found,) = [s for s in ACTION["runs"]["steps"] if s.get("name") == name]
    return found


def defaults(**overrides) -> dict:
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    values.update(overrides)
    return values


def expand(value: str, inputs: dict, action_path: str = "") -> str:
    """Evaluate the `${{ inputs.x }}` / `${{ github.action_path }}` expressions the action uses."""

    def one(match):
        expr = match.group(1)
        if expr == "github.action_path":
            return action_path
        assert expr.startswith("inputs."), expr
        return inputs[expr[len("inputs.") :]]

    return EXPRESSION.sub(one, value)


def run_step(name: str, inputs: dict, cwd: Path, extra_env=None, action_path: str = "") -> subprocess.CompletedProcess:
    spec = step(name)
    assert spec["shell"] == "bash"
    assert "${{" not in spec["run"], "inputs reach the script through env, never spliced into it"
    env = dict(os.environ)
    env.update({key: expand(value, inputs, action_path) for key, value in spec.get("env", {}).items()})
    env.update(extra_env or {})
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def with_our_cli_on_path() -> dict:
    return {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}


def validate(path: Path) -> dict:
    log = json.loads(path.read_text())
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(log)
    return log


def test_action_shape():
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "args", "sarif-file", "install"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["paths"]["default"] == "."
    assert ACTION["inputs"]["sarif-file"]["default"] == "mcp-migrate.sarif"
    referenced = set()
    for spec in ACTION["runs"]["steps"]:
        text = json.dumps(spec)
        referenced.update(m for m in re.findall(r"inputs\.([\w-]+)", text))
    assert referenced <= set(ACTION["inputs"]), referenced - set(ACTION["inputs"])
    install = step("Install mcp-migrate")
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert "${INSTALL:-$ACTION_PATH}" in install["run"]
    check = step("Run mcp-migrate check")
    assert 'mcp-migrate check --format sarif --output-file "$SARIF_FILE" --exit-zero $ARGS $PATHS' in check["run"]
    upload = step("Upload the SARIF report")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"


def test_check_step_with_the_default_inputs_writes_valid_sarif(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "server.py").write_text((EXAMPLE / "server.py").read_text())
    proc = run_step("Run mcp-migrate check", defaults(), work, with_our_cli_on_path())
    assert proc.returncode == 0, proc.stdout + proc.stderr  # --exit-zero: the upload step still runs
    log = validate(work / "mcp-migrate.sarif")
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["RT001"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "server.py"


def test_check_step_passes_paths_and_args_through(tmp_path):
    inputs = defaults(paths=f"{EXAMPLE / 'server.py'} {EXAMPLE / 'client.py'}", args="--select RT00 --ignore RT004")
    inputs["sarif-file"] = "out/report.sarif"
    (tmp_path / "out").mkdir()
    proc = run_step("Run mcp-migrate check", inputs, tmp_path, with_our_cli_on_path())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = validate(tmp_path / "out" / "report.sarif")
    codes = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert "RT001" in codes and "RT004" not in codes
    assert all(code.startswith("RT00") for code in codes)
    bad = run_step("Run mcp-migrate check", defaults(args="--no-such-option"), tmp_path, with_our_cli_on_path())
    assert bad.returncode == 2, "a bad `args` input fails the step instead of uploading nothing"


@pytest.mark.network
def test_install_step_installs_the_actions_own_checkout(tmp_path):
    """The install step with `install` empty: pip installs `github.action_path` (here a clone)
    into a virtual environment and puts it on the PATH of the following steps."""
    if os.environ.get("MCP_MIGRATE_OFFLINE"):
        pytest.skip("MCP_MIGRATE_OFFLINE is set: installing needs the package registry")
    action_path = make_clone(tmp_path / "action")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    github_path = tmp_path / "github_path"
    github_path.write_text("")
    env = {"RUNNER_TEMP": str(runner_temp), "GITHUB_PATH": str(github_path)}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]  # `python` = ours
    proc = run_step("Install mcp-migrate", defaults(), tmp_path, env, action_path=str(action_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (bin_dir,) = github_path.read_text().split()
    work = tmp_path / "work"
    work.mkdir()
    (work / "server.py").write_text((EXAMPLE / "server.py").read_text())
    path = {"PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    proc = run_step("Run mcp-migrate check", defaults(), work, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert Path(bin_dir, "mcp-migrate").is_file()
    assert [r["ruleId"] for r in validate(work / "mcp-migrate.sarif")["runs"][0]["results"]] == ["RT001"]
