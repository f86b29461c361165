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
- ``c``: how fast the RD grows while a player does not play.  With
  ``rd_growth = "linear"`` (the paper's Step 1)
  ``RD = min(sqrt(RD^2 + c^2 t), rd_max)``; with ``"log"`` (FICS's servers)
  ``RD = min(sqrt(RD^2 + c^2 ln(1 + t)), rd_max)``; ``t`` is the time since
  the last rated game counted in ``period`` seconds (a day for the paper, a
  minute on FICS);
- ``min_k``: FICS's smallest factor ``K`` in ``change = K (score - E)``
  (16 since 1997; 0 for the paper's formula unchanged);
- ``active_rd``: the largest RD of an established ("active") rating: FICS
  counts a best rating, and lists a player in ``best`` and ``rank``, only
  at an RD of at most 80; above it a rating is provisional (350 by default:
  every rating played counts).

Nothing here imports Twisted or the store: pure values and arithmetic.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

__all__ = ["Category", "FICS_CONSTANTS", "GameScore", "GlickoConstants", "Rating", "aged_rd", "expected",
           "g", "update", "update_period"]

#: ``q = ln(10) / 400`` of the paper.
Q = math.log(10) / 400


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
    rd_growth: str = "linear"
    period: float = 86400.0
    active_rd: float = 350.0

    def __post_init__(self) -> None:
        if not 0 < self.rd_max:
            raise ValueError("rd_max must be positive")
        if not 0 <= self.rd_min <= self.rd_max:
            raise ValueError("rd_min must be between 0 and rd_max")
        if not 0 < self.initial_rd <= self.rd_max:
            raise ValueError("initial_rd must be positive and at most rd_max")
        if self.c < 0 or self.min_k < 0:
            raise ValueError("c and min_k must not be negative")
        if self.rd_growth not in ("linear", "log"):
            raise ValueError("rd_growth must be \"linear\" or \"log\"")
        if not 0 < self.period:
            raise ValueError("period must be positive")
        if not 0 <= self.active_rd:
            raise ValueError("active_rd must not be negative")

    def established(self, rating: Rating) -> bool:
        """Whether ``rating`` is established (FICS's "active"): played, RD at most ``active_rd``."""
        return rating.total > 0 and rating.rd <= self.active_rd


#: FICS's constants (``docs/operations.md`` says where each comes from): a new
#: player's first game is computed from 1720 with an RD of 350 (``help
#: glicko``); the RD grows as ``sqrt(RD^2 + 1.483^2 ln(1 + t))`` with ``t`` in
#: minutes, at most 350 (the lasker server's ``ratings.c``); ``K`` is at
#: least 16 and an RD of at most 80 is established (``help rating_changes``).
FICS_CONSTANTS = GlickoConstants(initial_rating=1720.0, initial_rd=350.0, rd_max=350.0,
                                 rd_min=0.0, c=1.483, min_k=16.0, rd_growth="log",
                                 period=60.0, active_rd=80.0)


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

    def played(self, rating: float, rd: float, score: float, when: float, *,
               counts_as_best: bool = True) -> Rating:
        """This rating after a game scored ``score`` (1, 0.5, 0) ended at ``when``, its new
        value ``rating`` and ``rd``; the best is kept, and replaced by a higher ``rating``
        if it ``counts_as_best`` (FICS: only an established rating does)."""
        best, best_at = self.best, self.best_at
        if counts_as_best and (best is None or rating > best):
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
    ``min(sqrt(RD^2 + c^2 t), rd_max)`` (Step 1 of the paper), or with
    ``ln(1 + t)`` for ``t`` under ``rd_growth = "log"``, ``t`` counted in
    ``period`` seconds.  A rating never played keeps its RD; a clock that
    went back adds nothing."""
    if last_played is None:
        return min(rd, constants.rd_max)
    periods = max(0.0, now - last_played) / constants.period
    if constants.rd_growth == "log":
        periods = math.log1p(periods)
    return min(math.sqrt(rd * rd + constants.c * constants.c * periods), constants.rd_max)


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
    (``min_k``) and the RD bounds (``rd_min``, ``rd_max``) apply; the best
    rating moves only at an RD of at most ``active_rd``.

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
    return rating.played(new_rating, new_rd, score, when,
                         counts_as_best=new_rd <= constants.active_rd)
