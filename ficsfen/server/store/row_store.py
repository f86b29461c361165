"""The part of a store that hands each :class:`~.interfaces.IStore` call to the row module
owning its queries, shared by :class:`~.sqlite.SQLiteStore` and
:class:`~.postgres.PostgresStore`.

:class:`RowStore` adds the accounts, settings and games to
:class:`~.community_rows.CommunityRows` (the operators', messages', logons'
and ratings' tables).  The store that subclasses it makes the collaborators
when it opens: ``_accounts`` (:class:`~.account_rows.AccountRows`),
``_game_writes`` (:class:`~.game_writes.GameWrites`), ``_game_reads``
(:class:`~.game_reads.GameReads`) and those of ``CommunityRows``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from twisted.internet.defer import Deferred

from ficsfen.server.store.account_rows import AccountRows
from ficsfen.server.store.community_rows import CommunityRows
from ficsfen.server.store.game_reads import GameReads
from ficsfen.server.store.game_writes import GameWrites
from ficsfen.server.store.rating_rows import RatingWrite
from ficsfen.server.store.read_gate import ReadGate, one_read
from ficsfen.server.store.records import (
    HISTORY_SIZE,
    Account,
    Adjournment,
    GameEnd,
    GameStart,
    HistoryEntry,
    MoveRecord,
    StoredGame,
)

__all__ = ["RowStore"]


class RowStore(CommunityRows):
    """Accounts, settings and games handed to their row modules (see the module).

    The subclass also sets ``path``, ``_read`` (the read connection behind its
    :class:`~.read_gate.ReadGate`), ``_writer`` (its :class:`~.writer.Writer`)
    and ``_closing`` (``None`` until :meth:`close`).
    """

    path: Any
    _read: ReadGate
    _writer: Any
    _closing: Deferred[None] | None
    _accounts: AccountRows
    _game_writes: GameWrites
    _game_reads: GameReads

    # -- life ------------------------------------------------------------------------

    def close(self) -> Deferred[None]:
        """Refuse further reads and close the read connection once the reads running in
        other threads are done (:class:`~.read_gate.ReadGate`); commit what is queued and
        close the writer.  The Deferred fires once both are closed (every call gets its
        own)."""
        if self._closing is None:
            read_closed = self._read.close()
            self._closing = self._writer.close()
            self._closing.addBoth(self._writer_closed)
            self._closing.addBoth(lambda result: read_closed.addCallback(lambda _: result))
        done: Deferred[None] = Deferred()

        def closed(result: object) -> object:
            done.callback(None)
            return result

        self._closing.addBoth(closed)
        return done

    def _writer_closed(self, result: Any) -> Any:
        """What the store does once its writer is closed (``result`` passed on)."""
        return result

    def _reader(self) -> ReadGate:
        """The read connection, behind its gate (which raises
        :class:`~.errors.StoreClosedError` once the store is closed)."""
        return self._read

    # -- accounts and settings (see account_rows.py) -----------------------------

    def add_account(self, name: str, password_hash: str, *,
                    created: float | None = None) -> Deferred[None]:
        return self._accounts.add_account(name, password_hash, created=created)

    def remove_account(self, name: str) -> Deferred[None]:
        return self._accounts.remove_account(name)

    def set_password(self, name: str, password_hash: str) -> Deferred[None]:
        return self._accounts.set_password(name, password_hash)

    def import_accounts(self, accounts: Mapping[str, str]) -> Deferred[list[str]]:
        return self._accounts.import_accounts(accounts)

    @one_read
    def get_account(self, name: str) -> Account | None:
        return self._accounts.get_account(name)

    @one_read
    def accounts(self) -> list[Account]:
        return self._accounts.accounts()

    def save_settings(self, name: str, settings: Mapping[str, Any]) -> Deferred[None]:
        return self._accounts.save_settings(name, settings)

    @one_read
    def load_settings(self, name: str) -> dict[str, Any]:
        return self._accounts.load_settings(name)

    # -- games: writes (see game_writes.py) ----------------------------------------

    def start_game(self, start: GameStart) -> tuple[int, Deferred[None]]:
        return self._game_writes.start_game(start)

    def add_move(self, game_id: int, move: MoveRecord) -> Deferred[None]:
        return self._game_writes.add_move(game_id, move)

    def take_back(self, game_id: int, ply: int) -> Deferred[None]:
        return self._game_writes.take_back(game_id, ply)

    def adjourn_game(self, game_id: int, adjournment: Adjournment) -> Deferred[None]:
        return self._game_writes.adjourn_game(game_id, adjournment)

    def resume_game(self, game_id: int) -> Deferred[None]:
        return self._game_writes.resume_game(game_id)

    def end_game(self, game_id: int, end: GameEnd, ratings: Sequence[RatingWrite] = (), *,
                 adjourned_only: bool = False, adjourned_before: float | None = None
                 ) -> Deferred[tuple[int | None, int | None]]:
        return self._game_writes.end_game(game_id, end, ratings, adjourned_only=adjourned_only,
                                          adjourned_before=adjourned_before)

    # -- games: reads (see game_reads.py) ------------------------------------------

    @one_read
    def get_game(self, game_id: int) -> StoredGame | None:
        return self._game_reads.get_game(game_id)

    @one_read
    def unfinished_games(self, name: str | None = None) -> list[StoredGame]:
        return self._game_reads.unfinished_games(name)

    @one_read
    def history(self, name: str, limit: int = HISTORY_SIZE) -> list[HistoryEntry]:
        return self._game_reads.history(name, limit)

    @one_read
    def history_game(self, name: str, number: int) -> StoredGame | None:
        return self._game_reads.history_game(name, number)

    def finished_games(self, name: str | None = None) -> Iterator[StoredGame]:
        # lazy: each step of the iteration is a read of its own (see read_gate.py)
        return self._game_reads.finished_games(name)
