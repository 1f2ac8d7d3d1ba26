"""RT101's screens, without LibCST: its scope (MCP code or a raw roots payload), and a root's URI
written with a scheme other than `file:`, read on the standard library's `ast` (`classify_tree`,
whose verdict `_judge` is the rule's own). The rule (`rt101_root_uri_scheme`) inherits them."""

from __future__ import annotations

import ast

from mcp_migrate.core.byte_code import GAP, given_by_keyword, holds, named_in_code, offsets, whole_words
from mcp_migrate.core.lazy_regex import lazy_compile
from mcp_migrate.core.messages import shorten
from mcp_migrate.core.rule import Rule
from mcp_migrate.core.screen import last_identifier as screen_last_identifier
from mcp_migrate.core.screen import positional as screen_positional
from mcp_migrate.core.screen import string as screen_string
from mcp_migrate.core.sdk import (
    URL_TYPES,
    mcp_file,
)

_SCHEME = lazy_compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def _shorten(text: str) -> str:
    return shorten(text, 36)


def _judge(text: str, complete: bool) -> tuple | None:
    """classify's verdict on the text a value starts with (`complete`: all of the value)."""
    shown = _shorten(text if complete else text + "...")
    if not text:
        return None
    match = _SCHEME.match(text)
    if match and len(match.group(1)) > 1:
        scheme = match.group(1).lower()
        return None if scheme == "file" else ("scheme", scheme, shown)
    if match is None and not complete and ":" not in text and not text.startswith(("/", "~", ".", "\\")):
        return None  # f"{base}..." style: the scheme is not in the text we can read
    return ("path", None, shown)


def _leading_text_tree(node) -> tuple | None:
    """`_leading_text` on the standard library's nodes (an f-string's first literal part; the
    left of a `+`)."""
    value = screen_string(node)
    if value is not None:
        return value, True
    if node.__class__ is ast.JoinedStr and node.values:
        first = screen_string(node.values[0])
        return (first, False) if first is not None else None
    if node.__class__ is ast.BinOp and node.op.__class__ is ast.Add:
        left = _leading_text_tree(node.left)
        return (left[0], False) if left else None
    return None


def classify_tree(node) -> tuple | None:
    """`classify` on the standard library's nodes: a URI we can read that is not `file:`."""
    if node.__class__ is ast.Call and (node.args or node.keywords) and screen_last_identifier(node.func):
        if screen_last_identifier(node.func) in URL_TYPES:
            first = node.args[0] if node.args else node.keywords[0].value
            return classify_tree(first.value if first.__class__ is ast.Starred else first)
        return None
    lead = _leading_text_tree(node)
    return _judge(*lead) if lead is not None else None


class RootUriSchemeScreen(Rule):
    """The screens `RootUriScheme` inherits (core.rule), tested before any rule or LibCST is loaded."""

    CODE = "RT101"

    SCREEN = (b"Root", b"roots")

    @classmethod
    def screen(cls, data: bytes) -> bool:
        """A place `screen_tree` reads a root's URI at, in the bytes: `Root` or
        `MCPRootSettings` named where code can name them (core.byte_code.named_in_code, aliases
        included: `Root as R`) with `uri=` or `server_uri_alias=` given by keyword; or a list or
        tuple written as `roots=`, `set_roots(` or a `"roots":` entry (`_writes_a_roots_list`).
        The words alone let through modules such as agent-framework's 209 KB skills module, whose
        `Root` is prose in docstrings and whose `uri` an assignment (issue 37)."""
        if not any(holds(data, t) for t in cls.SCREEN):
            return False
        if (named_in_code(data, b"Root") or named_in_code(data, b"MCPRootSettings")) and (
            given_by_keyword(data, b"uri") or given_by_keyword(data, b"server_uri_alias")
        ):
            return True
        return _writes_a_roots_list(data)

    @classmethod
    def applies(cls, data: bytes) -> bool:
        """MCP code, or a raw JSON-RPC payload (a roots list of uri entries, no SDK import)."""
        if mcp_file(data):
            return True
        return (b'"roots"' in data or b"'roots'" in data) and (b'"uri"' in data or b"'uri'" in data)

    @classmethod
    def screen_tree(cls, syntax, settings) -> bool:
        """A URI that is not `file://`, readable from the code, written where `visit_Call` or
        `visit_DictElement` look: `uri=` of a `Root(...)`, `uri=`/`server_uri_alias=` of
        `MCPRootSettings(...)`, an item of `roots=[...]`/`set_roots([...])` on a client or a
        toolset, the `"uri"` of a root mapping in a roots list."""
        for call in syntax.calls_to("Root", "MCPRootSettings"):
            for kw in call.keywords:
                if kw.arg in ("uri", "server_uri_alias") and classify_tree(kw.value) is not None:
                    return True
        given = [value for _, value in syntax.keyword_calls("roots")]
        given.extend(args[0] for call in syntax.method_calls("set_roots") if (args := screen_positional(call)))
        keyed = [
            v
            for mapping in syntax.of(ast.Dict)
            for k, v in zip(mapping.keys, mapping.values)
            if k is not None and screen_string(k) == "roots"
        ]
        # A given list's items may be URIs themselves (fastmcp's `roots=["/srv"]`); a `"roots"`
        # entry's only through their `"uri"` (a roots answer; `{"roots": ("roots",)}` is a
        # permission table, not a root).
        return any(_writes_a_uri(value, strings=True) for value in given) or any(
            _writes_a_uri(value, strings=False) for value in keyed
        )


def _writes_a_uri(value, strings: bool) -> bool:
    """Whether a list or tuple holds a URI `classify_tree` reads: an item itself (`strings`), or
    the `"uri"` of a root mapping."""
    if value.__class__ not in (ast.List, ast.Tuple):
        return False
    for item in value.elts:
        if strings and classify_tree(item) is not None:
            return True
        if item.__class__ is ast.Dict and any(
            k is not None and screen_string(k) == "uri" and classify_tree(v) is not None
            for k, v in zip(item.keys, item.values)
        ):
            return True
    return False


#: After `roots`: given (`roots=`), called (`set_roots(`) or keyed (`"roots":`), then a list or
#: tuple opened (a parenthesised list too): the values `screen_tree` reads the items of.
_GIVEN_LIST = lazy_compile(GAP + rb"=(?!=)" + GAP + rb"[\[(]")
_CALLED_LIST = lazy_compile(GAP + rb"\(" + GAP + rb"[\[(]")
_KEYED_LIST = lazy_compile(GAP + rb":" + GAP + rb"[\[(]")


def _writes_a_roots_list(data: bytes) -> bool:
    """`roots=[...]` (a keyword, or any binding), `set_roots([...])` or `"roots": [...]` in the
    bytes, each looked for after the literal the search finds first (a pattern searched for
    itself would be tried at every byte)."""
    if any(_GIVEN_LIST.match(data, at + len(b"roots")) for at in whole_words(data, b"roots")):
        return True
    if any(_CALLED_LIST.match(data, at + len(b"set_roots")) for at in whole_words(data, b"set_roots")):
        return True
    return any(_KEYED_LIST.match(data, at + len(key)) for key in (b'"roots"', b"'roots'") for at in offsets(data, key))
