"""Watching across nodes: what each player observes on every node, their primary game,
``kibitz`` and ``whisper``, ``unobserve`` and ``primary`` as on a single server.

A player of this node observes a game of another node through their seat there
(:mod:`.seats`): the owner keeps them among the game's observers, so boards,
results and the kibitzes of the owner's players reach them as they reach its
own observers (the owner's talk finds seats as it finds its own sessions, and
applies their censor lists from the presence copy).

Each change a seat makes to what it observes on the owner (``observe``,
``unobserve``, ``primary``) is told to the player's node (``watch.seen``), before
the answer that says so.  So the player's node knows, in order, every game its
players observe on every node, and which one is their *primary* game (the last
observed or made primary, as ``observed_by`` on one server):

* ``kibitz`` and ``whisper`` of a player with no game here run on the node of
  their played game, else of their primary game;
* ``unobserve`` alone removes every game, here and on the other nodes
  (``watch.drop``, answered ``watch.dropped`` once done there), in the order
  they were observed;
* ``primary`` alone names the primary game wherever it is, ``primary N`` of a
  game observed on another node makes it primary there too (``watch.primary``).

``allobservers`` is :mod:`.observers`'s, ``follow`` :mod:`.follow`'s.
"""

from __future__ import annotations

import itertools
from typing import Any, Container

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.follow import ClusterFollowing
from ficsfen.server.cluster.observers import ObserverLists
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.replies import Replies

__all__ = ["Watching"]

_log = Logger(namespace="ficsfen.cluster.watching")

#: The lines run where the caller's game is (their played game, else their primary one).
GAME_TALK = frozenset({"kibitz", "whisper"})


class _Censoring:
    """Who censors a sender among this node's players (``here``) and seats (their presence
    entries' censor lists): what a fan-out skips."""

    def __init__(self, here: Container[str], watching: Watching, sender: str) -> None:
        self.here, self.watching, self.sender = here, watching, sender

    def __contains__(self, key: object) -> bool:
        if key in self.here:
            return True
        if not isinstance(key, str) or self.watching.games.seats.get(key) is None:
            return False
        player = self.watching.presence.get(key)
        return player is not None and self.sender in player.censor


class Watching:
    """This node's part in observing across nodes; see the module's documentation.

    ``games``: the node's :class:`~.games.ClusterGames` (seats, listings, forwarding).
    """

    def __init__(self, server: Any, bus: Bus, presence: Presence, games: Any) -> None:
        self.server, self.bus, self.presence, self.games = server, bus, presence, games
        #: Per folded handle of a player of this node: (node, game number) -> when it was
        #: observed or made primary ("" is this node).
        self._seen: dict[str, dict[tuple[str, int], int]] = {}
        self._tick = itertools.count()
        #: ``allobservers`` of every node.
        self.observers = ObserverLists(server, bus, presence)
        #: ``unobserve`` waiting for the other nodes to stop the observations.
        self.dropped = Replies(bus, presence, reply="watch.dropped",
                               timeout=server.config.heartbeat_timeout)
        #: Followers of this node, games of the others.
        self.following = ClusterFollowing(server, bus, games, presence)
        talk, sessions = server.talk, server.sessions
        talk.find_sessions(games.seats.lookup(sessions.by_key))
        here = talk.censoring
        talk.censoring = lambda sender: (
            _Censoring(here(sender), self, fold(sender)) if len(games.seats) else here(sender))
        directory = server.directory
        directory.observing_changed.append(self._changed)
        directory.listeners.append(self)
        directory.watching = self
        games.routes.append(self.route)
        sessions.departures.append(self._departed)
        presence.gone.append(self._node_gone)
        for kind, handler in (("watch.seen", self._heard_seen), ("watch.drop", self._heard_drop),
                              ("watch.primary", self._heard_primary),
                              ("cgame.down", self._heard_down)):
            bus.on(kind, handler)

    # -- what each player observes, in order ---------------------------------------------

    def _note(self, key: str, node: str, number: int, change: str) -> None:
        if change == "unobserve":
            entries = self._seen.get(key)
            if entries is not None:
                entries.pop((node, number), None)
                if not entries:
                    del self._seen[key]
        else:
            self._seen.setdefault(key, {})[(node, number)] = next(self._tick)

    def _changed(self, key: str, game: Any, change: str) -> None:
        """A change to what ``key`` observes on this node's directory."""
        seats = self.games.seats
        node = seats.node_of(key)
        if node is not None and seats.get(key) is not None:  # a seat: its player's node hears
            self.bus.to_node(node, "watch.seen", {"key": key, "number": game.number,
                                                  "change": change}).addErrback(_failed)
        else:
            self._note(key, "", game.number, change)

    def _heard_seen(self, message: BusMessage) -> None:
        body = message.body
        key, number, change = body.get("key"), body.get("number"), body.get("change")
        if (isinstance(key, str) and isinstance(number, int) and isinstance(change, str)
                and self.server.sessions.by_key(key) is not None):
            self._note(key, message.sender, number, change)

    def _ordered(self, handle: str) -> list[tuple[str, int]]:
        """What ``handle`` observes, oldest first (the other nodes' games while the bus is up)."""
        entries = self._seen.get(fold(handle), {})
        up = self.bus.up
        return [place for place, _ in sorted(entries.items(), key=lambda item: item[1])
                if up or not place[0]]

    def observed_elsewhere(self, handle: str) -> list[int]:
        """The numbers of the games ``handle`` observes on other nodes, oldest first."""
        return [number for node, number in self._ordered(handle) if node]

    def primary_elsewhere(self, handle: str) -> int | None:
        """The number of ``handle``'s primary game when it is on another node, else None."""
        ordered = self._ordered(handle)
        return ordered[-1][1] if ordered and ordered[-1][0] else None

    # -- kibitz and whisper: where the caller's game is ---------------------------------

    def route(self, session: Any, command: str | None, words: list[str]) -> str | None:
        """The node where ``kibitz`` or ``whisper`` of ``session`` runs, when not here
        (typed as such or as a system alias: ``*nice``, ``# psst``)."""
        if not self.bus.up or not words:
            return None
        if command not in GAME_TALK:
            system = self.server.dispatcher.system_aliases
            if system is None or words[0][0].isalnum():  # not a glued alias: no expansion
                return None
            expanded = system.expand(" ".join(words), words[0]).split(None, 1)
            if not expanded or expanded[0] not in GAME_TALK:
                return None
        handle = session.handle
        if self.server.directory.game_of(handle) is not None:
            return None
        key = fold(handle)
        for listing in self.games.listings.values():
            if key in map(fold, listing.handles):
                return str(listing.node)
        ordered = self._ordered(handle)
        if ordered:
            return ordered[-1][0] or None
        return self.games.seated.get(key)  # a game there, not yet listed here

    # -- unobserve and primary across nodes ---------------------------------------------

    def unobserve_all(self, handle: str) -> tuple[list[tuple[bool, int]], Deferred[Any]]:
        """Every game ``handle`` observes, oldest first, as (here, number), and a Deferred
        firing once the other nodes stopped their observations there (``watch.drop``,
        acknowledged by ``watch.dropped``; the caller's node unobserves its own)."""
        key = fold(handle)
        ordered = self._ordered(handle)
        by_node: dict[str, list[int]] = {}
        for node, number in ordered:
            if node:
                by_node.setdefault(node, []).append(number)
                self._note(key, node, number, "unobserve")
        question, done = self.dropped.ask(by_node)
        for node, numbers in by_node.items():
            self.bus.to_node(node, "watch.drop", {"key": key, "numbers": numbers,
                                                  "id": question}).addErrback(
                self._unsent, question)
        return [(not node, number) for node, number in ordered], done

    def _unsent(self, failure: Failure, question: int) -> None:
        _failed(failure)
        self.dropped.closed(question)

    def _heard_drop(self, message: BusMessage) -> None:
        key, numbers = message.body.get("key"), message.body.get("numbers")
        seat = self._seat(message.sender, key)
        if seat is not None and isinstance(numbers, list):
            directory = self.server.directory
            for number in numbers:
                game = directory.by_number(number) if isinstance(number, int) else None
                if game is not None:
                    directory.unobserve(seat.handle, game)
            self.games.release_if_idle(fold(seat.handle))
        self.bus.to_node(message.sender, "watch.dropped", {"id": message.body.get("id")}
                         ).addErrback(_failed)

    def make_primary_elsewhere(self, handle: str, number: int) -> bool:
        """Make game ``number``, which ``handle`` observes on another node, their primary
        game; False when they do not observe it there."""
        key = fold(handle)
        for node, observed in self._ordered(handle):
            if node and observed == number:
                self._note(key, node, number, "primary")
                self.bus.to_node(node, "watch.primary", {"key": key, "number": number}
                                 ).addErrback(_failed)
                return True
        return False

    def _heard_primary(self, message: BusMessage) -> None:
        number = message.body.get("number")
        seat = self._seat(message.sender, message.body.get("key"))
        game = self.server.directory.by_number(number) if isinstance(number, int) else None
        if seat is not None and game is not None:
            self.server.directory.make_primary(seat.handle, game)

    def _seat(self, node: str, key: object) -> Any:
        """The seat of ``key`` when its player is on ``node``, else None."""
        seats = self.games.seats
        if not isinstance(key, str) or seats.node_of(key) != node:
            return None
        return seats.get(key)

    # -- games and players that go ---------------------------------------------------------

    def _forget(self, gone: Any) -> None:
        for key in list(self._seen):
            entries = self._seen[key]
            for place in [p for p in entries if gone(p)]:
                del entries[place]
            if not entries:
                del self._seen[key]

    def game_started(self, game: Any) -> None:
        """Nothing to do (IGameEvents)."""

    def game_ended(self, game: Any, result: object = None) -> None:
        number = game.number
        self._forget(lambda place: place == ("", number))

    def position_changed(self, game: Any) -> None:
        """Nothing to do (IGameEvents)."""

    def _heard_down(self, message: BusMessage) -> None:
        number, node = message.body.get("number"), message.sender
        self._forget(lambda place: place == (node, number))

    def _node_gone(self, node: str) -> None:
        self._forget(lambda place: place[0] == node)

    def _departed(self, session: Any) -> None:
        self._seen.pop(fold(session.handle), None)


def _failed(failure: Failure) -> None:
    if not failure.check(BusDown):
        _log.failure("watching: a message was not sent", failure=failure)
