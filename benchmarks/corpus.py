#!/usr/bin/env python3
"""Recall benchmark for mcp_migrate over a corpus of real repositories.

Run the tool over exported repositories and compare its findings with hand-made labels:

    python benchmarks/corpus.py --repos DIR [--labels FILE] [--negatives FILE]
                                [--tool "python -m mcp_migrate"] [--verbose] [--json]

Export the labelled repositories from bare git snapshots first:

    python benchmarks/corpus.py export --mirrors /work/.mirror --to DIR

List every line of Roots vocabulary with no finding near it, and what accounts for it:

    python benchmarks/corpus.py audit --repos DIR [--tool ...] [--set tuned|first-look|first-look-38-62|audit-30]

Three label sets are scored apart: ``corpus/labels.toml`` (rows 1-20, the rules were tuned on
them), ``corpus/firstlook/*.toml`` (rows 21-37, labelled before any rule was changed for
them: the first look) and ``corpus/firstlook-38-62/*.toml`` (rows 38-62, labelled by others
by category letter, converted by ``shared_labels.py``); a fourth, ``corpus/audit-30/*.toml``,
names the thirty unlabelled repositories of issue 35 §5 (``repos.toml``: ``[[repo]]`` tables
only) and what their review found, so the audit can run on them. ``--set NAME`` runs and scores
one set only; ``--window N`` lets a finding up to N lines below a label's line count (default: each
label's own ``window``, 0 unless the label says; the converted rows 38-62 say 5).

DIR holds one folder per repository, named ``<owner>+<name>``. The label format is described
in benchmarks/README.md. Standard library only (plus ``tomli`` on Python < 3.11).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ImportError:
        tomllib = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
DEFAULT_LABELS = HERE / "corpus" / "labels.toml"
DEFAULT_NEGATIVES = HERE / "corpus" / "negatives.toml"
DEFAULT_FIRST_LOOK = HERE / "corpus" / "firstlook"
DEFAULT_FIRST_LOOK_38_62 = HERE / "corpus" / "firstlook-38-62"
DEFAULT_AUDIT_30 = HERE / "corpus" / "audit-30"
#: The label sets: where each label file comes from decides the set of its labels.
SETS = ("tuned", "first-look", "first-look-38-62", "audit-30")
#: A vocabulary line is explained by a finding or a label this many lines away or closer.
AUDIT_WINDOW = 3

REQUIRED = {
    "label": ("repo", "commit", "path", "line", "code"),
    "wrong": ("repo", "commit", "path", "line", "code"),
    "negative": ("repo", "commit", "path"),
    "not_finding": ("repo", "commit", "path", "lines", "note"),
    "repo": ("repo", "commit"),
    "construction": ("repo", "commit", "path", "line"),
}


class InputError(Exception):
    """Bad input (missing or malformed label file): reported on one line, exit status 2."""


# --------------------------------------------------------------------------- label files


@dataclass
class Corpus:
    """Everything the label files say: labels, known false positives, negatives, repos."""

    labels: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    negatives: list = field(default_factory=list)
    #: Lines with Roots vocabulary that are no finding, with the reason (the audit's record).
    not_findings: list = field(default_factory=list)
    repos: dict = field(default_factory=dict)  # "owner/name" -> {"commit": ..., "exclude": [...]}
    #: Labelled lines no rule is scored on (rows 38-62's category G, root construction).
    constructions: list = field(default_factory=list)
    #: Labels a later decision took out of a rule's scope (``retired = "why"``): kept with the
    #: labels they were, listed, not scored.
    retired: list = field(default_factory=list)
    #: Repository -> the label sets of the files that name it (a repository can hold negatives
    #: of one set and labels of another: sympy, the AWS samples).
    sets: dict = field(default_factory=dict)

    def commits(self) -> dict:
        """Map each repository named anywhere to its commit; conflicting commits are an error."""
        found: dict = {}
        for entry in self.labels + self.wrong + self.negatives + self.not_findings + list(self.repos.values()):
            known = found.setdefault(entry["repo"], entry["commit"])
            if known != entry["commit"]:
                raise InputError(f"{entry['repo']} is pinned to two commits: {known} and {entry['commit']}")
        return found

    def excludes(self, repo: str) -> list:
        """Path prefixes excluded from scoring (and export) for ``repo``."""
        return list(self.repos.get(repo, {}).get("exclude", []))


def load_toml(path: Path) -> dict:
    """Parse one TOML file, turning every failure into an InputError."""
    if tomllib is None:
        raise InputError("reading TOML needs Python >= 3.11 or the 'tomli' package")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{path}: {exc}") from None


def checked_entries(data: dict, kind: str, source: Path) -> list:
    """The ``[[kind]]`` tables of a parsed file, after checking their required fields."""
    entries = data.get(kind, [])
    if not isinstance(entries, list):
        raise InputError(f"{source}: '{kind}' must be an array of tables ([[{kind}]])")
    for number, entry in enumerate(entries, 1):
        missing = [key for key in REQUIRED[kind] if key not in entry]
        if missing:
            raise InputError(f"{source}: [[{kind}]] #{number} lacks {', '.join(missing)}")
        if "line" in entry and not isinstance(entry["line"], int):
            raise InputError(f"{source}: [[{kind}]] #{number} has a non-integer line")
        if "lines" in entry and not (
            isinstance(entry["lines"], list) and all(isinstance(n, int) for n in entry["lines"])
        ):
            raise InputError(f"{source}: [[{kind}]] #{number}: lines must be a list of integers")
        if "path" in entry:
            entry["path"] = str(PurePosixPath(entry["path"]))
    return entries


def add_file(corpus: Corpus, path: Path, label_set: str = "tuned") -> None:
    """Merge the tables of one label or negatives file into ``corpus``; every table of it, and
    the repositories it names, belong to ``label_set``."""
    data = load_toml(path)
    tables = {kind: checked_entries(data, kind, path) for kind in REQUIRED}
    for entries in tables.values():
        for entry in entries:
            entry["set"] = label_set
            corpus.sets.setdefault(entry["repo"], set()).add(label_set)
    corpus.labels += [entry for entry in tables["label"] if "retired" not in entry]
    corpus.retired += [entry for entry in tables["label"] if "retired" in entry]
    corpus.wrong += tables["wrong"]
    corpus.negatives += tables["negative"]
    corpus.not_findings += tables["not_finding"]
    corpus.constructions += tables["construction"]
    for entry in tables["repo"]:
        if not isinstance(entry.get("exclude", []), list):
            raise InputError(f"{path}: [[repo]] {entry['repo']}: exclude must be a list")
        corpus.repos[entry["repo"]] = entry


def load_corpus(
    labels: Path,
    negatives: Path | None,
    negatives_required: bool,
    first_look: Path | None = None,
    first_look_38_62: Path | None = None,
    audit_30: Path | None = None,
) -> Corpus:
    """Read the labels file (required), the negatives file (optional unless named) and the
    first-look and audit folders' files (when a folder exists)."""
    corpus = Corpus()
    add_file(corpus, labels)
    if negatives is not None and (negatives_required or negatives.exists()):
        add_file(corpus, negatives)
    folders = ((first_look, "first-look"), (first_look_38_62, "first-look-38-62"), (audit_30, "audit-30"))
    for folder, label_set in folders:
        if folder is not None and folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                add_file(corpus, path, label_set)
    corpus.commits()  # rejects a repository pinned to two commits
    return corpus


def only_set(corpus: Corpus, label_set: str | None) -> Corpus:
    """The tables of ``corpus`` that come from ``label_set``'s files, and the repositories they
    name (all of it for None). A repository named by two sets keeps only this set's tables."""
    if label_set is None:
        return corpus
    keep = lambda entries: [e for e in entries if e.get("set", "tuned") == label_set]  # noqa: E731
    mine = {repo for repo, names in corpus.sets.items() if label_set in names}
    return Corpus(
        labels=keep(corpus.labels),
        wrong=keep(corpus.wrong),
        negatives=keep(corpus.negatives),
        not_findings=keep(corpus.not_findings),
        repos={repo: entry for repo, entry in corpus.repos.items() if repo in mine},
        constructions=keep(corpus.constructions),
        retired=keep(corpus.retired),
        sets={repo: {label_set} for repo in mine},
    )


def folder_name(repo: str) -> str:
    """``owner/name`` -> ``owner+name``, the folder layout of --repos and --mirrors."""
    return repo.replace("/", "+", 1)


def is_excluded(path: str, prefixes: list) -> bool:
    """True when ``path`` (relative, POSIX) starts with one of the excluded prefixes."""
    return any(path.startswith(prefix) for prefix in prefixes)


# --------------------------------------------------------------------------- running the tool


def tool_output(command: list, folder: Path) -> subprocess.CompletedProcess:
    """Run ``<tool> check --format json --exit-zero <folder>``; retry without --exit-zero if unknown."""
    base = command + ["check", "--format", "json"]
    done = subprocess.run(base + ["--exit-zero", str(folder)], capture_output=True, text=True)
    if done.returncode == 2 and "--exit-zero" in done.stderr:
        done = subprocess.run(base + [str(folder)], capture_output=True, text=True)
    return done


def relative_path(reported: str, folder: Path) -> str:
    """A finding's path made relative to the repository folder, in POSIX form."""
    path = Path(reported)
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        return path.resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return Path(reported).as_posix()


def last_line(text: str) -> str:
    """The last non-empty line of a tool's standard error, for a one-line diagnosis."""
    return (text.strip().splitlines() or ["no error output"])[-1]


def run_tool(command: list, repo: str, folder: Path, excludes: list) -> list:
    """Findings of the tool on one repository folder, as dicts with a ``repo`` key added."""
    done = tool_output(command, folder)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"exit status {done.returncode}: {last_line(done.stderr)}")
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"output is not JSON: {last_line(done.stderr)}") from None
    findings = []
    for item in report.get("findings", []):
        path = relative_path(item["path"], folder)
        if not is_excluded(path, excludes):
            findings.append(dict(item, repo=repo, path=path))
        findings += caller_locations(item, repo, folder, excludes)
    return findings


#: The message of a helper's caller, listed as a related location of the helper's finding
#: (mcp_migrate.core.callers.CALLED_FROM).
CALLED_FROM = "called from here"


def caller_locations(item: dict, repo: str, folder: Path, excludes: list) -> list:
    """The callers a finding lists as related locations ("called from here"), each as a finding
    of the same code at the caller's line with ``caller = True``. Since the tool folds a
    helper's callers into the helper's finding, a label on a caller is found by that related
    location; the entries count for recall and in negative files, and are left out of the lists
    of findings on unlabelled lines (they belong to a finding already listed)."""
    found = []
    for related in item.get("related") or ():
        if related.get("message") != CALLED_FROM:
            continue
        path = relative_path(related["path"], folder)
        if not is_excluded(path, excludes):
            found.append(
                {
                    "code": item["code"],
                    "path": path,
                    "line": related["line"],
                    "column": related.get("column", 0),
                    "message": f"{CALLED_FROM} ({item['path']}:{item['line']})",
                    "repo": repo,
                    "caller": True,
                }
            )
    return found


@dataclass
class Run:
    """The tool's findings over the corpus, and which repositories were scanned."""

    findings: list = field(default_factory=list)
    present: set = field(default_factory=set)  # repositories scanned
    missing: list = field(default_factory=list)  # repositories without a folder
    problems: list = field(default_factory=list)  # one line per failed tool run


def collect_findings(corpus: Corpus, repos_dir: Path, command: list, verbose: bool) -> Run:
    """Run the tool once on every repository the label files name whose folder is present."""
    run = Run()
    for repo in sorted(corpus.commits()):
        folder = repos_dir / folder_name(repo)
        if not folder.is_dir():
            run.missing.append(repo)
            continue
        if verbose:
            print(f"running {shlex.join(command)} check on {folder}", file=sys.stderr)
        try:
            run.findings += run_tool(command, repo, folder, corpus.excludes(repo))
            run.present.add(repo)
        except (OSError, RuntimeError) as exc:
            run.problems.append(f"{repo}: the tool failed, repository skipped: {exc}")
    return run


# --------------------------------------------------------------------------- scoring


def key(entry: dict) -> tuple:
    """Identity of a label or finding: repository, path, line and rule code."""
    return (entry["repo"], entry["path"], entry["line"], entry["code"])


def recall_row(labelled: int, found: int) -> dict:
    """One row of the recall table."""
    recall = round(100.0 * found / labelled, 1) if labelled else None
    return {"labelled": labelled, "found": found, "missed": labelled - found, "recall": recall}


def window_of(label: dict, window: int | None) -> int:
    """How many lines below its own line a label may be found: ``--window`` when given, else
    the label's ``window`` (0: the same line, the rule of rows 1-37); with ``--construct``, at
    least to the end of the construct that begins on the label's line (``span``)."""
    own = window if window is not None else int(label.get("window", 0))
    return max(own, label.get("span", 0))


def construct_spans(corpus: Corpus, repos_dir: Path) -> None:
    """Give each label a ``span``: how many lines below its line the outermost statement or
    definition beginning on that line (a decorated definition begins at its first decorator)
    ends. A finding inside that construct is then a finding of the label (``--construct``)."""
    import ast

    ends: dict = {}
    for label in corpus.labels + corpus.constructions:
        where = (label["repo"], label["path"])
        if where not in ends:
            ends[where] = {}
            try:
                source = (repos_dir / folder_name(label["repo"]) / label["path"]).read_bytes()
                tree = ast.parse(source)
            except (OSError, SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.stmt):
                    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                    ends[where][first] = max(ends[where].get(first, 0), node.end_lineno or node.lineno)
        end = ends[where].get(label["line"])
        if end is not None:
            label["span"] = end - label["line"]


def matches(label: dict, finding: dict, window: int | None) -> bool:
    """A finding of the label's code in the label's file, on its line or up to its window below."""
    return (
        label["repo"] == finding["repo"]
        and label["path"] == finding["path"]
        and label["code"] == finding["code"]
        and label["line"] <= finding["line"] <= label["line"] + window_of(label, window)
    )


def _by_file(entries: list) -> dict:
    index: dict = {}
    for entry in entries:
        index.setdefault((entry["repo"], entry["path"]), []).append(entry)
    return index


def score(corpus: Corpus, run: Run, window: int | None = None) -> dict:
    """Compare findings with labels, negatives and known false positives."""
    findings, present = run.findings, run.present
    findings_in = _by_file(findings)
    scored = [lab for lab in corpus.labels if lab["repo"] in present]

    def is_found(lab: dict) -> bool:
        return any(matches(lab, f, window) for f in findings_in.get((lab["repo"], lab["path"]), ()))

    hits = [lab for lab in scored if is_found(lab)]
    missed = [lab for lab in scored if not is_found(lab)]
    hit_ids = {id(lab) for lab in hits}

    labelled, found = Counter(lab["code"] for lab in scored), Counter(lab["code"] for lab in hits)
    per_code = {code: recall_row(labelled[code], found[code]) for code in sorted(labelled)}
    per_set = {}
    for label_set in SETS:
        mine = [lab for lab in scored if lab.get("set", "tuned") == label_set]
        mine_hits = Counter(lab["code"] for lab in mine if id(lab) in hit_ids)
        mine_all = Counter(lab["code"] for lab in mine)
        repo_all = Counter(lab["repo"] for lab in mine)
        repo_hits = Counter(lab["repo"] for lab in mine if id(lab) in hit_ids)
        per_set[label_set] = {
            "overall": recall_row(len(mine), sum(mine_hits.values())),
            "per_code": {code: recall_row(mine_all[code], mine_hits[code]) for code in sorted(mine_all)},
            "per_repo": {repo: recall_row(repo_all[repo], repo_hits[repo]) for repo in sorted(repo_all, key=str.lower)},
        }

    labels_in = _by_file(corpus.labels)
    constructions_in = _by_file(corpus.constructions)
    wrong_keys = {key(w) for w in corpus.wrong}
    negative_files = {(n["repo"], n["path"]) for n in corpus.negatives}
    labelled_repos = {lab["repo"] for lab in corpus.labels}

    in_negatives, known_wrong, unlabelled_line, unlabelled_file, on_construction = [], [], [], [], []
    for finding in findings:
        where = (finding["repo"], finding["path"])
        if where in negative_files:
            in_negatives.append(finding)
        elif any(matches(lab, finding, window) for lab in labels_in.get(where, ())):
            continue
        elif finding.get("caller"):
            continue  # a helper's caller: listed with its helper's finding
        elif key(finding) in wrong_keys:
            known_wrong.append(finding)
        elif any(
            c["line"] <= finding["line"] <= c["line"] + window_of(c, window) for c in constructions_in.get(where, ())
        ):
            on_construction.append(finding)
        elif where in labels_in or where in constructions_in:
            unlabelled_line.append(finding)
        elif finding["repo"] in labelled_repos:
            unlabelled_file.append(finding)

    return {
        "overall": recall_row(len(scored), len(hits)),
        "per_code": per_code,
        "per_set": per_set,
        "missed": missed,
        "regressions": [lab for lab in missed if lab.get("found") is True],
        "negative_findings": in_negatives,
        "unlabelled_line_findings": unlabelled_line,
        "unlabelled_file_findings": unlabelled_file,
        "construction_findings": on_construction,
        "known_wrong": known_wrong,
        "missing_repos": run.missing,
        "failed_repos": run.problems,
        "skipped_labels": len(corpus.labels) - len(scored),
        "retired": corpus.retired,
    }


# --------------------------------------------------------------------------- reporting


def percent(value) -> str:
    """A recall value for the text table."""
    return "-" if value is None else f"{value:.1f}%"


def label_line(label: dict) -> str:
    """One missed label: repo path:line code (category) note."""
    note = f"  {label['note']}" if label.get("note") else ""
    category = f" ({label['category']})" if label.get("category") else ""
    return f"  {label['repo']} {label['path']}:{label['line']} {label['code']}{category}{note}"


def finding_line(finding: dict) -> str:
    """One finding: repo path:line code message."""
    return f"  {finding['repo']} {finding['path']}:{finding['line']} {finding['code']} {finding.get('message', '')}"


def print_section(title: str, lines: list) -> None:
    """A titled list with its count; an empty list prints as 'none'."""
    print(f"\n{title} ({len(lines)})")
    for line in lines or ["  none"]:
        print(line)


def print_table(per_code: dict, overall: dict, first: str = "code") -> None:
    """One recall table: a row per rule code (or repository), then the overall row."""
    width = max([8] + [len(name) for name in per_code])
    print(f"{first:{width}} {'labelled':>8} {'found':>6} {'missed':>6} {'recall':>7}")
    for code, row in list(per_code.items()) + [("overall", overall)]:
        print(f"{code:{width}} {row['labelled']:>8} {row['found']:>6} {row['missed']:>6} {percent(row['recall']):>7}")


def print_text(result: dict) -> None:
    """Human-readable report: both label sets apart, then everything together."""
    for label_set, part in result["per_set"].items():
        if part["overall"]["labelled"]:
            print(f"[{label_set}]")
            print_table(part["per_code"], part["overall"])
            print()
            if label_set == "first-look-38-62":
                print_table(part["per_repo"], part["overall"], "repository")
                print()
    print("[all]")
    print_table(result["per_code"], result["overall"])
    if result["skipped_labels"]:
        print(f"({result['skipped_labels']} labels not scored: their repository folder is missing or the tool failed)")
    print_section("Missed labels", [label_line(lab) for lab in result["missed"]])
    print_section("Regressions (labelled found = true, now missed)", [label_line(lab) for lab in result["regressions"]])
    print_section("Findings in negative files (should be 0)", [finding_line(f) for f in result["negative_findings"]])
    print_section(
        "Findings on unlabelled lines of labelled files", [finding_line(f) for f in result["unlabelled_line_findings"]]
    )
    print_section(
        "Findings in files with no label (labelled repos)",
        [finding_line(f) for f in result["unlabelled_file_findings"]],
    )
    print_section(
        "Findings on root-construction lines ([[construction]], not scored)",
        [finding_line(f) for f in result["construction_findings"]],
    )
    print_section("Known false positives ([[wrong]])", [finding_line(f) for f in result["known_wrong"]])
    if result["retired"]:
        retired = [f"{label_line(lab)}  [retired: {lab['retired']}]" for lab in result["retired"]]
        print_section("Retired labels (out of the rule's scope since, not scored)", retired)


def warn(message: str) -> None:
    """A warning on standard error."""
    print(f"warning: {message}", file=sys.stderr)


# --------------------------------------------------------------------------- audit


def audit(corpus: Corpus, run: Run, repos_dir: Path, label_set: str | None) -> dict:
    """Every line with Roots vocabulary in code (benchmarks/vocab.py) that has no finding within
    AUDIT_WINDOW lines, sorted into what accounts for it: a label (then the label is a miss), a
    ``[[not_finding]]`` record, a negative file, or nothing (a label or a record is missing)."""
    from vocab import vocab_lines  # beside this file; standard library only

    near = _line_index(run.findings)
    labelled = _line_index(corpus.labels)
    recorded = {(n["repo"], n["path"], line) for n in corpus.not_findings for line in n["lines"]}
    negative_files = {(n["repo"], n["path"]) for n in corpus.negatives}
    sets = corpus.sets
    out = {"label": [], "not_finding": [], "negative": [], "unaccounted": [], "lines": 0}
    for repo in sorted(run.present):
        if label_set is not None and label_set not in sets.get(repo, {"tuned"}):
            continue
        folder = repos_dir / folder_name(repo)
        for file in sorted(folder.rglob("*.py")):
            path = file.relative_to(folder).as_posix()
            if is_excluded(path, corpus.excludes(repo)):
                continue
            source = file.read_bytes().decode("utf-8", "replace")
            for item in vocab_lines(source):
                out["lines"] += 1
                if _close(near, repo, path, item.line):
                    continue
                entry = {"repo": repo, "path": path, "line": item.line, "words": list(item.words), "text": item.text}
                if _close(labelled, repo, path, item.line):
                    out["label"].append(entry)
                elif (repo, path, item.line) in recorded:
                    out["not_finding"].append(entry)
                elif (repo, path) in negative_files:
                    out["negative"].append(entry)
                else:
                    out["unaccounted"].append(entry)
    return out


def _line_index(entries: list) -> dict:
    index: dict = {}
    for entry in entries:
        index.setdefault((entry["repo"], entry["path"]), set()).add(entry["line"])
    return index


def _close(index: dict, repo: str, path: str, line: int) -> bool:
    lines = index.get((repo, path), ())
    return any(abs(line - other) <= AUDIT_WINDOW for other in lines)


def print_audit(result: dict) -> None:
    print(f"vocabulary lines: {result['lines']}")
    print(f"  with a finding within {AUDIT_WINDOW} lines: {result['lines'] - sum(len(result[k]) for k in AUDIT_KINDS)}")
    for kind in AUDIT_KINDS:
        print(f"  {AUDIT_TITLES[kind]}: {len(result[kind])}")
    for kind in ("label", "unaccounted"):
        print_section(
            AUDIT_TITLES[kind],
            [
                f"  {e['repo']} {e['path']}:{e['line']} {', '.join(e['words'])} | {e['text'][:100]}"
                for e in result[kind]
            ],
        )


AUDIT_KINDS = ("label", "not_finding", "negative", "unaccounted")
AUDIT_TITLES = {
    "label": "no finding, but labelled (a miss)",
    "not_finding": "no finding, recorded as not a finding",
    "negative": "no finding, in a negative file",
    "unaccounted": "no finding and nothing accounts for it (label or record it)",
}


# --------------------------------------------------------------------------- export


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The bare git directory of a fetched snapshot (``repo`` or ``repo/.git``), if any."""
    for candidate in (mirrors / folder_name(repo) / "repo" / ".git", mirrors / folder_name(repo) / "repo"):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def tree_blobs(gitdir: Path, commit: str, excludes: list) -> list:
    """(mode, sha, path) of the regular files of ``commit``, minus excluded prefixes."""
    listing = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout
    blobs = []
    for record in filter(None, listing.split(b"\0")):
        meta, raw_path = record.split(b"\t", 1)
        mode, kind, sha = meta.split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode != b"120000" and not is_excluded(path, excludes):
            blobs.append((mode, sha, path))
    return blobs


def write_blobs(gitdir: Path, blobs: list, dest: Path) -> int:
    """Write blobs under ``dest`` via one ``git cat-file --batch``; return how many were missing."""
    missing = 0
    with subprocess.Popen(
        ["git", "--git-dir", str(gitdir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as proc:
        for mode, sha, path in blobs:
            proc.stdin.write(sha + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
            if header.endswith(b"missing\n"):
                missing += 1
                continue
            data = proc.stdout.read(int(header.split()[2]))
            proc.stdout.read(1)
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
            if mode == b"100755":
                out.chmod(0o755)
        proc.stdin.close()
    return missing


def export(corpus: Corpus, mirrors: Path, target: Path) -> None:
    """Export every repository named in the label files at its commit into ``target``."""
    for repo, commit in sorted(corpus.commits().items()):
        gitdir = git_dir(mirrors, repo)
        if gitdir is None:
            warn(f"{repo}: no snapshot under {mirrors / folder_name(repo)}, skipped")
            continue
        try:
            blobs = tree_blobs(gitdir, commit, corpus.excludes(repo))
        except subprocess.CalledProcessError:
            warn(f"{repo}: commit {commit} is not in the snapshot, skipped")
            continue
        missing = write_blobs(gitdir, blobs, target / folder_name(repo))
        print(f"{repo}: {len(blobs) - missing} files, {missing} missing from the snapshot")


# --------------------------------------------------------------------------- command line


def file_options(parser: argparse.ArgumentParser) -> None:
    """The --labels / --negatives / --first-look options shared by every command."""
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS, help="labels TOML (default: %(default)s)")
    parser.add_argument("--negatives", type=Path, default=None, help=f"negatives TOML (default: {DEFAULT_NEGATIVES})")
    parser.add_argument(
        "--first-look", type=Path, default=DEFAULT_FIRST_LOOK, help="folder of first-look label files (%(default)s)"
    )
    parser.add_argument(
        "--first-look-38-62",
        type=Path,
        default=DEFAULT_FIRST_LOOK_38_62,
        help="folder of the converted labels of rows 38-62 (%(default)s)",
    )
    parser.add_argument(
        "--audit-30",
        type=Path,
        default=DEFAULT_AUDIT_30,
        help="folder of the audit repositories of issue 35 §5 and their review (%(default)s)",
    )


def run_options(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that run the tool."""
    parser.add_argument("--repos", type=Path, required=True, help="folder of <owner>+<name> repository folders")
    parser.add_argument("--tool", default=None, help='tool command (default: "<this python> -m mcp_migrate")')
    parser.add_argument("--verbose", action="store_true", help="show each tool run on standard error")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--set", choices=SETS, default=None, help="only the repositories of one label set")


def parse_args(argv: list) -> argparse.Namespace:
    """Parse either the benchmark run or the ``export`` subcommand."""
    if argv[:1] == ["export"]:
        parser = argparse.ArgumentParser(prog="corpus.py export", description="Export the labelled repositories.")
        parser.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git dirs")
        parser.add_argument("--to", type=Path, required=True, help="destination folder")
        parser.add_argument("--set", choices=SETS, default=None, help="only the repositories of one label set")
        file_options(parser)
        args = parser.parse_args(argv[1:])
        args.command = "export"
        return args
    if argv[:1] == ["audit"]:
        parser = argparse.ArgumentParser(prog="corpus.py audit", description=audit.__doc__.split(".")[0])
        run_options(parser)
        file_options(parser)
        args = parser.parse_args(argv[1:])
        args.command = "audit"
        return args
    parser = argparse.ArgumentParser(prog="corpus.py", description=__doc__.splitlines()[0])
    run_options(parser)
    file_options(parser)
    parser.add_argument(
        "--window",
        type=int,
        default=None,
        help="a finding up to N lines below a label's line counts (default: each label's own window)",
    )
    parser.add_argument(
        "--construct",
        action="store_true",
        help="a finding inside the statement or definition that begins on a label's line also counts",
    )
    args = parser.parse_args(argv)
    args.command = "run"
    return args


def main(argv: list | None = None) -> int:
    """Entry point: 0 after a benchmark or export, 2 on bad input."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        corpus = load_corpus(
            args.labels,
            args.negatives or DEFAULT_NEGATIVES,
            args.negatives is not None,
            args.first_look,
            args.first_look_38_62,
            args.audit_30,
        )
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "export":
        export(only_set(corpus, args.set), args.mirrors, args.to)
        return 0
    if not args.repos.is_dir():
        print(f"error: {args.repos}: not a folder", file=sys.stderr)
        return 2
    command = shlex.split(args.tool) if args.tool else [sys.executable, "-m", "mcp_migrate"]
    corpus = only_set(corpus, args.set)
    run = collect_findings(corpus, args.repos, command, args.verbose)
    if args.command == "audit":
        found = audit(corpus, run, args.repos, args.set)
        print(json.dumps(found, indent=2)) if args.json else print_audit(found)
        return 0
    if getattr(args, "construct", False):
        construct_spans(corpus, args.repos)
    result = score(corpus, run, args.window)
    for problem in run.problems:
        warn(problem)
    for repo in run.missing:
        warn(f"{repo}: no folder {folder_name(repo)} under {args.repos}; its labels and negatives are skipped")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
