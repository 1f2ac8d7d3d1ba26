"""Messages never cut a name in half (`_handle_roots_cha...`): a message over MAX_MESSAGE (the
report schema's maxLength) loses trailing prose first, then a whole code span gives way to a
generic noun; a name is shown whole or not at all, and the help keeps the whole message."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_migrate.api import check_source
from mcp_migrate.core.messages import MAX_MESSAGE, fit, shorten

#: Identifiers of every length up to 150, spread evenly (a regex strategy favours short ones).
NAMES = st.integers(min_value=0, max_value=150).flatmap(
    lambda n: st.tuples(st.sampled_from("_aZ"), st.text(alphabet="abcXYZ_019", min_size=n, max_size=n)).map("".join)
)
SPAN = re.compile(r"`[^`]*`")
HANDLER = "import mcp.types as types\n\nasync def {name}(note: types.RootsListChangedNotification):\n    ...\n"


def rt005_message(name: str):
    (finding,) = [f for f in check_source(HANDLER.format(name=name)) if f.code == "RT005"]
    return finding


def test_a_long_handler_name_is_shown_whole():
    name = "_handle_roots_changed_notification_from_the_client"
    finding = rt005_message(name)
    assert finding.message == f"`{name}` handles roots `list_changed`"
    # The whole message leads the rule's help (after the note of a suggested removal, if any).
    assert f"; `{name}` handles roots `list_changed`, removed in the 2026-07-28 revision; " in f"; {finding.help}"


def test_a_name_too_long_for_any_message_gives_way_to_a_noun():
    name = "h" * 80
    finding = rt005_message(name)
    assert finding.message == "this name handles roots `list_changed`"
    assert f"`{name}`" in finding.help


@settings(max_examples=40, deadline=None)
@given(NAMES)
def test_a_finding_shows_its_name_whole_or_not_at_all(name):
    message = rt005_message(name).message
    assert len(message) <= MAX_MESSAGE
    if len(f"`{name}` handles roots `list_changed`") <= MAX_MESSAGE:
        assert f"`{name}`" in message
    else:
        assert name not in message and "..." not in message


TEMPLATES = [
    "a `{n}` parameter typed `ListRootsFnT` supplies roots, deprecated by SEP-2577",
    "`{n}` re-implements the removed roots `list_changed` notification",
    "review pending (RT001): the roots were filtered; the roots are now built from `{n}`",
    "runs `{n}`, a helper of this project that asks for roots (one call away)",
]


def test_fit_keeps_the_prose_that_says_what_is_wrong():
    name = "h" * 70
    assert fit(f"runs `{name}`, a helper of this project that asks for roots (one call away)") == (
        "runs this name, a helper of this project that asks for roots"
    )
    name = "h" * 50
    assert fit(f"`{name}` handles roots `list_changed`, removed in the 2026-07-28 revision") == (
        f"`{name}` handles roots `list_changed`"
    )


@given(NAMES, st.sampled_from(TEMPLATES))
def test_fit_keeps_every_code_span_whole(name, template):
    text = template.format(n=name)
    fitted = fit(text)
    assert len(fitted) <= MAX_MESSAGE
    assert set(SPAN.findall(fitted)) <= set(SPAN.findall(text))  # no span cut or made up
    assert fitted == text or len(text) > MAX_MESSAGE


@given(NAMES, st.integers(min_value=4, max_value=60))
def test_shorten_never_cuts_inside_a_name(name, limit):
    code = f"os.path.realpath({name}).startswith(root)"
    short = shorten(code, limit)
    assert short == code or short.endswith("...")
    kept = short.removesuffix("...")
    assert code.startswith(kept)
    assert not re.search(r"\w$", kept) or not re.match(r"\w", code[len(kept) :])  # a cut between tokens


def test_the_systems_own_words_are_fitted_and_kept_whole_in_the_help():
    from mcp_migrate.core.engine import internal_error_finding
    from mcp_migrate.core.findings import FileError
    from mcp_migrate.run.one_file import io_error

    words = "cannot read " + "/very/long/folder" * 8 + "/x.py: Permission denied"
    finding = io_error("x.py", words)
    assert len(finding.message) <= MAX_MESSAGE and finding.help == words
    assert finding.message.endswith("...") and words.startswith(finding.message[:-3])
    crash = internal_error_finding(FileError("x.py", "RT001", "ValueError: " + "word " * 30))
    assert len(crash.message) <= MAX_MESSAGE and crash.help == "RT001: ValueError: " + "word " * 30
