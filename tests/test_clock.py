"""The chess clock on an injected reactor clock (no wall time, no thresholds)."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.internet.task import Clock

from ficsfen.server.clock import ChessClock, TimeControl, format_clock


def make(minutes=5, increment=0):
    reactor = Clock()
    flags: list[chess.Color] = []
    clock = ChessClock(time_control=TimeControl(minutes, increment), reactor=reactor,
                       on_flag=flags.append)
    return reactor, clock, flags


def test_first_move_of_each_side_does_not_start_a_clock():
    reactor, clock, _ = make()
    reactor.advance(30)
    clock.moved(chess.WHITE)
    assert clock.running is None
    reactor.advance(40)
    clock.moved(chess.BLACK)
    assert clock.running == chess.WHITE
    assert clock.remaining(chess.WHITE) == 300
    assert clock.remaining(chess.BLACK) == 300


def test_time_runs_for_the_side_to_move_and_increment_is_added():
    reactor, clock, _ = make(3, 2)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    reactor.advance(10)
    assert clock.remaining(chess.WHITE) == 170
    took = clock.moved(chess.WHITE)
    assert took == 10
    assert clock.remaining(chess.WHITE) == 172
    assert clock.running == chess.BLACK
    reactor.advance(5.5)
    assert clock.remaining(chess.BLACK) == pytest.approx(174.5)
    assert clock.moved(chess.BLACK) == pytest.approx(5.5)  # what Black's move took
    assert clock.remaining(chess.BLACK) == pytest.approx(176.5)


def test_flag_falls_through_call_later():
    reactor, clock, flags = make(1, 0)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    reactor.advance(59)
    assert flags == []
    reactor.advance(1)
    assert flags == [chess.WHITE]
    assert clock.running is None
    assert clock.remaining(chess.WHITE) <= 0
    reactor.advance(100)
    assert flags == [chess.WHITE]  # once only


def test_switching_cancels_the_previous_flag_timer():
    reactor, clock, flags = make(1, 0)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    reactor.advance(50)
    clock.moved(chess.WHITE)
    reactor.advance(55)
    assert flags == []
    reactor.advance(5)
    assert flags == [chess.BLACK]
    assert clock.remaining(chess.WHITE) == 10


def test_pause_and_resume_keep_the_times():
    reactor, clock, flags = make(1, 0)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    reactor.advance(20)
    clock.pause()
    assert clock.paused and clock.running is None
    reactor.advance(1000)
    assert flags == []
    assert clock.remaining(chess.WHITE) == 40
    clock.resume()
    assert clock.running == chess.WHITE
    reactor.advance(40)
    assert flags == [chess.WHITE]


def test_pause_while_stopped_resumes_nothing():
    reactor, clock, _ = make()
    clock.pause()
    clock.resume()
    assert clock.running is None and not clock.paused


def test_untimed_games_never_run():
    reactor, clock, flags = make(0, 0)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    assert clock.running is None
    reactor.advance(10**6)
    assert flags == []
    assert TimeControl(0, 0).category == "untimed"


def test_resync_after_takeback():
    reactor, clock, _ = make()
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    clock.resync(white_moves=1, black_moves=0, turn=chess.BLACK)
    assert clock.running is None
    clock.resync(white_moves=1, black_moves=1, turn=chess.WHITE)
    assert clock.running == chess.WHITE


@pytest.mark.parametrize("tc, category", [
    ((1, 0), "lightning"), ((2, 0), "lightning"), ((2, 12), "blitz"), ((5, 0), "blitz"),
    ((14, 0), "blitz"), ((15, 0), "standard"), ((10, 10), "standard"), ((0, 0), "untimed"),
])
def test_fics_categories(tc, category):
    assert TimeControl(*tc).category == category


def test_time_control_repr_round_trips():
    tc = TimeControl(5, 3)
    assert eval(repr(tc)) == tc
    with pytest.raises(ValueError):
        TimeControl(-1, 0)


@pytest.mark.parametrize("seconds, text", [
    (300, "5:00"), (59.6, "1:00"), (0, "0:00"), (3725, "1:02:05"), (-3, "-0:03"),
])
def test_format_clock(seconds, text):
    assert format_clock(seconds) == text



@pytest.mark.slow
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=30),
       st.integers(min_value=0, max_value=5))
def test_time_is_conserved(thinks, increment):
    """Both clocks together lose exactly the timed thinking and gain one increment per timed move."""
    reactor = Clock()
    clock = ChessClock(time_control=TimeControl(10, increment), reactor=reactor)
    color = chess.WHITE
    spent = gained = 0
    for think in thinks:
        reactor.advance(think)
        if clock.running == color:
            spent += think
            gained += increment
        clock.moved(color)
        color = not color
    total = clock.remaining(chess.WHITE) + clock.remaining(chess.BLACK)
    assert total == 1200 - spent + gained
    assert (clock.running is not None) == (len(thinks) >= 2)
