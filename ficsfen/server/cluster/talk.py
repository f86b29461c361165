"""Talk across nodes: tells, ``say``, channel tells, shouts, c-shouts and ``it`` over the bus.

The sending node does what it does alone (its own players hear the message
as before) and publishes one message for the others: a tell to the node
of its recipient (``talk.tell``; ``talk.say`` for a ``say`` to the
opponent, who may be on another node), a channel tell or a shout to every node
(``talk.channel``, ``talk.shout``), and only when its copy of the other
nodes' players (:class:`~ficsfen.server.cluster.presence.Presence`) shows
someone there who would hear it.  The count in the sender's answer ("(told
3 players in channel 50)") is that of its own players plus those of the
copy that would hear it (their channels, their ``chanoff``/``shout``/
``cshout`` variables, their censor lists); the answer is written once Redis
accepted the message, or with the bus-down error if it did not.

A node receiving a message rebuilds the line from the same catalogue
message as a single node (``alice tells you: hi``), so a player reads
exactly the same text wherever the sender is; it applies its own players'
censor lists and variables again (the copy may be a heartbeat late), and
``reply`` answers the remote teller.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger

from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus, BusMessage
from ficsfen.server.cluster.presence import Presence, RemotePlayer
from ficsfen.server.talk import SHOUT_FRAMES, channel_frame, say_frame, tell_frame

__all__ = ["ClusterTalk"]

_log = Logger(namespace="ficsfen.cluster.talk")


class ClusterTalk:
    """Talk with the players of the other nodes; see the module's documentation.

    ``talk`` is the node's :class:`ficsfen.server.talk.Talk` (its fan-out and
    memories), ``local()`` the folded handles logged in here.
    """

    def __init__(self, bus: Bus, presence: Presence, *, talk: Any,
                 local: Callable[[], Iterable[str]]) -> None:
        self.bus = bus
        self.presence = presence
        self.talk = talk
        self._local = local
        bus.on("talk.tell", self._heard_tell)
        bus.on("talk.say", self._heard_say)
        bus.on("talk.channel", self._heard_channel)
        bus.on("talk.shout", self._heard_shout)

    # -- sending -------------------------------------------------------------------------

    def tell(self, sender: Any, target: RemotePlayer, text: str) -> Deferred[int]:
        """Send ``text`` from ``sender`` to ``target`` on its node; fires once Redis accepted it.

        :raises ficsfen.server.cluster.bus.BusDown: (in the Deferred) it was not sent.
        """
        return self.bus.to_node(target.node, "talk.tell", {
            "to": fold(target.handle), "from": sender.handle, "name": sender.display_name(),
            "registered": bool(sender.registered), "text": text})

    def say(self, sender: Any, target: RemotePlayer, number: int | None,
            text: str) -> Deferred[int]:
        """``say`` ``text`` to ``target`` (``number``: the game the sender plays, else None);
        fires once Redis accepted it.

        :raises ficsfen.server.cluster.bus.BusDown: (in the Deferred) it was not sent.
        """
        return self.bus.to_node(target.node, "talk.say", {
            "to": fold(target.handle), "from": sender.handle, "name": sender.display_name(),
            "number": number, "text": text})

    def channel(self, sender: Any, channel: int, text: str) -> tuple[int, Deferred[Any]]:
        """A channel tell to the other nodes: how many of their players will hear it, and
        the Deferred of the publication (already fired when nobody there hears it)."""
        key = fold(sender.handle)
        count = sum(1 for p in self.presence.players()
                    if channel in p.channels and not p.variables.get("chanoff", False)
                    and key not in p.censor)
        if not count:
            return 0, succeed(0)
        return count, self.bus.broadcast("talk.channel", {
            "channel": channel, "from": sender.handle, "name": sender.display_name(),
            "text": text})

    def shout(self, sender: Any, command: str, text: str) -> tuple[int, Deferred[Any]]:
        """A ``shout``, ``cshout`` or ``it`` to the other nodes: as :meth:`channel`."""
        variable = SHOUT_FRAMES[command][0]
        key = fold(sender.handle)
        count = sum(1 for p in self.presence.players()
                    if p.variables.get(variable, True) and key not in p.censor)
        if not count:
            return 0, succeed(0)
        return count, self.bus.broadcast("talk.shout", {
            "command": command, "from": sender.handle, "name": sender.display_name(),
            "text": text})

    # -- receiving -----------------------------------------------------------------------

    def _heard_tell(self, message: BusMessage) -> None:
        body = message.body
        talk, key, sender = self.talk, str(body.get("to", "")), str(body.get("from", ""))
        session = talk.session_of(key)
        if session is None or talk.censors(key, sender):
            return
        if not body.get("registered") and not session.variables.get("tell", True):
            return
        talk.fanout(sender, [key], tell_frame(str(body.get("name", sender)),
                                              str(body.get("text", ""))))
        talk.last_teller[key] = sender

    def _heard_say(self, message: BusMessage) -> None:
        body = message.body
        talk, key, sender = self.talk, str(body.get("to", "")), str(body.get("from", ""))
        number = body.get("number")
        if talk.session_of(key) is None or talk.censors(key, sender):
            return
        talk.fanout(sender, [key], say_frame(str(body.get("name", sender)),
                                             number if isinstance(number, int) else None,
                                             str(body.get("text", ""))))

    def _heard_channel(self, message: BusMessage) -> None:
        body = message.body
        channel = body.get("channel")
        if not isinstance(channel, int):
            return
        sender = str(body.get("from", ""))
        self.talk.fanout(sender, list(self.talk.channels.members(channel)),
                         channel_frame(str(body.get("name", sender)), channel,
                                       str(body.get("text", ""))),
                         needs=("chanoff", False))

    def _heard_shout(self, message: BusMessage) -> None:
        body = message.body
        shout = SHOUT_FRAMES.get(str(body.get("command", "")))
        if shout is None:
            return
        variable, frame = shout
        sender = str(body.get("from", ""))
        self.talk.fanout(sender, list(self._local()),
                         frame(str(body.get("name", sender)), str(body.get("text", ""))),
                         needs=(variable, True))
