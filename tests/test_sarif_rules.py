"""SARIF rule metadata for code scanning: each rule's `helpUri` (its page in the repository,
under a configurable base), tags that say what it is, a `security-severity` on the security rules
so GitHub ranks them, and fix descriptions that name `--unsafe-fixes` where it is needed."""

import json
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from click.testing import CliRunner
from sources import FIXABLE

import mcp_migrate
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.record import replace
from mcp_migrate.output import sarif
from mcp_migrate.run.records import FixProposal

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
SARIF_SCHEMA = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
SERVER = (REPO / "fixtures" / "example" / "server.py").read_text()
EXPECTED_TAGS = {
    "RT001": ["roots"],
    "RT006": ["roots"],
    "RT101": ["security", "roots"],
    "RT103": ["security", "roots"],
    "HA001": ["security", "approval"],
    "HA002": ["security", "approval"],
    "RT900": ["maintenance"],
}


@pytest.fixture
def log(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "client.py").write_text(FIXABLE)
    result = CliRunner().invoke(cli, ["check", "--format", "sarif"], env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


def rules_by_id(log) -> dict:
    return {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}


def test_help_uri_is_the_rule_page_in_the_repository(log):
    rules = rules_by_id(log)
    for code, info in load_catalog().items():
        page = f"{code}-{info.name}.md"
        assert (REPO / "rules" / page).is_file()
        assert rules[code]["helpUri"] == f"{sarif.DOCS_URL}/rules/{page}"


def test_help_uri_base_follows_a_docs_url_setting():
    assert sarif.docs_url() == sarif.DOCS_URL
    base = sarif.docs_url(SimpleNamespace(docs_url="https://git.example.com/team/mcp-migrate/-/blob/v1/"))
    assert base == "https://git.example.com/team/mcp-migrate/-/blob/v1"
    rt001 = next(r for r in sarif.rule_descriptors(base) if r["id"] == "RT001")
    assert rt001["helpUri"] == f"{base}/rules/RT001-roots-request.md"


def test_tags_come_from_the_rule_pages(log):
    rules = rules_by_id(log)
    for code, tags in EXPECTED_TAGS.items():
        assert rules[code]["properties"]["tags"] == tags, code
    for code, info in load_catalog().items():
        assert rules[code]["properties"]["tags"] == list(info.tags), code
        assert info.tags, f"{code} has no tags"
    assert not hasattr(sarif, "TAGS")


def test_security_rules_and_only_they_carry_a_security_severity(log):
    rules = rules_by_id(log)
    security = set()
    for code, rule in rules.items():
        props = rule["properties"]
        if "security" in props.get("tags", []):
            security.add(code)
            score = props["security-severity"]
            assert isinstance(score, str) and 0.0 < float(score) <= 10.0, code
        else:
            assert "security-severity" not in props, code
    assert security == {"RT101", "RT102", "RT103", "HA001", "HA002"}


def test_fix_descriptions_say_which_command_applies_them(log):
    results = log["runs"][0]["results"]
    unsafe = next(r for r in results if r["ruleId"] == "RT001")
    text = unsafe["fixes"][0]["description"]["text"]
    assert "`mcp-migrate fix --unsafe-fixes`" in text and "unsafe" in text
    # The server in the same run still asks for roots: only `--unsafe-fixes`, which migrates it,
    # removes the client's list_changed send (issue 20 §1), and the description says so.
    held = next(r for r in results if r["ruleId"] == "RT004")
    assert "`mcp-migrate fix --unsafe-fixes`" in held["fixes"][0]["description"]["text"]


def test_safe_and_display_fix_descriptions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "client.py").write_text(FIXABLE)
    result = CliRunner().invoke(cli, ["check", "--format", "sarif"], env={"NO_COLOR": "1"}, catch_exceptions=False)
    safe = next(r for r in json.loads(result.stdout)["runs"][0]["results"] if r["ruleId"] == "RT004")
    text = safe["fixes"][0]["description"]["text"]
    assert "`mcp-migrate fix`" in text and "--unsafe-fixes" not in text
    shown = sarif.sarif_fix("a.py", "RT102", True, FixProposal(b"a\n", b"b\n"), display=True)
    assert shown["description"]["text"].startswith(
        "A suggested RT102 change, applied only by `mcp-migrate fix --apply-suggestions`"
    )


@pytest.mark.skipif(not SARIF_SCHEMA.is_file(), reason=f"official SARIF schema not found at {SARIF_SCHEMA}")
def test_rule_metadata_validates_against_the_official_schema(log):
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)


def test_docs_url_config_key_feeds_help_uri(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-migrate]\ndocs-url = "https://git.example.com/t/mm/-/blob/v1/"\n'
    )
    (tmp_path / "server.py").write_text(SERVER)
    result = CliRunner().invoke(cli, ["check", "--output-format", "sarif"], catch_exceptions=False)
    log = json.loads(result.stdout)
    rt001 = rules_by_id(log)["RT001"]
    assert rt001["helpUri"] == "https://git.example.com/t/mm/-/blob/v1/rules/RT001-roots-request.md"
    if SARIF_SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(log)
    shown = CliRunner().invoke(cli, ["config"], catch_exceptions=False).stdout
    assert 'docs-url = "https://git.example.com/t/mm/-/blob/v1"' in shown


def test_security_severity_comes_from_the_rule_pages(log):
    rules = rules_by_id(log)
    for code, info in load_catalog().items():
        assert rules[code]["properties"].get("security-severity", "") == info.security_severity, code
        page = (REPO / "rules" / f"{code}-{info.name}.md").read_text().split("+++")[1]
        assert (f'security-severity = "{info.security_severity}"' in page) == bool(info.security_severity)
    assert not hasattr(sarif, "SECURITY_SEVERITY")


def test_a_bad_security_severity_is_a_catalog_error():
    from mcp_migrate.core.catalog import CatalogError, parse_entry

    page = '+++\ncode = "X1"\nname = "x"\nseverity = "info"\nfix = "none"\nsummary = "s"\n{}\n+++\nbody\n'
    assert parse_entry(page.format('security-severity = "6.5"'), "x.md").security_severity == "6.5"
    for bad in ("security-severity = 6.5", 'security-severity = "eleven"', 'security-severity = "12.0"'):
        with pytest.raises(CatalogError):
            parse_entry(page.format(bad), "x.md")


def test_sarif_fixes_come_from_the_run_not_from_the_reporter(tmp_path, monkeypatch):
    """Reporters only report (issue 9): the runner computes the fixes, sarif_log renders them."""
    from mcp_migrate.core.fix import loop as fixer
    from mcp_migrate.run.proposals import propose_fixes
    from mcp_migrate.run.records import CheckOptions
    from mcp_migrate.run.runner import run_check

    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "client.py").write_text(FIXABLE)
    run = propose_fixes(run_check(["."], CheckOptions()))
    assert {(path, code, unsafe) for path, code, unsafe in run.fixes} == {
        ("server.py", "RT001", True),
        ("client.py", "RT004", True),  # left to --unsafe-fixes while the server asks (issue 20 §1)
    }

    def forbidden(*args, **kwargs):
        raise AssertionError("the SARIF reporter ran the fixer")

    monkeypatch.setattr(fixer, "fix_bytes", forbidden)
    log = sarif.sarif_log(run)
    fixed = {r["ruleId"] for r in log["runs"][0]["results"] if "fixes" in r}
    assert fixed == {"RT001", "RT004"}
    plain = replace(run, fixes={})
    assert not any("fixes" in r for r in sarif.sarif_log(plain)["runs"][0]["results"])


def test_every_result_names_a_rule_of_the_driver_file_level_codes_included(tmp_path, monkeypatch):
    """A SARIF consumer resolves each result's ruleId in the driver: an E997 (over
    max-file-size) result whose rule is missing there is a dangling reference."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-migrate]\nmax-file-size = 64\n")
    (tmp_path / "server.py").write_text(SERVER)
    result = CliRunner().invoke(cli, ["check", "--output-format", "sarif"], catch_exceptions=False)
    log = json.loads(result.stdout)
    results = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert {"E997"} <= results
    assert results <= set(rules_by_id(log))
