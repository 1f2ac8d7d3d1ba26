"""Concurrency and process faults (issue 23 §4): a file changed or deleted while `fix` writes it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from sources import FIXABLE, FIXED

from mcp_migrate.commands.cli import cli

CHANGED = "a.py: error: write changed on disk during the run (after it was read): not overwritten"
EDITED = FIXABLE + "# saved by an editor while fix was writing\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(FIXABLE)
    return tmp_path


def temporaries(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".mcp-migrate"))


def during_the_write(monkeypatch, action) -> None:
    """Run `action` once while fix writes its replacement (after the new bytes reach the disk,
    before the rename): the moment an editor's save used to be lost."""
    real = os.fsync
    calls = []

    def fsync(fd):
        real(fd)
        if not calls:
            calls.append(fd)
            action()

    monkeypatch.setattr(os, "fsync", fsync)


def _in_place(path: Path) -> None:
    path.write_text(EDITED)


def _by_rename(path: Path) -> None:
    other = path.with_name("editor.tmp")
    other.write_text(EDITED)
    os.replace(other, path)


def _same_size_and_mtime(path: Path) -> None:
    """A save that keeps the size and the mtime (a coarse clock): only the bytes differ."""
    st = path.stat()
    path.write_text(FIXABLE.replace("main", "mane"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("save", [_in_place, _by_rename, _same_size_and_mtime])
def test_an_editor_save_while_fix_writes_is_kept(project, monkeypatch, save):
    """10 of 10 such saves were lost, exit 0 and no message: the file was compared with what
    was read before the replacement was written, not at the last moment."""
    path = project / "a.py"
    expected = FIXABLE.replace("main", "mane") if save is _same_size_and_mtime else EDITED
    during_the_write(monkeypatch, lambda: save(path))
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert path.read_text() == expected
    assert result.exit_code == 2, result.output
    assert CHANGED in result.output.splitlines()
    assert temporaries(project) == []


def test_a_file_deleted_while_fix_writes_stays_deleted(project, monkeypatch):
    """4 of 5 deleted files came back, written by the rename."""
    path = project / "a.py"
    during_the_write(monkeypatch, path.unlink)
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert not path.exists()
    assert result.exit_code == 2, result.output
    assert "a.py: error: write deleted during the run (after it was read): not written back" in result.output
    assert temporaries(project) == []


def test_an_unchanged_file_is_still_fixed(project):
    result = CliRunner().invoke(cli, ["fix", "--output-format", "concise", "a.py"])
    assert (project / "a.py").read_text() == FIXED
    assert result.exit_code == 0, result.output
