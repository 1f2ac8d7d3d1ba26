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


# ----- pinned versions, the fork rule, and the workflow that runs the Action on this repository --
WORKFLOW_PATH = REPO / ".github" / "workflows" / "mcp-migrate.yml"
_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||[!()])|(?P<name>[A-Za-z_][\w.-]*))")


def evaluate(expression: str, context: dict):
    """A GitHub Actions expression over `context` (the subset action.yml uses: property paths,
    string literals, `!`, `==`/`!=` (case-insensitive on strings), `&&`, `||`, parentheses; a
    missing property is null), so a step's `if:` is tested as the runner decides it."""
    tokens, pos = [], 0
    text = expression.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        assert match and match.end() > pos, f"cannot read {text[pos:]!r}"
        tokens.append(match.group("str") or match.group("op") or match.group("name"))
        pos = match.end()
    tokens.append(None)
    index = 0

    def peek():
        return tokens[index]

    def take():
        nonlocal index
        index += 1
        return tokens[index - 1]

    def value(name: str):
        if name in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[name]
        current = context
        for part in name.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        return current

    def primary():
        token = take()
        if token == "(":
            result = either()
            assert take() == ")"
            return result
        if token == "!":
            return not primary()
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        return value(token)

    def comparison():
        left = primary()
        while peek() in ("==", "!="):
            op, right = take(), primary()
            same = (
                (left.lower() == right.lower()) if isinstance(left, str) and isinstance(right, str) else left == right
            )
            left = same if op == "==" else not same
        return left

    def both():
        left = comparison()
        while peek() == "&&":
            take()
            right = comparison()
            left = right if left else left
        return left

    def either():
        left = both()
        while peek() == "||":
            take()
            right = both()
            left = left if left else right
        return left

    result = either()
    assert peek() is None, f"unread tokens in {expression!r}: {tokens[index:]}"
    return bool(result)


def github_context(event: str, head_repo: str = "owner/mcp-migrate") -> dict:
    context = {"event_name": event, "repository": "owner/mcp-migrate", "event": {}}
    if event == "pull_request":
        context["event"] = {"pull_request": {"head": {"repo": {"full_name": head_repo}}}}
    return context


def runs(step_name: str, inputs: dict, github: dict) -> bool:
    condition = step(step_name).get("if", "true")
    return evaluate(condition, {"inputs": inputs, "github": github})


def test_action_pins_the_current_majors():
    uses = [s["uses"] for s in ACTION["runs"]["steps"] if "uses" in s]
    assert uses == ["actions/setup-python@v6", "github/codeql-action/upload-sarif@v4"]
    text = (REPO / "action.yml").read_text()
    assert "@v3" not in text and "setup-python@v5" not in text


@pytest.mark.parametrize(
    ("event", "head", "upload", "uploads", "notice"),
    [
        ("push", None, "true", True, False),
        ("pull_request", "owner/mcp-migrate", "true", True, False),  # a branch of this repository
        ("pull_request", "someone/mcp-migrate", "true", False, True),  # a fork: read-only token
        ("pull_request", "OWNER/MCP-MIGRATE", "true", True, False),  # names compare case-insensitively
        ("push", None, "false", False, False),
        ("pull_request", "someone/mcp-migrate", "false", False, False),
        ("workflow_dispatch", None, "true", True, False),
    ],
)
def test_the_upload_is_skipped_cleanly_on_a_pull_request_from_a_fork(event, head, upload, uploads, notice):
    github = github_context(event, head or "owner/mcp-migrate")
    inputs = defaults(upload=upload)
    assert runs("Upload the SARIF report", inputs, github) is uploads
    assert runs("Skip the upload on a pull request from a fork", inputs, github) is notice


def test_the_fork_notice_step_says_what_was_not_uploaded(tmp_path):
    proc = run_step("Skip the upload on a pull request from a fork", defaults(), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "::notice title=mcp-migrate::pull request from a fork: mcp-migrate.sarif not uploaded to code"
        " scanning (its token cannot write security events)\n"
    )


def test_the_workflow_runs_the_action_on_this_repository():
    workflow = yaml.safe_load(WORKFLOW_PATH.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"push", "pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    steps = job["steps"]
    assert steps[0] == {"uses": "actions/checkout@v6"}
    (action,) = [s for s in steps if s.get("uses") == "./"]
    assert set(action["with"]) <= set(ACTION["inputs"])
    for spec in steps:
        if "run" in spec:
            assert spec["shell"] == "bash"


def test_the_workflow_steps_pass_here(tmp_path):
    """The workflow's steps in order, here: the Action's check step with the workflow's inputs
    (run from the repository root, as on the runner), then the workflow's own shell steps with
    the Action's output and our CLI on the PATH."""
    workflow = yaml.safe_load(WORKFLOW_PATH.read_text())
    (job,) = workflow["jobs"].values()
    (action,) = [s for s in job["steps"] if s.get("uses") == "./"]
    inputs = defaults(**action["with"])
    inputs["sarif-file"] = str(tmp_path / "self.sarif")
    env = with_our_cli_on_path()
    env["MCP_MIGRATE_CACHE_DIR"] = str(tmp_path / "cache")
    proc = run_step("Run mcp-migrate check", inputs, REPO, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = validate(tmp_path / "self.sarif")
    assert log["runs"][0]["tool"]["driver"]["name"] == "mcp-migrate"
    outputs = {"sarif-file": inputs["sarif-file"]}
    for spec in job["steps"]:
        if "run" not in spec:
            continue
        step_env = dict(os.environ, **env)
        for key, value in spec.get("env", {}).items():
            step_env[key] = EXPRESSION.sub(lambda m: outputs[m.group(1).split(".")[-1]], value)
        assert "${{" not in spec["run"]
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
            cwd=REPO,
            env=step_env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (spec["name"], done.stdout, done.stderr)
