"""`vocabulary.wire.in_test_code`: which modules are test code, whose hand-built requests are
input to the code under test (issue 35 §3). pytest's own naming, on either separator."""

import pytest

from mcp_migrate.vocabulary.wire import in_test_code


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_roots.py",
        "/repo/tests/helpers/fake_server.py",
        "/repo/test/fake.py",
        "src/pkg/test_client.py",
        "src/pkg/client_test.py",
        "conftest.py",
        "C:\\repo\\tests\\fake.py",
    ],
)
def test_test_code(path):
    assert in_test_code(path) is True


@pytest.mark.parametrize(
    "path",
    [
        "src/pkg/server.py",
        "src/pkg/latest.py",
        "src/attestation.py",
        "src/testing/fake.py",
        "contest.py",
        "",
        "<stdin>",
    ],
)
def test_not_test_code(path):
    assert in_test_code(path) is False
