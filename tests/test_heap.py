"""Freed memory given back after a huge module's parse (core.heap): only for a module over the
threshold, only where glibc's malloc_trim is there."""

from __future__ import annotations

import sys

import pytest

from mcp_migrate.core import heap


def test_the_heap_is_release_freed_a_huge_module_only(monkeypatch):
    calls: list = []
    monkeypatch.setattr(heap, "_trim", calls.append)
    monkeypatch.setattr(sys, "platform", "linux")
    heap.release_freed(heap.HUGE_BYTES - 1)
    assert calls == []
    heap.release_freed(heap.HUGE_BYTES)
    assert calls == [0]
    monkeypatch.setattr(sys, "platform", "darwin")
    heap.release_freed(heap.HUGE_BYTES)
    assert calls == [0]


def test_no_malloc_trim_is_no_error(monkeypatch):
    monkeypatch.setattr(heap, "_trim", False)
    monkeypatch.setattr(sys, "platform", "linux")
    heap.release_freed(heap.HUGE_BYTES)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim is Linux's")
def test_glibcs_malloc_trim_is_found_here(monkeypatch):
    monkeypatch.setattr(heap, "_trim", None)
    heap.release_freed(heap.HUGE_BYTES)
    assert heap._trim, "glibc's malloc_trim, looked up once"
