"""The store's API on both stores: accounts, settings, games, history, the writer thread.

The contract tests run twice, on a :class:`SQLiteStore` file in ``tmp_path``
and on a :class:`PostgresStore` in a new database of the test PostgreSQL
server (``tests/pg_server.py``), each under a private reactor
(``ficsfen.server.store.testing``); checks that something is *committed*
read it through a second, plain connection (:func:`peek`).  The tests of
how SQLite's writer shapes its statements use the SQLite store alone.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ficsfen.fen import STARTING_FEN
from ficsfen.server.config import hash_password, verify_password
from ficsfen.server.store import (
    HISTORY_SIZE,
    AccountExistsError,
    Adjournment,
    EndCode,
    GameEnd,
    GameStart,
    GameStatus,
    IStore,
    MoveRecord,
    NoSuchAccountError,
    NoSuchGameError,
    SQLiteStore,
    StoreClosedError,
    StoreError,
    StoreWriteError,
)
from ficsfen.server.store.pg_dialect import translate
from ficsfen.server.store.postgres import PostgresStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.store.writer import rows_insert
from ficsfen.tracker import Tracker
from ficsfen.variants import variant_named

HASH = hash_password("secret", iterations=1000)


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture(params=["sqlite", "postgresql"])
def path(request, tmp_path):
    """Where the store keeps its data: an SQLite file, or a PostgreSQL database's URL."""
    if request.param == "sqlite":
        return tmp_path / "data" / "ficsfen.sqlite3"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def sqlite_path(tmp_path):
    return tmp_path / "data" / "ficsfen.sqlite3"


def open_store(path, reactor, **kw):
    """The store on ``path``: an SQLite file, or a PostgreSQL URL (a ``str``)."""
    if isinstance(path, str):
        return PostgresStore.open(path, reactor=reactor, **kw)
    return SQLiteStore.open(path, reactor=reactor, **kw)


@pytest.fixture
def store(reactor, path):
    store = open_store(path, reactor)
    yield store
    wait_for(reactor, store.close())


@pytest.fixture
def sqlite_store(reactor, sqlite_path):
    store = SQLiteStore.open(sqlite_path, reactor=reactor)
    yield store
    wait_for(reactor, store.close())


def peek(path, sql, params=()):
    """Rows of ``sql`` read by another connection: what is committed in the file or database."""
    if isinstance(path, str):
        import psycopg

        with psycopg.connect(path, autocommit=True, cursor_factory=psycopg.RawCursor) as conn:
            return [tuple(row) for row in conn.execute(translate(sql)[0], params).fetchall()]
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def game_moves(sans, *, fen=STARTING_FEN, start_ms=120_000):
    """MoveRecords of a real game: python-chess plays ``sans``; clocks go down by 1 s per ply."""
    board = chess.Board(fen)
    out = []
    for ply, san in enumerate(sans, 1):
        move = board.parse_san(san)
        uci = move.uci()
        board.push(move)
        out.append(MoveRecord(ply, san, uci, start_ms - 1000 * ((ply + 1) // 2),
                              start_ms - 1000 * (ply // 2), 1000))
    return out


def start(white="alice", black="bob", **kw):
    return GameStart(white, black, kw.pop("initial", 120), kw.pop("increment", 12),
                     kw.pop("started", 1_700_000_000.0), **kw)


def play(reactor, store, sans, **kw):
    """A started game with ``sans`` played; returns its id once everything is committed."""
    game_id, d = store.start_game(start(**kw))
    last = d
    for move in game_moves(sans):
        last = store.add_move(game_id, move)
    wait_for(reactor, last)
    return game_id


def end(reactor, store, game_id, result="1-0", code=EndCode.RESIGNATION, reason="bob resigns",
        ended=1_700_000_100.0):
    return wait_for(reactor, store.end_game(game_id, GameEnd(result, reason, code, ended)))


def register(reactor, store, *names):
    for name in names:
        wait_for(reactor, store.add_account(name, HASH))


def test_the_store_provides_its_interface(store):
    assert IStore.providedBy(store)
    from zope.interface.verify import verifyObject

    assert verifyObject(IStore, store)


# -- accounts -----------------------------------------------------------------------


def test_accounts_add_get_list_password_remove(reactor, store, path):
    wait_for(reactor, store.add_account("Alice", HASH, created=1_600_000_000.0))
    assert peek(path, "SELECT key, name, password FROM accounts") == [("alice", "Alice", HASH)]
    account = store.get_account("ALICE")
    assert (account.name, account.created) == ("Alice", 1_600_000_000.0)
    assert verify_password("secret", account.password_hash)
    wait_for(reactor, store.add_account("bob", HASH))
    assert [a.name for a in store.accounts()] == ["Alice", "bob"]

    other = hash_password("other", iterations=1000)
    wait_for(reactor, store.set_password("alice", other))
    assert verify_password("other", store.get_account("Alice").password_hash)

    wait_for(reactor, store.remove_account("aLiCe"))
    assert store.get_account("alice") is None
    assert peek(path, "SELECT name FROM accounts") == [("bob",)]


def test_account_refusals_are_store_errors_in_both_languages(reactor, store):
    register(reactor, store, "Alice")
    with pytest.raises(AccountExistsError) as info:
        wait_for(reactor, store.add_account("alice", HASH))
    assert "already an account named alice" in info.value.render("en")
    assert "Il existe déjà un compte nommé alice" in info.value.render("fr")
    for write in (store.remove_account("carol"), store.set_password("carol", HASH)):
        with pytest.raises(NoSuchAccountError) as info:
            wait_for(reactor, write)
        assert isinstance(info.value, StoreError)
        assert "no account named carol" in info.value.render("en")
        assert "pas de compte nommé carol" in info.value.render("fr")


def test_import_adds_missing_accounts_and_never_overwrites(reactor, store):
    register(reactor, store, "alice")
    changed = store.get_account("alice").password_hash
    toml = {"alice": hash_password("toml", iterations=1000), "bob": HASH}
    assert wait_for(reactor, store.import_accounts(toml)) == ["bob"]
    assert store.get_account("alice").password_hash == changed  # the store's password wins
    assert store.get_account("bob").password_hash == HASH
    assert wait_for(reactor, store.import_accounts(toml)) == []  # the next start adds nothing


# -- settings ------------------------------------------------------------------------


def test_settings_saved_and_loaded_per_registered_player(reactor, store, path):
    register(reactor, store, "alice")
    assert store.load_settings("alice") == {}
    mine = {"language": "fr", "style": 12, "showfen": True, "charset": "latin1", "width": 79,
            "open": False}
    wait_for(reactor, store.save_settings("Alice", mine))
    assert store.load_settings("ALICE") == mine
    wait_for(reactor, store.save_settings("alice", {"style": 1}))
    assert store.load_settings("alice") == {"style": 1}  # replaced, not merged
    wait_for(reactor, store.remove_account("alice"))
    assert peek(path, "SELECT count(*) FROM settings") == [(0,)]  # gone with the account


def test_settings_of_a_guest_and_unstorable_values_are_refused(reactor, store):
    with pytest.raises(NoSuchAccountError):
        wait_for(reactor, store.save_settings("GuestABCD", {"style": 12}))
    with pytest.raises(TypeError):
        store.save_settings("alice", {"when": object()})
    with pytest.raises(TypeError):
        store.save_settings("alice", {1: "one"})


json_values = st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text() | st.floats(
    allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text(), json_values, max_size=8))
def test_any_json_settings_round_trip(reactor, store, settings_):
    if store.get_account("alice") is None:
        register(reactor, store, "alice")
    wait_for(reactor, store.save_settings("alice", settings_))
    assert store.load_settings("alice") == settings_


# -- games ---------------------------------------------------------------------------


def test_a_game_start_moves_and_end_are_stored_with_clocks(reactor, store, path):
    sans = ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    game_id = play(reactor, store, sans, rated=True)
    game = store.get_game(game_id)
    assert game.status is GameStatus.PLAYING
    assert game.start == start(rated=True)
    assert [m.san for m in game.moves] == sans
    assert game.moves[0].uci == "e2e4"
    assert game.fen == chess.Board("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3").fen()
    assert game.clocks_ms == (117_000, 118_000) and game.ply == 5
    assert peek(path, "SELECT count(*) FROM moves WHERE game = ?", (game_id,)) == [(5,)]
    end(reactor, store, game_id)
    game = store.get_game(game_id)
    assert game.status is GameStatus.FINISHED
    assert game.end == GameEnd("1-0", "bob resigns", EndCode.RESIGNATION, 1_700_000_100.0)
    assert store.unfinished_games() == []


@pytest.mark.parametrize("variant, fen, sans", [
    ("crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
     ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d5", "c5"]),
    ("chess960", "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
     ["g4", "g5", "Ng3", "Ng6", "O-O", "d5"]),
])
def test_a_stored_variant_game_replays_to_the_fens_its_tracker_showed(reactor, store, variant,
                                                                     fen, sans):
    """The store keeps moves, not positions: reading a game back replays them, holdings,
    castling letters and the e.p. square after each double step included."""
    tracker = Tracker(fen, variant=variant_named(variant))
    game_id, last = store.start_game(start(fen=fen, variant=variant))
    shown = [fen]
    for number, san in enumerate(sans, 1):
        ply = tracker.push(san)
        shown.append(ply.fen)
        last = store.add_move(game_id, MoveRecord(number, ply.san, ply.uci, 1, 1, 1))
    wait_for(reactor, last)
    game = store.get_game(game_id)
    assert game.fen == shown[-1] and game.fen.endswith("c6 0 5" if variant == "crazyhouse"
                                                       else "d6 0 4")
    assert [p.fen for p in game.replay().history] == shown[1:]


def test_bsetup_games_keep_their_start_position(reactor, store):
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    game_id, d = store.start_game(start(fen=fen))
    wait_for(reactor, d)
    game = store.get_game(game_id)
    assert game.fen == fen and game.start.fen == fen and game.ply == 0
    assert game.clocks_ms == (120_000, 120_000)  # no move yet: the initial time


def test_game_ids_are_allocated_at_once_and_continue_after_reopening(reactor, path):
    """SQLite's ids follow the file's highest; PostgreSQL's come in blocks from a
    sequence shared by the nodes (a block left unused at a stop is a gap)."""
    store = open_store(path, reactor)
    first, d1 = store.start_game(start())
    second, d2 = store.start_game(start())
    assert second == first + 1
    wait_for(reactor, d2)
    wait_for(reactor, store.close())
    store = open_store(path, reactor)
    try:
        third, d3 = store.start_game(start())
        assert third == second + 1 if isinstance(path, Path) else third > second
        wait_for(reactor, d3)
    finally:
        wait_for(reactor, store.close())


def test_take_back_forgets_the_last_moves(reactor, store):
    game_id = play(reactor, store, ["d4", "d5", "c4", "e6"])
    wait_for(reactor, store.take_back(game_id, 2))
    assert [m.san for m in store.get_game(game_id).moves] == ["d4", "d5"]
    replay = game_moves(["d4", "d5", "Nf3"])[2]
    wait_for(reactor, store.add_move(game_id, replay))
    assert store.get_game(game_id).moves[-1] == replay


def test_a_move_for_an_unknown_game_or_a_stored_ply_fails_alone(reactor, store):
    game_id = play(reactor, store, ["e4"])
    with pytest.raises(StoreWriteError) as info:
        wait_for(reactor, store.add_move(game_id + 100, game_moves(["e4"])[0]))
    assert "FOREIGN KEY" in info.value.render("en").upper()
    assert "une écriture dans le fichier de données a échoué" in info.value.render("fr")
    with pytest.raises(StoreWriteError):
        wait_for(reactor, store.add_move(game_id, game_moves(["e4"])[0]))
    wait_for(reactor, store.add_move(game_id, game_moves(["e4", "c5"])[1]))  # still writing
    assert store.get_game(game_id).ply == 2


def test_adjourn_resume_and_unfinished_games_for_a_restart(reactor, store):
    crashed = play(reactor, store, ["e4", "c5", "Nf3"], white="carol", black="dave")
    adjourned = play(reactor, store, ["d4", "Nf6"])
    finished = play(reactor, store, ["f4"])
    end(reactor, store, finished)
    a = Adjournment("bob lost connection; game adjourned", 1_700_000_050.0, 110_500, 115_250, 2)
    wait_for(reactor, store.adjourn_game(adjourned, a))

    games = store.unfinished_games()
    assert [(g.id, g.status) for g in games] == [(crashed, GameStatus.PLAYING),
                                                (adjourned, GameStatus.ADJOURNED)]
    assert games[0].clocks_ms == (118_000, 119_000)  # as at its last move
    assert games[1].clocks_ms == (110_500, 115_250)  # as when adjourned
    assert games[1].adjournment == a
    assert [g.id for g in store.unfinished_games("BOB")] == [adjourned]
    assert [m.san for m in store.unfinished_games("dave")[0].moves] == ["e4", "c5", "Nf3"]

    wait_for(reactor, store.resume_game(adjourned))
    assert store.get_game(adjourned).status is GameStatus.PLAYING
    assert store.get_game(adjourned).clocks_ms == (110_500, 115_250)  # no move since
    wait_for(reactor, store.add_move(adjourned, game_moves(["d4", "Nf6", "c4"])[2]))
    assert store.get_game(adjourned).clocks_ms == (118_000, 119_000)  # the new move's


def test_game_changes_in_the_wrong_state_are_refused(reactor, store):
    game_id = play(reactor, store, ["e4"])
    with pytest.raises(NoSuchGameError):
        wait_for(reactor, store.resume_game(game_id))  # not adjourned
    end(reactor, store, game_id)
    a = Adjournment("x", 0.0, 1, 1, 1)
    for write in (store.adjourn_game(game_id, a), store.resume_game(game_id),
                  store.end_game(game_id, GameEnd("0-1", "x", EndCode.FLAG, 0.0))):
        with pytest.raises(NoSuchGameError) as info:
            wait_for(reactor, write)
        assert f"no stored game {game_id}" in info.value.render("en")
        assert f"Aucune partie enregistrée {game_id}" in info.value.render("fr")
    with pytest.raises(ValueError):
        GameEnd("2-0", "x", EndCode.MATE, 0.0)
    with pytest.raises(ValueError):
        GameEnd("1-0", "x", "Xyz", 0.0)


# -- history --------------------------------------------------------------------------


def test_history_lists_the_last_ten_numbered_as_fics_does(reactor, store):
    register(reactor, store, "alice", "bob")
    ids = []
    for i in range(103):
        white, black = ("alice", "bob") if i % 2 == 0 else ("bob", "alice")
        game_id, d = store.start_game(start(white=white, black=black))
        ids.append(game_id)
        ended = store.end_game(game_id, GameEnd("1-0", f"{black} resigns", EndCode.RESIGNATION,
                                                1_700_000_000.0 + i))
    assert wait_for(reactor, ended) == (2, 2)  # the 103rd game of each: number 102 % 100
    entries = store.history("Alice")
    assert len(entries) == HISTORY_SIZE
    # games 94..103 of alice: numbers cycle through 0-99
    assert [e.number for e in entries] == [93, 94, 95, 96, 97, 98, 99, 0, 1, 2]
    assert [e.game.id for e in entries] == ids[-10:]
    last = entries[-1]
    assert (last.handle, last.white, last.opponent, last.outcome) == ("alice", True, "bob", "+")
    assert (entries[-2].white, entries[-2].outcome) == (False, "-")
    assert [e.number for e in store.history("bob", limit=3)] == [0, 1, 2]
    game = store.history_game("alice", 99)
    assert game.id == ids[-4]
    assert store.history_game("alice", 50) is None  # no longer among the last ten


def test_history_numbers_come_back_from_end_game_and_skip_guests_and_aborts(reactor, store):
    register(reactor, store, "alice")
    won = play(reactor, store, ["e4"], white="alice", black="GuestXYZW")
    assert end(reactor, store, won) == (0, None)
    drawn = play(reactor, store, ["e4"], white="GuestXYZW", black="Alice")
    assert end(reactor, store, drawn, "1/2-1/2", EndCode.AGREED, "drawn by agreement") == (None, 1)
    aborted = play(reactor, store, ["e4"])
    assert end(reactor, store, aborted, "*", EndCode.ABORTED, "Game aborted") == (None, None)
    entries = store.history("alice")
    assert [(e.number, e.outcome, e.opponent) for e in entries] == [(0, "+", "GuestXYZW"),
                                                                   (1, "=", "GuestXYZW")]
    assert entries[1].handle == "Alice"
    assert store.history("GuestXYZW") == []


def test_finished_games_for_export_in_the_order_they_ended(reactor, store):
    first = play(reactor, store, ["e4", "e5"], white="alice", black="bob")
    second = play(reactor, store, ["d4"], white="carol", black="alice")
    third = play(reactor, store, ["c4"], white="carol", black="dave")
    aborted = play(reactor, store, ["g3"], white="alice", black="dave")
    play(reactor, store, ["b3"], white="alice", black="bob")  # still going
    end(reactor, store, second, ended=10.0)
    end(reactor, store, first, ended=20.0)
    end(reactor, store, third, ended=30.0)
    end(reactor, store, aborted, "*", EndCode.ABORTED, "Game aborted", ended=40.0)
    assert [g.id for g in store.finished_games()] == [second, first, third]
    exported = list(store.finished_games("ALICE"))
    assert [g.id for g in exported] == [second, first]
    assert [m.san for m in exported[1].moves] == ["e4", "e5"]


# -- the writer thread ------------------------------------------------------------------


def test_writes_of_one_reactor_turn_share_one_commit(reactor, store):
    game_id, d = store.start_game(start())
    wait_for(reactor, d)
    before = store.commits
    moves = game_moves(["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"])
    ds = [store.add_move(game_id, m) for m in moves]
    register_d = store.add_account("alice", HASH)
    for d in ds:
        wait_for(reactor, d)
    wait_for(reactor, register_d)
    assert store.commits == before + 1


def test_the_moves_of_one_commit_are_one_insert_statement(reactor, sqlite_store, sqlite_path):
    """Moves sharing a commit go into the file through one multi-row INSERT: one
    hand-over of the GIL between the writer thread and the reactor, not one per move."""
    game_id, d = sqlite_store.start_game(start())
    wait_for(reactor, d)
    statements = []
    sqlite_store._writer._conn.set_trace_callback(statements.append)
    moves = game_moves(["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"])
    ds = [sqlite_store.add_move(game_id, m) for m in moves]
    for d in ds:
        wait_for(reactor, d)
    sqlite_store._writer._conn.set_trace_callback(None)
    inserts = [s for s in statements if s.startswith("INSERT INTO move_log")]
    assert len(inserts) == 1
    rows = peek(sqlite_path, "SELECT ply, san, uci, white_ms, black_ms, took_ms FROM moves "
                      "WHERE game = ? ORDER BY ply", (game_id,))
    assert rows == [(m.ply, m.san, m.uci, m.white_ms, m.black_ms, m.took_ms) for m in moves]


def test_a_turn_of_moves_alone_is_one_statement_and_no_transaction_around_it(reactor, sqlite_store, sqlite_path):
    """Moves and nothing else: one multi-row INSERT in autocommit mode (SQLite makes
    it its own transaction), no BEGIN, savepoint or COMMIT, each of which would be
    one more hand-over of the GIL."""
    game_id, d = sqlite_store.start_game(start())
    wait_for(reactor, d)
    statements = []
    sqlite_store._writer._conn.set_trace_callback(statements.append)
    moves = game_moves(["e4", "e5", "Nf3", "Nc6"])
    ds = [sqlite_store.add_move(game_id, m) for m in moves]
    for d in ds:
        wait_for(reactor, d)
    sqlite_store._writer._conn.set_trace_callback(None)
    assert [s.split(" (")[0] for s in statements] == ["INSERT INTO move_log"]
    assert peek(sqlite_path, "SELECT count(*) FROM moves WHERE game = ?", (game_id,)) == [(4,)]


def test_a_failing_move_in_a_turn_of_moves_fails_alone(reactor, store, path):
    """The one-statement path leaves nothing of a failed INSERT; the batch runs again
    write by write, and only the bad move fails."""
    game_id, d = store.start_game(start())
    wait_for(reactor, d)
    first, second = game_moves(["e4", "e5"])
    good = store.add_move(game_id, first)
    unknown = store.add_move(game_id + 50, first)  # no such game: a foreign key
    also_good = store.add_move(game_id, second)
    wait_for(reactor, also_good)
    wait_for(reactor, good)
    with pytest.raises(StoreWriteError):
        wait_for(reactor, unknown)
    assert peek(path, "SELECT game, ply FROM moves") == [(game_id, 1), (game_id, 2)]


def test_one_row_inserts_are_widened_and_other_statements_are_not():
    sql = "INSERT INTO t (a, b) VALUES (?, ?)"
    assert rows_insert(sql, 3) == "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)"
    assert rows_insert("insert into t values(?)", 2) == "insert into t values(?), (?)"
    for other in ("DELETE FROM moves WHERE game = ? AND ply > ?",
                  "INSERT INTO t (a) VALUES (?) ON CONFLICT DO NOTHING",
                  "INSERT INTO t (a, b) VALUES (?, 'playing')",
                  "INSERT INTO t (a) VALUES (?) RETURNING a"):
        assert rows_insert(other, 2) is None


def test_a_deferred_fires_only_once_its_write_is_in_the_file(reactor, store, path):
    game_id, d = store.start_game(start())
    seen = []
    for move in game_moves(["e4", "e5", "Nf3"]):
        store.add_move(game_id, move).addCallback(
            lambda _, ply=move.ply: seen.append(
                (ply, peek(path, "SELECT count(*) FROM moves WHERE game = ? AND ply = ?",
                           (game_id, ply))[0][0])))
    wait_for(reactor, store.add_account("zed", HASH))
    assert seen == [(1, 1), (2, 1), (3, 1)]


def test_a_failed_write_fails_alone_and_the_writer_goes_on(reactor, store, path):
    register(reactor, store, "alice")
    game_id, _ = store.start_game(start())
    before = store.commits
    good = store.add_move(game_id, game_moves(["e4"])[0])
    bad = store.add_account("ALICE", HASH)  # exists
    unknown = store.add_move(game_id + 50, game_moves(["e4"])[0])
    also_good = store.add_move(game_id, game_moves(["e4", "e5"])[1])
    wait_for(reactor, also_good)
    wait_for(reactor, good)
    with pytest.raises(AccountExistsError):
        wait_for(reactor, bad)
    with pytest.raises(StoreWriteError):
        wait_for(reactor, unknown)
    assert store.commits == before + 1  # the good ones still shared one commit
    assert peek(path, "SELECT ply FROM moves WHERE game = ?", (game_id,)) == [(1,), (2,)]


def test_close_commits_what_is_queued_then_refuses(reactor, path):
    store = open_store(path, reactor)
    game_id, _ = store.start_game(start())
    fired = []
    for move in game_moves(["e4", "e5"]):
        store.add_move(game_id, move).addCallback(fired.append)
    wait_for(reactor, store.close())
    assert fired == [None, None]  # before close's own Deferred
    assert peek(path, "SELECT count(*) FROM moves") == [(2,)]
    with pytest.raises(StoreClosedError) as info:
        wait_for(reactor, store.add_account("late", HASH))
    assert "is closed" in info.value.render("en") and "est fermé" in info.value.render("fr")
    with pytest.raises(StoreClosedError):
        store.get_account("alice")
    wait_for(reactor, store.close())  # closing twice is harmless
    if isinstance(path, Path):
        assert not (path.parent / (path.name + "-wal")).exists()  # checkpointed on close


def test_tools_open_beside_a_server_for_accounts_but_not_games(reactor, store, path):
    tool = open_store(path, reactor, exclusive=False)
    try:
        wait_for(reactor, tool.add_account("alice", HASH))
        assert store.get_account("alice") is not None  # the server's reads see it at once
        with pytest.raises(RuntimeError):
            tool.start_game(start())
    finally:
        wait_for(reactor, tool.close())


def test_start_time_defaults_are_unix_times(reactor, store):
    before = time.time()
    wait_for(reactor, store.add_account("alice", HASH))
    assert before <= store.get_account("alice").created <= time.time()


def test_writes_asked_for_during_a_commit_go_into_the_next_one_together(reactor, store, path):
    """Group commit: the writer is held inside a transaction while three more turns queue
    writes; once it is let go, those writes share one commit."""
    import threading

    inside, release = threading.Event(), threading.Event()

    def slow(conn):
        inside.set()
        release.wait(60)

    game_id, _ = store.start_game(start())
    before = store.commits
    held = store._writer.submit(run=slow)  # a write that takes long to run
    reactor.runUntilCurrent()  # end of this turn: handed to the writer
    assert inside.wait(60)
    queued = []
    for move in game_moves(["e4", "e5", "Nf3"]):  # three turns while the commit runs
        queued.append(store.add_move(game_id, move))
        reactor.runUntilCurrent()
    release.set()
    for d in [held, *queued]:
        wait_for(reactor, d)
    assert store.commits == before + 2
    assert peek(path, "SELECT count(*) FROM moves") == [(3,)]


def test_a_failed_write_is_logged(reactor, store):
    from twisted.logger import globalLogPublisher

    events = []
    globalLogPublisher.addObserver(events.append)
    try:
        with pytest.raises(StoreWriteError):
            wait_for(reactor, store.add_move(999, game_moves(["e4"])[0]))
    finally:
        globalLogPublisher.removeObserver(events.append)
    [event] = [e for e in events if e.get("log_namespace") == "ficsfen.server.store"]
    assert event["log_failure"].check(StoreWriteError)
