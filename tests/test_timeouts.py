"""Timeouts: many connections' timeouts of one length behind one timer (memory after an attack)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock
from twisted.logger import formatEvent, globalLogPublisher

from ficsfen.server.timeouts import Timeouts


def _timeouts(seconds: float = 10.0) -> tuple[Clock, Timeouts[str], list[tuple[float, str]]]:
    clock = Clock()
    fired: list[tuple[float, str]] = []
    return clock, Timeouts(clock, seconds, lambda who: fired.append((clock.seconds(), who))), fired


def test_each_expires_exactly_its_seconds_after_it_started_with_one_timer():
    clock, timeouts, fired = _timeouts()
    timeouts.start("a")
    clock.advance(3)
    timeouts.start("b")
    timeouts.start("c")
    assert len(clock.getDelayedCalls()) == 1
    clock.advance(6.75)
    assert fired == []
    clock.advance(0.25)
    assert fired == [(10, "a")]
    clock.advance(3)
    assert fired == [(10, "a"), (13, "b"), (13, "c")]
    assert len(timeouts) == 0 and clock.getDelayedCalls() == []


def test_stopped_ones_never_expire_and_the_timer_moves_on_to_the_next():
    clock, timeouts, fired = _timeouts()
    timeouts.start("a")
    clock.advance(5)
    timeouts.start("b")
    timeouts.stop("a")
    timeouts.stop("nobody")  # not started: nothing to do
    assert "a" not in timeouts and "b" in timeouts
    clock.advance(5)  # a's deadline: the timer finds b not due and waits for it
    assert fired == []
    clock.advance(5)
    assert fired == [(15, "b")]


def test_a_restart_counts_from_the_restart():
    clock, timeouts, fired = _timeouts()
    timeouts.start("a")
    timeouts.start("b")
    clock.advance(8)
    timeouts.start("a")
    clock.advance(2)
    assert fired == [(10, "b")]
    clock.advance(8)
    assert fired == [(10, "b"), (18, "a")]


def test_zero_seconds_means_no_timeout():
    clock, timeouts, fired = _timeouts(0)
    timeouts.start("a")
    assert len(timeouts) == 0 and clock.getDelayedCalls() == []
    clock.advance(1e9)
    assert fired == []


def test_a_failing_expiry_is_logged_and_the_others_still_expire():
    clock = Clock()
    fired: list[str] = []

    def expired(who: str) -> None:
        if who == "bad":
            raise RuntimeError("boom")
        fired.append(who)

    timeouts = Timeouts(clock, 1.0, expired)
    for who in ("x", "bad", "y"):
        timeouts.start(who)
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        clock.advance(1)
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert fired == ["x", "y"]
    assert ["timeout of 'bad' failed"] == [formatEvent(e) for e in events if "log_failure" in e]
    assert len(timeouts) == 0


def test_an_expiry_may_start_another_timeout():
    clock = Clock()
    timeouts: Timeouts[str]
    fired: list[tuple[float, str]] = []

    def expired(who: str) -> None:
        fired.append((clock.seconds(), who))
        if who == "a":
            timeouts.start("a2")

    timeouts = Timeouts(clock, 4.0, expired)
    timeouts.start("a")
    clock.advance(4)
    clock.advance(4)
    assert fired == [(4, "a"), (8, "a2")]
    assert len(clock.getDelayedCalls()) == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("start stop wait".split()), st.integers(0, 5),
                          st.floats(0, 7)), max_size=40))
def test_it_expires_what_one_timer_per_name_would(steps):
    """Against the obvious model: a ``callLater`` per name, cancelled on stop or restart."""
    clock, timeouts, fired = _timeouts(5.0)
    model_clock = Clock()
    model: dict[int, object] = {}
    expected: list[tuple[float, str]] = []
    for action, who, wait in steps:
        name = str(who)
        if action == "start":
            timeouts.start(name)
            if who in model and model[who].active():
                model[who].cancel()
            model[who] = model_clock.callLater(5.0, lambda n=name: expected.append((model_clock.seconds(), n)))
        elif action == "stop":
            timeouts.stop(name)
            if who in model and model[who].active():
                model[who].cancel()
        else:
            clock.advance(wait)
            model_clock.advance(wait)
    clock.advance(6)
    model_clock.advance(6)
    assert sorted(fired) == sorted(expected)
