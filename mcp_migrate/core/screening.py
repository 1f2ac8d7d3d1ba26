"""The screens of one file, before any rule module or LibCST is loaded: the joined gate of the
selected rules, each rule's byte screens (its scope, its tokens, its import followers), then its
syntax screen on the standard library's reading of the file (core.screen). A file no rule can
report on ends here; only the rules left over are handed to the engine (core.engine), which
parses the file once with LibCST.

The screens are class methods of the rule contract (core.rule), and each rule keeps its own in a
module of its own without LibCST (`rules/<rule>_screen.py`) that the rule class inherits: the
run tests a file with those classes (`api.screen_classes`) and imports the rules only for a
file the screens leave to the parser, so a tree none of whose files passes never loads LibCST
(tests/test_startup.py). Whether the classes are a rule's or its screens', the answer is the
same (the rule inherits its screens); the view keeps the last one for the engine's own check.
"""

from __future__ import annotations

from functools import lru_cache
from hashlib import blake2b
from typing import NamedTuple

from mcp_migrate.core.byte_code import holds
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import REVIEW_PENDING_CODE, REVIEW_TOKEN, UNUSED_SUPPRESSION_CODE
from mcp_migrate.core.gates import fewest, holds_any
from mcp_migrate.core.limits import size_problem
from mcp_migrate.core.project_view import view_of
from mcp_migrate.core.screen import read as read_syntax
from mcp_migrate.core.settings import Settings, with_view
from mcp_migrate.core.suppress import MARKERS


def _gate_tokens(settings: Settings, classes: tuple) -> tuple:
    """One short list of byte strings, at least one of which any file that can hold a finding
    of the selected rules contains (the union of their gates)."""
    return _joined_gate(classes, settings.select, settings.extend_apis)


@lru_cache(maxsize=64)
def _joined_gate(classes: tuple, select: frozenset, extend_apis: tuple) -> tuple:
    """`_gate_tokens`, kept by what decides it (never by a Settings value, whose project view
    is no constant)."""
    settings = Settings(select=select, rules=classes, extend_apis=extend_apis)
    tokens = {t for rule in classes for t in rule.gate_tokens(settings)}
    if REVIEW_PENDING_CODE in select:  # review markers are comments: no rule's gate sees them
        tokens.add(REVIEW_TOKEN)
    return fewest(tokens)


def gate_open(data: bytes, settings: Settings, classes: tuple | None = None) -> bool:
    """Whether one of the gate's tokens occurs in `data` (`classes`: the rules or their screens;
    the Settings' rules when not given)."""
    return holds_any(data, _gate_tokens(settings, settings.rules if classes is None else classes))


def screened_rules(data: bytes, settings: Settings) -> list:
    """The selected rule classes (Settings.rules) that may report on `data`: its scope and its
    cheap byte screen both hold (core.rule.Rule.runs_on)."""
    if not gate_open(data, settings):
        return []
    return [rule for rule in settings.rules if rule.runs_on(data, settings)]


class Screened(NamedTuple):
    """What a file's screens decided, in the order they run: the gate; the rules its byte
    screens let through; of those, the rules whose `screen_tree` holds on its code (`rules`:
    what runs on LibCST); whether stale suppressions or review markers are looked for; and
    whether the standard library's parser read the file (when it cannot, or the file is over
    max-file-size, every byte-screened rule goes on). The rules are the classes screened with:
    the rule classes, or their screens (`codes` names them either way)."""

    gate: bool = False
    byte_rules: tuple = ()
    rules: tuple = ()
    audit: bool = False
    read: bool = False
    #: The other files the screens read (core.dependencies): an import-following screen's
    #: helper modules.
    depends: frozenset = frozenset()
    #: The standard library's tree of the file (when `read`): the positions of its findings
    #: are found through it, and `ast` does not parse the file a second time.
    tree: object = None

    @property
    def parses(self) -> bool:
        """Whether `analyze` hands this file to LibCST (unless a limit stops it first)."""
        return bool(self.rules) or self.audit

    @property
    def codes(self) -> frozenset:
        """The codes of the rules that run on LibCST."""
        return frozenset(rule.CODE for rule in self.rules)


def screens(data: bytes, path: str, settings: Settings, classes: tuple | None = None) -> Screened:
    """The gate, the byte screens and the syntax screen of one file (see Screened), with
    `classes` (the rules' screens, or the Settings' rules when not given). The view's last file
    screened is kept in it: a caller that screens a file and then checks it (the runner, with
    the screens; the engine, with the rules) pays for the screens once."""
    settings = with_view(settings)
    classes = settings.rules if classes is None else classes
    view = view_of(settings)
    key = screens_key(path, settings)
    last = view.table("last screened").get(None)
    if last is not None and last[0] is data and last[1] == key and _same_screens(last[2], classes):
        view.consulted_again(last[3].depends)  # the check under way read them too, through this answer
        return last[3]
    parsed = view.table(PARSED_SCREENS)
    held = parsed.get(path)
    if held is not None and held[1] == key and _same_screens(held[2], classes) and held[0] == _digest(data):
        view.consulted_again(held[3].depends)
        return held[3]
    with view.recording() as seen:
        decided = _screens(data, path, settings, classes)
    if seen:
        decided = decided._replace(depends=frozenset(seen))
        view.consulted_again(seen)  # and for the check around this screening, if one is under way
    view.table("last screened")[None] = (data, key, classes, decided)
    return decided


def keep_screens(data: bytes, path: str, settings: Settings, decided: Screened) -> None:
    """Keep the screens' answer of a file the check under way parses (`settings`: that check's,
    with its view), for its check again under the run's plan (run.coordination), which no
    screen reads: context-forge's 1.26 MB test module was screened twice, 3 % of its project's
    check, sampled (issue 37). Kept without its `ast` tree (30 times the source)."""
    kept = view_of(settings).table(PARSED_SCREENS)
    held = kept.get(path)
    if decided.parses and (held is None or held[3] is not decided):  # (a check again's: kept already)
        kept[path] = (_digest(data), screens_key(path, settings), settings.rules, decided._replace(tree=None))


#: The view's table of the screens' answers `keep_screens` keeps, by path: (digest of the
#: bytes, screens_key, classes, Screened). Only the process that checked the file keeps one: a
#: pool worker checking a file the main process screened screens it again, its view knowing
#: more of the project by then. The main process's screens alone are more cautious: on
#: context-forge with every file screened before the fork, taken as they were, they left two
#: test modules and a 572 KB helper module's analysis to LibCST (29.9 s of CPU against 23.4 s
#: screening them again, one run each).
PARSED_SCREENS = "screens of parsed files"


def _digest(data: bytes) -> tuple:
    return len(data), blake2b(data, digest_size=16).digest()


def screens_key(path: str, settings: Settings) -> tuple:
    """What the screens read of the Settings besides the file (the rest, a fix run's plan above
    all, they never read): a recheck of the same bytes under another plan keeps their answer."""
    return (path, settings.select, settings.extend_apis, settings.max_file_size)


def _same_screens(kept: tuple, classes: tuple) -> bool:
    """Whether two tuples of classes screen alike: the same classes, or each a rule and the
    class of its screens, which it inherits (or the other way round)."""
    return kept is classes or (
        len(kept) == len(classes) and all(a is b or issubclass(a, b) or issubclass(b, a) for a, b in zip(kept, classes))
    )


def _screens(data: bytes, path: str, settings: Settings, classes: tuple) -> Screened:
    if not gate_open(data, settings, classes):
        return Screened()
    rules = tuple(
        rule
        for rule in classes
        if _gate_holds(data, rule, settings)
        and (
            rule.runs_on(data, settings) or (path and rule.screen_imports(data, path, settings) and rule.applies(data))
        )
    )
    # Stale suppressions are looked for in files the rules' gate lets through: an MCP file
    # keeps its imports after a migration, so a leftover noqa comment naming RT001 is still seen.
    audit = _may_hold_suppressions(data, settings) or _may_hold_markers(data, settings)
    if not rules or size_problem(data, settings) is not None:
        return Screened(True, rules, rules, audit, False)
    syntax = read_syntax(data, path, view_of(settings), keep=False)  # served, not kept
    if syntax is None:
        return Screened(True, rules, rules, audit, False)
    kept = tuple(rule for rule in rules if rule.screen_tree(syntax, settings))
    # (a tree read with its `type` aliases as assignments is the screens' only: see Syntax.exact)
    return Screened(True, rules, kept, audit, True, tree=syntax.tree if syntax.exact else None)


def _gate_holds(data: bytes, rule, settings: Settings) -> bool:
    """Whether `rule`'s own gate (core.rule.Rule.gate: bytes every file it can report on
    holds) holds, tested before its screens, which no file without it passes (a rule without
    one is not gated). The joined gate opens a file for all the rules; its own gate spares a
    rule's screens, up to ten searches of the whole file each, where another rule's token
    opened it (the word `Hint` for the Roots rules, `bootstrap`'s `oots` for the annotation
    rules). Asked through core.byte_code.holds, as the screens' tokens are: the gates share
    their tokens (`oots`, `mcp`) with each other and the screens, each searched for once."""
    tokens = rule.gate_tokens(settings)
    return not tokens or any(holds(data, token) for token in tokens)


def _may_hold_suppressions(data: bytes, settings: Settings) -> bool:
    """Stale suppressions are looked for only where a comment could name one of our codes. The
    markers are searched for through core.byte_code.holds, the two `lint-` ones only where
    `lint-` is: three searches of an MCP file without a marker where there were four, and the
    review marker's, asked next, is the answer kept (issue 37: these searches were 18 % of the
    samples of mcp-cli's byte screens, its import followers aside)."""
    if UNUSED_SUPPRESSION_CODE not in settings.select:
        return False
    if not any(holds(data, marker) for marker in _MARKERS_FIRST) and not (
        holds(data, b"lint-") and any(marker in data for marker in _LINT_MARKERS)
    ):
        return False
    return any(prefix in data for prefix in _code_prefixes())


#: MARKERS (core.suppress) without a common part, and those sharing `lint-`.
_LINT_MARKERS = tuple(marker for marker in MARKERS if marker.startswith(b"lint-"))
_MARKERS_FIRST = tuple(marker for marker in MARKERS if marker not in _LINT_MARKERS)


def _code_prefixes() -> tuple:
    return tuple(sorted({code[:3].encode() for code in load_catalog()}))


def _may_hold_markers(data: bytes, settings: Settings) -> bool:
    """Review markers are looked for only when RT901 is selected and the marker text occurs."""
    return REVIEW_PENDING_CODE in settings.select and holds(data, REVIEW_TOKEN)
