"""A file's check reads its run's plan only through RunPlan's questions (core.coordination
.AskedPlan keeps them with their answers), so the run checks a file again under another plan
only where that plan answers one of them otherwise (run.coordination: a context-forge check
went from 13 files checked twice to 4, each of those its test modules that spell a name the
run's deprecations warn of)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_accept_deprecation import LIBRARY
from test_accept_deprecation import TEST as ROUTER_TEST  # spells the parameter the suggestions deprecate

from mcp_migrate.commands.cli import cli
from mcp_migrate.core import engine
from mcp_migrate.core.coordination import AskedPlan, MigratedTool, RunPlan, same_answers
from mcp_migrate.core.record import replace
from mcp_migrate.run import coordination
from mcp_migrate.run.coordination import WITH_SUGGESTIONS
from mcp_migrate.run.roots_plan import RootsPlan

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

TOOL = MigratedTool("search", "directories")


def test_the_plan_asked_keeps_each_question_with_its_answer():
    plan = RootsPlan(tools=(TOOL,), removable_names=(("a.py", "_answer"),), warned_names=("f()",))
    asked = AskedPlan(plan)
    assert asked.tools == (TOOL,)
    assert asked.removable("a.py", "_answer") is True
    assert asked.removable("a.py", "_other") is False
    assert asked.warned() == frozenset({"f()"})
    assert asked.asked == [  # the answers as plain data: what the results cache keeps
        ("tools", (), (("search", "directories", False, False),)),
        ("removable", ("a.py", "_answer"), True),
        ("removable", ("a.py", "_other"), False),
        ("warned", (), ("f()",)),
    ]
    assert same_answers(tuple(asked.asked), plan, b"f()")
    assert not same_answers(tuple(asked.asked), RootsPlan(warned_names=("f()",)), b"")  # no tools
    assert not same_answers(tuple(asked.asked), replace(plan, removable_names=()), b"")


def test_only_the_plans_questions_are_answered():
    with pytest.raises(AttributeError):
        AskedPlan(RunPlan()).code_migrated  # noqa: B018 - a field, not a question of RunPlan


@pytest.mark.parametrize(
    ("warned", "data", "alike"),
    [
        (("add_root()",), b"client.list_roots()\n", True),  # not spelled: nothing it could change
        (("add_root()",), b"service.add_root(uri)\n", False),
        (("svc.add_root()",), b"add_root(uri)\n", False),  # the last identifier is the one used
        (("Router(list_roots_callback=",), b"Router(list_roots_callback = cb)\n", False),
        (("Router(list_roots_callback=",), b"Router(cb)\n", True),
        (("r\u00e9pondre()",), b"x = 1\n", False),  # another encoding may spell it
    ],
)
def test_a_warned_name_counts_only_where_the_file_may_spell_it(warned, data, alike):
    asked = AskedPlan(RunPlan())
    asked.warned()
    assert same_answers(tuple(asked.asked), RootsPlan(warned_names=warned), data) is alike


#: A test with a Roots finding that spells none of them.
SESSION_TEST = """from mcp import ClientSession


async def test_the_server_asks_for_roots(session: ClientSession):
    result = await session.list_roots()
    assert result.roots == []
"""


def test_the_run_checks_again_only_the_files_its_plan_answers_otherwise(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "router.py").write_text(LIBRARY)
    (tmp_path / "tests" / "test_router.py").write_text(ROUTER_TEST)
    (tmp_path / "tests" / "test_session.py").write_text(SESSION_TEST)
    analysed: list = []
    real = engine.analyze
    monkeypatch.setattr(
        engine, "analyze", lambda data, path, settings: analysed.append(path) or real(data, path, settings)
    )
    command = ["check", "--no-cache", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."]
    kept = CliRunner().invoke(cli, command)
    assert kept.exit_code == 0, kept.output
    assert sorted(analysed) == [
        "lib/router.py",
        "tests/test_router.py",
        "tests/test_router.py",
        "tests/test_session.py",
    ]
    # The same report as a run that checks every chosen file again.
    monkeypatch.setattr(coordination, "_answered_alike", lambda *args: False)
    analysed.clear()
    again = CliRunner().invoke(cli, command)
    assert sorted(analysed) == [
        "lib/router.py",
        "lib/router.py",
        "tests/test_router.py",
        "tests/test_router.py",
        "tests/test_session.py",
        "tests/test_session.py",
    ]
    assert json.loads(kept.stdout) == json.loads(again.stdout)
    assert any(f["path"] == "tests/test_session.py" for f in json.loads(kept.stdout)["findings"])


def test_the_check_under_the_suggestions_plan_is_always_made_again(tmp_path, monkeypatch):
    """By the time the run checks its files under the plan of `fix --apply-suggestions`, their
    results carry the run's withheld client fixes: a first result is no longer the check's own,
    so that check is made again even where every answer is alike (the note saying which
    command takes the client's suggestion comes from it)."""
    tree = tmp_path / "suggested"
    shutil.copytree(FIXTURES / "plan" / "suggested", tree)
    monkeypatch.chdir(tree)
    command = ["check", "--no-cache", "--exit-zero", "--output-format", "json", "."]
    expected = json.loads(CliRunner().invoke(cli, command).stdout)
    assert any(WITH_SUGGESTIONS.format(which="that server") in f["help"] for f in expected["findings"])
    monkeypatch.setattr(coordination, "same_answers", lambda asked, plan, data: True)
    assert json.loads(CliRunner().invoke(cli, command).stdout) == expected
