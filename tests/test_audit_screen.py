"""The screen that decides whether a file's suppression comments and review markers are audited
(core.screening): asked through the byte screens' kept answers, with the two `lint-` markers
searched for only where `lint-` is, it lets exactly the files through that searching each
marker did."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_migrate.api import default_settings
from mcp_migrate.api import settings as settings_for
from mcp_migrate.core import screening
from mcp_migrate.core.catalog import load_catalog
from mcp_migrate.core.codes import REVIEW_PENDING_CODE, REVIEW_TOKEN, UNUSED_SUPPRESSION_CODE
from mcp_migrate.core.suppress import MARKERS

SELECTIONS = {
    "all": default_settings(),
    "no audit": settings_for(frozenset(load_catalog()) - {UNUSED_SUPPRESSION_CODE, REVIEW_PENDING_CODE}),
}

PIECES = st.sampled_from(
    [b"noqa", b"noq", b"mcp-migrate:", b"mcp-migrate", b"lint-", b"lint-fixme", b"lint-ignore", b"lint-fix"]
    + [b"RT001", b"HA", b"RT", b"# ", b"x", b"\n", b"-", b":"]
)


def _searched(data: bytes, selected) -> bool:
    """What the screen answered when it searched for each marker and code prefix in turn."""
    prefixes = {code[:3].encode() for code in load_catalog()}
    stale = (
        UNUSED_SUPPRESSION_CODE in selected.select
        and any(marker in data for marker in MARKERS)
        and any(prefix in data for prefix in prefixes)
    )
    return stale or (REVIEW_PENDING_CODE in selected.select and REVIEW_TOKEN in data)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=12).map(b"".join), st.sampled_from(sorted(SELECTIONS)))
def test_the_audit_screen_answers_as_searching_every_marker(data, name):
    selected = SELECTIONS[name]
    found = screening._may_hold_suppressions(data, selected) or screening._may_hold_markers(data, selected)
    assert found == _searched(data, selected)
    copy = bytes(bytearray(data))  # the same bytes as another object: answers kept per object
    assert (screening._may_hold_suppressions(copy, selected) or screening._may_hold_markers(copy, selected)) == found


def test_each_marker_opens_the_audit_alone():
    for marker in MARKERS:
        assert screening._may_hold_suppressions(b"x = 1  # " + marker + b" RT001\n", SELECTIONS["all"])
        assert not screening._may_hold_suppressions(b"x = 1  # " + marker + b"\n", SELECTIONS["all"])
    assert not screening._may_hold_suppressions(b"# lint-other RT001\n", SELECTIONS["all"])
