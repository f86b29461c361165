"""Nothing acknowledged is lost: a real ``ficsfen serve --data FILE`` killed and restarted,
on an SQLite file and on a PostgreSQL database (``--data postgresql://...``).

Two registered players play over loopback; right after the board of ply k
reaches the test's client, the server is killed (SIGKILL) or stopped
(SIGTERM).  Restarted on the same file, both log in, one resumes, the other
accepts: the position is the one after ply k and the clocks are those of
ply k's board (the side to move starts running again at the resumption, so
its clock can only be lower by the time since; the file keeps them exactly).
"""

from __future__ import annotations

import signal
import sqlite3

import pytest

from ficsfen.server.testing import ServerProcess, accounts_config
from ficsfen.tracker import Tracker

pytestmark = pytest.mark.slow

PASSWORDS = {"alice": "ecila", "bob": "bob!"}
MOVES = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4"]


@pytest.fixture(params=["sqlite", "postgresql"])
def data(request, tmp_path):
    """The server's ``--data``: an SQLite file, or a new PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "data.sqlite3")
    return request.getfixturevalue("pg_url")


def _rows(data, sql, params=()):
    """What is committed in ``data``, read through a connection of the test's own."""
    if data.startswith("postgresql://"):
        import psycopg

        from ficsfen.server.store.pg_dialect import translate

        with psycopg.connect(data, autocommit=True, cursor_factory=psycopg.RawCursor) as db:
            return [tuple(row) for row in db.execute(translate(sql)[0], params).fetchall()]
    with sqlite3.connect(data) as db:
        return db.execute(sql, params).fetchall()


@pytest.fixture
def config(tmp_path):
    return accounts_config(tmp_path / "accounts.toml", PASSWORDS)


def _login(server, name):
    client = server.connect()
    client.login(name, PASSWORDS[name])
    client.ask("style 12", "Style 12 set.")
    client.ask("iset ms 1", "ms set.")
    return client


def _board(client):
    """The next ``<12>`` line ``client`` receives, as fields."""
    client.read_until("<12> ")
    return ("<12> " + client.read_until("\n")).split()


def _fen_after(k):
    """The FEN after ply k as the server writes it (its tracker, the e.p. square after
    every double step, as FICS)."""
    tracker = Tracker()
    for san in MOVES[:k]:
        tracker.push(san)
    return tracker.fen


def _play(server, k):
    """alice (White) and bob play MOVES[:k]; returns the board of ply k as bob's client saw it."""
    alice, bob = _login(server, "alice"), _login(server, "bob")
    alice.ask("match bob 3 0 white", "Issuing:")
    bob.read_until("Challenge:")
    bob.send("accept")
    _board(alice), _board(bob)
    seen = None
    for i, san in enumerate(MOVES[:k]):
        mover, other = (alice, bob) if i % 2 == 0 else (bob, alice)
        mover.send(san)
        mine = _board(mover)  # a move is answered by its board once it is stored
        theirs = _board(other)
        assert mine[9] == theirs[9] and mine[29] == theirs[29]
        seen = mine if mover is bob else theirs
    return alice, bob, seen


def _resume(server):
    alice, bob = _login(server, "alice"), _login(server, "bob")
    assert " 1: B alice           Y [ bu  3   0]" in bob.ask("stored", "Stored games for bob:")
    bob.ask("resume", "(adjourned).")
    alice.read_until("Challenge: bob (----) [black] alice (----) unrated blitz 3 0 (adjourned).")
    alice.send("accept")
    alice.read_until("Continuing unrated")
    return alice, bob, _board(bob)


def _check(board_k, resumed, k, data):
    assert resumed[1:9] == board_k[1:9] and resumed[9] == board_k[9]
    to_move = 24 if board_k[9] == "W" else 25
    idle = 25 if to_move == 24 else 24
    assert int(resumed[idle]) == int(board_k[idle])  # the side that moved: exactly
    assert int(resumed[to_move]) <= int(board_k[to_move])  # running again since the resumption
    [row] = _rows(data, "SELECT white_ms, black_ms FROM moves WHERE ply = ?", (k,))
    sans = [san for san, in _rows(data, "SELECT san FROM moves ORDER BY ply")]
    assert sans == MOVES[:k]
    assert (row[0], row[1]) == (int(board_k[24]), int(board_k[25]))  # the board shows what is kept


@pytest.mark.parametrize("k", [4, 7])
def test_kill_9_right_after_move_k_loses_nothing_anyone_saw(data, config, k):
    with ServerProcess("--config", str(config), "--data", data) as server:
        alice, bob, board_k = _play(server, k)
        server.stop(signal.SIGKILL)
        alice.close()
        bob.close()
    with ServerProcess("--config", str(config), "--data", data) as server:
        alice, bob, resumed = _resume(server)
        alice.send("fen")
        alice.read_until(_fen_after(k))
        alice.close()
        bob.close()
    _check(board_k, resumed, k, data)


def test_sigterm_adjourns_tells_the_players_and_keeps_the_clocks_of_the_last_move(data, config):
    k = 5
    with ServerProcess("--config", str(config), "--data", data) as server:
        alice, bob, board_k = _play(server, k)
        assert server.stop(signal.SIGTERM) == 0
        for client in (alice, bob):
            out = client.read_until("Goodbye.")
            assert "{Game 1 (alice vs. bob) Game adjourned by server shutdown} *" in out
            client.close()
    [(status, white, black)] = _rows(
        data, "SELECT status, adjourn_white_ms, adjourn_black_ms FROM games")
    assert status == "adjourned"
    assert (white, black) == (int(board_k[24]), int(board_k[25]))
    with ServerProcess("--config", str(config), "--data", data) as server:
        alice, bob, resumed = _resume(server)
        bob.send("fen")
        bob.read_until(_fen_after(k))
        alice.close()
        bob.close()
    _check(board_k, resumed, k, data)
