"""A player leaves an examined game: who is told, and when the game ends.

:func:`leave_examined` is what ``unexamine`` and a departure do
(:meth:`~ficsfen.server.game_service.GameService.stop_examining`): the
examiner leaves the directory and reads FICS's ``You are no longer
examining game N.``; while others examine it, its watchers read who
stopped; once nobody does, its observers read that it is over and the
game leaves the directory.  These lines are FICS's, which clients parse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ficsfen.i18n import msg
from ficsfen.server.parsed import parsed

if TYPE_CHECKING:
    from ficsfen.server.broadcaster import Broadcaster
    from ficsfen.server.directory import GameDirectory
    from ficsfen.server.interfaces import IExaminedGame

__all__ = ["leave_examined"]


def leave_examined(handle: str, game: IExaminedGame, *, directory: GameDirectory,
                   broadcaster: Broadcaster, session_of: Callable[[str], Any],
                   quiet: bool = False) -> None:
    """``handle`` leaves the examined ``game``; the game ends when nobody examines it.

    ``session_of(handle)`` finds a logged-in session (``None``: not logged
    in); ``quiet``: ``handle`` is not told (they are leaving the server).
    Raises nothing of its own.
    """
    if handle in game.examiners:
        game.examiners.remove(handle)
    directory.leave(handle)
    session = session_of(handle)
    if session is not None and not quiet:
        session.send(parsed(msg("You are no longer examining game {number}.", number=game.number)))
    if game.examiners:
        note = parsed(msg("{handle} has stopped examining game {number}.", handle=handle,
                          number=game.number))
        targets = broadcaster.watchers(game)
    else:
        note = parsed(msg("Game {number} has no examiners left and is over.", number=game.number))
        targets = directory.observers(game)
        directory.remove(game)
    broadcaster.notify_all(targets, note, but=session)
