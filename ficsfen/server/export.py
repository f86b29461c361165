"""Stored games as PGN: what ``ficsfen games export`` writes.

One game is the Seven Tag Roster (Event and Site FICS-like, Date in UTC,
Round ``-``), then ``TimeControl`` (``300+0``, ``-`` untimed), ``UTCDate``
and ``UTCTime`` (when it started), ``SetUp "1"`` and ``FEN`` for a game
begun from a set-up position, ``ECO`` for a game of standard chess that
reached a known opening (:mod:`ficsfen.server.openings`), and ``Termination``.  Each move is followed
by ``{[%clk h:mm:ss]}``, the mover's clock after it as the store recorded
it, and the movetext ends with FICS's reason (``{alice resigns}``) and the
result.  Replaying the PGN gives back, ply by ply, the FENs the store
recorded, which are those the server showed (a test checks it with
``ficsfen fens`` and python-chess).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

from ficsfen.fen import STARTING_FEN
from ficsfen.server.game_values import EndCode
from ficsfen.server.openings import stored_eco
from ficsfen.server.store import StoredGame
from ficsfen.server.store.rating_reads import GameRatings
from ficsfen.server.variant_games import stored_category

__all__ = ["LINE_WIDTH", "clock_comment", "game_pgn", "termination", "write_games"]

#: PGN's export format keeps movetext lines within 80 characters.
LINE_WIDTH = 79

# PGN's Termination values for FICS's end codes; "normal" for the others.
_TERMINATIONS = {
    EndCode.FLAG: "time forfeit",
    EndCode.TIME_NO_MATERIAL: "time forfeit",
    EndCode.DISCONNECTION: "abandoned",
    EndCode.ADJUDICATED: "adjudication",
    EndCode.ABORTED: "unterminated",
}


def termination(game: StoredGame) -> str:
    """PGN's ``Termination`` tag for how ``game`` ended."""
    if game.end is None:
        return "unterminated"
    return _TERMINATIONS.get(game.end.code, "normal")


def clock_comment(ms: int) -> str:
    """``[%clk 0:04:58]`` for a clock of ``ms`` milliseconds (below zero shows 0).

    Tenths and milliseconds are kept when the clock has them
    (``0:04:58.25``), so that a reader gets back the stored clock.
    """
    ms = max(ms, 0)
    seconds, rest = divmod(ms, 1000)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    text = f"{hours}:{minutes:02d}:{seconds:02d}"
    if rest:
        text += f".{rest:03d}".rstrip("0")
    return f"[%clk {text}]"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _category(game: StoredGame) -> str:
    return stored_category(game.start)


def _tags(game: StoredGame, site: str, ratings: GameRatings | None = None
          ) -> list[tuple[str, str]]:
    start = game.start
    when = time.gmtime(start.started)
    result = game.end.result if game.end is not None else "*"
    rated = "rated" if start.rated else "unrated"
    untimed = start.initial_seconds == 0 and start.increment_seconds == 0
    tags = [
        ("Event", f"{site} {rated} {_category(game)} game"),
        ("Site", site),
        ("Date", time.strftime("%Y.%m.%d", when)),
        ("Round", "-"),
        ("White", start.white),
        ("Black", start.black),
        ("Result", result),
        *((("WhiteElo", str(ratings.white)),) if ratings is not None and ratings.white else ()),
        *((("BlackElo", str(ratings.black)),) if ratings is not None and ratings.black else ()),
        ("TimeControl", "-" if untimed else f"{start.initial_seconds}+{start.increment_seconds}"),
        ("UTCDate", time.strftime("%Y.%m.%d", when)),
        ("UTCTime", time.strftime("%H:%M:%S", when)),
    ]
    if start.fen != STARTING_FEN:
        tags += [("SetUp", "1"), ("FEN", start.fen)]
    if start.variant != "chess":
        tags.append(("Variant", start.variant))
    eco = stored_eco(game)
    if eco is not None:
        tags.append(("ECO", eco))
    tags.append(("Termination", termination(game)))
    return tags


def _tokens(game: StoredGame) -> list[str]:
    """The movetext, one token per item: move numbers, moves, comments, the result."""
    fields = game.start.fen.split()
    white_to_move = fields[1] == "w"
    number = int(fields[5])
    timed = not (game.start.initial_seconds == 0 and game.start.increment_seconds == 0)
    tokens: list[str] = []
    after_comment = False
    for move in game.moves:
        if white_to_move:
            tokens.append(f"{number}.")
        elif not tokens or after_comment:
            tokens.append(f"{number}...")
        tokens.append(move.san)
        after_comment = timed
        if timed:
            tokens.append("{" + clock_comment(move.white_ms if white_to_move else move.black_ms)
                          + "}")
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    result = game.end.result if game.end is not None else "*"
    if game.end is not None and game.end.reason:
        tokens.append("{" + game.end.reason.replace("}", ")") + "}")
    tokens.append(result)
    return tokens


def _wrap(tokens: list[str], width: int = LINE_WIDTH) -> list[str]:
    lines: list[str] = []
    line = ""
    for token in tokens:
        # a comment may hold spaces; it is split only where it must be
        for word in token.split(" ") if len(token) > width else [token]:
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def game_pgn(game: StoredGame, *, site: str = "ficsfen", ratings: GameRatings | None = None) -> str:
    """``game`` as one PGN game, ending with a blank line; ``WhiteElo``/``BlackElo`` from
    ``ratings`` (each player's rating as the game started), left out when none was kept."""
    head = [f'[{name} "{_escape(value)}"]' for name, value in _tags(game, site, ratings)]
    return "\n".join([*head, "", *_wrap(_tokens(game)), "", ""])


def write_games(games: Iterable[StoredGame], out: TextIO, *, site: str = "ficsfen",
                ratings: Callable[[Iterable[int]], Mapping[int, GameRatings]] | None = None
                ) -> int:
    """Write every game of ``games`` to ``out`` as PGN; returns how many.  ``ratings(ids)``
    (the store's ``game_ratings``) gives the ratings kept with games."""
    count = 0
    for game in games:
        kept = ratings([game.id]).get(game.id) if ratings is not None else None
        out.write(game_pgn(game, site=site, ratings=kept))
        count += 1
    return count
