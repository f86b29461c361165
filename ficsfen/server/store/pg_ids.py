"""Game and move log ids on PostgreSQL, taken from a sequence a block at a time.

``start_game`` must give the new game's id at once, in the reactor thread,
and several nodes may start games in one database.  Each sequence
(``pg_schema.GAME_IDS``, ``LOG_IDS``) counts by a block: one ``nextval`` is
the first id of a block this node alone uses.  :class:`IdBlocks` hands the
ids of its block out and, once half of it is used, asks for the next block
through the writer (off the reactor thread).  Only if a block runs out
before the next one arrived is the next one fetched there and then
(:attr:`IdBlocks.waits` counts those times).  Ids grow within a node; a
block left unused when a node stops is a gap.

:class:`PgGameWrites` is :class:`~.game_writes.GameWrites` with its ids
from blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.store.game_writes import GameWrites

__all__ = ["IdBlocks", "PgGameWrites"]

_log = Logger(namespace="ficsfen.server.store")


class IdBlocks:
    """Ids from the block starting at ``first`` (``block`` long), then from later blocks.

    ``fetch_later()`` gives a Deferred of the next block's first id (fired in
    the reactor thread); ``fetch_now()`` gives it at once (it blocks).
    """

    def __init__(self, first: int, block: int, *, fetch_later: Callable[[], Deferred[int]],
                 fetch_now: Callable[[], int]) -> None:
        if block < 2:
            raise ValueError("a block has at least two ids")
        self._next = first
        self._end = first + block
        self._block = block
        self._spare: int | None = None
        self._asked = False
        self._fetch_later = fetch_later
        self._fetch_now = fetch_now
        #: Times an id was wanted before the next block had arrived.
        self.waits = 0

    @property
    def next(self) -> int:
        """The id :meth:`take` gives next, if its block lasts."""
        return self._next

    def take(self) -> int:
        """The next id (in the reactor thread)."""
        if self._next >= self._end:
            if self._spare is None:
                self.waits += 1
                self._spare = self._fetch_now()
            self._next, self._spare = self._spare, None
            self._end = self._next + self._block
        taken = self._next
        self._next += 1
        if self._spare is None and not self._asked and self._end - self._next <= self._block // 2:
            self._asked = True
            self._fetch_later().addCallbacks(self._arrived, self._failed)
        return taken

    def _arrived(self, first: int) -> None:
        self._asked = False
        # A block fetched at once meanwhile may be past this one: ids only grow.
        if self._spare is None and first >= self._end:
            self._spare = first

    def _failed(self, failure: Failure) -> None:
        self._asked = False  # the next take asks again, or fetches at once
        _log.warn("could not reserve ids: {error}", error=failure.getErrorMessage())


class PgGameWrites(GameWrites):
    """:class:`GameWrites` whose game and log ids come from ``games`` and ``log``."""

    def __init__(self, *args: Any, games: IdBlocks, log: IdBlocks, **kwargs: Any) -> None:
        super().__init__(*args, next_game_id=games.next, **kwargs)
        self._games = games
        self._log = log
        self._next_log_id = self._log_start = self._cut_tried = log.next

    @property
    def id_waits(self) -> int:
        """Times a game or log id was wanted before its next block had arrived."""
        return self._games.waits + self._log.waits

    def new_game_id(self) -> int:
        return self._games.take()

    def new_log_id(self) -> int:
        log_id = self._log.take()
        self._next_log_id = log_id + 1
        return log_id
