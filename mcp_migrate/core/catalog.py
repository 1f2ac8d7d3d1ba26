"""The rule catalog: one Markdown file per rule under `rules/`, with TOML front matter.

The catalog is data, not code, so `explain` and `rules` work from an installed wheel: the
folder ships as the package `mcp_migrate._catalog`. Front matter sits between two `+++` lines.
Besides the words, it says what the run must know of a rule before (or without) importing it
or LibCST: its `gate` (core.gates), its `side` of Roots (core.coordination) and its `tags`
(SARIF), so a rule's facts live on its page and nowhere else.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from mcp_migrate.core.record import record

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Rule severities, most serious first.
SEVERITIES = ("breaks", "deprecated", "warning", "info")
#: The lowest severity that fails a run unless `fail-on` / `--severity` says otherwise: `info`
#: findings (era-portable bridges, stale suppressions) are reported but do not fail.
DEFAULT_FAIL_ON = "warning"


def fails(severity: str, fail_on: str = DEFAULT_FAIL_ON) -> bool:
    """Whether a finding of `severity` fails the run. Anything that is not a rule severity
    (`error`: a file that cannot be parsed or read) always does."""
    if severity not in SEVERITIES:
        return True
    return SEVERITIES.index(severity) <= SEVERITIES.index(fail_on)


_REQUIRED = ("code", "name", "severity", "fix", "summary")


@record(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    fix: str
    summary: str
    doc: str
    #: Optional front matter: GitHub code scanning's `security-severity` (a CVSS-like score, as a
    #: string) for rules that find security problems.
    security_severity: str = ""
    #: `gate`: byte strings at least one of which every file the rule can report on contains
    #: (core.gates tests a file against its selection's gates before any rule is imported).
    #: Empty: the rule's class says (its SCREEN), or the engine reports the code itself.
    gate: tuple = ()
    #: `side`: "client" for Roots' client side (a provider, a capability, list_changed), whose
    #: fixes wait while a server in the same run still asks for roots; "server" for the asking
    #: side; empty for rules of neither.
    side: str = ""
    #: `tags`: what kind of rule it is (SARIF's rule tags).
    tags: tuple = ()


class CatalogError(Exception):
    pass


def _catalog_files():
    """The catalog's Markdown files: the installed `mcp_migrate._catalog` folder, listed as a
    plain folder (importlib.resources, and the tempfile and shutil it imports, only for a
    zipped install), else a source checkout's `rules/`."""
    try:
        spec = find_spec("mcp_migrate._catalog")
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        folders = [folder for folder in spec.submodule_search_locations or () if os.path.isdir(folder)]
        found = sorted(Path(folder, name) for folder in folders for name in os.listdir(folder) if name.endswith(".md"))
        if found:
            return found
        try:
            from importlib.resources import files

            entries = [e for e in files("mcp_migrate._catalog").iterdir() if e.name.endswith(".md")]
            if entries:
                return entries
        except (ImportError, FileNotFoundError, TypeError):
            pass
    # A source checkout that was not installed: the catalog is the sibling `rules/` folder.
    here = Path(__file__).resolve().parents[2] / "rules"
    return sorted(here.glob("*.md"))


def parse_entry(text: str, origin: str) -> RuleInfo:
    parts = text.split("+++", 2)
    if len(parts) != 3 or parts[0].strip():
        raise CatalogError(f"{origin}: missing +++ front matter")
    try:
        meta = tomllib.loads(parts[1])
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{origin}: {exc}") from None
    missing = [k for k in _REQUIRED if k not in meta]
    if missing:
        raise CatalogError(f"{origin}: missing {', '.join(missing)}")
    if meta["severity"] not in SEVERITIES:
        raise CatalogError(f"{origin}: unknown severity {meta['severity']!r}")
    if meta["fix"] not in ("none", "safe", "unsafe", "display"):
        raise CatalogError(f"{origin}: unknown fix kind {meta['fix']!r}")
    return RuleInfo(
        code=meta["code"],
        name=meta["name"],
        severity=meta["severity"],
        fix=meta["fix"],
        summary=meta["summary"],
        doc=parts[2].strip() + "\n",
        security_severity=_security_severity(meta, origin),
        gate=_gate(meta, origin),
        side=_side(meta, origin),
        tags=_words(meta, "tags", origin),
    )


def _words(meta: dict, key: str, origin: str) -> tuple:
    """An optional list of non-empty strings, as a tuple."""
    value = meta.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise CatalogError(f"{origin}: {key} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _gate(meta: dict, origin: str) -> tuple:
    """The optional `gate`: ASCII strings, as the bytes a file is searched for."""
    words = _words(meta, "gate", origin)
    if not all(word.isascii() for word in words):
        raise CatalogError(f"{origin}: gate must hold ASCII strings, got {list(words)!r}")
    return tuple(word.encode("ascii") for word in words)


def _side(meta: dict, origin: str) -> str:
    value = meta.get("side", "")
    if value not in ("", "client", "server"):
        raise CatalogError(f'{origin}: side must be "client" or "server", got {value!r}')
    return value


def _security_severity(meta: dict, origin: str) -> str:
    """The optional `security-severity` key: a score from 0.0 to 10.0, kept as written."""
    value = meta.get("security-severity", "")
    if value == "":
        return ""
    try:
        score = float(value)
    except (TypeError, ValueError):
        score = -1.0
    if not isinstance(value, str) or not 0.0 <= score <= 10.0:
        raise CatalogError(f"{origin}: security-severity must be a string holding 0.0-10.0, got {value!r}")
    return value


@lru_cache(maxsize=1)
def load_catalog() -> dict:
    """code -> RuleInfo, sorted by code."""
    infos = {}
    for entry in _catalog_files():
        info = parse_entry(entry.read_text(encoding="utf-8"), entry.name)
        infos[info.code] = info
    return dict(sorted(infos.items()))


def find_rule(text: str):
    """The RuleInfo named by a code (`rt001`) or a name (`roots-request`), else None."""
    key = text.strip()
    catalog = load_catalog()
    if key.upper() in catalog:
        return catalog[key.upper()]
    return next((info for info in catalog.values() if info.name == key.lower()), None)
