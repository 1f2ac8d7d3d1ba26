"""File discovery: default skips, config excludes, .gitignore, venvs, explicit files, symlinks."""

import os

import pytest

from mcp_migrate.project.config import Config
from mcp_migrate.project.discovery import PathNotFoundError, discover


def make(tree, root):
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(paths, root, **config):
    return [f.display for f in discover(paths, Config(root=str(root), **config)).files]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_walks_py_files_sorted(tree):
    make({"b.py": "", "a/z.py": "", "a/y.txt": "", "a/x.pyi": "", "c.py": ""}, tree)
    assert found(["."], tree) == ["a/z.py", "b.py", "c.py"]


def test_default_excluded_folders(tree):
    make({n + "/m.py": "" for n in ("build", "dist", "node_modules", ".tox", "__pycache__", "pkg/venv")}, tree)
    make({"pkg/ok.py": ""}, tree)
    assert found(["."], tree) == ["pkg/ok.py"]


def test_any_folder_with_pyvenv_cfg_is_skipped(tree):
    make({"myenv/pyvenv.cfg": "home = /usr\n", "myenv/lib/x.py": "", "src/a.py": ""}, tree)
    assert found(["."], tree) == ["src/a.py"]


def test_exclude_replaces_defaults_extend_exclude_adds(tree):
    make({"build/a.py": "", "gen/b.py": "", "src/c.py": "", "src/old_d.py": ""}, tree)
    assert found(["."], tree, exclude=("gen/",)) == ["build/a.py", "src/c.py", "src/old_d.py"]
    assert found(["."], tree, extend_exclude=("gen/", "old_*.py")) == ["src/c.py"]


def test_exclude_is_relative_to_config_root(tree):
    make({"proj/gen/a.py": "", "proj/src/gen/b.py": ""}, tree)
    assert found(["."], tree / "proj", extend_exclude=("/gen",)) == ["proj/src/gen/b.py"]


def test_gitignore_negation_and_nesting(tree):
    make(
        {
            ".git/HEAD": "",
            ".gitignore": "*_pb2.py\nscratch/\n",
            "scratch/s.py": "",
            "api_pb2.py": "",
            "main.py": "",
            "sub/.gitignore": "!keep_pb2.py\nlocal.py\n",
            "sub/keep_pb2.py": "",
            "sub/drop_pb2.py": "",
            "sub/local.py": "",
            "other/local.py": "",
        },
        tree,
    )
    assert found(["."], tree) == ["main.py", "other/local.py", "sub/keep_pb2.py"]


def test_gitignore_of_ancestors_applies_when_walking_a_subfolder(tree):
    make({".git/HEAD": "", ".gitignore": "gen/\n", "src/gen/a.py": "", "src/b.py": ""}, tree)
    assert found(["src"], tree) == ["src/b.py"]


def test_explicit_file_is_always_checked(tree):
    make({".gitignore": "ignored.py\n", "ignored.py": "", "build/x.py": "", "script": ""}, tree)
    assert found(["ignored.py", "build/x.py", "script"], tree) == ["build/x.py", "ignored.py", "script"]
    assert found(["."], tree) == []


def test_overlapping_paths_are_deduplicated(tree):
    make({"a.py": ""}, tree)
    assert found([".", "a.py", "./a.py"], tree) == ["a.py"]


def test_missing_path(tree):
    with pytest.raises(PathNotFoundError, match="path not found: nope"):
        discover(["nope"], Config(root=str(tree)))


def test_paths_outside_cwd_are_shown_as_given(tmp_path, monkeypatch):
    make({"proj/a.py": ""}, tmp_path)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert found([str(tmp_path / "proj")], tmp_path) == [f"{tmp_path / 'proj'}/a.py".replace(os.sep, "/")]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_symlinked_folders_not_followed_files_are(tree):
    make({"src/a.py": "", "elsewhere/b.py": ""}, tree)
    try:
        os.symlink(tree / "src", tree / "src" / "loop")
        os.symlink(tree / "elsewhere" / "b.py", tree / "src" / "link.py")
    except OSError:
        pytest.skip("cannot create symlinks")
    assert found(["src"], tree) == ["src/a.py", "src/link.py"]


def test_force_exclude_applies_to_named_files(tree):
    make({"gen/a.py": "", "src/b.py": "", "notes.md": "", "tool": "#!/usr/bin/env python3\n", "data": "x\n"}, tree)
    config = Config(root=str(tree), extend_exclude=("gen/",))
    named = ["gen/a.py", "src/b.py", "notes.md", "tool", "data", "gen"]
    assert [f.display for f in discover(named, config).files] == ["data", "gen/a.py", "notes.md", "src/b.py", "tool"]
    forced = discover(named, config, force_exclude=True)
    assert [f.display for f in forced.files] == ["src/b.py", "tool"]
    assert forced.skipped == 4


def test_relative_path_outside_the_base_without_relpath_is_the_same():
    """PatternSet.relative skips relpath for normalised paths outside its base: same answer."""
    from mcp_migrate.project.gitignore import PatternSet

    def by_relpath(base: str, path: str) -> str:
        rel = os.path.relpath(path, base)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            rel = os.path.splitdrive(path)[1].lstrip("\\/")
        return rel.replace(os.sep, "/")

    patterns = PatternSet("/work/project", [])
    for path in ("/work/project", "/work/project/a/b.py", "/work/other/a.py", "/tmp/x", "/work/projectile/a.py", "/"):
        assert patterns.relative(path) == by_relpath("/work/project", path), path


def test_what_a_folder_holds_is_read_from_its_listing(tree, monkeypatch):
    """A virtual environment's pyvenv.cfg, a .gitignore and a config file are looked for only in
    the folders whose listing holds them: on a tree of many folders the walk costs a listing
    per folder, not five more system calls (2,000 on a 414-folder repository)."""
    from mcp_migrate.project import config as config_module
    from mcp_migrate.project import gitignore
    from mcp_migrate.project.config import ConfigResolver

    folders = [f"pkg{i}/sub" for i in range(12)]
    make({f"{folder}/m.py": "" for folder in folders}, tree)
    make(
        {
            "pkg3/.gitignore": "sub/\n",
            "pkg5/pyproject.toml": "[tool.mcp-migrate]\n",
            "env/pyvenv.cfg": "",
            "env/e.py": "",
        },
        tree,
    )
    asked = []
    real_isfile, real_exists, real_lines = os.path.isfile, os.path.exists, gitignore._lines

    def isfile(path):
        asked.append(os.path.relpath(path, tree))
        return real_isfile(path)

    def exists(path):
        asked.append(os.path.relpath(path, tree))
        return real_exists(path)

    def lines(path):
        asked.append(os.path.relpath(path, tree))
        return real_lines(path)

    resolver = ConfigResolver.for_run(["."])
    monkeypatch.setattr(config_module.os.path, "isfile", isfile)
    monkeypatch.setattr(os.path, "exists", exists)
    monkeypatch.setattr(gitignore, "_lines", lines)
    files = [f.display for f in discover(["."], resolver).files]
    assert files == sorted(f"{folder}/m.py" for folder in folders if folder != "pkg3/sub")
    # the run's own: the git root; the config files at the root were looked for (once) by
    # `for_run`, whose answer the walk reuses
    run = [".git", ".gitignore"]
    inside = sorted(path for path in asked if not path.startswith(".."))
    assert inside == sorted(run + ["env/pyvenv.cfg", "pkg3/.gitignore", "pkg5/pyproject.toml"])
