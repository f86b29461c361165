"""Rated games end to end: a real ``ficsfen serve --data FILE`` on loopback.

Two registered players finish two rated games; ``finger`` before and after
agrees with :func:`ficsfen.server.glicko.update` from the configured
constants (the times come from the file: each game's end is its ratings'
``last_played``).  Killed with SIGKILL right after a rated result reaches the
players, then restarted: the game and both rating changes are there.
"""

from __future__ import annotations

import signal
import sqlite3

import pytest

from ficsfen.server.glicko import FICS_CONSTANTS, Rating, update
from ficsfen.server.testing import ServerProcess, accounts_config

pytestmark = pytest.mark.slow

PASSWORDS = {"alice": "ecila", "bob": "bob!"}


@pytest.fixture
def config(tmp_path):
    return accounts_config(tmp_path / "ficsfen.toml", PASSWORDS)


def _login(server, name):
    client = server.connect()
    client.login(name, PASSWORDS[name])
    return client


def _rows(text):
    """finger's rating rows, as fields."""
    return [line.split() for line in text.splitlines() if line.startswith("Blitz ")]


def _finger(client, name):
    return _rows(client.ask(f"finger {name}", f"Finger of {name}:"))


def _play_rated(alice, bob, loser):
    """alice (White) and bob start a rated 5 0 game, ``loser`` resigns; each reads the
    result and their rating adjustment."""
    alice.ask("match bob 5 0 white rated", "Issuing:")
    bob.read_until("rated blitz 5 0.")
    bob.send("accept")
    alice.read_until("Creating"), bob.read_until("Creating")
    (alice if loser == "alice" else bob).send("resign")
    lines = {}
    for name, client in (("alice", alice), ("bob", bob)):
        client.read_until(f"{loser} resigns}}")
        lines[name] = client.read_until("\n") + client.read_until("\n")
    return lines


def _expected(data):
    """Both players' ratings after each stored rated game, replayed with glicko.update."""
    with sqlite3.connect(data) as db:
        games = db.execute("SELECT white_key, black_key, result, ended FROM games "
                           "WHERE rated = 1 AND status = 'finished' ORDER BY id").fetchall()
    ratings = {name: Rating.initial(FICS_CONSTANTS) for name in PASSWORDS}
    scores = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    for white, black, result, ended in games:
        w, b = scores[result]
        ratings[white], ratings[black] = (update(ratings[white], ratings[black], w, ended,
                                                 FICS_CONSTANTS),
                                          update(ratings[black], ratings[white], b, ended,
                                                 FICS_CONSTANTS))
    return ratings


def _row_of(rating):
    return ["Blitz", str(round(rating.rating)), f"{rating.rd:.1f}", str(rating.wins),
            str(rating.losses), str(rating.draws), str(rating.total)]


def test_finger_before_and_after_rated_games_agrees_with_glicko(tmp_path, config):
    data = tmp_path / "data.sqlite3"
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        alice, bob = _login(server, "alice"), _login(server, "bob")
        assert _finger(alice, "alice") == [] and _finger(alice, "bob") == []
        first = _play_rated(alice, bob, loser="bob")
        second = _play_rated(alice, bob, loser="alice")
        after = {name: _finger(alice, name) for name in PASSWORDS}
        bob.send("quit")
        bob.read_until("Goodbye")
        offline = _finger(alice, "bob")  # read from the file
    expected = _expected(data)
    for name in PASSWORDS:
        assert after[name] == [_row_of(expected[name])]
    assert offline == [_row_of(expected["bob"])]
    assert "\nBlitz rating adjustment: 1720 --> " in first["alice"]
    assert f"--> {round(expected['alice'].rating)}" in second["alice"]
    assert f"--> {round(expected['bob'].rating)}" in second["bob"]


def test_kill_9_right_after_a_rated_result_keeps_the_game_and_the_ratings(tmp_path, config):
    data = tmp_path / "data.sqlite3"
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        alice, bob = _login(server, "alice"), _login(server, "bob")
        lines = _play_rated(alice, bob, loser="bob")
        server.stop(signal.SIGKILL)  # no goodbye, no close: the end was acknowledged
    expected = _expected(data)
    assert f"--> {round(expected['alice'].rating)}" in lines["alice"]
    with sqlite3.connect(data) as db:
        assert db.execute("SELECT result, white_change > 0, black_change < 0 FROM games"
                          ).fetchall() == [("1-0", 1, 1)]
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        alice = _login(server, "alice")
        assert _finger(alice, "alice") == [_row_of(expected["alice"])]
        assert _finger(alice, "bob") == [_row_of(expected["bob"])]
