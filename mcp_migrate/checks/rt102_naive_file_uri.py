"""RT102 naive-file-uri: a `file://` URI turned into a path (or built from one) by string surgery.

Flagged, URI to path:

* `.replace("file://", ...)`, `.removeprefix("file://")`, `.lstrip("file:/")`, `.strip(...)`,
  `.split("file://")[1]`, `.partition("file://")[2]` (any first argument that is a literal
  starting with `file:`);
* slicing `u[len("file://"):]` (or `len(PREFIX)` of a name bound to a `file:/` literal) always,
  and `u[7:]` / `u[8:]` when `u` is known to hold a `file:` URI: the same function tests it with
  `u.startswith("file:/...")` or `urlparse(u).scheme == "file"`, or, in MCP code (a module that
  imports an MCP SDK, fastmcp, mcp-agent, fast-agent or an `*.mcp` module), its words say it is
  a root's or resource's URI (`uri`, `root_uri`, `root.uri`, `str(root.uri)`, `r["uri"]`);
* `urlparse(u).path` / `urlsplit(u).path` (through imports: `urllib.parse`) that is not handed to
  `url2pathname`, when `u` is known to hold a `file:` URI as above (also via a name bound to the
  parse result, and `parsed.scheme == "file"` tests). An `unquote(...)` around it is reported
  and replaced as a whole.

Flagged, path to URI: `f"file://{p}"`, `"file://" + p`, `"file://%s" % p`, `"file://{}".format(p)`.
`"file://" + pathname2url(p)` and `quote(...)`-encoded paths are left alone, and so is a `.path`
handed back to `urlunsplit`/`urlunparse`/`urljoin` (it builds a URL, not a path).

The unsafe fix rewrites the expression to `url2pathname(urlparse(X).path)` or
`Path(X).resolve().as_uri()` (both str, like the original) and adds the imports.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from mcp_migrate.checks.base import Invalid, Rule, Valid
from mcp_migrate.checks.security import (
    MCP_IMPORT,
    Spelling,
    bare,
    call,
    call_qualified,
    last_identifier,
    mcp_context,
    method,
    words,
)
from mcp_migrate.core.fixes import Fix, Replace
from mcp_migrate.core.resolve import is_mcp_module
from mcp_migrate.core.syntax import code_of, literal, method_name, positional, shorten

MSG_TO_PATH = (
    "`{expr}` turns a `file://` URI into a path by string surgery: percent-escapes (`%20`) stay, a Windows "
    "drive becomes `/C:/x` and `file://host/` URIs become relative paths; use "
    "`url2pathname(urlparse(uri).path)` (urllib.request, urllib.parse)"
)
MSG_PATH_ONLY = (
    "`{expr}` is not a local path: a `file://` URI's path keeps the `/C:/x` form of Windows drives{escapes}; "
    "hand it to `url2pathname` (`url2pathname(urlparse(uri).path)`)"
)
MSG_TO_URI = (
    "`{expr}` builds a `file://` URI by concatenation: nothing is percent-encoded and a relative path "
    "slips through; use `Path(path).resolve().as_uri()`"
)

_SLICE_BYTES = re.compile(rb"[78]\s*:\s*\]")
_FILE_BYTES = re.compile(rb"(?i)['\"]file:/")
_URI_BYTES = re.compile(rb"(?i)uri")
_SURGERY = frozenset({"replace", "removeprefix", "lstrip", "strip", "split", "rsplit", "partition", "rpartition"})
_URLPARSE = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})
_URL2PATHNAME = frozenset({"urllib.request.url2pathname", "nturl2path.url2pathname"})
_UNQUOTE = frozenset({"urllib.parse.unquote"})
_URL_BUILDERS = frozenset({"urllib.parse.urlunparse", "urllib.parse.urlunsplit", "urllib.parse.urljoin"})


def _file_literal(expr) -> Optional[str]:
    """A literal that starts a file URI: `file:/`, `file://`, `file:///` (any case). A bare
    `"file:"` is left out: it is also setuptools' `file:` directive and similar."""
    value = literal(expr)
    return value if value is not None and value.lower().startswith("file:/") else None


class _Guards(cst.CSTVisitor):
    """One pass over the module: per function, the expressions tested for the `file` scheme, and
    the names bound to a `file:` literal anywhere (`FILE_PREFIX = "file://"`)."""

    def __init__(self, resolver) -> None:
        super().__init__()
        self.resolver = resolver
        self.stack: list = [0]
        self.guarded: set = set()
        self.constants: set = set()

    def visit_FunctionDef(self, node) -> None:
        self.stack.append(id(node))

    def leave_FunctionDef(self, node) -> None:
        self.stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if _file_literal(node.value) is not None:
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    self.constants.add(t.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) == "startswith" and isinstance(node.func, cst.Attribute):
            args = positional(node)
            if args and _file_literal(args[0].value) is not None:
                self.guarded.add((self.stack[-1], code_of(bare(node.func.value))))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        sides = [node.left] + [c.comparator for c in node.comparisons]
        if not any(literal(s) == "file" for s in sides):
            return
        for side in sides:
            if isinstance(side, cst.Attribute) and side.attr.value == "scheme":
                base = side.value
                self.guarded.add((self.stack[-1], code_of(bare(base))))
                if isinstance(base, cst.Call) and base.args and self.resolver.qualified(base.func) in _URLPARSE:
                    self.guarded.add((self.stack[-1], code_of(bare(base.args[0].value))))


class NaiveFileUri(Rule):
    CODE = "RT102"
    #: A string literal that starts with `file:/` (surgery, concatenation, `len("file://")`,
    #: startswith guards; any case, any prefix letters); without one, only a URI-named value in
    #: MCP code (`uri`, `root_uri`, `URI`) or a `.scheme` test, sliced by 7/8 or parsed with
    #: urlparse/urlsplit, can be a finding (see `screen`).
    SCREEN = (b"file:", b"FILE:", b"File:")
    GATE = (b"mcp", b"MCP", b"Mcp")  # MCP code only (see `applies`)

    @classmethod
    def applies(cls, data: bytes) -> bool:
        return mcp_context(data)

    @classmethod
    def screen(cls, data: bytes) -> bool:
        if (b"file:" in data or b"FILE:" in data or b"File:" in data) and _FILE_BYTES.search(data):
            return True
        uri_words = _URI_BYTES.search(data) is not None
        if not (uri_words or b"scheme" in data):
            return False
        return b"urlparse" in data or b"urlsplit" in data or _SLICE_BYTES.search(data) is not None

    VALID = [
        Valid(
            "from urllib.parse import urlparse\nfrom urllib.request import url2pathname\n\n"
            "def to_path(uri):\n    return url2pathname(urlparse(uri).path)\n",
            "already converted with url2pathname",
        ),
        Valid(
            "from urllib.parse import urlparse\n\ndef route(url):\n    return urlparse(url).path  # file: handlers elsewhere\n",
            "an HTTP URL's path, not a file URI",
        ),
        Valid("from pathlib import Path\n\ndef to_uri(p):\n    return Path(p).resolve().as_uri()\n", "the right way"),
        Valid(
            'def f(s):\n    return s[7:]  # "file:" mentioned only here\n', "a slice of something not known to be a URI"
        ),
        Valid(
            'from urllib.request import pathname2url\n\ndef to_uri(p):\n    return "file://" + pathname2url(p)\n',
            "pathname2url percent-encodes",
        ),
    ]
    INVALID = [
        Invalid(MCP_IMPORT + 'def to_path(uri):\n    return uri.replace("file://", "")\n', "replace"),
        Invalid(
            MCP_IMPORT + 'def to_path(root):\n    return str(root.uri)[len("file://"):]\n',
            "slicing by the prefix length",
        ),
        Invalid(
            MCP_IMPORT + "import mcp.types\n\ndef to_path(root_uri):\n    return root_uri[7:]\n",
            "slicing a root URI by 7",
        ),
        Invalid(
            MCP_IMPORT
            + 'def to_path(location):\n    if location.startswith("file://"):\n        return location[7:]\n',
            "slicing by 7 after a file-scheme test",
        ),
        Invalid(MCP_IMPORT + 'def to_uri(path):\n    return f"file://{path}"\n', "an f-string URI"),
        Invalid(
            MCP_IMPORT + "from urllib.parse import urlparse\nfrom mcp.types import Root\n\n"
            "def to_path(root: Root):\n    return urlparse(str(root.uri)).path\n",
            "urlparse(...).path without url2pathname",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self.spelling = Spelling(context)
        self._guards = None
        #: name -> the expression a `urlparse(...)` result bound to it parsed, per function.
        self.parsed: list = [{}]
        self._is_mcp: Optional[bool] = None

    @property
    def guards(self) -> _Guards:
        """`file:` guards and constants of the whole module, collected on first need: most
        candidate files never reach a pattern that needs them, so they skip the extra walk."""
        if self._guards is None:
            self._guards = _Guards(self.resolver)
            self.context.module.visit(self._guards)
        return self._guards

    def visit_FunctionDef(self, node) -> None:
        self.parsed.append({})

    def leave_FunctionDef(self, node) -> None:
        self.parsed.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        value = node.value
        for t in node.targets:
            if not isinstance(t.target, cst.Name):
                continue
            if isinstance(value, cst.Call) and value.args and self.resolver.qualified(value.func) in _URLPARSE:
                self.parsed[-1][t.target.value] = value.args[0].value
            else:
                self.parsed[-1].pop(t.target.value, None)

    # ----- what holds a file URI ------------------------------------------------------------
    def _function_key(self) -> int:
        for anc in reversed(self.ancestors):
            if isinstance(anc, cst.FunctionDef):
                return id(anc)
        return 0

    def _guarded(self, expr) -> bool:
        return (self._function_key(), code_of(bare(expr))) in self.guards.guarded

    def _mcp_file(self) -> bool:
        """Word-based inference (`uri` means a root's or resource's URI) only in MCP code: a
        module-level import from an MCP SDK, fastmcp, mcp-agent, fast-agent or an `*.mcp` module."""
        if self._is_mcp is None:
            resolver = self.resolver
            self._is_mcp = resolver.imports_sdk or any(is_mcp_module(name) for name in resolver.module_imports())
        return self._is_mcp

    def _holds_file_uri(self, expr: cst.BaseExpression) -> bool:
        if self._guarded(expr):
            return True
        if not self._mcp_file():
            return False
        if (
            isinstance(expr, cst.Call)
            and len(expr.args) == 1
            and call_qualified(self.resolver, expr) in ("str", "os.fspath")
        ):
            return self._holds_file_uri(expr.args[0].value)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "uri" or "uri" in words(expr.attr.value)
        if isinstance(expr, cst.Name):
            return "uri" in words(expr.value)
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            return literal(expr.slice[0].slice.value) == "uri"
        return False

    # ----- URI -> path ----------------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1:
            return
        sl = node.slice[0].slice
        value = node.value
        if isinstance(sl, cst.Index) and isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            name = value.func.attr.value
            args = positional(value)
            if name in ("split", "rsplit", "partition", "rpartition") and args and _file_literal(args[0].value):
                index = _int(sl.value)
                wanted = (1, -1) if name in ("split", "rsplit") else (2, -1)
                fixable = index in wanted and len(value.args) == 1
                self.context.claim(value)
                self._report_to_path(node, value.func.value if fixable else None)
            return
        if not isinstance(sl, cst.Slice) or sl.upper is not None or sl.step is not None or sl.lower is None:
            return
        lower = sl.lower
        if (
            isinstance(lower, cst.Call)
            and isinstance(lower.func, cst.Name)
            and lower.func.value == "len"
            and lower.args
        ):
            arg = lower.args[0].value
            if _file_literal(arg) is not None or (isinstance(arg, cst.Name) and arg.value in self.guards.constants):
                self._report_to_path(node, value)
            return
        if _int(lower) in (7, 8) and self._holds_file_uri(value):
            self._report_to_path(node, value)

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.is_claimed(node):
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SURGERY:
            args = positional(node)
            if not args or _file_literal(args[0].value) is None:
                return
            name = func.attr.value
            fixable = (name == "replace" and len(node.args) == 2 and literal(node.args[1].value) == "") or (
                name in ("removeprefix", "lstrip", "strip") and len(node.args) == 1
            )
            self._report_to_path(node, func.value if fixable else None)
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "format":
            text = _file_literal(func.value)
            if text is not None and text.startswith("file://"):
                args = positional(node)
                ok = text == "file://{}" and len(args) == 1 and len(node.args) == 1
                self._report_to_uri(node, args[0].value if ok else None)
            return
        if self.resolver.qualified(func) in _UNQUOTE and len(node.args) == 1:
            inner = node.args[0].value
            x = self._parsed_path_source(inner)
            if x is not None:
                self.context.claim(inner)
                self._report_path_only(node, x, inner)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.context.is_claimed(node) or node.attr.value != "path":
            return
        x = self._parsed_path_source(node)
        if x is None:
            return
        stack = self.ancestors
        if len(stack) >= 3 and isinstance(stack[-2], cst.Arg) and isinstance(stack[-3], cst.Call):
            if self.resolver.qualified(stack[-3].func) in _URL2PATHNAME:
                return
        for anc in stack[:-1]:
            if isinstance(anc, cst.Call) and self.resolver.qualified(anc.func) in _URL_BUILDERS:
                return  # the path goes back into a URL, not to the file system
        self._report_path_only(node, x, node)

    def _parsed_path_source(self, node) -> Optional[cst.BaseExpression]:
        """For `urlparse(X).path` or `parsed.path` holding a file URI: the `.path` node's owner."""
        if not isinstance(node, cst.Attribute) or node.attr.value != "path":
            return None
        owner = node.value
        if isinstance(owner, cst.Call) and owner.args and self.resolver.qualified(owner.func) in _URLPARSE:
            source = owner.args[0].value
            if self._holds_file_uri(source) or self._guarded(owner):
                return owner
            return None
        if isinstance(owner, cst.Name):
            source = self.parsed[-1].get(owner.value)
            if source is not None and (self._holds_file_uri(source) or self._guarded(owner)):
                return owner
        return None

    def _report_to_path(self, node: cst.CSTNode, uri: Optional[cst.BaseExpression]) -> None:
        fix = None
        if uri is not None:
            parse = self.spelling.spell("urllib.parse", "urlparse")
            topath = self.spelling.spell("urllib.request", "url2pathname")
            if parse and topath:
                new = call(topath[0], cst.Attribute(value=call(parse[0], bare(uri)), attr=cst.Name("path")))
                fix = Fix(
                    (Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),),
                    imports=(parse[1], topath[1]),
                    unsafe=True,
                )
        self.report(node, MSG_TO_PATH.format(expr=shorten(code_of(node))), fix=fix)

    def _report_path_only(self, node: cst.CSTNode, owner, path_attr: cst.Attribute) -> None:
        topath = self.spelling.spell("urllib.request", "url2pathname")
        fix = None
        if topath:
            new = call(topath[0], cst.Attribute(value=owner, attr=cst.Name("path")))
            fix = Fix(
                (Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), imports=(topath[1],), unsafe=True
            )
        escapes = "" if node is not path_attr else " and percent-escapes (`%20`)"
        self.report(node, MSG_PATH_ONLY.format(expr=shorten(code_of(node)), escapes=escapes), fix=fix)

    # ----- path -> URI ----------------------------------------------------------------------
    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        parts = node.parts
        if not parts or not isinstance(parts[0], cst.FormattedStringText):
            return
        if not parts[0].value.lower().startswith("file://") or "b" in node.prefix.lower():
            return
        path = None
        if (
            len(parts) == 2
            and parts[0].value == "file://"
            and isinstance(parts[1], cst.FormattedStringExpression)
            and parts[1].conversion is None
            and parts[1].format_spec is None
            and parts[1].equal is None
        ):
            path = parts[1].expression
        first = next((p for p in parts if isinstance(p, cst.FormattedStringExpression)), None)
        if first is not None and self._encoded(first.expression):
            return
        if len(parts) == 1:
            return  # no substitution: a constant URI
        self._report_to_uri(node, path)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        text = _file_literal(node.left)
        if text is None or not text.lower().startswith("file://"):
            return
        if isinstance(node.operator, cst.Add):
            if self._encoded(node.right):
                return
            stack = self.ancestors
            whole = not (len(stack) >= 2 and isinstance(stack[-2], cst.BinaryOperation) and stack[-2].left is node)
            self._report_to_uri(node, node.right if text == "file://" and whole else None)
        elif isinstance(node.operator, cst.Modulo):
            single = not isinstance(node.right, cst.Tuple)
            values = [e.value for e in node.right.elements] if isinstance(node.right, cst.Tuple) else [node.right]
            if any(self._encoded(v) for v in values):
                return
            self._report_to_uri(node, node.right if text == "file://%s" and single else None)

    def _encoded(self, expr) -> bool:
        """`pathname2url(p)`, `quote(p)`, `urlquote_from_bytes(p)`: the path is percent-encoded."""
        if not isinstance(expr, cst.Call):
            return False
        name = (self.resolver.qualified(expr.func) or last_identifier(expr.func) or "").rpartition(".")[2]
        return name == "pathname2url" or "quote" in name

    def _report_to_uri(self, node: cst.CSTNode, path: Optional[cst.BaseExpression]) -> None:
        fix = None
        if path is not None:
            spelled = self.spelling.spell("pathlib", "Path")
            if spelled:
                new = method(method(call(spelled[0], bare(path)), "resolve"), "as_uri")
                fix = Fix(
                    (Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),),
                    imports=(spelled[1],),
                    unsafe=True,
                )
        self.report(node, MSG_TO_URI.format(expr=shorten(code_of(node))), fix=fix)


def _int(expr) -> Optional[int]:
    if isinstance(expr, cst.Integer):
        return int(expr.value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, cst.Integer)
    ):
        return -int(expr.expression.value)
    return None
