"""The corpus benchmark's `audit-30` set: repositories named only by `[[repo]]` tables (no
label yet) are run and audited, and a `[[not_finding]]` record beside them accounts for a
vocabulary line (issue 35 §5: the first look on thirty unlabelled repositories)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
REPO = "owner/name"
COMMIT = "a" * 40
SOURCE = """async def ask(ctx):
    found = await ctx.list_roots()
    return found


def other(session):
    return session.list_roots()
"""


@pytest.fixture
def corpus_module(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # corpus.audit imports vocab from beside it
    spec = importlib.util.spec_from_file_location("corpus_under_test", BENCHMARKS / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def audit_folder(tmp_path):
    folder = tmp_path / "audit-30"
    folder.mkdir()
    (folder / "repos.toml").write_text(f'[[repo]]\nrepo = "{REPO}"\ncommit = "{COMMIT}"\n')
    repos = tmp_path / "repos"
    (repos / "owner+name").mkdir(parents=True)
    (repos / "owner+name" / "server.py").write_text(SOURCE)
    return folder, repos


def load(module, folder):
    return module.load_corpus(module.DEFAULT_LABELS, None, False, None, None, folder)


def test_audit_folder_names_its_repositories_in_their_own_set(corpus_module, audit_folder):
    folder, _ = audit_folder
    corpus = corpus_module.only_set(load(corpus_module, folder), "audit-30")
    assert corpus.commits() == {REPO: COMMIT}
    assert corpus.sets == {REPO: {"audit-30"}}
    assert corpus.labels == []


def test_audit_lists_the_vocabulary_line_no_finding_explains(corpus_module, audit_folder):
    folder, repos = audit_folder
    corpus = corpus_module.only_set(load(corpus_module, folder), "audit-30")
    finding = {"repo": REPO, "path": "server.py", "line": 2, "code": "RT001"}
    run = corpus_module.Run(findings=[finding], present={REPO})
    result = corpus_module.audit(corpus, run, repos, "audit-30")
    assert result["lines"] == 2
    assert [(e["path"], e["line"]) for e in result["unaccounted"]] == [("server.py", 7)]
    assert result["not_finding"] == []


def test_a_review_record_accounts_for_the_line(corpus_module, audit_folder):
    folder, repos = audit_folder
    (folder / "owner+name.toml").write_text(
        f'[[not_finding]]\nrepo = "{REPO}"\ncommit = "{COMMIT}"\npath = "server.py"\n'
        'lines = [7]\nnote = "a project method of the same name"\n'
    )
    corpus = corpus_module.only_set(load(corpus_module, folder), "audit-30")
    run = corpus_module.Run(findings=[{"repo": REPO, "path": "server.py", "line": 2, "code": "RT001"}], present={REPO})
    result = corpus_module.audit(corpus, run, repos, "audit-30")
    assert result["unaccounted"] == []
    assert [e["line"] for e in result["not_finding"]] == [7]


def test_the_command_line_takes_the_set_and_its_folder(corpus_module, tmp_path):
    args = corpus_module.parse_args(
        ["audit", "--repos", str(tmp_path), "--set", "audit-30", "--audit-30", str(tmp_path)]
    )
    assert (args.command, args.set, args.audit_30) == ("audit", "audit-30", tmp_path)


def test_a_caller_listed_with_its_helpers_finding_finds_the_callers_label(corpus_module, tmp_path):
    """The tool folds a helper's callers into the helper's finding ("called from here"): a
    label on the caller's line is found through that related location, and the caller is not
    listed again as a finding on an unlabelled line."""
    item = {
        "code": "RT001",
        "path": str(tmp_path / "server.py"),
        "line": 9,
        "column": 4,
        "related": [
            {"path": str(tmp_path / "tools.py"), "line": 3, "column": 8, "message": "called from here"},
            {"path": str(tmp_path / "tools.py"), "line": 5, "column": 8, "message": "first defined here"},
        ],
    }
    callers = corpus_module.caller_locations(item, REPO, tmp_path, [])
    assert [(c["code"], c["path"], c["line"], c["caller"]) for c in callers] == [("RT001", "tools.py", 3, True)]
    label = {"repo": REPO, "path": "tools.py", "line": 3, "code": "RT001"}
    other = {"repo": REPO, "path": "tools.py", "line": 40, "code": "RT001"}
    corpus = corpus_module.Corpus(labels=[label, other])
    result = corpus_module.score(corpus, corpus_module.Run(findings=callers, present={REPO}))
    assert result["overall"] == {"labelled": 2, "found": 1, "missed": 1, "recall": 50.0}
    assert result["unlabelled_line_findings"] == []
    assert corpus_module.caller_locations(item, REPO, tmp_path, ["tools.py"]) == []


def test_a_retired_label_is_listed_and_not_scored(corpus_module, tmp_path):
    """A label a later decision took out of its rule's scope (issue 35 §4: RT103 only on values
    from roots) stays in its file with the reason, and is neither found nor missed."""
    labels = tmp_path / "labels.toml"
    labels.write_text(
        f'[[label]]\nrepo = "{REPO}"\ncommit = "{COMMIT}"\npath = "a.py"\nline = 3\ncode = "RT103"\n'
        'retired = "a configured allow-list, not roots"\n'
        f'[[label]]\nrepo = "{REPO}"\ncommit = "{COMMIT}"\npath = "a.py"\nline = 9\ncode = "RT103"\n'
    )
    corpus = corpus_module.load_corpus(labels, None, False)
    assert [lab["line"] for lab in corpus.labels] == [9]
    assert [lab["line"] for lab in corpus.retired] == [3]
    run = corpus_module.Run(findings=[], present={REPO})
    result = corpus_module.score(corpus, run)
    assert result["overall"] == {"labelled": 1, "found": 0, "missed": 1, "recall": 0.0}
    assert [lab["line"] for lab in result["retired"]] == [3]
