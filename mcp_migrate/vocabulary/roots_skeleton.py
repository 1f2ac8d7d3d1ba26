"""A file's functions and what they assign, without RT103's data flow (`roots_origin.Origins`):
what RT103 asks of every call it visits (is it a call of this file's function, the one binding
of a receiver, whether a function returns a resolved path), so the data flow (a walk of every
expression, then its fixpoint) is worked out only in a file where a node asks where a value
comes from. Issue 35 "no slower": most files RT103 reads ask none.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.walk import NODE_TYPES, children
from mcp_migrate.vocabulary.roots_origin import Scope, callees, parameters

#: The expression node types (`Skeleton` does not look inside them). Read from each class's MRO:
#: `issubclass` on LibCST's abstract classes fills their ABC caches class by class (9 ms at
#: import, a third of the rules' import when a run first needs LibCST); no class is registered
#: as a virtual subclass, so the answers are the same.
_EXPRESSIONS = frozenset(kind for kind in NODE_TYPES if cst.BaseExpression in kind.__mro__)


class Skeleton:
    """A file's functions, their parameters, classes, returns and the names they assign, without
    the data flow: what RT103 asks of every call (`callees`, a receiver's one binding, a path
    returned resolved) before any value's origin, so `Origins` (a walk of every expression and
    its fixpoint) is worked out only in a file that asks where a value comes from.

    The same scopes, `by_name` and "assign" bindings (in the same order) as `Origins`, from the
    same walk cut at expressions: no function, return or assignment statement lives in one, and
    the one binding that does (`x := ...`) is looked for only in a file whose bytes spell `:=`
    (`expressions`). Only "assign" bindings are kept (`Origins` also keeps loops and
    extensions, which these questions do not ask about)."""

    def __init__(self, module: cst.Module, expressions: bool = True) -> None:
        self.module = Scope(module, None, None)
        self.scopes: dict = {id(module): self.module}
        self.by_name: dict = {}
        cut = frozenset() if expressions else _EXPRESSIONS
        stack: list = [(module, self.module, None)]
        while stack:  # by exact type: `isinstance` on LibCST's abstract classes costs more than the walk
            node, scope, cls = stack.pop()
            kind = type(node)
            if kind is cst.FunctionDef:
                inner = Scope(node, scope, cls, params=[p.name.value for p in parameters(node.params)])
                self.scopes[id(node)] = inner
                self.by_name.setdefault(node.name.value, []).append(inner)
                stack.extend((child, inner, None) for child in children(node.body))
                continue
            if kind is cst.ClassDef:
                stack.extend((child, scope, node) for child in children(node.body))
                continue
            if kind is cst.Lambda or kind in cut:
                continue
            if kind is cst.Assign:
                for target in node.targets:
                    scope.bindings.append((target.target, node.value, "assign"))
            elif kind is cst.AnnAssign or kind is cst.NamedExpr:
                if node.value is not None:
                    scope.bindings.append((node.target, node.value, "assign"))
            elif kind is cst.WithItem:
                if node.asname is not None:
                    scope.bindings.append((node.asname.name, node.item, "assign"))
            elif kind is cst.Return:
                if node.value is not None:
                    scope.returns.append(node.value)
            stack.extend((child, scope, cls) for child in children(node))
        for scope in self.scopes.values():  # collected from a stack: back in `Origins`' order
            scope.bindings.reverse()

    def scope_of(self, function: cst.CSTNode | None) -> Scope:
        return self.scopes.get(id(function), self.module) if function is not None else self.module

    def callees(self, call: cst.Call, scope: Scope) -> list:
        return callees(self.by_name, call, scope)
