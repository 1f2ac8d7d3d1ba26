"""A results-cache table read entry by entry (project.cache_table) and saved by merging lines
(issue 37: a warm run's memory)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_migrate.core.findings import FileResult, Finding
from mcp_migrate.project import cache_codec, cache_key
from mcp_migrate.project.cache import ResultCache
from mcp_migrate.project.cache_table import StoredTable

KEY, NAME = b"K" * 32, "fp/table.json"


def _finding(path: str) -> Finding:
    return Finding(path, 3, 5, 3, 9, "RT001", "roots-request", "asks for roots", "deprecated", "none", "")


def _entries() -> dict:
    return {
        "a.py": ("d1", (1, 2, 3, 4, 5), FileResult("a.py")),
        "sub/b.py": ("d2", None, FileResult("sub/b.py", findings=[_finding("sub/b.py")])),
        "tab\tand line\nend.py": ("d3", None, FileResult("tab\tand line\nend.py", previewed=True)),
    }


def _write(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "table.json"
    path.write_bytes(data)
    return str(path)


def _opened(tmp_path: Path, data: bytes, limit: int = 1 << 20) -> StoredTable | None:
    return StoredTable.open(KEY, NAME, _write(tmp_path, data), limit)


def _signed(body: bytes) -> bytes:
    mac = cache_key.sign(KEY, NAME.encode() + b"\n" + body)
    return b"%s %d %s\n" % (cache_codec.MAGIC, cache_codec.SCHEMA, mac.encode()) + body


def test_each_entry_is_found_by_its_path_and_decodes_as_written(tmp_path):
    entries = _entries()
    data = cache_codec.encode_table(KEY, NAME, entries)
    assert data.count(b"\n") == 1 + len(entries), "one header line, then one line per file"
    table = _opened(tmp_path, data)
    assert table is not None
    for path, (digest, stat, result) in entries.items():
        text = table.entry_text(path)
        assert text is not None and b"\n" not in text
        assert cache_codec.decode_entry(path, text) == (digest, stat, result)
    assert table.entry_text("c.py") is None
    assert table.entry_text("a.py ") is None


@pytest.mark.parametrize("where", ["header", "first line", "last byte"])
def test_a_table_changed_anywhere_opens_as_none(tmp_path, where):
    data = bytearray(cache_codec.encode_table(KEY, NAME, _entries()))
    at = {"header": 20, "first line": data.index(b"\n") + 3, "last byte": len(data) - 2}[where]
    data[at] ^= 0x01
    assert _opened(tmp_path, bytes(data)) is None


def test_another_key_name_schema_or_size_opens_as_none(tmp_path):
    data = cache_codec.encode_table(KEY, NAME, _entries())
    path = _write(tmp_path, data)
    assert StoredTable.open(KEY, NAME, path, len(data)) is not None
    assert StoredTable.open(b"B" * 32, NAME, path, len(data)) is None
    assert StoredTable.open(KEY, "fp/other.json", path, len(data)) is None
    assert StoredTable.open(KEY, NAME, path, len(data) - 1) is None, "over the size limit: not read"
    older = data.replace(b"cache %d " % cache_codec.SCHEMA, b"cache %d " % (cache_codec.SCHEMA - 1), 1)
    assert _opened(tmp_path, older) is None
    assert StoredTable.open(KEY, NAME, str(tmp_path / "missing.json"), 1 << 20) is None


def test_a_signed_line_without_a_tab_or_a_line_end_opens_as_none(tmp_path):
    good = cache_codec.entry_line("a.py", "d", None, FileResult("a.py"))
    assert _opened(tmp_path, _signed(good)) is not None
    assert _opened(tmp_path, _signed(good.replace(b"\t", b" "))) is None
    assert _opened(tmp_path, _signed(good[:-1])) is None


def test_a_path_on_two_lines_is_a_miss_and_the_others_are_found(tmp_path):
    a = cache_codec.entry_line("a.py", "d1", None, FileResult("a.py"))
    b = cache_codec.entry_line("b.py", "d2", None, FileResult("b.py"))
    a_again = cache_codec.entry_line("a.py", "d3", None, FileResult("a.py"))
    table = _opened(tmp_path, _signed(a + b + a_again))
    assert table is not None
    assert table.entry_text("a.py") is None
    assert cache_codec.decode_entry("b.py", table.entry_text("b.py"))[0] == "d2"


def test_a_table_cut_short_after_it_was_opened_is_a_miss(tmp_path):
    data = cache_codec.encode_table(KEY, NAME, _entries())
    path = _write(tmp_path, data)
    table = StoredTable.open(KEY, NAME, path, 1 << 20)
    assert table is not None
    os.truncate(path, data.index(b"\n") + 10)  # (the cache itself never writes into a table)
    assert [table.entry_text(p) for p in _entries()] == [None, None, None]


def test_a_closed_table_finds_nothing(tmp_path):
    table = _opened(tmp_path, cache_codec.encode_table(KEY, NAME, _entries()))
    table.close()
    table.close()
    assert table.entry_text("a.py") is None


# The cache over tables read entry by entry ---------------------------------------------------


class _Settings:
    """A Settings stand-in: the cache keys a table by the value's fields."""

    def __init__(self, **fields) -> None:
        self.__dict__.update(fields)


def _cache(root: Path) -> ResultCache:
    """The cache in `root`/cache (a folder it makes for itself on its first save)."""
    return ResultCache(str(root / "cache"), KEY)


def _table_file(root: Path) -> Path:
    (found,) = [p for p in (root / "cache").rglob("*.json")]
    return found


def test_a_malformed_entry_is_a_miss_for_its_file_alone(tmp_path):
    settings = _Settings(select="RT001")
    first = _cache(tmp_path)
    first.put("a.py", b"A", settings, FileResult("a.py", findings=[_finding("a.py")]))
    first.put("b.py", b"B", settings, FileResult("b.py"))
    first.save()
    table = _table_file(tmp_path)
    lines = table.read_bytes().partition(b"\n")[2].splitlines(keepends=True)
    broken = [line.replace(b'"line":3', b'"line":"3"') for line in lines]
    assert broken != lines
    table.write_bytes(cache_codec.encode_lines(KEY, first._table_name(settings), broken))
    again = _cache(tmp_path)
    assert again.get("a.py", b"A", settings) is None, "its finding's line is not an int: a miss"
    assert again.get("b.py", b"B", settings) == FileResult("b.py")


def test_a_save_keeps_the_other_lines_as_they_were_and_replaces_its_own(tmp_path):
    settings = _Settings(select="RT001")
    first = _cache(tmp_path)
    for path in ("a.py", "b.py", "c.py"):
        first.put(path, path.encode(), settings, FileResult(path))
    first.save()
    table = _table_file(tmp_path)
    before = table.read_bytes().partition(b"\n")[2].splitlines(keepends=True)
    second = _cache(tmp_path)
    assert second.get("b.py", b"b.py", settings) == FileResult("b.py")
    second.put("b.py", b"new", settings, FileResult("b.py", findings=[_finding("b.py")]))
    second.put("d.py", b"d.py", settings, FileResult("d.py"))
    second.save()
    after = table.read_bytes().partition(b"\n")[2].splitlines(keepends=True)
    assert [cache_codec.line_path(line) for line in after] == [b'"a.py"', b'"b.py"', b'"c.py"', b'"d.py"']
    assert after[0] == before[0] and after[2] == before[2]
    third = _cache(tmp_path)
    assert third.get("b.py", b"new", settings).findings == [_finding("b.py")]
    assert third.get("b.py", b"b.py", settings) is None
    assert third.get("d.py", b"d.py", settings) == FileResult("d.py")
