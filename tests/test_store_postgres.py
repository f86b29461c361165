"""What is particular to the PostgreSQL store (the contract itself: tests/test_store.py).

URLs and their errors, the dialect layer, the schema's version and a
migration from an older one, a database that is down or another program's,
two stores (two nodes) writing one database at once, and the operator tools
on a database.  Every test runs on a real PostgreSQL server
(``tests/pg_server.py``).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from conftest import missing

try:
    import psycopg
except ImportError:  # skipped here, a failure under CI
    missing("psycopg 3 is not installed (pip install '.[cluster]')")

from ficsfen.server.admin import accounts_main, games_main
from ficsfen.server.config import ConfigError, from_mapping, hash_password
from ficsfen.server.database_url import display_url, is_database_url, url_problem
from ficsfen.server.serve import data_file_option
from ficsfen.server.store import (
    SCHEMA_VERSION,
    AccountExistsError,
    EndCode,
    GameEnd,
    GameStart,
    MoveRecord,
    StoreCorruptError,
    StoreOpenError,
    StoreVersionError,
)
from ficsfen.server.store.pg_connection import PgConnection
from ficsfen.server.store.pg_dialect import translate, translate_ddl
from ficsfen.server.store.pg_schema import VERSION_TABLE, migrate, schema_version
from ficsfen.server.store.postgres import PostgresStore
from ficsfen.server.store.schema import MIGRATIONS
from ficsfen.server.store.testing import private_reactor, wait_for

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HASH = hash_password("secret", iterations=1000)


@pytest.fixture
def reactor():
    return private_reactor()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once closed


def _start(white="alice", black="bob"):
    return GameStart(white, black, 3, 0, 1_700_000_000.0)


def _move(ply):
    return MoveRecord(ply, f"m{ply}", "e2e4", 180_000 - ply, 180_000 - ply, ply)


# -- URLs -----------------------------------------------------------------------------


def test_urls_are_told_from_files_and_their_problems_named():
    assert is_database_url("postgresql://h/db") and is_database_url("mysql://h/db")
    assert not is_database_url("data.sqlite3") and not is_database_url("/var/x:y")
    assert url_problem("postgresql://ficsfen@127.0.0.1:5432/ficsfen") is None
    assert url_problem("postgres://h/db?sslmode=disable") is None
    assert "only postgresql://" in url_problem("mysql://h/db")
    assert "names no database" in url_problem("postgresql://127.0.0.1:5432")
    assert "port" in url_problem("postgresql://h:abc/db").lower()
    assert data_file_option("postgresql://h/db") == "postgresql://h/db"
    assert str(data_file_option("./postgresql")) == "postgresql"


def test_passwords_never_show_in_what_names_the_database():
    assert display_url("postgresql://u:s3cret@h/db") == "postgresql://u:***@h/db"
    assert display_url("postgresql://h/db?password=s3cret&sslmode=require") == \
        "postgresql://h/db?password=***&sslmode=require"
    with pytest.raises(StoreOpenError) as info:
        PostgresStore.open(f"postgresql://u:s3cret@127.0.0.1:{_closed_port()}/db",
                           reactor=private_reactor())
    assert "s3cret" not in info.value.render("en") and "u:***@" in info.value.render("en")


def test_storage_url_in_the_configuration():
    config = from_mapping({"storage": {"url": "postgresql://h/db", "path": "x.sqlite3"}})
    assert config.data_location == "postgresql://h/db"  # the URL wins over the path
    assert config.with_data_file(None).data_location is None
    assert from_mapping({"storage": {"url": ""}}).data_url is None
    with pytest.raises(ConfigError) as info:
        from_mapping({"storage": {"url": "mysql://h/db"}})
    assert "a postgresql:// URL naming a database" in info.value.render("en")
    assert "une URL postgresql:// qui nomme une base de données" in info.value.render("fr")


def test_a_url_naming_no_database_is_refused_before_connecting(reactor):
    with pytest.raises(StoreOpenError) as info:
        PostgresStore.open("postgresql://127.0.0.1:1", reactor=reactor)
    assert "names no database" in info.value.render("en")


# -- the dialect layer --------------------------------------------------------------------


def test_the_row_modules_statements_in_postgresql_dialect():
    assert translate("SELECT a FROM t WHERE k = ? AND s LIKE '%x'") == (
        "SELECT a FROM t WHERE k = $1 AND s LIKE '%x'", False)
    assert translate("INSERT OR IGNORE INTO accounts (key, name) VALUES (?, ?)")[0] == (
        "INSERT INTO accounts (key, name) VALUES ($1, $2) ON CONFLICT DO NOTHING")
    assert translate("INSERT OR REPLACE INTO settings (key, data) VALUES (?, ?)")[0] == (
        "INSERT INTO settings (key, data) VALUES ($1, $2) "
        "ON CONFLICT (key) DO UPDATE SET data = EXCLUDED.data")
    assert translate("INSERT INTO news (posted) VALUES (?)") == (
        "INSERT INTO news (posted) VALUES ($1) RETURNING id", True)
    assert translate("BEGIN IMMEDIATE") == ("BEGIN", False)
    assert translate_ddl("PRAGMA application_id = 1") is None
    assert translate_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, at REAL, n TEXT) "
                         "WITHOUT ROWID") == (
        "CREATE TABLE t (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "
        'at double precision, n text COLLATE "C")')


def test_id_blocks_hand_out_growing_ids_and_fetch_at_once_only_when_a_block_runs_out():
    from twisted.internet.defer import Deferred

    from ficsfen.server.store.pg_ids import IdBlocks

    asked: list[Deferred] = []
    starts = iter([100, 200])
    blocks = IdBlocks(1, 4, fetch_later=lambda: asked.append(Deferred()) or asked[-1],
                      fetch_now=lambda: next(starts))
    assert [blocks.take(), blocks.take()] == [1, 2] and len(asked) == 1  # half used: ask
    assert [blocks.take(), blocks.take()] == [3, 4] and len(asked) == 1  # asked once
    assert blocks.take() == 100 and blocks.waits == 1  # the answer is late: fetched at once
    asked[0].callback(50)  # below the ids handed out: never used
    assert [blocks.take(), blocks.take()] == [101, 102] and len(asked) == 2
    asked[1].callback(300)
    assert [blocks.take(), blocks.take()] == [103, 300] and blocks.waits == 1


# -- opening: down, another program's, versions ------------------------------------------------


def test_serve_on_a_database_that_is_down_exits_1_with_one_line():
    url = f"postgresql://ficsfen:pw@127.0.0.1:{_closed_port()}/ficsfen"
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=REPO, LC_ALL="C")
    done = subprocess.run([sys.executable, "-m", "ficsfen", "serve", "--listen",
                           "tcp:0:interface=127.0.0.1", "--web", "none", "--data", url],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.startswith(f"postgresql://ficsfen:***@127.0.0.1:{url.split(':')[3]}: "
                                  "cannot open the data file: "), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_another_programs_database_is_refused_and_left_alone(reactor, pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id integer)")
    with pytest.raises(StoreCorruptError) as info:
        PostgresStore.open(pg_url, reactor=reactor)
    assert "tables of another program" in info.value.render("en")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('accounts')").fetchone() == (None,)


def test_a_new_database_is_created_at_the_latest_version(reactor, pg_url):
    store = PostgresStore.open(pg_url, reactor=reactor)
    wait_for(reactor, store.close())
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchall() == [
            (SCHEMA_VERSION,)]


def test_a_version_3_database_is_migrated_and_keeps_its_games(reactor, pg_url):
    conn = PgConnection(psycopg.connect(pg_url, autocommit=True))
    try:
        assert migrate(conn, "db", MIGRATIONS[:3]) == (0, 3)
        conn.execute("INSERT INTO accounts (key, name, password, created) VALUES (?, ?, ?, ?)",
                     ("alice", "Alice", HASH, 1.5))
        conn.execute("INSERT INTO games (id, white, black, white_key, black_key, "
                     "initial_seconds, increment_seconds, start_fen, variant, rated, started, "
                     "status) VALUES (7, 'Alice', 'bob', 'alice', 'bob', 3, 0, 'startpos', "
                     "'chess', 0, 1.5, 'adjourned')")
        conn.execute("INSERT INTO game_moves (game, ply, san, uci, white_ms, black_ms, took_ms) "
                     "VALUES (7, 1, 'e4', 'e2e4', 1, 2, 3)")
    finally:
        conn.close()
    store = PostgresStore.open(pg_url, reactor=reactor)
    try:
        account = store.get_account("ALICE")
        assert account.name == "Alice" and not account.admin and not account.muzzled  # v4
        game = store.get_game(7)
        assert [m.san for m in game.moves] == ["e4"] and game.start.white_rating is None  # v5
        assert store.player_ratings("alice") == {}
        game_id, d = store.start_game(_start())
        wait_for(reactor, d)
        assert game_id > 7  # the sequence moved past the ids the database held
    finally:
        wait_for(reactor, store.close())
    with psycopg.connect(pg_url, autocommit=True) as raw:
        assert schema_version(PgConnection(raw)) == SCHEMA_VERSION


def test_a_newer_database_is_refused(reactor, pg_url):
    store = PostgresStore.open(pg_url, reactor=reactor)
    wait_for(reactor, store.close())
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"UPDATE {VERSION_TABLE} SET version = 50")
    with pytest.raises(StoreVersionError) as info:
        PostgresStore.open(pg_url, reactor=reactor)
    assert "written by a newer ficsfen" in info.value.render("en")


def test_a_read_only_tool_on_an_empty_database_says_so(reactor, pg_url):
    with pytest.raises(StoreOpenError) as info:
        PostgresStore.open(pg_url, reactor=reactor, read_only=True)
    assert "no server has started on it yet" in info.value.render("en")


# -- two nodes on one database ---------------------------------------------------------------


def test_two_stores_write_games_at_once_without_clashing(reactor, pg_url):
    """Ids come from sequences in blocks: 100 games each (three blocks and more), their
    moves interleaved turn by turn, and every game reads back whole from the other store."""
    first = PostgresStore.open(pg_url, reactor=reactor)
    second = PostgresStore.open(pg_url, reactor=reactor)
    try:
        started = {first: [], second: []}
        pending = []
        for _ in range(100):
            for store in (first, second):
                game_id, d = store.start_game(_start())
                started[store].append(game_id)
                pending.append(d)
            reactor.runUntilCurrent()
        for ply in (1, 2, 3):
            for store in (first, second):
                pending += [store.add_move(g, _move(ply)) for g in started[store]]
            reactor.runUntilCurrent()
        for d in pending:
            wait_for(reactor, d)
        ids = started[first] + started[second]
        assert len(set(ids)) == 200
        ends = [store.end_game(g, GameEnd("1-0", "r", EndCode.RESIGNATION, 2e9))
                for store in (first, second) for g in started[store][:10]]
        for d in ends:
            wait_for(reactor, d)
        for reader, writer in ((first, second), (second, first)):
            for game_id in started[writer][:12]:
                assert [m.ply for m in reader.get_game(game_id).moves] == [1, 2, 3]
        assert len(first.unfinished_games()) == 180
    finally:
        wait_for(reactor, first.close())
        wait_for(reactor, second.close())


def test_one_handle_added_by_two_stores_at_once_is_one_account(reactor, pg_url):
    first = PostgresStore.open(pg_url, reactor=reactor)
    second = PostgresStore.open(pg_url, reactor=reactor, exclusive=False)
    try:
        a = first.add_account("Alice", HASH)
        b = second.add_account("ALICE", HASH)
        outcomes = []
        for d in (a, b):
            try:
                wait_for(reactor, d)
                outcomes.append("added")
            except AccountExistsError:
                outcomes.append("exists")
        assert sorted(outcomes) == ["added", "exists"]
        assert len(first.accounts()) == 1
    finally:
        wait_for(reactor, first.close())
        wait_for(reactor, second.close())


def test_a_node_starting_copies_the_log_of_games_in_play_and_loses_no_move(reactor, pg_url):
    """A node's start folds the move log (a killed node's games); a node already running
    keeps playing and ending its game with every move kept once."""
    running = PostgresStore.open(pg_url, reactor=reactor)
    try:
        game_id, d = running.start_game(_start())
        for ply in (1, 2):
            d = running.add_move(game_id, _move(ply))
        wait_for(reactor, d)
        starting = PostgresStore.open(pg_url, reactor=reactor)
        try:
            assert [m.ply for m in starting.get_game(game_id).moves] == [1, 2]
            wait_for(reactor, running.add_move(game_id, _move(3)))
            assert [m.ply for m in starting.get_game(game_id).moves] == [1, 2, 3]
            wait_for(reactor, running.take_back(game_id, 1))
            wait_for(reactor, running.add_move(game_id, _move(2)))
            wait_for(reactor, running.end_game(game_id, GameEnd("0-1", "r",
                                                                EndCode.RESIGNATION, 2e9)))
            assert [m.ply for m in starting.get_game(game_id).moves] == [1, 2]
        finally:
            wait_for(reactor, starting.close())
    finally:
        wait_for(reactor, running.close())


def _cut_connections(pg_url):
    """Terminate every other connection to the database (a restart of the database, as the
    store sees it)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        cut = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cut.fetchone()[0]


def test_lost_connections_are_opened_again_and_the_writes_go_on(reactor, pg_url):
    """Transactions and reads run again on a new connection.  A write outside a
    transaction that met the loss is not retried by the connection: the writer runs its
    batch again in a transaction, where the row's own key (a move's log id) would refuse
    it had the lost statement stored it."""
    store = PostgresStore.open(pg_url, reactor=reactor)
    try:
        game_id, d = store.start_game(_start())
        wait_for(reactor, d)
        assert _cut_connections(pg_url) == 2  # the writer's and the reader's
        wait_for(reactor, store.add_account("bob", HASH))  # a transaction: BEGIN again
        assert store.get_account("bob").name == "bob"  # a read: retried
        assert _cut_connections(pg_url) == 2
        wait_for(reactor, store.add_move(game_id, _move(1)))  # one INSERT: run again by the writer
        wait_for(reactor, store.add_move(game_id, _move(2)))
        assert [m.ply for m in store.get_game(game_id).moves] == [1, 2]
        assert store._writer._conn.reconnects == 2 and store._read.connection.reconnects == 2
    finally:
        wait_for(reactor, store.close())


# -- the operator tools --------------------------------------------------------------------


def test_accounts_and_games_export_work_on_a_database(reactor, pg_url):
    out, err = io.StringIO(), io.StringIO()
    assert accounts_main(["add", "alice", "--data", pg_url], lang="en",
                         out=out, err=err, stdin=io.StringIO("secret\n")) == 0, err.getvalue()
    out = io.StringIO()
    assert accounts_main(["list", "--data", pg_url], lang="en", out=out, err=err) == 0
    assert "alice" in out.getvalue()
    store = PostgresStore.open(pg_url, reactor=reactor)
    try:
        game_id, _ = store.start_game(_start("alice", "bob"))
        wait_for(reactor, store.add_move(game_id, MoveRecord(1, "e4", "e2e4", 1, 2, 3)))
        wait_for(reactor, store.end_game(game_id, GameEnd("1-0", "bob resigns",
                                                          EndCode.RESIGNATION, 2e9)))
    finally:
        wait_for(reactor, store.close())
    out = io.StringIO()
    assert games_main(["export", "--data", pg_url], lang="en", out=out, err=err) == 0, \
        err.getvalue()
    assert '[White "alice"]' in out.getvalue()
    assert "1. e4 {[%clk 0:00:00.001]} {bob resigns} 1-0" in out.getvalue()


def test_backup_copies_a_database_into_a_data_file_a_server_can_use(reactor, pg_url, tmp_path):
    """One snapshot of every table, in an SQLite data file at the same schema version: the
    game in play is there with its moves (the log's), the finished one too."""
    from ficsfen.server.backup_cli import backup_main
    from ficsfen.server.store import SQLiteStore

    store = PostgresStore.open(pg_url, reactor=reactor)
    try:
        wait_for(reactor, store.add_account("alice", HASH))
        wait_for(reactor, store.save_settings("alice", {"style": 12}))
        finished, _ = store.start_game(_start())
        wait_for(reactor, store.add_move(finished, _move(1)))
        wait_for(reactor, store.end_game(finished, GameEnd("1-0", "r", EndCode.RESIGNATION, 2e9)))
        playing, _ = store.start_game(_start())
        for ply in (1, 2, 3):
            d = store.add_move(playing, _move(ply))
        wait_for(reactor, d)
        copy = tmp_path / "copy.sqlite3"
        out, err = io.StringIO(), io.StringIO()
        assert backup_main([str(copy), "--data", pg_url], lang="en", out=out, err=err) == 0, \
            err.getvalue()
        assert "1 account, 2 games: 1 in play" in out.getvalue()
        assert backup_main([str(copy), "--data", pg_url], lang="en", out=out, err=err) == 1
        assert "exists already; give --force" in err.getvalue()
    finally:
        wait_for(reactor, store.close())
    local = SQLiteStore.open(copy, reactor=reactor)  # a server's start folds the log
    try:
        assert local.load_settings("ALICE") == {"style": 12}
        assert [m.ply for m in local.get_game(playing).moves] == [1, 2, 3]
        assert [m.ply for m in local.get_game(finished).moves] == [1]
        assert [g.id for g in local.unfinished_games()] == [playing]
    finally:
        wait_for(reactor, local.close())
