"""The data file itself: durability across kill -9, the lock, migrations, bad files.

Children are real Python processes writing through the store; files are
real SQLite files in ``tmp_path``, damaged or made read-only by the test.
"""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, missing
from ficsfen.server.store import (
    SCHEMA_VERSION,
    GameStart,
    MoveRecord,
    SQLiteStore,
    StoreCorruptError,
    StoreLockedError,
    StoreOpenError,
    StoreReadOnlyError,
    StoreVersionError,
    lock_path,
)
from ficsfen.server.store.schema import APPLICATION_ID, MIGRATIONS, Migration, migrate, user_version
from ficsfen.server.store.testing import private_reactor, wait_for

TIMEOUT = 60


@pytest.fixture
def reactor():
    return private_reactor()


def child(code: str, *args: str) -> subprocess.Popen:
    """A Python child running ``code`` with this checkout on its path; stdout piped."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def columns(path, table):
    conn = sqlite3.connect(path)
    try:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


# -- durability -------------------------------------------------------------------------

KILLED_AFTER_ACK = """
    import os, signal, sys, time
    from ficsfen.server.store import GameStart, MoveRecord, SQLiteStore
    from ficsfen.server.store.testing import private_reactor, wait_for

    path, acked = sys.argv[1], int(sys.argv[2])
    reactor = private_reactor()
    store = SQLiteStore.open(path, reactor=reactor)
    game, _ = store.start_game(GameStart("alice", "bob", 60, 0, time.time()))

    def told(_, ply):
        # what the server would now announce; then the process dies at once
        print(f"acknowledged {ply}", flush=True)
        if ply == acked:
            os.kill(os.getpid(), signal.SIGKILL)

    for ply in range(1, 1000):
        d = store.add_move(game, MoveRecord(ply, "Nf3", "g1f3", 60000 - ply, 60000, 10))
        d.addCallback(told, ply)
        if ply % 7 == 0:  # several turns, several commits
            wait_for(reactor, d)
    wait_for(reactor, d)
"""


@pytest.mark.slow
def test_an_acknowledged_move_survives_kill_9(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    process = child(KILLED_AFTER_ACK, str(path), "40")
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == -signal.SIGKILL, err
    told = [int(line.split()[1]) for line in out.splitlines()]
    assert told[-1] == 40
    # the lock died with the process: a new server opens the file
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        [game] = store.unfinished_games()
        assert [m.ply for m in game.moves][:40] == list(range(1, 41))
        assert game.moves[39] == MoveRecord(40, "Nf3", "g1f3", 60000 - 40, 60000, 10)
    finally:
        wait_for(reactor, store.close())


# -- one server per file -------------------------------------------------------------------

HOLDER = """
    import sys
    from ficsfen.server.store import SQLiteStore
    from ficsfen.server.store.testing import private_reactor

    store = SQLiteStore.open(sys.argv[1], reactor=private_reactor())
    print("open", flush=True)
    sys.stdin.readline()
"""


@pytest.mark.slow
def test_a_second_server_on_the_same_file_is_refused_with_the_holder(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    holder = child(HOLDER, str(path))
    try:
        assert holder.stdout.readline() == "open\n", holder.stderr.read()
        with pytest.raises(StoreLockedError) as info:
            SQLiteStore.open(path, reactor=reactor)
        assert info.value.pid == holder.pid
        english, french = info.value.render("en"), info.value.render("fr")
        assert str(path) in english and f"in use by another running server (process {holder.pid})" in english
        assert str(path) in french and f"utilisé par un autre serveur en marche (processus {holder.pid})" in french
        # an operator tool may still open it beside the server
        tool = SQLiteStore.open(path, reactor=reactor, exclusive=False)
        wait_for(reactor, tool.close())
    finally:
        holder.communicate("\n", timeout=TIMEOUT)
    assert holder.returncode == 0
    store = SQLiteStore.open(path, reactor=reactor)  # free again
    assert lock_path(path).read_text().strip() == str(os.getpid())
    wait_for(reactor, store.close())


def test_the_lock_refuses_a_second_open_in_the_same_process_too(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        with pytest.raises(StoreLockedError):
            SQLiteStore.open(path, reactor=reactor)
    finally:
        wait_for(reactor, store.close())
    wait_for(reactor, SQLiteStore.open(path, reactor=reactor).close())


# -- schema versions -------------------------------------------------------------------------

# Version 1 as it shipped, written out by hand: a file in the field looks like this.
VERSION_1 = """
    PRAGMA application_id = 1179206483;
    CREATE TABLE accounts (key TEXT PRIMARY KEY, name TEXT NOT NULL, password TEXT NOT NULL,
                           created REAL NOT NULL) WITHOUT ROWID;
    CREATE TABLE settings (key TEXT PRIMARY KEY REFERENCES accounts (key) ON DELETE CASCADE,
                           data TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE games (id INTEGER PRIMARY KEY, white TEXT NOT NULL, black TEXT NOT NULL,
        white_key TEXT NOT NULL, black_key TEXT NOT NULL, initial_seconds INTEGER NOT NULL,
        increment_seconds INTEGER NOT NULL, start_fen TEXT NOT NULL, variant TEXT NOT NULL,
        rated INTEGER NOT NULL, started REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'adjourned', 'finished')),
        adjourn_reason TEXT, adjourned REAL, adjourn_white_ms INTEGER, adjourn_black_ms INTEGER,
        adjourn_ply INTEGER, result TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2', '*')),
        end_reason TEXT, end_code TEXT, ended REAL);
    CREATE INDEX games_unfinished ON games (status) WHERE status != 'finished';
    CREATE INDEX games_white ON games (white_key);
    CREATE INDEX games_black ON games (black_key);
    CREATE TABLE moves (game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply > 0), san TEXT NOT NULL, uci TEXT NOT NULL,
        fen TEXT NOT NULL, white_ms INTEGER NOT NULL, black_ms INTEGER NOT NULL,
        took_ms INTEGER NOT NULL, PRIMARY KEY (game, ply)) WITHOUT ROWID;
    CREATE TABLE history (player TEXT NOT NULL, seq INTEGER NOT NULL,
        game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        PRIMARY KEY (player, seq)) WITHOUT ROWID;
    INSERT INTO accounts VALUES ('alice', 'Alice', 'pbkdf2_sha256$1000$00$00', 1600000000.0);
    INSERT INTO settings VALUES ('alice', '{"language": "fr", "style": 12}');
    INSERT INTO games (id, white, black, white_key, black_key, initial_seconds,
        increment_seconds, start_fen, variant, rated, started, status)
        VALUES (7, 'Alice', 'bob', 'alice', 'bob', 300, 5,
                'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'chess', 0,
                1700000000.0, 'playing');
    INSERT INTO moves VALUES (7, 1, 'e4', 'e2e4',
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', 299000, 300000, 1000);
    PRAGMA user_version = 1;
"""


# Version 2 as it shipped (``moves`` without its FEN), with a game in play and an
# ended one.
VERSION_2 = (VERSION_1.split("    CREATE TABLE moves")[0] + """
    CREATE TABLE moves (game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply > 0), san TEXT NOT NULL, uci TEXT NOT NULL,
        white_ms INTEGER NOT NULL, black_ms INTEGER NOT NULL, took_ms INTEGER NOT NULL,
        PRIMARY KEY (game, ply)) WITHOUT ROWID;
    CREATE TABLE history (player TEXT NOT NULL, seq INTEGER NOT NULL,
        game INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        PRIMARY KEY (player, seq)) WITHOUT ROWID;
    INSERT INTO accounts VALUES ('alice', 'Alice', 'pbkdf2_sha256$1000$00$00', 1600000000.0);
    INSERT INTO games (id, white, black, white_key, black_key, initial_seconds,
        increment_seconds, start_fen, variant, rated, started, status)
        VALUES (7, 'Alice', 'bob', 'alice', 'bob', 300, 5,
                'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'chess', 0,
                1700000000.0, 'playing');
    INSERT INTO games (id, white, black, white_key, black_key, initial_seconds,
        increment_seconds, start_fen, variant, rated, started, status, result, end_reason,
        end_code, ended)
        VALUES (8, 'bob', 'Alice', 'bob', 'alice', 300, 5,
                'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'chess', 0,
                1700000000.0, 'finished', '0-1', 'bob resigns', 'Res', 1700000100.0);
    INSERT INTO history VALUES ('alice', 1, 8);
    INSERT INTO moves VALUES (7, 1, 'e4', 'e2e4', 299000, 300000, 1000);
    INSERT INTO moves VALUES (7, 2, 'c5', 'c7c5', 299000, 299000, 1000);
    INSERT INTO moves VALUES (8, 1, 'd4', 'd2d4', 299000, 300000, 1000);
    PRAGMA user_version = 2;
""")


def hand_made(path, script=VERSION_1):
    conn = sqlite3.connect(path)
    try:
        conn.executescript(script)
    finally:
        conn.close()


def test_an_empty_file_is_migrated_to_the_current_version(reactor, tmp_path):
    path = tmp_path / "empty.sqlite3"
    path.touch()  # version 0: a zero-byte file is an empty SQLite database
    store = SQLiteStore.open(path, reactor=reactor)
    wait_for(reactor, store.close())
    conn = sqlite3.connect(path)
    try:
        assert user_version(conn) == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert columns(path, "moves") == ["game", "ply", "san", "uci", "white_ms", "black_ms",
                                      "took_ms"]


def test_a_version_1_file_opens_with_its_data(reactor, tmp_path):
    path = tmp_path / "v1.sqlite3"
    hand_made(path)
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        assert store.get_account("ALICE").name == "Alice"
        assert store.load_settings("alice") == {"language": "fr", "style": 12}
        [game] = store.unfinished_games()
        assert (game.id, game.start.white, game.ply, game.clocks_ms) == (7, "Alice", 1,
                                                                          (299000, 300000))
        # version 2 dropped the FEN column: the position comes from the moves replayed
        assert game.moves == (MoveRecord(1, "e4", "e2e4", 299000, 300000, 1000),)
        assert game.fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        assert store.start_game(GameStart("a", "b", 1, 0, 0.0))[0] == 8  # ids go on after 7
    finally:
        wait_for(reactor, store.close())
    assert columns(path, "moves") == ["game", "ply", "san", "uci", "white_ms", "black_ms",
                                      "took_ms"]
    conn = sqlite3.connect(path)
    try:
        assert user_version(conn) == SCHEMA_VERSION
        # the rebuilt table (version 2), renamed (version 3), keeps its key, its check
        # and its cascade
        assert conn.execute("PRAGMA foreign_key_list(game_moves)").fetchall()[0][2:4] == (
            "games", "game")
        assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'game_moves'"
                            ).fetchone()[0].count("CHECK (ply > 0)") == 1
        assert conn.execute("PRAGMA index_list(game_moves)").fetchall()[0][3] == "pk"
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'moves_v2'"
                            ).fetchone()[0] == 0
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_a_version_2_file_keeps_its_moves_and_logs_the_next_ones(reactor, tmp_path):
    """Version 3 renames ``moves`` to ``game_moves``, adds the log and the view: the
    games of a version 2 file read as before, and a move after it goes to the log."""
    path = tmp_path / "v2.sqlite3"
    hand_made(path, VERSION_2)
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        [game] = store.unfinished_games()
        assert (game.id, [m.san for m in game.moves]) == (7, ["e4", "c5"])
        assert [m.san for m in store.get_game(8).moves] == ["d4"]
        assert store.history("alice")[0].game.end.result == "0-1"
        d = store.add_move(7, MoveRecord(3, "Nf3", "g1f3", 298000, 299000, 1000))
        wait_for(reactor, d)
        assert store.get_game(7).fen == \
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    finally:
        wait_for(reactor, store.close())
    conn = sqlite3.connect(path)
    try:
        assert user_version(conn) == SCHEMA_VERSION
        assert conn.execute("SELECT game, ply FROM move_log").fetchall() == [(7, 3)]
        assert conn.execute("SELECT game, ply FROM game_moves ORDER BY game, ply").fetchall() \
            == [(7, 1), (7, 2), (8, 1)]
        assert conn.execute("SELECT game, ply FROM moves ORDER BY game, ply").fetchall() == [
            (7, 1), (7, 2), (7, 3), (8, 1)]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_migrations_run_in_order_from_each_earlier_version(tmp_path):
    applied = []
    a, b = SCHEMA_VERSION + 1, SCHEMA_VERSION + 2
    later = (*MIGRATIONS,
             Migration(a, "a column", ("ALTER TABLE games ADD COLUMN eco TEXT",),
                       apply=lambda conn: applied.append(a)),
             Migration(b, "fill it", ("UPDATE games SET eco = 'C20'",),
                       apply=lambda conn: applied.append(b)))
    for name, prepare, expected in (("from-0", lambda p: None, (0, b)),
                                    ("from-1", hand_made, (1, b)),
                                    ("from-2", lambda p: hand_made(p, VERSION_2), (2, b))):
        path = tmp_path / f"{name}.sqlite3"
        prepare(path)
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            applied.clear()
            assert migrate(conn, path, later) == expected
            assert applied == [a, b]
            assert user_version(conn) == b
            assert "eco" in columns(path, "games")
        finally:
            conn.close()


def test_a_failing_migration_leaves_the_file_at_its_version(tmp_path):
    path = tmp_path / "v1.sqlite3"
    hand_made(path)

    def broken(conn):
        raise RuntimeError("migration bug")

    later = (*MIGRATIONS, Migration(SCHEMA_VERSION + 1, "half done", ("CREATE TABLE future_table (x)",),
                                    apply=broken))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(RuntimeError, match="migration bug"):
            migrate(conn, path, later)
        assert user_version(conn) == SCHEMA_VERSION  # the shipped ones applied, not the broken one
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'future_table'"
                            ).fetchone()[0] == 0
    finally:
        conn.close()


def test_a_newer_schema_is_refused(reactor, tmp_path):
    path = tmp_path / "future.sqlite3"
    hand_made(path, VERSION_1.replace("PRAGMA user_version = 1", "PRAGMA user_version = 99"))
    with pytest.raises(StoreVersionError) as info:
        SQLiteStore.open(path, reactor=reactor)
    assert (info.value.found, info.value.known) == (99, SCHEMA_VERSION)
    assert f"{path}: written by a newer ficsfen (data schema version 99" in info.value.render("en")
    assert f"{path}\u202f: écrit par une version plus récente de ficsfen" in info.value.render("fr")
    conn = sqlite3.connect(path)
    try:
        assert user_version(conn) == 99  # untouched
    finally:
        conn.close()


# -- bad files ----------------------------------------------------------------------------


def assert_corrupt(reactor, path):
    with pytest.raises(StoreCorruptError) as info:
        SQLiteStore.open(path, reactor=reactor)
    english, french = info.value.render("en"), info.value.render("fr")
    assert english.startswith(f"{path}: not a ficsfen data file, or a damaged one")
    assert french.startswith(f"{path}\u202f: ce n’est pas un fichier de données de ficsfen")
    fd = os.open(lock_path(path), os.O_RDWR)  # the refused open let its lock go
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    return info.value


def test_random_bytes_are_not_a_data_file(reactor, tmp_path):
    path = tmp_path / "noise.sqlite3"
    path.write_bytes(os.urandom(1 << 14))
    error = assert_corrupt(reactor, path)
    assert "file is not a database" in error.reason


def test_a_truncated_data_file_is_reported_not_served_empty(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    store = SQLiteStore.open(path, reactor=reactor)
    game, d = store.start_game(GameStart("alice", "bob", 60, 0, 0.0))
    for ply in range(1, 1500):
        d = store.add_move(game, MoveRecord(ply, "Nf3", "g1f3", 1, 1, 1))
    wait_for(reactor, d)
    wait_for(reactor, store.close())
    data = path.read_bytes()
    assert len(data) > 8 * 4096
    path.write_bytes(data[: len(data) // 2])
    assert_corrupt(reactor, path)


def test_another_programs_database_is_refused_untouched(reactor, tmp_path):
    path = tmp_path / "other.sqlite3"
    hand_made(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);")
    error = assert_corrupt(reactor, path)
    assert "another program" in error.reason
    assert columns(path, "photos") == ["id", "name"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_folder_where_the_file_should_be(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    path.mkdir()
    with pytest.raises(StoreOpenError) as info:
        SQLiteStore.open(path, reactor=reactor)
    assert f"{path}: cannot open the data file: Is a directory" in info.value.render("en")
    assert "impossible d’ouvrir le fichier de données" in info.value.render("fr")


@pytest.fixture
def read_only(tmp_path):
    """Makes a file or folder unwritable, even for root (who ignores permission bits)."""
    made = []

    def make(path):
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
            if done.returncode != 0:
                missing(f"root needs chattr +i to make a read-only file: {done.stderr.strip()}")
        else:
            path.chmod(0o555 if path.is_dir() else 0o444)
        made.append(path)

    yield make
    for path in made:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        else:
            path.chmod(0o755 if path.is_dir() else 0o644)


def test_a_read_only_data_file(reactor, tmp_path, read_only):
    path = tmp_path / "data.sqlite3"
    wait_for(reactor, SQLiteStore.open(path, reactor=reactor).close())
    read_only(path)
    with pytest.raises(StoreReadOnlyError) as info:
        SQLiteStore.open(path, reactor=reactor)
    assert not info.value.folder
    assert info.value.render("en").startswith(f"{path}: the data file is read-only (")
    assert info.value.render("fr").startswith(f"{path}\u202f: le fichier de données est en lecture seule (")


def test_a_read_only_folder(reactor, tmp_path, read_only):
    folder = tmp_path / "ro"
    folder.mkdir()
    read_only(folder)
    for path in (folder / "data.sqlite3", folder / "deeper" / "data.sqlite3"):
        with pytest.raises(StoreReadOnlyError) as info:
            SQLiteStore.open(path, reactor=reactor)
        assert info.value.folder
        assert info.value.render("en").startswith(f"{path.parent}: cannot write in the data file's folder")
        assert "impossible d’écrire dans le dossier du fichier de données" in info.value.render("fr")
