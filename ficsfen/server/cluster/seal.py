"""Timeseal across nodes: a timeseal player's moves in a game of another node are
charged what a single server charges for the same stamps.

On a single server (:class:`~ficsfen.server.timeseal.MoveTimer`) the board
for the player to move is followed by a ping; the client's answer stamps
the board's arrival, the move line carries the stamp of its sending, and
the move costs the difference, never more than the server's wall clock
measured from the board to the move and at most ``lag_compensation``
seconds less (:func:`~ficsfen.server.timeseal.move_charge`).

Across nodes the player's connection is on their own node and the clock on
the owner's.  The pieces stay where they are on a single server:

* the owner's seat of the player has a :class:`SeatTimer`: its ping leaves
  with the seat's bytes (``"p"`` of ``seat.out``, after them), and the
  player's node has the player's own ``MoveTimer`` send the ping bytes of
  the client's timeseal version (:func:`ping_here`), noting the time;
* the client's answer is kept there as on a single server;
* a move line forwarded to the owner (``seat.cmd``) carries ``"seal"``
  (:func:`stamps`): the stamp of the board's arrival, the move's stamp and
  the milliseconds from the ping to the move on the player's node;
* the owner charges :func:`~ficsfen.server.timeseal.move_charge` of those,
  its wall clock being the smaller of its own (from the move before to this
  one) and the player's node's: the bus's hops are not the player's, the
  allowance and the cap (never more than the wall clock) are the owner's
  rules.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ficsfen.server.timeseal import MoveTimer, move_charge

__all__ = ["SeatTimer", "ping_here", "stamps"]


def ping_here(session: Any, now: float) -> None:
    """The owner asked for a stamp after a board to ``session`` (a player of this node)."""
    timer = session.move_timer
    if timer is not None:
        timer.ping(now)


def stamps(session: Any, now: float) -> dict[str, int | None] | None:
    """What the owner needs to time the move on the line ``session`` is running now
    (None for a player without timeseal); the player's lag is noted here too."""
    timer: MoveTimer | None = session.move_timer
    if timer is None:
        return None
    pinged = timer.pinged_at
    wall = None if pinged is None else max(0, round((now - pinged) * 1000.0))
    received, moved = timer.received, timer.stamp
    if wall is not None:
        lag = move_charge(received, moved, wall / 1000.0, timer.max_compensation)[1]
        if lag is not None:
            session.lag_ms = lag
    return {"r": received, "m": moved, "w": wall}


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class SeatTimer(MoveTimer):
    """The move timing of a timeseal player's ``seat`` on the owner: pings leave through
    ``ping_out()``, moves are charged from the stamps the line came with
    (:meth:`running`)."""

    def __init__(self, seat: Any, ping_out: Callable[[], None], *,
                 max_compensation: float = 1.0) -> None:
        super().__init__(max_compensation=max_compensation)
        self.seat = seat
        self._ping_out = ping_out
        self._stamps: Mapping[str, Any] | None = None

    def ping(self, at: float | None = None) -> None:
        """A board reached the seat's player: their node pings their client."""
        self._ping_out()

    def replied(self, stamp: int) -> None:
        """Answers are read on the player's node (:func:`stamps`)."""

    def running(self, seal: object) -> None:
        """The line about to run came with ``seal`` (:func:`stamps`, or nothing)."""
        self._stamps = seal if isinstance(seal, dict) else None

    def charge(self, wall: float) -> float:
        """Seconds to charge for the move on the line being run, whose clock ran
        ``wall`` seconds here; the seat's ``lag_ms`` is what the stamps say."""
        seal, self._stamps = self._stamps, None
        if seal is None:
            return move_charge(None, None, wall, self.max_compensation)[0]
        there = _number(seal.get("w"))
        if there is not None:
            wall = min(wall, there / 1000.0)
        charged, lag = move_charge(_number(seal.get("r")), _number(seal.get("m")), wall,
                                   self.max_compensation)
        if lag is not None:
            self.seat.lag_ms = lag
        return charged
