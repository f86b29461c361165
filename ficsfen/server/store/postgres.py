"""The PostgreSQL store: psycopg 3, the SQLite store's writer thread and row modules.

:class:`PostgresStore` provides :class:`~.interfaces.IStore` on a PostgreSQL
database named by a URL (``--data postgresql://...``, ``[storage] url``;
:mod:`ficsfen.server.database_url`).  It is the SQLite store with three
things changed:

- its two connections are :mod:`psycopg` connections in autocommit mode
  behind :class:`~.pg_dialect.PgConnection`, which takes the row modules'
  SQLite statements (the dialect layer); the same
  :class:`~.writer.Writer` thread commits the writes in groups, so a write's
  Deferred still fires in the reactor thread only after its ``COMMIT``, in
  the order asked for;
- the schema is :mod:`.schema`'s migrations, applied by :mod:`.pg_schema`,
  with the version in a table;
- game and move log ids come from sequences, a block at a time
  (:mod:`.pg_ids`), and there is no one-server lock: several nodes may
  share the database.  Accounts are keyed by the folded handle (a primary
  key): two nodes adding one handle at once, one of them gets
  :class:`~.errors.AccountExistsError`.

``synchronous``: ``"full"`` is PostgreSQL's ``synchronous_commit = on`` (a
commit is acknowledged once the database's WAL is flushed); ``"normal"``
``off`` (a crash of ficsfen loses nothing acknowledged; a crash of the
database server may lose its last commits).  Nothing imports
:mod:`psycopg` until a PostgreSQL store is opened.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from zope.interface import implementer

from ficsfen.i18n import Message, msg
from ficsfen.server.database_url import display_url, url_problem
from ficsfen.server.store.account_rows import AccountRows
from ficsfen.server.store.admin_rows import AdminRows
from ficsfen.server.store.errors import StoreOpenError, StoreVersionError
from ficsfen.server.store.game_reads import GameReads
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.logon_rows import LogonRows
from ficsfen.server.store.message_rows import MessageRows
from ficsfen.server.store.pg_connection import PgConnection
from ficsfen.server.store.pg_ids import IdBlocks, PgGameWrites
from ficsfen.server.store.pg_schema import (
    GAME_IDS,
    LOG_IDS,
    fold_log,
    migrate,
    prepare_ids,
    schema_version,
)
from ficsfen.server.store.player_reads import PlayerReads
from ficsfen.server.store.rating_reads import RatingReads
from ficsfen.server.store.rating_rows import PlayerRatings
from ficsfen.server.store.read_gate import ReadGate
from ficsfen.server.store.row_store import RowStore
from ficsfen.server.store.schema import SCHEMA_VERSION
from ficsfen.server.store.writer import Writer

__all__ = ["CONNECT_TIMEOUT", "DatabaseName", "PostgresStore", "check_current"]

#: Seconds a connection attempt waits for the database before giving up.
CONNECT_TIMEOUT = 10
_SYNCHRONOUS_COMMIT = {"full": "on", "normal": "off"}


class DatabaseName(str):
    """A database's URL, its password masked: what messages name where a file's path would be."""

    @property
    def name(self) -> str:
        return str(self)


@implementer(IStore)
class PostgresStore(RowStore):
    """The :class:`IStore` on a PostgreSQL database; make one with :meth:`open`."""

    def __init__(self, where: DatabaseName, *, reactor: Any, read: PgConnection,
                 write: PgConnection, exclusive: bool, first_ids: tuple[int, int] | None,
                 commit_interval: float = 0.0) -> None:
        #: The database's URL without its password (``IStore.path``: for messages).
        self.path = where
        self.exclusive = exclusive
        #: What the operator should know (none so far for PostgreSQL).
        self.notices: list[Message] = []
        self._reactor = reactor
        self._read = ReadGate(read, path=where, reactor=reactor)
        self._writer = Writer(write, reactor=reactor, path=where,  # type: ignore[arg-type]
                              commit_interval=commit_interval)
        self._writer.start()
        self._closing: Deferred[None] | None = None
        reader: Any = self._reader
        writer: Any = self._writer
        self._accounts = AccountRows(writer, reader)
        self._admin = AdminRows(writer, reader)
        games, log = first_ids if first_ids is not None else (1, 1)
        self._game_writes: PgGameWrites = PgGameWrites(
            writer, path=where, exclusive=exclusive,
            games=self._blocks(GAME_IDS, games), log=self._blocks(LOG_IDS, log))
        self._game_reads = GameReads(reader)
        self._messages = MessageRows(writer, reader)
        self._logons = LogonRows(writer, reader)
        self._players = PlayerReads(reader)
        self._ratings = PlayerRatings(reader)
        self._rating_reads = RatingReads(reader)

    def __repr__(self) -> str:
        return f"<PostgresStore {str(self.path)!r}>"

    @property
    def commits(self) -> int:
        """Transactions committed by the writer thread so far."""
        return self._writer.commits

    @property
    def id_waits(self) -> int:
        """Times a game or log id was wanted before its next block had arrived."""
        return self._game_writes.id_waits

    def _blocks(self, sequence: tuple[str, int], first: int) -> IdBlocks:
        name, block = sequence

        def next_block(conn: Any) -> int:
            return int(conn.execute("SELECT nextval(?)", (name,)).fetchone()[0])

        def later() -> Deferred[int]:
            return self._writer.submit(run=next_block)

        def now() -> int:  # on the read connection, read-only but for this transaction
            conn = self._reader()
            conn.execute("BEGIN READ WRITE")
            try:
                return next_block(conn)
            finally:
                conn.execute("COMMIT")

        return IdBlocks(first, block, fetch_later=later, fetch_now=now)

    # -- opening ---------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, reactor: Any, exclusive: bool = True, read_only: bool = False,
             synchronous: str = "full", commit_interval: float = 0.0) -> PostgresStore:
        """Connect to the database ``url`` names, create or migrate its schema.

        ``exclusive=True`` is a server node: its start copies the move log's
        rows of games in play to their games (``pg_schema.fold_log``) and it
        may write games; several nodes may share one database.  Operator
        tools open with ``exclusive=False`` (no game writes) and, to only
        read, ``read_only=True``: the database must be at the current schema
        version, nothing is created or migrated, and every write fails with
        :class:`StoreWriteError`.  Synchronous: runs once at start.

        :raises StoreOpenError: naming the URL (password masked) and the cause: a bad URL,
            psycopg missing, the database unreachable or refusing the login;
            :class:`StoreCorruptError` (another program's tables),
            :class:`StoreVersionError` (a newer ficsfen's schema).
        :raises ValueError: an unknown ``synchronous``.
        """
        if synchronous not in _SYNCHRONOUS_COMMIT:
            raise ValueError(f"synchronous must be one of {tuple(_SYNCHRONOUS_COMMIT)}, "
                             f"not {synchronous!r}")
        where = DatabaseName(display_url(url))
        problem = url_problem(url)
        if problem is not None:
            raise StoreOpenError.because(where, problem)
        try:
            import psycopg
        except ImportError:
            raise StoreOpenError(msg(
                "{file}: a PostgreSQL store needs psycopg 3 (the cluster extra: pip install "
                "ficsfen[cluster]).",
                file=str(where)), where) from None
        commit = f"SET synchronous_commit = {_SYNCHRONOUS_COMMIT[synchronous]}"
        read_only_set = "SET default_transaction_read_only = on"

        def connector(*settings: str) -> Callable[[], Any]:
            def connect() -> Any:
                raw = psycopg.connect(url.strip(), autocommit=True,
                                      connect_timeout=CONNECT_TIMEOUT,
                                      application_name="ficsfen")
                for setting in settings:
                    raw.execute(setting)
                return raw
            return connect

        opened: list[PgConnection] = []
        try:
            writes = connector(commit, *((read_only_set,) if read_only else ()))
            reads = connector(commit, read_only_set)
            write = PgConnection(writes(), reconnect=writes)
            opened.append(write)
            read = PgConnection(reads(), reconnect=reads)
            opened.append(read)
            first_ids = None
            if read_only:
                check_current(write, where)
            else:
                migrate(write, where)
                prepare_ids(write)
                if exclusive:
                    fold_log(write)
                    first_ids = (int(write.execute("SELECT nextval(?)", (GAME_IDS[0],))
                                     .fetchone()[0]),  # type: ignore[index]
                                 int(write.execute("SELECT nextval(?)", (LOG_IDS[0],))
                                     .fetchone()[0]))  # type: ignore[index]
        except (psycopg.Error, sqlite3.Error) as e:
            for conn in opened:
                conn.close()
            raise StoreOpenError.because(where, _reason(e)) from None
        except BaseException:
            for conn in opened:
                conn.close()
            raise
        return cls(where, reactor=reactor, read=read, write=write,
                   exclusive=exclusive and not read_only, first_ids=first_ids,
                   commit_interval=commit_interval)



def check_current(conn: PgConnection, where: DatabaseName) -> None:
    """Refuse, for a read-only tool, a database no server has set up or of another version."""
    found = schema_version(conn)
    if not found:
        raise StoreOpenError(msg("{file}: the data file is empty (no server has started on "
                                 "it yet).", file=str(where)), where)
    if found != SCHEMA_VERSION:
        if found > SCHEMA_VERSION:
            raise StoreVersionError(where, found, SCHEMA_VERSION)
        raise StoreOpenError(msg("{file}: written by an older ficsfen (data schema version "
                                 "{found}); start the server on it once to bring it up to "
                                 "date, then read it again.", file=str(where), found=found),
                             where)


def _reason(error: BaseException) -> str:
    """The first line of what the database driver said (no password: libpq never prints it)."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
