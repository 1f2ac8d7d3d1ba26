"""The last edit before a marker (issue 36 §3): a Roots finding the rules have no rewrite for
is given the removal of its construct, as a suggestion (core.fix.suggested). Exact findings and
fix kinds, golden output of `fix --unsafe-fixes` (suggestions untouched) and of
`--apply-suggestions`, idempotence, no unused name left (pyflakes), and the removals that are
refused because they would leave a name behind.

After a deliberate change, regenerate the goldens (and read the diff before committing):

    python tests/test_suggested_removals.py --write
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import libcst
import pytest
from click.testing import CliRunner
from pyflakes import api as pyflakes_api
from pyflakes import reporter as pyflakes_reporter

from mcp_migrate.api import check_source, default_settings, fix_source
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.engine import IN_TEST_CODE, TESTS_WAIT
from mcp_migrate.core.fix.edits import Insert
from mcp_migrate.core.fix.suggested import (
    SUGGESTED_DEPRECATION,
    SUGGESTED_PARAMETER_DEPRECATION,
    SUGGESTED_REMOVAL,
    candidate,
)
from mcp_migrate.core.fix.suggested_tests import SUGGESTED_TEST_REMOVAL
from mcp_migrate.core.syntax import ModuleIndex
from mcp_migrate.run.roots_plan import RootsPlan

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "suggested"

FINDINGS = {
    "removals.py": [
        (13, 8, "RT003", "display"),  # `if caps.roots:` without else: the `if` goes, `caps = ...` with it
        (20, 12, "RT003", "display"),  # `if not ...roots: raise` and nothing after it reads roots: a requirement
        (29, 9, "RT002", "display"),  # `session.list_roots_callback = self._answer`
        (31, 15, "RT002", "none"),  # private `_answer`: another module's tests may call it
        (35, 37, "RT004", "display"),  # `notify("notifications/roots/list_changed", None)`
        (36, 58, "RT004", "display"),  # a raw message dict sent by a statement of its own
        (39, 15, "RT004", "display"),  # the rule's own removal would empty a public method: deprecated
    ],
    "requirement.py": [
        (13, 16, "RT003", "display"),  # a client that must declare roots, and nothing after reads them
        (20, 12, "RT003", "none"),  # the same test guarding code that reads roots: left to that code
    ],
    "test_roots_client.py": [
        (8, 11, "RT002", "none"),  # test code outside a test: left alone (issue 36 §4)
        (13, 14, "RT002", "none"),
        (17, 28, "RT004", "display"),  # in a test of a module named for roots: the test goes whole
        (23, 32, "RT004", "display"),  # a `test*` method of a `Test*` class, the same
        (27, 26, "RT004", "none"),  # a helper method: not a test
        (31, 39, "RT002", "display"),  # the rule's own keyword removal gives way to the test's
    ],
    "test_transport.py": [
        (8, 11, "RT002", "none"),  # outside a test: other tests use it
        (13, 14, "RT002", "none"),
        (17, 28, "RT004", "none"),  # a test of something else: its send may be what it counts
        (23, 32, "RT004", "none"),
        (27, 26, "RT004", "none"),
        (31, 39, "RT002", "display"),  # the rule's own keyword removal, only suggested in a test
        (37, 14, "RT002", "display"),  # what it asserts reads roots: the test goes whole
        (38, 21, "RT002", "display"),
    ],
    "emptied_branch.py": [
        (13, 30, "RT004", "display"),  # the `if` it empties goes, with `dumps` and `payload`
        (19, 30, "RT004", "display"),  # `summary` is read after the `if`: it stays
        (25, 29, "RT004", "display"),  # `as client` goes: nothing reads it any more
    ],
    "test_nested_provider.py": [
        (10, 15, "RT002", "display"),  # in a factory the registrations' removals orphan together
        (11, 48, "RT102", "display"),  # inside the factory the registrations' removal orphans
        (17, 43, "RT002", "display"),
        (22, 43, "RT002", "display"),
    ],
    "handler_asks.py": [
        (13, 11, "RT005", "unsafe"),  # private: it goes with the registration's fix (its orphan)
        (16, 24, "RT001", "display"),  # inside a function another fix deletes: it waits, and goes with it
        (22, 1, "RT005", "unsafe"),
    ],
    "probes.py": [
        (11, 8, "RT003", "none"),  # `if caps.roots is None: return`: it guards code using roots
        (18, 8, "RT003", "display"),  # `is not None` with `else`: the `else` stays
        (26, 26, "RT003", "none"),  # `params is None or <missing>`: the same
        (33, 35, "RT003", "display"),  # `hasattr(...) and caps.roots`: false as the probe is
        (40, 8, "RT003", "none"),  # `caps.roots or caps.sampling`: the probe does not decide it
    ],
    "deprecated_parameter.py": [
        (11, 35, "RT002", "display"),  # optional: it warns when given, first thing after the docstring
        (17, 24, "RT002", "none"),  # required: every caller passes it, there is no "when given"
        (22, 18, "RT002", "none"),  # an overload's placeholder body
        (24, 18, "RT002", "none"),
        (30, 19, "RT002", "display"),  # a context manager's: `stacklevel=3` (its body runs from contextlib)
    ],
    "uri_decoder.py": [
        (23, 24, "RT001", "display"),  # its URI goes to a helper that decodes it: a suggestion
    ],
    "reassigned_local.py": [
        (13, 23, "RT002", "none"),  # a nested provider: it goes with the `if` the removals empty
        (14, 56, "RT102", "display"),
        (18, 43, "RT002", "display"),  # `callback` is assigned twice: both go (mcp2py, session 51)
    ],
    "kept_definitions.py": [
        (8, 11, "RT002", "display"),  # public, module-level: deprecated, not deleted
        (12, 11, "RT002", "none"),  # private, but `PROVIDERS` still holds it
        (22, 9, "RT002", "none"),  # a public attribute of the project's own class
    ],
}


#: A test file's suggestions depend on the run: a test of the Roots behaviour goes only where no
#: code outside the tests keeps Roots behaviour (RootsPlan.code_migrated). The goldens of the
#: test fixtures are those of such a run.
MIGRATED_RUN = default_settings(run=RootsPlan(code_migrated=True))


def _settings(name: str):
    return MIGRATED_RUN if name.startswith("test_") else None


def _findings(name: str) -> list:
    path = FOLDER / name
    return check_source(path.read_bytes(), str(path), settings=_settings(name))


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_findings_and_fix_kinds(name):
    assert [(f.line, f.column, f.code, f.fix) for f in _findings(name)] == FINDINGS[name]


def test_a_suggested_removal_says_so_before_the_rules_help():
    helps = [f.help for f in _findings("removals.py") if f.fix == "display"]
    assert len(helps) == 6 and all(h.startswith(SUGGESTED_REMOVAL + "; ") for h in helps[:-1])
    # The SDK send is a public method's only statement: the method is deprecated instead.
    assert helps[-1].startswith(SUGGESTED_DEPRECATION + "; ")
    (deprecated,) = [f for f in _findings("kept_definitions.py") if f.fix == "display"]
    assert deprecated.help.startswith(SUGGESTED_DEPRECATION + "; ")
    parameters = [f for f in _findings("deprecated_parameter.py") if f.fix == "display"]
    assert len(parameters) == 2
    assert all(f.help.startswith(SUGGESTED_PARAMETER_DEPRECATION + "; ") for f in parameters)
    # In test code only the removal of a whole test of the Roots behaviour.
    assert not any(SUGGESTED_REMOVAL in f.help for f in _findings("test_roots_client.py"))
    removed = [f for f in _findings("test_roots_client.py") if f.fix == "display"]
    assert len(removed) == 3 and all(f.help.startswith(SUGGESTED_TEST_REMOVAL + "; ") for f in removed)
    assert not any(IN_TEST_CODE in f.help for f in removed)
    # A rule's own fix in test code is a suggestion for the test-code reason instead, where the
    # run lets tests change with their code; a test file alone keeps its plumbing.
    sender = "from mcp import ClientSession\n\nasync def f(s: ClientSession):\n    await s.send_roots_list_changed()\n"
    (own,) = check_source(sender, "tests/test_sender.py", settings=MIGRATED_RUN)
    assert own.fix == "display" and own.help.startswith(IN_TEST_CODE)
    (alone,) = check_source(sender, "tests/test_sender.py")
    assert alone.fix == "none" and alone.help.startswith(TESTS_WAIT + "; ")
    assert IN_TEST_CODE not in alone.help


def _fixed(name: str, suggestions: bool) -> str:
    path = FOLDER / name
    return fix_source(
        path.read_text(encoding="utf-8"), str(path), settings=_settings(name), unsafe=True, suggestions=suggestions
    )


def _golden(name: str, suggestions: bool) -> Path:
    return FOLDER / f"{name}.{'suggested' if suggestions else 'unsafe'}"


@pytest.mark.parametrize("suggestions", [False, True], ids=["unsafe", "apply-suggestions"])
@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_golden_output(name, suggestions):
    assert _fixed(name, suggestions) == _golden(name, suggestions).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_applied_suggestions_converge_and_leave_no_unused_name(name):
    after = _golden(name, True).read_text(encoding="utf-8")
    path = str(FOLDER / name)
    assert fix_source(after, path, settings=_settings(name), unsafe=True, suggestions=True) == after
    assert not [f for f in check_source(after, path, settings=_settings(name)) if f.fix != "none"]
    assert _pyflakes(after) <= _pyflakes((FOLDER / name).read_text(encoding="utf-8"))


def test_taking_suggestions_takes_the_unsafe_fixes_too(tmp_path, monkeypatch):
    """A suggestion is less sure than an unsafe fix, and a suggested removal may rely on the
    unsafe removal of what names it: `fix --apply-suggestions` without `--unsafe-fixes` applies
    the unsafe capability removal as well."""
    source = (
        "from mcp.types import ClientCapabilities, RootsCapability\n\n\n"
        "def capabilities():\n"
        "    return ClientCapabilities(roots=RootsCapability())\n"
    )
    (tmp_path / "client.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    assert [(f.line, f.code, f.fix) for f in check_source(source, "client.py")] == [(5, "RT003", "unsafe")]
    result = subprocess.run(
        [sys.executable, "-m", "mcp_migrate", "fix", "-q", "--exit-zero", "--apply-suggestions", "client.py"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "client.py").read_text() == (
        "from mcp.types import ClientCapabilities\n\n\ndef capabilities():\n    return ClientCapabilities()\n"
    )


@pytest.mark.parametrize(
    "body, deprecated",
    [
        ("    return []\n", True),
        ('    """Docs."""\n    return []\n', True),
        ("    ...\n", False),  # a stub others implement
        ('    """Docs."""\n    raise NotImplementedError\n', False),
        ('    warnings.warn("list_roots() is deprecated: MCP Roots are deprecated by SEP-2577")\n', False),
    ],
)
def test_a_public_function_is_deprecated_unless_a_stub_or_already_warning(body, deprecated):
    module = libcst.parse_module("def list_roots(context):\n" + body)
    definition = module.body[0]
    found = candidate(definition.name, ModuleIndex(module).parents)
    assert (found is not None) == deprecated
    if deprecated:
        assert isinstance(found.edit, Insert) and found.note == SUGGESTED_DEPRECATION
        assert found.edit.before == (not body.lstrip().startswith('"""'))


def test_without_the_flag_no_suggestion_is_written():
    """`fix --unsafe-fixes` writes the rules' own fixes only: the probes, the registration, the
    private provider and the raw sends stay as they were, and so does the SDK send at line 39
    (it is a public method's only statement: the method's deprecation is suggested instead)."""
    before = (FOLDER / "removals.py").read_text(encoding="utf-8").splitlines()
    after = _fixed("removals.py", False).splitlines()
    assert before == after
    assert _fixed("test_roots_client.py", False) == (FOLDER / "test_roots_client.py").read_text(encoding="utf-8")


def _pyflakes(text: str) -> set:
    """pyflakes' messages without their line numbers (lines move when code goes)."""

    class Collect(pyflakes_reporter.Reporter):
        def __init__(self):
            self.messages = set()

        def flake(self, message):
            self.messages.add(message.message % message.message_args)

        def syntaxError(self, *args):
            self.messages.add("syntax error")

        def unexpectedError(self, *args):
            self.messages.add("unexpected error")

    collect = Collect()
    pyflakes_api.check(text, "x.py", collect)
    return collect.messages


def test_tests_stay_where_the_run_does_not_know_the_code_is_migrated():
    """A test file alone (no run plan), or in a run where code outside the tests keeps Roots
    behaviour, gets no suggestion of its own: its tests still test that behaviour."""
    path = FOLDER / "test_roots_client.py"
    alone = check_source(path.read_bytes(), str(path))
    assert [f.fix for f in alone] == ["none"] * 6  # the rule's own keyword removal waits too
    assert alone[-1].help.startswith(TESTS_WAIT + "; ")


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


#: A private provider registered in a handler table: its removal goes with its registration's.
PRIVATE_PROVIDER = (
    "from mcp import types\n\n\nasync def _answer(context) -> types.ListRootsResult:\n"
    "    return types.ListRootsResult(roots=[])\n\n\nHANDLERS = {'roots/list': _answer}\n"
)


def _tree(root: Path, private: str) -> Path:
    """A project with a Roots test; `private`: "" (no other Roots code), "alone" (a private
    provider no other file names) or "named" (another module imports it)."""
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "test_roots_client.py").write_bytes((FOLDER / "test_roots_client.py").read_bytes())
    server = "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('s')\n"
    (root / "src" / "server.py").write_text(server)
    if private:
        (root / "src" / "keeps.py").write_text(PRIVATE_PROVIDER)
    if private == "named":
        (root / "src" / "uses.py").write_text("from keeps import _answer\n\nANSWER = _answer\n")
    return root


@pytest.mark.parametrize("private", ["", "alone", "named"], ids=["code-migrated", "private-alone", "code-keeps-roots"])
def test_the_run_decides_whether_roots_tests_go(tmp_path, monkeypatch, private):
    """`check` shows the removal of a Roots test only where `fix --apply-suggestions` applies
    it: in a run where every Roots finding outside the tests gets an edit. A private provider
    goes with its registration where no other file names it (run.private_names); where one
    does, it keeps Roots, and the tests stay."""
    root = _tree(tmp_path / "p", private)
    monkeypatch.chdir(root)
    doc = json.loads(_cli("check", "--output-format", "json", "--exit-zero", "."))
    shown = [f["line"] for f in doc["findings"] if f["fix"] == "display" and f["path"].startswith("tests")]
    keeps = private == "named"
    assert shown == ([] if keeps else [17, 23, 31])
    provider = [(f["line"], f["fix"]) for f in doc["findings"] if f["path"] == "src/keeps.py"]
    assert (
        provider == {"": [], "alone": [(4, "display"), (8, "display")], "named": [(4, "none"), (8, "display")]}[private]
    )
    _cli("fix", "--apply-suggestions", "--exit-zero", ".")
    after = (root / "tests" / "test_roots_client.py").read_text()
    assert ("async def test_notifies" in after) == keeps
    if private:
        assert ("_answer" in (root / "src" / "keeps.py").read_text()) == keeps


if __name__ == "__main__" and "--write" in sys.argv:
    for fixture in sorted(FINDINGS):
        for taken in (False, True):
            _golden(fixture, taken).write_text(_fixed(fixture, taken), encoding="utf-8")


LIBRARY = '''import warnings

from mcp import ClientSession


class Client:
    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def send_roots_list_changed(self) -> None:
        """Tell the server the roots changed."""
        await self.session.send_roots_list_changed()


async def notify(session: ClientSession) -> None:
    await session.send_roots_list_changed()
'''


def test_a_library_method_is_deprecated_not_emptied():
    """The send is a public method's only statement: the method is deprecated (suggested), not
    left a silent no-op; once it warns, the send stays until the method goes. A module-level
    function of an application keeps the rule's own removal."""
    method, function = check_source(LIBRARY, "client.py")
    assert (method.line, method.fix, function.line, function.fix) == (12, "display", 16, "safe")
    assert method.help.startswith(SUGGESTED_DEPRECATION + "; ")
    warned = LIBRARY.replace(
        '"""Tell the server the roots changed."""\n',
        '"""Tell the server the roots changed."""\n'
        '        warnings.warn("send_roots_list_changed() is deprecated: MCP Roots are deprecated by SEP-2577",'
        " DeprecationWarning, stacklevel=2)\n",
    )
    # Deprecated: the send inside is migrated (core.deprecated), kept aside as suppressed.
    (function,) = check_source(warned, "client.py")
    assert (function.line, function.fix) == (17, "safe")
