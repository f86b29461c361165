"""Who and when: ``date`` and ``finger [HANDLE]``.

Both read time from a ``now()`` callable the server hands them (its
reactor's clock), so tests drive them with a fake clock.  ``date`` is
pychess's keep-alive: it answers at once, with FICS's layout.  ``finger``
shows what a client and a person want to know about a player: whether they
are here (or when they left), their game, and how they connect (interface,
timeseal, lag), their rating table (:mod:`ficsfen.server.rating_table`: the
online ratings, else those read with an absent player's settings), then their
notes (``set 1 TEXT``).  Dates are shown in the
caller's time zone (``set tzone``).  Clients read both (pychess reads
``finger`` from ``Finger of`` to ``Timeseal``): an interface gets FICS's
English, a person their own language, in the same columns
(:mod:`ficsfen.server.parsed`).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence

from twisted.internet.defer import Deferred, succeed

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, language_name, msg, msgn
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.accounts import ACCOUNT_RATINGS
from ficsfen.server.commands.notes import note_lines
from ficsfen.server.rating_table import TABLE_HEADER, rating_rows
from ficsfen.server.interfaces import IExaminedGame, IServerCaller, IServerDirectory
from ficsfen.server.parsed import parsed
from ficsfen.server.zones import fics_date

__all__ = ["DateCommand", "FingerCommand", "fics_date", "online_for"]

#: ``date``'s labels, padded to one width in every language.
_DATE_LABELS = (parsed(msg("Local time")), parsed(msg("Server time")), parsed(msg("GMT")))
_DATE_LABEL_WIDTH = 15


class DateCommand(Command):
    """``date``: the time in the player's zone (``set tzone``), the server's and GMT, as
    FICS prints it."""

    name = "date"
    spec = ""
    usage = msg("date")

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        now = self.now()
        lang = caller.parsed_lang  # scripts and clients read these lines
        dates = (fics_date(now, caller.tzone, lang=lang), fics_date(now, lang=lang),
                 fics_date(now, utc=True, lang=lang))
        caller.send("\n".join(f"{label.render(lang):<{_DATE_LABEL_WIDTH}}- {date}"
                              for label, date in zip(_DATE_LABELS, dates)))


def days_hours_minutes_seconds(seconds: float) -> tuple[int, int, int, int]:
    """``seconds`` (a negative one as 0) in whole days, hours, minutes and seconds."""
    days, rest = divmod(max(int(seconds), 0), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return days, hours, minutes, secs


def online_for(seconds: float) -> Message:
    """A duration in words, largest units first (``1 hr 5 mins``)."""
    days, hours, minutes, secs = days_hours_minutes_seconds(seconds)
    total = days or hours or minutes or secs
    parts = [msgn("{count} day", "{count} days", days) if days else None,
             msgn("{count} hr", "{count} hrs", hours) if hours else None,
             msgn("{count} min", "{count} mins", minutes) if minutes else None,
             msgn("{count} sec", "{count} secs", secs) if secs or not total else None]
    shown = [p for p in parts if p is not None][:2]
    return msg("{first} {second}", first=shown[0], second=shown[1]) if len(shown) > 1 else shown[0]


class FingerCommand(Command):
    """``finger [HANDLE]``: a player's status and connection, FICS's layout."""

    name = "finger"
    spec = "o"
    usage = msg("finger [HANDLE]")

    def __init__(self, *, now: Callable[[], float] = time.time,
                 last_seen: Mapping[str, float] | None = None,
                 registered: Callable[[str], Deferred[bool]] = lambda name: succeed(False),
                 saved: Callable[[str], Deferred[dict[str, Any]]] = lambda name: succeed({}),
                 ratings: Callable[[str], Mapping[Any, Any] | None] = lambda name: None
                 ) -> None:
        self.now = now
        self.last_seen = last_seen if last_seen is not None else {}
        #: Whether a name has an account, read off the reactor thread.
        self.registered = registered
        #: A registered player's saved settings (their notes, their ratings), read off the
        #: reactor thread.
        self.saved = saved
        #: An online player's ratings (``Category`` -> ``Rating``), ``None`` for a guest.
        self.ratings = ratings

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        """The answer at once for someone logged in; else a Deferred: the account is read."""
        if who is None:
            caller.send(self.online(caller, caller, directory))
            return None
        try:
            target = caller.players.anywhere(who)
        except NameResolutionError as e:
            error = e.message

            def answer(registered: bool) -> Any:
                if not registered:
                    caller.send(error)
                    return None
                return self.saved(who).addCallback(
                    lambda data: caller.send(self.offline(caller, who, _saved_notes(data),
                                                          data.get(ACCOUNT_RATINGS) or {})))

            return self.registered(who).addCallback(answer)
        caller.send(self.online(caller, target, directory))
        return None

    def offline(self, caller: IServerCaller, name: str, notes: Sequence[str] = (),
                ratings: Mapping[Any, Any] | None = None) -> str:
        seen = self.last_seen.get(fold(name))
        lines = [caller.render(parsed(msg("Finger of {handle}:", handle=name))), ""]
        if seen is None:
            lines.append(caller.render(parsed(msg("{handle} is not logged in.", handle=name))))
        else:
            lines.append(caller.render(parsed(msg("Last disconnected: {date}", date=fics_date(
                seen, caller.tzone, lang=caller.parsed_lang)))))
        return "\n".join(lines + _table(caller, ratings or {}) + note_lines(notes))

    def online(self, caller: IServerCaller, target: IServerCaller,
               directory: IServerDirectory) -> str:
        # Clients read it all ("Finger of NAME:" to the Timeseal line, pychess):
        # FICS's English for an interface, the caller's language for a person.
        render = caller.render
        lines = [render(parsed(msg("Finger of {handle}:", handle=target.display_name()))), "",
                 render(parsed(msg("On for: {duration}",
                                   duration=online_for(self.now() - target.login_time))))]
        game = directory.game_of(target.handle)
        if IExaminedGame.providedBy(game):
            lines.append(render(parsed(msg("(examining game {number})", number=game.number))))
        elif game is not None:
            lines.append(render(parsed(msg("(playing game {number}: {white} vs. {black})",
                                           number=game.number, white=game.white,
                                           black=game.black))))
        lines.append("")
        if not target.registered:
            lines += [render(parsed(msg("{handle} is NOT a registered player.",
                                        handle=target.handle))), ""]
        else:
            table = _table(caller, self.ratings(target.handle) or {})
            lines += [*table[1:], ""] if table else []
        # The labels end in one column in English; the values start in one in French.
        lines.append(render(parsed(msg("Language   : {language}",
                                       language=language_name(target.lang)))))
        if target.interface:
            lines.append(render(parsed(msg("Interface  : \"{interface}\"",
                                           interface=target.interface))))
        if target.timeseal:
            lines.append(render(parsed(msg("Lag        : {lag} ms", lag=target.lag_ms))))
        lines.append(render(parsed(msg("Timeseal   : On") if target.timeseal
                                   else msg("Timeseal   : Off"))))
        if caller.admin and target.host:  # operators see where a player connects from
            lines.append(render(msg("Address    : {address}", address=target.host)))
        return "\n".join(lines + note_lines(target.notes))


def _table(caller: IServerCaller, ratings: Mapping[Any, Any]) -> list[str]:
    """A blank line, the header and the rows of the categories played; nothing if none."""
    rows = rating_rows(ratings)
    return ["", caller.render(TABLE_HEADER), *rows] if rows else []


def _saved_notes(data: Mapping[str, Any]) -> list[str]:
    """The finger notes among a player's saved settings (strings only)."""
    kept = data.get("notes")
    return [n if isinstance(n, str) else "" for n in kept] if isinstance(kept, list) else []
