"""Regular expressions compiled when first used, for the package's module-level patterns.

Compiling a pattern is Python code (`re._parser`, `re._compiler`): about 0.8 M instructions
each, and the package's modules compiled 68-92 of them on import, 65 M instructions of a
1,334 M check of a 407-file tree without findings (issue 37). Most are a rule's or a fix's, and
a run uses few of them: 16 of the 68 on that tree, 35-54 of 84-90 on trees with findings. A
`LazyPattern` compiles on its first use; from then on its methods are the compiled pattern's
own, put on the instance, where they hide the class's (so no call goes through Python code)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, AnyStr


class LazyPattern:
    """`re.compile(pattern, flags)`, compiled when one of its methods is first called or
    `compiled` is asked for. `pattern` is its source, as `re.Pattern.pattern` gives it. Not an
    `re.Pattern`: hand `compiled` where one must be (`re.sub`'s first argument)."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern:
        """The compiled pattern, made once; its methods then replace this class's on the instance."""
        found = self.__dict__.get("_compiled")
        if found is None:
            found = re.compile(self.pattern, self._flags)
            mine = self.__dict__
            for name in _METHODS:
                mine[name] = getattr(found, name)
            mine["_compiled"] = found
        return found

    def __reduce__(self):
        return (LazyPattern, (self.pattern, self._flags))

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._flags!r})"


#: The methods the compiled pattern's own replace on the instance.
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")
#: What else a compiled pattern tells (read through `compiled`, rarely asked).
_ATTRIBUTES = ("flags", "groups", "groupindex")


def _compiling(name: str):
    """LazyPattern's method `name`: called once at most per instance, as the call that compiles
    it (which puts the compiled pattern's own method on the instance, hiding this one: a
    function is a non-data descriptor)."""

    def method(self, *args, **kwargs):
        return getattr(self.compiled, name)(*args, **kwargs)

    method.__name__, method.__qualname__ = name, f"LazyPattern.{name}"
    return method


def _told(name: str) -> property:
    """LazyPattern's attribute `name`: the compiled pattern's."""

    def value(self):
        return getattr(self.compiled, name)

    return property(value)


for _name in _METHODS:
    setattr(LazyPattern, _name, _compiling(_name))
for _name in _ATTRIBUTES:
    setattr(LazyPattern, _name, _told(_name))


if TYPE_CHECKING:  # what the package uses one as: its methods and `pattern` (tests/test_lazy_regex.py)

    def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]: ...

else:

    def lazy_compile(pattern, flags=0):
        """`re.compile(pattern, flags)`, compiled on first use (`LazyPattern`)."""
        return LazyPattern(pattern, flags)
