"""What a check hands to its check again under the run's plan, which may run in another worker
process (core.project_view.handing, run.coordination): the analyses of the helper modules its
rules follow (`per_file(..., handed=True)`), and a huge test module's partial source
(tests/test_partial.py). Handed over, nothing is worked out again, and the findings are the
same (issue 37: context-forge's `-j` analysed a 572 KB helper module again in the other worker)."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from mcp_migrate.api import default_settings
from mcp_migrate.core import engine
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.vocabulary import wrappers

HELPER = """from mcp import ClientSession


async def allowed_dirs(session: ClientSession) -> list:
    result = await session.list_roots()
    return [root.uri for root in result.roots]
"""

CALLER = """from mcp import ClientSession

from app.service import allowed_dirs


async def handle(session: ClientSession) -> list:
    return await allowed_dirs(session)
"""


def _project(tmp_path) -> tuple:
    """`app/service.py` asks for roots; `app/server.py` calls it: the caller's path and bytes."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "service.py").write_text(HELPER)
    return str(tmp_path / "app" / "server.py"), CALLER.encode()


def _crossed(entries: tuple) -> ProjectView:
    """A worker's view that took `entries` from a view that crossed the pipe handing them."""
    sender = ProjectView(stamps=False)
    with sender.handing(entries):
        crossed = pickle.loads(pickle.dumps(sender))
    taker = ProjectView(stamps=False)
    taker.take_handed(crossed)
    return taker


def test_a_checks_helper_analyses_go_with_its_result_and_spare_the_check_again(tmp_path, monkeypatch):
    path, data = _project(tmp_path)
    first = engine.analyze(data, path, dataclasses.replace(default_settings(), view=ProjectView(stamps=False)))
    assert [(f.code, f.line) for f in first.result.findings] == [("RT001", 7)]
    handed = {(name, Path(key[0]).name): answer for name, key, answer in first.result.handed}
    assert handed == {
        (wrappers.ImportedHelpers._KEYS, "service.py"): {(None, "allowed_dirs")},
        # the syntax screen's answer for the same module (vocabulary.helper_screens)
        ("imported asks: may do", "service.py"): {"allowed_dirs"},
        ("imported asks: may do", "__init__.py"): False,
    }
    taker = _crossed(first.result.handed)
    monkeypatch.setattr(wrappers.ImportedHelpers, "_analysed", lambda *args: pytest.fail("analysed again"))
    again = engine.analyze(data, path, dataclasses.replace(default_settings(), view=taker))
    assert [(f.code, f.line, f.column, f.message) for f in again.result.findings] == [
        (f.code, f.line, f.column, f.message) for f in first.result.findings
    ]


def test_an_answer_kept_from_an_earlier_check_is_noted_as_used_too(tmp_path):
    """The check again needs what its first check used, whichever check worked it out first;
    a table not worth handing over (`handed` unset) is not noted."""
    module = tmp_path / "m.py"
    module.write_text("x = 1\n")
    view = ProjectView(stamps=False)
    with view.using() as first:
        view.per_file("t", str(module), (), lambda stat: {"answer"}, handed=True)
    with view.using() as again:
        view.per_file("t", str(module), (), lambda stat: pytest.fail("worked out again"), handed=True)
        view.per_file("other", str(module), (), lambda stat: "not handed")
    assert list(again.values()) == [{"answer"}] and again == first


def test_a_result_without_findings_hands_nothing(tmp_path):
    """Only a file with findings is checked again."""
    _, _ = _project(tmp_path)
    path = str(tmp_path / "app" / "quiet.py")
    data = b"from app.service import allowed_dirs\n\nprint(allowed_dirs)\n"
    result = engine.analyze(data, path, dataclasses.replace(default_settings(), view=ProjectView(stamps=False)))
    assert not result.result.findings and result.result.handed == ()
