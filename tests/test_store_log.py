"""The move log (schema version 3): moves of games in play appended, copied by game.

A game's moves go to ``move_log`` in the order they are acknowledged; when it
is adjourned or ends they are copied to ``game_moves``, where each game's
moves are kept together, and the view ``moves`` shows every acknowledged
move once.  Checked here through the store's reads and through a second,
plain connection to the real file.
"""

from __future__ import annotations

import random
import sqlite3

import pytest

from ficsfen.server.store import Adjournment, EndCode, GameEnd, GameStatus, SQLiteStore
from ficsfen.server.store import game_writes
from ficsfen.server.store.testing import wait_for

from test_store import game_moves, peek, play, reactor, start  # noqa: F401  (fixtures)

SANS = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5",
        "Bb3", "d6", "c3", "O-O", "h3", "Nb8", "d4", "Nbd7"]
ADJOURNMENT = Adjournment("bob lost connection; game adjourned", 1_700_000_050.0, 1, 1, 0)


@pytest.fixture
def path(tmp_path):
    """An SQLite file: the log's ids and statements here are SQLite's (the PostgreSQL
    store's log is tested in test_store_postgres.py and through test_store.py)."""
    return tmp_path / "data" / "ficsfen.sqlite3"


@pytest.fixture
def store(reactor, path):  # noqa: F811  (the fixtures imported above)
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    yield store
    wait_for(reactor, store.close())


def rows(path, table, game):
    return peek(path, f"SELECT ply, san FROM {table} WHERE game = ? ORDER BY ply", (game,))


def finish(reactor, store, game_id):
    return wait_for(reactor, store.end_game(game_id, GameEnd("1-0", "bob resigns",
                                                             EndCode.RESIGNATION, 1.0)))


def test_a_turn_of_moves_of_many_games_is_appended_in_the_order_it_was_played(reactor, store,
                                                                             path):
    """What version 3 is for: one turn's moves of 40 games are 40 consecutive rows
    of the log (a page or two), not one row in each game's page."""
    ids = [wait_for(reactor, d) or g for g, d in (store.start_game(start()) for _ in range(40))]
    first = game_moves(["e4"])[0]
    last = None
    for game_id in reversed(ids):
        last = store.add_move(game_id, first)
    wait_for(reactor, last)
    logged = peek(path, "SELECT id, game FROM move_log ORDER BY id")
    assert [game for _, game in logged] == list(reversed(ids))
    assert [i for i, _ in logged] == list(range(logged[0][0], logged[0][0] + 40))
    assert peek(path, "SELECT count(*) FROM game_moves") == [(0,)]
    assert peek(path, "SELECT count(*) FROM moves") == [(40,)]  # the view: every move once


def test_an_ended_game_is_copied_together_and_shown_once(reactor, store, path):
    game_id = play(reactor, store, SANS)
    other = play(reactor, store, ["d4", "d5"])
    assert rows(path, "move_log", game_id) == list(enumerate(SANS, 1))
    finish(reactor, store, game_id)
    assert rows(path, "game_moves", game_id) == list(enumerate(SANS, 1))
    assert rows(path, "moves", game_id) == list(enumerate(SANS, 1))  # not twice
    assert [m.san for m in store.get_game(game_id).moves] == SANS
    # the other game, still in play, is still read from the log
    assert rows(path, "game_moves", other) == []
    assert [m.san for m in store.get_game(other).moves] == ["d4", "d5"]


def test_adjourn_take_back_resume_and_end_keep_exactly_the_acknowledged_moves(reactor, store,
                                                                             path):
    game_id = play(reactor, store, SANS[:6])
    wait_for(reactor, store.take_back(game_id, 5))  # a takeback in the log
    wait_for(reactor, store.adjourn_game(game_id, ADJOURNMENT))
    assert rows(path, "game_moves", game_id) == list(enumerate(SANS[:5], 1))
    assert rows(path, "move_log", game_id) == []  # an adjourned game has no log rows
    wait_for(reactor, store.resume_game(game_id))
    moves = game_moves(SANS[:8])
    for move in moves[5:8]:
        wait_for(reactor, store.add_move(game_id, move))
    assert [m.san for m in store.get_game(game_id).moves] == SANS[:8]
    # back past the adjournment: from game_moves and from the log
    wait_for(reactor, store.take_back(game_id, 3))
    assert [m.san for m in store.get_game(game_id).moves] == SANS[:3]
    for move in game_moves(SANS[:4])[3:]:
        wait_for(reactor, store.add_move(game_id, move))
    finish(reactor, store, game_id)
    assert rows(path, "moves", game_id) == list(enumerate(SANS[:4], 1))
    assert store.get_game(game_id).moves == tuple(game_moves(SANS[:4]))


def test_a_restart_finds_the_moves_of_games_in_play_copied_and_the_log_empty(reactor, path):
    """What a kill -9 leaves is a log with the moves of the games in play: the
    next server's start copies them to their games and empties the log."""
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    in_play = play(reactor, store, SANS[:7])
    ended = play(reactor, store, SANS[:3])
    finish(reactor, store, ended)
    wait_for(reactor, store.close())
    assert len(peek(path, "SELECT id FROM move_log")) == 10  # the ended game's rows too
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    try:
        assert peek(path, "SELECT count(*) FROM move_log") == [(0,)]
        assert rows(path, "game_moves", in_play) == list(enumerate(SANS[:7], 1))
        assert rows(path, "game_moves", ended) == list(enumerate(SANS[:3], 1))
        [game] = store.unfinished_games()
        assert game.id == in_play and [m.san for m in game.moves] == SANS[:7]
        # the game goes on after the restart: its next moves in the log again
        wait_for(reactor, store.add_move(in_play, game_moves(SANS[:8])[7]))
        assert [m.san for m in store.get_game(in_play).moves] == SANS[:8]
        finish(reactor, store, in_play)
        assert rows(path, "moves", in_play) == list(enumerate(SANS[:8], 1))
    finally:
        wait_for(reactor, store.close())


def test_a_tool_opening_beside_the_server_reads_the_log_and_leaves_it(reactor, store, path):
    game_id = play(reactor, store, SANS[:4])
    tool = SQLiteStore.open(path, reactor=reactor, exclusive=False)
    try:
        assert [m.san for m in tool.get_game(game_id).moves] == SANS[:4]
    finally:
        wait_for(reactor, tool.close())
    assert len(rows(path, "move_log", game_id)) == 4


@pytest.mark.slow
def test_the_log_is_cut_from_its_start_and_never_loses_a_game_in_play(reactor, path,
                                                                       monkeypatch):
    """Random games started, moved, taken back, adjourned, resumed, ended and the
    store reopened, against a model of what was acknowledged; the log is cut
    every few rows, so that cuts pass over games in play and ended ones."""
    monkeypatch.setattr(game_writes, "LOG_CUT_ROWS", 6)
    rng = random.Random(20261201)
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    model: dict[int, list[str]] = {}  # game -> acknowledged SANs
    status: dict[int, GameStatus] = {}
    cuts = 0
    try:
        for _ in range(600):
            in_play = [g for g, s in status.items() if s is GameStatus.PLAYING]
            action = rng.choices(["start", "move", "back", "adjourn", "resume", "end", "reopen"],
                                 [10, 45, 8, 8, 8, 16, 2])[0]
            if action == "start" or not in_play and action in ("move", "back", "adjourn", "end"):
                game_id, d = store.start_game(start())
                wait_for(reactor, d)
                model[game_id], status[game_id] = [], GameStatus.PLAYING
            elif action == "move":
                game_id = rng.choice(in_play)
                sans = model[game_id]
                if len(sans) < len(SANS):
                    wait_for(reactor, store.add_move(game_id, game_moves(SANS)[len(sans)]))
                    sans.append(SANS[len(sans)])
            elif action == "back":
                game_id = rng.choice(in_play)
                keep = rng.randrange(len(model[game_id]) + 1)
                wait_for(reactor, store.take_back(game_id, keep))
                del model[game_id][keep:]
            elif action == "adjourn":
                game_id = rng.choice(in_play)
                wait_for(reactor, store.adjourn_game(game_id, ADJOURNMENT))
                status[game_id] = GameStatus.ADJOURNED
            elif action == "resume":
                waiting = [g for g, s in status.items() if s is GameStatus.ADJOURNED]
                if waiting:
                    game_id = rng.choice(waiting)
                    wait_for(reactor, store.resume_game(game_id))
                    status[game_id] = GameStatus.PLAYING
            elif action == "end":
                game_id = rng.choice(in_play)
                before = peek(path, "SELECT min(id) FROM move_log")[0][0]
                finish(reactor, store, game_id)
                status[game_id] = GameStatus.FINISHED
                after = peek(path, "SELECT min(id) FROM move_log")[0][0]
                cuts += before is not None and (after is None or after > before)
            else:
                wait_for(reactor, store.close())
                store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
            for game_id, sans in model.items():
                game = store.get_game(game_id)
                assert game.status is status[game_id]
                assert [m.san for m in game.moves] == sans, (action, game_id)
        assert cuts > 5
        assert peek(path, "PRAGMA integrity_check") == [("ok",)]
    finally:
        wait_for(reactor, store.close())
    conn = sqlite3.connect(path)
    try:  # after it all, the view shows each acknowledged move once
        for game_id, sans in model.items():
            got = conn.execute("SELECT san FROM moves WHERE game = ? ORDER BY ply",
                               (game_id,)).fetchall()
            assert [san for san, in got] == sans
    finally:
        conn.close()


def test_a_ply_both_copied_and_logged_keeps_the_logged_row_at_a_restart(reactor, path):
    """Never written so by the store; a file mended by hand must still start."""
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    game_id = play(reactor, store, SANS[:2])
    wait_for(reactor, store.close())
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO game_moves (game, ply, san, uci, white_ms, black_ms, took_ms) "
                     "VALUES (?, 2, 'c5', 'c7c5', 0, 0, 0)", (game_id,))
    conn.close()
    store = SQLiteStore.open(path, reactor=reactor, synchronous="normal")
    try:
        assert [m.san for m in store.get_game(game_id).moves] == SANS[:2]
    finally:
        wait_for(reactor, store.close())
