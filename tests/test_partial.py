"""The partial parse of a huge test module (core.partial): LibCST parses the statements a rule
can look at and a stand-in for each of the others. It must change nothing a user sees: every
fixture and rule example checked in part as a test module (the size threshold set to 0) gives
the findings, fix kinds, helps and fixed output of the whole parse, and the stand-ins give the
file back byte for byte."""

from __future__ import annotations

import ast
import dataclasses
import pickle
from pathlib import Path

import pytest

from mcp_migrate.api import check_bytes, default_settings, fix_bytes
from mcp_migrate.core import alone, engine, partial
from mcp_migrate.core.project_view import ProjectView
from mcp_migrate.core.suppress import MARKERS
from mcp_migrate.rules import all_rules
from mcp_migrate.run.roots_plan import RootsPlan

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = sorted(FIXTURES.rglob("*.py"))
EXAMPLES = [example.code.encode() for rule in all_rules() for example in rule.INVALID]
RULES = {rule.CODE: rule for rule in all_rules()}


@pytest.fixture
def in_part(any_size, monkeypatch):
    """Every module the screens read is parsed in part; the partial sources made are counted."""
    made: list = []
    real = engine.reduced

    def counted(*args):
        out = real(*args)
        if out is not None:
            made.append(out)
        return out

    monkeypatch.setattr(engine, "reduced", counted)
    return made


@pytest.fixture
def any_size(monkeypatch):
    """The partial parse for a module of any size, whatever the share its stand-ins save."""
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 0)
    monkeypatch.setattr(partial, "PARTIAL_MIN_SHARE", 0.0)


def _outcome(data: bytes, path: str) -> tuple:
    settings = default_settings()
    result = check_bytes(data, path, settings)
    fixed = fix_bytes(data, path, settings, unsafe=True)
    return (
        [(f.code, f.line, f.column, f.end_line, f.end_column, f.message, f.fix, f.help) for f in result.findings],
        fixed.fixed_source,
        [(e.code, e.message) for e in fixed.errors],
    )


@pytest.mark.slow  # (406 inputs checked and fixed twice; a 340 KB module three times)
def test_every_fixture_and_example_checked_in_part_gives_the_whole_parse(in_part, monkeypatch):
    # As test modules: only test code is parsed in part (core.engine._in_part).
    sources = [p.read_bytes() for p in SOURCES] + EXAMPLES
    inputs = [(f"tests/test_input_{i}.py", data) for i, data in enumerate(sources)]
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 1 << 40)
    whole = {path: _outcome(data, path) for path, data in inputs}
    assert not in_part
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 0)
    parts = {path: _outcome(data, path) for path, data in inputs}
    assert {path: parts[path] for path in parts if parts[path] != whole[path]} == {}
    assert sum(len(w[0]) for w in whole.values()) > 150
    assert len(in_part) > 40  # the partial parse ran on many of them (50 of 406)


LOUD = """import asyncio
from mcp import ClientSession
from mcp.types import Root


def quiet_helper(x):
    return x + 1


async def ask(session: ClientSession):
    return await session.list_roots()


def test_quiet_one():
    assert quiet_helper(1) == 2


@asyncio.coroutine
def test_quiet_two(session):
    # a plain comment
    value = "asyncio"  # a string spelling a module-level name
    return value


def test_calls_the_asking_helper(session):
    return ask(session)


class Suite:
    def test_loud(self):
        return Root(uri="file:///tmp")

    def test_quiet_method(self):
        return 1

        # a footer comment


def test_after_the_class():
    return quiet_helper(2)
"""


def _reduced(text: str, rules=None) -> partial.Reduced:
    data = text.encode()
    chosen = list(RULES.values()) if rules is None else rules
    return partial.reduced(data, ast.parse(data), chosen, MARKERS, default_settings(), "tests/test_module.py")


def test_stand_ins_keep_lines_names_and_give_the_file_back(any_size):
    part = _reduced(LOUD)
    tag = part.blocks[0][0].decode().split('"""')[1].rsplit("-", 1)[0]
    lines = part.data.decode().split("\n")
    assert len(lines) == len(LOUD.split("\n"))
    # Kept: the asking helper, the test calling it (it names what a loud statement binds), the
    # method building a Root. Left out: the rest, each spelling the module-level names it uses.
    assert lines[5:7] == [f'def quiet_helper(): ["""{tag}-0', '"""]']
    assert lines[9:11] == ["async def ask(session: ClientSession):", "    return await session.list_roots()"]
    assert lines[13] == f'def test_quiet_one(): [quiet_helper, """{tag}-1'
    assert lines[17:19] == ["@asyncio.coroutine", f'def test_quiet_two(): [asyncio, """{tag}-2']  # decorators stay
    assert lines[24:26] == ["def test_calls_the_asking_helper(session):", "    return ask(session)"]
    assert lines[29:31] == ["    def test_loud(self):", '        return Root(uri="file:///tmp")']
    assert lines[32:36] == [f'    def test_quiet_method(): ["""{tag}-3', "", "", '"""]']  # its footer comment too
    assert lines[38] == f'def test_after_the_class(): [quiet_helper, """{tag}-4'
    assert len(part.blocks) == 5
    assert part.whole(part.data) == LOUD.encode()
    assert [s.lineno for s in ast.parse(part.data).body] == [s.lineno for s in ast.parse(LOUD).body]
    assert part.spans[-3:] == ((25, 26), (29, 36), (39, 40))  # the class ends where its stand-in does


def test_a_changed_or_lost_stand_in_splices_nothing(any_size):
    part = _reduced(LOUD)
    stand_in = part.blocks[0][0]
    assert part.whole(part.data.replace(stand_in, b"")) is None
    assert part.whole(part.data.replace(stand_in, stand_in.replace(b"[", b"[x, "))) is None
    assert part.whole(part.data + stand_in) is None


def test_a_module_is_parsed_whole_where_its_lines_are_not_plain_or_it_is_small(monkeypatch):
    assert _reduced(LOUD) is None  # under PARTIAL_MIN_BYTES
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 0)
    monkeypatch.setattr(partial, "PARTIAL_MIN_SHARE", 0.0)
    assert _reduced(LOUD.replace("\n", "\r\n")) is None
    assert _reduced("# -*- coding: latin-1 -*-\n" + LOUD) is None
    assert _reduced("# -*- coding: utf-8 -*-\n" + LOUD) is not None
    monkeypatch.setattr(partial, "PARTIAL_MIN_SHARE", 0.9)
    assert _reduced(LOUD) is None


def test_a_suppression_comment_keeps_its_statement(any_size):
    text = LOUD.replace("    assert quiet_helper(1) == 2", "    assert quiet_helper(1) == 2  # noqa: RT001")
    part = _reduced(text)
    assert "def test_quiet_one():\n    assert quiet_helper(1) == 2  # noqa: RT001" in part.data.decode()


@pytest.mark.slow  # (406 inputs checked and fixed twice; a 340 KB module three times)
def test_a_huge_test_module_is_checked_and_fixed_in_part_with_the_findings_of_the_whole(monkeypatch):
    """A test module over the threshold, as a real one would be: many quiet tests around the few
    that hold findings. The same module outside test code is parsed whole."""
    body = "".join(
        f"    response = client.get('/items/{{i}}/{n}', params={{'page': {n}}})\n    assert response.ok\n"
        for n in range(6)
    )
    quiet = "".join(f"\n\ndef test_quiet_{i}(client):\n" + body.replace("{i}", str(i)) for i in range(1200))
    data = (LOUD + quiet).encode()
    assert len(data) > partial.PARTIAL_MIN_BYTES
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 1 << 40)
    whole = _outcome(data, "tests/test_huge.py")
    monkeypatch.undo()
    made: list = []
    real = engine.reduced
    monkeypatch.setattr(engine, "reduced", lambda *args: made.append(real(*args)) or made[-1])
    assert _outcome(data, "tests/test_huge.py") == whole
    assert made and made[0] is not None and len(made[0].data) < len(data) / 2
    assert whole[0]  # findings, and their fixes
    made.clear()
    check_bytes(data, "src/huge.py", default_settings())
    assert made == []


def _kept(text: str, codes: tuple) -> list:
    """The names of the definitions the partial parse keeps, for rules `codes`."""
    part = _reduced(text, [RULES[code] for code in codes])
    left = {block.decode().split("(")[0].split()[-1] for block, _ in part.blocks}
    return sorted(
        node.name
        for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in left
    )


def test_a_definition_a_rules_screen_holds_on_alone_stays(any_size):
    """No roots word in it, and yet a rule's finding can be there by the rule's own reasoning: a
    URI named for a root parsed with urlparse, a `"file"` scheme test (RT102)."""
    text = (
        "import mcp\nfrom urllib.parse import urlparse, urlsplit\n\n\n"
        "def parsed_name(root_uri: str) -> str:\n    return urlparse(root_uri).path\n\n\n"
        "def scheme_checked(location: str) -> str:\n    parts = urlsplit(location)\n"
        "    if parts.scheme != 'file':\n        raise ValueError(location)\n    return parts.path\n\n\n"
        "def quiet(location: str) -> str:\n    return location.upper()\n"
    )
    assert _kept(text, ("RT102",)) == ["parsed_name", "scheme_checked"]


def test_what_a_kept_definition_stores_for_others_keeps_its_readers(any_size):
    """A hint's value stored under a constant key and read back in another function (HA001), and
    roots kept on the instance for another method (RT103) keep their readers; a mock's
    `return_value` set in a test keeps nothing."""
    hint = (
        "def labels(tool):\n    ro = getattr(tool.annotations, 'readOnlyHint', None)\n    return (ro is True, tool.name)\n\n"
        "def tag(tool, props):\n    ok, name = labels(tool)\n    props['tainted_ok'] = ok\n\n"
        "def gate(props, violations):\n    if not props.get('tainted_ok', False):\n        violations.append('x')\n\n"
        "def unrelated(props):\n    return props.get('other')\n"
    )
    assert _kept(hint, ("HA001",)) == ["gate", "labels", "tag"]
    state = (
        "class Guard:\n"
        "    def load(self, roots):\n        self._paths = [r.uri for r in roots]\n\n"
        "    def allowed(self, path):\n        return any(path.startswith(p) for p in self._paths)\n\n"
        "    def name(self):\n        return 'guard'\n\n\n"
        "def test_mocked(service):\n    service.list_roots.return_value = []\n\n\n"
        "def test_other(client):\n    client.get.return_value = 1\n    assert client.get()\n"
    )
    assert _kept(state, ("RT103", "RT002")) == ["allowed", "load", "test_mocked"]


HELPER = """from mcp import ClientSession


async def allowed_dirs(session: ClientSession) -> list:
    result = await session.list_roots()
    return [root.uri for root in result.roots]


def unrelated(x):
    return x * 2
"""

CALLER = """import mcp
from app.service import allowed_dirs, unrelated
from app.service import allowed_dirs as dirs_of


async def through_a_helper(session):
    return await allowed_dirs(session)


async def test_direct(session):
    assert await allowed_dirs(session)


async def test_aliased(session):
    assert await dirs_of(session)


async def test_through_the_helper(session):
    assert await through_a_helper(session)


def test_quiet():
    assert unrelated(2) == 4
"""


def _caller_of_a_helper_that_asks(tmp_path) -> tuple:
    """A project whose `app/service.py` asks for roots (HELPER), and its test module calling it
    (CALLER): the test module's path and bytes."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "service.py").write_text(HELPER)
    (tmp_path / "tests").mkdir()
    return str(tmp_path / "tests" / "test_service.py"), CALLER.encode()


def test_a_test_module_calling_a_helper_that_asks_is_parsed_in_part(any_size, tmp_path, monkeypatch):
    """Its calls of an imported helper that asks for roots (RT001's import follower) stay; a
    test that spells none of the helper's names is left out although the module imports them.
    The findings are the whole parse's."""
    path, data = _caller_of_a_helper_that_asks(tmp_path)
    made: list = []
    real = engine.reduced
    monkeypatch.setattr(engine, "reduced", lambda *args: made.append(real(*args)) or made[-1])
    in_part = check_bytes(data, path, default_settings())
    monkeypatch.setattr(partial, "PARTIAL_MIN_BYTES", 1 << 40)
    whole = check_bytes(data, path, default_settings())
    assert [(f.code, f.line, f.column, f.message, f.fix) for f in in_part.findings] == [
        (f.code, f.line, f.column, f.message, f.fix) for f in whole.findings
    ]
    assert [(f.code, f.line, f.column) for f in whole.findings] == [
        ("RT001", 7, 18),
        ("RT001", 11, 18),
        ("RT001", 15, 18),
    ]
    left_out = {block.decode().split("(")[0].split()[-1] for block, _ in made[0].blocks}
    assert left_out == {"test_through_the_helper", "test_quiet"}


def test_a_definition_is_screened_with_the_imports_it_can_read():
    """Of the module's imports, a definition read alone is screened with those binding a name it
    or the module's other statements spell; evidence of MCP code (`import mcp`, an import from an
    MCP module), a star or a `__future__` import stays whole."""
    module = ast.parse(
        "from __future__ import annotations\nfrom a import *\nfrom b import x, y as z\nimport c.d\nimport e as f\n"
        "import mcp, os\nfrom app.mcp_tools import helper\n"
    )
    future, star, some, dotted, aliased, sdk, evidence = module.body
    assert ast.unparse(alone._imports_spelled(sdk, set())) == "import mcp"
    assert alone._imports_spelled(evidence, set()) is evidence
    spelled = {"z", "c"}
    assert alone._imports_spelled(future, spelled) is future
    assert alone._imports_spelled(star, spelled) is star
    assert ast.unparse(alone._imports_spelled(some, spelled)) == "from b import y as z"
    assert alone._imports_spelled(some, {"x", "z"}) is some
    assert alone._imports_spelled(dotted, spelled) is dotted
    assert alone._imports_spelled(aliased, spelled) is None
    assert alone._imports_spelled(aliased, {"f"}) is aliased


def test_a_modules_partial_source_is_worked_out_once_per_run_whatever_the_plan(any_size, monkeypatch):
    """A test module with Roots findings is checked again under the run's plan, which no screen
    reads: the same bytes, path, screens' settings and rules reuse the partial source; other
    bytes or other rules work it out again."""
    from mcp_migrate.core.settings import with_view

    calls: list = []
    real = engine.reduced
    monkeypatch.setattr(engine, "reduced", lambda *args: calls.append(args[0]) or real(*args))
    settings = with_view(default_settings())
    data = LOUD.encode()
    rules = list(RULES.values())
    first = engine._in_part(data, "tests/test_loud.py", settings, rules, ast.parse(data))
    planned = dataclasses.replace(settings, run=RootsPlan(code_migrated=True))
    again = engine._in_part(bytes(bytearray(data)), "tests/test_loud.py", planned, rules, ast.parse(data))
    assert first is not None and again is first and len(calls) == 1
    changed = data + b"\n\ndef test_more():\n    return 3\n"
    assert engine._in_part(changed, "tests/test_loud.py", settings, rules, ast.parse(changed)) is not None
    assert engine._in_part(data, "tests/test_loud.py", settings, rules[:3], ast.parse(data)) is not None
    assert len(calls) == 3


def test_a_kept_partial_source_notes_the_helper_modules_its_screens_read(any_size, tmp_path):
    """The check again that is served the kept partial source is noted as reading what working
    it out read (the helper module its screens followed): its result is the one the results
    cache keeps, and a changed helper must make the module be checked again."""
    path, data = _caller_of_a_helper_that_asks(tmp_path)
    settings = dataclasses.replace(default_settings(), view=ProjectView(stamps=True))
    rules = list(RULES.values())
    with settings.view.recording() as first:
        made = engine._in_part(data, path, settings, rules, ast.parse(data))
    planned = dataclasses.replace(settings, run=RootsPlan(code_migrated=True))
    with settings.view.recording() as again:
        kept = engine._in_part(data, path, planned, rules, ast.parse(data))
    assert made is not None and kept is made
    assert str(tmp_path / "app" / "service.py") in {entry[0] for entry in first}
    assert again == first


def test_a_partial_source_goes_with_the_result_to_the_check_again_in_another_process(any_size, tmp_path, monkeypatch):
    """A test module parsed in part with findings hands its partial source over with its result
    (FileResult.handed): a view in another process that takes it works nothing out again, and
    its check notes the files working it out read."""
    path, data = _caller_of_a_helper_that_asks(tmp_path)
    first = engine.analyze(data, path, dataclasses.replace(default_settings(), view=ProjectView(stamps=True)))
    assert first.part is not None and first.result.findings
    [(_, _, (source, read))] = [entry for entry in first.result.handed if entry[0] == engine.PARTIAL_SOURCES]
    assert source is first.part
    assert str(tmp_path / "app" / "service.py") in {entry[0] for entry in read}
    sender = ProjectView(stamps=True)
    with sender.handing(first.result.handed):
        crossed = pickle.loads(pickle.dumps(sender))
    other = ProjectView(stamps=True)
    other.take_handed(crossed)
    monkeypatch.setattr(engine, "reduced", lambda *args: pytest.fail("worked out again"))
    again = engine.analyze(data, path, dataclasses.replace(default_settings(), view=other))
    assert again.part is not None and again.part.data == first.part.data
    assert [(f.code, f.line, f.column) for f in again.result.findings] == [
        (f.code, f.line, f.column) for f in first.result.findings
    ]
    assert set(read) <= set(again.result.depends)
