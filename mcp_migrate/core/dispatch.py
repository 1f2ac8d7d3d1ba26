"""The one walk of a file: every active rule's visit_/leave_ methods called per node, string
literals evaluated once for the rules that want their values, a rule that raises stopped for
this file only (its findings so far stand). Used by the engine, and by rules that look one
module away (RT001 runs itself over a helper's module to learn which functions ask)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from mcp_migrate.core.context import FileContext
from mcp_migrate.core.findings import FileError
from mcp_migrate.core.resolve import Resolver
from mcp_migrate.core.sdk import mentions_mcp
from mcp_migrate.core.settings import with_view
from mcp_migrate.core.syntax import literal
from mcp_migrate.core.walk import walk


class Dispatcher:
    """Calls every active rule's visit_/leave_ method for each node; isolates rule crashes."""

    def __init__(self, context: FileContext, rules: list, errors: list):
        self.context = context
        self.resolver = context.resolver
        self.errors = errors
        self.dead: set = set()
        self.visits: dict = {}
        self.leaves: dict = {}
        #: (rule, visit_string, wanted values) for rules that look at string literals.
        self.strings: list = []
        for rule in rules:
            if rule.WIRE_STRINGS:
                self.strings.append((rule, rule.visit_string, rule.WIRE_STRINGS))
            for attr in dir(type(rule)):
                if attr == "visit_string":
                    continue
                if attr.startswith("visit_"):
                    self.visits.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))
                elif attr.startswith("leave_"):
                    self.leaves.setdefault(attr[6:], []).append((rule, getattr(rule, attr)))

    def _call(self, handlers, node, *args) -> None:
        for rule, method in handlers:
            if rule.CODE in self.dead:
                continue
            try:
                method(node, *args)
            except Exception as exc:  # a broken rule stops for this file, never the run
                self.dead.add(rule.CODE)
                self.errors.append(
                    FileError(
                        self.context.path,
                        rule.CODE,
                        f"rule {rule.CODE} raised {type(exc).__name__}: {exc}"
                        " (its findings after this point in the file may be missing)",
                    )
                )

    def run(self, module: cst.Module) -> None:
        walked = walk(module, self.on_visit, self.on_leave)
        if module is self.context.module:
            self.context.index.learn(walked)

    def on_visit(self, node: cst.CSTNode) -> None:
        self.context.ancestors.append(node)
        self.resolver.on_visit(node)
        kind = type(node)
        handlers = self.visits.get(kind.__name__)
        if handlers:
            self._call(handlers, node)
        if self.strings and (kind is cst.SimpleString or kind is cst.ConcatenatedString):
            self._visit_string(cast(cst.BaseString, node))  # (the exact type, tested on `kind`)

    def _visit_string(self, node: cst.BaseString) -> None:
        """One evaluation of the literal for every rule that wants string values. The tail of
        an implicit concatenation (a ConcatenatedString inside another) is not a literal
        anyone wrote: the outermost one is evaluated once, its pieces one by one, so the cost
        stays linear in the number of pieces."""
        if type(node) is cst.ConcatenatedString and type(self.context.ancestors[-2]) is cst.ConcatenatedString:
            return
        value = literal(node)
        if value is None:
            return
        wanted = [(rule, method) for rule, method, values in self.strings if value in values]
        if wanted:
            self._call(wanted, node, value)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        handlers = self.leaves.get(type(original_node).__name__)
        if handlers:
            self._call(handlers, original_node)
        self.resolver.on_leave(original_node)
        self.context.ancestors.pop()


def run_rules(path: str, data: bytes, module: cst.Module, settings, rule_classes, errors: list | None = None):
    """Walk `module` once with instances of `rule_classes`: (context, rule instances). Rule
    crashes go to `errors` (a list of FileError) when given. The rules read the project through
    the settings' view (a fresh one when they carry none: core.project_view)."""
    resolver = Resolver()
    settings = with_view(settings)
    if mentions_mcp(data):  # the project's own classes, typed for MCP code only
        resolver.see_project(settings.view, path)
    resolver.prepass(module)
    context = FileContext(path, module, resolver, settings, data=data)
    rules = [cls(context) for cls in rule_classes]
    Dispatcher(context, rules, [] if errors is None else errors).run(module)
    return context, rules
