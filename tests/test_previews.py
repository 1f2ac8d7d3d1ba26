"""Fix previews (`check --output-format full`, SARIF) are built from the check's own parse with
a pruned transform, one count of the module's names and an import analysis limited to the
statements that can matter. They must equal, byte for byte, what the straightforward way
computes: a second analysis, LibCST's whole-tree transform, a LibCST visitor's name count and
RemoveImportsVisitor over the whole module."""

from __future__ import annotations

import ast
import dataclasses
from collections import defaultdict
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import RemoveImportsVisitor

from mcp_migrate import api
from mcp_migrate.api import default_settings
from mcp_migrate.core.fix import apply, imports, loop, orphans, pieces
from mcp_migrate.core.fix.shared_statements import statements_shared
from mcp_migrate.core.positions import top_level_spans
from mcp_migrate.core.record import replace
from mcp_migrate.core.syntax import iter_nodes
from mcp_migrate.project.discovery import SourceFile
from mcp_migrate.run.one_file import check_data

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SETTINGS = default_settings()


def _visitor_name_uses(module: cst.Module) -> dict:
    """The LibCST-visitor name count the fixer used before its field walk (the reference)."""
    counts: dict = defaultdict(int)

    class Count(cst.CSTVisitor):
        def visit_Import(self, node) -> bool:
            return False

        def visit_ImportFrom(self, node) -> bool:
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            counts[node.value] += 1

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            counts[node.name.value] -= 1

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            counts[node.name.value] -= 1

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            value = node.value.strip("\"'")
            if value.isidentifier():
                counts[value] += 1

    module.visit(Count())
    return counts


def _use_reference_fixer(monkeypatch) -> None:
    """Replace every shortcut of the fixer by the whole-module way."""
    for module in (loop, imports, orphans):  # every module that counts names
        monkeypatch.setattr(module, "name_uses", _visitor_name_uses)
    monkeypatch.setattr(
        loop,
        "edit_transformer",
        lambda module, edits, width, parents=None: apply._ApplyEdits(edits, width, module.default_indent),
    )
    monkeypatch.setattr(loop, "module_bytes", lambda new, pieces: new.bytes)
    monkeypatch.setattr(
        imports,
        "_remove_imports",
        lambda context, module, words: RemoveImportsVisitor(context).transform_module(module),
    )
    monkeypatch.setattr(imports, "_plain_removal", lambda module, orphaned, words: None)


def _fixable_analyses() -> list:
    """(path, bytes, analysis) of the fixtures whose check has a fixable finding (the only
    files that get previews)."""
    out = []
    for path in sorted(FIXTURES.glob("**/*.py")):
        data = path.read_bytes()
        analysis = api.analyze(data, path.name, SETTINGS)
        if any(f.fix != "none" for f in analysis.result.findings) and not analysis.result.errors:
            out.append((path, data, analysis))
    return out


def _equal_both_ways(monkeypatch, cases: list, make) -> list:
    """`make(analysis, data, name)` of each case the fast way, then the whole-module way (the
    reference fixer, which stays on): asserts they are equal; the reference's results."""
    fast = [make(analysis, data, path.name) for path, data, analysis in cases]
    _use_reference_fixer(monkeypatch)
    slow = [make(analysis, data, path.name) for path, data, analysis in cases]
    for (path, _, _), mine, reference in zip(cases, fast, slow):
        assert mine == reference, path
    return slow


def test_previews_equal_the_whole_module_way_on_every_fixture(monkeypatch):
    """Both ways from the same analysis (what is compared is the preview, not the parse)."""
    cases = _fixable_analyses()
    assert len(cases) > 30
    slow = _equal_both_ways(monkeypatch, cases, loop.analysis_previews)
    assert sum(1 for previews in slow if previews) > 20


def test_the_parsed_modules_code_by_statement_is_what_libcst_writes():
    """Sliced from the file or generated, each statement's piece is LibCST's code for it, and
    the whole is the module's code; on most fixtures the pieces are sliced."""
    assert _sliced_and_exact(_fixable_analyses()) > 30


def _sliced_and_exact(cases: list) -> int:
    """How many of the analyses' modules are cut from their file; asserts each one's pieces,
    cut or generated, are LibCST's code for its statements and the module."""
    sliced = 0
    for path, data, analysis in cases:
        module = analysis.module
        found = pieces.module_pieces(module, data, analysis.spans)
        assert found.bytes == module.bytes, path
        assert [found.statements[id(stmt)] for stmt in module.body] == [
            (stmt, module.code_for_node(stmt)) for stmt in module.body
        ], path
        sliced += pieces.sliced(module, data, analysis.spans) is not None
    return sliced


def test_an_analysis_without_the_screens_tree_still_cuts_its_code_from_the_file(monkeypatch):
    """A file checked again under the run's plan keeps no `ast` tree (engine._take_tree), so
    its analysis has no spans: its previews read the statements' lines afresh and cut the
    module's code from the file, generating only what a pass changed, as the first check does."""
    generated = []
    real = cst.Module.code_for_node
    monkeypatch.setattr(cst.Module, "code_for_node", lambda self, node: generated.append(node) or real(self, node))
    compared = 0
    for path, data, analysis in _fixable_analyses():
        if pieces.sliced(analysis.module, data, analysis.spans) is None:
            continue
        generated.clear()
        with_spans = loop.analysis_previews(analysis, data, path.name)
        expected = len(generated)
        generated.clear()
        without = loop.analysis_previews(replace(analysis, spans=None), data, path.name)
        assert without == with_spans, path
        assert len(generated) == expected, path
        compared += 1
    assert compared > 30


def _without_final_newline(cases: list) -> list:
    """The fixable fixtures with their last newline dropped (about one file in 35 of the corpus
    ends so), each analysed again."""
    out = []
    for path, data, _ in cases:
        cut = data.rstrip(b"\r\n")
        analysis = api.analyze(cut, path.name, SETTINGS)
        if any(f.fix != "none" for f in analysis.result.findings) and not analysis.result.errors:
            out.append((path, cut, analysis))
    return out


def test_a_module_without_a_final_newline_is_cut_from_the_file_too(monkeypatch):
    """LibCST writes such a module's code with its last newline dropped; its pieces are cut from
    the file all the same, and each preview equals the whole-module way's."""
    cases = _without_final_newline(_fixable_analyses())
    assert len(cases) > 30
    assert not any(analysis.module.has_trailing_newline for _, _, analysis in cases)
    assert _sliced_and_exact(cases) > 30
    slow = _equal_both_ways(monkeypatch, cases, loop.previews)
    assert sum(1 for previews in slow if previews[0]) > 20


@pytest.mark.parametrize(
    "source",
    ["x = 1", "x = 1\n# the end", "def f():\n    return 1", "if a:\n    pass\n    # inner", "@d\nclass C:\n    y = 2"],
)
def test_the_code_of_a_changed_module_without_a_final_newline_is_libcsts(source):
    module = cst.parse_module(source)
    found = pieces.module_pieces(module, source.encode(), ((1, 1),) if source == "x = 1" else None)
    changed = module.with_changes(body=[cst.parse_statement("import os\n"), *module.body])
    assert pieces.module_bytes(changed, found) == changed.bytes
    assert pieces.module_bytes(module.with_changes(body=[]), found) == module.with_changes(body=[]).bytes


def test_a_pass_changing_a_methods_statement_writes_its_other_statements_from_the_file(monkeypatch):
    """A pass that changes one statement of a method writes the class's other methods, and the
    method's other statements, from the file's text (core.fix.pieces._cut_replaced): only
    what changed and the compound statements around it are generated; the code is LibCST's."""
    data = (
        b"import os\n\n\nclass C:\n    def a(self):\n        x = 1\n        # before y\n        y = os.sep\n"
        b"        return x\n\n    def b(self):\n        return 2\n"
    )
    module = cst.parse_module(data)
    found = pieces.module_pieces(module, data, top_level_spans(ast.parse(data)))
    cls = module.body[1]
    a, b = cls.body.body
    x, y, ret = a.body.body
    written = []
    real = cst.CSTNode._codegen
    monkeypatch.setattr(
        cst.CSTNode, "_codegen", lambda self, state, **kw: written.append(self) or real(self, state, **kw)
    )
    for value in ("2", "3"):  # two passes, each changing `x = 1`
        changed = x.with_changes(body=[x.body[0].with_changes(value=cst.Integer(value))])
        method = a.with_changes(body=a.body.with_changes(body=[changed, y, ret]))
        new = module.with_changes(body=[module.body[0], cls.with_changes(body=cls.body.with_changes(body=[method, b]))])
        written.clear()
        assert pieces.module_bytes(new, found) == new.bytes
        written_by_pieces = written[: written.index(new)] if new in written else written
        assert not {id(node) for node in written_by_pieces} & {id(y), id(ret), id(b)}


def test_a_class_changed_by_each_pass_has_its_other_methods_written_once(monkeypatch):
    """Each pass that changes one method of a class writes the others' code from the file's, at
    the indentation it was written at (core.fix.pieces._body_written), and the module's code is
    LibCST's; where the file's text cannot be cut, from what the first pass wrote."""
    data = (
        b"import os\n\n\nclass C:\n    def a(self):\n        return 1\n\n    # b\n    def b(self):\n"
        b"        if os:\n            return os.sep\n        elif self:  # e\n            pass\n        else:\n            return 2\n"
    )
    module = cst.parse_module(data)
    found = pieces.module_pieces(module, data, ((1, 1), (4, 15)))
    cls = module.body[1]
    a, b = cls.body.body
    written = []
    real = cst.CSTNode._codegen
    monkeypatch.setattr(
        cst.CSTNode, "_codegen", lambda self, state, **kw: written.append(self) or real(self, state, **kw)
    )
    for name in ("x", "y", "z"):  # three passes, each renaming `a`
        renamed = cls.with_changes(body=cls.body.with_changes(body=[a.with_changes(name=cst.Name(name)), b]))
        new = module.with_changes(body=[module.body[0], renamed])
        assert pieces.module_bytes(new, found) == new.bytes
    assert sum(1 for node in written if node is b) == 3  # never by the passes, thrice by `new.bytes`
    written.clear()
    monkeypatch.setattr(pieces, "_body_written", lambda *args, **kwargs: [])  # where the cut declines
    found = pieces.module_pieces(module, data, ((1, 1), (4, 15)))
    for name in ("x", "y", "z"):
        renamed = cls.with_changes(body=cls.body.with_changes(body=[a.with_changes(name=cst.Name(name)), b]))
        new = module.with_changes(body=[module.body[0], renamed])
        assert pieces.module_bytes(new, found) == new.bytes
    assert sum(1 for node in written if node is b) == 1 + 3  # once by the passes, thrice by `new.bytes`
    moved = module.with_changes(body=[module.body[0], cls.with_changes(body=cls.body.with_changes(indent="  "))])
    assert pieces.module_bytes(moved, found) == moved.bytes  # another indentation: written again


def test_a_pass_that_changes_an_if_keeps_its_elif():
    """An `elif` is written by the `if` it belongs to (LibCST passes `is_elif`): a pass that
    changes the first branch keeps the unchanged `elif` branch's keyword."""
    data = b"def f(a):\n    if a:\n        return 1\n    elif a is None:  # none\n        return 2\n    else:\n        return 3\n"
    module = cst.parse_module(data)
    found = pieces.module_pieces(module, data, ((1, 7),))
    func = module.body[0]
    branch = func.body.body[0]
    first = branch.body.with_changes(body=[cst.parse_statement("return 9\n")])
    changed = func.with_changes(body=func.body.with_changes(body=[branch.with_changes(body=first)]))
    for _ in range(2):  # the second pass from what the first wrote
        new = module.with_changes(body=[changed])
        assert pieces.module_bytes(new, found) == new.bytes
    assert b"elif a is None" in pieces.module_bytes(new, found)


def test_both_previews_in_one_call_equal_each_asked_alone():
    for path, data, analysis in _fixable_analyses():
        alone = (loop.analysis_previews(analysis, data, path.name), loop.finding_previews(analysis, data, path.name))
        assert loop.previews(analysis, data, path.name) == alone, path


def test_finding_previews_equal_the_whole_module_way_on_every_fixture(monkeypatch):
    """Each finding's own preview too (many passes over one parse: statements' code reused)."""
    cases = _fixable_analyses()
    slow = _equal_both_ways(monkeypatch, cases, loop.finding_previews)
    assert sum(1 for previews in slow if previews) > 5


def test_a_check_worker_keeps_the_previews_of_a_separate_analysis():
    """check_data builds them from its own analysis: the same bytes as rule_previews, which
    analyses the file again."""
    turned = dataclasses.replace(SETTINGS, fix_previews=True)
    for name in ("RT002/client_session_keyword.py", "RT006/fix_flags.py", "mixed/fix_all_three.py"):
        path = FIXTURES / name
        data = path.read_bytes()
        result = check_data((SourceFile(str(path), name), turned, data))
        assert result.fix_previews and result.fix_previews == api.rule_previews(data, name, SETTINGS)


def test_name_count_equals_the_visitor_count_on_every_fixture():
    for path in sorted(FIXTURES.glob("**/*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        expected = {k: v for k, v in _visitor_name_uses(module).items()}
        assert dict(imports.name_uses(module)) == expected, path
        with statements_shared():  # each block's statements counted once, their counts added
            assert dict(imports.name_uses(module)) == expected, path


# Import removal limited to the statements that can matter ------------------------------------
HEAD = "from typing import List\nfrom mcp.server.fastmcp import Context\nimport os.path\n\n"


@pytest.mark.parametrize(
    "rest, words",
    [
        ("x = 1\n\n\ndef f(a):\n    return a\n", {"Context"}),
        ('x = 1\n\n\ndef f(a: "Context"):\n    return a\n', {"Context"}),  # string annotation
        ('x = 1\n\n\ndef f(a: "List[Context]"):\n    return a\n', {"Context"}),
        ('__all__ = ["Context"]\n\n\ndef g():\n    pass\n', {"Context"}),  # exported
        ("def f():\n    import json\n    return json\n\n\ny = 2\n", {"Context", "os"}),
        ("def f():\n    from mcp.server.fastmcp import Context\n\n    return Context\n", {"Context"}),
        ("if True:\n    pass\n\n\nz = os\n", {"os", "Context"}),
        ("class C:\n    Context = 1\n\n\nw = C.Context\n", {"Context"}),
    ],
)
def test_limited_import_removal_equals_the_whole_module_one(rest, words):
    module = cst.parse_module(HEAD + rest)
    scheduled = {"Context": ("mcp.server.fastmcp", "Context", None), "os": ("os.path", None, None)}

    def context() -> CodemodContext:
        ctx = CodemodContext()
        for word in words:
            RemoveImportsVisitor.remove_unused_import(ctx, *scheduled[word])
        return ctx

    whole = RemoveImportsVisitor(context()).transform_module(module)
    limited = imports._remove_imports(context(), module, words)
    assert limited.code == whole.code


# The plain removal of imports in blocks (a `try:`, an `if TYPE_CHECKING:`, a function) ----------
X_FROM_M = [("X", "m", "X", None)]


@pytest.mark.parametrize(
    "source, orphaned",
    [
        ("try:\n    from m import X, Y\nexcept ImportError:\n    pass\nz = Y\n", X_FROM_M),
        ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from m import X\nz = 1\n", X_FROM_M),
        ("def f():\n    import a.b\n    return 1\n", [("a", "a.b", None, None)]),
        ("class K:\n    from m import X  # kept for K.X\n    y = 1\n\n\nw = K.X\n", X_FROM_M),
        (
            "try:\n    from m import X\nexcept ImportError:\n    from n import X\nz = 1\n",
            [("X", "m", "X", None), ("X", "n", "X", None)],
        ),
        (
            "try:\n    from m import (\n        A,  # a\n        X,  # x\n        B,\n    )\nexcept ImportError:\n    pass\nz = A, B\n",
            X_FROM_M,
        ),
        ("try:\n    from m import X as Z, Y\nexcept ImportError:\n    Y = None\n", [("Z", "m", "X", "Z")]),
        ("if A:\n    try:\n        from m import X\n    finally:\n        pass\n", X_FROM_M),
        ("try:\n    # the SDK\n    from m import X\n    import os\nexcept ImportError:\n    os = None\n", X_FROM_M),
        ("import os\nfrom m import X\n\nif os:\n    from m import X\n", X_FROM_M),
    ],
)
def test_the_plain_removal_in_blocks_equals_the_visitor(source, orphaned):
    """Where the aliases are all that keep a name alive, an import line in a block is edited
    without LibCST's codemod, to the visitor's very output (a block left empty holds `pass`)."""
    module = cst.parse_module(source)
    words = {bound for bound, _, _, _ in orphaned}
    assert all(imports.name_uses(module).get(word, 0) <= 0 for word in words)
    plain = imports._plain_removal(module, orphaned, words)
    assert plain is not None
    context = CodemodContext()
    for _, mod, obj, asname in orphaned:
        RemoveImportsVisitor.remove_unused_import(context, mod, obj, asname)
    assert plain.code == RemoveImportsVisitor(context).transform_module(module).code
    assert plain.code != source


def test_an_import_beside_another_statement_in_a_block_is_left_to_the_visitor():
    module = cst.parse_module("try:\n    x = 1; from m import X\nexcept ImportError:\n    pass\n")
    assert imports._plain_removal(module, X_FROM_M, {"X"}) is None


def test_imports_are_found_without_walking_into_expressions():
    """The statement-only walk finds every import a walk of every node finds, in order, on
    every fixture's statements (an import inside a class, a function, an `if`, a `try`)."""

    def every_node_way(root) -> tuple:
        saved = imports._statement_nodes
        imports._statement_nodes = iter_nodes
        try:
            return imports._imports_in(root)
        finally:
            imports._statement_nodes = saved

    nested = 0
    for path in sorted(FIXTURES.glob("**/*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        for stmt in module.body:
            found = imports._imports_in(stmt)
            assert found == every_node_way(stmt), path
            with statements_shared():  # each block's statements read once, their imports joined
                assert imports._imports_in(stmt) == found, path
            nested += bool(found) and not isinstance(stmt, cst.SimpleStatementLine)
    assert nested > 5
