"""Game ends for the ``allresults`` sessions of every node (``iset allresults 1``).

A single server tells its sessions with the ``allresults`` ivar on of every
game's end (:meth:`~ficsfen.server.broadcaster.Broadcaster.game_over`).  The
node that owns a game says its end on the bus (``cgame.result``: the
announcement as a message, rendered by each node in its readers' language,
and the folded handles of those who watched it, told already); every other
node tells its own ``allresults`` sessions the same line.
"""

from __future__ import annotations

from typing import Any

from ficsfen.i18n import Message
from ficsfen.server.cluster.bus import Bus, BusMessage
from ficsfen.server.parsed import ParsedMessage

__all__ = ["ClusterResults", "message_from_json", "message_to_json"]


def message_to_json(message: Message) -> dict[str, Any]:
    """``message`` as JSON values (its parameters that are messages, nested)."""
    return {"id": message.msgid, "plural": message.plural, "count": message.count,
            "parsed": isinstance(message, ParsedMessage),
            "params": {k: message_to_json(v) if isinstance(v, Message) else v
                       for k, v in message.params.items()}}


def message_from_json(data: Any) -> Message:
    """What :func:`message_to_json` wrote.  :raises (KeyError, TypeError): it is not that."""
    params = {str(k): message_from_json(v) if isinstance(v, dict) else v
              for k, v in data["params"].items()}
    kind = ParsedMessage if data.get("parsed") else Message
    return kind(str(data["id"]), params, data.get("plural"), data.get("count"))


class ClusterResults:
    """The broadcaster's game ends said on the bus, and the other nodes' told here."""

    def __init__(self, bus: Bus, broadcaster: Any) -> None:
        self.bus = bus
        self.broadcaster = broadcaster
        broadcaster.results_elsewhere = self._ended_here
        bus.on("cgame.result", self._heard)

    def _ended_here(self, announcement: Message, watching: frozenset[str]) -> None:
        if self.bus.up:
            self.bus.broadcast("cgame.result", {"line": message_to_json(announcement),
                                                "watching": sorted(watching)}
                               ).addErrback(lambda _: None)

    def _heard(self, message: BusMessage) -> None:
        if message.sender == self.bus.node:
            return
        try:
            announcement = message_from_json(message.body["line"])
            watching = frozenset(str(h) for h in message.body["watching"])
        except (KeyError, TypeError, AttributeError):
            return
        self.broadcaster.tell_allresults(announcement, watching)
