"""What a player logging in hears of their adjourned games, and what their opponents hear.

:func:`tell_adjourned` runs as a session logs in
(:meth:`~ficsfen.server.game_service.GameService.arrived`): each opponent
of an adjourned game who is logged in reads FICS's ``Notification: ...
has arrived.`` line; the arriving player reads which opponents are absent,
then FICS's ``N players, who have an adjourned game with you, are online:``
lines, which web clients offer a ``resume`` button for.  Texts clients
parse are rendered in each session's ``parsed_lang``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from ficsfen.i18n import msg, msgn
from ficsfen.names import fold
from ficsfen.server.parsed import parsed

if TYPE_CHECKING:
    from ficsfen.server.broadcaster import Broadcaster
    from ficsfen.server.session import Session

__all__ = ["tell_adjourned"]


def tell_adjourned(session: Session, games: Iterable[Any], *,
                   session_of: Callable[[str], Any], broadcaster: Broadcaster) -> None:
    """``session`` logged in with the adjourned ``games``: tell them and their opponents.

    ``session_of(handle)`` finds a logged-in session (``None``: not logged
    in).  Sends through ``broadcaster`` only; raises nothing of its own.
    """
    online = []
    for game in games:
        other = game.black if fold(game.white) == fold(session.handle) else game.white
        present = session_of(other)
        if present is not None:
            broadcaster.tell(other, parsed(msg(
                "Notification: {handle}, who has an adjourned game with you, has arrived.",
                handle=session.handle)))
            online.append(present.handle)
        else:
            broadcaster.notify(session, msg(
                "You have an adjourned game with {handle}, who is not logged in.",
                handle=other))
    if online:  # FICS's words, which clients (the web ones) offer a "resume" button for
        broadcaster.notify(session, parsed(msgn(
            "{count} player, who has an adjourned game with you, is online:\n{names}",
            "{count} players, who have an adjourned game with you, are online:\n{names}",
            len(online), names=" ".join(online))))
