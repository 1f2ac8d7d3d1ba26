"""RT102's screens, without LibCST: the byte patterns and the predicates of its syntax screen
(RT102's own tests on the standard library's nodes), and the class whose screens the rule inherits."""

from __future__ import annotations

import ast
from functools import cached_property

from mcp_migrate.core.byte_code import (
    AS_NAME,
    ASSIGNED,
    CLOSE_GAP,
    GAP,
    IDENTIFIER_BYTES,
    LOOK_BACK,
    NAME_ENDS,
    OPEN_GAP,
    bracket_stops,
    ends_before,
    holds_any_case,
    string_end,
    whole_words,
)
from mcp_migrate.core.identifiers import words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.sdk import mcp_file
from mcp_migrate.rules.rt102.landing_screen import lands_in_root_somewhere, says_root

FILE_BYTES = lazy_compile(rb"(?i)['\"]file:/")


def _file_literal(data: bytes) -> bool:
    """`FILE_BYTES.search(data)` as a truth, on the lowered bytes (core.byte_code.lowered)."""
    return holds_any_case(data, b"'file:/") or holds_any_case(data, b'"file:/')


SURGERY = frozenset({"replace", "removeprefix", "lstrip", "strip", "split", "rsplit", "partition", "rpartition"})

#: The byte shapes of what `screen_tree` looks for, where a `file:/` literal is in the module
#: (FILE_BYTES): a SURGERY method given the literal first (`.replace("file://", "")`), a slice
#: from `len(...)` (`u[len(PREFIX):]`), a slice from 7 or 8 (`u[7:]`, `u[(7)::]`), the
#: `.path` of a parse (`urlparse(u).path`), or the literal assembled onto (`f"file://{p}"`,
#: `"file://" + p`: `_assembled`) in a module that names a root, where the assembly lands
#: (`landing_screen`). Any other use of the literal (a `startswith` guard, a constant a test
#: compares with) is never a finding.
_SURGERY_BYTES = lazy_compile(
    rb"\."
    + GAP
    + rb"(?:"
    + "|".join(sorted(SURGERY)).encode()
    + rb")"
    + GAP
    + rb"\("
    + OPEN_GAP
    + rb"[rRuUfF]{0,2}['\"](?i:file:/)"
)
#: `len(` (found first, by its literal) and the `[` before it (`_len_slice`).
_LEN_CALL_BYTES = lazy_compile(rb"len" + GAP + rb"\(")
_SLICE_OPENED_BYTES = lazy_compile(rb"\[" + OPEN_GAP + rb"$")
_CUT_BYTES = lazy_compile(rb"[78]" + CLOSE_GAP + rb":" + GAP + rb"(?::" + GAP + rb")?\]")
_PATH_BYTES = lazy_compile(rb"\." + GAP + rb"path" + NAME_ENDS)
#: A root's `.uri.path` (`root.uri.path`, `roots[0].uri .path`).
_URI_PATH_BYTES = lazy_compile(rb"uri" + GAP + rb"\." + GAP + rb"path" + NAME_ENDS)


def file_text_tree(node) -> bool:
    text = screen_string(node)
    return text is not None and text[:6].lower() == "file:/"


def surgery_tree(syntax) -> bool:
    """String surgery on a `file:/` literal (`_surgery`, `_split_index`), or assembly of one
    (`_format`, `visit_FormattedString`, `visit_BinaryOperation`) in a file whose code says
    "root" somewhere, where the assembled URI may land in a root (`landing_screen`)."""
    for name in SURGERY:
        for call in syntax.method_calls(name):
            args = screen_positional(call)
            if args and file_text_tree(args[0]):
                return True
    if not says_root_anywhere(syntax):
        return False
    return lands_in_root_somewhere(syntax, assembled(syntax))


def says_root_anywhere(syntax) -> bool:
    """Some identifier or string of the code names a root (`says_root`): an assembled URI is
    RT102's only where it becomes a root (`vocabulary.lands_in_root`: a root-named call,
    keyword, dict key, target, comparison operand, function or annotation, each spelled by an
    identifier or a string of the file, an imported module's name included)."""
    return any(says_root(name) for name in syntax.identifiers) or any(says_root(text) for text in syntax.strings)


def assembled(syntax) -> list:
    """Each `file://` URI assembled from a value: `.format`, an f-string, `+` or `%`."""
    found = []
    for call in syntax.method_calls("format"):
        text = screen_string(call.func.value)
        if text is not None and text.startswith("file://"):
            found.append(call)
    for node in syntax.of(ast.JoinedStr):
        first = screen_string(node.values[0]) if node.values else None
        if first is not None and len(node.values) > 1 and first.lower().startswith("file://"):
            found.append(node)
    for node in syntax.of(ast.BinOp):
        text = screen_string(node.left)
        if text is not None and node.op.__class__ in (ast.Add, ast.Mod) and text.lower().startswith("file://"):
            found.append(node)
    return found


def first_given(call):
    """The first argument's value (LibCST's `call.args[0].value`: positional or keyword)."""
    first = call.args[0] if call.args else call.keywords[0].value if call.keywords else None
    return first.value if first.__class__ is ast.Starred else first


def uri_named_tree(node) -> bool:
    """`_holds_file_uri`'s words on the standard library's nodes: `uri`, `root_uri`, `x.uri`,
    `r["uri"]`, and `str()`/`os.fspath()` of one."""
    kind = node.__class__
    if node is None:
        return False
    if kind is ast.Call:
        given = node.args + [kw.value for kw in node.keywords]
        if len(given) == 1 and screen_last_identifier(node.func) in ("str", "fspath"):
            only = given[0]
            return uri_named_tree(only.value if only.__class__ is ast.Starred else only)
        return False
    if kind is ast.Attribute:
        return node.attr == "uri" or "uri" in words(node.attr)
    if kind is ast.Name:
        return "uri" in words(node.id)
    if kind is ast.Subscript:
        return screen_string(node.slice) == "uri"
    return False


def root_uri_tree(node) -> bool:
    """A value a root's URI by its words (`_holds_file_uri` and `_names_a_root`, what a
    `urlparse(X).path` without a scheme test needs): URI-named, and some name or attribute in
    it names a root (`root_uri`, `root.uri`, `str(roots[0].uri)`)."""
    if not uri_named_tree(node):
        return False
    return any(
        (part.__class__ is ast.Name and says_root(part.id))
        or (part.__class__ is ast.Attribute and says_root(part.attr))
        for part in ast.walk(node)
    )


def a_root_tree(node) -> bool:
    """`a_root` on the standard library's nodes."""
    if node.__class__ is ast.Subscript:
        node = node.value
    return says_root(screen_last_identifier(node))


def scheme_test_tree(syntax) -> bool:
    """`x.scheme == "file"` / `!=` somewhere (`visit_Comparison`'s guard)."""
    return any(_scheme_test(node) for node in syntax.of(ast.Compare))


def _scheme_test(node) -> bool:
    """`x.scheme == "file"` / `!=`: one comparison node."""
    if node.__class__ is not ast.Compare or len(node.ops) != 1 or node.ops[0].__class__ not in (ast.Eq, ast.NotEq):
        return False
    sides = (node.left, node.comparators[0])
    return any(screen_string(side) == "file" for side in sides) and any(
        side.__class__ is ast.Attribute and side.attr == "scheme" for side in sides
    )


class NaiveFileUriScreen(Rule):
    """The screens `NaiveFileUri` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT102"

    #: A string literal that starts with `file:/` (surgery, concatenation, `len("file://")`,
    #: startswith guards; any case, any prefix letters); without one, only a URI-named value in
    #: MCP code (`uri`, `root_uri`, `URI`), a `.scheme` test or a root's `.uri.path`, sliced by
    #: 7/8, parsed with urlparse/urlsplit or read, can be a finding (see `screen`).
    SCREEN = (b"file:", b"FILE:", b"File:")

    @classmethod
    def applies(cls, data: bytes) -> bool:
        """Roots and resources code: an MCP module that mentions roots or resources, or a module
        (relative imports only) that handles `file://` URIs and mentions roots. An MCP server
        that only bridges LSP document URIs is out of scope: its URIs are not roots."""
        if mcp_file(data):
            return holds_any_case(data, b"root") or holds_any_case(data, b"resource")
        # `e:/` or `E:/`: what every FILE_BYTES match holds, found like a string first.
        return b"oots" in data and (b"e:/" in data or b"E:/" in data) and _file_literal(data)

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """`screen_tree`'s shapes in bytes (a superset: each needs what is tested here). Files
        with a `file://` literal and none of its uses are the commonest that pass the gate in
        MCP projects (fast-agent 36, context-forge 49): parsing them was 0.4 s and 1.5 s."""
        # (each pattern after the cheaper words that must hold with it: `root`'s answer is kept
        # from `applies`, and `_CUT_BYTES`, tried at every 7 and 8, took 30 ms over mcp-cli's files)
        if holds_any_case(data, b"root") and _URI_PATH_BYTES.search(data) is not None:
            return True
        if (b"file:" in data or b"FILE:" in data or b"File:" in data) and _file_literal(data):
            return (
                _parses(data)
                or _SURGERY_BYTES.search(data) is not None
                or _CUT_BYTES.search(data) is not None
                or _len_slice(data)
                or (holds_any_case(data, b"root") and _assembled(data))
            )
        uri_words = holds_any_case(data, b"uri")
        if not (uri_words or b"scheme" in data):
            return False
        # A `"file"` literal and a `.scheme`: a scheme test, which makes a function's slices and
        # parses RT102's without a `file:/` literal.
        if b"scheme" in data and (b'"file"' in data or b"'file'" in data):
            return _CUT_BYTES.search(data) is not None or _parses(data)
        # Untested, only a URI-named value is: sliced by 7 or 8, or parsed where it names a root
        # too. Any slice and any parse let 1.8 MB of context-forge's modules through to `ast`.
        return uri_words and (
            _uri_cut(data) or (holds_any_case(data, b"root") and _parses(data) and _root_uri_parsed(data))
        )

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """Each shape the visits below report, at the level of calls and literals: surgery,
        `.format`, a split index or a `len(...)` slice, an f-string or a `+`/`%` starting
        `file://` (all need a `file:/` literal; a `len(NAME)` slice needs NAME bound to one);
        `u[7:]`/`u[8:]` and `urlparse(u).path` on a value known to hold a file URI (a `file:/` or
        `"file"` scheme test in the same function, as the rule's frames keep them, or a
        URI-named value in MCP code); a root's `.uri.path`."""
        files = [text for text in syntax.strings if text[:6].lower() == "file:/"]
        if files and surgery_tree(syntax):
            return True
        # Tests anywhere in the file: what no function's test can do without (`Frames` says
        # which function each is in, worked out only where one could be needed).
        tested = bool(files) or ("file" in syntax.strings and scheme_test_tree(syntax))
        frames = Frames(syntax) if tested else None
        mcp = syntax.imports_mcp
        for node in syntax.of(ast.Subscript):
            sl = node.slice
            if sl.__class__ is not ast.Slice or sl.upper is not None or sl.step is not None or sl.lower is None:
                continue
            lower = sl.lower
            if lower.__class__ is ast.Call and lower.func.__class__ is ast.Name and lower.func.id == "len":
                if files and lower.args and _file_prefix(lower.args[0], syntax):
                    return True
            elif lower.__class__ is ast.Constant and lower.value in (7, 8) and lower.value.__class__ is int:
                if (mcp and uri_named_tree(node.value)) or (frames is not None and frames.tested(node)):
                    return True
        if "path" in syntax.attributes:
            for call in syntax.calls_to("urlparse", "urlsplit"):
                if mcp and root_uri_tree(first_given(call)):
                    return True
                if frames is not None and frames.tested(call) and frames.reads_path(call):
                    return True
            for node in syntax.of(ast.Attribute):
                uri = node.value
                if (
                    node.attr == "path"
                    and uri.__class__ is ast.Attribute
                    and uri.attr == "uri"
                    and a_root_tree(uri.value)
                ):
                    return True
        return False


def _file_prefix(arg, syntax) -> bool:
    """`len("file://")`, or `len(PREFIX)` of a name some assignment of the file binds to a
    `file:/` literal (the rule's `constants`, from plain assignments)."""
    if file_text_tree(arg):
        return True
    if arg.__class__ is not ast.Name:
        return False
    return any(
        file_text_tree(node.value) and any(t.__class__ is ast.Name and t.id == arg.id for t in node.targets)
        for node in syntax.of(ast.Assign)
    )


class Frames:
    """Which function each node of a file is in, as the rule's frames (`frames.Frame`) split
    it: every `def` starts one (its decorators, defaults and annotations included), a class or
    a lambda does not, and what lies outside every `def` is the module's. The rule knows a
    value holds a file URI only from a scheme test in the same frame, and reads a parse result
    (`parsed.path`) only where it was bound."""

    def __init__(self, syntax) -> None:
        self._syntax = syntax

    @cached_property
    def _index(self) -> tuple:
        """(node id -> frame, frames that test for `file`, frames that read a `.path`): one walk,
        made on the first question (a file whose tests decide nothing is not walked)."""
        frame_of: dict = {}
        tested, paths = set(), set()
        stack = [(self._syntax.tree, 0)]
        count = 0
        while stack:
            node, frame = stack.pop()
            if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
                count += 1
                frame = count
            frame_of[id(node)] = frame
            if _tests_for_file(node):
                tested.add(frame)
            elif node.__class__ is ast.Attribute and node.attr == "path":
                paths.add(frame)
            stack.extend((child, frame) for child in ast.iter_child_nodes(node))
        return frame_of, tested, paths

    def tested(self, node) -> bool:
        """The frame of `node` tests a value for the `file` scheme (or holds a `file:/` literal,
        the prefix a `startswith` test is written with)."""
        frame_of, tested, _ = self._index
        return frame_of.get(id(node)) in tested

    def reads_path(self, node) -> bool:
        """The frame of `node` reads a `.path`."""
        frame_of, _, paths = self._index
        return frame_of.get(id(node)) in paths


def _tests_for_file(node) -> bool:
    """A `file:/` literal, or `x.scheme == "file"` / `!=`."""
    return file_text_tree(node) or _scheme_test(node)


#: What comes just before a method's or a longer name's `len(` (not the builtin's).
_NAME_OR_DOT = IDENTIFIER_BYTES | {ord(".")}


def _parses(data: bytes) -> bool:
    """`urlparse`/`urlsplit` and a `.path` read somewhere in the bytes."""
    return (b"urlparse" in data or b"urlsplit" in data) and _PATH_BYTES.search(data) is not None


#: What stands before a cut's 7 or 8 (`_CUT_BYTES`): the `[` that opens the slice (`u[(7):]`;
#: the 7 of `0x7` is seven too). Without it the 7 ends a longer bound (`[17:]`, `[a:7:]`).
_CUT_OPENED = rb"\[" + OPEN_GAP + rb"(?:0[xXoO][0_]*)?$"
_CUT_OPENED_BYTES = lazy_compile(_CUT_OPENED)
#: The same, with the name just before the `[`: the sliced value's last name (`uri[7:]`,
#: `root.uri [7:]`), where it ends on a name.
_CUT_NAMED_BYTES = lazy_compile(rb"(?<![A-Za-z0-9_])([A-Za-z0-9_]+)" + GAP + _CUT_OPENED)


def _uri_cut(data: bytes) -> bool:
    """A slice from 7 or 8 of a value `uri_named_tree` may call URI-named: one whose last name
    holds `uri` (any case: `uri`, `root_uri`, `x.URI`), or that ends on a call, a subscript or a
    literal, which the bytes cannot name (`str(root.uri)[7:]`, `r["uri"][8:]`)."""
    for match in _CUT_BYTES.finditer(data):
        at = match.start()
        if not ends_before(_CUT_OPENED_BYTES, data, at):
            continue
        named = _CUT_NAMED_BYTES.search(data, max(0, at - LOOK_BACK), at)
        if named is None or b"uri" in named.group(1).lower():
            return True
    return False


#: What follows a parse function's name called (`urlparse(`, `parse.urlsplit (`, `(urlparse)(`).
_CALLED_AFTER = lazy_compile(CLOSE_GAP + rb"\(")
_PARSE_NAMES = (b"urlparse", b"urlsplit")


def _root_uri_parsed(data: bytes) -> bool:
    """A `urlparse`/`urlsplit` call whose first argument `root_uri_tree` may read as a root's
    URI: its bytes hold `uri` and `root` (any case), or cannot be read to their end here; or
    either function bound to another name, whose calls the bytes cannot tell."""
    for name in _PARSE_NAMES:
        for at in whole_words(data, name):
            end = at + len(name)
            called = _CALLED_AFTER.match(data, end)
            if called is not None:
                given = _first_argument(data, called.end())
                if given is None or (b"uri" in given.lower() and b"root" in given.lower()):
                    return True
            elif AS_NAME.match(data, end) is not None or ends_before(ASSIGNED, data, at):
                return True  # bound to another name, as the syntax screen's aliases follow
    return False


def _first_argument(data: bytes, start: int) -> bytes | None:
    """The bytes of a call's first argument (a keyword's too, `url=x`), from `start`, just past
    the call's `(`, to the `,` or `)` that ends it (core.byte_code.bracket_stops); None where
    they cannot be read to there."""
    at = next(bracket_stops(data, start))
    return data[start:at] if at >= 0 else None


def _len_slice(data: bytes) -> bool:
    """A slice from `len(...)` (`u[len(PREFIX):]`): the builtin `len(`, not a method or a longer
    name, just after a `[`."""
    for match in _LEN_CALL_BYTES.finditer(data):
        at = match.start()
        if (at == 0 or data[at - 1] not in _NAME_OR_DOT) and ends_before(_SLICE_OPENED_BYTES, data, at):
            return True
    return False


#: What follows a `file:/` literal a value is assembled onto: `+`, `%`, `.format`, or another
#: literal it is joined with (`"file://" f"{p}"`, one f-string to the parser).
_ASSEMBLED_AFTER = lazy_compile(CLOSE_GAP + rb"(?:\+|%|\." + GAP + rb"format" + NAME_ENDS + rb"|[rRbBuUfF]{0,2}['\"])")
_STRING_PREFIX = frozenset(b"rRbBuUfF")


def _assembled(data: bytes) -> bool:
    """`assembly_tree`'s shapes in bytes: a `file:/` literal that is an f-string's start or is
    followed by `+`, `%`, `.format` or another literal. A file whose `file://` literals are
    only compared with, tested for or stored names a root often enough (context-forge's test
    modules: `root_path`, `Root`) that the root word alone let 16 big modules through to `ast`."""
    for match in FILE_BYTES.finditer(data):
        at = match.start()
        quote = data[at]
        if at >= 2 and data[at - 2] == quote and data[at - 1] == quote:
            at -= 2  # the third quote of a triple-quoted literal's opening
        prefix = at
        while prefix > 0 and data[prefix - 1] in _STRING_PREFIX:
            prefix -= 1
        if b"f" in data[prefix:at].lower() or _ASSEMBLED_AFTER.match(data, string_end(data, at)):
            return True
    return False
