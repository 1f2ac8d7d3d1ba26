"""The MCP SDKs' own API, as their sources say it: what type an attribute or a method's result
has, what names a class goes by, which members have Roots semantics.

Why: a receiver typed only from the names `core/sdk.py` lists misses what the SDKs type for
their users (`MiddlewareContext.fastmcp_context` is a fastmcp `Context`; `Context.request_context
.session` is a `ServerSession`). The answers come from `sdk_api.json` beside this module, which
`tests/sdk_api_generate.py` writes from the SDKs' sources (never edited by hand). Every fact
there maps its value to the SDK versions (sources) it holds in; a question without a source
gets the one answer every version agrees on, or none.

The file is read once, on the first question (a run that asks none never reads it), with the
standard library only: no LibCST, no SDK import.

Types are written as the data file writes them: `pkg.mod.Class`, `pkg.mod.Class[A,B]` for a
generic class's arguments (`?` for one that is no SDK class), `~T` for a class's own type
parameter, replaced by the argument a receiver's type gives, else by the parameter's bound.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

DATA_FILE = Path(__file__).with_name("sdk_api.json")
#: How deep a base-class walk goes (the SDKs' deepest chain is far shorter; a cycle stops here).
_MAX_BASES = 12


class TypeRef(NamedTuple):
    """A type as written in the data: its head (a qualified class name, or `~T`) and its
    arguments, each a type text."""

    head: str
    args: tuple

    @classmethod
    def parse(cls, text: str) -> TypeRef:
        head, bracket, rest = text.partition("[")
        if not bracket:
            return cls(head, ())
        return cls(head, tuple(_split_arguments(rest[:-1])))

    def text(self) -> str:
        return f"{self.head}[{','.join(self.args)}]" if self.args else self.head


def _split_arguments(text: str) -> list:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


class Typed(NamedTuple):
    """One answer about a member's type, and the SDK versions it holds in."""

    type: str
    sources: tuple


class RootsMember(NamedTuple):
    """A member with Roots semantics: a method (`list_roots`: it asks) or a method's parameter
    (`__init__(list_roots_callback)`: it provides), its effect (`asks`, `notifies`,
    `provides`, `handles`, `answers`), a parameter's positional index after `self` (None:
    keyword only, or a method), and the SDK versions it holds in."""

    method: str
    parameter: str | None
    effect: str
    position: int | None
    sources: tuple


class SdkApi:
    """The questions the data answers. Class names may be any of a class's names
    (`mcp.ClientSession`, `mcp.client.session.ClientSession`)."""

    def __init__(self, data: dict) -> None:
        self.sources: tuple = tuple(data["sources"])
        self.classes: dict = data["classes"]
        self._names: dict = {}
        for qname, entry in self.classes.items():
            self._names.setdefault(qname, set()).add(qname)
            for alias in entry.get("names", {}):
                self._names.setdefault(alias, set()).add(qname)

    # ----- names ------------------------------------------------------------------------
    def classes_named(self, qname: str) -> tuple:
        """The classes (data keys) a qualified name means: itself, or what re-exports it."""
        return tuple(sorted(self._names.get(qname, ())))

    def aliases(self, qname: str) -> tuple:
        """Every name of the class(es) `qname` names, itself included (empty: not an SDK class
        of the data): `mcp.ClientSession` = `mcp.client.session.ClientSession`."""
        found: set = set()
        for key in self.classes_named(qname):
            found.add(key)
            found.update(self.classes[key].get("names", {}))
        return tuple(sorted(found))

    def is_subclass(self, qname: str, base: str) -> bool:
        """Whether the class `qname` names is `base` or derives from it, in any SDK version:
        `StatefulProxyClient` of `ProxyClient`."""
        wanted = set(self.aliases(base)) or {base}
        seen: set = set()
        todo = list(self.classes_named(qname)) or [qname]
        while todo:
            key = todo.pop()
            if key in seen or len(seen) > 64:
                continue
            seen.add(key)
            if key in wanted or wanted.intersection(self.classes.get(key, {}).get("names", {})):
                return True
            for bases in self.classes.get(key, {}).get("bases", {}):
                for base_text in bases.split():
                    todo.extend(self.classes_named(TypeRef.parse(base_text).head))
        return False

    # ----- types ------------------------------------------------------------------------
    def attribute_types(self, class_type: str, attr: str, source: str | None = None) -> tuple:
        """Every type the SDK versions give `attr` (an attribute or a property) of `class_type`
        (a class name, with type arguments if known), inherited members included."""
        return self._member_types(class_type, attr, "attributes", source)

    def return_types(self, class_type: str, method: str, source: str | None = None) -> tuple:
        """Every type the SDK versions give what `method` of `class_type` returns (awaited, for
        a coroutine)."""
        return self._member_types(class_type, method, "returns", source)

    def attribute_type(self, class_type: str, attr: str, source: str | None = None) -> str | None:
        """The type of `attr` when the versions (or `source`) agree on one."""
        return _one(self.attribute_types(class_type, attr, source))

    def return_type(self, class_type: str, method: str, source: str | None = None) -> str | None:
        """The type `method` returns when the versions (or `source`) agree on one."""
        return _one(self.return_types(class_type, method, source))

    def chain_type(self, class_type: str, attrs, source: str | None = None) -> str | None:
        """The type reached through attributes (`Context` then `request_context`, `session`),
        when every version's path agrees: fastmcp 2's `request_context` is a `RequestContext`,
        fastmcp 4's its own wrapper, and both hold a `ServerSession`."""
        current = {class_type}
        for attr in attrs:
            current = {typed.type for owner in current for typed in self.attribute_types(owner, attr, source)}
            if not current:
                return None
        return _one(current)

    def _member_types(self, class_type: str, member: str, kind: str, source: str | None) -> tuple:
        ref = TypeRef.parse(class_type)
        found: dict = {}
        for key, held in self._named(ref.head, source):
            self._collect(key, ref.args, member, kind, held, found, 0)
        return tuple(Typed(t, tuple(s for s in self.sources if s in found[t])) for t in sorted(found))

    def _named(self, qname: str, source: str | None) -> list:
        """(class key, the versions in which `qname` names it): an alias holds only where the
        SDK re-exports it (`fastmcp.server.proxy.ProxyClient` is the class of
        `fastmcp.server.providers.proxy` in 3.4.11 only)."""
        found = []
        for key in self.classes_named(qname):
            entry = self.classes[key]
            sources = entry["in"] if key == qname else entry.get("names", {}).get(qname, ())
            held = frozenset(s for s in sources if source is None or s == source)
            if held:
                found.append((key, held))
        return found

    def _collect(self, key: str, args: tuple, member: str, kind: str, allowed, found: dict, depth: int) -> None:
        """A member's types in `key` for the versions `allowed`, else in its bases for the
        versions where the class has them and says nothing of the member itself."""
        entry = self.classes.get(key)
        if entry is None or depth > _MAX_BASES:
            return
        answered: set = set()
        for text, sources in entry.get(kind, {}).get(member, {}).items():
            held = allowed.intersection(sources)
            answered |= held
            for params, mine in _params(entry, held):
                typed = _substitute(text, params, args)
                if typed:
                    found.setdefault(typed, set()).update(mine)
        for bases, sources in entry.get("bases", {}).items():
            below = allowed.intersection(sources) - answered  # the class's own member hides the bases'
            if not below:
                continue
            params = _params(entry, below)[0][0]
            for base in bases.split():
                ref = TypeRef.parse(_substitute(base, params, args) or base)
                for base_key in self.classes_named(ref.head):
                    self._collect(base_key, ref.args, member, kind, below, found, depth + 1)

    # ----- roots ------------------------------------------------------------------------
    def roots_methods(self, class_qname: str, source: str | None = None) -> tuple:
        """The class's members with Roots semantics, inherited ones included, sorted."""
        found: dict = {}
        for key, held in self._named(TypeRef.parse(class_qname).head, source):
            self._collect_roots(key, held, found, {}, 0)
        members = []
        for (member, value), sources in sorted(found.items()):
            method, _, parameter = member.partition("(")
            effect, _, position = value.partition("@")
            ordered = tuple(s for s in self.sources if s in sources)
            members.append(
                RootsMember(method, parameter[:-1] or None, effect, int(position) if position else None, ordered)
            )
        return tuple(members)

    def _collect_roots(self, key: str, allowed, found: dict, inits: dict, depth: int) -> None:
        """The Roots members of `key` and its bases in the versions `allowed`. `inits` (source
        -> "fixed" or "kwargs") is what the nearest subclass's own `__init__` does with a
        base's parameters: drops them, or takes them as keywords only (fastmcp 3's ProxyClient
        forwards `**kwargs` to Client: `roots=` is no longer its 3rd argument)."""
        entry = self.classes.get(key)
        if entry is None or depth > _MAX_BASES:
            return
        for member, values in entry.get("roots", {}).items():
            for value, sources in values.items():
                for held in allowed.intersection(sources):
                    shown = value
                    if member.startswith("__init__(") and held in inits:
                        if inits[held] == "fixed":
                            continue
                        shown = value.partition("@")[0]
                    found.setdefault((member, shown), set()).add(held)
        below_inits = dict(inits)
        for mode, sources in entry.get("init", {}).items():
            for held in sources:
                below_inits.setdefault(held, mode)
        for bases, sources in entry.get("bases", {}).items():
            below = allowed.intersection(sources)
            for base in bases.split() if below else ():
                for base_key in self.classes_named(TypeRef.parse(base).head):
                    self._collect_roots(base_key, below, found, below_inits, depth + 1)


def _one(answers) -> str | None:
    """The one type of `answers` (Typed records or type texts); versions that name one class
    with different arguments (mcp 1.10's `Context[ServerSession, ?, ?]`, 1.30's
    `Context[ServerSession, ~LifespanResultT, ?]`) agree on the class."""
    texts = {a.type if isinstance(a, Typed) else a for a in answers}
    if len(texts) == 1:
        return texts.pop()
    heads = {TypeRef.parse(t).head for t in texts}
    return heads.pop() if len(heads) == 1 else None


def _params(entry: dict, sources) -> list:
    """The class's type parameters (name, ":", bound) in the versions `sources`, each set with
    the versions of `sources` it holds in."""
    found = []
    rest = set(sources)
    for written, held in entry.get("params", {}).items():
        mine = rest.intersection(held)
        if mine:
            found.append(([p.partition(":") for p in written.split(",")], mine))
            rest -= mine
    if rest:
        found.append(([], rest))
    return found


def _substitute(text: str, params: list, args: tuple) -> str | None:
    """`~T` replaced by the receiver's argument for T, else by T's bound (None: neither)."""
    ref = TypeRef.parse(text)
    if ref.head.startswith("~"):
        name = ref.head[1:]
        for index, (param, _, bound) in enumerate(params):
            if param == name:
                given = args[index] if index < len(args) else "?"
                return given if given not in ("?", "") else bound or None
        return None
    if not ref.args:
        return text
    return TypeRef(ref.head, tuple(_substitute(a, params, args) or "?" for a in ref.args)).text()


_API: list = []


def api() -> SdkApi:
    """The data, read on the first question and kept for the process (the file ships with the
    package and never changes under a run)."""
    if not _API:
        _API.append(SdkApi(json.loads(DATA_FILE.read_text(encoding="utf-8"))))
    return _API[0]


def attribute_type(class_qname: str, attr: str, source: str | None = None) -> str | None:
    """`attribute_type("fastmcp.server.middleware.MiddlewareContext", "fastmcp_context")`."""
    return api().attribute_type(class_qname, attr, source)


def return_type(class_qname: str, method: str, source: str | None = None) -> str | None:
    """What `method` of the class returns, when the SDK versions agree."""
    return api().return_type(class_qname, method, source)


def roots_methods(class_qname: str, source: str | None = None) -> tuple:
    """The class's members with Roots semantics (RootsMember records)."""
    return api().roots_methods(class_qname, source)


def aliases(qname: str) -> tuple:
    """Every name of the SDK class `qname` names."""
    return api().aliases(qname)
