"""Issue 12 #8: a safe fix never edits a capability literal that a test compares or expects."""

from pathlib import Path

from mcp_migrate.api import fix_bytes

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "RT006" / "expected_literal.py"


def test_rt006_safe_fix_leaves_expected_values_alone():
    data = FIXTURE.read_bytes()
    fixed = fix_bytes(data, str(FIXTURE), unsafe=False).fixed_source.decode()
    assert '    caps = {"roots": {}}\n' in fixed  # the product code is fixed
    for line in data.decode().splitlines()[9:]:
        assert line in fixed.splitlines()  # the test function is untouched
