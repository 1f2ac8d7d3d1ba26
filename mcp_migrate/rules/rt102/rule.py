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
  `url2pathname`, when `u` is known to hold a `file:` URI as above, its words naming a root
  (`root_uri`, `root.uri`: a bare `uri` may be any scheme's), or by a scheme test (also via a
  name bound to the parse result, and `parsed.scheme == "file"` tests). An `unquote(...)` around it is reported
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

Flagged, path to URI: `f"file://{p}"`, `"file://" + p`, `"file://%s" % p`, `"file://{}".format(p)`,
where the value becomes a root (vocabulary.lands_in_root: a root-named call, keyword, entry,
target or function; a resource's, a page's or a media file's URI is not a root's).
`"file://" + pathname2url(p)` and `quote(...)`-encoded paths are left alone, and so is a `.path`
handed back to `urlunsplit`/`urlunparse`/`urljoin` (it builds a URL, not a path).

The display-only fix (a suggestion `fix` never applies: no rewrite here is equivalent on every
input) rewrites the expression to `url2pathname(urlparse(X).path)` or
`Path(X).absolute().as_uri()` (both str, like the original) and adds the imports. `absolute()`,
not `resolve()`: the f-string kept symlinks and never touched the file system, and a project's
tests that compare the URI with the path they built (a symlinked temp folder) keep passing.
"""

from __future__ import annotations

import libcst as cst

from mcp_migrate.core.fix.nodes import bare
from mcp_migrate.core.messages import shorten
from mcp_migrate.core.rule import Invalid, Rule, Valid
from mcp_migrate.core.sdk import EXAMPLE_IMPORT
from mcp_migrate.core.syntax import ancestry, code_of, enclosing, iter_nodes, literal, positional
from mcp_migrate.rules.rt102.fixes import path_only_fix, to_path_fix, to_uri_fix
from mcp_migrate.rules.rt102.frames import Frame, Pending, bound_name, branch_of, enclosing_test, only_tested
from mcp_migrate.rules.rt102.landing_screen import says_root
from mcp_migrate.rules.rt102.screen import SURGERY, NaiveFileUriScreen
from mcp_migrate.rules.rt102.vocabulary import (
    EXITS,
    FS_MODULES,
    MSG_PATH_ONLY,
    MSG_TO_PATH,
    MSG_TO_URI,
    PATH_WORDS,
    UNQUOTE,
    URL2PATHNAME,
    URL_BUILDERS,
    URLPARSE,
    a_root,
    file_literal,
    int_value,
    is_builtin_open,
    lands_in_root,
    names_root,
    not_a_path_uri,
    virtual_name,
)
from mcp_migrate.vocabulary.calls import call_qualified, ends_with
from mcp_migrate.vocabulary.spelling import Spelling
from mcp_migrate.vocabulary.words import last_identifier, words


class NaiveFileUri(NaiveFileUriScreen, Rule):
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
        Valid(
            EXAMPLE_IMPORT + 'def page_link(path):\n    return {"url": f"file://{path}"}\n',
            "a URI built for a page, a resource or a media file: not a root's (the security rules look only at roots)",
        ),
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
        self.frames: list = [Frame()]
        #: names bound to a `file:` literal anywhere (`FILE_PREFIX = "file://"`).
        self.constants: set = set()
        #: `x[len(NAME):]` slices, decided when the whole module's constants are known.
        self.prefix_slices: list = []
        self._is_mcp: bool | None = None

    # ----- scopes and bindings ----------------------------------------------------------------
    def visit_FunctionDef(self, node) -> None:
        self.frames.append(Frame())

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
            if isinstance(value, cst.Call) and value.args and self.resolver.qualified(value.func) in URLPARSE:
                frame.parsed[name] = value.args[0].value
            elif file_literal(value) is not None:
                self.constants.add(name)
            elif self._concatenated_uri(value):
                frame.built.add(name)

    def _concatenated_uri(self, value) -> bool:
        """`f"file://{p}"` or `"file://" + p`: a URI this file assembled itself."""
        if isinstance(value, cst.FormattedString):
            first = value.parts[0] if value.parts else None
            return isinstance(first, cst.FormattedStringText) and first.value.lower().startswith("file://")
        return isinstance(value, cst.BinaryOperation) and file_literal(value.left) is not None

    # ----- what holds a file URI --------------------------------------------------------------
    def _mcp_file(self) -> bool:
        """Word-based inference (`uri` means a root's or resource's URI) only in MCP code: a
        module-level import from an MCP SDK, fastmcp, mcp-agent, fast-agent or an `*.mcp` module."""
        if self._is_mcp is None:
            self._is_mcp = self.context.evidence.mcp
        return self._is_mcp

    def _scheme(self, expr) -> bool | None:
        """What the function's tests seen so far say about `expr` here: True (a `file:` URI),
        False (known not to be one: `file:` was rejected above), None (no test)."""
        code = code_of(bare(expr))
        ids = {id(a): i for i, a in enumerate(self.ancestors)}
        verdict = None
        for subject, test_if, says_file, exits, denies in self.frames[-1].guards:
            if subject != code:
                continue
            here = branch_of(self.ancestors, ids, test_if)
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
        test_if, negated = enclosing_test(self.ancestors)
        exits = test_if is not None and ends_with(test_if.body, EXITS)  # after the if: the test failed
        frame = self.frames[-1]
        frame.guards.append((code_of(bare(subject)), test_if, says_file != negated, exits, denies))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        op = node.comparisons[0].operator
        sides = [node.left, node.comparisons[0].comparator]
        if isinstance(op, cst.Equal) and any(literal(s) == ":" for s in sides) and any(_drive_index(s) for s in sides):
            self.frames[-1].drive = True  # `local[2] == ":"`: the drive letter is tested by index
        if not any(literal(s) == "file" for s in sides) or not isinstance(op, (cst.Equal, cst.NotEqual)):
            return
        for side in sides:
            if isinstance(side, cst.Attribute) and side.attr.value == "scheme":
                base = side.value
                says_file = isinstance(op, cst.Equal)
                self._guard(base, says_file)
                if isinstance(base, cst.Call) and base.args and self.resolver.qualified(base.func) in URLPARSE:
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
        if name not in ("split", "rsplit", "partition", "rpartition") or not args or not file_literal(args[0].value):
            return
        self.context.claim(value)
        if self._not_file(value.func.value):
            return
        wanted = (1, -1) if name in ("split", "rsplit") else (2, -1)
        fixable = int_value(index.value) in wanted and len(value.args) == 1
        self._report_to_path(node, value.func.value if fixable else None)

    def _prefix_slice(self, node: cst.Subscript, lower) -> None:
        """`u[len("file://"):]`, `u[len(PREFIX):]`, and `u[7:]` on a value holding a file URI."""
        value = node.value
        if isinstance(lower, cst.Call) and isinstance(lower.func, cst.Name) and lower.func.value == "len":
            arg = lower.args[0].value if lower.args else None
            if self._not_file(value):
                return
            if file_literal(arg) is not None:
                self._report_to_path(node, value)
            elif isinstance(arg, cst.Name):
                self.prefix_slices.append((node, value, arg.value))
            return
        if int_value(lower) in (7, 8) and not self._not_file(value) and self._holds_file_uri(value):
            self._report_to_path(node, value)

    def visit_Call(self, node: cst.Call) -> None:
        self._note_call(node)
        if self.context.is_claimed(node):
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in SURGERY:
            self._surgery(node, func)
        elif isinstance(func, cst.Attribute) and func.attr.value == "format":
            self._format(node, func)
        elif self.resolver.qualified(func) in UNQUOTE and len(node.args) == 1:
            inner = node.args[0].value
            owner = self._parsed_path_source(inner)
            if owner is not None:
                self.context.claim(inner)
                if not self._converted_here(node):  # `url2pathname(unquote(p.path))` converts
                    self._hold(node, owner, inner, unquoted=True)

    def _note_call(self, node: cst.Call) -> None:
        """What a converter does, for `_settle`: names given to url2pathname or unquote, a
        `startswith("file:/")` scheme test, a drive-letter test."""
        func = node.func
        q = self.resolver.qualified(func)
        args = positional(node)
        first = args[0].value if args else None
        if isinstance(first, cst.Name):
            if q in URL2PATHNAME:
                self.frames[-1].converted.add(first.value)
            elif q in UNQUOTE:
                self.frames[-1].unquoted.add(first.value)
        if isinstance(func, cst.Attribute):
            prefix = file_literal(first) if first is not None else None
            if func.attr.value == "startswith" and prefix is not None:
                self._guard(func.value, True, denies=prefix.lower() in ("file:/", "file://"))
            elif func.attr.value == "isalpha":
                self.frames[-1].drive = True

    def _surgery(self, node: cst.Call, func: cst.Attribute) -> None:
        """`u.replace("file://", "")`, `.removeprefix`, `.lstrip`, `.split(...)` on a URI."""
        args = positional(node)
        if not args or file_literal(args[0].value) is None or self._not_file(func.value):
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
        if owner is None or self._converted_here(node) or only_tested(self.ancestors):
            return
        for anc in self.ancestors[:-1]:
            if isinstance(anc, cst.Call) and self.resolver.qualified(anc.func) in URL_BUILDERS:
                return  # the path goes back into a URL, not to the file system
        self._hold(node, owner, node, unquoted=False)

    def _converted_here(self, node) -> bool:
        """`url2pathname(<node>)`, also through `unquote(...)` and `x or "/"` on the way
        (`url2pathname(unquote(parsed.path or ""))`): converted, not a raw URI path (decoding
        twice is the project's own choice; a rewrite would not make it right)."""
        stack = self.ancestors
        if node is not stack[-1] or len(stack) < 3:
            return False
        i = len(stack) - 2
        while i >= 1:
            anc = stack[i]
            if isinstance(anc, cst.BooleanOperation) and isinstance(anc.operator, cst.Or):
                i -= 1
                continue
            if not (isinstance(anc, cst.Arg) and isinstance(stack[i - 1], cst.Call)):
                return False
            q = self.resolver.qualified(stack[i - 1].func)
            if q in URL2PATHNAME:
                return True
            if q not in UNQUOTE:
                return False
            i -= 2
        return False

    def _root_uri_path(self, node: cst.Attribute) -> bool:
        """`root.uri.path`: pydantic's `FileUrl.path` keeps `%20` and `/C:/x`. A finding only
        where it reaches the file system (see `_filesystem_sink`). True when the node is a
        root's `.uri.path` (reported or not), so the urlparse logic skips it."""
        uri = node.value
        if not (isinstance(uri, cst.Attribute) and uri.attr.value == "uri" and a_root(uri.value)):
            return False
        if not only_tested(self.ancestors) and self._filesystem_sink() and not self._converted_here(node):
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
            if q.startswith(FS_MODULES) or is_builtin_open(self.resolver, call_node):
                return True
            if q not in ("str", "os.fspath"):
                return False
            i -= 2
        parent = stack[i - 1] if i >= 1 else None
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is stack[i]:
            targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
            return any(isinstance(t.target, cst.Name) and PATH_WORDS & set(words(t.target.value)) for t in targets)
        return False

    def _parsed_path_source(self, node) -> cst.BaseExpression | None:
        """For `urlparse(X).path` or `parsed.path` holding a file URI: the `.path` node's owner."""
        if not isinstance(node, cst.Attribute) or node.attr.value != "path":
            return None
        owner = node.value
        if isinstance(owner, cst.Call) and owner.args and self.resolver.qualified(owner.func) in URLPARSE:
            source = owner.args[0].value
        elif isinstance(owner, cst.Name) and owner.value in self.frames[-1].parsed:
            source = self.frames[-1].parsed[owner.value]
        else:
            return None
        if self._not_file(source) or self._scheme(owner) is False:
            return None
        if self._scheme(source) or self._scheme(owner):
            return owner
        if self._holds_file_uri(source) and _names_a_root(source):
            return owner
        return None

    def _hold(self, node, owner, path_attr, unquoted: bool) -> None:
        """Keep a `.path` finding until the function is left (`_settle`)."""
        target = bound_name(self.ancestors)
        self.frames[-1].pending.append(Pending(node, owner, path_attr, target, unquoted))

    def _settle(self, frame: Frame) -> None:
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

    # ----- path -> URI ----------------------------------------------------------------------
    def _format(self, node: cst.Call, func: cst.Attribute) -> None:
        """`"file://{}".format(p)`."""
        text = file_literal(func.value)
        if text is None or not text.startswith("file://") or not_a_path_uri(text):
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
        if not_a_path_uri(text) or self._encoded(expressions[0].expression):
            return
        if parts[0].value == "file:///" and len(parts) == 2 and virtual_name(expressions[0].expression):
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
        text = file_literal(node.left)
        if text is None or not text.lower().startswith("file://") or not_a_path_uri(text):
            return
        if isinstance(node.operator, cst.Add):
            if self._encoded(node.right) or (text == "file:///" and virtual_name(node.right)):
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

    def _report_to_path(self, node: cst.CSTNode, uri: cst.BaseExpression | None) -> None:
        fix = to_path_fix(self.spelling, self.resolver, self.ancestors, node, uri) if uri is not None else None
        self.report(node, MSG_TO_PATH.format(expr=shorten(code_of(node), 36)), fix=fix)

    def _followed(self, node: cst.CSTNode, holder) -> bool:
        """`vocabulary.lands_in_root`'s one step of flow: a local the value of `node` is
        assigned to (a name), or the function it is returned from."""
        if isinstance(holder, cst.FunctionDef):
            return self._gives_roots(holder)
        return self._local_lands_in_root(node, holder)

    def _gives_roots(self, func: cst.FunctionDef) -> bool:
        """An annotation of `func` names roots (`RequestContext` of fastmcp's roots module,
        `ListRootsResult`), or it is handed on where it lands in a root (`roots=share`,
        `list_roots_callback=share`)."""
        parents = self.context.index.parents
        hints = [func.returns] + [p.annotation for p in (*func.params.params, *func.params.kwonly_params)]
        for hint in hints:
            if hint is None:
                continue
            named = hint.annotation.value if isinstance(hint.annotation, cst.Subscript) else hint.annotation
            qualified = self.resolver.qualified(named) or ""
            if any(says_root(part) for part in qualified.split(".")) or names_root(hint.annotation):
                return True
        uses = self.context.index.names_called(func.name.value)
        return any(use is not func.name and lands_in_root(use, parents) for use in uses)

    def _local_lands_in_root(self, node: cst.CSTNode, name: str) -> bool:
        """Whether the local `name`, which the value of `node` is assigned to, lands in a root
        where it is read in the same function (`vocabulary.lands_in_root`, one step)."""
        parents = self.context.index.parents
        scope = _function_of(node, parents)
        for use in self.context.index.names_called(name):
            if _function_of(use, parents) is not scope or isinstance(parents.get(id(use)), cst.AssignTarget):
                continue
            if lands_in_root(use, parents):
                return True
        return False

    def _report_path_only(self, node: cst.CSTNode, owner, path_attr: cst.Attribute, fixable: bool = True) -> None:
        fix = path_only_fix(self.spelling, node, owner) if fixable else None
        escapes = "" if node is not path_attr else " and percent-escapes (`%20`)"
        self.report(node, MSG_PATH_ONLY.format(expr=shorten(code_of(node), 36), escapes=escapes), fix=fix)

    def _report_to_uri(self, node: cst.CSTNode, path: cst.BaseExpression | None) -> None:
        parents = self.context.index.parents
        if not lands_in_root(node, parents, lambda holder: self._followed(node, holder)):
            return  # a resource's, a page's, a media file's URI: not a root (the security rules
            # look only at values that are, or come from, roots)
        fix = to_uri_fix(self.spelling, self.resolver, node, path) if path is not None else None
        self.report(node, MSG_TO_URI.format(expr=shorten(code_of(node), 36)), fix=fix)


def _function_of(node: cst.CSTNode, parents: dict) -> cst.FunctionDef | None:
    return enclosing(ancestry(node, parents), cst.FunctionDef)


def _drive_index(expr) -> bool:
    """`local[1]`, `local[2]`: where a drive letter's colon sits after an optional slash."""
    if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return False
    return int_value(expr.slice[0].slice.value) in (1, 2)


def _names_a_root(expr: cst.BaseExpression) -> bool:
    """`root_uri`, `root.uri`, `str(roots[0].uri)`: words that say whose URI it is. A `.path`
    needs them where a slice does not: `u[7:]` cuts exactly `file://`, while every URI has a
    path, and a `uri` parameter of a resource helper is as often `https:` as `file:`."""
    return any(isinstance(node, (cst.Name, cst.Attribute)) and a_root(node) for node in iter_nodes(expr))
