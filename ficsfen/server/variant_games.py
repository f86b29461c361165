"""Played games in the variants FICS plays here: ``wild/fr`` (Chess960) and ``crazyhouse``.

FICS names a game's type with one word: its speed (``blitz``) for chess, the
variant (``crazyhouse``, ``wild/fr``) otherwise; ``Creating:``, ``match`` and
``<g1>`` lines carry that word and clients read it (pychess's ``([^ ]+)``).
The rules are :mod:`ficsfen.variants`' (python-chess's boards); this module
only maps FICS's words to them, picks a start, and builds the ``<b1>``
holdings lines FICS sends after a crazyhouse board.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import chess
import chess.variant

from ficsfen.names import fold
from ficsfen.server.clock import TimeControl
from ficsfen.variants import CHESS960, CRAZYHOUSE, Variant, chess960_fen, variant_named

if TYPE_CHECKING:  # the store imports this module
    from ficsfen.interfaces import IGame
    from ficsfen.server.store.records import GameStart

__all__ = [
    "FICS_TYPES",
    "VARIANT_WORDS",
    "category_letter",
    "fics_type",
    "holdings_line",
    "holdings_text",
    "received_line",
    "start_fen",
    "stored_category",
    "stored_name",
    "stored_variant",
    "variant_word",
]

#: FICS's variant words (``seek``, ``match``) to the type name its lines use.
VARIANT_WORDS = {
    "zh": "crazyhouse", "crazyhouse": "crazyhouse", "suicide": "suicide",
    "losers": "losers", "atomic": "atomic", "bughouse": "bughouse", "fr": "wild/fr",
}

#: The FICS types a game can be played in here, to their rules.
FICS_TYPES: dict[str, Variant] = {"crazyhouse": CRAZYHOUSE, "wild/fr": CHESS960}
_TYPE_OF = {variant.name: name for name, variant in FICS_TYPES.items()}
#: ``games /z`` and the ``[ zu  3   0]`` column: FICS's letter per type.
_LETTERS = {"crazyhouse": "z", "wild/fr": "w"}


def variant_word(word: str, words: list[str], i: int) -> tuple[str | None, int]:
    """The FICS type ``word`` names (``zh``, ``fr``, ``wild fr``, ``w5``) and the index
    of the next word (``wild`` takes the word after it); ``None`` if it names none.

    ``word`` is already case-folded; ``words[i]`` is the word after it.
    """
    name = VARIANT_WORDS.get(word)
    if name is None and word == "wild" and i < len(words):
        return f"wild/{fold(words[i])}", i + 1
    if name is None and word.startswith("w") and word[1:].isascii() and word[1:].isdigit():
        name = f"wild/{int(word[1:])}"
    return name, i


def fics_type(variant: Variant | None) -> str | None:
    """The FICS type name of a tracker's variant (``None`` for chess)."""
    return None if variant is None else _TYPE_OF[variant.name]


def category_letter(type_name: str) -> str:
    """FICS's one-letter category of a type name (``b``, ``s``, ``z``, ``w``...)."""
    return _LETTERS.get(type_name, type_name[:1])


def start_fen(type_name: str, rng: random.Random) -> str:
    """The start of a new game of ``type_name``: a random one of the 960 for ``wild/fr``."""
    variant = FICS_TYPES[type_name]
    if variant.chess960:
        return chess960_fen(rng.randrange(960))
    return variant.starting_fen


def stored_name(variant: Variant | None) -> str:
    """What the store's ``variant`` column holds: ``chess``, or the PGN tag's name."""
    return "chess" if variant is None else variant.title


def stored_variant(name: str) -> Variant | None:
    """The variant a stored ``variant`` column names (``chess`` is ``None``)."""
    return None if name == "chess" else variant_named(name)


def stored_category(start: GameStart) -> str:
    """FICS's type word of a stored game (a store ``GameStart``): variant, else speed."""
    return (fics_type(stored_variant(start.variant))
            or TimeControl(start.initial_seconds // 60, start.increment_seconds).category)


_HELD_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def holdings_text(pocket: chess.variant.CrazyhousePocket) -> str:
    """A crazyhouse hand as FICS writes it: capitals, pawns first (``PPNQ``)."""
    return "".join(chess.piece_symbol(p).upper() * pocket.count(p) for p in _HELD_ORDER)


def holdings_line(game: IGame) -> str:
    """FICS's ``<b1> game N white [PN] black [Q]`` line (letters in capitals, pawns first)."""
    pockets = game.tracker.board.pockets
    return (f"<b1> game {game.number} white [{holdings_text(pockets[chess.WHITE])}] "
            f"black [{holdings_text(pockets[chess.BLACK])}]")


def _hand(fen: str) -> str:
    placement = fen.split(" ", 1)[0]
    return placement[placement.index("[") + 1:-1]


def received_line(game: IGame) -> str | None:
    """The ``<b1> ... <- WP`` line FICS sends when the last move put a piece in a hand.

    ``WP``: White received a pawn.  ``None`` when the last move captured nothing.
    """
    tracker = game.tracker
    last = tracker.last_ply
    if last is None or last.move.drop is not None:
        return None
    before, after = _hand(tracker.fen_at(last.number - 1)), _hand(last.fen)
    for letter in "PNBRQ":
        mine = letter if last.color == chess.WHITE else letter.lower()
        if after.count(mine) > before.count(mine):
            return f"{holdings_line(game)} <- {'W' if last.color == chess.WHITE else 'B'}{letter}"
    return None
