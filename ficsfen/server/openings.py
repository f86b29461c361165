"""The ECO code of a server's games, for ``history``, ``stored``, ``journal`` and PGN.

:mod:`ficsfen.eco` classifies moves; this module knows where a game's moves
are (a :class:`~ficsfen.server.store.StoredGame`'s UCI records, a live
game's tracker) and which games have a code at all: standard chess from
the usual starting position.  FICS shows ``---`` for the others, and so do
the listings here (:data:`NO_ECO`).
"""

from __future__ import annotations

from typing import Any

from ficsfen.eco import classify, classify_uci
from ficsfen.fen import STARTING_FEN
from ficsfen.server.store import HistoryEntry, StoredGame

__all__ = ["NO_ECO", "history_with_ecos", "live_eco", "stored_eco"]

#: What FICS's listings show for a game without an ECO code.
NO_ECO = "---"


def stored_eco(game: StoredGame) -> str | None:
    """The ECO code of a stored game, or ``None`` (a variant, a set-up position, no
    opening position reached)."""
    start = game.start
    if start.variant != "chess" or start.fen != STARTING_FEN:
        return None
    return classify_uci(move.uci for move in game.moves)


def live_eco(game: Any) -> str | None:
    """The ECO code of a game in memory (played, adjourned or examined: anything with a
    :class:`~ficsfen.tracker.Tracker` as ``tracker``), or ``None``."""
    tracker = game.tracker
    if tracker.variant is not None or tracker.initial_fen != STARTING_FEN:
        return None
    return classify(ply.move for ply in tracker.history)


def history_with_ecos(store: Any, handle: str) -> list[tuple[HistoryEntry, str]]:
    """``handle``'s history entries (``store.history``) with each game's ECO code
    (:data:`NO_ECO` for none): one read of the list, one per game for its moves.
    A store read: run it off the reactor thread."""
    out = []
    for entry in store.history(handle):
        game = store.get_game(entry.game.id)
        code = stored_eco(game) if game is not None else None
        out.append((entry, code or NO_ECO))
    return out
