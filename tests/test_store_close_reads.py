"""Closing a store while a read runs in another thread (ficsfen.server.store.read_gate).

The read is real and really running: on SQLite a statement of the store's
own read connection is held inside SQLite (a progress handler waiting on an
event the test sets); on PostgreSQL the read waits for a table lock another
connection of the test holds.  The close must refuse new reads at once,
leave the running one alone until it ends, then close the connection.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable

import pytest
from pg_server import open_store
from test_store import end, play, register

from ficsfen.server.store import SQLiteStore, StoreClosedError
from ficsfen.server.store.testing import private_reactor, wait_for

WAIT = 60.0  # only keeps a broken test from hanging


@pytest.fixture
def reactor() -> Any:
    return private_reactor()


class Hold:
    """A progress handler of an SQLite connection: when armed, the next statement step
    waits inside SQLite until :attr:`release` is set."""

    def __init__(self) -> None:
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def step(self) -> int:
        if self.armed:
            self.armed = False
            self.entered.set()
            self.release.wait(WAIT)
        return 0  # go on


class Reading(threading.Thread):
    """``read()`` in a thread of its own; :attr:`result` or :attr:`error` once joined."""

    def __init__(self, read: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.read = read
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.read()
        except BaseException as e:
            self.error = e


def close_under(reactor: Any, store: Any, reading: Reading, let_go: Callable[[], None]) -> None:
    """Close ``store`` while ``reading`` is held; check the close waits, then let it go."""
    closed = store.close()
    with pytest.raises(StoreClosedError) as info:  # a read after close: refused at once
        store.get_account("alice")
    assert "is closed" in info.value.render("en")
    assert not closed.called  # the connection stays open under the running read
    let_go()
    reading.join(WAIT)
    assert not reading.is_alive()
    assert reading.error is None, repr(reading.error)
    assert [a.name for a in reading.result] == ["alice"]  # the read ended as if no close
    wait_for(reactor, closed, timeout=WAIT)
    with pytest.raises(StoreClosedError):
        store.accounts()


def test_sqlite_close_waits_for_a_running_read_and_refuses_later_ones(reactor, tmp_path) -> None:
    path = tmp_path / "data.sqlite3"
    made = SQLiteStore.open(path, reactor=reactor)
    register(reactor, made, "alice")
    wait_for(reactor, made.close())
    # the same file, the store's read connection held by the test's progress handler
    read = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    read.row_factory = sqlite3.Row
    write = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    hold = Hold()
    read.set_progress_handler(hold.step, 1)
    store = SQLiteStore(path, reactor=reactor, read=read, write=write, lock=None, next_game_id=1)
    hold.armed = True
    reading = Reading(store.accounts)
    reading.start()
    assert hold.entered.wait(WAIT)
    close_under(reactor, store, reading, hold.release.set)
    with pytest.raises(sqlite3.ProgrammingError):  # the connection itself is closed
        read.execute("SELECT 1")


@pytest.mark.slow  # a real PostgreSQL server
def test_postgresql_close_waits_for_a_running_read_and_refuses_later_ones(reactor,
                                                                           pg_url) -> None:
    import psycopg

    store = open_store(pg_url, reactor=reactor)
    register(reactor, store, "alice")
    with psycopg.connect(pg_url, autocommit=True) as locker:
        locker.execute("BEGIN")
        locker.execute("LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE")
        reading = Reading(store.accounts)
        reading.start()

        def waiting() -> int:  # the read's lock request, not granted: it runs, held
            row = locker.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND "
                                 "relation = 'accounts'::regclass").fetchone()
            return int(row[0]) if row else 0

        while not waiting():
            assert reading.is_alive(), reading.error
        close_under(reactor, store, reading, lambda: locker.execute("ROLLBACK"))


@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def test_an_iteration_started_before_close_ends_with_the_closed_error(
        reactor, tmp_path: Path, request: pytest.FixtureRequest, store_kind: str) -> None:
    location: Path | str = tmp_path / "data.sqlite3"
    if store_kind == "postgresql":
        location = str(request.getfixturevalue("pg_url"))
    store = open_store(location, reactor=reactor)
    register(reactor, store, "alice", "bob")
    for _ in range(2):
        end(reactor, store, play(reactor, store, ["e4"]))
    games = store.finished_games()
    assert next(games).moves
    wait_for(reactor, store.close())
    with pytest.raises(StoreClosedError):
        next(games)
