"""What one file's rewrite tells the others in the same run, as typed records.

A fix run first checks every file; each file's analysis leaves `FileNotes` (the tools its RT001
rewrite gives a directories parameter, whether its server still asks for roots after the
rewrites); the run joins them into one `RunPlan` that every file is then fixed with
(`Settings.run`), so a client and its server stay consistent.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class MigratedTool:
    """A tool whose RT001 rewrite adds a parameter: clients calling it must pass the directories.
    `optional`: the parameter has a default (roots only stood in for a missing argument)."""

    tool: str
    parameter: str
    optional: bool = False


@dataclass(frozen=True, order=True)
class ClientCall:
    """A client call a rewrite makes pass the directories: `kind` "tool" (a `call_tool` of
    `target` now passes the parameter `passes`) or "env" (the stdio server `target` is started
    with the environment variable `passes`)."""

    target: str
    passes: str
    kind: str = "tool"


@dataclass
class FileNotes:
    """What one file's analysis tells the run (and the migration report's interface changes)."""

    tools: list = field(default_factory=list)
    #: A server in this file keeps asking for roots (a request no rewrite touched, or an
    #: era-portable bridge kept on purpose).
    still_asks: bool = False
    #: Environment variables this file's rewrites make the server read (server-config).
    env_vars: list = field(default_factory=list)
    #: ClientCalls this file's rewrites make pass the directories.
    client_calls: list = field(default_factory=list)


@dataclass(frozen=True)
class RunPlan:
    """What the whole run knows before any file is fixed."""

    tools: tuple = ()
    #: Some server in the run still asks for roots: clients keep theirs (their tests talk to it).
    server_still_asks: bool = False

    @classmethod
    def joined(cls, notes) -> RunPlan:
        """One plan from every file's notes (order-independent)."""
        notes = list(notes)
        return cls(
            tools=tuple(sorted({tool for note in notes for tool in note.tools})),
            server_still_asks=any(note.still_asks for note in notes),
        )


def server_still_asks(context) -> bool:
    """A server in this fix run still asks for roots: the client's roots stay, or the project's
    own client-server tests would break."""
    return context.settings.run.server_still_asks


def note_still_asks(context) -> None:
    """Record that this file's server keeps asking for roots."""
    context.notes.still_asks = True


def note_migrated_tool(context, tool: MigratedTool) -> None:
    """Record that this file's rewrite gives `tool` a parameter."""
    context.notes.tools.append(tool)


def note_env_var(context, name: str) -> None:
    """Record that this file's rewrite makes the server read the environment variable `name`."""
    if name not in context.notes.env_vars:
        context.notes.env_vars.append(name)


def note_client_call(context, call: ClientCall) -> None:
    """Record that this file's rewrite makes a client call pass the directories."""
    if call not in context.notes.client_calls:
        context.notes.client_calls.append(call)
