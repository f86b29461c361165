"""The lines that open a game for its players: created, continued, still going, not started.

:class:`GameStartAnnouncements` is the part of
:class:`~ficsfen.server.broadcaster.Broadcaster` that tells both players a
game begins: FICS's ``Creating:`` and ``{Game N (...) Creating ...}``
lines with the ``<g1>`` line (ivar ``gameinfo``) and the first board, the
``Continuing`` line of a resumed game, the game a player logging in again
still plays, and a start the store could not keep.  These are texts ICS
clients parse: they stay FICS's, rendered in each session's
``parsed_lang``.  It holds no state of its own: the session lookup and the
boards are the broadcaster's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ficsfen.i18n import Message, msg
from ficsfen.names import fold
from ficsfen.server import boards
from ficsfen.server.interfaces import IPlayedGame, IServerGame
from ficsfen.server.parsed import parsed
from ficsfen.server.rating_view import Shown
from ficsfen.server.session import Session

__all__ = ["GameStartAnnouncements"]


class GameStartAnnouncements:
    """Game starts told to the players (a base of :class:`~ficsfen.server.broadcaster.Broadcaster`)."""

    # Set by Broadcaster.__init__.
    _session: Callable[[str], Session | None]

    if TYPE_CHECKING:  # pragma: no cover - Broadcaster's
        def game_ratings(self, game: IServerGame) -> tuple[Shown, Shown]: ...
        def game_rating_texts(self, game: IServerGame) -> tuple[str, str]: ...
        def tell(self, handle: str, message: Message | str) -> None: ...
        def ping_to_move(self, game: IServerGame) -> None: ...
        def board_text(self, session: Session, game: IServerGame, *, fresh: bool = False,
                       lag: int | None = None, relation: int | None = None,
                       received: bool = False) -> str: ...

    def game_info(self, game: IServerGame) -> str:
        """The ``<g1>`` line of ``game`` (ivar gameinfo), its players' sessions as they are now."""
        white, black = self._session(fold(game.white)), self._session(fold(game.black))
        white_rating, black_rating = self.game_ratings(game)
        return boards.game_info_line(
            game, registered=(white is not None and white.registered,
                              black is not None and black.registered),
            timeseal=(white is not None and white.timeseal, black is not None and black.timeseal),
            ratings=(white_rating.marked, black_rating.marked))

    def game_created(self, game: IPlayedGame) -> None:
        """Both players of the new ``game`` get FICS's ``Creating:`` and ``{Game N ...}``
        lines, the ``<g1>`` line if they asked for it (:meth:`game_info`), and the board."""
        white, black, tc = game.white, game.black, game.time_control
        info_line = self.game_info(game)
        kind = boards.category(game)
        white_rating, black_rating = self.game_rating_texts(game)
        creating = parsed(msg("Creating: {white} ({white_rating}) {black} ({black_rating}) "
                              "{rated} {category} {minutes} {increment}",
                              rated=boards.rated_word(game),
                              white=white, white_rating=white_rating, black=black,
                              black_rating=black_rating, category=kind, minutes=tc.minutes,
                              increment=tc.increment))
        header = parsed(msg("{{Game {number} ({white} vs. {black}) Creating {rated} {category} match.}}",
                     rated=boards.rated_word(game), number=game.number, white=white, black=black, category=kind))
        # FICS's bytes: "Creating:", "{Game N ...}", a blank line, then the board, in one
        # message.  pychess reads a game's start as four consecutive lines (the third
        # any line): one more line, or a prompt, before the board and it opens no board.
        for handle in (white, black):
            session = self._session(fold(handle))
            if session is not None:
                lines = [session.render(creating), session.render(header)]
                if session.ivars["gameinfo"]:
                    lines.append(info_line)
                lines += ["", self.board_text(session, game)]
                self.tell(handle, "\n".join(lines))
        self.ping_to_move(game)

    def still_playing(self, session: Session, game: IPlayedGame) -> None:
        """``session`` logged in again during its ``game``: say so, with the board as it
        is now (clocks read now)."""
        other = game.opponent_of(session.handle)
        session.notify("\n".join([
            session.render(parsed(msg("You are still playing game {number} against {handle}.",
                               number=game.number, handle=other))),
            self.board_text(session, game, fresh=True)]))
        self.ping_to_move(game)

    def game_continued(self, game: IServerGame) -> None:
        """The players of a resumed ``game`` read that it continues (their board follows)."""
        header = parsed(msg("{{Game {number} ({white} vs. {black}) Continuing {rated} {category} match.}}",
                     rated=boards.rated_word(game), number=game.number, white=game.white, black=game.black,
                     category=boards.category(game)))
        for handle in game.players():
            self.tell(handle, header)

    def start_failed(self, game: IPlayedGame) -> None:
        """The start of ``game`` could not be stored: only its players knew of it."""
        for handle in game.players():
            self.tell(handle, msg("Your game with {handle} could not be started: the server "
                                  "could not save it.", handle=game.opponent_of(handle)))

