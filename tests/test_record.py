"""core.record: a record behaves as the dataclass it replaces (issue 37: the package's records
no longer compile their methods on every start). Each test makes the same class both ways and
compares what a caller can see."""

from __future__ import annotations

import dataclasses
import pickle
import re
from pathlib import Path

import pytest

from mcp_migrate.core.record import field, fields, record, replace

REPO = Path(__file__).resolve().parent.parent


def _both(frozen: bool):
    @record(frozen=frozen)
    class Rec:
        """A record."""

        path: str
        line: int = 0
        tags: list = field(default_factory=list, hash=False)
        view: object = field(default=None, compare=False, hash=False, repr=False)

    @dataclasses.dataclass(frozen=frozen)
    class Rec2:  # the dataclass it stands for (named apart only in the repr's qualname)
        """A record."""

        path: str
        line: int = 0
        tags: list = dataclasses.field(default_factory=list, hash=False)
        view: object = dataclasses.field(default=None, compare=False, hash=False, repr=False)

    return Rec, Rec2


def _shown(value) -> str:
    return repr(value).split("<locals>.", 1)[1].replace("Rec2(", "Rec(")


@record(frozen=True)
class _Pickled:
    """A record a pool worker hands back (its class importable by name)."""

    code: str
    lines: tuple = ()


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_is_made_taken_shown_and_compared_as_its_dataclass(frozen):
    Rec, Dc = _both(frozen)
    made, dc = Rec("a.py", tags=["x"]), Dc("a.py", tags=["x"])
    assert _shown(made) == _shown(dc) == "Rec(path='a.py', line=0, tags=['x'])"
    assert list(vars(made).items()) == list(vars(dc).items())  # the same state, in field order
    assert made == Rec("a.py", 0, ["x"], view=object())  # `view` is not compared
    assert made != Rec("a.py", 1, ["x"]) and made != Dc("a.py", tags=["x"])  # nor equal to another class
    assert Rec("b.py").tags is not Rec("b.py").tags  # a fresh default per instance
    assert Rec.line == 0 and not hasattr(Rec, "tags")  # a plain default stays on the class, a factory does not
    assert [f.name for f in fields(made)] == [f.name for f in dataclasses.fields(dc)]
    assert replace(made, line=3) == Rec("a.py", 3, ["x"]) and made.line == 0


def test_a_frozen_record_hashes_as_its_dataclass_and_refuses_assignment():
    Rec, Dc = _both(True)
    made, dc = Rec("a.py", 2, view=1), Dc("a.py", 2, view=2)
    assert hash(made) == hash(dc)  # the same tuple of the hashed fields: sets iterate alike
    for change in (lambda r: setattr(r, "line", 5), lambda r: delattr(r, "path")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            change(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            change(dc)
    assert pickle.loads(pickle.dumps(_Pickled("RT001", (3,)))) == _Pickled("RT001", (3,))


def test_a_mutable_record_is_unhashable_as_its_dataclass():
    Rec, Dc = _both(False)
    assert Rec.__hash__ is None and Dc.__hash__ is None
    made = Rec("a.py")
    made.line = 7
    assert made.line == 7


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda c: c(), "missing required arguments: 'path'"),
        (lambda c: c("a", path="b"), "got multiple values for argument 'path'"),
        (lambda c: c("a", colour=1), "got an unexpected keyword argument 'colour'"),
        (lambda c: c("a", 1, [], None, 5), "takes 5 positional arguments but 6 were given"),
    ],
)
def test_a_record_refuses_the_arguments_its_dataclass_refuses(call, message):
    Rec, Dc = _both(True)
    with pytest.raises(TypeError, match=re.escape(message)):
        call(Rec)
    with pytest.raises(TypeError):
        call(Dc)


def test_post_init_fields_not_taken_and_a_subclass_record():
    @record(frozen=True)
    class Base:
        code: str

    @record(frozen=True)
    class Sub(Base):
        fixed: str | None = None

    class Plain(Base):
        """Not a record itself: the base's fields and methods."""

    @record
    class Context:
        data: bytes
        size: int = field(init=False)
        seen: list = field(default_factory=list, init=False)

        def __post_init__(self) -> None:
            self.size = len(self.data)

    @record(frozen=True)
    class Again(Sub):
        code: str = "RT000"  # declared again: its base's place, a default of its own

    @dataclasses.dataclass(frozen=True)
    class DcBase:
        code: str

    @dataclasses.dataclass(frozen=True)
    class DcSub(DcBase):
        fixed: str | None = None

    @dataclasses.dataclass(frozen=True)
    class DcAgain(DcSub):
        code: str = "RT000"

    assert [f.name for f in fields(Again)] == [f.name for f in dataclasses.fields(DcAgain)] == ["code", "fixed"]
    assert repr(Again()).endswith("Again(code='RT000', fixed=None)") and repr(DcAgain()).endswith(
        "DcAgain(code='RT000', fixed=None)"
    )
    assert repr(Sub("RT001", "x")).endswith("Sub(code='RT001', fixed='x')")
    assert Plain("RT002") == Plain("RT002") != Base("RT002")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Plain("RT002").code = "RT003"
    context = Context(b"abc")
    assert (context.size, context.seen) == (3, [])
    with pytest.raises(ValueError, match="init=False"):
        replace(context, size=1)
    with pytest.raises(TypeError, match="cannot inherit"):

        @record
        class Thawed(Base):
            extra: int = 0


def test_a_record_refuses_what_its_dataclass_refuses_when_it_is_made():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @record
        class Order:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Shared:
            a: list = []  # noqa: RUF012


def test_replace_and_fields_hand_a_dataclass_to_dataclasses():
    from mcp_migrate.api import default_settings

    settings = default_settings()
    assert replace(settings, strategy="server-config").strategy == "server-config"
    assert [f.name for f in fields(settings)] == [f.name for f in dataclasses.fields(settings)]


def test_only_the_apis_types_are_dataclasses():
    """The package's other classes are records: a new `@dataclass` compiles its methods on every
    start again (about 4 M instructions a class). LibCST's own nodes are dataclasses, so a node
    the fixes write (core/fix/pieces.py) is one too."""
    allowed = {
        ("mcp_migrate/core/settings.py", "Settings"),
        ("mcp_migrate/core/findings.py", "Finding"),
        ("mcp_migrate/core/findings.py", "FileError"),
        ("mcp_migrate/core/findings.py", "FileResult"),
        ("mcp_migrate/core/fix/pieces.py", "_Written"),
    }
    found = set()
    for path in sorted((REPO / "mcp_migrate").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^@(?:dataclasses\.)?dataclass\b.*\nclass (\w+)", text, flags=re.M):
            found.add((path.relative_to(REPO).as_posix(), match.group(1)))
    assert found == allowed
