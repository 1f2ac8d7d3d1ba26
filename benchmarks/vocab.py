#!/usr/bin/env python3
"""The lines of a Python file that carry Roots vocabulary in code, for the corpus recall audit.

A line carries Roots vocabulary when a token on it (never a comment, a docstring or an import) is one of:
- a string holding a Roots method (``roots/list``, ``notifications/roots/list_changed``, the
  camelCase ``listChanged``/``rootsListChanged`` spellings) or exactly ``"roots"``/``"listChanged"``
  (a dict key, a subscript, a capability member);
- a name holding ``list_roots``, ``roots_list_changed``, ``listChanged`` or ``Roots``
  (``ListRootsRequest``, ``RootsCapability``, ``ListRootsFnT``, ``send_roots_list_changed``);
- ``roots`` as a keyword argument or parameter (``roots=``) or as a member (``.roots``);
- ``Root(`` (a root being built).

The list is deliberately wider than any rule: the audit's question is "does every such line have a
finding, a label or a recorded reason", so what the rules do not know yet shows up. Standard
library only, independent of mcp_migrate (a benchmark must not share the engine's blind spots).

    python benchmarks/vocab.py FILE_OR_FOLDER ...     # path:line: text, one per line
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

METHOD_TEXT = re.compile(r"roots/list|roots/listChanged|rootsListChanged|roots_list_changed")
EXACT_STRINGS = {"roots", "listChanged", "list_changed"}
NAME_TEXT = re.compile(r"list_roots|roots_list_changed|listChanged|Roots")


@dataclass(frozen=True)
class VocabLine:
    """One line of a file that carries Roots vocabulary, with the words that made it count."""

    line: int
    words: tuple
    text: str


def skipped_lines(tree: ast.AST) -> set:
    """Line numbers of string-only expression statements (docstrings and the like) and of
    imports: neither is ever a label."""
    lines: set = set()
    for node in ast.walk(tree):
        docstring = (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        )
        if docstring or isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def string_value(token_text: str) -> str:
    """The text of a string token without its prefix and quotes (best effort, no evaluation)."""
    body = token_text.lstrip("rRbBuUfF")
    for quote in ('"""', "'''", '"', "'"):
        if body.startswith(quote) and body.endswith(quote) and len(body) >= 2 * len(quote):
            return body[len(quote) : -len(quote)]
    return body


def token_words(tokens: list, index: int, in_brackets: bool) -> list:
    """The Roots words token ``index`` contributes (empty when it carries none)."""
    tok = tokens[index]
    if tok.type == tokenize.STRING:
        value = string_value(tok.string)
        if METHOD_TEXT.search(value):
            return [METHOD_TEXT.search(value).group(0)]
        return [repr(value)] if value in EXACT_STRINGS else []
    if tok.type != tokenize.NAME:
        return []
    if NAME_TEXT.search(tok.string):
        return [tok.string]
    before = tokens[index - 1].string if index else ""
    after = tokens[index + 1].string if index + 1 < len(tokens) else ""
    if tok.string == "roots" and before == ".":
        return [".roots"]
    if tok.string == "roots" and after == "=" and in_brackets:
        return ["roots="]
    if tok.string == "Root" and after == "(":
        return ["Root("]
    return []


def significant_tokens(source: str) -> list:
    """The file's tokens without comments, newlines and indentation (so neighbours are real)."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    return [tok for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type not in skip]


def vocab_lines(source: str) -> list:
    """Every line of ``source`` with Roots vocabulary in code; [] when it does not tokenize or parse."""
    try:
        tree = ast.parse(source)
        tokens = significant_tokens(source)
    except (SyntaxError, tokenize.TokenError, ValueError):
        return []
    skipped = skipped_lines(tree)
    text = source.splitlines()
    words: dict = {}
    depth = 0
    for index, tok in enumerate(tokens):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(0, depth - 1)
        found = token_words(tokens, index, depth > 0)
        if found and tok.start[0] not in skipped:
            words.setdefault(tok.start[0], []).extend(found)
    return [
        VocabLine(line, tuple(dict.fromkeys(found)), text[line - 1].strip() if line <= len(text) else "")
        for line, found in sorted(words.items())
    ]


def python_files(paths: list) -> list:
    """``*.py`` files under each path (a file is taken as it is)."""
    files = []
    for path in map(Path, paths):
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def main(argv: list) -> int:
    """Print ``path:line: words | text`` for every vocabulary line under the given paths."""
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for path in python_files(argv):
        source = path.read_bytes().decode("utf-8", "replace")
        for item in vocab_lines(source):
            print(f"{path}:{item.line}: {', '.join(item.words)} | {item.text[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
