"""The results cache as an attacker sees it: a repository can ship a cache folder, so nothing in
one may run code, alter findings or make the tool write outside its own folder (issue 23)."""

from __future__ import annotations

import json
import os
import pickle
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcp_migrate.commands.cli import cli
from mcp_migrate.project import cache as cache_module
from mcp_migrate.project import cache_codec, cache_key

SOURCE = "from mcp.server.fastmcp import Context\n\nasync def t(ctx: Context):\n    await ctx.session.list_roots()\n"


def run_check(*args) -> tuple:
    """(exit code, findings as (code, line) pairs, stderr) of a JSON check."""
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--jobs", "1", *args])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    return result.exit_code, sorted((f["code"], f["line"]) for f in report["findings"]), result.stderr


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with one file that has an RT001 finding, as the working directory,
    using the default cache location (`.mcp_migrate_cache/` in the project)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mcp-migrate]\n")
    (root / "server.py").write_text(SOURCE)
    monkeypatch.chdir(root)
    monkeypatch.delenv("MCP_MIGRATE_CACHE_DIR")
    return root


def cold(project: Path) -> list:
    return run_check("--no-cache", "server.py")[1]


def tables(project: Path) -> list:
    return sorted((project / ".mcp_migrate_cache").glob("*/*.json"))


class Payload:
    """Unpickling this touches a file: proof that code ran."""

    def __init__(self, sentinel: Path):
        self.sentinel = sentinel

    def __reduce__(self):
        return (os.system, (f"touch {self.sentinel}",))


def test_a_pickle_in_the_cache_never_runs(project, tmp_path):
    expected = cold(project)
    run_check("server.py")  # a genuine cache now exists
    sentinel = tmp_path / "pwned"
    evil = pickle.dumps(Payload(sentinel))
    for table in tables(project):
        table.with_suffix(".pickle").write_bytes(evil)  # the 0.1 layout
        table.write_bytes(evil)  # and under today's name
    assert run_check("server.py")[1] == expected
    assert not sentinel.exists()


def test_a_committed_cache_claiming_no_findings_is_ignored_with_a_warning(project, tmp_path, monkeypatch):
    """An attacker prepares the whole folder (the fingerprint is public) with their own key:
    every entry says 'no findings', with the right content digest."""
    expected = cold(project)
    assert expected
    attacker = b"A" * cache_key.KEY_BYTES
    folder = project / ".mcp_migrate_cache"
    monkeypatch.setattr(cache_key, "user_key", lambda: attacker)
    run_check("server.py")  # the attacker's own run writes a real, signed cache
    monkeypatch.undo()
    monkeypatch.chdir(project)
    monkeypatch.delenv("MCP_MIGRATE_CACHE_DIR", raising=False)
    for table in tables(project):
        entries = cache_codec.decode_table(attacker, f"{table.parent.name}/{table.name}", table.read_bytes())
        assert entries
        emptied = {path: (digest, stat, cache_codec.FileResult(path)) for path, (digest, stat, _) in entries.items()}
        table.write_bytes(cache_codec.encode_table(attacker, f"{table.parent.name}/{table.name}", emptied))
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    code, found, stderr = run_check("server.py")
    assert (code, found) == (1, expected)
    assert stderr.count("\n") == 1 and "ignoring the results cache in" in stderr
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before, "a foreign cache is not written"


def test_a_forged_table_inside_our_own_folder_is_a_miss(project):
    """A pull can bring a tracked file into a folder the user's cache created: our folder,
    not our table."""
    expected = cold(project)
    run_check("server.py")
    for table in tables(project):
        entries = cache_codec.decode_table(
            cache_key.user_key(), f"{table.parent.name}/{table.name}", table.read_bytes()
        )
        emptied = {path: (digest, stat, cache_codec.FileResult(path)) for path, (digest, stat, _) in entries.items()}
        table.write_bytes(cache_codec.encode_table(b"B" * 32, f"{table.parent.name}/{table.name}", emptied))
    code, found, stderr = run_check("server.py")
    assert found == expected and stderr == ""


def test_a_symlinked_cache_folder_is_neither_read_nor_written(project, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".mcp_migrate_cache").symlink_to(outside)
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert "is a symlink" in stderr
    assert list(outside.iterdir()) == []


def test_a_symlinked_fingerprint_folder_is_not_written_through(project, tmp_path):
    run_check("server.py")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    fingerprint = tables(project)[0].parent
    for table in fingerprint.iterdir():
        table.unlink()
    fingerprint.rmdir()
    fingerprint.symlink_to(outside)
    (project / "server.py").write_text(SOURCE + "\n")  # a miss, so the run wants to store
    assert run_check("server.py")[1] == cold(project)
    assert list(outside.iterdir()) == []


def test_an_unwritable_cache_location_only_costs_the_cache(project):
    (project / "a-file").write_text("")
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "a-file/cache"\n')
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert run_check("server.py")[1] == found


@pytest.mark.parametrize("where", [".", "..", "../..", "/"])
def test_a_cache_dir_holding_the_checked_files_is_refused(project, where):
    (project / "pyproject.toml").write_text(f'[tool.mcp-migrate]\ncache-dir = "{where}"\n')
    before = sorted(p.name for p in project.iterdir())
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert "holds the checked files" in stderr
    assert sorted(p.name for p in project.iterdir()) == before
    assert not (project / ".gitignore").exists() and not (project / "CACHEDIR.TAG").exists()
    assert run_check("server.py")[1] == found, "the next run still sees the files"


def test_the_environment_variable_cannot_point_the_cache_at_the_root_folder(project, monkeypatch):
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", "/")
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "holds the checked files" in stderr
    assert not Path("/CACHEDIR.TAG").exists() and not Path("/.mcp-migrate-owner").exists()


def test_an_existing_folder_that_is_not_ours_is_left_alone(project):
    (project / "build").mkdir()
    (project / "build" / "keep.txt").write_text("mine\n")
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "build"\n')
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "did not create it" in stderr
    assert sorted(p.name for p in (project / "build").iterdir()) == ["keep.txt"]


def test_a_new_cache_folder_gets_its_markers_inside_it_only(project):
    run_check("server.py")
    folder = project / ".mcp_migrate_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (folder / cache_module.OWNER_MARK).is_file()
    assert not (project / ".gitignore").exists()
    assert run_check("server.py")[2] == "", "our own folder gives no warning"


def test_the_key_is_private_and_outside_the_tree(project):
    run_check("server.py")
    path = Path(cache_key.key_path())
    assert project not in path.parents
    assert path.stat().st_mode & 0o077 == 0


def test_no_key_means_a_cold_run_with_a_warning(project, monkeypatch):
    monkeypatch.setattr(cache_key, "user_key", lambda: None)
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "no private key" in stderr
    assert not (project / ".mcp_migrate_cache").exists()


# Fuzzing the table -------------------------------------------------------------------------------


def _mutations(value, rng: random.Random):
    """Variants of a decoded JSON value that break its schema: one node replaced by a value of
    another type, a key dropped or added. (A well-typed change under a valid signature is the
    user's own table: only the signature can tell, and the tests above cover it.)"""
    replacements = [None, True, 1, -1, 1.5, "x", [], {}, [None], {"x": 1}]
    yield rng.choice([r for r in replacements if type(r) is not type(value)])
    if isinstance(value, dict):
        for k in list(value):
            for variant in _mutations(value[k], rng):
                yield {**value, k: variant}
            yield {key: v for key, v in value.items() if key != k}
        yield {**value, "extra": 1}
    elif isinstance(value, list):
        for i in range(len(value)):
            for variant in _mutations(value[i], rng):
                yield value[:i] + [variant] + value[i + 1 :]


def test_fuzzed_tables_always_give_the_cold_result(project):
    """Truncated bytes, flipped bytes, a wrong schema, wrong types under a valid signature and
    entries moved to another file: the decoder returns a table that reproduces the cold
    findings or none at all; the run never exits 2."""
    rng = random.Random(23)
    expected = cold(project)
    run_check("server.py")
    table = tables(project)[0]
    name = f"{table.parent.name}/{table.name}"
    key = cache_key.user_key()
    original = table.read_bytes()
    header, _, body = original.partition(b"\n")
    raw = [original[:cut] for cut in sorted(rng.sample(range(len(original)), 100))]
    raw += [
        bytes(b ^ 0x20 if i == flip else b for i, b in enumerate(original))
        for flip in rng.sample(range(len(original)), 100)
    ]
    schema = cache_codec.SCHEMA
    raw.append(original.replace(b"cache %d " % schema, b"cache %d " % (schema - 1), 1))
    signed = []
    decoded = json.loads(body)
    for variant in _mutations(decoded, rng):
        signed.append(json.dumps(variant).encode())
    ((path, entry),) = decoded["entries"].items()
    signed.append(json.dumps({"entries": {"other.py": entry}}).encode())
    signed.append(json.dumps({"entries": {path: entry, "other.py": entry}}).encode())
    cases = raw + [
        b"%s %d %s\n"
        % (cache_codec.MAGIC, cache_codec.SCHEMA, cache_key.sign(key, name.encode() + b"\n" + text).encode())
        + text
        for text in signed
    ]
    assert len(cases) > 240
    for case in cases:
        entries = cache_codec.decode_table(key, name, case)
        if entries is not None and path in entries:
            result = entries[path][2]
            assert sorted((f.code, f.line) for f in result.findings) == expected or case == original
    for case in rng.sample(cases, 12):
        table.write_bytes(case)
        (project / "server.py").write_text(SOURCE)  # new stat: the digest decides
        assert run_check("server.py")[1] == expected
