"""Games across nodes: the owner hosts, the other nodes forward lines and relay bytes.

**Ownership.**  A game lives on one node, its *owner*: the node where it
starts, which keeps its clock, tracker, offers and journal.  A match offer
to a player of another node is run on that player's node (the receiver's):
the challenger's line (``match bob 5 0``, ``resume bob``) is forwarded there
(``seat.cmd``) and run for the challenger's seat
(:mod:`~ficsfen.server.cluster.seats`); ``accept`` then starts the game on
the receiver's node, as on a single server.  A ``match`` or ``resume``
answering an offer to resume that waits here is run here: ``bob`` typing
``resume alice`` continues the game alice offered to resume, as on a single
server.

**Parts.**  :mod:`.forwarding`: the player's node, which lines run on the
owner and what comes back; :mod:`.hosting`: the owner, the lines of the
seats and what they hold; :mod:`.announcements`: game numbers, this node's
games announced and the other nodes' games listed; :mod:`.games_base`: the
state they share.

**Failure.**  A node whose heartbeat expired (:mod:`.presence`, ``[cluster]
heartbeat_timeout``) is gone: its games leave the lists, and the players of
this node seated there are told the game is interrupted; their lines run
here again.  Its games are adjourned in the shared store by one survivor,
and adjourned games are kept by every node (:mod:`.failover`).
"""

from __future__ import annotations

from typing import Any

from ficsfen.i18n import msg
from ficsfen.names import fold
from ficsfen.server.cluster.announcements import GameAnnouncements
from ficsfen.server.cluster.bus import Bus
from ficsfen.server.cluster.failover import Failover
from ficsfen.server.cluster.forwarding import GAME_COMMANDS, NUMBERED_COMMANDS, GameForwarding
from ficsfen.server.cluster.hosting import SeatHosting
from ficsfen.server.cluster.listing import RemoteListing
from ficsfen.server.cluster.numbers import GameNumbers
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.seats import Seats, SentStates

__all__ = ["ClusterGames", "GAME_COMMANDS", "NUMBERED_COMMANDS", "RemoteListing"]

#: What the players of a node that vanished read, for each game they were in there.
NODE_GONE = msg("The server hosting your game has stopped; the game is interrupted.")


class ClusterGames(GameForwarding, SeatHosting, GameAnnouncements):
    """This node's part in the games of the cluster; see the module's documentation.

    ``server``: the node's :class:`~ficsfen.server.server.FicsServer`; ``bus``
    and ``presence``: the node's.
    """

    def __init__(self, server: Any, bus: Bus, presence: Presence) -> None:
        self.server = server
        self.bus = bus
        self.presence = presence
        sessions = server.sessions
        self.seats = Seats(bus, lambda: sessions.services,
                           lag_compensation=server.config.lag_compensation)
        #: Where each player of this node is seated (folded handle -> owner node).
        self.seated: dict[str, str] = {}
        #: The players' settings as each owner has them (sent with a line when changed).
        self.sent = SentStates()
        self.listings: dict[int, RemoteListing] = {}
        lookup = self.seats.lookup(sessions.by_key)
        server.broadcaster.find_sessions(lookup)
        server.games.find_sessions(lambda handle: lookup(fold(handle)))
        server.games.anywhere = lambda handle: lookup(fold(handle)) or presence.get(fold(handle))
        server.dispatcher.forward = self.forward
        directory = server.directory
        #: This node's reserved game numbers.
        self.numbers = GameNumbers(bus)
        #: Adjourned games shared with the other nodes, the games of the nodes that die.
        self.failover = Failover(server, bus, presence)
        directory.taken_elsewhere = self._taken_elsewhere
        directory.number_source = self.numbers.take
        directory.reserve_number = self.numbers.reserve
        self._soon: dict[int, Any] = {}  # game number -> its listing's delayed call
        directory.listed_elsewhere = self.remote_listings
        directory.listeners.append(self)
        sessions.departures.append(self._departed)
        server.player_changed.append(self._settings_changed)
        for kind, handler in (("seat.cmd", self._heard_command), ("seat.out", self._heard_output),
                              ("seat.free", self._heard_free), ("seat.leave", self._heard_leave),
                              ("seat.held", self._heard_held), ("seat.state", self._heard_state),
                              ("seat.again", self._heard_again),
                              ("cgame.up", self._heard_up), ("cgame.down", self._heard_down)):
            bus.on(kind, handler)
        bus.on_state(self._bus_state)
        self._unfollow: dict[int, Any] = {}
        #: ``route(session, command, words)``: the node where a line the rules of
        #: :meth:`forward` leave here runs instead, or None (:mod:`.watching`: ``kibitz``,
        #: ``whisper``).
        self.routes: list[Any] = []

    def node_gone(self, node: str) -> None:
        """``node`` vanished: its listings go; this node's players seated there are told and
        run their lines here again."""
        for number in [n for n, g in self.listings.items() if g.node == node]:
            del self.listings[number]
        self.sent.forget(node=node)
        self.numbers.release(node)  # its reserved numbers are free again
        for key in [k for k, n in self.seated.items() if n == node]:
            del self.seated[key]
            session = self.server.sessions.by_key(key)
            if session is not None:
                session.notify(NODE_GONE)
        for seat in self.seats.of_node(node):
            self._leave(seat)
        self.failover.node_gone(node)
