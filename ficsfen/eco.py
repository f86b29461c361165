"""ECO codes of games: the opening a game reached, as FICS's ``history`` names it.

The table (``ficsfen/data/eco.tsv.gz``, 3,500 positions; see
``ficsfen/data/ECO-LICENSE`` and ``tools/eco_table.py``) maps opening
positions, as EPD, to their ECO code.  A game's code is the one of the
*last* position along its moves that the table knows, the way lichess
names openings ("play moves backwards until a named position is found")
and FICS classifies its games: ``1. e4 c5 2. Nf3 d6`` is B50, and stays
B50 whatever is played after the book ends.  Only games of standard chess
from the usual starting position have one.

Pure library code: python-chess and the standard library.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from functools import cache
from importlib import resources

import chess

__all__ = ["MAX_PLIES", "classify", "classify_uci", "eco_table"]

#: How far along a game positions are looked up: the table's longest line is
#: 36 half-moves, and a transposition into it later than twice that is left
#: out (a 300-move game costs no more than a short one).
MAX_PLIES = 72


@cache
def eco_table() -> dict[str, str]:
    """EPD -> ECO code, read once from the shipped table.

    :raises OSError: the table is missing from the installation.
    """
    data = resources.files("ficsfen").joinpath("data/eco.tsv.gz").read_bytes()
    table: dict[str, str] = {}
    for line in gzip.decompress(data).decode("ascii").splitlines():
        epd, _, code = line.partition("\t")
        table[epd] = code
    return table


def classify(moves: Iterable[chess.Move]) -> str | None:
    """The ECO code of a game of standard chess played from the usual start with
    ``moves``, or ``None`` when no position of it is in the table.

    The moves must be legal in turn; an illegal one ends the walk there (the
    code so far stands), and so does the :data:`MAX_PLIES`-th.
    """
    table = eco_table()
    board = chess.Board()
    found: str | None = None
    for ply, move in enumerate(moves):
        if ply >= MAX_PLIES or not board.is_legal(move):
            break
        board.push(move)
        code = table.get(board.epd())
        if code is not None:
            found = code
    return found


def classify_uci(ucis: Iterable[str]) -> str | None:
    """:func:`classify` for moves in UCI (``e2e4``); a malformed one ends the walk."""
    def moves() -> Iterable[chess.Move]:
        for uci in ucis:
            try:
                yield chess.Move.from_uci(uci)
            except ValueError:
                return
    return classify(moves())
