"""Games across nodes, the owner's part: the lines of the seats of other nodes' players.

A player of another node who has a challenge, a game or an observed game
here has a seat (:mod:`.seats`); their forwarded lines (``seat.cmd``,
:mod:`.forwarding`) run for it here.  The seat goes, and its node is told
(``seat.free``), when it holds nothing more here; a player who logged out at
home leaves it (``seat.leave``) as a logout on a single server.
"""

from __future__ import annotations

from typing import Any

from ficsfen.names import fold
from ficsfen.server.cluster import seal
from ficsfen.server.cluster.bus import BusMessage
from ficsfen.server.cluster.games_base import ClusterGamesBase

__all__ = ["SeatHosting"]


class SeatHosting(ClusterGamesBase):
    """The owner: lines of seats, what they hold (a base of
    :class:`~ficsfen.server.cluster.games.ClusterGames`)."""

    def _heard_state(self, message: BusMessage) -> None:
        state = message.body.get("state")
        if not isinstance(state, dict):
            return
        if self.seats.node_of(fold(str(state.get("handle", "")))) == message.sender:
            self.seats.seat(message.sender, state)

    def _heard_command(self, message: BusMessage) -> None:
        body = message.body
        state, line = body.get("state"), body.get("line")
        if not isinstance(line, str):
            return
        if isinstance(state, dict):
            try:
                seat = self.seats.seat(message.sender, state)
            except ValueError:
                return
        else:  # the settings the seat has (unchanged since they were sent)
            key = str(body.get("key", ""))
            found = self.seats.get(key)
            if found is None or self.seats.node_of(key) != message.sender:
                again = {"key": key, "line": line, "seal": body.get("seal")}
                self.bus.to_node(message.sender, "seat.again", again).addErrback(
                    self._failed, "seat.again")
                return
            seat = found
        timer = seat.move_timer
        if isinstance(timer, seal.SeatTimer):
            timer.running(body.get("seal"))
        self.server.dispatcher.execute(seat, line)
        self.release_if_idle(fold(seat.handle))

    def start_game(self, challenge: Any, *, node: str, state: dict[str, Any]) -> Any:
        """Start here the game of ``challenge`` (a seek of this node answered), whose
        receiver is a player of ``node`` that ``state`` describes (:func:`.seats.snapshot`):
        seated here first, so that the game's lines reach them and theirs come here.

        :raises ficsfen.i18n.LocalizedError: the game cannot start (as a local one).
        """
        seat = self.seats.seat(node, state)
        key = fold(seat.handle)
        self.bus.to_node(node, "seat.held", {"key": key}).addErrback(self._failed, "seat")
        try:
            return self.server.games.start_game(challenge)
        finally:
            self.server.clock.callLater(0, self.release_if_idle, key)

    def _holds(self, key: str) -> bool:
        seat = self.seats.get(key)
        if seat is None:
            return False
        handle, server = seat.handle, self.server
        # busy(): also a game whose start is not yet committed (with a store it is
        # announced only then, to the seat).
        return bool(server.games.busy(handle)
                    or server.directory.observed_games(handle)
                    or server.challenges.to(handle) or server.challenges.by(handle)
                    or (seat.reply is not None and seat.reply.waiting))

    def release_if_idle(self, key: str) -> None:
        """The seat of ``key`` goes (``seat.free``) when it holds nothing more here."""
        if self._holds(key):
            return
        node = self.seats.node_of(key)
        self.seats.drop(key)
        if node is not None and self.bus.up:
            self.bus.to_node(node, "seat.free", {"key": key}).addErrback(lambda _: None)

    def _heard_leave(self, message: BusMessage) -> None:
        key = str(message.body.get("key", ""))
        seat = self.seats.get(key)
        if seat is None or self.seats.node_of(key) != message.sender:
            return
        self._leave(seat)

    def _leave(self, seat: Any) -> None:
        """A seat's player is gone: their game adjourned or forfeited, offers and
        observations dropped, as a logout on a single server."""
        server, handle = self.server, seat.handle
        server.games.departed(seat)
        server.broadcaster.deliver(server.challenges.drop(handle))
        for game in list(server.directory.observed_games(handle)):
            server.directory.unobserve(handle, game)
        self.seats.drop(fold(handle))

    def _release_idle_seats(self) -> None:
        for key in self.seats.keys():
            self.release_if_idle(key)
