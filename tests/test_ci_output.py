"""CI output: the published JSON schema, SARIF 2.1.0 (validated against the official schema),
GitHub workflow commands, --output-file, --exit-zero, --quiet, --statistics."""

import json
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli
from mcp_migrate.output.github import escape_property

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SARIF_SCHEMA = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
FIXABLE = """\
import mcp.types as types
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
    await session.send_notification(types.ClientNotification(types.RootsListChangedNotification()))
"""
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
SUPPRESSED = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()  # mcp-migrate: ignore[RT004] -- vendored, fixed upstream
    await session.send_roots_list_changed()  # noqa: RT004
    x = 1  # noqa: RT001
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "client.py").write_text(FIXABLE)
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "quiet.py").write_text(SUPPRESSED)
    (tmp_path / "broken.py").write_text("from mcp.types import ListRootsResult\ndef f(:\n    ListRootsResult\n")
    return tmp_path


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", "FORCE_COLOR": None}, catch_exceptions=False)


# JSON ----------------------------------------------------------------------------------------
def report_schema() -> dict:
    return json.loads((files("mcp_migrate.schemas") / "report.schema.json").read_text(encoding="utf-8"))


def test_json_output_matches_the_published_schema(project):
    result = run("check", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, report_schema())
    assert {f["code"] for f in doc["findings"]} >= {"RT001", "RT004", "E999", "RT900"}
    reasons = {(s["suppression"]["kind"], s["suppression"]["reason"]) for s in doc["suppressed"]}
    assert reasons == {("ignore", "vendored, fixed upstream"), ("noqa", "")}
    stale = [f for f in doc["findings"] if f["code"] == "RT900"]
    assert [(f["path"], f["line"]) for f in stale] == [("quiet.py", 7)]


def test_json_with_statistics_and_baseline_matches_the_schema(project):
    assert run("check", "--write-baseline", "baseline.json").exit_code == 0
    (project / "client.py").write_text(FIXABLE.replace("    await session.send_notification", "    pass\n    #"))
    result = run("check", "--format", "json", "--statistics", "--baseline", "baseline.json")
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, report_schema())
    assert doc["findings"] == [] and result.exit_code == 0
    assert doc["baseline"]["stale"][0]["code"] == "RT004" and doc["statistics"] == []


def test_schema_rejects_a_malformed_report():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "x", "files_checked": -1, "findings": []}, report_schema())


# SARIF ---------------------------------------------------------------------------------------
def sarif(project, *args):
    result = run("check", "--format", "sarif", *args)
    return result, json.loads(result.stdout)


@pytest.mark.skipif(not SARIF_SCHEMA.is_file(), reason=f"official SARIF schema not found at {SARIF_SCHEMA}")
def test_sarif_validates_against_the_official_schema(project):
    result, log = sarif(project)
    assert result.exit_code == 1
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)


def test_sarif_content(project):
    _, log = sarif(project)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert set(mcp_migrate.core.catalog.load_catalog()) <= set(ids) and "E999" in ids
    rt001 = rules[ids.index("RT001")]
    assert rt001["name"] == "roots-request" and rt001["defaultConfiguration"]["level"] == "error"
    assert rt001["shortDescription"]["text"] and rt001["fullDescription"]["text"] and rt001["help"]["text"]
    by_code = {}
    for res in run_["results"]:
        by_code.setdefault(res["ruleId"], []).append(res)
        assert ids[res["ruleIndex"]] == res["ruleId"]
    region = by_code["RT001"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 14, "startColumn": 20, "endLine": 14, "endColumn": 44}
    location = by_code["RT001"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "server.py", "uriBaseId": "%SRCROOT%"}
    suppressed = [r for r in run_["results"] if "suppressions" in r]
    justifications = sorted(s["suppressions"][0].get("justification", "") for s in suppressed)
    assert justifications == ["", "vendored, fixed upstream"]
    assert all(s["suppressions"][0]["kind"] == "inSource" for s in suppressed)
    assert run_["invocations"][0]["executionSuccessful"] is True


def test_sarif_fixes_reproduce_the_fix_engine(project):
    _, log = sarif(project)
    results = [r for r in log["runs"][0]["results"] if r["ruleId"] == "RT004" and "suppressions" not in r]
    assert len(results) == 2
    (fix,) = results[0]["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "client.py"
    data = (project / "client.py").read_bytes()
    for rep in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["byteOffset"]):
        start = rep["deletedRegion"]["byteOffset"]
        end = start + rep["deletedRegion"]["byteLength"]
        data = data[:start] + rep.get("insertedContent", {}).get("text", "").encode() + data[end:]
    assert run("fix", "client.py").exit_code == 0
    assert data == (project / "client.py").read_bytes()
    no_fix = [r for r in log["runs"][0]["results"] if r["ruleId"] == "E999"]
    assert no_fix and "fixes" not in no_fix[0]


def test_sarif_reports_internal_errors_as_notifications(project, monkeypatch):
    from mcp_migrate.core import engine

    def explode(data, path, settings=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine, "analyze", explode)
    result, log = sarif(project, "client.py")
    assert result.exit_code == 2
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "boom" in invocation["toolExecutionNotifications"][0]["message"]["text"]


# GitHub --------------------------------------------------------------------------------------
def test_github_workflow_commands(project):
    result = run("check", "--format", "github", "server.py", "client.py")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=client.py,line=") or lines[0].startswith("::error file=client.py,line=")
    rt001 = next(line for line in lines if "title=RT001" in line)
    assert rt001.startswith("::error file=server.py,line=14,col=20,endLine=14,endColumn=44,title=RT001::")
    assert "\n" not in rt001 and "(roots-request)" in rt001


def test_github_escaping():
    assert escape_property("a,b:c%d\ne") == "a%2Cb%3Ac%25d%0Ae"


# --output-file, --exit-zero, --quiet, --statistics -----------------------------------------
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_output_file_gets_the_report_and_the_terminal_the_summary(project, fmt):
    result = run("check", "--format", fmt, "--output-file", "report.out", "server.py")
    assert result.exit_code == 1
    # No safe fix came first: the unsafe count is not "more" (issue 13).
    assert result.stdout == "Checked 1 file: 1 finding (RT001: 1); 1 fixable with `mcp-migrate fix --unsafe-fixes`\n"
    written = (project / "report.out").read_text()
    assert "RT001" in written and "\x1b[" not in written
    if fmt in ("json", "sarif"):
        json.loads(written)


def test_exit_zero_quiet_statistics(project):
    assert run("check", "--exit-zero", "server.py").exit_code == 0
    quiet = run("check", "--quiet", "--output-format", "concise", "server.py")
    assert quiet.exit_code == 1 and quiet.stdout.startswith("server.py:14:20: RT001") and "Checked" not in quiet.stdout
    assert quiet.stdout.count("\n") == 1
    quiet_out = run("check", "--quiet", "-o", "r.txt", "server.py")
    assert quiet_out.stdout == "" and "RT001" in (project / "r.txt").read_text()
    stats = run("check", "--statistics", "client.py", "server.py")
    assert stats.exit_code == 1
    assert stats.stdout.splitlines()[:2] == ["2  RT004  [-] roots-list-changed-send", "1  RT001  [-] roots-request"]
    assert stats.stdout.splitlines()[-1].startswith("Checked 2 files: 3 findings")
    bad = run("check", "--statistics", "--format", "sarif")
    assert bad.exit_code == 2 and "--statistics works with" in bad.stderr


def test_exit_zero_still_fails_on_internal_errors(project, monkeypatch):
    from mcp_migrate.core import engine

    monkeypatch.setattr(engine, "analyze", lambda *a, **k: 1 / 0)
    assert run("check", "--exit-zero", "client.py").exit_code == 2


def test_sarif_marks_baselined_results_as_external_suppressions(project):
    assert run("check", "--write-baseline", "b.json", "server.py").exit_code == 0
    result, log = sarif(project, "--baseline", "b.json", "server.py")
    assert result.exit_code == 0
    (res,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "RT001"]
    assert res["suppressions"] == [{"kind": "external", "justification": "recorded in the baseline b.json"}]
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(log)


def test_github_levels_follow_severity(project):
    lines = run("check", "--format", "github", "quiet.py").stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["::notice"]  # RT900 is info
    assert "title=RT900::unused suppression" in lines[0]
