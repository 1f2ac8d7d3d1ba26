"""A check's work grows with the file, not with the file times its findings: a rewrite that asks
"is this callback used anywhere else?" once per finding reads a module-wide index built once
(core.syntax.ModuleIndex), not a walk of the whole module per finding. What is
counted is work (syntax nodes whose children were listed), never time."""

from __future__ import annotations

from typing import cast

import pytest

from mcp_migrate import api
from mcp_migrate.core import syntax, walk


def _clients(count: int) -> str:
    """`count` client sessions, each handed its own module-level roots callback (RT002)."""
    parts = ["from mcp import ClientSession\n"]
    for i in range(count):
        parts.append(
            f"\n\nasync def cb_{i}(context):\n    return []\n\n\n"
            f"async def run_{i}(r, w):\n"
            f"    async with ClientSession(r, w, list_roots_callback=cb_{i}) as s:\n"
            "        await s.initialize()\n"
        )
    return "".join(parts)


def _children_listed(monkeypatch, source: str) -> tuple:
    """(the findings, how many nodes the rewrites' walks listed the children of)."""
    listed = [0]
    real = syntax.children

    def counting(node):
        listed[0] += 1
        return real(node)

    for module in (syntax, walk):  # the rewrites' own walks; the rules' walk and the index's
        monkeypatch.setattr(module, "children", counting)
    findings = api.check_source(source, "client.py")
    for module in (syntax, walk):
        monkeypatch.setattr(module, "children", real)
    return findings, listed[0]


def test_provider_rewrites_walk_the_module_once_not_once_per_finding(monkeypatch):
    small, small_work = _children_listed(monkeypatch, _clients(4))
    large, large_work = _children_listed(monkeypatch, _clients(32))
    assert [f.code for f in small] == ["RT002"] * 8 and [f.code for f in large] == ["RT002"] * 64
    # Eight times the file: about eight times the work (it was 44 times, walk per finding).
    assert large_work < 12 * small_work, (small_work, large_work)


def test_a_previews_passes_count_only_the_statements_they_changed(monkeypatch):
    import libcst as cst

    from mcp_migrate.core.fix import imports, shared_statements

    module = cst.parse_module("import os\n\n\ndef a():\n    return os.sep\n\n\ndef b():\n    return a()\n")
    changed = module.with_changes(body=[*module.body[:2], cst.parse_statement("def b():\n    return 1\n")])
    counted: list = []
    real = imports._uses_in

    def counting(node):
        counted.append(node)
        return real(node)

    monkeypatch.setattr(imports, "_uses_in", counting)
    with shared_statements.statements_shared():
        first, second = imports.name_uses(module), imports.name_uses(changed)
    # three statements and the two in their blocks, then only the changed one and its own
    assert len(counted) == 7
    assert (first["a"], first["os"], second["a"], second["os"]) == (1, 1, 0, 1)  # `b` stopped calling `a`
    assert dict(imports.name_uses(changed)) == dict(second) and len(counted) == 10  # closed: nothing kept
    assert shared_statements._SCOPES == []


def _second_method_replaced(source: str, method: str) -> tuple:
    """(the module of `source`, whose second statement is a class of two methods; the module a
    preview pass makes of it with the second method replaced by `method`): every other
    statement of the new module is the parsed one's own."""
    import libcst as cst

    module = cst.parse_module(source)
    cls = cast(cst.ClassDef, module.body[1])
    block = cast(cst.IndentedBlock, cls.body)
    replaced = block.with_changes(body=[block.body[0], cst.parse_statement(method)])
    return module, module.with_changes(body=[module.body[0], cls.with_changes(body=replaced)])


@pytest.mark.parametrize(
    ("walker", "question", "source", "method", "walked", "summary", "expected"),
    [
        (  # the names each statement uses
            "_uses_in",
            "name_uses",
            "import os\n\n\nclass C:\n    def a(self):\n        return os.sep\n\n"
            "    def b(self):\n        if self.a():\n            return os.getcwd()\n",
            "def b(self):\n    return 1\n",
            ["ClassDef", "FunctionDef", "SimpleStatementLine"],  # `a` and the import reused
            lambda first, second: (first["os"], first["self"], second["os"], second["self"]),
            (2, 3, 1, 2),
        ),
        (  # the imports each statement makes
            "_imports_in",
            "_imported_names",
            "import os\n\n\nclass C:\n    def a(self):\n        import sys\n        return sys\n\n"
            "    def b(self):\n        from json import dumps\n        return dumps\n",
            "def b(self):\n    from json import loads\n    return loads\n",
            ["ClassDef", "FunctionDef", "SimpleStatementLine", "SimpleStatementLine"],
            lambda first, second: [name for name, *_ in second],
            ["os", "sys", "loads"],
        ),
    ],
)
def test_a_pass_that_changes_one_method_reads_that_method_alone(
    monkeypatch, walker, question, source, method, walked, summary, expected
):
    """A preview pass that changes one method makes its class anew, whose other statements are
    the parsed module's own: their answers (the names they use, the imports they make) are
    reused, not read again (issue 37: langroid's 860-line client class was counted whole by
    each pass, 30 % of its previews)."""
    from mcp_migrate.core.fix import imports, shared_statements

    module, changed = _second_method_replaced(source, method)
    read: list = []
    real = getattr(imports, walker)
    monkeypatch.setattr(imports, walker, lambda node: read.append(type(node).__name__) or real(node))
    ask = getattr(imports, question)
    with shared_statements.statements_shared():
        first = ask(module)
        del read[:]
        second = ask(changed)
    assert read == walked
    assert summary(first, second) == expected
    assert second == ask(changed)  # as one walk reads them


def test_the_rules_walk_and_the_index_walk_build_the_same_module_index():
    """The parents and the nodes by kind that the rules' walk collects, and those ModuleIndex's
    own single walk builds, are what parents_below and iter_nodes find, node for node and in
    the same order."""
    from pathlib import Path

    import libcst as cst

    from mcp_migrate.api import default_settings
    from mcp_migrate.core.dispatch import run_rules

    settings = default_settings()
    paths = sorted((Path(__file__).resolve().parent.parent / "fixtures").rglob("*.py"))[::6]
    assert len(paths) > 30
    for path in paths:
        data = path.read_bytes()
        module = cst.parse_module(data)
        context, _ = run_rules(str(path), data, module, settings, list(settings.rules))
        learned = context.index.__dict__
        assert "_walked" in learned, path
        parents = {k: id(v) for k, v in syntax.parents_below(module).items()}
        by_kind: dict = {}
        for node in syntax.iter_nodes(module):
            by_kind.setdefault(type(node), []).append(id(node))
        for built in (learned["_walked"], walk.index_tree(module)):
            assert {k: id(v) for k, v in built.parents.items()} == parents, path
            assert {k: [id(n) for n in v] for k, v in built.by_kind.items()} == by_kind, path
