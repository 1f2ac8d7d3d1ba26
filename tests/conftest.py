"""Every test gets its own results cache: a cached result from one test (or a developer's
earlier run) must never answer for another test's monkeypatched engine."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_results_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("results-cache")))
