"""The end of a rated game: both new ratings, what the store writes, what the players read.

:func:`rate_end` computes, from both players' ratings as they were before
the game (:class:`~ficsfen.server.ratings.Ratings`), each one's new rating
with :func:`ficsfen.server.glicko.update`; the result (:class:`RatedEnd`)
goes into the store with the game's end, in the same transaction
(``IStore.end_game``), and only once that is committed are the players told
(:func:`adjustment_line`, FICS's ``Blitz rating adjustment: 1720 --> 1838``)
and the online ratings replaced.

Who may play rated (:func:`rated_terms`): both players registered, a timed
game in a rated category.  Nothing here writes to anyone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ficsfen.i18n import Message, msg
from ficsfen.server.challenges import ChallengeError
from ficsfen.server.clock import TimeControl
from ficsfen.server.glicko import Category, GlickoConstants, Rating, update
from ficsfen.server.parsed import parsed
from ficsfen.server.ratings import CATEGORY_TITLES, Ratings, category_of
from ficsfen.server.store.rating_rows import RatingWrite

__all__ = ["GameRating", "RatedEnd", "RatedRefusedError", "RatingChange", "adjustment_line",
           "no_adjustment_line", "rate_end", "rated_offer", "rated_terms", "score_of"]

_SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def score_of(result: str) -> tuple[float, float] | None:
    """(White's score, Black's) of a game's result, ``None`` for ``*`` (no rating changes)."""
    return _SCORES.get(result)


@dataclass(frozen=True)
class RatingChange:
    """One player's rating in a category before and after a rated game."""

    handle: str
    category: Category
    before: Rating
    after: Rating

    @property
    def change(self) -> float:
        """New rating minus old (what ``games.white_change``/``black_change`` keep)."""
        return self.after.rating - self.before.rating

    @property
    def row(self) -> RatingWrite:
        return RatingWrite(self.handle, self.category, self.after)


@dataclass(frozen=True)
class RatedEnd:
    """Both players' rating changes of a rated game's end."""

    white: RatingChange
    black: RatingChange

    @property
    def rows(self) -> tuple[RatingWrite, RatingWrite]:
        return self.white.row, self.black.row


def rate_end(category: Category, white: tuple[str, Rating], black: tuple[str, Rating],
             result: str, when: float, constants: GlickoConstants) -> RatedEnd | None:
    """Both new ratings of a game in ``category`` that ended with ``result`` at ``when``
    (Unix time), from each player's (handle, rating before the game); ``None`` for an
    unfinished result (``*``: aborted, adjourned), which changes nothing."""
    scores = score_of(result)
    if scores is None:
        return None
    (white_handle, white_before), (black_handle, black_before) = white, black
    white_after = update(white_before, black_before, scores[0], when, constants)
    black_after = update(black_before, white_before, scores[1], when, constants)
    return RatedEnd(RatingChange(white_handle, category, white_before, white_after),
                    RatingChange(black_handle, category, black_before, black_after))


def rated_terms(time_control: TimeControl, variant: str | None, *, registered: bool) -> bool:
    """Whether a game on these terms between these players can be rated: both
    ``registered`` and the game in a rated category (:func:`category_of`)."""
    return registered and category_of(time_control, variant) is not None


class RatedRefusedError(ChallengeError):
    """A guest asked for a rated game (FICS rates only registered players' games)."""


def rated_offer(asked: bool | None, *, default: bool, registered: bool,
                opponent_registered: bool | None, time_control: TimeControl,
                variant: str | None) -> bool:
    """Whether an offer or a seek is rated: as ``asked`` (``rated``/``unrated`` typed),
    else as the player's ``rated`` variable (``default``), and only between registered
    players in a rated category; ``opponent_registered`` is ``None`` for a seek (anyone
    may answer it: :func:`rated_terms` is checked again then).  Like the lasker server,
    an offer to a guest is made unrated.

    :raises RatedRefusedError: an unregistered player asked for a rated game.
    """
    if asked and not registered:
        raise RatedRefusedError(msg("Unregistered players cannot play rated games."))
    wanted = default if asked is None else asked
    return bool(wanted and registered and opponent_registered is not False
                and category_of(time_control, variant) is not None)


def _shown(rating: Rating) -> int:
    return round(rating.rating)


def adjustment_line(change: RatingChange) -> Message:
    """FICS's ``Blitz rating adjustment: 1720 --> 1838`` for the player of ``change``
    (a line clients parse: rendered in the session's parsed language)."""
    before = change.before
    return parsed(msg("{category} rating adjustment: {old} --> {new}",
                      category=CATEGORY_TITLES[change.category], old=_shown(before),
                      new=_shown(change.after)))


def no_adjustment_line() -> Message:
    """FICS's line to both players of a game that ended unrated."""
    return parsed(msg("No ratings adjustment done."))


class GameRating:
    """The ratings side of the games a server hosts, between its
    :class:`~ficsfen.server.ratings.Ratings` and each
    :class:`~ficsfen.server.games.PlayedGame`.

    A game carries ``rated`` (bool), ``rating_category`` (a :class:`Category` or
    ``None``) and ``start_ratings`` (both players' ratings as it started or
    resumed, ``None`` for a guest): :meth:`start` sets them, :meth:`resumed`
    refreshes the ratings; :meth:`rate` computes a rated end (the journal
    writes it with the end); :meth:`committed` applies it once committed and
    gives each player's line.  ``wall`` gives Unix time.
    """

    def __init__(self, ratings: Ratings, *, wall: Callable[[], float]) -> None:
        self.ratings = ratings
        self.wall = wall

    def start(self, game: Any, *, rated: bool, variant: str | None) -> None:
        """Mark the new ``game`` rated if ``rated`` was agreed and both players are
        registered and online (:meth:`Ratings.rating`), in a rated category."""
        category = category_of(game.time_control, variant)
        game.rating_category = category
        self.resumed(game)
        white, black = game.start_ratings
        game.rated = bool(rated and category is not None and white is not None
                          and black is not None)

    def resumed(self, game: Any) -> None:
        """Both players' ratings as the game starts or resumes (the fallback of :meth:`rate`)."""
        category = game.rating_category
        if category is None:
            game.start_ratings = (None, None)
            return
        game.start_ratings = (self.ratings.rating(game.white, category),
                              self.ratings.rating(game.black, category))

    def start_values(self, game: Any) -> tuple[int | None, int | None]:
        """What the store keeps of both ratings at the start: the rounded rating, 0 for a
        category never played (FICS's ``----``), ``None`` for a guest."""
        return tuple(None if r is None else (round(r.rating) if r.total else 0)  # type: ignore[return-value]
                     for r in game.start_ratings)

    def rate(self, game: Any, result: Any, when: float | None = None) -> RatedEnd | None:
        """The rating changes of ``game``'s end with ``result`` (a ``GameResult``) at
        ``when`` (Unix time; ``None``: now), from the ratings before it: ``None`` if
        unrated, adjourned or aborted."""
        category = game.rating_category
        if not getattr(game, "rated", False) or category is None or result.adjourned:
            return None
        before = []
        for handle, at_start in zip((game.white, game.black), game.start_ratings):
            rating = self.ratings.rating(handle, category) or at_start
            if rating is None:  # neither online nor known: never rated (a restored game)
                return None
            before.append((handle, rating))
        return rate_end(category, before[0], before[1], result.score,
                        self.wall() if when is None else when, self.ratings.constants)

    def committed(self, game: Any, result: Any) -> dict[str, Message]:
        """``game``'s end is committed: the new ratings replace the online ones; each
        player's line (their rating adjustment, else FICS's "No ratings adjustment done.";
        nothing for an adjournment)."""
        if result.adjourned:
            return {}
        rated: RatedEnd | None = getattr(game, "rated_end", None)
        if rated is None:
            return {game.white: no_adjustment_line(), game.black: no_adjustment_line()}
        lines = {}
        for change in (rated.white, rated.black):
            self.ratings.changed(change.handle, change.category, change.after)
            lines[change.handle] = adjustment_line(change)
        return lines
