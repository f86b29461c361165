"""Commits spaced under load (``[storage] commit_interval_ms``): writes that come
sooner than the interval after the last hand-over wait for the next one and share
its commit; none is acknowledged before it is in the file.

The store runs on a real SQLite file with its real writer thread; the reactor
is a :class:`twisted.internet.task.Clock` (time moves only when the test says)
whose ``callFromThread`` queues the writer's acknowledgements for the test to
run, so the test sees exactly when a hand-over is due and when a write fires.
"""

from __future__ import annotations

import queue
import sqlite3
from typing import Any

import pytest
from twisted.internet.task import Clock

from ficsfen.server.config import ConfigError, from_mapping
from ficsfen.server.serve import open_store
from ficsfen.server.store import GameStart, MoveRecord, SQLiteStore

INTERVAL = 0.004


class ClockReactor(Clock):
    """A Clock with ``callFromThread``: calls from the writer thread wait in a queue."""

    def __init__(self) -> None:
        super().__init__()
        self.from_threads: queue.Queue[tuple[Any, tuple, dict]] = queue.Queue()

    def callFromThread(self, f: Any, *args: Any, **kw: Any) -> None:
        self.from_threads.put((f, args, kw))

    def run_from_thread(self) -> None:
        """Run the next call the writer thread made (waiting for it to make one)."""
        f, args, kw = self.from_threads.get(timeout=60)  # only keeps a broken test from hanging
        f(*args, **kw)

    def due(self) -> list[float]:
        return [call.getTime() for call in self.getDelayedCalls()]


@pytest.fixture
def clock():
    return ClockReactor()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "ficsfen.sqlite3"


def close(clock, store) -> None:
    """Close ``store``, running the writer's calls until it has stopped."""
    closed = []
    store.close().addBoth(closed.append)
    while not closed:
        clock.run_from_thread()


@pytest.fixture
def store(clock, path):
    store = SQLiteStore.open(path, reactor=clock, commit_interval=INTERVAL)
    yield store
    close(clock, store)


def rows(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM moves").fetchone()[0]
    finally:
        conn.close()


def move(ply: int) -> MoveRecord:
    san, uci = [("e4", "e2e4"), ("e5", "e7e5"), ("Nf3", "g1f3")][ply - 1]
    return MoveRecord(ply, san, uci, 60_000, 60_000, 1000)


def started(clock, store) -> int:
    """A game whose start is committed (hand-over at the clock's time 0)."""
    game_id, d = store.start_game(GameStart("alice", "bob", 1, 0, 1_700_000_000.0))
    assert clock.due() == [0.0]  # nothing handed over yet: the first write goes at once
    clock.advance(0)
    fired = []
    d.addCallback(fired.append)
    clock.run_from_thread()
    assert fired == [None]
    return game_id


def test_writes_sooner_than_the_interval_share_the_next_commit(clock, store, path):
    game_id = started(clock, store)
    commits = store.commits
    clock.advance(0.001)
    fired = []
    store.add_move(game_id, move(1)).addCallback(lambda _: fired.append((1, rows(path))))
    assert clock.due() == [pytest.approx(INTERVAL)]  # the last hand-over was at 0
    clock.advance(0.001)
    store.add_move(game_id, move(2)).addCallback(lambda _: fired.append((2, rows(path))))
    assert clock.due() == [pytest.approx(INTERVAL)]  # one hand-over for both
    clock.advance(0.001)  # t = 0.003: not yet
    assert store._writer._queue == [] and fired == [] and rows(path) == 0
    clock.advance(0.001)  # t = 0.004: both handed over together
    assert clock.due() == []
    clock.run_from_thread()
    # One commit for both, and each fired only with its row in the file.
    assert fired == [(1, 2), (2, 2)]
    assert store.commits == commits + 1


def test_a_write_after_a_quiet_spell_is_handed_over_at_once(clock, store, path):
    game_id = started(clock, store)
    clock.advance(1.0)
    fired = []
    store.add_move(game_id, move(1)).addCallback(fired.append)
    assert clock.due() == [pytest.approx(1.0)]  # no wait: the interval is long past
    clock.advance(0)
    clock.run_from_thread()
    assert fired == [None] and rows(path) == 1


def test_close_commits_the_writes_waiting_for_their_hand_over(clock, path):
    store = SQLiteStore.open(path, reactor=clock, commit_interval=INTERVAL)
    game_id = started(clock, store)
    fired = []
    store.add_move(game_id, move(1)).addCallback(fired.append)
    assert clock.due() == [pytest.approx(INTERVAL)]
    closed = []
    store.close().addBoth(closed.append)
    assert clock.due() == []  # the hand-over came early; nothing left to run later
    while not closed:
        clock.run_from_thread()
    assert fired == [None] and rows(path) == 1


def test_no_interval_hands_over_every_turn(clock, path):
    store = SQLiteStore.open(path, reactor=clock)
    try:
        game_id = started(clock, store)
        store.add_move(game_id, move(1))
        assert clock.due() == [0.0]
    finally:
        close(clock, store)


def test_the_server_spaces_commits_as_its_configuration_says(clock, tmp_path):
    config = from_mapping({"storage": {"path": str(tmp_path / "f.sqlite3"), "commit_interval_ms": 7}})
    assert config.commit_interval_ms == 7
    assert from_mapping({}).commit_interval_ms == 10
    store = open_store(config, reactor=clock)
    try:
        game_id = started(clock, store)
        store.add_move(game_id, move(1))
        assert clock.due() == [pytest.approx(0.007)]
    finally:
        close(clock, store)


@pytest.mark.parametrize("bad", [-1, 1.5, "4", True])
def test_a_bad_commit_interval_is_refused_in_both_languages(bad):
    with pytest.raises(ConfigError) as info:
        from_mapping({"storage": {"commit_interval_ms": bad}})
    assert "storage.commit_interval_ms" in info.value.render("en")
    assert "storage.commit_interval_ms" in info.value.render("fr")
    assert "0" in info.value.render("fr")
