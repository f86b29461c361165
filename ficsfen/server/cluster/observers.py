"""``allobservers`` across nodes: the observers of every node's games.

A game's observers are kept by its owner (the players of other nodes among them as
seats, :mod:`.seats`).  ``allobservers`` with no argument asks every other node
(``watch.ask``); each answers with the observers of its games (``watch.told``:
number, White, Black, the observers' handles in the order they started), and the
asking node lists them with its own, by game number, in the single server's lines.
It waits for every node its presence copy knows, at most ``[cluster]
heartbeat_timeout`` seconds (a node that dies meanwhile is not waited for).
"""

from __future__ import annotations

import itertools
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.presence import Presence

__all__ = ["ObserverLists", "Observed"]

_log = Logger(namespace="ficsfen.cluster.observers")

#: A game and its observers: (number, White, Black, observers' handles).
Observed = tuple[int, str, str, list[str]]


class _Question:
    """One ``allobservers`` waiting for the other nodes' answers."""

    def __init__(self, nodes: set[str], games: list[Observed]) -> None:
        self.waiting = nodes
        self.games = games
        self.answer: Deferred[list[Observed]] = Deferred()
        self.timeout: Any = None


class ObserverLists:
    """The observers of every node's games; see the module's documentation."""

    def __init__(self, server: Any, bus: Bus, presence: Presence) -> None:
        self.server, self.bus, self.presence = server, bus, presence
        self._ids = itertools.count(1)
        self._questions: dict[int, _Question] = {}
        bus.on("watch.ask", self._heard_ask)
        bus.on("watch.told", self._heard_told)
        presence.gone.append(self._node_gone)

    def here(self) -> list[Observed]:
        """The games of this node that someone observes."""
        directory = self.server.directory
        return [(g.number, g.white, g.black, observers) for g in directory.games()
                if (observers := directory.observers(g))]

    def everywhere(self) -> Deferred[list[Observed]]:
        """The observed games of every node, by number."""
        nodes = set(self.presence.nodes()) if self.bus.up else set()
        if not nodes:
            return succeed(self.here())
        number = next(self._ids)
        question = self._questions[number] = _Question(nodes, self.here())
        question.timeout = self.bus.reactor.callLater(
            self.server.config.heartbeat_timeout, self._answer, number)
        self.bus.broadcast("watch.ask", {"id": number}).addErrback(self._unsent, number)
        return question.answer

    def _unsent(self, failure: Failure, number: int) -> None:
        if not failure.check(BusDown):
            _log.failure("allobservers: the question was not sent", failure=failure)
        self._answer(number)

    def _answer(self, number: int) -> None:
        question = self._questions.pop(number, None)
        if question is None:
            return
        if question.timeout is not None and question.timeout.active():
            question.timeout.cancel()
        question.answer.callback(sorted(question.games, key=lambda game: game[0]))

    def _heard_ask(self, message: BusMessage) -> None:
        number = message.body.get("id")
        if isinstance(number, int):
            self.bus.to_node(message.sender, "watch.told", {"id": number, "games": [
                list(game) for game in self.here()]}).addErrback(lambda _: None)

    def _heard_told(self, message: BusMessage) -> None:
        number, games = message.body.get("id"), message.body.get("games")
        if not isinstance(number, int):
            return
        question = self._questions.get(number)
        if question is None or message.sender not in question.waiting:
            return
        question.waiting.discard(message.sender)
        for game in games if isinstance(games, list) else ():
            try:
                game_number, white, black, observers = game
                question.games.append((int(game_number), str(white), str(black),
                                       [str(h) for h in observers]))
            except (TypeError, ValueError):
                continue
        if not question.waiting:
            self._answer(number)

    def _node_gone(self, node: str) -> None:
        for number, question in list(self._questions.items()):
            question.waiting.discard(node)
            if not question.waiting:
                self._answer(number)
