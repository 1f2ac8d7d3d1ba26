"""A finding's words, as ruff writes them: a short **message** (what is wrong, at most
MAX_MESSAGE characters, no advice) and a **help** (what to do, as long as it needs). Concise
lines and GitHub annotations show the message; the full format shows the help under the
snippet; JSON and SARIF carry both, apart."""

from __future__ import annotations

from typing import NamedTuple

from mcp_migrate.core.lazy_regex import lazy_compile

#: The longest message a finding may have (ruff's are about 40; a concise line stays one line;
#: the report schema's `maxLength`).
MAX_MESSAGE = 90

#: A code span: an identifier or a snippet between backticks, never cut.
_CODE_SPAN = lazy_compile(r"`[^`]*`")
#: Where trailing prose may be dropped: before `, `, `; ` or ` (` outside code spans.
_CLAUSE = lazy_compile(r",\s|;\s|\s\(")
#: A span that is a name (`pkg.func`, `func()`), elided as "this name"; anything else is code.
_NAME_SPAN = lazy_compile(r"^`[\w.]+(?:\(\))?`$")


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


def fit(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` in at most `limit` characters, never cutting a code span or a word: trailing prose
    clauses without code are dropped first (`, deprecated by SEP-2577`) while two words of prose
    are left before them (`runs `x`, a helper that asks` keeps its helper), then the longest code
    span gives way to a generic noun (`this name`, `this code`), and prose alone is cut at a
    space. A long identifier is shown whole or not at all."""
    if len(text) <= limit:
        return text
    spans = [m.span() for m in _CODE_SPAN.finditer(text)]
    cuts = [m.start() for m in _CLAUSE.finditer(text) if not any(a < m.start() < b for a, b in spans)]
    for cut in reversed(cuts):
        if len(text) <= limit:
            break
        if "`" in text[cut:] or len(_CODE_SPAN.sub("", text[:cut]).split()) < 2:
            break  # a clause with code stays, and so does the prose that says what is wrong
        text = text[:cut]
    while len(text) > limit:
        spans = [m.span() for m in _CODE_SPAN.finditer(text)]
        if not spans:
            break
        start, end = max(spans, key=lambda span: span[1] - span[0])
        noun = "this name" if _NAME_SPAN.match(text[start:end]) else "this code"
        text = text[:start] + noun + text[end:]
    if len(text) > limit:
        head = text[: limit - 3]
        head = head[: head.rfind(" ")] if " " in head else head
        text = head.rstrip(" ,;:") + "..."
    return text


def shorten(text: str, limit: int = 60) -> str:
    """Whitespace folded, cut to about `limit` characters with `...`: snippets in messages. The
    cut falls between tokens, never inside a name (`str(root.uri)...`, not `str(root.u...`); a
    single name longer than `limit` stays whole (the message's own fit, core.messages.fit,
    keeps the finding within its length)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = limit - 3
    while cut > 0 and _word_char(text[cut - 1]) and _word_char(text[cut]):
        cut -= 1
    head = text[:cut].rstrip(" .")
    return head + "..." if head else text


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def shorten_dotted(qualified: str, limit: int) -> str:
    """A qualified name's last components that fit (`...MCPProtocolHandler.send_roots_request`):
    the function is what a reader looks for, not its package."""
    if len(qualified) <= limit:
        return qualified
    parts = qualified.split(".")
    kept = [parts.pop()]
    while parts and len(parts[-1]) + 1 + len(".".join(kept)) <= limit - 3:
        kept.insert(0, parts.pop())
    return "..." + ".".join(kept)
