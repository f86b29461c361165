"""Checkpoints of the write-ahead log off the commit path (writer.py), and the log stays bounded.

A server's write connection never checkpoints inside a ``COMMIT``
(``wal_autocheckpoint = 0``): a checkpointer thread with its own
connection does, and the writer copies only the tail it leaves.  These
tests write many scattered moves through a real store and look at the
``-wal`` file and at the data file through other connections.
"""

from __future__ import annotations

import sqlite3

import pytest

from ficsfen.fen import STARTING_FEN
from ficsfen.server.store import GameStart, MoveRecord, SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for

GAMES = 60
COMMITS = 150


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "ficsfen.sqlite3"


def wal(path):
    return path.with_name(path.name + "-wal")


def scattered_load(reactor, store, path):
    """``COMMITS`` commits, each one move of every one of ``GAMES`` games (the moves
    land on many pages, as with 500 interleaved games); the largest ``-wal`` seen."""
    ids = []
    for n in range(GAMES):
        game_id, d = store.start_game(GameStart(f"w{n}", f"b{n}", 120, 0, 0.0, STARTING_FEN))
        ids.append(game_id)
    wait_for(reactor, d)
    largest = 0
    for ply in range(1, COMMITS + 1):
        ds = [store.add_move(game_id, MoveRecord(ply, "e4", "e2e4", 1000, 1000, 10))
              for game_id in ids]
        for d in ds:
            wait_for(reactor, d)
        largest = max(largest, wal(path).stat().st_size if wal(path).exists() else 0)
    return largest


def test_a_server_store_never_checkpoints_inside_a_commit(reactor, path):
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        conn = store._writer._conn
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY: no temp files
    finally:
        wait_for(reactor, store.close())


def test_a_tool_beside_the_server_keeps_sqlite_checkpoints(reactor, path):
    """A tool has no checkpointer; its rare commits checkpoint as SQLite does."""
    store = SQLiteStore.open(path, reactor=reactor, exclusive=False)
    try:
        assert store._writer._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] > 0
    finally:
        wait_for(reactor, store.close())


@pytest.mark.slow
def test_the_log_stays_bounded_under_sustained_scattered_writes(reactor, tmp_path):
    """The same load twice: with the checkpointer the log starts again from its
    beginning every few dozen commits; with no checkpoint at all (what the writer
    alone would leave) it holds every page ever committed."""
    path = tmp_path / "checkpointed.sqlite3"
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        bounded = scattered_load(reactor, store, path)
        assert store._writer._checkpointer.passes > 0
    finally:
        wait_for(reactor, store.close())
    # Everything is in the data file, and a clean close leaves no log behind.
    assert not wal(path).exists() or wal(path).stat().st_size == 0
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*), max(ply) FROM moves").fetchone() == (
            GAMES * COMMITS, COMMITS)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()

    unchecked = tmp_path / "unchecked.sqlite3"
    store = SQLiteStore.open(unchecked, reactor=reactor)
    writer = store._writer
    checkpointer, writer._checkpointer = writer._checkpointer, None
    checkpointer.stop()
    try:
        grown = scattered_load(reactor, store, unchecked)
    finally:
        wait_for(reactor, store.close())
    assert bounded * 2 < grown, (bounded, grown)
