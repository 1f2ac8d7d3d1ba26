"""Source texts several test modules share: a file whose findings all have safe fixes,
and what fix makes of it."""

FIXABLE = """\
import mcp.types as types
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    await session.send_roots_list_changed()
    await session.send_notification(types.ClientNotification(types.RootsListChangedNotification()))
"""
FIXED = """\
from mcp import ClientSession


async def main(session: ClientSession) -> None:
    pass
"""
