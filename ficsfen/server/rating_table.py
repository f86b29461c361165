"""``finger``'s rating table, in FICS's columns.

FICS prints one row per category the player has played rated, under a
header::

              rating     RD      win    loss    draw   total   best
    Blitz      1519     97.0      37      16       0      53   1519 (22-Oct-2014)
    Standard   1722    204.9       2       2       0       4

(the best rating and its date only once one was established, RD at most
80).  Clients (pychess) read the rows by splitting them on spaces, so the
category names and numbers stay FICS's whatever the language; the header
is the reader's.  A player with no rated game has no table.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from ficsfen.i18n import Message, msg
from ficsfen.server.glicko import Category, Rating
from ficsfen.server.parsed import parsed
from ficsfen.server.ratings import CATEGORY_TITLES, rating_text

__all__ = ["TABLE_HEADER", "best_date", "rating_rows", "table_row"]

#: The header; its columns end over the numbers' in English.
TABLE_HEADER: Message = parsed(msg("          rating     RD      win    loss    draw   total   best"))

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: FICS's order of the categories in ``finger``.
_ORDER = (Category.BLITZ, Category.STANDARD, Category.LIGHTNING, Category.WILD,
          Category.CRAZYHOUSE)


def best_date(when: float) -> str:
    """``22-Oct-2014``: the day ``when`` (Unix time) in the server's zone, months in English."""
    stamp = time.localtime(when)
    return f"{stamp.tm_mday:02d}-{_MONTHS[stamp.tm_mon - 1]}-{stamp.tm_year}"


def table_row(category: Category, rating: Rating) -> str:
    """One row: name, rating, RD, wins, losses, draws, total, and the best with its date."""
    row = (f"{CATEGORY_TITLES[category]:<10} {rating_text(rating, registered=True)}"
           f"{rating.rd:9.1f}{rating.wins:8d}{rating.losses:8d}{rating.draws:8d}{rating.total:8d}")
    if rating.best is not None and rating.best_at is not None:
        row += f"   {round(rating.best):4d} ({best_date(rating.best_at)})"
    return row


def rating_rows(ratings: Mapping[Category, Rating]) -> list[str]:
    """The rows of the categories played rated, in FICS's order (none: no row)."""
    return [table_row(c, ratings[c]) for c in _ORDER if c in ratings and ratings[c].total]
