"""The ``pin`` lines of the other nodes' players: ``<wa>`` as one arrives, ``<wd>`` as one leaves.

A single server tells its sessions with the ``pin`` ivar on of every login
and logout (:meth:`~ficsfen.server.sessions.Sessions.arrived`,
:meth:`~ficsfen.server.sessions.Sessions.logout`); this node tells them, in
the same words, of the players of the other nodes as presence hears of them
(``<wa>`` from their entry: status mark and ratings), and ``<wd>`` for each
player of a node that is gone.

While the bus is down the copy of the other nodes' tables is emptied; the
players already announced are remembered (and, with the node each was on,
held in doubt), so the rebuilt copy announces only those who arrived
meanwhile.  Each time every known table has been checked against Redis
(:attr:`~.presence.Presence.synced`: when the bus is back, then at each
heartbeat) a player in doubt whose node is known again and who is not in its
table left meanwhile: their ``<wd>`` then.  (A player of a node that died while
the bus was down and whose table Redis no longer has gets no ``<wd>``.)
"""

from __future__ import annotations

from typing import Any

from ficsfen.names import fold
from ficsfen.server import wholist
from ficsfen.server.cluster.presence import Presence, RemotePlayer

__all__ = ["RemotePins"]


class RemotePins:
    """``<wa>``/``<wd>`` for the players of other nodes, to this node's ``pin`` sessions.

    ``sessions`` is the server's registry (who listens, the rating columns);
    ``announce(sessions, line)`` writes a line to them (the broadcaster's).
    """

    def __init__(self, presence: Presence, *, sessions: Any, announce: Any) -> None:
        self.presence = presence
        self.sessions = sessions
        self._announce = announce
        #: The players told arrived and not departed: folded handle -> (handle, node).
        self._announced: dict[str, tuple[str, str]] = {}
        self._doubt: set[str] = set()  # announced before the bus went down, not seen since
        presence.appeared.append(self._appeared)
        presence.left.append(self._left)
        presence.synced.append(self._synced)
        presence.bus.on_state(self._bus_state)

    def _tell(self, line: str) -> None:
        self._announce(self.sessions.listening("pin"), line)

    def _appeared(self, player: RemotePlayer) -> None:
        key = fold(player.handle)
        known = key in self._announced
        self._announced[key] = (player.handle, player.node)
        self._doubt.discard(key)
        if known:
            return  # announced before an outage of the bus
        status = player.game_mark or wholist.status_char(
            None, open_=bool(player.variables.get("open", True)))
        self._tell("<wa> " + wholist.interface_entry(player.handle, status, player.registered,
                                                     self.sessions.rating_columns(player.handle)))

    def _left(self, key: str) -> None:
        self._doubt.discard(key)
        announced = self._announced.pop(key, None)
        if announced is not None:
            self._tell(f"<wd> {announced[0]}")

    def _bus_state(self, up: bool) -> None:
        if not up:
            self._doubt = set(self._announced)

    def _synced(self) -> None:
        if not self._doubt:
            return
        nodes = self.presence.nodes()
        for key in sorted(self._doubt):
            if self.presence.get(key) is not None:
                self._doubt.discard(key)
            elif self._announced[key][1] in nodes:
                self._left(key)
