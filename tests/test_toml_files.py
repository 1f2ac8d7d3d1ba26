"""A TOML document is parsed once per process, whoever asks (core/toml_files.py): a project's
pyproject.toml is read for the run's configuration and again for a fix's layout."""

from __future__ import annotations

import pytest
import tomllib

from mcp_migrate.core import toml_files
from mcp_migrate.core.fix.layout import line_length, python_floor
from mcp_migrate.project.config import load_config

_LOADS = tomllib.loads


def test_the_same_text_is_parsed_once(monkeypatch):
    parses = []
    monkeypatch.setattr(toml_files, "_PARSED", {})
    monkeypatch.setattr(toml_files.tomllib, "loads", lambda text: parses.append(text) or _LOADS(text))
    first = toml_files.parsed_toml("[tool.ruff]\nline-length = 100\n")
    assert toml_files.parsed_toml("[tool.ruff]\nline-length = 100\n") is first
    assert toml_files.parsed_toml("[tool.ruff]\nline-length = 99\n") == {"tool": {"ruff": {"line-length": 99}}}
    assert len(parses) == 2


def test_the_tables_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(toml_files, "_PARSED", {})
    monkeypatch.setattr(toml_files, "_KEPT", 3)
    for n in range(7):
        assert toml_files.parsed_toml(f"n = {n}\n") == {"n": n}
        assert len(toml_files._PARSED) <= 3


def test_a_broken_document_raises_each_time_and_is_not_kept(monkeypatch):
    monkeypatch.setattr(toml_files, "_PARSED", {})
    for _ in range(2):
        with pytest.raises(tomllib.TOMLDecodeError):
            toml_files.parsed_toml("[tool\n")
    assert toml_files._PARSED == {}


def test_the_configuration_and_the_layout_share_one_parse(tmp_path, monkeypatch):
    """The run's configuration, then a fix's line length and Python floor, from one
    pyproject.toml: one parse."""
    text = '[project]\nrequires-python = ">=3.11"\n\n[tool.ruff]\nline-length = 100\n\n[tool.mcp-migrate]\nselect = ["RT001"]\n'
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "server.py").write_text("x = 1\n")
    parses = []
    monkeypatch.setattr(toml_files, "_PARSED", {})
    monkeypatch.setattr(toml_files.tomllib, "loads", lambda text: parses.append(text) or _LOADS(text))
    assert load_config(str(tmp_path / "pyproject.toml")).select == ("RT001",)
    assert line_length(str(tmp_path / "server.py")) == 100
    assert python_floor(str(tmp_path / "server.py")) == (3, 11)
    assert parses.count(text) == 1  # (the rule catalog's entries are TOML too)
