"""Claims of two stores (two cluster nodes) on one real PostgreSQL database.

Several nodes keep a copy of an adjourned game; the store's conditional
writes decide which one resumes it (``resume_game``) or writes its expiry
(``end_game(..., adjourned_only=True)``, by the adjournment the store has with
``adjourned_before``): exactly one of two writes made at
the same instant succeeds.  To make the two writes meet, the test holds the
game's row locked from a connection of its own until both are waiting on
that lock (read from ``pg_locks``), then lets them go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import missing

try:
    import psycopg
except ImportError:  # skipped here, a failure under CI
    missing("psycopg 3 is not installed (pip install '.[cluster]')")

from cluster_nodes import eventually
from ficsfen.server.store import Adjournment, EndCode, GameEnd, GameStart, NoSuchGameError
from ficsfen.server.store.postgres import PostgresStore
from ficsfen.server.store.testing import private_reactor, wait_for


@pytest.fixture
def stores(pg_url: str) -> Iterator[tuple[Any, PostgresStore, PostgresStore]]:
    reactor = private_reactor()
    first = PostgresStore.open(pg_url, reactor=reactor)
    second = PostgresStore.open(pg_url, reactor=reactor)
    try:
        yield reactor, first, second
    finally:
        wait_for(reactor, first.close())
        wait_for(reactor, second.close())


def _adjourned_game(reactor: Any, store: PostgresStore) -> int:
    game_id, d = store.start_game(GameStart("alice", "bob", 180, 0, 1_700_000_000.0))
    wait_for(reactor, d)
    wait_for(reactor, store.adjourn_game(game_id, Adjournment("r", 1_700_000_100.0, 1, 1, 0)))
    return game_id


def _expiry() -> GameEnd:
    return GameEnd("*", "Game adjourned too long; aborted", EndCode.ABORTED, 1_800_000_000.0)


@contextmanager
def _held(reactor: Any, url: str, game_id: int) -> Iterator[Callable[[int], bool]]:
    """The game's row locked by a transaction of the test's own until the block ends;
    yields ``waiting(n)``: whether ``n`` other sessions wait for a lock (the reactor,
    which hands the writes to the stores' writer threads, runs meanwhile)."""
    with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as watcher:
        holder.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game_id,))

        def waiting(n: int) -> bool:
            reactor.runUntilCurrent()
            reactor.doIteration(0)
            row = watcher.execute("SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted").fetchone()
            return row is not None and int(row[0]) >= n

        yield waiting
        holder.commit()


def _outcomes(reactor: Any, writes: list[Any]) -> list[str]:
    outcomes = []
    for d in writes:
        try:
            wait_for(reactor, d)
            outcomes.append("done")
        except NoSuchGameError:
            outcomes.append("refused")
    return sorted(outcomes)


def _status(url: str, game_id: int) -> str:
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
    assert row is not None
    return str(row[0])


def test_two_nodes_resuming_one_game_at_once_one_resumes_it(stores, pg_url) -> None:
    reactor, first, second = stores
    game_id = _adjourned_game(reactor, first)
    with _held(reactor, pg_url, game_id) as waiting:
        writes = [first.resume_game(game_id), second.resume_game(game_id)]
        eventually("both resumptions wait for the row", lambda: waiting(2))
    assert _outcomes(reactor, writes) == ["done", "refused"]
    assert _status(pg_url, game_id) == "playing"


def test_an_expiry_and_a_resumption_at_once_one_of_them_wins(stores, pg_url) -> None:
    reactor, first, second = stores
    game_id = _adjourned_game(reactor, first)
    with _held(reactor, pg_url, game_id) as waiting:
        resumed = first.resume_game(game_id)
        eventually("the resumption waits for the row", lambda: waiting(1))
        expired = second.end_game(game_id, _expiry(), adjourned_only=True)
        eventually("the expiry waits too", lambda: waiting(2))
    assert _outcomes(reactor, [resumed, expired]) == ["done", "refused"]
    assert _status(pg_url, game_id) == "playing"  # the game resumed first is not ended


def test_two_nodes_expiring_one_game_write_its_end_once(stores, pg_url) -> None:
    reactor, first, second = stores
    game_id = _adjourned_game(reactor, first)
    with _held(reactor, pg_url, game_id) as waiting:
        writes = [store.end_game(game_id, _expiry(), adjourned_only=True)
                  for store in (first, second)]
        eventually("both expiries wait for the row", lambda: waiting(2))
    assert _outcomes(reactor, writes) == ["done", "refused"]
    assert _status(pg_url, game_id) == "finished"
    assert first.get_game(game_id).end.ended == 1_800_000_000.0


def test_an_expiry_leaves_a_game_in_play_alone(stores, pg_url) -> None:
    reactor, first, second = stores
    game_id = _adjourned_game(reactor, first)
    wait_for(reactor, first.resume_game(game_id))
    with pytest.raises(NoSuchGameError):
        wait_for(reactor, second.end_game(game_id, _expiry(), adjourned_only=True))
    assert _status(pg_url, game_id) == "playing"


def test_an_expiry_by_an_older_adjournment_leaves_a_newer_one_alone(stores, pg_url) -> None:
    # the second node's copy says adjourned at 1_700_000_100; the first resumed the game
    # and adjourned it again at 1_700_000_900: what expires before 1_700_000_500 is not it
    reactor, first, second = stores
    game_id = _adjourned_game(reactor, first)
    wait_for(reactor, first.resume_game(game_id))
    wait_for(reactor, first.adjourn_game(game_id, Adjournment("r", 1_700_000_900.0, 1, 1, 0)))
    with pytest.raises(NoSuchGameError):
        wait_for(reactor, second.end_game(game_id, _expiry(), adjourned_only=True,
                                          adjourned_before=1_700_000_500.0))
    assert _status(pg_url, game_id) == "adjourned"
    wait_for(reactor, second.end_game(game_id, _expiry(), adjourned_only=True,
                                      adjourned_before=1_700_001_000.0))
    assert _status(pg_url, game_id) == "finished"
