"""The store's community tables, on SQLite: operators' flags, bans and news, stored
messages, logons, head-to-head records and ratings (schema versions 4 and 5).

:class:`CommunityRows` is a base of :class:`~.sqlite.SQLiteStore`: it hands each
:class:`~.interfaces.IStore` call on to the collaborator that owns its queries
(``admin_rows.py``, ``message_rows.py``, ``logon_rows.py``, ``player_reads.py``,
``rating_rows.py``, ``rating_reads.py``), which the store makes when it opens.
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
from ficsfen.server.store.records import Ban, NewsItem

__all__ = ["CommunityRows"]


class CommunityRows:
    """The community tables' part of the store (see the module)."""

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

    def bans(self) -> list[Ban]:
        return self._admin.bans()

    def add_news(self, author: str, title: str, *, posted: float | None = None) -> Deferred[int]:
        return self._admin.add_news(author, title, posted=posted)

    def add_news_line(self, number: int, line: str) -> Deferred[bool]:
        return self._admin.add_news_line(number, line)

    def remove_news(self, number: int) -> Deferred[bool]:
        return self._admin.remove_news(number)

    def news(self, limit: int | None = None) -> list[NewsItem]:
        return self._admin.news(limit)

    def news_item(self, number: int) -> NewsItem | None:
        return self._admin.news_item(number)

    # -- stored messages -----------------------------------------------------------------

    def send_message(self, sender: str, recipient: str, text: str, *, limit: int,
                     sent: float | None = None) -> Deferred[StoredMessage]:
        return self._messages.send_message(sender, recipient, text, limit=limit, sent=sent)

    def messages(self, recipient: str) -> list[StoredMessage]:
        return self._messages.messages(recipient)

    def message_counts(self, recipient: str) -> tuple[int, int]:
        return self._messages.message_counts(recipient)

    def mark_read(self, recipient: str, ids: Iterable[int]) -> Deferred[None]:
        return self._messages.mark_read(recipient, ids)

    def clear_messages(self, recipient: str, ids: Iterable[int]) -> Deferred[int]:
        return self._messages.clear_messages(recipient, ids)

    # -- logons and players (see logon_rows.py, player_reads.py) -------------------

    def record_logon(self, name: str, event: str, at: float, host: str = "") -> Deferred[None]:
        return self._logons.record_logon(name, event, at, host)

    def logons(self, name: str | None = None, limit: int = 10) -> list[LogonRecord]:
        return self._logons.logons(name, limit)

    def handles(self, prefix: str, limit: int = 100) -> list[str]:
        return self._players.handles(prefix, limit)

    def pair_record(self, player: str, opponent: str) -> PairRecord:
        return self._players.pair_record(player, opponent)

    # -- ratings (rating_rows.py: the player's; rating_reads.py: the lists) -------------

    def player_ratings(self, name: str) -> dict[Category, Rating]:
        return self._ratings.player_ratings(name)

    def all_ratings(self) -> dict[str, dict[Category, Rating]]:
        return self._ratings.all_ratings()

    def player_rating_rows(self, name: str) -> list[RatingRow]:
        return self._rating_reads.player_rating_rows(name)

    def top_ratings(self, category: str, *, offset: int = 0, limit: int = 20,
                    active: Callable[[RatingRow], bool]) -> list[RatingRow]:
        return self._rating_reads.top_ratings(category, offset=offset, limit=limit,
                                              active=active)

    def top_best(self, category: str, *, limit: int = 20) -> list[RatingRow]:
        return self._rating_reads.top_best(category, limit=limit)

    def rank(self, name: str, category: str, *,
             active: Callable[[RatingRow], bool]) -> tuple[int, RatingRow] | None:
        return self._rating_reads.rank(name, category, active=active)

    def game_ratings(self, ids: Iterable[int]) -> dict[int, GameRatings]:
        return self._rating_reads.game_ratings(ids)
