"""Notify lists at work: arrivals, departures and games of the players one watches.

A registered player's ``notify`` list names the players whose comings and
goings they hear of; ``gnotify`` those whose games they hear of (the lists
themselves are :mod:`ficsfen.server.commands.lists`').  :class:`Notifier`
sends FICS's lines:

- to each player logged in with the arrival on their notify list,
  ``Notification: alice has arrived.`` (``has departed.`` as she leaves);
- to the one arriving, ``Present company includes: bob carol.`` (those of
  their own list logged in) and ``Your arrival was noted by: bob.``;
- to a player on the arriving one's list who does not list them back and has
  ``notifiedby`` set, ``Notification: alice has arrived and isn't on your
  notify list.`` (the same at departure);
- when a game starts, to each player with either player on their gnotify
  list, ``Game notification: alice (1500) vs. bob (----) unrated blitz 5 0:
  Game 12`` (each player's rating for the game's type).

These are lines ICS clients read: each is rendered in the receiver's
:attr:`~ficsfen.server.session.Session.parsed_lang` (FICS's English for an
interface).  Guests neither keep these lists nor appear on them, as on FICS.
"""

from __future__ import annotations

from typing import Callable, Iterable

from zope.interface import implementer

from ficsfen.i18n import Message, msg, render
from ficsfen.interfaces import IClockedGame, IGame
from ficsfen.names import fold
from ficsfen.server.boards import category, rated_word
from ficsfen.server.commands.lists import PersonalLists
from ficsfen.server.interfaces import IGameEvents, IPlayedGame
from ficsfen.server.session import Session

__all__ = ["Notifier", "game_notification"]


def game_notification(game: IGame, ratings: tuple[str, str]) -> Message:
    """FICS's ``Game notification:`` line for ``game``, its players' ``ratings`` (four
    characters each, White's first)."""
    clocked = IClockedGame(game, None)
    minutes, increment = ((clocked.time_control.minutes, clocked.time_control.increment)
                          if clocked is not None else (0, 0))
    return msg("Game notification: {white} ({white_rating}) vs. {black} ({black_rating}) "
               "{rated} {category} {minutes} {increment}: Game {number}", white=game.white,
               rated=rated_word(game),
               white_rating=ratings[0], black=game.black, black_rating=ratings[1],
               category=category(game), minutes=minutes, increment=increment,
               number=game.number)


def _tell(session: Session, message: Message) -> None:
    """A notification in the language of texts clients parse."""
    session.notify(render(message, session.parsed_lang))


@implementer(IGameEvents)
class Notifier:
    """Arrival, departure and game notices for the players of ``lists``.

    ``session(key)`` is the session of a folded handle, or ``None``.  Hook
    :meth:`arrived` and :meth:`departed` to the sessions' arrivals and
    departures (before the departing player's lists are forgotten), and add
    the notifier to the game directory's listeners (:meth:`game_started`).
    """

    def __init__(self, lists: PersonalLists, session: Callable[[str], Session | None],
                 ratings: Callable[[IGame], tuple[str, str]] = lambda game: ("----", "----"),
                 ) -> None:
        self._lists = lists
        self._session = session
        #: Both players' four rating characters for a game's type (the broadcaster's).
        self._ratings = ratings

    def _online(self, keys: Iterable[str]) -> list[Session]:
        found = (self._session(key) for key in keys)
        return sorted((s for s in found if s is not None and s.registered),
                      key=lambda s: fold(s.handle))

    def present(self, handle: str) -> list[Session]:
        """The registered players on ``handle``'s notify list who are logged in, by handle."""
        return self._online(map(fold, self._lists.of(handle).members("notify")))

    def watchers(self, handle: str) -> list[Session]:
        """The registered players logged in with ``handle`` on their notify list, by handle."""
        return self._online(self._lists.watching("notify", handle))

    def arrived(self, session: Session) -> None:
        """``session`` logged in: tell who watches it, and it who of its list is here."""
        if not session.registered:
            return
        handle = session.handle
        watchers = self.watchers(handle)
        for watcher in watchers:
            _tell(watcher, msg("Notification: {handle} has arrived.", handle=handle))
        present = self.present(handle)
        self._unlisted(session, present, watchers, arrived=True)
        lines = []
        if present:
            lines.append(render(msg("Present company includes: {handles}.", handles=" ".join(
                s.handle for s in present)), session.parsed_lang))
        if watchers:
            lines.append(render(msg("Your arrival was noted by: {handles}.", handles=" ".join(
                s.handle for s in watchers)), session.parsed_lang))
        if lines:
            session.notify("\n".join(lines))

    def departed(self, session: Session) -> None:
        """``session`` left (its lists not yet forgotten): tell who watches it."""
        if not session.registered:
            return
        watchers = self.watchers(session.handle)
        for watcher in watchers:
            _tell(watcher, msg("Notification: {handle} has departed.", handle=session.handle))
        self._unlisted(session, self.present(session.handle), watchers, arrived=False)

    def _unlisted(self, session: Session, present: list[Session], watchers: list[Session], *,
                  arrived: bool) -> None:
        """Those on ``session``'s list who do not list it back hear of it if they set
        ``notifiedby``."""
        told = {id(w) for w in watchers}
        for other in present:
            if id(other) in told or not other.variables.get("notifiedby", True):
                continue
            _tell(other, msg("Notification: {handle} has arrived and isn't on your notify list.",
                             handle=session.handle) if arrived else
                  msg("Notification: {handle} has departed and isn't on your notify list.",
                      handle=session.handle))

    # -- gnotify: IGameEvents -------------------------------------------------------------

    def game_started(self, game: IGame) -> None:
        """A played game got its number: tell who has either player on their gnotify list."""
        if not IPlayedGame.providedBy(game):
            return  # an examined game
        players = {fold(game.white), fold(game.black)}
        keys = (self._lists.watching("gnotify", game.white)
                | self._lists.watching("gnotify", game.black)) - players
        if not keys:
            return
        line = game_notification(game, self._ratings(game))
        for watcher in self._online(keys):
            _tell(watcher, line)

    def game_ended(self, game: IGame, result: object = None) -> None:
        """Nothing to tell."""

    def position_changed(self, game: IGame) -> None:
        """Nothing to tell."""
