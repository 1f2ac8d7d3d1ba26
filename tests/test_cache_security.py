"""The results cache as an attacker sees it: a repository can ship a cache folder, so nothing in
one may run code, alter findings or make the tool write outside its own folder (issue 23)."""

from __future__ import annotations

import dataclasses
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


def test_a_cache_dir_holding_the_checked_files_is_refused(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "."\n')
    before = sorted(p.name for p in project.iterdir())
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert "holds the checked files" in stderr
    assert sorted(p.name for p in project.iterdir()) == before
    assert not (project / ".gitignore").exists() and not (project / "CACHEDIR.TAG").exists()
    assert run_check("server.py")[1] == found, "the next run still sees the files"


def markers_above(project: Path) -> list:
    return [p for p in project.parents for name in MARKERS if (p / name).exists()]


MARKERS = (".gitignore", "CACHEDIR.TAG", cache_module.OWNER_MARK)


@pytest.mark.parametrize(
    "where", ["..", "../..", "/", "../Desktop", "sub/../../Desktop", "{tmp}/Desktop", "link/cache"]
)
def test_a_config_cannot_put_the_cache_outside_its_project(project, tmp_path, where):
    """Issue 33: a cloned repository's `cache-dir = "../Desktop"` adopted the user's (empty)
    Desktop, hid what they saved there later from `tar --exclude-caches-all` and let `clean`
    delete it. A config file's cache-dir may only be inside its project (resolved: `..` and
    symlinks) or the user's cache folder; elsewhere is one warning and the default place."""
    desktop = tmp_path / "Desktop"
    desktop.mkdir()
    (project / "link").symlink_to(desktop)
    (project / "pyproject.toml").write_text(f'[tool.mcp-migrate]\ncache-dir = "{where.format(tmp=tmp_path)}"\n')
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert stderr.count("\n") == 1 and "is outside the project and the user's cache folder: using" in stderr
    assert list(desktop.iterdir()) == [] and not markers_above(project)
    assert (project / ".mcp_migrate_cache" / cache_module.OWNER_MARK).is_file(), "the default place instead"
    assert tables(project) and run_check("server.py")[1] == found


def test_a_config_may_put_the_cache_inside_its_project_or_the_users_cache_folder(project, tmp_path, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "build/../lint-cache"\n')
    assert run_check("server.py")[2] == "" and (project / "lint-cache" / "CACHEDIR.TAG").is_file()
    user_cache = Path(cache_key.user_cache_home())
    (project / "pyproject.toml").write_text(f'[tool.mcp-migrate]\ncache-dir = "{user_cache}/mcp-33-test"\n')
    assert run_check("server.py")[2] == "" and (user_cache / "mcp-33-test" / "CACHEDIR.TAG").is_file()


def test_an_existing_empty_folder_a_config_names_is_not_adopted(project):
    """CACHEDIR.TAG goes only into a folder mcp-migrate created: an empty folder already there
    is someone's (the user may fill it later)."""
    (project / "build").mkdir()
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "build"\n')
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "did not create it" in stderr
    assert list((project / "build").iterdir()) == []


def test_an_empty_folder_the_user_names_in_the_environment_is_adopted(project, tmp_path, monkeypatch):
    mine = tmp_path / "ci-cache"
    mine.mkdir()  # `mkdir -p $CACHE` before a CI run restores it
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(mine))
    assert run_check("server.py")[2] == ""
    assert (mine / "CACHEDIR.TAG").is_file() and list(mine.glob("*/*.json"))


def test_a_cache_dir_with_a_nul_is_a_config_error(project):
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "\\u0000"\n')
    result = CliRunner().invoke(cli, ["check", "server.py"])
    assert (result.exit_code, result.stderr) == (
        2,
        "mcp-migrate: error: pyproject.toml: 'cache-dir' must be a path, got '\\x00' (it holds a NUL character)\n",
    )


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
    decoded = {"entries": stored_entries(original)}
    signed = [_body(variant) for variant in _mutations(decoded, rng)]
    ((path, entry),) = decoded["entries"].items()
    signed.append(_body({"entries": {"other.py": entry}}))
    signed.append(_body({"entries": {path: entry, "other.py": entry}}))
    signed.append(_lines({path: entry}) * 2)  # one path on two lines
    cases = raw + [signed_table(key, name, text) for text in signed]
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


# The signing key (issue 33 B) ----------------------------------------------------------------------


@pytest.fixture
def fresh_key():
    """The key is read once per process: read it again for this test, and again after it."""
    cache_key.load_key.cache_clear()
    yield
    cache_key.load_key.cache_clear()


def ship_forged_cache(project: Path, monkeypatch, key: bytes) -> None:
    """What a repository can commit: a cache folder whose tables, signed with `key`, say "no
    findings" for every file, its owner mark signed with the same key."""
    with monkeypatch.context() as patched:
        patched.setattr(cache_key, "user_key", lambda: key)
        run_check("server.py")
    for table in tables(project):
        name = f"{table.parent.name}/{table.name}"
        entries = cache_codec.decode_table(key, name, table.read_bytes())
        emptied = {path: (digest, stat, cache_codec.FileResult(path)) for path, (digest, stat, _) in entries.items()}
        table.write_bytes(cache_codec.encode_table(key, name, emptied))


@pytest.mark.parametrize("checked", ["server.py", "."])
def test_a_key_shipped_inside_the_checkout_is_never_read(project, monkeypatch, fresh_key, checked):
    """`XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache` (the usual CI idiom) put the key inside the tree
    being checked: a repository shipped the key with a signed table and got "no findings",
    exit 0. The key there is not read (nor created): the run is cold, with one warning."""
    expected = cold(project)
    shipped = b"K" * cache_key.KEY_BYTES
    ship_forged_cache(project, monkeypatch, shipped)
    key_file = project / ".cache" / "mcp-migrate" / "key"
    key_file.parent.mkdir(parents=True, mode=0o700)
    key_file.write_bytes(shipped)
    key_file.chmod(0o600)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    code, found, stderr = run_check(checked)
    assert (code, [f for f in found if f[0] == "RT001"]) == (1, expected)
    assert stderr == (
        "mcp-migrate: warning: results cache off: the cache's private key .cache/mcp-migrate/key is inside the "
        "checked files (a repository could ship one); set XDG_CACHE_HOME to a folder outside .\n"
    )


def test_no_key_is_made_inside_the_checkout(project, monkeypatch, fresh_key):
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "is inside the checked files" in stderr
    assert not (project / ".cache").exists() and not (project / ".mcp_migrate_cache").exists()


@pytest.mark.parametrize("loose", ["key", "folder"])
def test_a_key_others_can_write_is_not_trusted(project, tmp_path, monkeypatch, fresh_key, loose):
    """Another user who can write the key (or replace it in its folder) can sign "no findings"."""
    expected = cold(project)
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    run_check("server.py")  # makes the key, private
    key_file = home / "mcp-migrate" / "key"
    assert key_file.stat().st_mode & 0o777 == 0o600 and key_file.parent.stat().st_mode & 0o777 == 0o700
    ship_forged_cache(project, monkeypatch, key_file.read_bytes())  # the other user's forgery
    (key_file if loose == "key" else key_file.parent).chmod(0o666 if loose == "key" else 0o777)
    cache_key.load_key.cache_clear()
    code, found, stderr = run_check("server.py")
    assert (code, found) == (1, expected)
    shown = key_file if loose == "key" else key_file.parent
    what = "the cache's private key" if loose == "key" else "the folder of the cache's key"
    assert stderr == (
        f"mcp-migrate: warning: results cache off: {what} {shown} can be written by other users: not trusted "
        "(make it private: chmod go-w)\n"
    )


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_a_key_another_user_owns_is_not_trusted(project, tmp_path, monkeypatch, fresh_key):
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    run_check("server.py")
    key_file = home / "mcp-migrate" / "key"
    os.chown(key_file, 12345, 12345)
    cache_key.load_key.cache_clear()
    code, found, stderr = run_check("server.py")
    assert found == cold(project)
    assert stderr == (
        f"mcp-migrate: warning: results cache off: the cache's private key {key_file} belongs to another user "
        "(uid 12345): not trusted\n"
    )


# mcp-migrate clean removes only what the cache wrote (issue 33 A) ----------------------------------


def clean(*args):
    return CliRunner().invoke(cli, ["clean", *args], catch_exceptions=False)


def test_clean_removes_only_the_caches_own_files_and_keeps_a_folder_with_others(project, tmp_path, monkeypatch):
    """The user saved files into a folder that is (also) the cache: `clean` removed them all
    with the folder. Now it removes its own files (CACHEDIR.TAG too: the user's files are no
    longer hidden from backups), keeps theirs and the folder, and says so."""
    folder = tmp_path / "Desktop"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(folder))
    run_check("server.py")
    fingerprint = next(folder.glob("*/*.json")).parent
    (folder / "notes.txt").write_text("mine\n")
    (folder / "photos").mkdir()
    (folder / "photos" / "a.jpg").write_bytes(b"\xff\xd8")
    (fingerprint / "draft.json").write_text("{}")  # not a table's name
    (fingerprint / ("0" * 24 + ".json")).write_text("{}")  # a table's name, not its format
    result = clean()
    assert result.exit_code == 0
    assert result.stdout == f"Removing cache at: {folder}\n"
    assert result.stderr == (
        f"mcp-migrate: warning: {folder} kept: 4 entries mcp-migrate did not write "
        f"({fingerprint.name}/{'0' * 24}.json, {fingerprint.name}/draft.json, notes.txt and 1 more)\n"
    )
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == sorted(
        [
            "notes.txt",
            "photos",
            "photos/a.jpg",
            fingerprint.name,
            f"{fingerprint.name}/draft.json",
            f"{fingerprint.name}/{'0' * 24}.json",
        ]
    )
    code, found, stderr = run_check("server.py")
    assert found == cold(project) and "did not create it" in stderr, "no longer taken for a cache"
    assert sorted(p.name for p in folder.iterdir()) == sorted(["notes.txt", "photos", fingerprint.name])


def test_clean_removes_a_cache_whole_with_a_killed_writes_leftovers(project, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(folder))
    run_check("server.py")
    table = next(folder.glob("*/*.json"))
    (table.parent / f".{table.name}.ab12cd34.mcp-migrate").write_bytes(b"half")
    (folder / ".CACHEDIR.TAG.zz99yy88.mcp-migrate").write_bytes(b"")
    result = clean()
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"Removing cache at: {folder}\n", "")
    assert not folder.exists()


def test_clean_never_follows_a_config_outside_the_project(project, tmp_path, monkeypatch):
    desktop = tmp_path / "Desktop"
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(desktop))
    run_check("server.py")  # a real cache of this user's there, made on purpose
    monkeypatch.delenv("MCP_MIGRATE_CACHE_DIR")
    (project / "pyproject.toml").write_text('[tool.mcp-migrate]\ncache-dir = "../Desktop"\n')
    before = sorted(desktop.rglob("*"))
    result = clean()
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == (
        "mcp-migrate: warning: cache-dir '../Desktop' in pyproject.toml is outside the project and the user's "
        "cache folder: using .mcp_migrate_cache (set MCP_MIGRATE_CACHE_DIR to put the cache elsewhere)\n"
    )
    assert sorted(desktop.rglob("*")) == before


def test_clean_trusts_no_key_inside_the_paths_it_cleans(project, monkeypatch, fresh_key):
    shipped = b"K" * cache_key.KEY_BYTES
    ship_forged_cache(project, monkeypatch, shipped)
    (project / ".mcp_migrate_cache" / "keep.txt").write_text("mine\n")
    key_file = project / ".cache" / "mcp-migrate" / "key"
    key_file.parent.mkdir(parents=True, mode=0o700)
    key_file.write_bytes(shipped)
    key_file.chmod(0o600)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    result = clean()
    assert result.exit_code == 0 and result.stdout == ""
    assert (
        "no cache removed: the cache's private key .cache/mcp-migrate/key is inside the checked files" in result.stderr
    )
    assert (project / ".mcp_migrate_cache" / "keep.txt").is_file() and tables(project)


# A result with nothing to say, stored short (issue 37: memory of a warm run) ------------------


def test_an_empty_result_is_stored_short_and_read_back_as_it_was():
    """Most of a tree's files hold nothing: their entries carry no result body, only whether it
    was previewed; a result with anything in it (a dependency) keeps its body."""
    from mcp_migrate.core.findings import FileResult

    key, name = b"K" * 32, "fp/table.json"
    entries = {
        "plain.py": ("d1", (1, 2, 3, 4, 5), FileResult("plain.py")),
        "shown.py": ("d2", None, FileResult("shown.py", previewed=True)),
        "helper.py": ("d3", None, FileResult("helper.py", depends=(("h.py", 10, 20),))),
    }
    data = cache_codec.encode_table(key, name, entries)
    stored = stored_entries(data)
    assert [set(stored[p]) for p in entries] == [{"digest", "stat", "empty"}] * 2 + [{"digest", "stat", "result"}]
    back = cache_codec.decode_table(key, name, data)
    assert {p: (d, s, r.previewed, r.depends, r.findings) for p, (d, s, r) in back.items()} == {
        "plain.py": ("d1", (1, 2, 3, 4, 5), False, (), []),
        "shown.py": ("d2", None, True, (), []),
        "helper.py": ("d3", None, False, (("h.py", 10, 20),), []),
    }


@pytest.mark.parametrize(
    "entry", [{"digest": "d", "stat": None, "empty": 1}, {"digest": "d", "stat": None, "empty": True, "result": {}}]
)
def test_a_short_entry_that_is_not_one_is_a_miss(entry):
    key, name = b"K" * 32, "fp/table.json"
    data = signed_table(key, name, _lines({"a.py": entry}))
    assert cache_codec.decode_table(key, name, data) is None


# The questions a check asked of its run's plan (core.coordination.AskedPlan) ---------------------


def test_a_results_plan_questions_are_kept_as_plain_data():
    """A warm run's result keeps what its check asked of the plan, so the run need not check the
    file again under a plan that answers alike; an empty result asked nothing worth keeping."""
    from mcp_migrate.core.findings import FileResult

    key, name = b"K" * 32, "fp/table.json"
    asked = (("tests_go_with_code", (), False), ("warned", (), ("f()",)), ("client_fix", ("unsafe",), None))
    entries = {
        "t.py": ("d1", None, dataclasses.replace(_with_a_finding("t.py"), plan_asked=asked)),
        "old.py": ("d2", None, dataclasses.replace(_with_a_finding("old.py"), plan_asked=None)),
        "quiet.py": ("d3", None, FileResult("quiet.py", plan_asked=(("warned", (), ()),))),
    }
    data = cache_codec.encode_table(key, name, entries)
    assert set(stored_entries(data)["quiet.py"]) == {"digest", "stat", "empty"}
    back = cache_codec.decode_table(key, name, data)
    assert {p: r.plan_asked for p, (_, _, r) in back.items()} == {"t.py": asked, "old.py": None, "quiet.py": None}


@pytest.mark.parametrize("asked", [{}, [["warned", [], 1]], [["warned", "x", []]], [[1, [], True]], [["warned", []]]])
def test_plan_questions_that_are_not_plain_data_are_a_miss(asked):
    key, name = b"K" * 32, "fp/table.json"
    good = cache_codec.encode_table(key, name, {"t.py": ("d", None, _with_a_finding("t.py"))})
    entries = stored_entries(good)
    entries["t.py"]["result"]["plan_asked"] = asked
    data = signed_table(key, name, _lines(entries))
    assert cache_codec.decode_table(key, name, good) is not None
    assert cache_codec.decode_table(key, name, data) is None


def _with_a_finding(path: str):
    from mcp_migrate.core.findings import FileResult, Finding

    finding = Finding(path, 1, 1, 1, 2, "RT001", "roots-request", "asks", "deprecated", "none", "")
    return FileResult(path, findings=[finding], plan_asked=(("warned", (), ()),))


# The table's layout (project.cache_codec): one signed line per file ----------------------------


def stored_entries(data: bytes) -> dict:
    """path -> the entry's JSON of a table's bytes (its lines: path key, tab, entry)."""
    lines = data.partition(b"\n")[2].splitlines()
    return {json.loads(line.partition(b"\t")[0]): json.loads(line.partition(b"\t")[2]) for line in lines}


def _lines(entries: dict) -> bytes:
    """Table lines for {path: entry JSON}, in the layout encode_table writes."""
    return b"".join(
        b"%s\t%s\n" % (json.dumps(path).encode(), json.dumps(entry).encode()) for path, entry in entries.items()
    )


def _body(variant) -> bytes:
    """A fuzzed {"entries": {...}} as table lines; any other shape as one line (no tab)."""
    if isinstance(variant, dict) and isinstance(variant.get("entries"), dict):
        return _lines(variant["entries"])
    return json.dumps(variant).encode() + b"\n"


def signed_table(key: bytes, name: str, body: bytes) -> bytes:
    """`body` under a valid header: what a forger holding the key could write."""
    mac = cache_key.sign(key, name.encode() + b"\n" + body)
    return b"%s %d %s\n" % (cache_codec.MAGIC, cache_codec.SCHEMA, mac.encode()) + body
