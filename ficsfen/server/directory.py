"""The server's game directory: small reused game numbers, players, observers.

It provides :class:`ficsfen.server.interfaces.IServerDirectory` (an
:class:`ficsfen.interfaces.IGameDirectory`), the only way commands find games.
Any game object providing :class:`IGame` can be added (examined games now,
played games too); the directory keeps who plays
or examines which game and who observes it, keyed by
:func:`ficsfen.names.fold` (the case rule of every name typed).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from twisted.logger import LogLevel, Logger
from zope.interface import implementer

from ficsfen.interfaces import IGame, IMoveEvents
from ficsfen.names import fold
from ficsfen.server.interfaces import IGameEvents, IServerDirectory

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

    from ficsfen.tracker import Ply, Tracker

__all__ = ["GameDirectory"]

_log = Logger()


@implementer(IServerDirectory)
class GameDirectory:
    """Current games by number, by player and by observer.

    ``handles`` returns the logged-in handles (the server's sessions).
    Numbers start at 1 and the smallest free one is reused, as on FICS.
    """

    def __init__(self, handles: Callable[[], Iterable[str]] = tuple) -> None:
        self._handles = handles
        #: Objects told about game starts, ends and position changes
        #: (:class:`ficsfen.server.interfaces.IGameEvents`), e.g. :class:`ficsfen.server.feed.GameFeed`.
        self.listeners: list[IGameEvents] = []
        self._games: dict[int, IGame] = {}
        self._free: list[int] = []
        self._next = 1
        self._playing: dict[str, IGame] = {}
        self._observing: dict[str, list[IGame]] = {}
        # Observers of each game by folded handle, in the order they started.
        self._observers: dict[int, dict[str, str]] = {}
        # The position listeners last heard of per game: (tracker, ply, FEN),
        # kept up to date by each game's moves, so that position_changed
        # after a move (already reported as a move) tells nobody.
        self._known: dict[int, tuple[Tracker, int, str]] = {}
        self._unfollow: dict[int, Callable[[], None]] = {}
        #: Counts changes to who plays or examines a game (what ``who`` marks),
        #: so that a listing can tell it is still current.
        self.changes = 0
        #: ``taken_elsewhere(number)``: whether another node of a cluster has a game of that
        #: number (this node then skips it: numbers are unique across the cluster).
        self.taken_elsewhere: Callable[[int], bool] | None = None
        #: ``number_source()``: a number reserved for this node across a cluster, or None
        #: (none at hand: the smallest free one not :attr:`taken_elsewhere` is used).
        self.number_source: Callable[[], int | None] | None = None
        #: ``reserve_number()``: a number reserved for a new played game across a cluster,
        #: once there is one (None: the directory picks), for :meth:`add`'s ``number``.
        self.reserve_number: Callable[[], Deferred[int | None]] | None = None
        #: ``listed_elsewhere()``: the games of the other nodes of a cluster as ``games``
        #: lists them (objects with ``number``, ``line``, ``players`` and ``kind``).
        self.listed_elsewhere: Callable[[], list[Any]] | None = None
        #: ``listener(key, game, change)`` after each change a player makes to what they
        #: observe: ``"observe"``, ``"unobserve"``, ``"primary"`` (not when a game ends);
        #: a cluster keeps each player's observations on every node in order.
        self.observing_changed: list[Callable[[str, IGame, str], None]] = []
        #: A cluster's view of what the players of this node observe on the other nodes
        #: (:class:`ficsfen.server.cluster.watching.Watching`), or None.
        self.watching: Any = None

    def __repr__(self) -> str:
        return f"<GameDirectory games={sorted(self._games)}>"

    # -- IGameDirectory ------------------------------------------------

    def by_number(self, number: int) -> IGame | None:
        return self._games.get(number)

    def game_of(self, handle: str) -> IGame | None:
        return self._playing.get(fold(handle))

    def observed_by(self, handle: str) -> IGame | None:
        games = self._observing.get(fold(handle))
        return games[-1] if games else None

    def handles(self) -> Iterable[str]:
        return self._handles()

    # -- bookkeeping ---------------------------------------------------

    def games(self) -> list[IGame]:
        """Current games in number order."""
        return [self._games[n] for n in sorted(self._games)]

    def __iter__(self) -> Iterator[IGame]:
        return iter(self.games())

    def __len__(self) -> int:
        return len(self._games)

    def add(self, game: IGame, number: int | None = None) -> int:
        """Give ``game`` the smallest free number (or ``number``, reserved for it by
        :attr:`reserve_number`) and register its players."""
        if not IGame.providedBy(game):
            raise TypeError(f"{game!r} does not provide IGame")
        if number is None or number in self._games:
            number = self._number()
        game.number = number
        self._games[number] = game
        self._observers[number] = {}
        self._follow(game)
        for handle in game.players():
            self._playing[fold(handle)] = game
        self.changes += 1
        self._tell("game_started", lambda listener: listener.game_started(game))
        return number

    def _number(self) -> int:
        """The smallest free number (none another node uses); in a cluster, one the
        cluster reserved for this node when there is one at hand."""
        source = self.number_source
        if source is not None:
            reserved = source()
            if reserved is not None and reserved not in self._games:
                return reserved
        skipped: list[int] = []
        while True:
            number = heapq.heappop(self._free) if self._free else self._next
            if number == self._next:
                self._next += 1
            if number in self._games:
                continue  # a reserved number in use (its end pushed it back earlier)
            taken = self.taken_elsewhere
            if taken is None or not taken(number):
                break
            skipped.append(number)
        for other in skipped:
            heapq.heappush(self._free, other)
        return number

    def remove(self, game: IGame, result: object = None) -> None:
        """Forget ``game``: its number becomes free, players and observers are released."""
        number = game.number
        if self._games.get(number) is not game:
            return
        self._tell("game_ended", lambda listener: listener.game_ended(game, result))
        del self._games[number]
        self._known.pop(number, None)
        self._unfollow.pop(number, lambda: None)()
        heapq.heappush(self._free, number)
        self.changes += 1
        for key, g in list(self._playing.items()):
            if g is game:
                del self._playing[key]
        for key in self._observers.pop(number, {}):
            self._drop_observed(key, game)

    def position_changed(self, game: IGame) -> None:
        """Tell listeners ``game``'s position changed (backward, bsetup, takeback...).

        Safe to call after any change: a position listeners already know
        (one a move reached) is not reported again.
        """
        tracker = game.tracker
        number = game.number
        if self._known.get(number) == (tracker, tracker.ply, tracker.fen):
            return
        if number in self._known and self._known[number][0] is not tracker:
            self._unfollow.pop(number, lambda: None)()
            self._follow(game)
        self._known[number] = (tracker, tracker.ply, tracker.fen)
        self._tell("position_changed", lambda listener: listener.position_changed(game))

    def _follow(self, game: IGame) -> None:
        tracker = game.tracker
        number = game.number
        self._known[number] = (tracker, tracker.ply, tracker.fen)
        events = IMoveEvents(game, None)
        subscribe = events.subscribe_moves if events is not None else tracker.subscribe

        def moved(ply: Ply) -> None:
            self._known[number] = (game.tracker, ply.number, ply.fen)

        self._unfollow[number] = subscribe(moved)

    def _tell(self, event: str, call: Callable[[IGameEvents], None]) -> None:
        """``call(listener)`` for each listener; one that fails is logged, the others still hear."""
        for listener in tuple(self.listeners):
            try:
                call(listener)
            except Exception:
                _log.failure("game listener {listener!r} failed on {event}", level=LogLevel.error,
                             listener=listener, event=event)

    def join(self, handle: str, game: IGame) -> None:
        """Record that ``handle`` plays or examines ``game``."""
        self._playing[fold(handle)] = game
        self.changes += 1

    def leave(self, handle: str) -> IGame | None:
        """``handle`` stops playing or examining; returns the game it left."""
        self.changes += 1
        return self._playing.pop(fold(handle), None)

    def observe(self, handle: str, game: IGame) -> bool:
        """Add ``handle`` to ``game``'s observers; False when already there."""
        observers = self._observers[game.number]
        key = fold(handle)
        if key in observers:
            return False
        observers[key] = handle
        self._observing.setdefault(key, []).append(game)
        self._changed(key, game, "observe")
        return True

    def unobserve(self, handle: str, game: IGame) -> bool:
        """Remove ``handle`` from ``game``'s observers; False when not there."""
        observers = self._observers.get(game.number, {})
        key = fold(handle)
        if key not in observers:
            return False
        del observers[key]
        self._drop_observed(key, game)
        self._changed(key, game, "unobserve")
        return True

    def make_primary(self, handle: str, game: IGame) -> bool:
        """Make ``game`` (which ``handle`` observes) the one :meth:`observed_by` gives
        (``primary``); False when ``handle`` does not observe it."""
        games = self._observing.get(fold(handle))
        if not games or game not in games:
            return False
        games.remove(game)
        games.append(game)
        self._changed(fold(handle), game, "primary")
        return True

    def _changed(self, key: str, game: IGame, change: str) -> None:
        for listener in self.observing_changed:
            listener(key, game, change)

    def observers(self, game: IGame) -> list[str]:
        """Handles observing ``game``, in the order they started."""
        return list(self._observers.get(game.number, {}).values())

    def observer_keys(self, game: IGame) -> Iterable[str]:
        """The folded handles of ``game``'s observers (a view: do not change observers while iterating)."""
        return self._observers.get(game.number, {}).keys()

    def observed_games(self, handle: str) -> list[IGame]:
        """Games ``handle`` observes, oldest first."""
        return list(self._observing.get(fold(handle), ()))

    def _drop_observed(self, key: str, game: IGame) -> None:
        games = self._observing.get(key)
        if games and game in games:
            games.remove(game)
            if not games:
                del self._observing[key]
