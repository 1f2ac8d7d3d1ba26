"""A finding's words, as ruff writes them: a short **message** (what is wrong, at most
MAX_MESSAGE characters, no advice) and a **help** (what to do, as long as it needs). Concise
lines and GitHub annotations show the message; the full format shows the help under the
snippet; JSON and SARIF carry both, apart."""

from __future__ import annotations

from typing import NamedTuple

#: The longest message a finding may have (ruff's are about 40; a concise line stays one line).
MAX_MESSAGE = 90


class Message(NamedTuple):
    """A rule's message and help, formatted together: `MSG.format(name=...)` fills both."""

    text: str
    help: str = ""

    def format(self, **values) -> Message:
        return Message(self.text.format(**values), self.help.format(**values))


def split(message, help_text=None) -> tuple:
    """(message, help) of what a rule reported: a Message, or a plain message and its help."""
    if isinstance(message, Message):
        return message.text, help_text if help_text is not None else message.help
    return message, help_text or ""
