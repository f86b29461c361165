"""Players' time zones (``set tzone``): names checked with :mod:`zoneinfo`, dates shown in them.

A zone is an IANA name (``Europe/Paris``, ``America/New_York``, ``UTC``) or
one of the abbreviations the time zone database also names (``CET``,
``EST``), matched in any case; ``""`` is the server's own zone.
:func:`fics_date` is FICS's date layout (``Sun Jan  7, 14:22 CET 2024``) in
a zone, English names whatever the language: scripts and clients read it.
"""

from __future__ import annotations

import time
import zoneinfo
from datetime import datetime, tzinfo
from functools import lru_cache

from ficsfen.i18n import LocalizedError, msg

__all__ = ["UnknownZoneError", "fics_date", "server_zone_name", "zone_name"]

# Day and month names, rendered in the reader's language (FICS's English by default).
_DAYS = (msg("Mon"), msg("Tue"), msg("Wed"), msg("Thu"), msg("Fri"), msg("Sat"), msg("Sun"))
_MONTHS = (msg("Jan"), msg("Feb"), msg("Mar"), msg("Apr"), msg("May"), msg("Jun"), msg("Jul"),
           msg("Aug"), msg("Sep"), msg("Oct"), msg("Nov"), msg("Dec"))
#: The longest zone name read (IANA names are far shorter).
_MAX_NAME = 64


class UnknownZoneError(LocalizedError, ValueError):
    """A word that names no time zone; :attr:`message` says what to give."""


@lru_cache(maxsize=1)
def _known() -> dict[str, str]:
    """Every zone name of the database, by its lower-case spelling (read once)."""
    return {name.lower(): name for name in zoneinfo.available_timezones()}


def zone_name(word: str) -> str:
    """The database's spelling of the zone ``word`` names (any case); ``""`` for ``""``.

    :raises UnknownZoneError: no such zone.
    """
    if not word:
        return ""
    name = _known().get(word.lower()) if len(word) <= _MAX_NAME else None
    if name is None:
        raise UnknownZoneError(msg(
            "Unknown time zone \"{zone}\": give a name such as Europe/Paris, America/New_York "
            "or UTC.", zone=word[:_MAX_NAME]))
    return name


@lru_cache(maxsize=256)
def _zone(name: str) -> tzinfo:
    return zoneinfo.ZoneInfo(name)


def server_zone_name() -> str:
    """The server's own zone as its clock names it now (``CET``, ``UTC``...)."""
    return time.strftime("%Z", time.localtime())


def fics_date(seconds: float, zone: str = "", *, utc: bool = False, lang: str = "en") -> str:
    """``Sun Jan  7, 14:22 CET 2024``: ``seconds`` (Unix time) in ``zone`` (``""``: the
    server's own), or in GMT with ``utc``.  An unknown ``zone`` counts as the server's.
    Day and month are named in ``lang`` (FICS's English by default), the layout kept."""
    if utc:
        stamp = time.gmtime(seconds)
        hour, minute, label = stamp.tm_hour, stamp.tm_min, "GMT"
        wday, mon, mday, year = stamp.tm_wday, stamp.tm_mon, stamp.tm_mday, stamp.tm_year
    else:
        try:
            when = datetime.fromtimestamp(seconds, _zone(zone)) if zone else None
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            when = None
        if when is None:
            stamp = time.localtime(seconds)
            hour, minute, label = stamp.tm_hour, stamp.tm_min, time.strftime("%Z", stamp)
            wday, mon, mday, year = stamp.tm_wday, stamp.tm_mon, stamp.tm_mday, stamp.tm_year
        else:
            hour, minute, label = when.hour, when.minute, when.strftime("%Z")
            wday, mon, mday, year = when.weekday(), when.month, when.day, when.year
    return (f"{_DAYS[wday].render(lang)} {_MONTHS[mon - 1].render(lang)} {mday:>2}, "
            f"{hour:02d}:{minute:02d} {label} {year}")
