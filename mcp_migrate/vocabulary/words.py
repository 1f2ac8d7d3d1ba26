"""Identifier words: what a name says it holds (directories that bound access, a resolved path).
The security rules read names this way; see root_flow.py for the heuristic."""

from __future__ import annotations

import re

import libcst as cst

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")


#: A name with one of these words holds directories that bound access.
_ROOT_WORDS = frozenset(
    {"root", "roots", "workspace", "workspaces", "sandbox", "sandboxes", "allowlist", "whitelist", "jail", "chroot"}
)


#: Qualifiers that make a directory word an access boundary (`allowed_dirs`, `base_path`).
_BOUND_WORDS = frozenset({"allow", "allowed", "permitted", "trusted", "safe", "base", "jail", "sandbox"})


_DIR_WORDS = frozenset(
    {
        "dir",
        "dirs",
        "directory",
        "directories",
        "path",
        "paths",
        "folder",
        "folders",
        "prefix",
        "prefixes",
        "root",
        "roots",
    }
)


#: Words that say a "root" name holds something other than a directory (`root_key`, `root_logger`).
_NOT_DIR_WORDS = frozenset(
    {
        "key",
        "keys",
        "node",
        "nodes",
        "tag",
        "tags",
        "name",
        "names",
        "id",
        "ids",
        "logger",
        "log",
        "element",
        "elem",
        "widget",
        "window",
        "cause",
        "model",
        "hash",
        "domain",
        "domains",
        "span",
        "token",
        "cert",
        "ca",
        "user",
        "password",
        "pw",
        "module",
        "class",
        "type",
        "dn",
        "url",
        "urls",
        "host",
        "hosts",
        "origin",
        "origins",
        "email",
        "emails",
        "header",
        "headers",
    }
)


#: `root_path` is ASGI's URL prefix (`scope["root_path"]`), not a directory.
_NOT_ROOT_NAMES = frozenset({"root_path", "rootPath"})


_RESOLVED_WORDS = frozenset({"resolved", "real", "realpath", "canonical", "canon"})


def words(name: str) -> list:
    """`allowedDirs` / `ALLOWED_DIRS` / `allowed_dirs` -> ["allowed", "dirs"]."""
    out: list[str] = []
    for part in name.split("_"):
        out.extend(w.lower() for w in _WORD.findall(part))
    return out


def rootish_name(name: str) -> bool:
    ws = words(name)
    if not ws or _NOT_DIR_WORDS.intersection(ws) or name in _NOT_ROOT_NAMES:
        return False
    if _ROOT_WORDS.intersection(ws):
        return True
    # a qualifier right before a directory word: allowed_dirs, basePath, TRUSTED_PATHS
    return any(a in _BOUND_WORDS and b in _DIR_WORDS for a, b in zip(ws, ws[1:]))


def resolved_name(name: str) -> bool:
    return bool(_RESOLVED_WORDS.intersection(words(name)))


def last_identifier(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None
