"""A small gitignore-pattern matcher (the only runtime deps allowed are libcst, click, rich).

Used three ways: `.gitignore` files while walking, the config's `exclude` / `extend-exclude`,
and `per-file-ignores` globs. Supported: comments, `\\#` / `\\!` escapes, trailing-space
rules, negation `!`, anchoring (`/x` or any inner `/`), directory-only `x/`, `**`, `*`, `?`,
`[...]`. Within one pattern list the last match wins; deeper `.gitignore` files win over
shallower ones (see `IgnoreStack`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import cast

from mcp_migrate.core.record import record
from mcp_migrate.project.paths import display_path
from mcp_migrate.project.regular import read_regular


@record(frozen=True)
class Pattern:
    source: str
    #: The regular expression of the whole pattern (anchored at both ends), compiled only
    #: where it is asked for: most lines of a `.gitignore` are told by `name` or `suffix`.
    expression: str
    negated: bool
    dir_only: bool
    #: The pattern's whole meaning where it is a plain name (`node_modules`: the last path
    #: part equals it) or a name ending (`*.log`: the last part ends with it); None otherwise.
    name: str | None = None
    suffix: str | None = None
    #: The expression of the last path part alone, for a pattern that says nothing of the folders
    #: above it (no `/`: `tmp*`, `.coverage.*`): matching it on the last part is matching
    #: `expression` on the path. None for a pattern with a `/`.
    last_part: str | None = None

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.expression, re.DOTALL)


#: Characters that make a pattern more than a plain name (a glob, an escape, a path).
_NOT_PLAIN = frozenset("/*?[\\")


def _bracket(pat: str, i: int, git: bool = True):
    """Translate the `[...]` starting at pat[i]; returns (regex, next index) or None if unclosed.
    A backwards range (`[z-a]`) is what git's wildmatch makes of it, its first character alone
    (`git check-ignore` says so); not `git`, it is left for the regex compiler to refuse."""
    j = i + 1
    negated = j < len(pat) and pat[j] in "!^"
    if negated:
        j += 1
    parts: list[str] = []
    first = True
    previous: str | None = None  # the last character that can start a range
    while j < len(pat) and (pat[j] != "]" or first):
        ch = pat[j]
        # In git, only a character that is not a range's end starts one: after a range a `-` is
        # itself, escaped (after a backwards range, dropped, the regex would read it as a range
        # from the character before: `[9-0-0]` raised re.error).
        starts = previous is not None if git else bool(parts)
        if ch == "-" and starts and j + 1 < len(pat) and pat[j + 1] != "]":
            escaped = pat[j + 1] == "\\" and j + 2 < len(pat)
            end = pat[j + 2] if escaped else pat[j + 1]
            if not (git and previous is not None and end < previous):  # wildmatch: none in [z-a]
                parts.append("-")
                parts.append(re.escape(end))
            j += 3 if escaped else 2
            first = False
            previous = None
            continue
        if ch == "\\" and j + 1 < len(pat):
            j += 1
            ch = pat[j]
        parts.append(re.escape(ch))
        previous = ch
        first = False
        j += 1
    if j >= len(pat):
        return None
    body = "".join(parts)
    return ("[^/" + body + "]" if negated else "(?!/)[" + body + "]"), j + 1


def translate(pat: str, git: bool = True) -> str:
    """Regex body for one pattern (no anchoring, no leading `/`, no trailing `/`); `git`: as
    `_bracket` says."""
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            j = i
            while j < n and pat[j] == "*":
                j += 1
            starts = i == 0 or pat[i - 1] == "/"
            ends = j == n or pat[j] == "/"
            if j - i >= 2 and starts and ends:
                if j == n:
                    out.append(".*")  # `x/**`: everything inside; bare `**`: everything
                    i = j
                else:
                    out.append("(?:.*/)?")  # `**/`: zero or more directories
                    i = j + 1
                continue
            out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            got = _bracket(pat, i, git)
            if got is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(got[0])
                i = got[1]
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _strip_trailing_spaces(line: str) -> str:
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    return line


def compile_pattern(line: str, strict: bool = False) -> Pattern | None:
    """One gitignore line -> Pattern, or None for blanks and comments. `strict`, for a config's
    own glob (checked before use, as ruff refuses it): a backwards range raises re.error; a
    `.gitignore` line gets git's reading of it instead."""
    source = line
    line = _strip_trailing_spaces(line.rstrip("\r\n"))
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    if dir_only:
        line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    body = translate(line[1:] if line.startswith("/") else line, git=not strict)
    prefix = "" if anchored else "(?:.*/)?"
    name = line if _NOT_PLAIN.isdisjoint(line) else None
    suffix = line[1:] if line.startswith("*") and _NOT_PLAIN.isdisjoint(line[1:]) else None
    # Without a `/`, `translate` writes no expression that matches one but a line of `*`s' `.*`,
    # which matches any last part as it matches any path.
    last_part = None if anchored else "^" + body + r"\Z"
    pattern = Pattern(source, "^" + prefix + body + r"\Z", negated, dir_only, name, suffix, last_part)
    if strict:
        pattern.regex  # noqa: B018 - compiled now: a malformed glob raises here, not mid-walk
    return pattern


def parse_patterns(lines: Iterable[str]) -> list:
    return [p for p in (compile_pattern(line) for line in lines) if p is not None]


def glob_problem(glob: str) -> str | None:
    """What is wrong with one exclude / per-file-ignores glob, or None."""
    body = glob[1:] if glob.startswith("!") else glob
    if not body.strip(" /"):
        return "empty pattern"
    if (len(body) - len(body.rstrip("\\"))) % 2:
        return "ends with a lone backslash"
    index = _unclosed_bracket(body)
    if index is not None:
        return f"'[' at position {index + 1} is never closed"
    try:
        compile_pattern(glob, strict=True)
    except re.error as exc:  # e.g. a range written backwards, `[z-a]`
        return exc.msg
    return None


def _unclosed_bracket(body: str) -> int | None:
    """The index of a `[` with no `]` to close it (gitignore rules: `\\` escapes the next
    character; a `]` right after `[` or `[!` is a member, not the end)."""
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 2
            continue
        if body[i] == "[":
            j = i + 1
            if j < len(body) and body[j] in "!^":
                j += 1
            first = True  # the first member may be `]`
            while j < len(body) and (body[j] != "]" or first):
                j += 2 if body[j] == "\\" else 1
                first = False
            if j >= len(body):
                return i
            i = j
        i += 1
    return None


class PatternSet:
    """Patterns relative to one base folder, e.g. one `.gitignore` or the config's excludes."""

    def __init__(self, base: str, patterns: Sequence[Pattern]):
        self.base = os.path.abspath(base)
        self._prefix = self.base.rstrip(os.sep) + os.sep
        self.patterns = list(patterns)
        # Most lines of a real .gitignore are plain names and `*.ext` endings: those are told
        # by the path's last part, without a regex each; their order still decides (`verdict`).
        self._by_name: dict = {}
        self._suffixes: list = []
        self._others: list = []
        #: is_dir -> (the other patterns that apply, last first; one regex of them all)
        self._joined: dict = {}
        for index, pat in enumerate(self.patterns):
            if pat.name is not None:
                self._by_name.setdefault(pat.name, []).append((index, pat))
            elif pat.suffix is not None:
                self._suffixes.append((index, pat.suffix, pat))
            else:
                self._others.append((index, pat))
        #: Every ending at once, for one `endswith` that tells a name none of them ends (most
        #: names: a Python .gitignore's 20-odd endings were tried one call each, 121,000 calls
        #: for agent-framework's walk, issue 37).
        self._endings = tuple(suffix for _, suffix, _ in self._suffixes)

    @classmethod
    def from_lines(cls, base: str, lines: Iterable[str]) -> PatternSet:
        return cls(base, parse_patterns(lines))

    def relative(self, path: str) -> str:
        """`path` relative to the base with `/` separators; outside the base, the whole path
        (so unanchored patterns such as `build/` still match by name)."""
        # The walk's paths are absolute and lie under the base almost always: slice instead of
        # relpath, and ask whether the path is absolute only where it is not there (the prefix is).
        if not path.startswith(self._prefix) and not os.path.isabs(path):
            path = os.path.abspath(path)
        if path.startswith(self._prefix):
            return path[len(self._prefix) :].replace(os.sep, "/")
        if os.sep == "/" and path != self.base and path == os.path.normpath(path):
            # A normalised path outside the base (a tree beside the config's folder): what the
            # relpath below would conclude, without its cost on every walked entry.
            return path.lstrip("\\/")
        try:
            rel = os.path.relpath(path, self.base)
        except ValueError:  # another drive on Windows
            rel = os.pardir
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            rel = os.path.splitdrive(path)[1].lstrip("\\/")
        return rel.replace(os.sep, "/")

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by `!`, None when no pattern matches: the last
        pattern that matches decides. Plain names are looked up by the path's last part and
        endings tested on it; a regex runs only for a pattern that could come later than both."""
        if not self.patterns:
            return None
        rel = self.relative(path)
        last = rel.rpartition("/")[2]
        best, found = -1, None
        for index, pat in reversed(self._by_name.get(last, ())):
            if is_dir or not pat.dir_only:
                best, found = index, pat
                break
        for index, suffix, pat in reversed(self._suffixes) if last.endswith(self._endings) else ():
            if index < best:
                break
            if (is_dir or not pat.dir_only) and last.endswith(suffix):
                best, found = index, pat
                break
        if self._others:
            other = self._last_other(rel, last, is_dir)
            if other is not None and other[0] > best:
                return not other[1].negated
        return None if found is None else not found.negated

    def _last_other(self, rel: str, last: str, is_dir: bool) -> tuple | None:
        """(index, pattern) of the last pattern neither a name nor an ending that matches `rel`
        (`last`: its last part): the later of the last such pattern of the last part alone
        (`Pattern.last_part`) and the last of the others, each found by one regex of all of
        them, last first. Tried on the whole path, a pattern of the last part tries every `/`
        of it (`^(?:.*/)?tmp[^/]*\\Z`): agent-framework's root `.gitignore` has 32 such
        patterns, tried on 3,250 paths, a quarter of its discovery's instructions (issue 37)."""
        joined = self._joined.get(is_dir)
        if joined is None:
            applying = [(index, pat) for index, pat in reversed(self._others) if is_dir or not pat.dir_only]
            of_last = [(index, pat) for index, pat in applying if pat.last_part is not None]
            of_path = [(index, pat) for index, pat in applying if pat.last_part is None]
            joined = self._joined[is_dir] = (
                (of_last, _joined_regex([pat.last_part for _, pat in of_last])),
                (of_path, _joined_regex([pat.expression for _, pat in of_path])),
            )
        found = None
        for (candidates, regex), text in zip(joined, (last, rel)):
            match = regex.match(text) if regex is not None else None
            if match is not None:
                # (each alternative is one group: a match always has a lastindex)
                hit = candidates[cast(int, match.lastindex) - 1]
                if found is None or hit[0] > found[0]:
                    found = hit
        return found

    def matches(self, path: str, is_dir: bool = False) -> bool:
        return bool(self.verdict(path, is_dir))

    def matches_with_parents(self, path: str) -> bool:
        """Whether a file or any folder above it (below the base) matches: `tests/` covers
        `tests/a/b.py`. For globs over file lists, where no walk prunes folders."""
        if self.matches(path):
            return True
        parts = self.relative(path).split("/")[:-1]
        for depth in range(len(parts), 0, -1):
            if self.matches(os.path.join(self.base, *parts[:depth]), is_dir=True):
                return True
        return False


def _joined_regex(expressions: list) -> re.Pattern | None:
    """One regex of `expressions`, each one group, in order: the first alternative that matches
    is the first expression that does (an expression holds no group of its own: `translate`
    writes `(?:` and `(?!`). None for none."""
    return re.compile("|".join(f"({expression})" for expression in expressions), re.DOTALL) if expressions else None


class PatternLayers:
    """Pattern sets with different base folders matched as one list, the last match deciding
    (the config's excludes relative to its folder, the command line's to the current one)."""

    def __init__(self, layers: Sequence[PatternSet]):
        self.layers = list(layers)

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        found = None
        for layer in self.layers:
            verdict = layer.verdict(path, is_dir)
            if verdict is not None:
                found = verdict
        return found

    def matches(self, path: str, is_dir: bool = False) -> bool:
        return bool(self.verdict(path, is_dir))

    def matches_with_parents(self, path: str) -> bool:
        """As PatternSet's: the file, or a folder above it, each layer judging only the folders
        below its own base."""
        if self.matches(path):
            return True
        full = os.path.abspath(path)
        parent = os.path.dirname(full)
        while parent != os.path.dirname(parent):
            found = None
            for layer in self.layers:
                if parent.startswith(layer.base.rstrip(os.sep) + os.sep):
                    verdict = layer.verdict(parent, True)
                    if verdict is not None:
                        found = verdict
            if found:
                return True
            parent = os.path.dirname(parent)
        return False


def _lines(path: str) -> list:
    """The lines of a git file (an empty file reads as one empty line), read only when it
    is a regular file: a `.gitignore` that is a FIFO must not block the run (OSError instead)."""
    return read_regular(path)[0].decode("utf-8", errors="replace").splitlines(keepends=True) or [""]


def read_gitignore(folder: str, warnings: list | None = None) -> PatternSet | None:
    """The `.gitignore` of `folder` as a PatternSet, or None when absent/unreadable/empty. One
    that exists but cannot be read (permissions, not a regular file) is said in `warnings`."""
    path = os.path.join(folder, ".gitignore")
    try:
        patterns = parse_patterns(_lines(path))
    except OSError as exc:
        _unreadable(path, exc, warnings)
        return None
    return PatternSet(folder, patterns) if patterns else None


def _unreadable(path: str, exc: OSError, warnings: list | None) -> None:
    """One line for a git ignore file that exists and cannot be read: the files it would
    ignore are checked, which the user should know (it was silent)."""
    if warnings is None or isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        return

    warnings.append(f"cannot read {display_path(path)}: {exc.strerror or exc}; its patterns are not applied")


def git_dir(git_root: str) -> str | None:
    """The repository's common git folder: `.git` itself, or for a worktree or submodule (a
    `.git` file saying `gitdir: ...`) the folder it names, or that folder's `commondir`."""
    dot_git = os.path.join(git_root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        first = _lines(dot_git)[0].strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    folder = os.path.join(git_root, first[len("gitdir:") :].strip())
    try:
        return os.path.normpath(os.path.join(folder, _lines(os.path.join(folder, "commondir"))[0].strip()))
    except OSError:
        return os.path.normpath(folder)


def read_info_exclude(git_root: str, warnings: list | None = None) -> PatternSet | None:
    """`.git/info/exclude` as a PatternSet based at the repository root, or None."""
    folder = git_dir(git_root)
    if folder is None:
        return None
    path = os.path.join(folder, "info", "exclude")
    try:
        patterns = parse_patterns(_lines(path))
    except OSError as exc:
        _unreadable(path, exc, warnings)
        return None
    return PatternSet(git_root, patterns) if patterns else None


def walk_up(folder: str):
    """`folder` (made absolute) and each folder above it, up to the filesystem root."""
    folder = os.path.abspath(folder)
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def find_git_root(folder: str) -> str | None:
    """The nearest folder at or above `folder` that contains `.git` (dir or file)."""
    return next((f for f in walk_up(folder) if os.path.exists(os.path.join(f, ".git"))), None)


class IgnoreStack:
    """The `.gitignore` files in force for one folder, shallowest first. Immutable: `child()`
    returns a new stack, so sibling subtrees never see each other's files."""

    def __init__(self, levels: tuple = (), warnings: list | None = None):
        self.levels = levels
        #: Where ignore files that exist but cannot be read are said (shared by every child).
        self.warnings = warnings

    @classmethod
    def for_root(cls, root: str, warnings: list | None = None) -> IgnoreStack:
        """Stack for walking `root`: `.gitignore` files from the git root down to `root`.
        Outside a repository only `root` itself (and, later, its subfolders) count. Ignore
        files that cannot be read are said in `warnings`."""
        root = os.path.abspath(root)
        git_root = find_git_root(root)
        top = git_root or root
        folders = [root]
        while folders[-1] != top:
            parent = os.path.dirname(folders[-1])
            if parent == folders[-1]:
                break
            folders.append(parent)
        stack = cls(warnings=warnings)
        if git_root is not None:
            stack = stack.with_info_exclude(git_root)
        for folder in reversed(folders):
            stack = stack.child(folder)
        return stack

    def with_info_exclude(self, git_root: str) -> IgnoreStack:
        """The repository's `.git/info/exclude` under every `.gitignore` (git gives it the lowest
        priority): private ignores a user keeps out of the tracked files."""
        found = read_info_exclude(git_root, self.warnings)
        return IgnoreStack((found,) + self.levels, self.warnings) if found else self

    def child(self, folder: str) -> IgnoreStack:
        found = read_gitignore(folder, self.warnings)
        return IgnoreStack(self.levels + (found,), self.warnings) if found else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        for level in reversed(self.levels):
            verdict = level.verdict(path, is_dir)
            if verdict is not None:
                return verdict
        return False
