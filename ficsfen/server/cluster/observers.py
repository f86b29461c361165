"""``allobservers`` across nodes: the observers of every node's games.

A game's observers are kept by its owner (the players of other nodes among them as
seats, :mod:`.seats`).  ``allobservers`` with no argument asks every other node
(``watch.ask``); each answers with the observers of its games (``watch.told``:
number, White, Black, the observers' handles in the order they started), and the
asking node lists them with its own, by game number, in the single server's lines.
It waits for every node its presence copy knows, at most ``[cluster]
heartbeat_timeout`` seconds (:mod:`.replies`).
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.replies import Replies

__all__ = ["ObserverLists", "Observed"]

_log = Logger(namespace="ficsfen.cluster.observers")

#: A game and its observers: (number, White, Black, observers' handles).
Observed = tuple[int, str, str, list[str]]


class ObserverLists:
    """The observers of every node's games; see the module's documentation."""

    def __init__(self, server: Any, bus: Bus, presence: Presence) -> None:
        self.server, self.bus, self.presence = server, bus, presence
        self.replies = Replies(bus, presence, reply="watch.told",
                               timeout=server.config.heartbeat_timeout)
        bus.on("watch.ask", self._heard_ask)

    def here(self) -> list[Observed]:
        """The games of this node that someone observes."""
        directory = self.server.directory
        return [(g.number, g.white, g.black, observers) for g in directory.games()
                if (observers := directory.observers(g))]

    def everywhere(self) -> Deferred[list[Observed]]:
        """The observed games of every node, by number."""
        number, answer = self.replies.ask(self.presence.nodes() if self.bus.up else ())
        if self.bus.up and self.presence.nodes():
            self.bus.broadcast("watch.ask", {"id": number}).addErrback(self._unsent, number)
        return answer.addCallback(self._merged)

    def _merged(self, bodies: list[dict[str, Any]]) -> list[Observed]:
        games = self.here()
        for body in bodies:
            for game in body.get("games") or ():
                try:
                    number, white, black, observers = game
                    games.append((int(number), str(white), str(black),
                                  [str(h) for h in observers]))
                except (TypeError, ValueError):
                    continue
        return sorted(games, key=lambda game: game[0])

    def _unsent(self, failure: Failure, number: int) -> None:
        if not failure.check(BusDown):
            _log.failure("allobservers: the question was not sent", failure=failure)
        self.replies.closed(number)

    def _heard_ask(self, message: BusMessage) -> None:
        number = message.body.get("id")
        if isinstance(number, int):
            self.bus.to_node(message.sender, "watch.told", {"id": number, "games": [
                list(game) for game in self.here()]}).addErrback(lambda _: None)
