"""Reads about registered players as a whole: ``handles`` (names by prefix) and ``pstat``
(two players' record against each other), on the store's read connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ficsfen.names import fold

__all__ = ["PairRecord", "PlayerReads"]


@dataclass(frozen=True, slots=True)
class PairRecord:
    """How ``player`` fared against ``opponent`` in their finished games (aborted ones
    left out): wins, losses and draws, rated and unrated."""

    player: str
    opponent: str
    rated_wins: int = 0
    rated_losses: int = 0
    rated_draws: int = 0
    unrated_wins: int = 0
    unrated_losses: int = 0
    unrated_draws: int = 0


class PlayerReads:
    """``reader()`` gives the read connection (it raises ``StoreClosedError`` once closed)."""

    def __init__(self, reader: Callable[[], sqlite3.Connection]) -> None:
        self._reader = reader

    def handles(self, prefix: str, limit: int = 100) -> list[str]:
        """The names of accounts whose handle starts with ``prefix`` (any case), by handle;
        at most ``limit``."""
        key = fold(prefix)
        # A range on the primary key (the folded handle): no LIKE, whose wildcards
        # ``_`` and ``%`` are characters of handles.
        rows = self._reader().execute(
            "SELECT name FROM accounts WHERE key >= ? AND key < ? ORDER BY key LIMIT ?",
            (key, key + "\U0010ffff", limit)).fetchall()
        return [row[0] for row in rows]

    def pair_record(self, player: str, opponent: str) -> PairRecord:
        """``player``'s record against ``opponent`` (names as given, matched in any case)."""
        me, them = fold(player), fold(opponent)
        rows = self._reader().execute(
            "SELECT white_key, rated, result FROM games WHERE status = 'finished' "
            "AND result IN ('1-0', '0-1', '1/2-1/2') AND ((white_key = ? AND black_key = ?) "
            "OR (white_key = ? AND black_key = ?))", (me, them, them, me)).fetchall()
        counts = {"rated": [0, 0, 0], "unrated": [0, 0, 0]}
        for white_key, rated, result in rows:
            tally = counts["rated" if rated else "unrated"]
            if result == "1/2-1/2":
                tally[2] += 1
            elif (result == "1-0") == (white_key == me):
                tally[0] += 1
            else:
                tally[1] += 1
        return PairRecord(player, opponent, *counts["rated"], *counts["unrated"])
