"""The fixture corpus as units a command runs on: each file of a folder of separate fixtures
(a rule's folder, `migrate/`, `behaviour/`, ...) alone, and each folder that is one program
(`example/`, every nested folder such as `plan/held/` or `own/acme_mcp/`) whole, since its
files are fixed together (core.coordination). Shared by the tests that hold every fixture to
what a report or a preview promises."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


class Unit(NamedTuple):
    """One run's input: a name for test ids, and the fixtures path (a file or a folder)."""

    name: str
    path: Path


def _one_program(folder: Path) -> bool:
    """A top-level folder is one program when nothing in it is a per-file golden (`.expected`,
    `.fixed`) and no README says its files stand alone (behaviour/)."""
    goldens = any(folder.glob("*.expected")) or any(folder.glob("*.fixed"))
    return not goldens and not (folder / "README.md").is_file()


def units() -> list:
    out = []
    for folder in sorted(d for d in FIXTURES.iterdir() if d.is_dir()):
        if _one_program(folder):
            out.append(Unit(folder.name, folder))
            continue
        out.extend(Unit(f"{folder.name}/{p.name}", p) for p in sorted(folder.glob("*.py")))
        for sub in sorted(d for d in folder.rglob("*") if d.is_dir() and any(d.glob("*.py"))):
            out.append(Unit(sub.relative_to(FIXTURES).as_posix(), sub))
    return out


def folders() -> list:
    """Each top-level folder as one unit: a cheaper run that still holds every fixture."""
    return [Unit(d.name, d) for d in sorted(FIXTURES.iterdir()) if d.is_dir()]
