"""What a player logging in hears of their adjourned games, and what their opponents hear.

:func:`tell_adjourned` runs as a session logs in
(:meth:`~ficsfen.server.game_service.GameService.arrived`): each opponent
of an adjourned game who is logged in reads FICS's ``Notification: ...
has arrived.`` line; the arriving player reads which opponents are absent,
then FICS's ``N players, who have an adjourned game with you, are online:``
lines, which web clients offer a ``resume`` button for.  Texts clients
parse are rendered in each session's ``parsed_lang``.  An opponent logged in
on another node of a cluster is told by that node (``elsewhere``), with the
same :func:`arrival_notice`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server.parsed import parsed

if TYPE_CHECKING:
    from ficsfen.server.broadcaster import Broadcaster
    from ficsfen.server.session import Session

__all__ = ["arrival_notice", "tell_adjourned"]


def arrival_notice(handle: str) -> Message:
    """FICS's line to the opponent of ``handle``, who logged in with an adjourned game."""
    return parsed(msg("Notification: {handle}, who has an adjourned game with you, has arrived.",
                      handle=handle))


def tell_adjourned(session: Session, games: Iterable[Any], *,
                   session_of: Callable[[str], Any], broadcaster: Broadcaster,
                   elsewhere: Callable[[str, str], bool] | None = None) -> None:
    """``session`` logged in with the adjourned ``games``: tell them and their opponents.

    ``session_of(handle)`` finds a logged-in player (``None``: not logged
    in); ``elsewhere(opponent, handle)`` tells an opponent on another node of
    a cluster and says whether it did (``False``: they are reached here).
    Sends through ``broadcaster`` only; raises nothing of its own.
    """
    online = []
    for game in games:
        other = game.black if fold(game.white) == fold(session.handle) else game.white
        present = session_of(other)
        if present is not None:
            if elsewhere is None or not elsewhere(other, session.handle):
                broadcaster.tell(other, arrival_notice(session.handle))
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
