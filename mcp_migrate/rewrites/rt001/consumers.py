"""The code that consumed the roots result, rewritten to use the directories: list uses,
element uses (`root.uri`, `root.name`), URI-to-path idioms; what is not understood says why."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from mcp_migrate.core.fix.edits import RemoveStatement, Replace
from mcp_migrate.core.syntax import (
    code_of,
    is_reference,
    iter_nodes,
    literal,
    parent_map,
    parse_expr,
    short,
)
from mcp_migrate.rewrites.names import is_store
from mcp_migrate.rewrites.rt001.decoders import PATH
from mcp_migrate.rewrites.rt001.folding import ConstantFolder
from mcp_migrate.rewrites.rt001.log_lines import log_statement
from mcp_migrate.rewrites.rt001.outcomes import NotUnderstood, SideChannel, UsePlan

FILE_PREFIX = "file://"

_TRUTH_PARENTS = (cst.If, cst.While, cst.IfExp, cst.BooleanOperation)


#: Calls that parse a value out of a string: a root's name handed to one is data, not a label.
_DATA_PARSERS = frozenset(
    {"zoneinfo.ZoneInfo", "pytz.timezone", "uuid.UUID", "builtins.int", "builtins.float", "json.loads"}
)


def expected_constant(expected: frozenset) -> str:
    """The value a directory's URI has, among the ones a test may compare with."""
    return "file" if "file" in expected else ""


#: What a directory's file:// URI has for these attributes, and the literals a check compares
#: them with that still make sense for a directory.
_URI_EXPECTED = {
    "scheme": frozenset({"file"}),
    "host": frozenset({"", "localhost"}),
    "netloc": frozenset({"", "localhost"}),
}


class ConsumerRewriter:
    """Plans the edits that make `value` (the awaited request) unnecessary inside `func`."""

    def __init__(
        self,
        func: cst.FunctionDef,
        value: cst.BaseExpression,
        kind: str,
        target: str,
        resolver,
        decoder: Callable[[cst.Call], str | None] | None = None,
    ):
        self.func = func
        self.value = value
        self.kind = kind  # "result": a ListRootsResult; "list": FastMCP's list[Root]
        self.target = target  # the name holding the directories (parameter or constant)
        self.resolver = resolver
        #: PATH/STR for a call of a project helper decoding a file URI (rewrites.rt001.decoders).
        self.decoder = decoder
        self.parents = parent_map(func)
        self.plan = UsePlan()

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(id(node))

    def up(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The enclosing expression, stepping over the Arg wrapper of call arguments."""
        parent = self.parents.get(id(node))
        return self.parents.get(id(parent)) if isinstance(parent, cst.Arg) else parent

    def run(self) -> UsePlan:
        parent = self.parent(self.value)
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is self.value:
            self._bound(parent)
        elif isinstance(parent, cst.Expr):
            self.plan.edits.append(RemoveStatement(parent))
            self.plan.dropped.append(parent)
        else:
            self._list_use(self._as_list(self.value))
            self.plan.dropped.append(self.value)
        ConstantFolder(self.func, self.parents, self.plan).run()
        return self.plan

    # --- the bound result ----------------------------------------------------------------------
    def _bound(self, assign) -> None:
        """`result = await ...` or `result: ListRootsResult = await ...` (the annotation goes
        with the statement)."""
        targets = [assign.target] if isinstance(assign, cst.AnnAssign) else [t.target for t in assign.targets]
        if len(targets) != 1 or not isinstance(targets[0], cst.Name):
            raise NotUnderstood("the roots result is unpacked")
        bound = targets[0]
        for node in self._references(bound.value, exclude=bound):
            if self._whole_result_truth(node):
                continue
            try:
                as_list = self._as_list(node)
            except NotUnderstood:
                if self._in_log_line(node):
                    continue
                raise
            self._list_use(as_list)
        self.plan.edits.append(RemoveStatement(assign))
        self.plan.dropped.append(assign)

    def _references(self, name: str, exclude: cst.Name) -> list:
        """Every read of `name` in the function; any second binding makes the site opaque."""
        found = []
        for node in iter_nodes(self.func.body):
            if isinstance(node, cst.Name) and node.value == name and node is not exclude:
                parent = self.parent(node)
                if not is_reference(node, parent):
                    continue
                if is_store(node, parent):
                    raise NotUnderstood(f"`{name}` is assigned again")
                found.append(node)
        return found

    def _whole_result_truth(self, node: cst.BaseExpression) -> bool:
        """`if result` / `not result` on a ListRootsResult: a model object is always true, so the
        test has a fixed value (the emptiness test is on `.roots`, rewritten on its own)."""
        if self.kind != "result":
            return False
        parent = self.parent(node)
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            self.plan.edits.append(Replace(parent, cst.Name("False")))
            return True
        if _truth_context(node, parent):
            self.plan.edits.append(Replace(node, cst.Name("True")))
            return True
        return False

    def _in_log_line(self, node: cst.BaseExpression) -> bool:
        """A log line about the roots goes with them (rewrites.rt001.log_lines), planned once."""
        line = log_statement(node, self.parents, self.resolver)
        if line is not None and not any(dropped is line for dropped in self.plan.dropped):
            self.plan.edits.append(RemoveStatement(line))
            self.plan.dropped.append(line)
        return line is not None

    def _as_list(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The expression that is the roots list: `x.roots` for a result, `x` for a list,
        `x["roots"]` for a raw JSON-RPC result."""
        if self.kind == "list":
            return node
        parent = self.parent(node)
        if self.kind == "raw":
            if isinstance(parent, cst.Subscript) and _key_of(parent, node) == "roots":
                return parent
            raise NotUnderstood(f"the raw roots result is used as `{short(self.up(node) or node)}`")
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value == "roots":
            return parent
        raise NotUnderstood(f"the roots result is used as a whole (`{short(self.up(node) or node)}`)")

    # --- the roots list ------------------------------------------------------------------------
    def _list_use(self, node: cst.BaseExpression) -> None:
        parent = self.parent(node)
        new_list = cst.Name(self.target)
        if isinstance(parent, cst.For) and parent.iter is node:
            self.plan.edits.append(Replace(node, new_list))
            # A loop variable outlives its loop: every use in the function is an element use.
            self._element_name(parent.target, [self.func.body])
        elif isinstance(parent, cst.CompFor) and parent.iter is node:
            self.plan.edits.append(Replace(node, new_list))
            scope = self._comprehension_of(parent)
            self._element_name(parent.target, [scope])
        elif isinstance(parent, cst.Subscript) and parent.value is node and _single_index(parent):
            self.plan.edits.append(Replace(node, new_list))
            self._element_use(parent, parent.with_changes(value=cst.Name(self.target)))
        elif isinstance(parent, cst.Arg) and self._is_len_arg(parent):
            self.plan.edits.append(Replace(node, new_list))
        elif isinstance(parent, cst.Assign) and parent.value is node and (alias := _sole_name(parent)) is not None:
            # `roots = result.roots`: the alias's uses become uses of the new list.
            self.plan.edits.append(RemoveStatement(parent))
            self.plan.dropped.append(parent)
            for use in self._references(alias.value, exclude=alias):
                self._list_use(use)
        elif _truth_context(node, parent):
            self.plan.edits.append(Replace(node, new_list))
        elif not self._in_log_line(node):
            raise NotUnderstood(f"the roots list is used as `{short(self.up(node) or node)}`")

    def _is_len_arg(self, arg: cst.Arg) -> bool:
        call = self.parent(arg)
        return (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "len"
            and self.resolver.lookup("len") is None
        )

    def _comprehension_of(self, comp_for: cst.CompFor) -> cst.CSTNode:
        node: cst.CSTNode = comp_for
        while not isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            parent = self.parent(node)
            if parent is None:
                raise NotUnderstood("a comprehension the rewrite cannot follow")
            node = parent
        return node

    def _element_name(self, target: cst.BaseExpression, scopes: list) -> None:
        if not isinstance(target, cst.Name):
            raise NotUnderstood("the loop unpacks each root")
        for scope in scopes:
            for node in iter_nodes(scope):
                if isinstance(node, cst.Name) and node.value == target.value and node is not target:
                    parent = self.parent(node)
                    if not is_reference(node, parent):
                        continue
                    if is_store(node, parent):
                        raise NotUnderstood(f"`{target.value}` is bound again in the function")
                    self._element_use(node, cst.Name(target.value))

    # --- one root ------------------------------------------------------------------------------
    def _element_use(self, node: cst.BaseExpression, path: cst.BaseExpression) -> None:
        parent = self.parent(node)
        if isinstance(parent, cst.Assign) and parent.value is node and (alias := _sole_name(parent)) is not None:
            # `root = result.roots[0]`: the local now holds a path; its uses are element uses.
            for use in self._references(alias.value, exclude=alias):
                self._element_use(use, cst.Name(alias.value))
            return
        if self.kind == "raw":
            key = _key_of(parent, node)  # (None unless `parent` is a subscript)
            if key == "uri" and isinstance(parent, cst.Subscript):
                self._uri_use(parent, path)
                return
            if key == "name" and isinstance(parent, cst.Subscript):
                self.plan.needs_path = True
                self.plan.edits.append(Replace(parent, _call_attr(cst.Call(cst.Name("Path"), [cst.Arg(path)]), "name")))
                return
            raise NotUnderstood(f"a raw root is used as `{short(self.up(node) or node)}`")
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if parent.attr.value == "uri":
                self._uri_use(parent, path)
                return
            if parent.attr.value == "name":
                self._check_name_is_a_label(parent)
                self.plan.needs_path = True
                self.plan.edits.append(Replace(parent, _call_attr(cst.Call(cst.Name("Path"), [cst.Arg(path)]), "name")))
                return
        raise NotUnderstood(f"a root is used as `{short(self.up(node) or node)}`")

    def _check_name_is_a_label(self, name: cst.Attribute) -> None:
        """A root's `name` becomes the directory's base name: right for a label, wrong when the
        name carries data (`ZoneInfo(root.name)`, `root.name == "timezone"`)."""
        parent = self.up(name)
        while isinstance(parent, cst.BooleanOperation):  # `root.name or "UTC"`
            parent = self.up(parent)
        if isinstance(parent, cst.Comparison) and any(literal(c.comparator) is not None for c in parent.comparisons) | (
            literal(parent.left) is not None
        ):
            raise SideChannel(f"`{short(parent)}` tests a root's name against a value")
        if isinstance(parent, cst.Call) and self.resolver.qualified(parent.func) in _DATA_PARSERS:
            raise SideChannel(f"`{short(parent)}` reads data out of a root's name")

    def _uri_use(self, uri: cst.BaseExpression, path: cst.BaseExpression) -> None:
        """`uri`: a root's URI read (`root.uri`, or `root["uri"]` from a raw result)."""
        node = uri
        parent = self.up(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            self._uri_attribute(parent, path)
            return
        if isinstance(parent, cst.Call) and self._is_call_to(parent, ("builtins.str",), node):
            node = parent
            parent = self.up(node)
        scheme_test = self._scheme_test(node, parent)
        if scheme_test is not None:  # every directory's URI starts with `file://` (issue 36 §5)
            self.plan.edits.append(Replace(scheme_test, cst.Name("True")))
            return
        replaced = self._path_idiom(node, parent)
        if replaced is not None:
            self.plan.edits.append(Replace(replaced, path))
            return
        holder = parent if isinstance(self.parent(node), cst.Arg) else None
        if isinstance(holder, cst.Call) and self._decoded_by_helper(holder, node, path):
            return
        if isinstance(holder, cst.Call) and not self._is_builtin_call(holder):
            # `file_uri_to_path(str(root.uri))`, `to_local(root.uri)`: a URI rebuilt with
            # `as_uri()` would go path -> URI -> path, or gain `%20` in code that strips
            # `file://` itself (issue 20 §4); the call should get the directory instead.
            raise NotUnderstood(f"a root's URI is passed to `{short(holder)}`")
        # The URI as text: the same shape, built from the path.
        self.plan.needs_path = True
        self.plan.edits.append(Replace(node, parse_expr(f"Path({code_of(path)}).resolve().as_uri()")))

    def _decoded_by_helper(self, call: cst.Call, uri: cst.BaseExpression, path: cst.BaseExpression) -> bool:
        """`file_url_to_path(root.uri)` where the project's helper decodes the file URI it is
        given as its only argument into a path: the call becomes the directory itself, as the
        helper returns it (`Path(directory)` or the string). The helper may check more than it
        decodes (a strict `resolve()`, a folder that must exist), so the rewrite is suggested."""
        if self.decoder is None or len(call.args) != 1 or call.args[0].value is not uri or call.args[0].keyword:
            return False
        kind = self.decoder(call)
        if kind is None:
            return False
        if kind == PATH:
            self.plan.needs_path = True
            self.plan.edits.append(Replace(call, cst.Call(cst.Name("Path"), [cst.Arg(path)])))
        else:
            self.plan.edits.append(Replace(call, path))
        self.plan.dropped.append(call)
        helper = short(call.func)
        self.plan.suggested = self.plan.suggested or (
            f"`{helper}` decoded a root's URI, and its call now gives the directory itself: check"
            " that what it did besides decoding (resolving the path, checking that the folder"
            " exists) is not needed"
        )
        return True

    def _uri_attribute(self, attr: cst.Attribute, path: cst.BaseExpression) -> None:
        """`root.uri.<attr>`: `.path` is the path; `.scheme` is "file" and `.host` empty for
        every directory. A host or scheme compared with anything else, or read as data, means
        the roots carry something other than directories (a session id, a timezone)."""
        name = attr.attr.value
        if name == "path":
            settled = _none_test(attr, self.up(attr))
            if settled is not None:  # a directory's path is never None: the test is settled
                self.plan.edits.append(Replace(settled[0], cst.Name(str(settled[1]))))
                return
            self.plan.edits.append(Replace(attr, path))
            return
        if name not in _URI_EXPECTED:
            raise NotUnderstood(f"a root's URI is read as `{short(attr)}`")
        parent = self.up(attr)
        outcome = self._test_outcome(attr, parent, _URI_EXPECTED[name])
        if outcome is None:
            raise SideChannel(f"`{short(parent or attr)}` reads data out of a root's URI")
        target, value = outcome
        self.plan.edits.append(Replace(target, cst.Name(str(value))))

    def _test_outcome(self, node, parent, expected: frozenset):
        """(the test, its value for every directory) for `node == "file"`, `node != ...`,
        `node in ("", "localhost")`, `not node`; None when the attribute is read as data."""
        constant = expected_constant(expected)
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return parent, not constant
        if _truth_context(node, parent):
            return node, bool(constant)
        if not isinstance(parent, cst.Comparison) or len(parent.comparisons) != 1:
            return None
        target = parent.comparisons[0]
        other = target.comparator if parent.left is node else parent.left
        if isinstance(other, (cst.Tuple, cst.List, cst.Set)):
            values = [literal(el.value) for el in other.elements]
        else:
            values = [literal(other)]
        if not values or any(v is None or v not in expected for v in values):
            return None
        if isinstance(target.operator, (cst.Equal, cst.In)):
            return parent, True
        if isinstance(target.operator, (cst.NotEqual, cst.NotIn)):
            return parent, False
        return None

    def _scheme_test(self, text: cst.BaseExpression, parent) -> cst.Call | None:
        """`text.startswith("file:")` (or `"file://"`, `"file"`): true of every directory's
        URI, so a configured path never meets a URI fix-up (issue 36 §5)."""
        if not (isinstance(parent, cst.Attribute) and parent.value is text and parent.attr.value == "startswith"):
            return None
        call = self.up(parent)
        if not (
            isinstance(call, cst.Call) and call.func is parent and len(call.args) == 1 and not call.args[0].keyword
        ):
            return None
        prefix = literal(call.args[0].value)
        return call if isinstance(prefix, str) and prefix and FILE_PREFIX.startswith(prefix) else None

    def _path_idiom(self, text: cst.BaseExpression, parent) -> cst.CSTNode | None:
        """The outermost node of a URI-to-path idiom applied to `text`, or None: the path of
        `urlparse(text)`, decoded or not (`url2pathname`, `unquote`: a configured path holds no
        escapes, and decoding one would change a folder named `a%20b`)."""
        if self._is_call_to(parent, ("urllib.parse.urlparse",), text):
            attr = self.up(parent)
            if isinstance(attr, cst.Attribute) and attr.value is parent and attr.attr.value == "path":
                outer = self.up(attr)
                if self._is_call_to(outer, _DECODERS, attr):
                    return outer
                return attr
            return None
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is text
            and parent.attr.value in ("removeprefix", "replace")
        ):
            call = self.up(parent)
            if (
                isinstance(call, cst.Call)
                and call.func is parent
                and call.args
                and literal(call.args[0].value) == FILE_PREFIX
            ):
                if parent.attr.value == "removeprefix" or (len(call.args) == 2 and literal(call.args[1].value) == ""):
                    return call
            return None
        if isinstance(parent, cst.Subscript) and parent.value is text and _strips_prefix(parent):
            return parent
        return None

    def _is_builtin_call(self, call: cst.Call) -> bool:
        """`print(...)`, `str(...)`, a logger's method, a string's `format`: calls that only
        show the URI's text (the rebuilt URI shows the same)."""
        func = call.func
        if isinstance(func, cst.Name):
            return func.value in _TEXT_BUILTINS and self.resolver.lookup(func.value) is None
        if isinstance(func, cst.Attribute):
            return func.attr.value in _TEXT_METHODS
        return False

    def _is_call_to(self, node, qualified_names: tuple, arg_value) -> bool:
        if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].value is not arg_value:
            return False
        if isinstance(node.func, cst.Name) and node.func.value == "str" and "builtins.str" in qualified_names:
            return self.resolver.lookup("str") is None
        return self.resolver.qualified(node.func) in qualified_names


#: Calls that decode a file URI's path into a local path.
_DECODERS = ("urllib.request.url2pathname", "nturl2path.url2pathname", "urllib.parse.unquote")

#: Calls that only show or hold a URI's text: a URI rebuilt from the path keeps what they do.
_TEXT_BUILTINS = frozenset({"print", "str", "repr", "len", "list", "tuple", "set", "sorted", "dict"})
_TEXT_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "format", "append", "add", "join"}
)


def _none_test(node: cst.BaseExpression, parent) -> tuple | None:
    """(the test, its value) for `node is None` (False) and `node is not None` (True): a URI's
    path may be None, a configured directory's never is."""
    if not isinstance(parent, cst.Comparison) or len(parent.comparisons) != 1 or parent.left is not node:
        return None
    target = parent.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.Is):
        return parent, False
    if isinstance(target.operator, cst.IsNot):
        return parent, True
    return None


def _call_attr(value: cst.BaseExpression, attr: str) -> cst.Attribute:
    return cst.Attribute(value=value, attr=cst.Name(attr))


def _key_of(parent, node) -> str | None:
    """`node["key"]` -> "key" (a raw JSON-RPC mapping read), else None."""
    if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index):
            return literal(index.value)
    return None


def _sole_name(assign: cst.Assign) -> cst.Name | None:
    """The name `x` of `x = ...` (one target, and a plain name), else None."""
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    return target if isinstance(target, cst.Name) else None


def _single_index(sub: cst.Subscript) -> bool:
    return len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index)


def _strips_prefix(sub: cst.Subscript) -> bool:
    """`x[7:]` or `x[len("file://"):]`."""
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Slice):
        return False
    s = sub.slice[0].slice
    if s.upper is not None or s.step is not None or s.lower is None:
        return False
    lower = s.lower
    if isinstance(lower, cst.Integer):
        return lower.value == "7"
    return (
        isinstance(lower, cst.Call)
        and isinstance(lower.func, cst.Name)
        and lower.func.value == "len"
        and len(lower.args) == 1
        and literal(lower.args[0].value) == FILE_PREFIX
    )


def _truth_context(node, parent) -> bool:
    if isinstance(parent, (cst.If, cst.While)) and parent.test is node:
        return True
    if isinstance(parent, cst.IfExp) and parent.test is node:
        return True
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    return isinstance(parent, cst.BooleanOperation)
