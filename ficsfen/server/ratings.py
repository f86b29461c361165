"""The ratings of the players online, and how FICS writes a rating.

:class:`Ratings` keeps each online registered player's :class:`~ficsfen.server.glicko.Rating`
per category, put there as they log in (read with their saved settings) and
replaced once a rated game's end is committed.  Everything that shows a
rating (``who``, ``games``, seeks, game lines, ``finger``) asks it; nothing
else holds ratings.  A guest has none: FICS writes ``++++``; a registered
player with no rated game in a category ``----``.

FICS's texts print the four characters alone (the lasker server's
``ratstrii``); the machine-readable lists (``who I``, ``<wa>``) add a mark
after each rating: ``P`` for a provisional one (never played, or an RD
above the constants' ``active_rd``, 80), a space for an established one.
FICS's third mark, ``E`` (a rating it estimated, such as one carried over
from another server), never applies here: every rating is played.

:func:`category_of` says in which category a game is rated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ficsfen.names import fold
from ficsfen.server.clock import TimeControl
from ficsfen.server.glicko import Category, GlickoConstants, Rating

__all__ = ["CATEGORY_OF_TYPE", "CATEGORY_TITLES", "GUEST_TEXT", "NO_GAMES_TEXT", "Ratings",
           "category_of", "rating_text"]

#: A guest's rating, as FICS writes it.
GUEST_TEXT = "++++"
#: A registered player's rating in a category they have not played rated.
NO_GAMES_TEXT = "----"
#: The marks of ``who I`` and ``<wa>`` after a rating.

#: FICS's name of each category in ``finger`` and the rating adjustment lines.
CATEGORY_TITLES: dict[Category, str] = {
    Category.BLITZ: "Blitz", Category.STANDARD: "Standard", Category.LIGHTNING: "Lightning",
    Category.WILD: "Wild", Category.CRAZYHOUSE: "Crazyhouse"}

#: FICS's type words that have a rating category here (``untimed`` has none).
CATEGORY_OF_TYPE: dict[str, Category] = {
    "lightning": Category.LIGHTNING, "blitz": Category.BLITZ, "standard": Category.STANDARD,
    "crazyhouse": Category.CRAZYHOUSE, "wild/fr": Category.WILD, "wild": Category.WILD,
}
_VARIANT_CATEGORIES = {"wild/fr": Category.WILD, "crazyhouse": Category.CRAZYHOUSE}


def category_of(time_control: TimeControl, variant: str | None = None) -> Category | None:
    """The category a game of ``time_control`` and ``variant`` (FICS's type name,
    ``wild/fr``, ``crazyhouse``; ``None`` for chess) is rated in: the variant's, else
    the speed the clock gives (:attr:`TimeControl.category`).  ``None``: the game
    cannot be rated (untimed, or a variant without a rating here)."""
    if variant is not None:
        return _VARIANT_CATEGORIES.get(variant)
    speed = time_control.category
    return None if speed == "untimed" else Category(speed)


def rating_text(rating: Rating | None, *, registered: bool) -> str:
    """FICS's four characters for a rating: the rounded value, ``----`` for a registered
    player with no rated game in the category, ``++++`` for a guest."""
    if not registered:
        return GUEST_TEXT
    if rating is None or rating.total == 0:
        return NO_GAMES_TEXT
    return f"{round(rating.rating):4d}"



class Ratings:
    """The online players' ratings, by folded handle and category.

    ``registered(handle)`` says whether a handle is a registered player
    online (guests have no rating); ``constants`` are the system's
    (``[ratings]``).
    """

    def __init__(self, constants: GlickoConstants, registered: Callable[[str], bool]) -> None:
        self.constants = constants
        self._registered = registered
        self._online: dict[str, dict[Category, Rating]] = {}
        #: Counts the changes to the ratings online (``who``'s cached answers depend on it).
        self.changes = 0
        #: The ratings of a player of another node of a cluster (folded handle -> played
        #: ratings, or None); None when the server is alone.
        self.elsewhere: Callable[[str], Mapping[Category, Rating] | None] | None = None
        #: Told ``handle`` whenever a rated game's end changed their rating.
        self.listeners: list[Callable[[str], None]] = []

    def _of(self, handle: str) -> Mapping[Category, Rating] | None:
        key = fold(handle)
        ratings = self._online.get(key)
        if ratings is None and self.elsewhere is not None:
            return self.elsewhere(key)
        return ratings

    def arrived(self, handle: str, ratings: Mapping[Category, Rating]) -> None:
        """``handle`` logged in with these stored ratings (categories never played left out)."""
        self._online[fold(handle)] = dict(ratings)
        self.changes += 1

    def departed(self, handle: str) -> None:
        """``handle`` left: their ratings are the store's alone again."""
        self._online.pop(fold(handle), None)

    def changed(self, handle: str, category: Category, rating: Rating) -> None:
        """A rated game's end was committed: ``handle``'s new rating in ``category``."""
        ratings = self._online.get(fold(handle))
        if ratings is not None:
            ratings[category] = rating
            self.changes += 1
            for listener in self.listeners:
                listener(handle)

    def rating(self, handle: str, category: Category) -> Rating | None:
        """``handle``'s rating in ``category``: the initial one if they never played it,
        ``None`` for a guest or a player not online."""
        ratings = self._of(handle)
        if ratings is None:
            return None
        return ratings.get(category) or Rating.initial(self.constants)

    def stored(self, handle: str) -> dict[Category, Rating] | None:
        """``handle``'s played ratings by category (a copy), ``None`` if not online."""
        ratings = self._of(handle)
        return None if ratings is None else dict(ratings)


    def text(self, handle: str, category: Category) -> str:
        """FICS's four characters for ``handle``'s rating in ``category`` (:func:`rating_text`)."""
        ratings = self._of(handle)
        if ratings is None:
            return rating_text(None, registered=self._registered(handle))
        return rating_text(ratings.get(category), registered=True)
