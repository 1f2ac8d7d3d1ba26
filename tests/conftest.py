"""Every test gets its own results cache: a cached result from one test (or a developer's
earlier run) must never answer for another test's monkeypatched engine. The cache's signing key
lives in a folder of the test session's own, never in the developer's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_results_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCP_MIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("results-cache")))


@pytest.fixture(autouse=True, scope="session")
def _private_cache_key(tmp_path_factory):
    """XDG_CACHE_HOME for the whole session (the key is read once per process)."""
    import os

    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture
def default_signals():
    """SIGINT, SIGHUP and SIGTERM as a terminal leaves them, for this test and the processes it
    starts: a suite run under `nohup` or as a background job of a script inherits SIGHUP or
    SIGINT ignored, and an ignored signal stays ignored in every child."""
    import signal

    wanted = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    if hasattr(signal, "SIGHUP"):
        wanted[signal.SIGHUP] = signal.SIG_DFL
    saved = {signum: signal.getsignal(signum) for signum in wanted}
    for signum, handler in wanted.items():
        signal.signal(signum, handler)
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)
