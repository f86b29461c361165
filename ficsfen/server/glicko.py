"""Glicko ratings (Glickman, 1999) as FICS keeps them: values, the update, the display.

The original Glicko system, not Glicko-2.  Each registered player has one
:class:`Rating` per :class:`Category`.  A game is a rating period of its
own, as on FICS: before it, each player's RD grows with the time since
their last rated game (:func:`aged_rd`); after it, :func:`update` gives
each side's new rating and RD from the pre-game values of both.

Constants (:class:`GlickoConstants`, ``[ratings]`` in the configuration):

- ``initial_rating`` 1500 and ``initial_rd`` 350: a player with no game;
- ``rd_max`` 350: the RD never grows past it;
- ``rd_min``: the RD never shrinks below it (FICS keeps a floor so that a
  very active player's rating still moves);
- ``c``: how fast the RD grows while a player does not play,
  ``RD = min(sqrt(RD^2 + c^2 t), rd_max)`` with ``t`` in days;
- ``min_k``: FICS's smallest factor ``K`` in ``change = K (score - E)``
  (16 since 1997; 0 for the paper's formula unchanged).

Nothing here imports Twisted or the store: pure values and arithmetic.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

__all__ = ["Category", "GameScore", "GlickoConstants", "Rating", "aged_rd", "expected",
           "g", "update", "update_period"]

#: ``q = ln(10) / 400`` of the paper.
Q = math.log(10) / 400
_SECONDS_PER_DAY = 86400.0


class Category(enum.Enum):
    """The rating categories: FICS's three speeds of chess, and two variants."""

    LIGHTNING = "lightning"
    BLITZ = "blitz"
    STANDARD = "standard"
    WILD = "wild"  # Chess960 here (FICS's wild fr)
    CRAZYHOUSE = "crazyhouse"


@dataclass(frozen=True)
class GlickoConstants:
    """The system's constants (see the module's documentation).

    :raises ValueError: a constant out of its range (a negative ``c``, an
        ``rd_min`` above ``rd_max``...).
    """

    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    rd_max: float = 350.0
    rd_min: float = 0.0
    c: float = 0.0
    min_k: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.rd_max:
            raise ValueError("rd_max must be positive")
        if not 0 <= self.rd_min <= self.rd_max:
            raise ValueError("rd_min must be between 0 and rd_max")
        if not 0 < self.initial_rd <= self.rd_max:
            raise ValueError("initial_rd must be positive and at most rd_max")
        if self.c < 0 or self.min_k < 0:
            raise ValueError("c and min_k must not be negative")


@dataclass(frozen=True)
class Rating:
    """One player's rating in one category.

    ``last_played`` is the Unix time of the last rated game (``None``: never),
    from which :func:`aged_rd` grows the RD; ``best`` and ``best_at`` the
    highest rating reached and when.
    """

    rating: float
    rd: float
    wins: int = 0
    losses: int = 0
    draws: int = 0
    best: float | None = None
    best_at: float | None = None
    last_played: float | None = None

    @classmethod
    def initial(cls, constants: GlickoConstants) -> Rating:
        """A player's rating before any rated game."""
        return cls(constants.initial_rating, constants.initial_rd)

    @property
    def total(self) -> int:
        """Rated games played."""
        return self.wins + self.losses + self.draws

    def played(self, rating: float, rd: float, score: float, when: float) -> Rating:
        """This rating after a game scored ``score`` (1, 0.5, 0) ended at ``when``, its new
        value ``rating`` and ``rd``; the best is kept."""
        best, best_at = self.best, self.best_at
        if best is None or rating > best:
            best, best_at = rating, when
        return replace(
            self, rating=rating, rd=rd, last_played=when, best=best, best_at=best_at,
            wins=self.wins + (score == 1.0), losses=self.losses + (score == 0.0),
            draws=self.draws + (score == 0.5))


@dataclass(frozen=True)
class GameScore:
    """One game of a rating period: the opponent's rating and RD, and the score (1, 0.5, 0)."""

    opponent: float
    opponent_rd: float
    score: float


def g(rd: float) -> float:
    """The paper's ``g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)``: how much an opponent's
    uncertainty damps what a game against them says."""
    return 1.0 / math.sqrt(1.0 + 3.0 * Q * Q * rd * rd / (math.pi * math.pi))


def expected(rating: float, opponent: float, opponent_rd: float) -> float:
    """The expected score ``E`` against ``opponent`` whose RD is ``opponent_rd``."""
    return 1.0 / (1.0 + 10.0 ** (-g(opponent_rd) * (rating - opponent) / 400.0))


def aged_rd(rd: float, last_played: float | None, now: float, constants: GlickoConstants) -> float:
    """The RD at ``now`` of a rating last played at ``last_played`` (Unix times):
    ``min(sqrt(RD^2 + c^2 t), rd_max)``, ``t`` in days (Step 1 of the paper).
    A rating never played keeps its RD; a clock that went back adds nothing."""
    if last_played is None:
        return min(rd, constants.rd_max)
    days = max(0.0, now - last_played) / _SECONDS_PER_DAY
    return min(math.sqrt(rd * rd + constants.c * constants.c * days), constants.rd_max)


def update_period(rating: float, rd: float, games: Sequence[GameScore]) -> tuple[float, float]:
    """The paper's Step 2: the rating and RD after the ``games`` of one rating period,
    from the pre-period ``rating`` and ``rd`` (already aged, :func:`aged_rd`).

    With no game, both stay as they are.  Glickman's worked example: 1500 with
    RD 200 against 1400/30 (won), 1550/100 (lost), 1700/300 (lost) gives
    about 1464 and 151.4.
    """
    if not games:
        return rating, rd
    d2_inverse = 0.0
    total = 0.0
    for game in games:
        weight = g(game.opponent_rd)
        e = expected(rating, game.opponent, game.opponent_rd)
        d2_inverse += weight * weight * e * (1.0 - e)
        total += weight * (game.score - e)
    d2_inverse *= Q * Q
    precision = 1.0 / (rd * rd) + d2_inverse
    return rating + Q / precision * total, math.sqrt(1.0 / precision)


def update(rating: Rating, opponent: Rating, score: float, when: float,
           constants: GlickoConstants) -> Rating:
    """``rating`` after one game against ``opponent`` (both as they were before it) that
    scored ``score`` (1 win, 0.5 draw, 0 loss) and ended at ``when``.

    Both RDs are aged to ``when`` first; the game is a rating period of its
    own.  FICS's floor on the factor ``K`` of ``change = K (score - E)``
    (``min_k``) and the RD bounds (``rd_min``, ``rd_max``) apply.

    :raises ValueError: ``score`` is not 1, 0.5 or 0.
    """
    if score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game scores 1, 0.5 or 0, not {score!r}")
    rd = aged_rd(rating.rd, rating.last_played, when, constants)
    opponent_rd = aged_rd(opponent.rd, opponent.last_played, when, constants)
    new_rating, new_rd = update_period(rating.rating, rd,
                                       [GameScore(opponent.rating, opponent_rd, score)])
    e = expected(rating.rating, opponent.rating, opponent_rd)
    if constants.min_k and score != e:
        k = (new_rating - rating.rating) / (score - e)
        if k < constants.min_k:
            new_rating = rating.rating + constants.min_k * (score - e)
    new_rd = min(max(new_rd, constants.rd_min), constants.rd_max)
    return rating.played(new_rating, new_rd, score, when)
