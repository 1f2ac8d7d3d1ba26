"""core.collector: a parse runs without the cyclic collector, and the young objects it made are
not scanned when it ends (issue 37: 0.5-0.8 s of mcp-context-forge's check was the collector
scanning fresh syntax trees once each), while garbage with cycles is still the collector's."""

from __future__ import annotations

import gc
import weakref

import pytest

from mcp_migrate.core.collector import collector_paused


@pytest.fixture
def small_threshold():
    """A young generation of 1,000 objects, as the process's 200,000 is to a big module's tree."""
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.collect()
    gc.set_threshold(1_000, 10, 10)
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        (gc.enable if enabled else gc.disable)()


def _collections_during(work) -> list:
    started: list = []

    def note(phase, info):
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        work()
    finally:
        gc.callbacks.remove(note)
    return started


def test_the_collector_is_left_as_it_was(small_threshold):
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
    gc.enable()


def test_a_tree_made_in_the_block_is_not_scanned_when_it_ends(small_threshold):
    def build():
        with collector_paused():
            tree = [[i] for i in range(5_000)]  # 5,000 young objects, the threshold 1,000
            assert not _collections_during(lambda: [[i] for i in range(2_000)])  # paused
        kept.append(tree)

    kept: list = []
    assert not _collections_during(build)
    assert gc.get_count()[0] < 1_000
    assert not _collections_during(lambda: [[i] for i in range(500)])  # the next allocations
    assert gc.is_tracked(kept[0][0])


def test_a_small_block_leaves_the_young_generation_as_it_was(small_threshold):
    with collector_paused():
        kept = [[i] for i in range(100)]
    assert gc.get_count()[0] >= 100 and kept


def test_garbage_with_cycles_is_still_collected(small_threshold):
    class Node:
        pass

    first, second = Node(), Node()
    first.other, second.other = second, first
    alive = weakref.ref(first)
    del first, second
    with collector_paused():
        tree = [[i] for i in range(5_000)]
    assert alive() is not None  # promoted with everything else, unscanned
    gc.collect()
    assert alive() is None and tree
