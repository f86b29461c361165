"""The SQLite schema, versioned by ``PRAGMA user_version``, and its migrations.

A data file's ``user_version`` is the number of migrations applied to it: 0
for a new (empty) file.  :func:`migrate` applies the missing ones in order,
each in its own transaction that also sets ``user_version``, so a file is
always at one exact version, even if the server is killed while migrating.
A file whose version is above :data:`SCHEMA_VERSION` was written by a newer
ficsfen and is refused (:class:`~ficsfen.server.store.errors.StoreVersionError`):
this code cannot know what the newer columns mean.

To change the schema, append a :class:`Migration`; never edit one that has
shipped (files in the field are at its version already).  The tests keep a
hand-written copy of each shipped version's tables and migrate it up.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ficsfen.server.store.errors import StoreCorruptError, StoreVersionError

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "Migration", "migrate",
           "user_version"]

#: ``PRAGMA application_id`` of a ficsfen data file ("FICS" in ASCII), so that
#: ``file`` and SQLite tools can tell what it is, and we can refuse another
#: program's database instead of adding our tables to it.
APPLICATION_ID = 0x46494353


@dataclass(frozen=True)
class Migration:
    """Brings a file from version ``version - 1`` to ``version``.

    ``statements`` run in order; ``apply`` (if given) runs after them, for
    changes that need Python (moving data between columns...).
    """

    version: int
    description: str
    statements: tuple[str, ...] = ()
    apply: Callable[[sqlite3.Connection], None] | None = None


_V1 = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    # Registered players.  ``key`` is the folded handle (ficsfen.names.fold).
    """CREATE TABLE accounts (
        key      TEXT PRIMARY KEY,
        name     TEXT NOT NULL,
        password TEXT NOT NULL,
        created  REAL NOT NULL
    ) WITHOUT ROWID""",
    # What a registered player set (language, style, ...), as a JSON object.
    """CREATE TABLE settings (
        key  TEXT PRIMARY KEY REFERENCES accounts (key) ON DELETE CASCADE,
        data TEXT NOT NULL
    ) WITHOUT ROWID""",
    # Played games, from their start.  Clocks in ms; times are Unix seconds.
    """CREATE TABLE games (
        id                INTEGER PRIMARY KEY,
        white             TEXT NOT NULL,
        black             TEXT NOT NULL,
        white_key         TEXT NOT NULL,
        black_key         TEXT NOT NULL,
        initial_seconds   INTEGER NOT NULL,
        increment_seconds INTEGER NOT NULL,
        start_fen         TEXT NOT NULL,
        variant           TEXT NOT NULL,
        rated             INTEGER NOT NULL,
        started           REAL NOT NULL,
        status            TEXT NOT NULL CHECK (status IN ('playing', 'adjourned', 'finished')),
        adjourn_reason    TEXT,
        adjourned         REAL,
        adjourn_white_ms  INTEGER,
        adjourn_black_ms  INTEGER,
        adjourn_ply       INTEGER,
        result            TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2', '*')),
        end_reason        TEXT,
        end_code          TEXT,
        ended             REAL
    )""",
    "CREATE INDEX games_unfinished ON games (status) WHERE status != 'finished'",
    "CREATE INDEX games_white ON games (white_key)",
    "CREATE INDEX games_black ON games (black_key)",
    # One row per acknowledged half-move; a takeback deletes the last rows.
    """CREATE TABLE moves (
        game     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply      INTEGER NOT NULL CHECK (ply > 0),
        san      TEXT NOT NULL,
        uci      TEXT NOT NULL,
        fen      TEXT NOT NULL,
        white_ms INTEGER NOT NULL,
        black_ms INTEGER NOT NULL,
        took_ms  INTEGER NOT NULL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID""",
    # Each registered player's finished games in order: seq 1, 2, 3...
    # FICS's history number is (seq - 1) % 100.
    """CREATE TABLE history (
        player TEXT NOT NULL,
        seq    INTEGER NOT NULL,
        game   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        PRIMARY KEY (player, seq)
    ) WITHOUT ROWID""",
)

# Version 2: ``moves`` loses its ``fen`` column.  The position after a move
# is the game's moves replayed from its start (``StoredGame.replay``), so the
# column only repeated them.  It was two thirds of a row's bytes: three times
# the file, and 5-8 us more of the writer's CPU per move (page splits, bytes
# written and synced at each commit; docs/benchmarks/store.md).  Rebuilt rather than ``ALTER TABLE ...
# DROP COLUMN``, which SQLite only has since 3.35 (Python 3.11 may link an
# older one).
_V2 = (
    """CREATE TABLE moves_v2 (
        game     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply      INTEGER NOT NULL CHECK (ply > 0),
        san      TEXT NOT NULL,
        uci      TEXT NOT NULL,
        white_ms INTEGER NOT NULL,
        black_ms INTEGER NOT NULL,
        took_ms  INTEGER NOT NULL,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID""",
    """INSERT INTO moves_v2 (game, ply, san, uci, white_ms, black_ms, took_ms)
        SELECT game, ply, san, uci, white_ms, black_ms, took_ms FROM moves""",
    "DROP TABLE moves",
    "ALTER TABLE moves_v2 RENAME TO moves",
)

# Version 3: the moves of games in play are appended to ``move_log``, in the
# order they were acknowledged (its ``id``), and copied to ``game_moves`` (the
# table ``moves`` was, clustered by game) when their game is adjourned or
# ends.  Why: a commit carries the moves of many games; clustered by game,
# each of them lands in its own page of the table, so every commit wrote and
# synced one 4 KiB page per game that moved.  Appended, a commit's moves
# share the log's last page or two; a game's moves are copied once, together
# (docs/store.md, docs/benchmarks/store.md).  ``moves`` becomes a view of every
# acknowledged move: those of ``game_moves`` and those of the log whose game
# is in play (the log keeps the rows of ended games until it is cut from its
# start; see ``game_writes.py``).
_V3 = (
    "ALTER TABLE moves RENAME TO game_moves",
    """CREATE TABLE move_log (
        id       INTEGER PRIMARY KEY,
        game     INTEGER NOT NULL REFERENCES games (id),
        ply      INTEGER NOT NULL CHECK (ply > 0),
        san      TEXT NOT NULL,
        uci      TEXT NOT NULL,
        white_ms INTEGER NOT NULL,
        black_ms INTEGER NOT NULL,
        took_ms  INTEGER NOT NULL
    )""",
    """CREATE VIEW moves (game, ply, san, uci, white_ms, black_ms, took_ms) AS
        SELECT game, ply, san, uci, white_ms, black_ms, took_ms FROM game_moves
        UNION ALL
        SELECT game, ply, san, uci, white_ms, black_ms, took_ms FROM move_log
            WHERE game IN (SELECT id FROM games WHERE status = 'playing')""",
)

# Version 4: what FICS keeps beside accounts and games.  ``news``: items the
# operators post (``news``); ``messages``: stored messages between registered
# players (``messages``, ``clearmessages``); ``logons``: arrivals and
# departures (``llogons``, ``logons``); ``bans``: handles and addresses refused
# at login (``ban``); and two flags of an account, an operator (``admin``) and
# a muzzled player (``muzzle``).
_V4 = (
    """CREATE TABLE news (
        id     INTEGER PRIMARY KEY,
        posted REAL NOT NULL,
        author TEXT NOT NULL,
        title  TEXT NOT NULL,
        text   TEXT NOT NULL
    )""",
    """CREATE TABLE messages (
        id            INTEGER PRIMARY KEY,
        sender        TEXT NOT NULL,
        recipient_key TEXT NOT NULL REFERENCES accounts (key) ON DELETE CASCADE,
        sent          REAL NOT NULL,
        text          TEXT NOT NULL,
        unread        INTEGER NOT NULL DEFAULT 1
    )""",
    "CREATE INDEX messages_recipient ON messages (recipient_key, id)",
    """CREATE TABLE logons (
        id    INTEGER PRIMARY KEY,
        key   TEXT NOT NULL,
        name  TEXT NOT NULL,
        at    REAL NOT NULL,
        event TEXT NOT NULL CHECK (event IN ('on', 'off')),
        host  TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX logons_key ON logons (key, id)",
    """CREATE TABLE bans (
        kind   TEXT NOT NULL CHECK (kind IN ('handle', 'address')),
        value  TEXT NOT NULL,
        by     TEXT NOT NULL,
        at     REAL NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (kind, value)
    ) WITHOUT ROWID""",
    "ALTER TABLE accounts ADD COLUMN admin INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE accounts ADD COLUMN muzzled INTEGER NOT NULL DEFAULT 0",
)

# Version 5: Glicko ratings (ficsfen/server/glicko.py).  ``ratings``: one row
# per registered player and category once they have played a rated game in
# it (no row: the initial rating).  A game keeps both players' ratings as it
# started (``history``, exported PGN's ``WhiteElo``/``BlackElo``) and, once
# ended rated, each side's change, written in the same transaction as the
# end and the ``ratings`` rows.
_V5 = (
    """CREATE TABLE ratings (
        key         TEXT NOT NULL REFERENCES accounts (key) ON DELETE CASCADE,
        category    TEXT NOT NULL
                    CHECK (category IN ('lightning', 'blitz', 'standard', 'wild', 'crazyhouse')),
        rating      REAL NOT NULL,
        rd          REAL NOT NULL,
        wins        INTEGER NOT NULL DEFAULT 0,
        losses      INTEGER NOT NULL DEFAULT 0,
        draws       INTEGER NOT NULL DEFAULT 0,
        best        REAL,
        best_at     REAL,
        last_played REAL,
        PRIMARY KEY (key, category)
    ) WITHOUT ROWID""",
    "CREATE INDEX ratings_by_category ON ratings (category, rating DESC)",
    "ALTER TABLE games ADD COLUMN white_rating INTEGER",
    "ALTER TABLE games ADD COLUMN black_rating INTEGER",
    "ALTER TABLE games ADD COLUMN white_change REAL",
    "ALTER TABLE games ADD COLUMN black_change REAL",
)

#: Every migration, in order; ``MIGRATIONS[i].version == i + 1``.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "accounts, settings, games, moves and history", _V1),
    Migration(2, "moves without their FEN (the moves replayed give it)", _V2),
    Migration(3, "moves of games in play appended to a log, copied by game at their end",
              _V3),
    Migration(4, "news, stored messages, logons, bans, and the admin and muzzled flags", _V4),
    Migration(5, "Glicko ratings per category; each game's ratings and rating changes", _V5),
)
#: The version of a file this code has migrated.
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection, path: Path | str,
            migrations: Sequence[Migration] = MIGRATIONS) -> tuple[int, int]:
    """Bring the file open on ``conn`` (in autocommit mode) up to date.

    Returns ``(version before, version after)``.  A migration that fails is
    rolled back whole and its error raised: the file stays at the version
    before it.

    :raises StoreVersionError: the file is newer than ``migrations`` know.
    :raises StoreCorruptError: the file is another program's SQLite database.
    """
    known = len(migrations)
    found = user_version(conn)
    application = conn.execute("PRAGMA application_id").fetchone()[0]
    if application not in (0, APPLICATION_ID) or (
            found == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]):
        raise StoreCorruptError(path, "an SQLite database of another program")
    if found > known:
        raise StoreVersionError(path, found, known)
    for migration in migrations[found:]:
        # IMMEDIATE: a tool opening the same file at the same moment waits
        # instead of migrating it twice.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if user_version(conn) >= migration.version:  # the other one did it
                conn.execute("ROLLBACK")
                continue
            for statement in migration.statements:
                conn.execute(statement)
            if migration.apply is not None:
                migration.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(migration.version)}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found, user_version(conn)
