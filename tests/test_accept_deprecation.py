"""A test module of Roots behaviour its project deprecates accepts the warning
(core/fix/accept_deprecation.py): the deprecation keeps the behaviour, so the tests stay, and
what they gain with it is a `pytestmark` filter for the deprecations' own words. Without it,
python-sdk's `filterwarnings = ["error", ...]` fails every test that passes
`list_roots_callback=` once `fix --apply-suggestions` deprecates the parameter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.core.coordination import TESTS_ACCEPT
from mcp_migrate.core.engine import ACCEPTS_DEPRECATION, TESTS_WAIT

LIBRARY = """from mcp.client.session import ListRootsFnT


def create_router(list_roots_callback: ListRootsFnT | None = None):
    def handle(method):
        if method == "roots/list":
            return list_roots_callback
        return None

    return handle
"""

TEST = """import pytest

from lib.router import create_router


def test_roots_list_answers_with_the_callback():
    def callback(context):
        return None

    handle = create_router(list_roots_callback=callback)
    assert handle("roots/list") is callback
"""

ACCEPTING = """import pytest

from lib.router import create_router

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*MCP Roots are deprecated by SEP-2577:DeprecationWarning"
)


def test_roots_list_answers_with_the_callback():
    def callback(context):
        return None

    handle = create_router(list_roots_callback=callback)
    assert handle("roots/list") is callback
"""


def _project(tmp_path, test: str = TEST, library: str = LIBRARY):
    (tmp_path / "lib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "router.py").write_text(library)
    (tmp_path / "tests" / "test_router.py").write_text(test)
    return tmp_path / "tests" / "test_router.py"


def _test_findings(tmp_path) -> list:
    out = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
    return [f for f in json.loads(out.stdout)["findings"] if f["path"].startswith("tests/")]


def test_the_tests_of_a_deprecated_parameter_accept_its_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    test = _project(tmp_path)
    findings = _test_findings(tmp_path)
    # the callback the test defines, and the keyword it passes it by: both carry the mark
    assert [(f["line"], f["column"], f["code"], f["fix"]) for f in findings] == [
        (7, 9, "RT002", "display"),
        (10, 28, "RT002", "display"),
    ]
    assert all(f["help"].startswith(TESTS_ACCEPT + "; ") for f in findings)
    assert not any(TESTS_WAIT in f["help"] for f in findings)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert test.read_text() == ACCEPTING
    # One run converges: the module tests the deprecated behaviour on purpose.
    assert _test_findings(tmp_path) == []
    out = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
    suppressed = json.loads(out.stdout)["suppressed"]
    reasons = [s["suppression"]["reason"] for s in suppressed if s["path"].startswith("tests/")]
    assert reasons == [ACCEPTS_DEPRECATION, ACCEPTS_DEPRECATION]
    again = CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert again.stdout == "Checked 3 files: no findings\n"
    assert test.read_text() == ACCEPTING


def test_the_migrated_tests_pass_where_warnings_are_errors(tmp_path, monkeypatch):
    """The behaviour, not the text: with the deprecation alone, the project's test fails under
    `-W error::DeprecationWarning` (python-sdk's setting); with the whole suggestion it passes."""
    pytest.importorskip("mcp")
    monkeypatch.chdir(tmp_path)
    test = _project(tmp_path)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error::DeprecationWarning"]
    command += ["--rootdir", str(tmp_path), str(test)]
    passed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout
    test.write_text(TEST)
    failed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert failed.returncode == 1 and "list_roots_callback is deprecated" in failed.stdout


def test_an_existing_pytestmark_gains_the_filter(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = TEST.replace(
        "from lib.router import create_router\n",
        "from lib.router import create_router\n\npytestmark = [pytest.mark.slow]\n",
    )
    test = _project(tmp_path, source)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert test.read_text() == source.replace(
        "pytestmark = [pytest.mark.slow]\n",
        "pytestmark = [\n"
        "    pytest.mark.slow,\n"
        "    pytest.mark.filterwarnings(\n"
        '        "ignore:.*MCP Roots are deprecated by SEP-2577:DeprecationWarning"\n'
        "    ),\n"
        "]\n",
    )


@pytest.mark.parametrize(
    "test",
    [
        pytest.param(TEST.replace("import pytest\n\n", ""), id="no-pytest-import"),
        pytest.param(
            "import pytest\nfrom unittest.mock import MagicMock\n\nfrom mcp.types import ListRootsResult\n\n\n"
            "async def roots(context):\n    return ListRootsResult(roots=[])\n\n\n"
            "def test_the_session_is_built_with_the_callback():\n"
            "    factory = MagicMock()\n"
            "    factory.assert_called_once_with(list_roots_callback=roots)\n",
            id="keyword-to-another-call",  # mcp-use's connector tests: a mock's assertion warns nothing
        ),
        pytest.param(
            TEST.replace("create_router\n", "create_router\n\npytestmark = [  # slow\n    pytest.mark.slow,\n]\n", 1),
            id="comment-in-pytestmark",
        ),
    ],
)
def test_a_module_the_mark_cannot_be_written_into_waits(tmp_path, monkeypatch, test):
    """A module that does not import pytest (another runner would not read the mark), whose
    `pytestmark` holds a comment (rewriting it would lose it), or that passes the deprecated
    keyword to no call of its owner, waits as before: no edit."""
    monkeypatch.chdir(tmp_path)
    path = _project(tmp_path, test)
    findings = _test_findings(tmp_path)
    assert [(f["line"], f["fix"]) for f in findings] == [(f["line"], "none") for f in findings] and findings
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert path.read_text() == test


CLASS_ONLY = '''from pydantic import BaseModel


class ListRootsResult(BaseModel):
    """The roots a client gives."""

    roots: list
'''

CLASS_TEST = """import pytest

from lib.router import ListRootsResult


def test_roots_result_holds_its_roots():
    assert ListRootsResult(roots=[]).roots == []
"""


def test_a_deprecation_that_warns_nothing_gives_the_tests_nothing(tmp_path, monkeypatch):
    """A class is deprecated in its docstring and warns nothing: its tests have no warning to
    accept, and wait as before."""
    monkeypatch.chdir(tmp_path)
    path = _project(tmp_path, CLASS_TEST, CLASS_ONLY)
    assert all(f["fix"] == "none" for f in _test_findings(tmp_path))
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert path.read_text() == CLASS_TEST


UNRELATED_TEST = """import pytest

from mcp.types import ListRootsRequest


def test_the_method_name():
    assert ListRootsRequest(method="roots/list").method == "roots/list"
"""


def test_a_roots_test_that_reaches_no_warning_waits(tmp_path, monkeypatch):
    """A test module with Roots findings that spells none of the names whose use warns (the
    deprecated function, the deprecated parameter) reaches no warning: it waits, no mark."""
    monkeypatch.chdir(tmp_path)
    _project(tmp_path)
    other = tmp_path / "tests" / "test_types.py"
    other.write_text(UNRELATED_TEST)
    out = CliRunner().invoke(cli, ["check", "--unsafe-fixes", "--exit-zero", "--output-format", "json", "."])
    found = [
        (f["line"], f["code"], f["fix"])
        for f in json.loads(out.stdout)["findings"]
        if f["path"] == "tests/test_types.py"
    ]
    assert found == [(7, "RT001", "none")]
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert other.read_text() == UNRELATED_TEST
    assert (tmp_path / "tests" / "test_router.py").read_text() == ACCEPTING


def test_the_mark_is_laid_out_for_the_projects_line_length(tmp_path, monkeypatch):
    """At 120 columns the mark fits on one line, and `ruff format` would join a wrapped one: a
    project checking its format in CI failed on 16 marked files (session 51's review)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    test = _project(tmp_path)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    one_line = (
        'pytestmark = pytest.mark.filterwarnings("ignore:.*MCP Roots are deprecated by SEP-2577:DeprecationWarning")\n'
    )
    assert test.read_text() == ACCEPTING.replace(
        'pytestmark = pytest.mark.filterwarnings(\n    "ignore:.*MCP Roots are deprecated by SEP-2577:DeprecationWarning"\n)\n',
        one_line,
    )


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("pyproject.toml", '[tool.pytest.ini_options]\nfilterwarnings = ["error", "ignore::DeprecationWarning"]\n'),
        ("pytest.ini", "[pytest]\nfilterwarnings =\n    error\n    ignore::DeprecationWarning\n"),
    ],
)
def test_a_project_that_ignores_every_deprecation_gets_no_mark(tmp_path, monkeypatch, name, config):
    """openmcp-python's pytest configuration already ignores every DeprecationWarning: the mark
    would change nothing (session 51's review rejected it)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(config)
    test = _project(tmp_path)
    assert [f["fix"] for f in _test_findings(tmp_path)] == ["none", "none"]
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert test.read_text() == TEST


def test_a_narrower_filter_keeps_the_mark(tmp_path, monkeypatch):
    """A filter for some other DeprecationWarning leaves the deprecations' own warnings to fail."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nfilterwarnings = ["error", "ignore:.*utcnow.*:DeprecationWarning"]\n'
    )
    test = _project(tmp_path)
    CliRunner().invoke(cli, ["fix", "--apply-suggestions", "."])
    assert test.read_text() == ACCEPTING
