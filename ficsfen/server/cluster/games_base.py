"""What the parts of :class:`~ficsfen.server.cluster.games.ClusterGames` share.

:class:`~.forwarding.GameForwarding`, :class:`~.hosting.SeatHosting` and
:class:`~.announcements.GameAnnouncements` are bases of ``ClusterGames``: the
state they use is set by its ``__init__`` and declared here, with the logging
of a bus message that failed.
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.cluster.bus import Bus, BusDown
from ficsfen.server.cluster.failover import Failover
from ficsfen.server.cluster.listing import RemoteListing
from ficsfen.server.cluster.numbers import GameNumbers
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.seats import Seats, SentStates

__all__ = ["ClusterGamesBase"]

_log = Logger(namespace="ficsfen.cluster.games")


class ClusterGamesBase:
    """The state of :class:`~ficsfen.server.cluster.games.ClusterGames`, documented there."""

    # Set by ClusterGames.__init__.
    server: Any
    bus: Bus
    presence: Presence
    seats: Seats
    seated: dict[str, str]
    sent: SentStates
    listings: dict[int, RemoteListing]
    numbers: GameNumbers
    failover: Failover
    routes: list[Any]
    _soon: dict[int, Any]
    _unfollow: dict[int, Any]

    @staticmethod
    def _failed(failure: Failure, what: str) -> None:
        if not failure.check(BusDown):
            _log.failure("cluster games: {what} failed", failure=failure, what=what)

