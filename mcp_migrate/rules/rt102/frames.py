"""What RT102 learns about one function while the walk goes through it (scheme tests, parse
results, converted names), and findings held until the function is left."""

from __future__ import annotations

import libcst as cst

from mcp_migrate.rules.rt102.vocabulary import CASE_METHODS, TEST_OPERATORS, TESTS
from mcp_migrate.vocabulary.words import last_identifier


class Frame:
    """What the walk has learnt so far about one function (or the module body): every decision
    RT102 takes is taken from these, collected during the engine's single walk."""

    __slots__ = ("parsed", "guards", "built", "converted", "unquoted", "netloc", "drive", "pending")

    def __init__(self) -> None:
        #: name -> the expression a `urlparse(...)` result bound to it parsed.
        self.parsed: dict = {}
        #: (subject code, If node or None, the test says "file", the If body exits, a failed test denies).
        self.guards: list = []
        #: names bound to a `file://` URI assembled by concatenation.
        self.built: set = set()
        #: names handed to `url2pathname(...)` / `unquote(...)`.
        self.converted: set = set()
        self.unquoted: set = set()
        #: code of the parse results whose `.netloc` is read (the host is handled).
        self.netloc: set = set()
        #: a drive letter is tested (`path[1].isalpha()`).
        self.drive = False
        #: `.path` findings whose fate depends on the rest of the function (see `_settle`).
        self.pending: list = []


class Pending:
    """A `.path` (or `unquote(.path)`) finding held until its function is left: the name it is
    bound to may still reach `url2pathname`, or the function may turn out to be a complete
    hand-written converter."""

    __slots__ = ("node", "owner", "path_attr", "target", "unquoted")

    def __init__(self, node, owner, path_attr, target, unquoted) -> None:
        self.node, self.owner, self.path_attr, self.target, self.unquoted = node, owner, path_attr, target, unquoted


def bound_name(stack: list) -> str | None:
    """The name the expression at the top of `stack` is bound to (`x = <...expr...>`), if any."""
    for anc in reversed(stack[:-1]):
        if isinstance(anc, cst.Assign):
            names = [t.target.value for t in anc.targets if isinstance(t.target, cst.Name)]
            return names[0] if len(names) == 1 else None
        if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
    return None


def only_tested(stack: list) -> bool:
    """The value at the top of `stack` only feeds a test: a membership, equality or identity
    comparison, a regex, `not`, `bool()`/`len()`, a `startswith`/`endswith`, or the test of an
    `if`/`while` itself (through `.lower()`-style string methods)."""
    i = len(stack) - 1
    while i >= 2 and isinstance(stack[i - 1], cst.Attribute) and isinstance(stack[i - 2], cst.Call):
        attr = stack[i - 1].attr.value
        if attr in TESTS:
            return True
        if attr not in CASE_METHODS:
            return False
        i -= 2
    node, parent = stack[i], stack[i - 1] if i >= 1 else None
    if isinstance(parent, cst.ComparisonTarget) or isinstance(parent, cst.Comparison):
        comparison = parent if isinstance(parent, cst.Comparison) else stack[i - 2]
        return all(isinstance(t.operator, TEST_OPERATORS) for t in comparison.comparisons)
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is node:
        return True
    if isinstance(parent, cst.Arg) and i >= 2 and isinstance(stack[i - 2], cst.Call):
        func = stack[i - 2].func
        name = last_identifier(func) or ""
        owner = func.value if isinstance(func, cst.Attribute) else None
        return name in ("bool", "len") or (isinstance(owner, cst.Name) and owner.value == "re")
    return False


def enclosing_test(stack: list) -> tuple:
    """(the `if` whose test holds the node at the top of `stack`, negated by a `not`) or
    (None, False) when the node is not an `if` test (a return value, an `and` chain's use)."""
    negated = False
    for i in range(len(stack) - 2, -1, -1):
        anc, child = stack[i], stack[i + 1]
        if isinstance(anc, cst.UnaryOperation) and isinstance(anc.operator, cst.Not):
            negated = not negated
        elif isinstance(anc, cst.If):
            return (anc, negated) if child is anc.test else (None, False)
        elif not isinstance(anc, (cst.Comparison, cst.ComparisonTarget, cst.Attribute, cst.Call, cst.Arg)):
            return None, False
    return None, False


def branch_of(stack: list, ids: dict, test_if) -> str | None:
    """Where the node at the top of `stack` sits relative to `test_if`: "test", "body",
    "orelse", or None (after it, or unrelated)."""
    if test_if is None or id(test_if) not in ids:
        return None
    child = stack[ids[id(test_if)] + 1]
    if child is test_if.test:
        return "test"
    return "body" if child is test_if.body else "orelse"
