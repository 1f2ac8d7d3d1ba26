"""Named records whose methods the package compiles with its own code: `@record` is `@dataclass`
without the compiling.

`@record` and `@record(frozen=True)` make of a class what `@dataclass` and
`@dataclass(frozen=True)` make of it: its fields are its annotations in order, its bases'
first; a default or `field(default=..., default_factory=..., init=..., repr=..., compare=...,
hash=...)` as in `dataclasses`; an `__init__` taking the fields by position or keyword (then
`__post_init__`); `==` over the compared fields between two instances of the same class; a
frozen record's hash over them (a mutable record is unhashable) and its assignments refused
with `dataclasses.FrozenInstanceError`; the same `repr`. Methods the class writes itself are
kept. No `__match_args__`: no record is matched by position. `replace` and `fields` are
`dataclasses.replace` and `dataclasses.fields` for records (and hand a dataclass to
`dataclasses`).

Why not `@dataclass`: it writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__` and a
frozen class's `__setattr__` and `__delattr__` as source text and compiles it with `exec`, three
to six compilations per class on every start of the tool. For the 41 dataclasses a check of a
project with findings imported, that was 163 M instructions of the package's 354 M import
(issue 37; 9 % of the whole check of a three-file project). A record's methods are compiled
once, into this module's bytecode cache, and read the class's fields from a table made when the
class is. The public types of the API (`Settings`, `Finding`, `FileError`, `FileResult`) stay
dataclasses, which a caller may give to `dataclasses.replace` and `dataclasses.asdict`.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")


class Field:
    """One field of a record, as `dataclasses.Field` describes one (`name`, `default`,
    `default_factory`, `init`, `repr`, `compare`, `hash`; MISSING where there is none)."""

    __slots__ = ("name", "default", "default_factory", "init", "repr", "compare", "hash")

    def __init__(self, default, default_factory, init: bool, repr: bool, compare: bool, hash: bool | None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.hash = hash

    @property
    def defaulted(self) -> bool:
        """Whether the field has a default or a default factory."""
        return self.default is not MISSING or self.default_factory is not MISSING

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
    hash: bool | None = None,
) -> Any:
    """A field's default or default factory and what it takes part in (`dataclasses.field`)."""
    return Field(default, default_factory, init, repr, compare, hash)


class _Table(NamedTuple):
    """What a record's methods read of its class, worked out once when the class is made."""

    #: Every field, in order (`fields`).
    fields: tuple
    #: The fields `__init__` takes, in order; and as a set, to tell an unknown keyword.
    names: tuple
    known: frozenset
    #: The `__init__` fields with a default or a default factory.
    defaulted: frozenset
    #: (name, default, factory, taken) of each field `__init__` sets, in field order (a field it
    #: does not take is set from its default or factory, where it has one).
    order: tuple
    #: How `__init__` sets a field (`_init`).
    put: Any
    #: Whether every field `__init__` takes has a default: made without arguments, nothing to ask.
    bare: bool
    #: The values `==` compares, and those a frozen record's hash is of, as tuples.
    compared: Any
    hashed: Any
    #: The fields `repr` shows.
    shown: tuple
    post_init: bool


def _values(names: tuple):
    """A function of an instance giving the tuple of its `names` values (what `dataclasses`'
    `__eq__` and `__hash__` build)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda instance: (one(instance),)
    return lambda instance: ()


def _record(cls: Any, frozen: bool) -> Any:
    """`record`: the class made one, or the decorator that makes it one."""

    def make(cls: type) -> type:
        return _made(cls, frozen)

    return make if cls is None else make(cls)


if sys.version_info >= (3, 11):  # what type checkers read: a record is typed as a dataclass
    from typing import dataclass_transform

    @dataclass_transform(field_specifiers=(field,))
    def record(cls: Any = None, /, *, frozen: bool = False) -> Any:
        """The class made a record (module docstring), frozen or not."""
        return _record(cls, frozen)

else:  # pragma: no cover - Python 3.10 has no dataclass_transform to give

    def record(cls: Any = None, /, *, frozen: bool = False) -> Any:
        """The class made a record (module docstring), frozen or not."""
        return _record(cls, frozen)


def _made(cls: Any, frozen: bool) -> type:
    """`cls` made a record: its fields (its bases' first, a field it declares again keeping its
    base's place, as in `dataclasses`), their table and the methods that read it."""
    inherited: dict = {}
    for base in reversed(cls.__mro__[1:]):
        table = base.__dict__.get("__record__")
        if table is not None:
            if base.__dict__["__record_frozen__"] != frozen:
                raise TypeError(f"a {'' if frozen else 'non-'}frozen record cannot inherit from a record that is not")
            inherited.update((f.name, f) for f in table.fields)
    own = cls.__dict__.get("__annotations__", {})
    for name, annotation in own.items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        given = cls.__dict__.get(name, MISSING)
        spec = given if isinstance(given, Field) else Field(given, MISSING, True, True, True, None)
        if isinstance(spec.default, (list, dict, set)):
            raise ValueError(
                f"mutable default {type(spec.default)} for field {name} is not allowed: use default_factory"
            )
        spec.name = name
        if isinstance(given, Field):  # the class keeps a plain default as its attribute, as dataclasses does
            if spec.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        inherited[name] = spec
    fields = tuple(inherited.values())
    taken = [f for f in fields if f.init]
    for before, after in zip(taken, taken[1:]):
        if before.defaulted and not after.defaulted:
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    compared = tuple(f.name for f in fields if f.compare)
    cls.__record__ = _Table(
        fields,
        tuple(f.name for f in taken),
        frozenset(f.name for f in taken),
        frozenset(f.name for f in taken if f.defaulted),
        tuple((f.name, f.default, f.default_factory, f.init) for f in fields if f.init or f.defaulted),
        object.__setattr__ if frozen else setattr,
        all(f.defaulted for f in taken),
        _values(compared),
        _values(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))),
        tuple(f.name for f in fields if f.repr),
        hasattr(cls, "__post_init__"),
    )
    cls.__record_frozen__ = frozen
    # A hash the class writes itself stays (not the None Python gives a class that writes `__eq__`).
    written_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (written_hash is MISSING or (written_hash is None and "__eq__" in cls.__dict__))
    for name, method in (("__init__", _init), ("__repr__", _repr), ("__eq__", _eq)):
        if name not in cls.__dict__:
            setattr(cls, name, method)
    if not explicit_hash:
        cls.__hash__ = _hash if frozen else None
    if frozen:
        for name, method in (("__setattr__", _frozen_setattr), ("__delattr__", _frozen_delattr)):
            if name in cls.__dict__:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
            setattr(cls, name, method)
    return cls


def _init(self, *args, **kwargs) -> None:
    """A record's `__init__`: each field, in field order, from its argument, else its default or
    factory (the fields `__init__` does not take, from theirs), set through `table.put`: the
    builtin `setattr` (`object.__setattr__` for a frozen record, whose own `__setattr__`
    refuses), as a dataclass's `__init__` sets them. Writing `self.__dict__` instead gave each
    instance a dictionary of its own, which every later read of its attributes paid for (45 M
    instructions more on fast-agent's check); calling `object.__setattr__` for a mutable record
    cost 0.5 microseconds more a record of twelve fields, made once per file checked."""
    table = type(self).__record__
    put = table.put
    if table.bare and not args and not kwargs:  # (a file's empty notes: once per file checked)
        for name, default, factory, _ in table.order:
            put(self, name, default if factory is MISSING else factory())
        if table.post_init:
            self.__post_init__()
        return
    if args:
        names = table.names
        if len(args) > len(names):
            raise TypeError(
                f"{type(self).__qualname__}.__init__() takes {len(names) + 1} positional arguments "
                f"but {len(args) + 1} were given"
            )
        if kwargs and not kwargs.keys().isdisjoint(names[: len(args)]):
            twice = next(name for name in names[: len(args)] if name in kwargs)
            raise TypeError(f"{type(self).__qualname__}.__init__() got multiple values for argument {twice!r}")
        kwargs.update(zip(names, args))
    if kwargs and not table.known.issuperset(kwargs):
        unknown = next(name for name in kwargs if name not in table.known)
        raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {unknown!r}")
    for name, default, factory, taken in table.order:
        if taken and name in kwargs:
            put(self, name, kwargs[name])
        elif factory is not MISSING:
            put(self, name, factory())
        elif default is not MISSING:
            put(self, name, default)
        else:
            missing = ", ".join(repr(n) for n in table.names if n not in kwargs and n not in table.defaulted)
            raise TypeError(f"{type(self).__qualname__}.__init__() missing required arguments: {missing}")
    if table.post_init:
        self.__post_init__()


@recursive_repr()
def _repr(self) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record__.shown)
    return f"{type(self).__qualname__}({shown})"


def _eq(self, other):
    if other.__class__ is self.__class__:
        values = self.__record__.compared
        return values(self) == values(other)
    return NotImplemented


def _hash(self) -> int:
    return hash(self.__record__.hashed(self))


def _frozen_setattr(self, name: str, value) -> None:
    if type(self).__dict__.get("__record__") is not None or name in _field_names(self):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self, name: str) -> None:
    if type(self).__dict__.get("__record__") is not None or name in _field_names(self):
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _field_names(instance) -> frozenset:
    return frozenset(f.name for f in instance.__record__.fields)


def fields(instance_or_class) -> tuple:
    """The fields of a record (Field each), or of a dataclass (`dataclasses.fields`)."""
    table = getattr(instance_or_class, "__record__", None)
    return dataclasses.fields(instance_or_class) if table is None else table.fields


def replace(instance: T, /, **changes) -> T:
    """A copy of the record with `changes` (`dataclasses.replace`: the fields `__init__` takes,
    given again; those it does not take, made again), or `dataclasses.replace` of a dataclass."""
    table = getattr(type(instance), "__record__", None)
    if table is None:
        return dataclasses.replace(instance, **changes)  # type: ignore[type-var]
    for f in table.fields:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(instance, f.name)
    return type(instance)(**changes)
