"""The model's "reads an annotation hint and decides approval with a value derived from it"
(issue 35 §1, §4): a value derived from a tool-annotation hint, followed through its module to
the gate it decides. HA001 reports from it (rules/ha001_annotation_trust.py hands it the hint
reads its own visits left open, and its words for a gate and an approval decision).

The rule's own visits decide a hint read where it sits, or one call away. A host can carry the
hint further before it lets a tool run: microsoft/agent-framework maps `readOnlyHint` into a
returned tuple, a second function unpacks it into a tool's properties dict, and another class's
middleware reads `props.get("accepts_untrusted")` to skip the violation the user would approve.
Keyed to no name, this follows what the module does with the value:

- a local variable assigned from it, or assigned under an `if` it decides (`if ro is not True:
  cap = PUBLIC`), a loop over it;
- a function's return (per element of a returned tuple), read where the function is called
  (`a, b, c = f(...)`, `self.m()`, a property read as `x.m`);
- a label: a string key stored (`props["k"] = v`, `{"k": v}`), an attribute stored (`obj.k = v`)
  or a keyword argument (`Policy(k=v)`), read back anywhere in the module (`p["k"]`,
  `p.get("k")`, `getattr(p, "k")`, `p.k`);
- a call given it (`Label(v)`, `bool(v)`), an operation on it, a conditional expression it tests.

It decides a gate when it is in the test of an `if`/`while`/conditional expression whose
branches the rule calls a gate (a tool is called or the user asked, a verdict returned, a
violation recorded or refused), or returned by an approval decision. The finding is the place,
in the function that read the hint, where the hint becomes the value that leaves it (`accepts =
read_only is True`): that line is what to change; a plain copy (`return x`, `a, b = f()`) moves
nothing. The analysis runs per module, only for hint reads the rule's own visits left open, and
only as many passes over the module's functions as new facts appear (at most `PASSES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import libcst as cst

from mcp_migrate.core.syntax import literal
from mcp_migrate.vocabulary.words import last_identifier

#: Rounds over the module's functions: a fact found late (a return, a label) reaches the
#: functions before it on the next round; four rounds follow a hint through four such steps.
PASSES = 4
#: Labels a value may pass through: a label is matched by its name anywhere in the module, so a
#: value stored under one label, read and stored under a second is followed, not further (the
#: third is a record of a record: `{"reason": ...}` built from a label).
LABEL_HOPS = 2
#: Method names of the built-in containers (`m.get(...)`, `xs.append(...)`): a call by one of
#: these names is the container's, never linked by name to a project function of that name.
BUILTIN_METHODS = frozenset(n for t in (dict, list, set, str, tuple) for n in dir(t) if not n.startswith("_"))


class Origin(NamedTuple):
    """Where a hint-derived value was made: the hint, the node to report, the function the
    hint was read in (its id; 0 at module level) and the last label it was stored under."""

    hint: str
    site: cst.CSTNode
    home: int
    label: str | None
    #: the read treats a missing annotation as safe (`.get("destructiveHint", False)`)
    missing: bool
    #: labels it went through (at most `LABEL_HOPS`)
    hops: int = 0


class Decided(NamedTuple):
    """A gate a hint-derived value decides: what it decides, in the rule's words."""

    origin: Origin
    what: str


class Flow:
    """One module's hint-derived values, followed to the gates they decide.

    `reads` maps id(hint read node) -> (hint name, missing counts as safe), the reads to
    follow; `gate(owner)` says what an `if`/`while`/conditional expression decides (None:
    nothing), `decider(function)` what an approval decision function decides (None: it is not
    one)."""

    def __init__(
        self,
        functions: list,
        reads: dict,
        gate: Callable[[cst.CSTNode], str | None],
        decider: Callable[[cst.FunctionDef], str | None],
    ) -> None:
        self.functions = functions
        self.reads = reads
        self.gate = gate
        self.decider = decider
        #: function name -> {element index or None (the whole value): origin}
        self.returns: dict = {}
        #: property names among those functions: read as `x.name`
        self.properties = {f.name.value for f in functions if _is_property(f)}
        self.labels: dict = {}
        self.envs: dict = {}
        self.decided: dict = {}
        self._changed = False
        self._what: str | None = None
        #: every origin met while a test is evaluated (None: no test is)
        self._collect: list | None = None
        #: id(test owner) -> what it decides (None: nothing)
        self._gates: dict = {}

    def run(self) -> list[Decided]:
        for _ in range(PASSES):
            self._changed = False
            for function in self.functions:
                env = self.envs.setdefault(id(function), {})
                self._what = self.decider(function)
                self._block(function.body, env, id(function), None, function.name.value)
            if not self._changed:
                break
        return list(self.decided.values())

    # ----- facts --------------------------------------------------------------------------
    def _learn(self, table: dict, key, origin: Origin) -> None:
        if key not in table:
            table[key] = origin
            self._changed = True

    def _decide(self, origin: Origin, what: str) -> None:
        if id(origin.site) not in self.decided:
            self.decided[id(origin.site)] = Decided(origin, what)

    # ----- statements ---------------------------------------------------------------------
    def _block(self, block, env: dict, fid: int, control: Origin | None, name: str) -> None:
        """A suite: an indented block's statements, or `if x: return y` on one line."""
        if type(block) is cst.SimpleStatementSuite:
            self._stmt(block, env, fid, control, name)
            return
        for stmt in block.body:
            self._stmt(stmt, env, fid, control, name)

    def _stmt(self, stmt, env: dict, fid: int, control: Origin | None, name: str) -> None:
        if type(stmt) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in stmt.body:
                self._small(small, env, fid, control, name)
        elif type(stmt) in (cst.If, cst.While):
            test = self._test(stmt, env, fid)
            inner = test or control
            self._block(stmt.body, env, fid, inner, name)
            if type(stmt.orelse) is cst.If:
                self._stmt(stmt.orelse, env, fid, inner, name)
            elif stmt.orelse is not None:
                self._block(stmt.orelse.body, env, fid, inner, name)
        elif type(stmt) is cst.For:
            found = self._taint(stmt.iter, env, fid, top=True)
            if found is not None:
                self._bind(stmt.target, found, env)
            self._block(stmt.body, env, fid, control, name)
        elif type(stmt) is cst.With:
            for item in stmt.items:
                self._taint(item.item, env, fid, top=True)
            self._block(stmt.body, env, fid, control, name)
        elif type(stmt) is cst.Try:
            self._block(stmt.body, env, fid, control, name)
            for handler in stmt.handlers:
                self._block(handler.body, env, fid, control, name)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self._block(extra.body, env, fid, control, name)

    def _small(self, small, env: dict, fid: int, control: Origin | None, name: str) -> None:
        if type(small) is cst.Assign:
            targets = [t.target for t in small.targets]
            self._assign(targets, small.value, env, fid, control)
        elif type(small) in (cst.AnnAssign, cst.AugAssign) and small.value is not None:
            self._assign([small.target], small.value, env, fid, control)
        elif type(small) is cst.Return and small.value is not None:
            self._return(small.value, env, fid, control, name)
        elif type(small) is cst.Expr:
            self._taint(small.value, env, fid, top=True)

    def _assign(self, targets: list, value, env: dict, fid: int, control: Origin | None) -> None:
        elements = _elements(value)
        for target in targets:
            parts = _elements(target)
            if parts is not None and elements is not None and len(parts) == len(elements):
                for part, element in zip(parts, elements):
                    self._store(part, self._taint(element, env, fid, top=True) or control, env)
                continue
            if parts is not None:  # `a, b, c = f(...)`: each name from the returned element
                returned = self._returned(value)
                for i, part in enumerate(parts):
                    found = returned.get(i) or returned.get(None) if returned else None
                    self._store(part, found or self._taint(value, env, fid, top=True) or control, env)
                continue
            self._store(target, self._taint(value, env, fid, top=True) or control, env)

    def _store(self, target, found: Origin | None, env: dict) -> None:
        if found is None:
            return
        if type(target) is cst.Name:
            if target.value not in env:
                env[target.value] = found
                self._changed = True
        elif type(target) is cst.Attribute:
            self._label(target.attr.value, found)
        elif type(target) is cst.Subscript and len(target.slice) == 1:
            index = target.slice[0].slice
            key = literal(index.value) if type(index) is cst.Index else None
            if isinstance(key, str):
                self._label(key, found)

    def _bind(self, target, found: Origin, env: dict) -> None:
        parts = _elements(target)
        for part in parts if parts is not None else [target]:
            self._store(part, found, env)

    def _label(self, label: str, found: Origin) -> None:
        if found.hops < LABEL_HOPS:
            self._learn(self.labels, label, found._replace(label=label, hops=found.hops + 1))

    def _return(self, value, env: dict, fid: int, control: Origin | None, name: str) -> None:
        elements = _elements(value)
        table = self.returns.setdefault(name, {})
        if elements is not None:
            for i, element in enumerate(elements):
                found = self._taint(element, env, fid, top=True) or control
                if found is not None:
                    self._learn(table, i, found)
            return
        found = self._taint(value, env, fid, top=True) or control
        if found is not None:
            self._learn(table, None, found)
            if self._what is not None:
                self._decide(found, self._what)

    def _returned(self, value) -> dict | None:
        if type(value) is cst.Await:
            value = value.expression
        if type(value) is cst.Call:
            callee = last_identifier(value.func)
            if type(value.func) is cst.Attribute and callee in BUILTIN_METHODS:
                return None
            return self.returns.get(callee) if callee else None
        return None

    # ----- expressions --------------------------------------------------------------------
    def _taint(self, expr, env: dict, fid: int, top: bool) -> Origin | None:
        found = self._derive(expr, env, fid, top)
        if found is not None and self._collect is not None:
            self._collect.append(found)
        return found

    def _test(self, owner, env: dict, fid: int) -> Origin | None:
        """A test's origin; when its owner is a gate, every hint-derived value in the test
        decides it (`a.integrity == UNTRUSTED and not p.get("accepts_untrusted")`: two)."""
        outer, self._collect = self._collect, []
        found = self._taint(owner.test, env, fid, top=False)
        collected, self._collect = self._collect, outer
        if found is not None:
            what = self._gates.get(id(owner), False)
            if what is False:  # asked once per test, whatever the rounds
                what = self._gates[id(owner)] = self.gate(owner)
            if what is not None:
                for origin in collected:
                    self._decide(origin, what)
        if outer is not None:
            outer.extend(collected)
        return found

    def _derive(self, expr, env: dict, fid: int, top: bool) -> Origin | None:
        """The origin of the hint-derived value `expr` carries (None: none). `top`: `expr` is
        the whole value of its statement, so a name carried unchanged keeps its origin; a
        name inside a larger expression is where the hint's own function derives from it."""
        read = self.reads.get(id(expr))
        if read is not None:
            return Origin(read[0], expr, fid, None, read[1])
        if type(expr) is cst.Name:
            found = env.get(expr.value)
            if found is not None and not top and found.home == fid:
                return found._replace(site=expr)
            return found
        if type(expr) is cst.Attribute:
            name = expr.attr.value
            if name in self.labels:
                return self.labels[name]
            if name in self.properties and None in self.returns.get(name, {}):
                return self.returns[name][None]
            return self._taint(expr.value, env, fid, top)
        if type(expr) is cst.Subscript:
            key = _key(expr)
            if key is not None and key in self.labels:
                return self.labels[key]
            return self._taint(expr.value, env, fid, top) or self._first(
                [s.slice.value for s in expr.slice if type(s.slice) is cst.Index], env, fid
            )
        if type(expr) is cst.Call:
            return self._call(expr, env, fid)
        if type(expr) is cst.Await:
            return self._taint(expr.expression, env, fid, top)
        if type(expr) is cst.IfExp:
            test = self._test(expr, env, fid)
            return self._first([expr.body, expr.orelse], env, fid) or test
        if type(expr) is cst.Dict:
            for element in expr.elements:
                if type(element) is cst.DictElement:
                    key = literal(element.key)
                    found = self._taint(element.value, env, fid, top=True)
                    if found is not None and isinstance(key, str):
                        self._label(key, found)
            return None
        if type(expr) is cst.Comparison:
            return self._first([expr.left, *(c.comparator for c in expr.comparisons)], env, fid)
        if type(expr) in (cst.BooleanOperation, cst.BinaryOperation):
            return self._first([expr.left, expr.right], env, fid)
        if type(expr) is cst.UnaryOperation:
            return self._first([expr.expression], env, fid)
        if type(expr) in (cst.Tuple, cst.List, cst.Set):
            return self._first([e.value for e in expr.elements], env, fid)
        return None

    def _first(self, exprs: list, env: dict, fid: int) -> Origin | None:
        """Every part evaluated (each may store a label), the first origin kept."""
        found = None
        for expr in exprs:
            origin = self._taint(expr, env, fid, top=False)
            found = found or origin
        return found

    def _call(self, call: cst.Call, env: dict, fid: int) -> Origin | None:
        key = _key_argument(call)
        if key is not None and key in self.labels:
            return self.labels[key]
        callee = last_identifier(call.func)
        if type(call.func) is cst.Attribute and callee in BUILTIN_METHODS:
            callee = None
        returned = self.returns.get(callee, {}).get(None) if callee else None
        found = None
        for arg in call.args:
            origin = self._taint(arg.value, env, fid, top=arg.keyword is not None)
            if origin is not None and arg.keyword is not None:
                self._label(arg.keyword.value, origin)
            elif arg.keyword is None:
                found = found or origin
        if type(call.func) is cst.Attribute:
            found = found or self._taint(call.func.value, env, fid, top=False)
        return returned or found


def _elements(expr) -> list | None:
    if type(expr) in (cst.Tuple, cst.List) and not any(type(e) is cst.StarredElement for e in expr.elements):
        return [e.value for e in expr.elements]
    return None


def _key(expr: cst.Subscript) -> str | None:
    if len(expr.slice) != 1 or type(expr.slice[0].slice) is not cst.Index:
        return None
    key = literal(expr.slice[0].slice.value)
    return key if isinstance(key, str) else None


def _key_argument(call: cst.Call) -> str | None:
    """The label `m.get("k", ...)` or `getattr(m, "k", ...)` reads."""
    name = last_identifier(call.func)
    args = [a for a in call.args if a.keyword is None]
    index = 0 if name == "get" and type(call.func) is cst.Attribute else 1 if name == "getattr" else None
    if index is None or len(args) <= index:
        return None
    key = literal(args[index].value)
    return key if isinstance(key, str) else None


def _is_property(function: cst.FunctionDef) -> bool:
    return any(last_identifier(d.decorator) in ("property", "cached_property") for d in function.decorators)
