"""Start-up and small runs (issue 22 §2): a file no rule can report on costs neither LibCST, nor
the rules, nor rich; the gate the runner tests first is exactly the engine's; one results cache
serves every output format; `mcp-migrate clean` removes the caches mcp-migrate made, and only
those. What is counted here is work (modules loaded, files checked), never time."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate import api
from mcp_migrate.commands.cli import cli
from mcp_migrate.core import screening
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.gates import client_side, gate_tokens, may_report
from mcp_migrate.core.settings import Settings
from mcp_migrate.rules import all_rules
from mcp_migrate.run import analysis

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

RUN = """
import json, sys
from mcp_migrate.commands.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
"""
PROBE = (
    RUN
    + """
names = sorted(sys.modules)
print(json.dumps({
    "libcst": "libcst" in sys.modules,
    "codemod": "libcst.codemod" in sys.modules,
    "rich": any(n == "rich" or n.startswith("rich.") for n in names),
    "rules": [n for n in names if n == "mcp_migrate.rules" or n.startswith(("mcp_migrate.rules.", "mcp_migrate.vocabulary"))],
}))
"""
)

CLEAN = "import os\n\n\ndef join(a, b):\n    return os.path.join(a, b)\n"
ONE_FINDING = (REPO / "fixtures" / "example" / "server.py").read_text()


def loaded(tmp_path: Path, *args: str, probe: str = PROBE) -> dict:
    """What a fresh `mcp-migrate ARGS` process imported (stdout piped: not a terminal)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    out = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.splitlines()[-1])


def test_a_file_without_a_finding_loads_no_libcst_no_rule_no_rich(tmp_path):
    (tmp_path / "plain.py").write_text(CLEAN)
    for args in (("check", "--no-cache", "plain.py"), ("check", "plain.py"), ("fix", "plain.py")):
        seen = loaded(tmp_path, *args)
        assert seen == {"libcst": False, "codemod": False, "rich": False, "rules": []}, args


def test_a_run_without_a_pool_loads_no_pool_board_and_no_pickle(tmp_path):
    """The pool's board (run.board, with `pickle`) is made with a pool only: 7 M instructions
    of a check that starts none (issue 37)."""
    (tmp_path / "plain.py").write_text(CLEAN)
    probe = RUN + 'print(json.dumps(["pickle" in sys.modules, "mcp_migrate.run.board" in sys.modules]))'
    for args in (("check", "--no-cache", "plain.py"), ("check", "--no-cache", "-j", "1", "."), ("fix", "plain.py")):
        assert loaded(tmp_path, *args, probe=probe) == [False, False], args


#: MCP code the gate lets through (it names MCP) and no rule's screens keep: the screens decide.
GATED = "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n\n\n@mcp.tool()\ndef ping() -> str:\n    return 'pong'\n"


def _rule_modules(seen: dict) -> list:
    """The rule modules (not their screens) and LibCST-using vocabulary a run loaded."""
    from mcp_migrate.rules import is_screen_module

    light = {"mcp_migrate.rules", "mcp_migrate.vocabulary"} | {f"mcp_migrate.vocabulary.{m}" for m in LIGHT_VOCABULARY}
    packages = {n.rpartition(".")[0] for n in seen["rules"]}  # `rules.rt102`, above its screen
    return [n for n in seen["rules"] if n not in light | packages and not is_screen_module(n)]


#: The vocabulary the screens read: none of it imports LibCST (test_screens_load_no_libcst).
LIGHT_VOCABULARY = (
    "capabilities_screen",
    "effects",
    "helper_screens",
    "imported_asks",
    "roots_api_names",
    "typed_doers",
    "wire_names",
    "wire_screen",
    "wrappers_screen",
)


def test_a_file_the_gate_lets_through_and_no_screen_keeps_loads_no_libcst_and_no_rule(tmp_path):
    """Issue 37: LibCST and the rules are loaded only for a file that passes the screens; the
    rules' screens live in modules of their own (`<rule>_screen`) that the rules inherit."""
    (tmp_path / "server.py").write_text(GATED)
    for args in (("check", "--no-cache", "server.py"), ("check", "server.py"), ("fix", "--no-cache", "server.py")):
        seen = loaded(tmp_path, *args)
        assert (seen["libcst"], seen["rich"], _rule_modules(seen)) == (False, False, []), args
        assert "mcp_migrate.rules.rt001_screen" in seen["rules"], args  # the screens did run


def test_a_pooled_check_whose_files_no_screen_keeps_loads_no_libcst(tmp_path):
    """The screening loop before a pool (run.schedule) finishes such files itself."""
    from mcp_migrate.run.schedule import POOL_THRESHOLD

    for i in range(POOL_THRESHOLD + 2):
        (tmp_path / f"s{i}.py").write_text(GATED)
    seen = loaded(tmp_path, "check", "--no-cache", "-j", "2", ".")
    assert (seen["libcst"], _rule_modules(seen)) == (False, []), seen


SCREENS_ONLY = """
import json, sys
from mcp_migrate import api
from mcp_migrate.core import screening, limits
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.vocabulary import {vocabulary}
classes = api.screen_classes(frozenset(load_catalog()), (("RT001", ("app.get_roots",)),))
print(json.dumps({{"libcst": "libcst" in sys.modules, "codes": [c.CODE for c in classes]}}))
"""


def test_screens_load_no_libcst():
    """Every rule's screens, the screening and the vocabulary they read import no LibCST."""
    probe = SCREENS_ONLY.format(vocabulary=", ".join(LIGHT_VOCABULARY))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    seen = json.loads(out.splitlines()[-1])
    assert seen["libcst"] is False
    assert seen["codes"] == [
        rule.CODE for rule in api.rule_classes(frozenset(load_catalog()), (("RT001", ("app.get_roots",)),))
    ]


def test_each_rule_inherits_its_screens():
    """The run screens with `screen_classes` and the engine runs `rule_classes`: the same codes,
    in the same order, each rule a subclass of its screens (so both answer alike)."""
    select, apis = frozenset(load_catalog()), (("RT004", ("app.notify",)),)
    rules, screens = api.rule_classes(select, apis), api.screen_classes(select, apis)
    assert [r.CODE for r in rules] == [s.CODE for s in screens] and len(rules) >= 11
    assert all(issubclass(rule, screen) and rule is not screen for rule, screen in zip(rules, screens))


def test_a_file_the_screens_pass_is_screened_once(tmp_path, monkeypatch):
    """The runner screens with the screens' classes and the engine checks with the rules: the
    view's last answer serves both (the syntax screen reads the file once)."""
    from mcp_migrate.core import screening
    from mcp_migrate.core.project_view import ProjectView
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions
    from mcp_migrate.run.schedule import _decided_without_rules

    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(ONE_FINDING)
    calls = []
    real = screening._screens
    monkeypatch.setattr(screening, "_screens", lambda *args: calls.append(args[0]) or real(*args))
    source, settings = plan(["server.py"], CheckOptions()).items[0]
    settings = dataclasses.replace(settings, view=ProjectView())
    data = (tmp_path / "server.py").read_bytes()
    assert _decided_without_rules(source, settings, data) is None  # left to LibCST
    result = analysis.check(data, source.display, settings)
    assert [f.code for f in result.findings] == ["RT001"] and len(calls) == 1


def test_a_file_with_a_finding_loads_neither_rich_off_a_terminal_nor_the_codemod(tmp_path):
    (tmp_path / "server.py").write_text(ONE_FINDING)
    concise = loaded(tmp_path, "check", "--no-cache", "--output-format", "concise", "server.py")
    assert concise["libcst"] and concise["rules"] and not concise["rich"] and not concise["codemod"]
    full = loaded(tmp_path, "check", "--no-cache", "server.py")
    assert full["libcst"] and not full["rich"] and not full["codemod"]  # its preview removes an import plainly


def test_configparser_loads_only_for_a_pytest_ini_file(tmp_path):
    """The fix previews read pytest's warning filters; an INI file's need `configparser`
    (8 M instructions), a project without one never loads it (issue 37)."""
    (tmp_path / "server.py").write_text(ONE_FINDING)
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\nfilterwarnings = []\n")
    probe = RUN + 'print(json.dumps("configparser" in sys.modules))'
    assert loaded(tmp_path, "check", "--no-cache", "server.py", probe=probe) is False
    (tmp_path / "tox.ini").write_text("[pytest]\nfilterwarnings =\n    ignore::DeprecationWarning\n")
    read = (
        "import json, sys\nfrom pathlib import Path\nfrom mcp_migrate.core.fix import layout\n"
        "before = 'configparser' in sys.modules\n"
        "print(json.dumps([before, layout._filters(Path('pyproject.toml'), None), 'configparser' in sys.modules,"
        " layout._filters(Path('tox.ini'), 'pytest'), 'configparser' in sys.modules]))"
    )
    assert loaded(tmp_path, probe=read) == [False, [], False, ["", "ignore::DeprecationWarning"], True]


def test_a_piped_run_over_more_files_than_the_progress_bar_needs_loads_no_rich(tmp_path):
    from mcp_migrate.output.progress import THRESHOLD

    for i in range(THRESHOLD + 1):
        (tmp_path / f"m{i}.py").write_text(CLEAN)
    assert loaded(tmp_path, "check", "--no-cache", ".")["rich"] is False


def test_a_warm_run_where_a_server_asks_loads_no_libcst_and_no_rule(tmp_path):
    """Every result from the cache, and a server still asking in the run: coordinating the
    client side's fixes reads which rules are kept from the catalog (core.gates), not from the
    rules."""
    for name in ("client.py", "server.py"):
        (tmp_path / name).write_bytes((FIXTURES / "example" / name).read_bytes())
    args = ("check", "--output-format", "concise", ".")
    assert loaded(tmp_path, *args)["libcst"]  # the cold run fills the cache
    assert loaded(tmp_path, *args) == {"libcst": False, "codemod": False, "rich": False, "rules": []}


def _older_than_the_trust_margin(path: Path) -> None:
    """Wait until `path`'s ctime is older than the cache's trust margin, so the cold run records
    its stat. Otherwise a warm run that starts past the margin (a loaded machine) records the
    now-trusted stat, a write this test would take for a warm run's (project.cache)."""
    from mcp_migrate.project.cache import TRUST_MARGIN_NS

    while time.time_ns() - path.stat().st_ctime_ns <= TRUST_MARGIN_NS:
        time.sleep(0.1)


def test_a_warm_run_writes_nothing_and_loads_no_writer_machinery(tmp_path):
    """The cache's module imports the file writer (it replaces its tables the same way); a run
    served from the cache writes nothing, so it does not pay for `tempfile` (7 ms of a 0.16 s
    warm run)."""
    (tmp_path / "server.py").write_bytes((FIXTURES / "example" / "server.py").read_bytes())
    _older_than_the_trust_margin(tmp_path / "server.py")
    probe = RUN + 'print(json.dumps({"tempfile": "tempfile" in sys.modules}))'
    args = ("check", "--output-format", "concise", ".")
    assert loaded(tmp_path, *args, probe=probe) == {"tempfile": True}  # the cold run writes the cache
    assert loaded(tmp_path, *args, probe=probe) == {"tempfile": False}


def test_each_rules_client_side_is_its_page():
    """`side = "client"` on a rule's page is what the engine withholds and what the run plans
    with, and no rule class says it again."""
    assert {rule.CODE for rule in all_rules() if rule.kept_while_server_asks()} == client_side()
    assert client_side() == {"RT002", "RT003", "RT004", "RT005", "RT006"}
    assert not [rule.CODE for rule in all_rules() if "KEPT_WHILE_SERVER_ASKS" in vars(rule)]


# The runner's gate is the engine's ---------------------------------------------------------
def test_each_rule_gate_is_its_page():
    """A rule's gate is said once, on its page (`gate`): the class reads it, and no class
    carries one of its own."""
    catalog = load_catalog()
    for rule in all_rules():
        assert catalog[rule.CODE].gate, f"{rule.CODE}: its page names no gate"
        assert rule.gate() == catalog[rule.CODE].gate, rule.CODE
        assert not {"GATE", "gate"} & set(vars(rule)), rule.CODE
    assert catalog["RT001"].gate == (b"oots", b"OOTS", b"mcp", b"MCP", b"Mcp")
    assert catalog["HA001"].gate == (b"Hint", b"_hint")


SELECTIONS = [
    frozenset(api.default_settings().select),
    frozenset({"RT001"}),
    frozenset({"HA001", "RT103"}),
    frozenset({"RT901"}),
    frozenset({"RT900"}),
    frozenset(),
]
APIS = [(), (("RT001", ("myapp.mcp.get_client_roots",)),), (("RT004", ("pkg.notify_dirs",)),)]


@pytest.mark.parametrize("select", SELECTIONS)
@pytest.mark.parametrize("apis", APIS)
def test_the_light_gate_equals_the_engines(select, apis):
    settings = Settings(select=select, extend_apis=tuple(a for a in apis if a[0] in select))
    light = set(gate_tokens(settings.select, settings.extend_apis))
    assert light == set(screening._gate_tokens(settings, api.with_rules(settings).rules))
    assert light == set(screening._gate_tokens(settings, api.screen_classes(settings.select, settings.extend_apis)))


def test_the_gate_first_changes_no_result_on_any_fixture(monkeypatch):
    """analysis.check with the gate tested first, and with it forced open, on every fixture."""
    plain = Settings(select=api.default_settings().select)
    import json as stdlib_json
    import textwrap

    cases = [(path.name, path.read_bytes()) for path in sorted(FIXTURES.glob("**/*.py"))]
    cases += [(Path(m.__file__).name, Path(m.__file__).read_bytes()) for m in (textwrap, stdlib_json.encoder)]
    cases += [("plain.py", CLEAN.encode())]
    fixtures = [path.relative_to(FIXTURES).as_posix() for path in sorted(FIXTURES.glob("**/*.py"))]
    names = fixtures + ["textwrap.py", "encoder.py", "plain.py"]
    closed = [name for name, (_, data) in zip(names, cases) if not may_report(data, plain)]
    gated = [analysis.check(data, name, plain).findings for name, data in cases]
    monkeypatch.setattr(analysis, "may_report", lambda data, settings: True)
    assert gated == [analysis.check(data, name, plain).findings for name, data in cases]
    # The gate closes the files without MCP vocabulary: the two standard-library modules, the
    # plain one, and the support modules of the cross-module fixtures (packages whose project
    # classes type a receiver for a fixture beside them; none has a finding of its own).
    assert closed == [
        "RT001/typed_app/__init__.py",
        "RT001/typed_app/server/__init__.py",
        "RT004/typed_kit/__init__.py",
        "RT004/typed_kit/client.py",
        "RT004/typed_kit/connectors/__init__.py",
        "RT004/typed_kit/session.py",
        "textwrap.py",
        "encoder.py",
        "plain.py",
    ]


def test_a_coding_cookie_the_engine_refuses_is_still_reported():
    data = b"# -*- coding: utf-16 -*-\nx = 1\n"
    result = analysis.check(data, "u.py", Settings(select=frozenset({"RT001"})))
    assert [f.code for f in result.findings] == ["E902"]


def test_planned_settings_carry_no_rule_classes_until_a_file_opens_the_gate(tmp_path, monkeypatch):
    from mcp_migrate.run.plan import plan
    from mcp_migrate.run.records import CheckOptions

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(CLEAN)
    items = plan(["a.py"], CheckOptions()).items
    assert items and all(settings.rules == () for _, settings in items)
    assert api.with_rules(items[0][1]).rules  # the API fills them in


# One cache for every output format --------------------------------------------------------
def _verbose(*args) -> str:
    result = CliRunner().invoke(cli, ["check", "-v", *args], catch_exceptions=False)
    return next(line for line in result.stderr.splitlines() if "check:" in line)


def test_one_cache_serves_every_output_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(ONE_FINDING)
    (tmp_path / "plain.py").write_text(CLEAN)
    (tmp_path / "mcp_only.py").write_text("from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('x')\n")
    assert "0 from the cache, 3 analysed" in _verbose("--output-format", "sarif", ".")
    assert "3 from the cache, 0 analysed" in _verbose("--output-format", "github", ".")
    assert "3 from the cache, 0 analysed" in _verbose("--output-format", "concise", ".")
    assert "3 from the cache, 0 analysed" in _verbose(".")  # full: the previews were stored by sarif


def test_a_run_that_shows_fixes_completes_a_cached_result_without_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(ONE_FINDING)
    (tmp_path / "plain.py").write_text(CLEAN)
    assert "0 from the cache, 2 analysed" in _verbose("--output-format", "github", ".")
    assert "1 from the cache, 1 analysed" in _verbose(".")  # only the file with a fixable finding
    assert "2 from the cache, 0 analysed" in _verbose(".")
    assert "2 from the cache, 0 analysed" in _verbose("--output-format", "json", ".")
    shown = CliRunner().invoke(cli, ["check", "server.py"]).stdout
    assert "= unsafe fix" in shown and "+ from typing import Annotated" in shown


# mcp-migrate clean ----------------------------------------------------------------------------
def clean(*args):
    return CliRunner().invoke(cli, ["clean", *args], catch_exceptions=False)


@pytest.fixture
def default_cache(monkeypatch):
    """The cache where a project keeps it (conftest gives every test a private one)."""
    monkeypatch.delenv("MCP_MIGRATE_CACHE_DIR")


def test_clean_removes_the_caches_mcp_migrate_made(tmp_path, monkeypatch, default_cache):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(ONE_FINDING)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[tool.mcp-migrate]\n")
    (sub / "b.py").write_text(ONE_FINDING)
    assert CliRunner().invoke(cli, ["check", "-q", "a.py"]).exit_code == 1
    assert CliRunner().invoke(cli, ["check", "-q", "sub"]).exit_code == 1  # the sub-project's own cache
    assert (tmp_path / ".mcp_migrate_cache").is_dir() and (sub / ".mcp_migrate_cache").is_dir()
    result = clean()
    assert result.exit_code == 0
    assert result.stdout == "Removing cache at: .mcp_migrate_cache\nRemoving cache at: sub/.mcp_migrate_cache\n"
    assert not (tmp_path / ".mcp_migrate_cache").exists() and not (sub / ".mcp_migrate_cache").exists()
    assert (tmp_path / "a.py").is_file() and (sub / "b.py").is_file()
    again = clean()
    assert again.exit_code == 0 and again.stdout == "" and again.stderr == ""


def test_clean_leaves_a_folder_mcp_migrate_did_not_make(tmp_path, monkeypatch, default_cache):
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / ".mcp_migrate_cache"
    committed.mkdir()
    (committed / ".mcp-migrate-owner").write_text("0123 forged\n")
    (committed / "data.json").write_text("{}")
    result = clean()
    assert result.exit_code == 0 and result.stdout == ""
    assert "no owner mark of mcp-migrate for this user" in result.stderr
    assert (committed / "data.json").is_file()


def test_clean_removes_a_configured_cache_dir_but_never_through_a_symlink(tmp_path, monkeypatch, default_cache):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "build/lint-cache"\n')
    (tmp_path / "a.py").write_text(ONE_FINDING)
    assert CliRunner().invoke(cli, ["check", "-q", "."]).exit_code == 1
    assert (tmp_path / "build" / "lint-cache").is_dir()
    assert clean().stdout == "Removing cache at: build/lint-cache\n"
    assert not (tmp_path / "build" / "lint-cache").exists() and (tmp_path / "build").is_dir()
    assert CliRunner().invoke(cli, ["check", "-q", "."]).exit_code == 1
    (tmp_path / "build" / "lint-cache").rename(tmp_path / "real-cache")
    (tmp_path / "build" / "lint-cache").symlink_to(tmp_path / "real-cache")
    result = clean()
    assert "is a symlink: not removed" in result.stderr and (tmp_path / "real-cache").is_dir()


def test_clean_removes_the_cache_the_environment_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(elsewhere))
    (tmp_path / "a.py").write_text(ONE_FINDING)
    assert CliRunner().invoke(cli, ["check", "-q", "a.py"]).exit_code == 1 and elsewhere.is_dir()
    assert clean().stdout == "Removing cache at: elsewhere\n" and not elsewhere.exists()


# Unstyled text is written without rich, exactly as rich wrote it -----------------------------
@pytest.mark.parametrize("mode", ["full", "concise", "grouped", "full-without-tabs"])
def test_plain_output_is_what_rich_printed(tmp_path, monkeypatch, mode):
    import io
    import shutil

    from mcp_migrate.output import report
    from mcp_migrate.run.proposals import propose_fixes
    from mcp_migrate.run.records import CheckOptions
    from mcp_migrate.run.runner import run_check

    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "migrate", tree)
    (tree / "wide.py").write_text("# 見る\n" + ONE_FINDING.replace("ctx: Context", "ctx: Context  # ünïcödé ☃ 漢字"))
    if mode == "full":  # a tab in a source line: rich expands it, so rich prints this run
        (tree / "tabbed.py").write_text(ONE_FINDING.replace("    found = []", "\tfound = []", 1))
    monkeypatch.chdir(tmp_path)
    run = propose_fixes(run_check(["tree"], CheckOptions(previews=mode.startswith("full"))))
    assert len(run.findings) > 20

    def printed() -> str:
        out = io.StringIO()
        report.print_text(run, color=True, file=out, full=mode.startswith("full"), grouped=mode == "grouped")
        return out.getvalue()

    plain = printed()
    monkeypatch.setattr(report, "_plain_target", lambda color, file: None)
    assert plain == printed()


# Orphaned imports removed without LibCST's codemod, exactly as it removes them ---------------
def _all_fixes(path: Path) -> list:
    """Every way one fixture is fixed: each strategy's unsafe fix, and the rules' previews."""
    from mcp_migrate.core.fix.loop import analysis_previews
    from mcp_migrate.core.settings import STRATEGIES

    out = []
    data = path.read_bytes()
    for strategy in (None, *STRATEGIES):
        chosen = api.default_settings(strategy=strategy)
        fixed = api.fix_bytes(data, path.name, chosen, unsafe=True)
        out.append((path.name, strategy, fixed.fixed_source, [e.message for e in fixed.errors]))
    out.append((path.name, "previews", analysis_previews(api.analyze(data, path.name), data, path.name)))
    return out


def test_the_plain_import_removal_equals_the_codemods_on_every_fixture(monkeypatch):
    """The fixtures whose fixes remove an orphaned import are fixed again with the codemod
    alone; the others never ask for a removal, so the way it is made cannot change them."""
    from mcp_migrate.core.fix import imports

    taken = []
    asked: set = set()
    real = imports._plain_removal
    current: list = [None]

    def counted(module, orphaned, words):
        done = real(module, orphaned, words)
        taken.append(done is not None)
        asked.add(current[0])
        return done

    monkeypatch.setattr(imports, "_plain_removal", counted)
    plain = {}
    for path in sorted(FIXTURES.glob("**/*.py")):
        current[0] = path
        plain[path] = _all_fixes(path)
    # every fixture's removals now take the plain way (the strings naming an orphaned import were
    # all docstrings); the codemod's cases: test_a_string_the_codemod_never_reads_leaves_the_...
    assert sum(taken) > 50 and len(asked) > 20
    monkeypatch.setattr(imports, "_plain_removal", lambda module, orphaned, words: None)
    for path in sorted(asked):
        assert plain[path] == _all_fixes(path), path


@pytest.mark.parametrize(
    "source, plain",
    [
        ('"""X."""\nfrom a import X\n\n\ndef f():\n    """Returns X."""\nuse(X)\n', True),
        ('from a import X\n\nlog("see X", url="http://h/X")\nuse(X)\n', True),  # never read as code
        ('from a import X\n\nlog(f"see {1} X")\nuse(X)\n', True),
        # (a string that is the name alone counts as a use: such an import is never orphaned)
        ('from a import X\n\n\ndef f(v: "list[X]"):\n    pass\nuse(X)\n', False),  # an annotation
        ('from a import X\n\n\ndef f() -> "list[X]":\n    pass\nuse(X)\n', False),
        ('from a import X\nfrom typing import Optional\n\nT = Optional["list[X]"]\nuse(X)\n', False),
        ('from a import X\nfrom typing import cast\n\ny = cast("list[X]", 1)\nuse(X)\n', False),
        ('from a import X\nfrom typing import cast as c\n\ny = c("list[X]", 1)\nuse(X)\n', False),
        ('from a import X\nimport typing as t\n\nV = t.TypeVar("V", bound="list[X]")\nuse(X)\n', False),
        ('from a import X\n\n__all__ = ["f"]\n\n\ndef f():\n    """X."""\nuse(X)\n', False),  # exports
    ],
)
def test_a_string_the_codemod_never_reads_leaves_the_removal_plain(monkeypatch, source, plain):
    """Only strings the codemod's analysis reads as code (annotations, subscripts, `cast`,
    `TypeVar` and `NewType` arguments, a module with `__all__`) can keep an import alive: an
    import a docstring, a log message or a URL mentions is removed the plain way, with the
    codemod's result; the others go to the codemod."""
    import libcst as cst

    from mcp_migrate.core.fix import imports

    taken = []
    real = imports._plain_removal
    monkeypatch.setattr(imports, "_plain_removal", lambda *args: taken.append(real(*args)) or taken[-1])
    before = cst.parse_module(source)
    after = cst.parse_module("".join(line for line in source.splitlines(True) if not line.startswith("use(")))
    fast = imports.remove_orphaned_imports(before, after).code
    assert (taken[0] is not None) == plain
    monkeypatch.setattr(imports, "_plain_removal", lambda module, orphaned, words: None)
    assert fast == imports.remove_orphaned_imports(before, after).code
    assert plain <= ("from a import X" not in fast)  # removed where the plain way took it


@pytest.mark.parametrize(
    "source",
    [
        "from a import (\n    X,  # keep me\n    Y,\n)\nfrom b import Z as W, V\nimport c.d, e\n\nprint(Y, V, e)\nuse(X, W, c)\n",
        "from a import (  # head\n    X,  # first\n    Y,  # second\n)\nimport c as cc\n\nprint(Y)\nuse(X, cc)\n",
        "import os, sys\nfrom a import X\n\nuse(os, X)\n",
        # a docstring naming the import is not a use to the codemod either: the plain way
        '"""Uses X."""\nfrom a import X, Y\n\n\ndef f():\n    "X and Y"\n    "more" " X"\n    return Y\nuse(X)\n',
    ],
)
def test_the_plain_import_removal_keeps_commas_and_comments_as_the_codemod(monkeypatch, source):
    import libcst as cst

    from mcp_migrate.core.fix import imports

    before = cst.parse_module(source)
    after = cst.parse_module("".join(line for line in source.splitlines(True) if not line.startswith("use(")))
    plain = imports.remove_orphaned_imports(before, after).code
    monkeypatch.setattr(imports, "_plain_removal", lambda module, orphaned, words: None)
    assert plain == imports.remove_orphaned_imports(before, after).code
    assert plain != after.code
