"""A player's rating as each FICS line shows it, for a game's or a seek's type.

Every line that shows a rating (``who``, ``games``, ``sought``, ``<s>``,
``<g1>``, the ``Creating:``/``Challenge:`` lines, ``observe`` headers...)
asks :class:`RatingView` with the FICS type word of its game or seek
(``blitz``, ``lightning``, ``standard``, ``crazyhouse``, ``wild/fr``,
``untimed``).  The four characters come from
:meth:`~ficsfen.server.ratings.Ratings.text` alone; the view adds what
interfaces read beside them:

- ``value``: the number formulas, seek ranges and sort orders use: the
  rounded rating, ``0`` for a player with no rated game in the category and
  for a guest (FICS counts them as 0, so ``seek 5 0 1400-1800`` keeps them
  out while the default range ``0-9999`` lets them in);
- ``mark``: FICS's ``provshow`` character of ``<s>``, ``<g1>`` and ``who I``:
  a blank for an established rating
  (:meth:`~ficsfen.server.glicko.GlickoConstants.established`: RD at most
  ``[ratings] active_rd``, 80 as on FICS), ``E`` (estimated) for one with
  :data:`ESTABLISHED_GAMES` games or more whose RD grew back, ``P``
  (provisional) otherwise, and for no rating.

An ``untimed`` game and the variants kept unrated here (a type with no
:class:`~ficsfen.server.glicko.Category`) show no rating: ``----`` for a
registered player, ``++++`` for a guest, as FICS shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ficsfen.server.glicko import Category, GlickoConstants, Rating
from ficsfen.server.ratings import CATEGORY_OF_TYPE, GUEST_TEXT, NO_GAMES_TEXT, Ratings

__all__ = ["ESTABLISHED_GAMES", "RatingView", "Shown", "category_of",
           "provshow", "rating_value"]

#: Games after which a rating whose RD is 80 or more reads ``E`` rather than ``P``.
ESTABLISHED_GAMES = 20



def category_of(kind: str) -> Category | None:
    """The rating category of FICS's type word ``kind`` (``wild/fr`` is wild); ``None``
    for ``untimed`` and the types rated nowhere here."""
    return CATEGORY_OF_TYPE.get(kind)


def rating_value(rating: Rating | None) -> int:
    """The number ranges and sort orders use: rounded, ``0`` without a rated game."""
    if rating is None or rating.total == 0:
        return 0
    return round(rating.rating)


def provshow(rating: Rating | None, constants: GlickoConstants) -> str:
    """FICS's mark after a rating: blank established, ``E`` estimated, ``P`` provisional."""
    if rating is None or rating.total == 0:
        return "P"
    if constants.established(rating):
        return " "
    return "E" if rating.total >= ESTABLISHED_GAMES else "P"


@dataclass(frozen=True, slots=True)
class Shown:
    """One player's rating in one category, as lines show it (see the module)."""

    text: str
    value: int = 0
    mark: str = "P"

    @property
    def marked(self) -> str:
        """``1500P``: the value and its mark, as ``<s>``, ``<g1>`` and ``who I`` write it."""
        return f"{self.value}{self.mark}"


class RatingView:
    """The ratings of :class:`~ficsfen.server.ratings.Ratings`, by FICS type word."""

    def __init__(self, ratings: Ratings) -> None:
        self.ratings = ratings

    def shown(self, handle: str, kind: str) -> Shown:
        """``handle``'s rating for a game or seek of type ``kind``."""
        category = category_of(kind)
        ratings = self.ratings
        if category is None:
            # No category: nothing to show but whether the player is registered.
            guest = ratings.text(handle, Category.BLITZ) == GUEST_TEXT
            return Shown(GUEST_TEXT if guest else NO_GAMES_TEXT)
        text = ratings.text(handle, category)
        if text == GUEST_TEXT:
            return Shown(text)
        rating = ratings.rating(handle, category)
        return Shown(text, rating_value(rating), provshow(rating, ratings.constants))

    def text(self, handle: str, kind: str) -> str:
        """``handle``'s four characters for type ``kind``."""
        return self.shown(handle, kind).text

    def pair(self, white: str, black: str, kind: str) -> tuple[str, str]:
        """Both players' four characters for a game of type ``kind``."""
        return self.text(white, kind), self.text(black, kind)
