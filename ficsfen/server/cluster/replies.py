"""Questions to other nodes that wait for each node's reply.

A node asks some nodes a question (a message of its own kind with an ``id``);
each answers with a message of the reply kind carrying the same ``id``.  The
question's Deferred fires with the bodies of the replies once every node asked
has answered, a node that dies meanwhile is not waited for, and after ``timeout``
seconds (``[cluster] heartbeat_timeout``) it fires with the replies received.
It never fails: a question that could not be sent is :meth:`Replies.closed` at once.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable

from twisted.internet.defer import Deferred, succeed

from ficsfen.server.cluster.bus import Bus, BusMessage
from ficsfen.server.cluster.presence import Presence

__all__ = ["Replies"]


class _Question:
    def __init__(self, nodes: set[str]) -> None:
        self.waiting = nodes
        self.bodies: list[dict[str, Any]] = []
        self.answer: Deferred[list[dict[str, Any]]] = Deferred()
        self.timeout: Any = None


class Replies:
    """The questions of this node waiting for replies of the kind ``reply``."""

    def __init__(self, bus: Bus, presence: Presence, *, reply: str, timeout: float) -> None:
        self.bus, self.timeout = bus, timeout
        self._ids = itertools.count(1)
        self._open: dict[int, _Question] = {}
        bus.on(reply, self._heard)
        presence.gone.append(self._node_gone)

    def ask(self, nodes: Iterable[str]) -> tuple[int, Deferred[list[dict[str, Any]]]]:
        """A new question to ``nodes``: its id (to send) and its answer."""
        number = next(self._ids)
        waiting = set(nodes)
        if not waiting:
            return number, succeed([])
        question = self._open[number] = _Question(waiting)
        question.timeout = self.bus.reactor.callLater(self.timeout, self.closed, number)
        return number, question.answer

    def closed(self, number: int) -> None:
        """Answer question ``number`` with the replies received so far."""
        question = self._open.pop(number, None)
        if question is None:
            return
        if question.timeout.active():
            question.timeout.cancel()
        question.answer.callback(question.bodies)

    def _heard(self, message: BusMessage) -> None:
        number = message.body.get("id")
        question = self._open.get(number) if isinstance(number, int) else None
        if question is None or message.sender not in question.waiting:
            return
        question.waiting.discard(message.sender)
        question.bodies.append(message.body)
        if not question.waiting and isinstance(number, int):
            self.closed(number)

    def _node_gone(self, node: str) -> None:
        for number, question in list(self._open.items()):
            question.waiting.discard(node)
            if not question.waiting:
                self.closed(number)
