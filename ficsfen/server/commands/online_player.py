"""The logged-in player a command's optional handle names (``variables``, ``ping``...)."""

from __future__ import annotations

from ficsfen.names import NameResolutionError
from ficsfen.server.interfaces import IServerCaller

__all__ = ["online_player"]


def online_player(caller: IServerCaller, who: str | None) -> IServerCaller | None:
    """The logged-in player ``who`` names (exact handle or unique prefix), the caller
    when ``who`` is ``None``; ``None`` once the caller is sent why nobody is named
    (nobody, or several players)."""
    if who is None:
        return caller
    try:
        return caller.players.named(who)
    except NameResolutionError as e:
        caller.send(e.message)
        return None
