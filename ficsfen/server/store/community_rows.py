"""The store's community tables, on SQLite: operators' flags, bans and news, stored
messages, logons, head-to-head records and ratings (schema versions 4 and 5).

:class:`CommunityRows` is a base of :class:`~.sqlite.SQLiteStore`: it hands each
:class:`~.interfaces.IStore` call on to the collaborator that owns its queries
(``admin_rows.py``, ``message_rows.py``, ``logon_rows.py``, ``player_reads.py``,
``rating_rows.py``, ``rating_reads.py``), which the store makes when it opens.
Each read is :func:`~.read_gate.one_read`: a close of the store waits for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from twisted.internet.defer import Deferred

from ficsfen.server.glicko import Category, Rating
from ficsfen.server.store.admin_rows import AdminRows
from ficsfen.server.store.logon_rows import LogonRecord, LogonRows
from ficsfen.server.store.message_rows import MessageRows, StoredMessage
from ficsfen.server.store.player_reads import PairRecord, PlayerReads
from ficsfen.server.store.rating_reads import GameRatings, RatingReads, RatingRow
from ficsfen.server.store.rating_rows import PlayerRatings
from ficsfen.server.store.read_gate import ReadGate, one_read
from ficsfen.server.store.records import Ban, NewsItem

__all__ = ["CommunityRows"]


class CommunityRows:
    """The community tables' part of the store (see the module)."""

    _read: ReadGate
    _admin: AdminRows
    _messages: MessageRows
    _logons: LogonRows
    _players: PlayerReads
    _ratings: PlayerRatings
    _rating_reads: RatingReads

    # -- operators: flags, bans, news (see admin_rows.py) ------------------------------

    def set_admin(self, name: str, on: bool) -> Deferred[None]:
        return self._admin.set_admin(name, on)

    def set_muzzled(self, name: str, on: bool) -> Deferred[None]:
        return self._admin.set_muzzled(name, on)

    def add_ban(self, ban: Ban) -> Deferred[bool]:
        return self._admin.add_ban(ban)

    def remove_ban(self, kind: str, value: str) -> Deferred[bool]:
        return self._admin.remove_ban(kind, value)

    @one_read
    def bans(self) -> list[Ban]:
        return self._admin.bans()

    def add_news(self, author: str, title: str, *, posted: float | None = None) -> Deferred[int]:
        return self._admin.add_news(author, title, posted=posted)

    def add_news_line(self, number: int, line: str) -> Deferred[bool]:
        return self._admin.add_news_line(number, line)

    def remove_news(self, number: int) -> Deferred[bool]:
        return self._admin.remove_news(number)

    @one_read
    def news(self, limit: int | None = None) -> list[NewsItem]:
        return self._admin.news(limit)

    @one_read
    def news_item(self, number: int) -> NewsItem | None:
        return self._admin.news_item(number)

    # -- stored messages -----------------------------------------------------------------

    def send_message(self, sender: str, recipient: str, text: str, *, limit: int,
                     sent: float | None = None) -> Deferred[StoredMessage]:
        return self._messages.send_message(sender, recipient, text, limit=limit, sent=sent)

    @one_read
    def messages(self, recipient: str) -> list[StoredMessage]:
        return self._messages.messages(recipient)

    @one_read
    def message_counts(self, recipient: str) -> tuple[int, int]:
        return self._messages.message_counts(recipient)

    def mark_read(self, recipient: str, ids: Iterable[int]) -> Deferred[None]:
        return self._messages.mark_read(recipient, ids)

    def clear_messages(self, recipient: str, ids: Iterable[int]) -> Deferred[int]:
        return self._messages.clear_messages(recipient, ids)

    # -- logons and players (see logon_rows.py, player_reads.py) -------------------

    def record_logon(self, name: str, event: str, at: float, host: str = "") -> Deferred[None]:
        return self._logons.record_logon(name, event, at, host)

    @one_read
    def logons(self, name: str | None = None, limit: int = 10) -> list[LogonRecord]:
        return self._logons.logons(name, limit)

    @one_read
    def handles(self, prefix: str, limit: int = 100) -> list[str]:
        return self._players.handles(prefix, limit)

    @one_read
    def pair_record(self, player: str, opponent: str) -> PairRecord:
        return self._players.pair_record(player, opponent)

    # -- ratings (rating_rows.py: the player's; rating_reads.py: the lists) -------------

    @one_read
    def player_ratings(self, name: str) -> dict[Category, Rating]:
        return self._ratings.player_ratings(name)

    @one_read
    def all_ratings(self) -> dict[str, dict[Category, Rating]]:
        return self._ratings.all_ratings()

    @one_read
    def player_rating_rows(self, name: str) -> list[RatingRow]:
        return self._rating_reads.player_rating_rows(name)

    @one_read
    def top_ratings(self, category: str, *, offset: int = 0, limit: int = 20,
                    active: Callable[[RatingRow], bool]) -> list[RatingRow]:
        return self._rating_reads.top_ratings(category, offset=offset, limit=limit,
                                              active=active)

    @one_read
    def top_best(self, category: str, *, limit: int = 20) -> list[RatingRow]:
        return self._rating_reads.top_best(category, limit=limit)

    @one_read
    def rank(self, name: str, category: str, *,
             active: Callable[[RatingRow], bool]) -> tuple[int, RatingRow] | None:
        return self._rating_reads.rank(name, category, active=active)

    @one_read
    def game_ratings(self, ids: Iterable[int]) -> dict[int, GameRatings]:
        return self._rating_reads.game_ratings(ids)
