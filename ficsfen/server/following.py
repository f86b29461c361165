"""Who follows whom (``follow NAME``): every game the followed player starts is observed.

:class:`Following` keeps, by folded handle, whom each player follows and who
follows each player (one followed player at a time, as on FICS).  It is a
listener of the game directory (:class:`~ficsfen.server.interfaces.IGameEvents`):
when a played game starts, each follower of either player who is not playing
it, and not observing it already, starts observing it and is told, in FICS's
lines (English for an interface: :attr:`Session.parsed_lang`), which pychess and other
clients read to open a board::

    alice, whom you are following, has started a game with bob.
    You are now observing game 3.
    Game 3: alice (1500) bob (----) unrated blitz 5 0

    <12> ...

A private game (``set private``) is never followed.  Following ends when
either player logs out (:meth:`Following.forget`).
"""

from __future__ import annotations

from typing import Any, Callable

from zope.interface import implementer

from ficsfen.i18n import msg
from ficsfen.names import fold
from ficsfen.server.boards import game_info_line, game_line_header
from ficsfen.server.interfaces import IGameEvents, IPlayedGame, IServerCaller, IServerDirectory
from ficsfen.server.session import Session

__all__ = ["Following", "is_private", "observing_head", "observing_tail"]


def is_private(game: object) -> bool:
    """Whether ``game`` is private (``set private`` of a player): nobody may observe it."""
    return bool(getattr(game, "private", False))


@implementer(IGameEvents)
class Following:
    """Followers and followed players; observes started games for the followers.

    ``session(key)`` finds a session by folded handle; ``directory`` is the game
    directory (observers are kept there); ``board_text(session, game)`` renders
    the board as that session wants it (the broadcaster's).
    """

    def __init__(self, *, session: Callable[[str], Session | None],
                 directory: IServerDirectory,
                 board_text: Callable[[Session, Any], str]) -> None:
        self._session = session
        self._directory = directory
        self._board_text = board_text
        self._following: dict[str, str] = {}  # follower's key -> followed handle
        self._followers: dict[str, dict[str, str]] = {}  # followed key -> {key: handle}

    def following(self, handle: str) -> str | None:
        """The handle ``handle`` follows, or ``None``."""
        return self._following.get(fold(handle))

    def followers(self, handle: str) -> list[str]:
        """The handles following ``handle``, in the order they started."""
        return list(self._followers.get(fold(handle), {}).values())

    def follow(self, follower: str, followed: str) -> str | None:
        """``follower`` now follows ``followed``; returns whom they followed before, if anyone."""
        before = self.stop(follower)
        self._following[fold(follower)] = followed
        self._followers.setdefault(fold(followed), {})[fold(follower)] = follower
        return before

    def stop(self, follower: str) -> str | None:
        """``follower`` follows nobody any more; returns whom they followed, or ``None``."""
        followed = self._following.pop(fold(follower), None)
        if followed is not None:
            followers = self._followers.get(fold(followed), {})
            followers.pop(fold(follower), None)
            if not followers:
                self._followers.pop(fold(followed), None)
        return followed

    def forget(self, handle: str) -> None:
        """``handle`` left: they follow nobody, and nobody follows them."""
        self.stop(handle)
        for key in list(self._followers.pop(fold(handle), {})):
            self._following.pop(key, None)

    # -- IGameEvents -------------------------------------------------------------

    def game_started(self, game: Any) -> None:
        if not IPlayedGame.providedBy(game) or is_private(game) or not self._followers:
            return
        players = game.players()
        playing = {fold(h) for h in players}
        for handle in players:
            for key in list(self._followers.get(fold(handle), {})):
                session = self._session(key)
                if session is None or key in playing:
                    continue
                if not self._directory.observe(session.handle, game):
                    continue
                session.notify(self.started_text(session, game, handle,
                                                 game.opponent_of(handle)))

    def game_ended(self, game: Any, result: object = None) -> None:
        pass

    def position_changed(self, game: Any) -> None:
        pass

    def started_text(self, session: Session, game: Any, followed: str, opponent: str) -> str:
        """What a follower reads as ``followed``'s ``game`` starts (FICS's lines: English)."""
        lines = [msg("{handle}, whom you are following, has started a game with {opponent}.",
                     handle=followed, opponent=opponent).render(session.parsed_lang),
                 *observing_head(session, game), self._board_text(session, game),
                 *observing_tail(session, game)]
        return "\n".join(lines)


def observing_head(caller: IServerCaller, game: Any) -> list[str]:
    """``You are now observing game N.``, the game's header and a blank line: what
    ``observe`` answers before the board (clients parse it)."""
    return [msg("You are now observing game {number}.", number=game.number).render(
                caller.parsed_lang),
            f"Game {game.number}: {game_line_header(game, caller.boards.game_rating_texts(game))}",
            ""]


def observing_tail(caller: IServerCaller, game: Any) -> list[str]:
    """What follows the board of a game one starts observing: the ``<g1>`` line
    (``gameinfo`` ivar), or nothing."""
    if not (caller.ivars["gameinfo"] and IPlayedGame.providedBy(game)):
        return []
    white, black = (caller.players.session(h) for h in (game.white, game.black))
    white_rating, black_rating = caller.boards.game_ratings(game)
    return [game_info_line(
        game, registered=(white is not None and white.registered,
                          black is not None and black.registered),
        timeseal=(white is not None and white.timeseal, black is not None and black.timeseal),
        ratings=(white_rating.marked, black_rating.marked))]
