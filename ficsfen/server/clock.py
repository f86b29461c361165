"""Time controls and the chess clock of a played game.

The clock runs on an injected :class:`twisted.internet.interfaces.IReactorTime`
(the real reactor in a server, :class:`twisted.internet.task.Clock` in tests),
so flag fall is a ``callLater`` and nothing here reads the wall clock itself.

FICS rules kept here:

* a side's clock starts only once **both** sides have made their first move
  (White's first move and Black's first move are untimed);
* the increment is added to a side after each move made while its clock ran;
* an untimed game (``0 0``) never runs a clock and never flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import chess
from twisted.internet.interfaces import IDelayedCall, IReactorTime

__all__ = ["ChessClock", "TimeControl", "format_clock", "format_move_time", "round_seconds"]

Color = chess.Color  # True for White, False for Black, as python-chess


@dataclass(frozen=True)
class TimeControl:
    """``minutes`` initial time per side and ``increment`` seconds per move."""

    minutes: int = 2
    increment: int = 12

    def __post_init__(self) -> None:
        if self.minutes < 0 or self.increment < 0:
            raise ValueError("time control values must not be negative")

    def __repr__(self) -> str:
        return f"TimeControl(minutes={self.minutes!r}, increment={self.increment!r})"

    def __str__(self) -> str:
        return f"{self.minutes} {self.increment}"

    @property
    def untimed(self) -> bool:
        return self.minutes == 0 and self.increment == 0

    @property
    def initial_seconds(self) -> float:
        return self.minutes * 60.0

    @property
    def category(self) -> str:
        """FICS category from the expected duration ``minutes + 2/3 * increment``.

        Under 3 minutes is lightning, under 15 blitz, else standard.
        """
        if self.untimed:
            return "untimed"
        expected = self.minutes + self.increment * 2 / 3
        if expected < 3:
            return "lightning"
        if expected < 15:
            return "blitz"
        return "standard"


def round_seconds(value: float) -> int:
    """Whole seconds, halves away from zero (a clock at -0.5 s shows -1)."""
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)


def format_move_time(seconds: float) -> str:
    """How long a move took, ``m:ss`` truncated to the second (FICS's ``(0:05)``)."""
    whole = max(int(seconds), 0)
    return f"{whole // 60}:{whole % 60:02d}"


def format_clock(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from one hour), rounded to the second, as FICS shows clocks."""
    total = round_seconds(seconds)
    sign = "-" if total < 0 else ""
    total = abs(total)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"
    return f"{sign}{minutes}:{secs:02d}"


class ChessClock:
    """Two countdown clocks, at most one running, with increment and flag fall.

    ``on_flag(color)`` is called (once) through ``reactor.callLater`` when the
    running side's time reaches zero.  Times are floats in seconds.
    """

    def __init__(
        self,
        *,
        time_control: TimeControl,
        reactor: IReactorTime,
        on_flag: Callable[[Color], None] | None = None,
    ) -> None:
        self.time_control = time_control
        self._reactor = reactor
        self.on_flag = on_flag
        self._remaining = {chess.WHITE: time_control.initial_seconds,
                           chess.BLACK: time_control.initial_seconds}
        self._moves = {chess.WHITE: 0, chess.BLACK: 0}
        self._running: Color | None = None
        self._started_at = 0.0
        self._timer: IDelayedCall | None = None
        self._paused: Color | None = None
        self._frozen = False

    def __repr__(self) -> str:
        return (f"<ChessClock {self.time_control} white={self.remaining(chess.WHITE):.1f} "
                f"black={self.remaining(chess.BLACK):.1f} running={self._side_name(self._running)}>")

    @staticmethod
    def _side_name(color: Color | None) -> str:
        return "none" if color is None else chess.COLOR_NAMES[color]

    # -- reading -----------------------------------------------------------

    @property
    def running(self) -> Color | None:
        """The colour whose clock is ticking, or ``None``."""
        return self._running

    @property
    def paused(self) -> bool:
        return self._paused is not None

    def remaining(self, color: Color) -> float:
        """Seconds left for ``color`` right now (negative once flagged)."""
        left = self._remaining[color]
        if self._running == color and not self._frozen:
            left -= self._reactor.seconds() - self._started_at
        return left

    def as_started(self) -> _AsStarted:
        """Within it, read the running clock as when it started: a move's own instant.

        What a move is stored with and what its boards show must be the same
        clocks, even if the reading takes a little real time.  (A plain context
        manager, not a generator one: it runs at every move.)
        """
        return _AsStarted(self)

    # -- driving -----------------------------------------------------------

    def start(self, color: Color) -> None:
        """Run ``color``'s clock (stopping the other one without increment)."""
        self.stop()
        if self.time_control.untimed:
            return
        self._running = color
        self._started_at = self._reactor.seconds()
        self._timer = self._reactor.callLater(max(self._remaining[color], 0.0), self._fall, color)

    def stop(self) -> float:
        """Stop the running clock, banking its time; returns the seconds it ran."""
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        if self._running is None:
            return 0.0
        used = self._reactor.seconds() - self._started_at
        self._remaining[self._running] -= used
        self._running = None
        return used

    def moved(self, color: Color, *, used: float | None = None) -> float:
        """``color`` completed a move: stop it, add increment, start the opponent.

        The opponent's clock starts only when both sides have moved at least
        once (FICS).  ``used`` charges that many seconds instead of the time
        the clock ran (a timeseal client's own measure, lag excluded); it is
        held within ``[0, time run]``, so a client can never gain time.
        Returns the seconds charged.
        """
        charged = 0.0
        if self._running == color:
            ran = self.stop()
            charged = ran if used is None else min(max(used, 0.0), ran)
            self._remaining[color] += ran - charged + self.time_control.increment
        else:
            self.stop()
        self._moves[color] += 1
        if self._moves[chess.WHITE] and self._moves[chess.BLACK]:
            self.start(not color)
        return charged

    def resync(self, *, white_moves: int, black_moves: int, turn: Color) -> None:
        """Reset the move counts (after a takeback) and run the side to move if due."""
        self.stop()
        self._moves = {chess.WHITE: white_moves, chess.BLACK: black_moves}
        if white_moves and black_moves:
            self.start(turn)

    def add_time(self, color: Color, seconds: float) -> None:
        """Give ``color`` ``seconds`` more (``moretime``); a running clock keeps running,
        its fall moved back as far."""
        if self._running == color:
            self.stop()
            self._remaining[color] += seconds
            self.start(color)
        else:
            self._remaining[color] += seconds

    def set_remaining(self, white: float, black: float) -> None:
        """Set both clocks, stopped (a game restored from the store, or taken back to it).

        Follow with :meth:`resync` to run the side to move.
        """
        self.stop()
        self._paused = None
        self._remaining = {chess.WHITE: white, chess.BLACK: black}

    def pause(self, *, charge: bool = True) -> None:
        """Freeze both clocks (adjournment); :meth:`resume` restarts the same side.

        ``charge=False`` leaves the running side its time as when its clock
        started (the server stopping: the clocks of the last move are kept).
        """
        if self._paused is None:
            self._paused = self._running
            if charge:
                self.stop()
            else:
                if self._timer is not None and self._timer.active():
                    self._timer.cancel()
                self._timer = None
                self._running = None
            if self._paused is None:
                self._paused = _NOBODY

    def resume(self) -> None:
        if self._paused is None:
            return
        side, self._paused = self._paused, None
        if side is not _NOBODY:
            self.start(side)

    def _fall(self, color: Color) -> None:
        self._timer = None
        if self._running != color:
            return
        self.stop()
        if self.on_flag is not None:
            self.on_flag(color)


class _Nobody:
    """Marks a pause taken while no clock was running."""

    def __repr__(self) -> str:
        return "_NOBODY"


_NOBODY: Color = _Nobody()  # type: ignore[assignment]


class _AsStarted:
    """:meth:`ChessClock.as_started`'s context."""

    __slots__ = ("clock",)

    def __init__(self, clock: ChessClock) -> None:
        self.clock = clock

    def __enter__(self) -> None:
        self.clock._frozen = True

    def __exit__(self, *exc: object) -> None:
        self.clock._frozen = False
