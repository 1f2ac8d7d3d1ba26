"""The named records a run passes around, with no work of their own: the options the CLI
resolved (CheckOptions), what a file's config decides beyond its Settings (FilePolicy), the
files of a run (Plan, FileRef), and what a check, a fix or a fix proposal gives back (RunResult,
FixOutcome, FixRun, FixProposal, StdinTarget). They sit below the per-file work and the pool,
which both hand them on, so neither has to import the other's module to name them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, MutableMapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from mcp_migrate.core.catalog import DEFAULT_FAIL_ON, fails
from mcp_migrate.core.findings import FileResult, Finding
from mcp_migrate.core.record import field, record
from mcp_migrate.project.regular import read_regular

if TYPE_CHECKING:  # names for the type checker only: these records are built before any is loaded
    from mcp_migrate.core.settings import Settings
    from mcp_migrate.project.baseline import BaselineOutcome
    from mcp_migrate.project.config import Config
    from mcp_migrate.project.discovery import SourceFile
    from mcp_migrate.project.overrides import Overrides
    from mcp_migrate.project.writer import Snapshot
    from mcp_migrate.run.applicability import FixPolicy


class Timer(Protocol):
    """What the run asks of a `-v` timer: the command line's prints (commands.timing.Timings),
    the default does nothing (Quiet)."""

    enabled: bool

    def note(self, text: str) -> None: ...

    def phase(self, name: str, detail=None) -> contextlib.AbstractContextManager: ...


class Quiet:
    """The timer of a run nobody asked to time (`-v` off): every call does nothing. The one
    that prints is the command line's (commands.timing.Timings); the run only calls it."""

    enabled = False

    def note(self, text: str) -> None:
        pass

    def phase(self, name: str, detail=None):
        return contextlib.nullcontext()

    def total(self) -> None:
        pass


#: The timer CheckOptions gives when `timings` is None.
QUIET = Quiet()


@record
class CheckOptions:
    """What the shared CLI options resolve to; codes are already split (`("RT", "RT004")`)."""

    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    config: str | None = None
    jobs: int = 0
    #: `--strategy` (None: the config's); `--force-exclude` (None: the config's).
    strategy: str | None = None
    force_exclude: bool | None = None
    #: Read and write the results cache (project.cache); `check --no-cache` turns it off.
    cache: bool = False
    #: Compute fix previews with the check (full text and SARIF output show them).
    previews: bool = False
    #: `--extend-select` codes, `--unsafe-fixes/--no-unsafe-fixes` and `--severity` (None: the config's).
    extend_select: Sequence[str] | None = None
    unsafe: bool | None = None
    #: `fix --apply-suggestions`: also apply the suggestions (display-only fixes).
    apply_suggestions: bool = False
    fail_on: str | None = None
    #: `--isolated`: read no config file; every file gets the defaults (and the flags).
    isolated: bool = False
    #: `-v`: phase timings on stderr (commands.timing.Timings); the default prints nothing.
    timings: Timer | None = None
    #: `--exclude`, `--extend-exclude`, `--per-file-ignores`, `--extend-per-file-ignores`,
    #: `--include-templates` (project.overrides.Overrides), laid over every config; None: none.
    overrides: Overrides | None = None

    @property
    def timer(self) -> Timer:
        return self.timings or QUIET


class FilePolicy(NamedTuple):
    """What a file's own config (and the flags) decide beyond its Settings: the lowest severity
    that fails the run for its findings, whether `fix` applies its unsafe fixes, and which
    fixes it may apply as what (run.applicability.FixPolicy)."""

    fail_on: str = DEFAULT_FAIL_ON
    unsafe_fixes: bool = False
    fixes: FixPolicy | None = None


@record
class RunResult:
    results: list = field(default_factory=list)
    files_checked: int = 0
    #: Explicitly named files that force-exclude skipped.
    skipped: int = 0
    #: Set when a baseline was applied (baseline.BaselineOutcome): matched and stale entries.
    baseline: BaselineOutcome | None = None
    #: display path -> FileRef, for reporters that need a file's bytes or Settings again (a
    #: dict, or a check's FileRefs).
    files: MutableMapping = field(default_factory=dict)
    #: Whether `mcp-migrate fix` applies unsafe fixes in this project (config or flag), so the
    #: summary's hints say what the command really does; the lowest failing severity; the
    #: rule pages' base URL (`docs-url`).
    unsafe_fixes: bool = False
    fail_on: str = DEFAULT_FAIL_ON
    docs_url: str | None = None
    #: (path, code, unsafe?) -> FixProposal, filled by `propose_fixes` for reporters that show
    #: fixes (SARIF, the full text format): reporters only report, they never run the fixer.
    fixes: dict = field(default_factory=dict)
    #: One-line warnings about the run itself (an unusable results cache), printed on stderr.
    warnings: list = field(default_factory=list)
    #: A `fix` run: results carry what was applied (FileResult.applied), which the JSON
    #: document reports as fixed and marked for review.
    fix_run: bool = False

    @property
    def failing(self) -> list:
        """The findings that make the run exit 1 (severity at or above their file's `fail-on`)."""
        return [f for f in self.findings if fails(f.severity, self.fail_on_for(f.path))]

    def _policy(self, path: str) -> FilePolicy | None:
        ref = self.files.get(path)
        return getattr(ref, "policy", None)

    def fail_on_for(self, path: str) -> str:
        """The `fail-on` of the file's own config (or the flag); the run's for other results."""
        policy = self._policy(path)
        return policy.fail_on if policy is not None else self.fail_on

    def unsafe_fixes_for(self, path: str) -> bool:
        """Whether `mcp-migrate fix` applies unsafe fixes to this file (its config, or the flag)."""
        policy = self._policy(path)
        return policy.unsafe_fixes if policy is not None else self.unsafe_fixes

    @property
    def findings(self) -> list:
        return sorted((f for r in self.results for f in r.findings), key=Finding.sort_key)

    @property
    def errors(self) -> list:
        return [e for r in self.results for e in r.errors]

    @property
    def suppressed(self) -> list:
        """Findings silenced by inline comments (core.findings.Suppressed), sorted by position."""
        return sorted((s for r in self.results for s in r.suppressed), key=lambda s: s.finding.sort_key())


class FileRef(NamedTuple):
    """Where a checked file's bytes come from (`data` for standard input), its Settings and
    its FilePolicy (None: the run's)."""

    path: str | None
    settings: Settings
    data: bytes | None = None
    policy: FilePolicy | None = None

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        return read_regular(self.path, max_size=getattr(self.settings, "max_file_size", 0))[0]


class FileRefs(MutableMapping):
    """display path -> FileRef of a run's files, each made when asked for from the plan's
    (SourceFile, Settings) pair and the file's FilePolicy; a FileRef put in (a file checked
    again under other Settings) stands for its file from then on. A dict of FileRefs held one
    record a file for the whole run (issue 37: 1.9 MB for 16 copies of a 1,151-file tree)."""

    def __init__(self, items: list, policies: dict) -> None:
        self._items = {source.display: (source, settings) for source, settings in items}
        self._policies = policies
        self._put: dict = {}

    def __getitem__(self, display: str) -> FileRef:
        found = self._put.get(display)
        if found is not None:
            return found
        source, settings = self._items[display]
        return FileRef(source.path, settings, None, self._policies.get(display))

    def __setitem__(self, display: str, ref: FileRef) -> None:
        if display not in self._items:
            self._items[display] = (None, None)  # (never read: `_put` answers first)
        self._put[display] = ref

    def __delitem__(self, display: str) -> None:
        del self._items[display]
        self._put.pop(display, None)

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, display) -> bool:
        return display in self._items


@record(frozen=True)
class Plan:
    """The files of a run with their Settings: [(SourceFile, Settings)], plus unreadable dirs.
    `config` is the run's own (the first path's, or `--config`); `policies` maps each file's
    display path to the FilePolicy of its own config."""

    items: list
    unreadable: list
    config: Config
    skipped: int = 0
    policies: dict = field(default_factory=dict)
    #: Every config file the run's files resolved to (display path -> number of files).
    config_files: dict = field(default_factory=dict)
    #: One-line warnings from discovery (an ignore file or a config file that cannot be read).
    warnings: tuple = ()
    #: Display paths of the template folders discovery skipped (`--show-files`, `-v` say them).
    templates: tuple = ()


@record
class FixOutcome:
    """One file of a fix run: its result (findings that remain, fixes applied, the new bytes)
    and the snapshot of what was read, so the writer can refuse to clobber concurrent edits."""

    source: SourceFile
    result: FileResult
    snapshot: Snapshot | None = None
    settings: Settings | None = None
    #: The file's FixPolicy (run.applicability), for re-checking an unwritten file.
    policy: FixPolicy | None = None


@record
class FixRun:
    """What a fix run computed (nothing written yet): one FixOutcome per file, the E902 results
    of folders that could not be read, and the counts the summary needs."""

    outcomes: list = field(default_factory=list)
    files_checked: int = 0
    unreadable: list = field(default_factory=list)
    #: Explicitly named files that force-exclude skipped.
    skipped: int = 0
    #: run_policy(): unsafe_fixes, fail_on, docs_url.
    policy: dict = field(default_factory=dict)
    #: display path -> FilePolicy of the file's own config.
    policies: dict = field(default_factory=dict)
    #: One-line warnings about the run itself (an ignore file that cannot be read).
    warnings: list = field(default_factory=list)
    #: Keeps the outcomes of the files the fix leaves unchanged in the results cache, given the
    #: fix proposals the report made ({} when it made none); None without the cache.
    keep: Callable | None = None


@record(frozen=True)
class StdinTarget:
    """`--stdin-filename PATH -`: the source comes from standard input but gets PATH's config,
    per-file ignores and force-exclude verdict. `settings` is None when PATH is excluded."""

    display: str
    settings: Settings | None
    config: Config
    #: One-line warnings: config files below the current folder that cannot be read.
    warnings: tuple = ()


class FixProposal(NamedTuple):
    """One rule's fixes in one file, computed but not written: the bytes before and after."""

    old: bytes
    new: bytes
