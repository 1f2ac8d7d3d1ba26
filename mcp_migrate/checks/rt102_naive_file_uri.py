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

* a root's `.uri.path` (pydantic `FileUrl` keeps `%20` and `/C:/x`) where it reaches the file
  system: `Path()`, `open()`, `os.*`, `shutil.*`, `git.Repo()`, `cwd=`, or a path-named variable.

Scope: Roots and resources code (an MCP module that mentions roots or resources, or a module
with relative imports only that handles `file://` literals and mentions roots). Not flagged:
a value whose scheme a test rejected, a path that only feeds a test, a `.path` that reaches
`url2pathname` through a local, a hand-written converter (unquote + netloc + drive letter),
surgery on a URI assembled in the same function, virtual `file:///{name}` resources, and
literal text with `..`/`%2f`/`%5c` (fuzz data). Everything is decided from what the engine's
single walk collected: scheme tests by branch as they are met, `.path` findings when their
function is left, `len(PREFIX)` slices when the module is left.

Flagged, path to URI: `f"file://{p}"`, `"file://" + p`, `"file://%s" % p`, `"file://{}".format(p)`.
`"file://" + pathname2url(p)` and `quote(...)`-encoded paths are left alone, and so is a `.path`
handed back to `urlunsplit`/`urlunparse`/`urljoin` (it builds a URL, not a path).

The unsafe fix rewrites the expression to `url2pathname(urlparse(X).path)` or
`Path(X).absolute().as_uri()` (both str, like the original) and adds the imports. `absolute()`,
not `resolve()`: the f-string kept symlinks and never touched the file system, and a project's
tests that compare the URI with the path they built (a symlinked temp folder) keep passing.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from mcp_migrate.checks.calls import call_qualified, ends_with
from mcp_migrate.checks.spelling import Spelling
from mcp_migrate.checks.words import last_identifier, words
from mcp_migrate.core.fix.edits import Fix, Replace
from mcp_migrate.core.fix.nodes import bare, call, method
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.sdk import EXAMPLE_IMPORT, mcp_file, mcp_module
from mcp_migrate.core.syntax import code_of, literal, positional, shorten

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
    "slips through; use `Path(path).absolute().as_uri()`"
)

_SLICE_BYTES = re.compile(rb"[78]\s*:\s*\]")
_FILE_BYTES = re.compile(rb"(?i)['\"]file:/")
_URI_BYTES = re.compile(rb"(?i)uri")
_SURGERY = frozenset({"replace", "removeprefix", "lstrip", "strip", "split", "rsplit", "partition", "rpartition"})
_URLPARSE = frozenset({"urllib.parse.urlparse", "urllib.parse.urlsplit"})
_URL2PATHNAME = frozenset({"urllib.request.url2pathname", "nturl2path.url2pathname"})
_UNQUOTE = frozenset({"urllib.parse.unquote"})
_URL_BUILDERS = frozenset({"urllib.parse.urlunparse", "urllib.parse.urlunsplit", "urllib.parse.urljoin"})
#: An MCP module is in scope when it mentions roots or resources (not an LSP bridge's document URIs).
_ROOTS_OR_RESOURCES = re.compile(rb"(?i)root|resource")
#: Calls that touch the file system with a path argument.
_FS_MODULES = ("pathlib.", "os.", "shutil.", "glob.", "io.open", "git.")
#: Words of a name that holds a file-system path (`repo_path`, `cwd`, `workspace_dir`).
_PATH_WORDS = frozenset({"path", "dir", "directory", "folder", "cwd", "repo", "root", "workspace", "file"})
#: Words of a name that holds a resource name rather than a path (`file:///{name}`).
_NAME_WORDS = frozenset({"name", "id", "key", "slug", "title", "label", "topic", "resource", "uid", "uuid"})
#: String methods that only test (`path.startswith("/")`) or change case before a test.
_TESTS = frozenset({"startswith", "endswith", "count", "find", "index", "isalpha", "isdigit"})
_CASE_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_TEST_OPERATORS = (cst.In, cst.NotIn, cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)


def _file_literal(expr) -> Optional[str]:
    """A literal that starts a file URI: `file:/`, `file://`, `file:///` (any case). A bare
    `"file:"` is left out: it is also setuptools' `file:` directive and similar."""
    value = literal(expr)
    return value if value is not None and value.lower().startswith("file:/") else None


class _Frame:
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


class _Pending:
    """A `.path` (or `unquote(.path)`) finding held until its function is left: the name it is
    bound to may still reach `url2pathname`, or the function may turn out to be a complete
    hand-written converter."""

    __slots__ = ("node", "owner", "path_attr", "target", "unquoted")

    def __init__(self, node, owner, path_attr, target, unquoted) -> None:
        self.node, self.owner, self.path_attr, self.target, self.unquoted = node, owner, path_attr, target, unquoted


class NaiveFileUri(Rule):
    CODE = "RT102"
    #: A string literal that starts with `file:/` (surgery, concatenation, `len("file://")`,
    #: startswith guards; any case, any prefix letters); without one, only a URI-named value in
    #: MCP code (`uri`, `root_uri`, `URI`), a `.scheme` test or a root's `.uri.path`, sliced by
    #: 7/8, parsed with urlparse/urlsplit or read, can be a finding (see `screen`).
    SCREEN = (b"file:", b"FILE:", b"File:")
    #: MCP code, or a file that handles `file://` and mentions roots (see `applies`).
    GATE = (b"mcp", b"MCP", b"Mcp", b"oots")

    @classmethod
    def applies(cls, data: bytes) -> bool:
        """Roots and resources code: an MCP module that mentions roots or resources, or a module
        (relative imports only) that handles `file://` URIs and mentions roots. An MCP server
        that only bridges LSP document URIs is out of scope: its URIs are not roots."""
        if mcp_file(data):
            return _ROOTS_OR_RESOURCES.search(data) is not None
        return b"oots" in data and _FILE_BYTES.search(data) is not None

    @classmethod
    def screen(cls, data: bytes) -> bool:
        if (b"file:" in data or b"FILE:" in data or b"File:" in data) and _FILE_BYTES.search(data):
            return True
        if b".uri.path" in data:
            return True
        uri_words = _URI_BYTES.search(data) is not None
        if not (uri_words or b"scheme" in data):
            return False
        return b"urlparse" in data or b"urlsplit" in data or _SLICE_BYTES.search(data) is not None

    VALID = [
        Valid(
            "from urllib.parse import urlparse\nfrom urllib.request import url2pathname\n\n"
            "def to_path(root_uri):\n    return url2pathname(urlparse(root_uri).path)\n",
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
        Valid(
            EXAMPLE_IMPORT + 'def open_document(path):\n    return {"textDocument": {"uri": f"file://{path}"}}\n',
            "an LSP document URI in an MCP server that never mentions roots or resources",
        ),
        Valid(
            EXAMPLE_IMPORT + "from urllib.parse import urlparse\n\ndef check(root_uri):\n"
            '    parsed = urlparse(root_uri)\n    if parsed.scheme == "file":\n        raise ValueError(root_uri)\n'
            '    return "%2f" in parsed.path.lower()\n',
            "the scheme is known not to be `file`, and the path only feeds a membership test",
        ),
        Valid(
            EXAMPLE_IMPORT + "def names(root):\n    return root.uri.path == '/srv'\n",
            "a root's `.uri.path` compared, not used as a path",
        ),
        Valid(EXAMPLE_IMPORT + 'def resource_uri(name):\n    return f"file:///{name}"\n', "a virtual resource name"),
    ]
    INVALID = [
        Invalid(EXAMPLE_IMPORT + 'def to_path(root_uri):\n    return root_uri.replace("file://", "")\n', "replace"),
        Invalid(
            EXAMPLE_IMPORT + 'def to_path(root):\n    return str(root.uri)[len("file://"):]\n',
            "slicing by the prefix length",
        ),
        Invalid(
            EXAMPLE_IMPORT + "import mcp.types\n\ndef to_path(root_uri):\n    return root_uri[7:]\n",
            "slicing a root URI by 7",
        ),
        Invalid(
            EXAMPLE_IMPORT
            + 'def to_root(location):\n    if location.startswith("file://"):\n        return location[7:]\n',
            "slicing by 7 after a file-scheme test",
        ),
        Invalid(EXAMPLE_IMPORT + 'def to_root_uri(path):\n    return f"file://{path}"\n', "an f-string URI"),
        Invalid(
            EXAMPLE_IMPORT + "from urllib.parse import urlparse\nfrom mcp.types import Root\n\n"
            "def to_path(root: Root):\n    return urlparse(str(root.uri)).path\n",
            "urlparse(...).path without url2pathname",
        ),
        Invalid(
            EXAMPLE_IMPORT
            + "from pathlib import Path\n\ndef first(result):\n    return Path(result.roots[0].uri.path)\n",
            "a root's `.uri.path` (pydantic keeps `%20` and `/C:/`) handed to Path()",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self.spelling = Spelling(context)
        self.frames: list = [_Frame()]
        #: names bound to a `file:` literal anywhere (`FILE_PREFIX = "file://"`).
        self.constants: set = set()
        #: `x[len(NAME):]` slices, decided when the whole module's constants are known.
        self.prefix_slices: list = []
        self._is_mcp: Optional[bool] = None

    # ----- scopes and bindings ----------------------------------------------------------------
    def visit_FunctionDef(self, node) -> None:
        self.frames.append(_Frame())

    def leave_FunctionDef(self, node) -> None:
        self._settle(self.frames.pop())

    def leave_Module(self, node) -> None:
        self._settle(self.frames[0])
        for slice_node, value, name in self.prefix_slices:
            if name in self.constants:
                self._report_to_path(slice_node, value)

    def leave_Assign(self, node: cst.Assign) -> None:
        frame = self.frames[-1]
        value = node.value
        names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
        for name in names:
            frame.parsed.pop(name, None)
            frame.built.discard(name)
            if isinstance(value, cst.Call) and value.args and self.resolver.qualified(value.func) in _URLPARSE:
                frame.parsed[name] = value.args[0].value
            elif _file_literal(value) is not None:
                self.constants.add(name)
            elif self._concatenated_uri(value):
                frame.built.add(name)

    def _concatenated_uri(self, value) -> bool:
        """`f"file://{p}"` or `"file://" + p`: a URI this file assembled itself."""
        if isinstance(value, cst.FormattedString):
            first = value.parts[0] if value.parts else None
            return isinstance(first, cst.FormattedStringText) and first.value.lower().startswith("file://")
        return isinstance(value, cst.BinaryOperation) and _file_literal(value.left) is not None

    # ----- what holds a file URI --------------------------------------------------------------
    def _mcp_file(self) -> bool:
        """Word-based inference (`uri` means a root's or resource's URI) only in MCP code: a
        module-level import from an MCP SDK, fastmcp, mcp-agent, fast-agent or an `*.mcp` module."""
        if self._is_mcp is None:
            resolver = self.resolver
            self._is_mcp = resolver.imports_sdk or any(mcp_module(name) for name in resolver.module_imports())
        return self._is_mcp

    def _scheme(self, expr) -> Optional[bool]:
        """What the function's tests seen so far say about `expr` here: True (a `file:` URI),
        False (known not to be one: `file:` was rejected above), None (no test)."""
        code = code_of(bare(expr))
        ids = {id(a): i for i, a in enumerate(self.ancestors)}
        verdict = None
        for subject, test_if, says_file, exits, denies in self.frames[-1].guards:
            if subject != code:
                continue
            here = _branch(self.ancestors, ids, test_if)
            if here == "test" or test_if is None:
                known = True if test_if is None else says_file
            elif here == "body":
                known = says_file
            elif here == "orelse":
                known = not says_file
            elif exits:
                known = not says_file
            else:
                continue
            if known is False and denies:
                return False
            if known is False:
                continue
            verdict = True
        return verdict

    def _holds_file_uri(self, expr: cst.BaseExpression) -> bool:
        scheme = self._scheme(expr)
        if scheme is not None:
            return scheme
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

    def _not_file(self, expr) -> bool:
        """The function rejected `file:` for this value, or assembled it itself by concatenation
        (the round trip is exact there; the concatenation is the finding)."""
        if isinstance(expr, cst.Name) and expr.value in self.frames[-1].built:
            return True
        return self._scheme(expr) is False

    # ----- guards: `u.startswith("file://")`, `urlparse(u).scheme == "file"` ------------------
    def _guard(self, subject, says_file: bool, denies: bool = True) -> None:
        """Record a scheme test of `subject`: where it sits (the `if` whose test it is) and what
        the code after the `if` may assume. A failed `startswith("file:///")` does not deny
        the scheme (`file://host/...`): `denies` is False for prefixes longer than the scheme."""
        test_if, negated = _enclosing_test(self.ancestors)
        exits = test_if is not None and ends_with(test_if.body, _EXITS)  # after the if: the test failed
        frame = self.frames[-1]
        frame.guards.append((code_of(bare(subject)), test_if, says_file != negated, exits, denies))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        op = node.comparisons[0].operator
        sides = [node.left, node.comparisons[0].comparator]
        if not any(literal(s) == "file" for s in sides) or not isinstance(op, (cst.Equal, cst.NotEqual)):
            return
        for side in sides:
            if isinstance(side, cst.Attribute) and side.attr.value == "scheme":
                base = side.value
                says_file = isinstance(op, cst.Equal)
                self._guard(base, says_file)
                if isinstance(base, cst.Call) and base.args and self.resolver.qualified(base.func) in _URLPARSE:
                    self._guard(base.args[0].value, says_file)
                elif isinstance(base, cst.Name) and base.value in self.frames[-1].parsed:
                    self._guard(self.frames[-1].parsed[base.value], says_file)

    # ----- URI -> path ----------------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1:
            return
        sl = node.slice[0].slice
        if isinstance(sl, cst.Index):
            self._split_index(node, sl)
        elif isinstance(sl, cst.Slice) and sl.upper is None and sl.step is None and sl.lower is not None:
            self._prefix_slice(node, sl.lower)

    def _split_index(self, node: cst.Subscript, index: cst.Index) -> None:
        """`u.split("file://")[1]`, `u.partition("file://")[2]`: the part after the prefix."""
        value = node.value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return
        name = value.func.attr.value
        args = positional(value)
        if name not in ("split", "rsplit", "partition", "rpartition") or not args or not _file_literal(args[0].value):
            return
        self.context.claim(value)
        if self._not_file(value.func.value):
            return
        wanted = (1, -1) if name in ("split", "rsplit") else (2, -1)
        fixable = _int(index.value) in wanted and len(value.args) == 1
        self._report_to_path(node, value.func.value if fixable else None)

    def _prefix_slice(self, node: cst.Subscript, lower) -> None:
        """`u[len("file://"):]`, `u[len(PREFIX):]`, and `u[7:]` on a value holding a file URI."""
        value = node.value
        if isinstance(lower, cst.Call) and isinstance(lower.func, cst.Name) and lower.func.value == "len":
            arg = lower.args[0].value if lower.args else None
            if self._not_file(value):
                return
            if _file_literal(arg) is not None:
                self._report_to_path(node, value)
            elif isinstance(arg, cst.Name):
                self.prefix_slices.append((node, value, arg.value))
            return
        if _int(lower) in (7, 8) and not self._not_file(value) and self._holds_file_uri(value):
            self._report_to_path(node, value)

    def visit_Call(self, node: cst.Call) -> None:
        self._note_call(node)
        if self.context.is_claimed(node):
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SURGERY:
            self._surgery(node, func)
        elif isinstance(func, cst.Attribute) and func.attr.value == "format":
            self._format(node, func)
        elif self.resolver.qualified(func) in _UNQUOTE and len(node.args) == 1:
            inner = node.args[0].value
            owner = self._parsed_path_source(inner)
            if owner is not None:
                self.context.claim(inner)
                self._hold(node, owner, inner, unquoted=True)

    def _note_call(self, node: cst.Call) -> None:
        """What a converter does, for `_settle`: names given to url2pathname or unquote, a
        `startswith("file:/")` scheme test, a drive-letter test."""
        func = node.func
        q = self.resolver.qualified(func)
        args = positional(node)
        first = args[0].value if args else None
        if isinstance(first, cst.Name):
            if q in _URL2PATHNAME:
                self.frames[-1].converted.add(first.value)
            elif q in _UNQUOTE:
                self.frames[-1].unquoted.add(first.value)
        if isinstance(func, cst.Attribute):
            prefix = _file_literal(first) if first is not None else None
            if func.attr.value == "startswith" and prefix is not None:
                self._guard(func.value, True, denies=prefix.lower() in ("file:/", "file://"))
            elif func.attr.value == "isalpha":
                self.frames[-1].drive = True

    def _surgery(self, node: cst.Call, func: cst.Attribute) -> None:
        """`u.replace("file://", "")`, `.removeprefix`, `.lstrip`, `.split(...)` on a URI."""
        args = positional(node)
        if not args or _file_literal(args[0].value) is None or self._not_file(func.value):
            return
        name = func.attr.value
        fixable = (name == "replace" and len(node.args) == 2 and literal(node.args[1].value) == "") or (
            name in ("removeprefix", "lstrip", "strip") and len(node.args) == 1
        )
        self._report_to_path(node, func.value if fixable else None)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "netloc":
            self.frames[-1].netloc.add(code_of(bare(node.value)))
            return
        if self.context.is_claimed(node) or node.attr.value != "path":
            return
        if self._root_uri_path(node):
            return
        owner = self._parsed_path_source(node)
        if owner is None or self._converted_here(node) or _only_tested(self.ancestors):
            return
        for anc in self.ancestors[:-1]:
            if isinstance(anc, cst.Call) and self.resolver.qualified(anc.func) in _URL_BUILDERS:
                return  # the path goes back into a URL, not to the file system
        self._hold(node, owner, node, unquoted=False)

    def _converted_here(self, node) -> bool:
        """`url2pathname(<node>)`: already the right conversion."""
        stack = self.ancestors
        if node is not stack[-1] or len(stack) < 3:
            return False
        return (
            isinstance(stack[-2], cst.Arg)
            and isinstance(stack[-3], cst.Call)
            and self.resolver.qualified(stack[-3].func) in _URL2PATHNAME
        )

    def _root_uri_path(self, node: cst.Attribute) -> bool:
        """`root.uri.path`: pydantic's `FileUrl.path` keeps `%20` and `/C:/x`. A finding only
        where it reaches the file system (see `_filesystem_sink`). True when the node is a
        root's `.uri.path` (reported or not), so the urlparse logic skips it."""
        uri = node.value
        if not (isinstance(uri, cst.Attribute) and uri.attr.value == "uri" and _a_root(uri.value)):
            return False
        if not _only_tested(self.ancestors) and self._filesystem_sink() and not self._converted_here(node):
            self._report_path_only(node, uri, node)
        return True

    def _filesystem_sink(self) -> bool:
        """The value (through `str()`) is handed to Path()/open()/os.*/shutil.*, given as `cwd=`,
        or bound to a name that says it holds a path or directory (`repo_path`, `path`)."""
        stack = self.ancestors
        i = len(stack) - 1
        while i >= 2 and isinstance(stack[i - 1], cst.Arg) and isinstance(stack[i - 2], cst.Call):
            arg, call_node = stack[i - 1], stack[i - 2]
            if arg.keyword is not None and arg.keyword.value in ("cwd", "path"):
                return True
            q = call_qualified(self.resolver, call_node) or ""
            if q.startswith(_FS_MODULES) or _is_builtin_open(self.resolver, call_node):
                return True
            if q not in ("str", "os.fspath"):
                return False
            i -= 2
        parent = stack[i - 1] if i >= 1 else None
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is stack[i]:
            targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
            return any(isinstance(t.target, cst.Name) and _PATH_WORDS & set(words(t.target.value)) for t in targets)
        return False

    def _parsed_path_source(self, node) -> Optional[cst.BaseExpression]:
        """For `urlparse(X).path` or `parsed.path` holding a file URI: the `.path` node's owner."""
        if not isinstance(node, cst.Attribute) or node.attr.value != "path":
            return None
        owner = node.value
        if isinstance(owner, cst.Call) and owner.args and self.resolver.qualified(owner.func) in _URLPARSE:
            source = owner.args[0].value
        elif isinstance(owner, cst.Name) and owner.value in self.frames[-1].parsed:
            source = self.frames[-1].parsed[owner.value]
        else:
            return None
        if self._not_file(source) or self._scheme(owner) is False:
            return None
        if self._holds_file_uri(source) or self._scheme(owner):
            return owner
        return None

    def _hold(self, node, owner, path_attr, unquoted: bool) -> None:
        """Keep a `.path` finding until the function is left (`_settle`)."""
        target = _bound_name(self.ancestors)
        self.frames[-1].pending.append(_Pending(node, owner, path_attr, target, unquoted))

    def _settle(self, frame: _Frame) -> None:
        """Decide the held `.path` findings of a function now that all of it has been seen:
        a path bound to a name that later reaches `url2pathname` is converted; a function that
        unquotes, keeps the host (`.netloc`) and strips the drive slash is a complete
        hand-written converter; a path bound to a name that is unquoted later is reported
        without a fix (url2pathname inside unquote would decode twice)."""
        for held in frame.pending:
            if held.target in frame.converted:
                continue
            unquotes = held.unquoted or held.target in frame.unquoted
            if unquotes and frame.drive and code_of(bare(held.owner)) in frame.netloc:
                continue
            fixable = held.unquoted or held.target not in frame.unquoted
            self._report_path_only(held.node, held.owner, held.path_attr, fixable=fixable)

    def _report_to_path(self, node: cst.CSTNode, uri: Optional[cst.BaseExpression]) -> None:
        fix = None
        if uri is not None:
            parse = self.spelling.spell("urllib.parse", "urlparse")
            topath = self.spelling.spell("urllib.request", "url2pathname")
            if parse and topath:
                new = call(topath[0], cst.Attribute(value=call(parse[0], bare(uri)), attr=cst.Name("path")))
                old = self._unquoted_by(node) or node  # url2pathname decodes: never twice
                fix = Fix(
                    (Replace(old, new.with_changes(lpar=old.lpar, rpar=old.rpar)),),
                    imports=(parse[1], topath[1]),
                    unsafe=True,
                )
        self.report(node, MSG_TO_PATH.format(expr=shorten(code_of(node))), fix=fix)

    def _unquoted_by(self, node: cst.CSTNode) -> Optional[cst.Call]:
        """The `unquote(node)` call around the node being visited (`unquote(u[8:])`)."""
        stack = self.ancestors
        if len(stack) < 3 or stack[-1] is not node:
            return None
        arg, holder = stack[-2], stack[-3]
        if (
            isinstance(arg, cst.Arg)
            and isinstance(holder, cst.Call)
            and len(holder.args) == 1
            and self.resolver.qualified(holder.func) in _UNQUOTE
        ):
            return holder
        return None

    def _report_path_only(self, node: cst.CSTNode, owner, path_attr: cst.Attribute, fixable: bool = True) -> None:
        topath = self.spelling.spell("urllib.request", "url2pathname") if fixable else None
        fix = None
        if topath:
            new = call(topath[0], cst.Attribute(value=owner, attr=cst.Name("path")))
            fix = Fix(
                (Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), imports=(topath[1],), unsafe=True
            )
        escapes = "" if node is not path_attr else " and percent-escapes (`%20`)"
        self.report(node, MSG_PATH_ONLY.format(expr=shorten(code_of(node)), escapes=escapes), fix=fix)

    # ----- path -> URI ----------------------------------------------------------------------
    def _format(self, node: cst.Call, func: cst.Attribute) -> None:
        """`"file://{}".format(p)`."""
        text = _file_literal(func.value)
        if text is None or not text.startswith("file://") or _not_a_path_uri(text):
            return
        args = positional(node)
        ok = text == "file://{}" and len(args) == 1 and len(node.args) == 1
        self._report_to_uri(node, args[0].value if ok else None)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        parts = node.parts
        if not parts or not isinstance(parts[0], cst.FormattedStringText) or "b" in node.prefix.lower():
            return
        if not parts[0].value.lower().startswith("file://") or len(parts) == 1:
            return  # no substitution: a constant URI
        text = "".join(p.value for p in parts if isinstance(p, cst.FormattedStringText))
        expressions = [p for p in parts if isinstance(p, cst.FormattedStringExpression)]
        if _not_a_path_uri(text) or self._encoded(expressions[0].expression):
            return
        if parts[0].value == "file:///" and len(parts) == 2 and _virtual_name(expressions[0].expression):
            return
        path = None
        single = expressions[0]
        if (
            len(parts) == 2
            and parts[0].value == "file://"
            and single.conversion is None
            and single.format_spec is None
            and single.equal is None
        ):
            path = single.expression
        self._report_to_uri(node, path)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        text = _file_literal(node.left)
        if text is None or not text.lower().startswith("file://") or _not_a_path_uri(text):
            return
        if isinstance(node.operator, cst.Add):
            if self._encoded(node.right) or (text == "file:///" and _virtual_name(node.right)):
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

    def _resolved_path(self, expr) -> bool:
        """`Path(x).resolve()` / `pathlib.Path(x).absolute()`: an absolute Path, `.as_uri()` works."""
        return (
            isinstance(expr, cst.Call)
            and not expr.args
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in ("resolve", "absolute")
            and isinstance(expr.func.value, cst.Call)
            and self.resolver.qualified(expr.func.value.func) == "pathlib.Path"
        )

    def _encoded(self, expr) -> bool:
        """`pathname2url(p)`, `quote(p)`, `urlquote_from_bytes(p)`: the path is percent-encoded."""
        if not isinstance(expr, cst.Call):
            return False
        name = (self.resolver.qualified(expr.func) or last_identifier(expr.func) or "").rpartition(".")[2]
        return name == "pathname2url" or "quote" in name

    def _report_to_uri(self, node: cst.CSTNode, path: Optional[cst.BaseExpression]) -> None:
        fix = None
        if path is not None:
            if self._resolved_path(path):  # `Path(p).resolve()` already: no round trip through str
                new = method(bare(path), "as_uri")
                fix = Fix((Replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), unsafe=True)
            spelled = self.spelling.spell("pathlib", "Path") if fix is None else None
            if spelled:
                new = method(method(call(spelled[0], bare(path)), "absolute"), "as_uri")
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


def _not_a_path_uri(text: str) -> bool:
    """Literal text with `..` or an encoded separator (`%2f`, `%5c`): deliberately malformed
    data (a traversal fuzz input in a test), not a path made into a URI."""
    lowered = text.lower()
    return ".." in lowered or "%2f" in lowered or "%5c" in lowered


def _virtual_name(expr) -> bool:
    """`f"file:///{name}"`: a resource namespace keyed by a name, not a file-system path."""
    name = last_identifier(expr)
    ws = set(words(name)) if name else set()
    return bool(ws) and ws <= _NAME_WORDS


def _a_root(expr) -> bool:
    """`root`, `r` over `.roots`, `result.roots[0]`, `self.root`: the owner of a root's `.uri`."""
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    name = last_identifier(expr)
    return bool(name) and bool({"root", "roots"} & set(words(name)))


def _bound_name(stack: list) -> Optional[str]:
    """The name the expression at the top of `stack` is bound to (`x = <...expr...>`), if any."""
    for anc in reversed(stack[:-1]):
        if isinstance(anc, cst.Assign):
            names = [t.target.value for t in anc.targets if isinstance(t.target, cst.Name)]
            return names[0] if len(names) == 1 else None
        if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return None
    return None


def _only_tested(stack: list) -> bool:
    """The value at the top of `stack` only feeds a test: a membership, equality or identity
    comparison, a regex, `not`, `bool()`/`len()`, a `startswith`/`endswith`, or the test of an
    `if`/`while` itself (through `.lower()`-style string methods)."""
    i = len(stack) - 1
    while i >= 2 and isinstance(stack[i - 1], cst.Attribute) and isinstance(stack[i - 2], cst.Call):
        attr = stack[i - 1].attr.value
        if attr in _TESTS:
            return True
        if attr not in _CASE_METHODS:
            return False
        i -= 2
    node, parent = stack[i], stack[i - 1] if i >= 1 else None
    if isinstance(parent, cst.ComparisonTarget) or isinstance(parent, cst.Comparison):
        comparison = parent if isinstance(parent, cst.Comparison) else stack[i - 2]
        return all(isinstance(t.operator, _TEST_OPERATORS) for t in comparison.comparisons)
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


def _enclosing_test(stack: list) -> tuple:
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


def _branch(stack: list, ids: dict, test_if) -> Optional[str]:
    """Where the node at the top of `stack` sits relative to `test_if`: "test", "body",
    "orelse", or None (after it, or unrelated)."""
    if test_if is None or id(test_if) not in ids:
        return None
    child = stack[ids[id(test_if)] + 1]
    if child is test_if.test:
        return "test"
    return "body" if child is test_if.body else "orelse"


def _is_builtin_open(resolver, node: cst.Call) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value == "open" and resolver.lookup("open") is None
