#!/usr/bin/env python3
"""Convert the shared corpus labels of rows 38-62 into the label files `corpus.py` scores.

    python benchmarks/shared_labels.py [--from FILE] [--to DIR] [--check]

The shared file (/work/shared/corpus/labels-38-62.toml, its schema in LABELS.md beside it) was
written by other people, by category letter (A..J) and per labelled file, without running this
linter. `corpus.py` scores per rule code and per repository. This script writes one TOML file
per repository into ``benchmarks/corpus/firstlook-38-62/`` (the ``first-look-38-62`` label set),
so that the first look on rows 38-62 is one command and the committed files say exactly what
was scored. ``--check`` writes nothing and exits 1 when the committed files differ from a fresh
conversion (the shared file moved, or someone edited a converted file by hand).

Why a converter and not a second reader in `corpus.py`: the scoring, the audit and the export
then read one format, and a label we come to disagree with is visible as a diff of our files.

The mapping (LABELS.md, checked against rules/*.md):
- A RT001, B RT003, C RT006, D RT004, E RT005, F RT002, H RT102, I RT103.
- J HA001: "a host skips a confirmation because a server declared readOnlyHint /
  destructiveHint" is HA001 (approval skipped because of annotations); HA002 is approval
  switched off for every tool whatever the annotations, a different construct.
- G (building ``Root(...)`` objects, root dicts, file URIs for roots) is not scored: no rule
  reports building a root as such (RT002 reports the provider that hands roots over, labelled F;
  RT101 only a root whose URI is not ``file://``). G hits are kept as ``[[construction]]`` tables,
  which `corpus.py` lists apart (findings on them are neither hits nor unlabelled lines).

Every label carries ``window = 5``: the shared labels put a construct at its *first* line (the
call, the ``def``, the opening line of a multi-line constructor) and LABELS.md counts a finding
of the mapped code on that line or up to 5 lines below as found. `corpus.py --window 0` gives
the strict figure (the rule of rows 1-37: the same line).

Standard library only (plus ``tomli`` on Python < 3.11).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = Path("/work/shared/corpus/labels-38-62.toml")
DEFAULT_TARGET = HERE / "corpus" / "firstlook-38-62"
#: Category letter -> rule code; G is not scored (see the module docstring).
CATEGORY_CODES = {
    "A": "RT001",
    "B": "RT003",
    "C": "RT006",
    "D": "RT004",
    "E": "RT005",
    "F": "RT002",
    "H": "RT102",
    "I": "RT103",
    "J": "HA001",
}
UNSCORED = {"G": "root construction (informational, no rule reports it)"}
#: LABELS.md: a finding of the mapped code on the labelled line or up to this many lines below.
WINDOW = 5


class ConvertError(Exception):
    """The shared file is missing or malformed: one line on stderr, exit status 2."""


def quoted(value) -> str:
    """A TOML value: JSON's string escapes are valid TOML basic-string escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def table(name: str, fields: dict) -> str:
    """One ``[[name]]`` table, fields in the given order."""
    return "\n".join([f"[[{name}]]"] + [f"{key} = {quoted(value)}" for key, value in fields.items()]) + "\n"


def read_shared(path: Path) -> list:
    """The ``[[file]]`` tables of the shared file, checked for the fields we use."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConvertError(f"{path}: no such file") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConvertError(f"{path}: {exc}") from None
    files = data.get("file", [])
    for number, entry in enumerate(files, 1):
        missing = [key for key in ("repo", "commit", "path") if key not in entry]
        if missing:
            raise ConvertError(f"{path}: [[file]] #{number} lacks {', '.join(missing)}")
        for hit in entry.get("hit", []):
            letter = hit.get("category")
            if letter not in CATEGORY_CODES and letter not in UNSCORED:
                raise ConvertError(f"{path}: {entry['path']}: unknown category {letter!r}")
            if not isinstance(hit.get("line"), int):
                raise ConvertError(f"{path}: {entry['path']}: a hit without an integer line")
    return files


def convert(files: list, source: str) -> dict:
    """{file name: TOML text}, one file per repository, in the shared file's order."""
    by_repo: dict = {}
    for entry in files:
        by_repo.setdefault(entry["repo"], []).append(entry)
    out = {}
    for repo, entries in by_repo.items():
        commit = entries[0]["commit"]
        parts = [
            f"# {repo}: converted by benchmarks/shared_labels.py from {source}; do not edit by hand.\n",
            table("repo", {"repo": repo, "commit": commit}),
        ]
        for entry in entries:
            where = {"repo": repo, "commit": entry["commit"], "path": entry["path"]}
            if "negative" in entry:
                parts.append(table("negative", dict(where, note=entry["negative"])))
                continue
            for hit in entry.get("hit", []):
                letter = hit["category"]
                fields = dict(where, line=hit["line"])
                if letter in UNSCORED:
                    parts.append(
                        table("construction", dict(fields, category=letter, window=WINDOW, note=hit.get("note", "")))
                    )
                    continue
                fields.update(code=CATEGORY_CODES[letter], category=letter, window=WINDOW, sdk=entry.get("sdk", ""))
                parts.append(table("label", dict(fields, note=hit.get("note", ""))))
        out[repo.replace("/", "+", 1) + ".toml"] = "\n".join(parts)
    return out


def main(argv: list | None = None) -> int:
    """Write (or ``--check``) the converted files: 0 done / up to date, 1 stale, 2 bad input."""
    parser = argparse.ArgumentParser(prog="shared_labels.py", description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, default=DEFAULT_SHARED, help="shared labels TOML")
    parser.add_argument("--to", type=Path, default=DEFAULT_TARGET, help="folder of converted files")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the folder is stale")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        wanted = convert(read_shared(args.source), args.source.name)
    except ConvertError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    present = {p.name: p.read_text(encoding="utf-8") for p in args.to.glob("*.toml")} if args.to.is_dir() else {}
    if args.check:
        stale = sorted(name for name in set(wanted) | set(present) if wanted.get(name) != present.get(name))
        for name in stale:
            print(f"stale: {args.to / name}", file=sys.stderr)
        return 1 if stale else 0
    args.to.mkdir(parents=True, exist_ok=True)
    for name in set(present) - set(wanted):
        (args.to / name).unlink()
    for name, text in wanted.items():
        (args.to / name).write_text(text, encoding="utf-8")
    print(f"{len(wanted)} files written to {args.to}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
