"""What a fix left without effect in a file's public interface, read from the file before and
after (Python's `ast`, no LibCST): a public parameter the function used before and no longer
reads (a `list_roots_callback=` a constructor still takes but nothing uses), and a setting (a
class-level field such as a `roots:` field of a settings model) that the file read before and
reads nowhere now. Callers keep passing them and nothing happens: the migration report lists
them among the interface changes. Only what one file shows is seen (another module may still
read a setting), so the report says "in this file"."""

from __future__ import annotations

import ast
from typing import NamedTuple


class LeftWithoutEffect(NamedTuple):
    """`kind` "parameter" (of `owner`, a function's qualified name) or "setting" (a field of
    the class `owner`); `line` in the fixed file."""

    kind: str
    name: str
    owner: str
    line: int


def _parse(data: bytes | None) -> ast.Module | None:
    if data is None:
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _functions(tree: ast.Module) -> dict:
    """qualified name -> FunctionDef, for functions and methods at any depth of classes."""
    out: dict = {}

    def collect(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.ClassDef):
                collect(node.body, f"{prefix}{node.name}.")

    collect(tree.body, "")
    return out


def _public_params(func) -> list:
    args = func.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return [a for a in every if not a.arg.startswith("_") and a.arg not in ("self", "cls")]


def _reads(func, name: str) -> bool:
    """Does the function's body read `name` (a nested function's own parameter of that name
    aside: good enough to tell "still used" from "no longer used")?"""
    for stmt in func.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                return True
    return False


def _fields(tree: ast.Module) -> dict:
    """(class, field) -> line, for annotated class-level fields (`roots: list[str] = []`)."""
    out: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    if not item.target.id.startswith("_"):
                        out[(node.name, item.target.id)] = item.lineno
    return out


def _attribute_reads(tree: ast.Module) -> dict:
    counts: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            counts[node.attr] = counts.get(node.attr, 0) + 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            counts[node.value] = counts.get(node.value, 0) + 1  # getattr(x, "roots"), model["roots"]
    return counts


def left_without_effect(old: bytes | None, new: bytes | None) -> list:
    """What the change from `old` to `new` left without effect, in source order."""
    before, after = _parse(old), _parse(new)
    if before is None or after is None:
        return []
    found = []
    old_functions, new_functions = _functions(before), _functions(after)
    for qualname, func in new_functions.items():
        was = old_functions.get(qualname)
        if was is None:
            continue
        earlier = {a.arg for a in _public_params(was)}
        for param in _public_params(func):
            if param.arg in earlier and _reads(was, param.arg) and not _reads(func, param.arg):
                found.append(LeftWithoutEffect("parameter", param.arg, qualname, param.lineno))
    old_reads, new_reads = _attribute_reads(before), _attribute_reads(after)
    old_fields = _fields(before)
    for (owner, name), line in _fields(after).items():
        if (owner, name) in old_fields and old_reads.get(name, 0) > 0 and new_reads.get(name, 0) == 0:
            found.append(LeftWithoutEffect("setting", name, owner, line))
    return sorted(found, key=lambda item: (item.line, item.name))
