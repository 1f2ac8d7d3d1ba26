"""A huge test module parsed in part: LibCST is given the statements a rule can look at, and a
small stand-in for each of the others (issue 37: a 1.26 MB test module's LibCST tree alone is
449 MB; its findings sit in 240 of its 26,654 lines). The engine asks for it in test code only
(core.engine._in_part).

A stand-in replaces a top-level function or class, or a method of a class that stays, that
holds none of the words a finding's statement holds (a roots word, the left rules' byte
screens, a suppression comment), on which no left rule's syntax screen holds when it is read
alone with the module's other statements (where the rule's own reasoning says its evidence can
be; of the imports, those binding a name it or those statements spell, and those that are
evidence of MCP code: a call of an imported helper that asks is seen so), that nothing staying
names, and that names nothing a statement holding such a word binds or a kept definition stores
for others under a constant key or on its instance (taken to a fixed point: every fixture and
example, every module of the 62 corpus repositories, and every test module of the 113 once the
imports were narrowed, checked in part gives the whole module's report). It keeps the
statement's decorator lines as they are, its kind and name, and its line count, so every
position in the kept statements is the file's own, and it spells each module-level name the
statement uses (as LibCST's name count, core.fix.imports.name_uses, counts a use): what a fix
decides from the whole module (which imports a removal leaves unused, which functions it
orphans) comes out as it does on the whole module. Each stand-in carries a tag unique in the
file; a fix's output is spliced back (`Reduced.whole`) by finding every stand-in unchanged, or
not at all.

Only the standard library's reading of the file (the screens' `ast` tree) is used here: no
LibCST, no second parse.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from collections import Counter
from keyword import iskeyword
from typing import Any, NamedTuple

from mcp_migrate.core.alone import Indexed, names_read, screened_alone
from mcp_migrate.core.ast_nodes import DEFINITIONS, all_nodes, child_nodes, first_line

#: A module under this many bytes is parsed whole: its tree is small, and a stand-in saves
#: little. (A module constant, not a setting: the lossless test sets it to 0 and 0.0 to check
#: every file in part.)
PARTIAL_MIN_BYTES = 256 * 1024
#: The share of the module's bytes the stand-ins must replace for the partial parse to be used.
PARTIAL_MIN_SHARE = 0.5

#: Words every statement a rule reports on holds, whatever the rule (a roots list, `ROOTS_ENV`,
#: an SDK `Root`), unless it reads what such a statement binds; each rule's own byte screens
#: are added to them.
ROOT_WORDS = (b"oots", b"OOTS", b"Root")

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The statements that bind names (their targets) to what their code computes.
_BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)
#: Python 3.12's type parameters (`def f[T]()`): LibCST counts their names.
_TYPE_PARAMS = tuple(getattr(ast, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(ast, name))


class Reduced(NamedTuple):
    """The bytes LibCST parses in place of a module's (`data`); per stand-in, in order, (its
    bytes in `data`, the file's bytes it stands for); and the (first line, last line) of each
    top-level statement in `data` (core.positions.top_level_spans: a stand-in ends where the
    block footer it took ends)."""

    data: bytes
    blocks: tuple
    spans: tuple

    def whole(self, new: bytes) -> bytes | None:
        """`new` (the reduced module after a fix) with each stand-in given back its statement,
        or None where a stand-in is missing, changed or doubled (nothing is then spliced)."""
        parts, position = [], 0
        for stand_in, original in self.blocks:
            found = new.find(stand_in, position)
            if found < 0 or (found and new[found - 1 : found] != b"\n"):
                return None
            parts += [new[position:found], original]
            position = found + len(stand_in)
        parts.append(new[position:])
        out = b"".join(parts)
        return None if any(stand_in in out for stand_in, _ in self.blocks) else out


def reduced(
    data: bytes, tree: ast.Module | None, rules, markers: tuple, settings=None, path: str = ""
) -> Reduced | None:
    """The partial source of `data` for `rules` (see the module's docstring), or None where the
    module is parsed whole: too small, no tree, a file whose lines are not plain (`\\r`, a form
    feed, a BOM, a cookie naming another encoding than UTF-8, no final newline), or too little
    to replace."""
    if len(data) < PARTIAL_MIN_BYTES or tree is None or not tree.body:
        return None
    if b"\r" in data or b"\f" in data or not data.endswith(b"\n") or not _plain_utf8(data):
        return None
    lines = data.split(b"\n")
    screens = tuple({token for rule in rules for token in rule.SCREEN})
    indexed = Indexed()
    candidates, kept = _units(
        tree, lines, (*ROOT_WORDS, *screens, *markers), screened_alone(tree, data, path, rules, settings, indexed)
    )
    dropped = _unnamed(candidates, kept, lines, (*ROOT_WORDS, *screens), indexed)
    del indexed
    saved = sum(len(line) + 1 for unit in dropped for line in lines[unit.stmt.lineno - 1 : unit.end])
    if not dropped or saved < PARTIAL_MIN_SHARE * len(data):
        return None
    tag = "mcp-partial-" + hashlib.blake2b(data, digest_size=6).hexdigest()
    if tag.encode() in data:
        return None
    bound = _module_names(tree)
    out, blocks, cursor = [], [], 0
    ends = {i: stmt.end_lineno or stmt.lineno for i, stmt in enumerate(tree.body)}
    for n, unit in enumerate(sorted(dropped, key=lambda unit: unit.stmt.lineno)):
        first = unit.stmt.lineno - 1  # 0-based: the `def` line; the decorators stay
        stand_in = _stand_in(unit.stmt, lines, unit.end - first, f"{tag}-{n}", bound)
        original = b"\n".join(lines[first : unit.end]) + b"\n"
        out += [b"\n".join(lines[cursor:first]) + b"\n" if first > cursor else b"", stand_in]
        blocks.append((stand_in, original))
        cursor = unit.end
        ends[unit.top] = max(ends[unit.top], unit.end)
    out.append(b"\n".join(lines[cursor:]))
    spans = tuple((first_line(stmt), ends[i]) for i, stmt in enumerate(tree.body))
    return Reduced(b"".join(out), tuple(blocks), spans)


def _plain_utf8(data: bytes) -> bool:
    """Whether the module is UTF-8 without a BOM, as the interpreter reads its coding cookie
    (`tokenize.detect_encoding`, which core.limits asks too): the stand-ins' names are written
    in UTF-8."""
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0] == "utf-8"  # (a BOM: "utf-8-sig")
    except SyntaxError:  # an unknown encoding, a BOM that disagrees with its cookie
        return False


class _Unit(NamedTuple):
    """A definition the partial parse may leave out: the statement, the 0-based line after its
    code and its block's footer, and the index of the top-level statement it is or is in."""

    stmt: ast.stmt
    end: int
    top: int


def _units(tree: ast.Module, lines: list, words: tuple, screened=lambda stmt: False) -> tuple:
    """([_Unit] that hold none of `words` and pass no left rule's syntax screen alone, [the
    syntax that stays]): each top-level function or class, and each method of a class that
    stays."""
    candidates: list = []
    kept: list = []
    for top, stmt in enumerate(tree.body):
        if not isinstance(stmt, DEFINITIONS):
            kept.append(stmt)
            continue
        unit = _quiet(stmt, top, lines, words, screened)
        if unit is not None:
            candidates.append(unit)
        elif isinstance(stmt, ast.ClassDef):
            kept.extend([*stmt.decorator_list, *stmt.bases, *stmt.keywords])
            for member in stmt.body:
                unit = _quiet(member, top, lines, words, screened) if isinstance(member, _FUNCTIONS) else None
                if unit is not None:
                    candidates.append(unit)
                else:
                    kept.append(member)
        else:
            kept.append(stmt)
    return candidates, kept


def _quiet(stmt: Any, top: int, lines: list, words: tuple, screened) -> _Unit | None:
    """The definition as a _Unit where none of `words` is in it (its decorators and block footer
    included), no left rule's syntax screen holds on it alone, and its footer is certain, else
    None."""
    end = _block_end(lines, stmt)
    if end is None:
        return None
    text = b"\n".join(lines[first_line(stmt) - 1 : end])
    if any(word in text for word in words) or screened(stmt):
        return None
    return _Unit(stmt, end, top)


def _block_end(lines: list, stmt: Any) -> int | None:
    """The 0-based line after a definition's code and the comment lines after it that LibCST
    keeps as its block's footer (indented at least as its body): the stand-in takes them, so
    the next statement's leading lines are what they are in the whole module. None where a
    comment's place is not certain (indented between the `def` and its body, or with a tab)."""
    inner = stmt.body[0]
    own = stmt.col_offset
    body = inner.col_offset if inner.lineno > stmt.lineno else None
    found = at = stmt.end_lineno or stmt.lineno
    while at < len(lines) - 1:
        line = lines[at]
        stripped = line.lstrip(b" \t")
        depth = len(line) - len(stripped)
        if not stripped:
            at += 1
            continue
        if not stripped.startswith(b"#") or depth <= own:
            break
        if b"\t" in line[:depth] or body is None or depth < body:
            return None
        found = at = at + 1
    return found


def _module_names(tree: ast.Module) -> set:
    """Every name the module binds outside its functions and classes (imports, assignments,
    loop and `with` targets, in any block at its level), its functions' and classes' names and
    the names in `__all__`: the only names whose count a fix reads (an import it leaves unused,
    a function it orphans). A stand-in spells no other: a local name's count changes nothing."""
    found: set = set()
    stack: list = list(tree.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in DEFINITIONS:
            found.add(node.name)
            continue
        if kind is ast.alias:
            found.add((node.asname or node.name).split(".")[0])
        elif kind is ast.Name:
            found.add(node.id)
        elif kind is ast.Constant and type(node.value) is str and node.value.isidentifier():
            found.add(node.value)
        stack.extend(child_nodes(node))
    return found


def _unnamed(candidates: list, kept: list, lines: list, words: tuple, indexed: Indexed) -> list:
    """Of the `candidates`, those left out: none is named by the syntax that stays, and none
    names what a statement holding one of `words` binds (a helper that asks, a module setting
    made of roots, an alias of `list_roots`: a rule follows them to their readers and callers,
    and rewrites those too), nor what such a reader binds, taken to a fixed point."""
    named: set = set()
    loud: set = set()
    for node in kept:
        named |= names_read(node)
        if any(word in _text(lines, node) for word in words):
            loud |= _bound(node, lines, words)
    left = {id(unit): unit for unit in candidates}
    names = {id(unit): names_read(unit.stmt, index=indexed.of(unit.stmt)) for unit in candidates}
    kept_state = {id(unit): _instance_stores(indexed.of(unit.stmt)) for unit in candidates}
    while True:
        taken = [
            key for key, unit in left.items() if unit.stmt.name in named or names[key] & loud or kept_state[key] & named
        ]
        if not taken:
            return list(left.values())
        for key in taken:
            named |= names[key]
            if names[key] & loud:  # what it computes from them reaches its callers and readers
                loud |= {left[key].stmt.name} | _carried(left[key].stmt, lines, words, loud)
            del left[key]


def _instance_stores(index: dict) -> set:
    """The attributes a definition (its nodes by kind, `Indexed`) sets on its instance or class
    (`self._paths = ...`): a method that stays may read them (a mock's `return_value` set in a
    test is no such state)."""
    return {
        node.attr
        for node in index.get(ast.Attribute, ())
        if type(node.ctx) is ast.Store and type(node.value) is ast.Name and node.value.id in ("self", "cls")
    }


def _text(lines: list, node: Any) -> bytes:
    first = first_line(node) if isinstance(node, ast.stmt) else node.lineno
    return b"\n".join(lines[first - 1 : node.end_lineno])


def _bound(node: Any, lines: list, words: tuple) -> set:
    """The names a piece of syntax binds to something that holds one of `words`: a definition's
    name; an imported name spelling one (`list_roots as ask`); the targets of an assignment,
    loop or `with` whose own code holds one, attributes too (a method keeping roots on
    `self._paths` for another to check against)."""
    if isinstance(node, DEFINITIONS):  # and what it keeps for others (`self._paths = ...`)
        return {node.name} | _carried(node, lines, words, set())
    found = set()
    for inner in all_nodes(node):
        kind = type(inner)
        if kind is ast.alias:
            if any(word in f"{inner.name} {inner.asname}".encode() for word in words):
                found.add((inner.asname or inner.name).split(".")[0])
        elif isinstance(inner, DEFINITIONS):
            found.add(inner.name)
        elif isinstance(inner, _BINDINGS) and any(word in _text(lines, inner) for word in words):
            found |= {_target(name) for name in all_nodes(inner) if type(name) in (ast.Name, ast.Attribute)}
            found.discard(None)
    return found


def _carried(node: Any, lines: list, words: tuple, loud: set) -> set:
    """What a definition keeps for other definitions to read, where the value holds one of
    `words` or comes from a name in `loud` (followed through its own locals): the attributes it
    sets on its instance (`self._paths = [r.uri for r in roots]`, checked by another method)
    and the constant keys it stores under (`props["tainted_ok"] = ok` after
    `ok, name = labels(tool)`, read back with `props.get("tainted_ok")`). Not any attribute
    store: a test that sets its mocks' `return_value` would make every test that reads one
    stay."""
    found: set = set()
    local: set = set()
    bindings: list[Any] = [
        inner for inner in all_nodes(node) if type(inner) in (ast.Assign, ast.AnnAssign, ast.AugAssign)
    ]
    changed = True
    while changed:  # (the walk is not in execution order: taken to a fixed point)
        changed = False
        for inner in bindings:
            value = inner.value
            if value is None or not (
                names_read(value) & (loud | local) or any(word in _text(lines, value) for word in words)
            ):
                continue
            for target in inner.targets if type(inner) is ast.Assign else [inner.target]:
                for part in all_nodes(target):
                    if type(part) is ast.Name and part.id not in local:
                        local.add(part.id)
                        changed = True
                    elif type(part) is ast.Subscript and type(part.slice) is ast.Constant:
                        if type(part.slice.value) is str:
                            found.add(part.slice.value)
                    elif type(part) is ast.Attribute and type(part.value) is ast.Name:
                        if part.value.id in ("self", "cls"):
                            found.add(part.attr)
    return found


def _target(node: Any) -> str | None:
    """The name an assignment target binds (`x`, or `_roots` of `self._roots`: what other
    methods read), None for a name or attribute it reads."""
    if type(node.ctx) is not ast.Store:
        return None
    return node.id if type(node) is ast.Name else node.attr


def _stand_in(stmt: Any, lines: list, count: int, tag: str, bound: set) -> bytes:
    """`count` lines from the statement's `def` (or `class`) line on: its kind and name, then a
    list of each module-level name it uses (as LibCST's count counts a use), and a string
    holding the tag and the line breaks that keep the line count: a handful of LibCST nodes.
    The decorator lines stay as written. Every fix reads a name's count only as "used or not"
    after removing uses in the code it edits (which stays), so a use is spelled once."""
    head = {ast.FunctionDef: "def {}(): ", ast.AsyncFunctionDef: "async def {}(): ", ast.ClassDef: "class {}: "}
    # A keyword a string spells (`"pass"`) names no import or function: it cannot be written.
    names = "".join(f"{name}, " for name in sorted(_uses(stmt, lines).keys() & bound) if not iskeyword(name))
    indent = lines[stmt.lineno - 1][: stmt.col_offset].decode()
    first = indent + head[type(stmt)].format(stmt.name) + "[" + names
    if count == 1:
        return f'{first}"{tag}"]\n'.encode()
    return (f'{first}"""{tag}' + "\n" * (count - 1) + '"""]\n').encode()


def _uses(stmt: Any, lines: list) -> Counter:
    """How often LibCST's name count (core.fix.imports._uses_in) counts each name in a
    definition, its decorators left out (they stay in the stand-in): names, parameters,
    `global` names, `except ... as` names, match captures, and string literals spelling one
    identifier; not attributes' names, keywords, imports, or a definition's own name."""
    counts: Counter = Counter()
    stack: list = list(_parts(stmt, decorators=False))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            counts[node.id] += 1
        elif kind is ast.arg:
            counts[node.arg] += 1
            if node.annotation is not None:
                stack.append(node.annotation)
        elif kind is ast.Attribute:
            stack.append(node.value)
        elif kind is ast.keyword:
            stack.append(node.value)
        elif kind is ast.Import or kind is ast.ImportFrom:
            continue
        elif kind is ast.Global or kind is ast.Nonlocal:
            counts.update(node.names)
        elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar or kind in _TYPE_PARAMS:
            if node.name:
                counts[node.name] += 1
            stack.extend(child_nodes(node))
        elif kind is ast.MatchMapping:
            if node.rest:
                counts[node.rest] += 1
            stack.extend(child_nodes(node))
        elif kind is ast.MatchClass:
            counts.update(node.kwd_attrs)
            stack.extend(child_nodes(node))
        elif kind is ast.JoinedStr:
            stack.extend(value for value in node.values if type(value) is not ast.Constant)
        elif kind is ast.Constant:
            if type(node.value) is str:
                counts.update(_string_names(node, lines))
        elif kind in DEFINITIONS:
            stack.extend(_parts(node, decorators=True))
        else:
            stack.extend(child_nodes(node))
    return counts


def _parts(stmt: Any, decorators: bool) -> list:
    """A definition's children as LibCST's count walks them: its own name is no use."""
    return [child for child in child_nodes(stmt) if decorators or child not in stmt.decorator_list]


def _string_names(node: ast.Constant, lines: list) -> list:
    """The identifiers LibCST counts in one string literal: each piece written as a plain string
    whose text between its quotes (its prefix included, as `strip` leaves it) is an identifier."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    if first == last:
        segment = lines[first][node.col_offset : node.end_col_offset]
    else:
        segment = b"\n".join(
            [lines[first][node.col_offset :], *lines[first + 1 : last], lines[last][: node.end_col_offset]]
        )
    text = segment.decode("utf-8", "replace")
    single = text.strip("\"'")
    if single.isidentifier():
        return [single]
    if "'" not in single and '"' not in single:
        return []
    try:
        pieces = [
            tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline) if tok.type == tokenize.STRING
        ]
    except (tokenize.TokenError, SyntaxError):
        return []
    return [piece.strip("\"'") for piece in pieces if piece.strip("\"'").isidentifier()]
