"""A player logged in on another node: the entry its node writes and publishes (presence).

An entry is a small JSON object: handle, registered, language, login time,
the ``set`` variables and lists other nodes check before sending the player
talk (:data:`SHARED_VARIABLES`, channels, censor list), the played ratings
and the status mark of the player's game.  :meth:`RemotePlayer.to_json`
writes it from a local session; :class:`RemotePlayer` reads it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Iterable, Mapping

from ficsfen.server.glicko import Category, Rating

__all__ = ["RemotePlayer", "SHARED_VARIABLES", "ratings_from_json", "ratings_to_json"]

#: The ``set`` variables other nodes read in an entry (``who`` filters, talk filters).
SHARED_VARIABLES = ("open", "rated", "tell", "shout", "cshout", "chanoff")


def ratings_to_json(ratings: Mapping[Category, Rating]) -> dict[str, dict[str, Any]]:
    """A player's played ratings as an entry carries them (category name -> fields)."""
    return {category.value: asdict(rating) for category, rating in ratings.items()}


def ratings_from_json(data: Any) -> dict[Category, Rating]:
    """What :func:`ratings_to_json` wrote (what does not read as a rating is left out)."""
    ratings: dict[Category, Rating] = {}
    if isinstance(data, dict):
        for name, fields in data.items():
            try:
                ratings[Category(name)] = Rating(**fields)
            except (TypeError, ValueError):
                continue
    return ratings


class RemotePlayer:
    """A player logged in on another node, as that node describes them.

    Read-only; it answers what ``who``, ``finger`` and the talk commands ask a
    session (``handle``, ``registered``, ``variables``, ``display_name()``...).
    ``login_time`` is Unix time; ``censor`` the folded handles they censor;
    ``channels`` the channels they are in; ``ratings`` their played ratings
    (:class:`~ficsfen.server.glicko.Category` -> :class:`~ficsfen.server.glicko.Rating`);
    ``game_mark`` FICS's status mark of their game (``^`` playing, ``#``
    examining, ``""`` none).
    """

    __slots__ = ("handle", "node", "registered", "admin", "lang", "login_time", "interface",
                 "timeseal", "lag_ms", "notes", "variables", "channels", "censor", "ratings",
                 "game_mark")

    def __init__(self, node: str, entry: Mapping[str, Any]) -> None:
        self.node = node
        self.handle = str(entry["handle"])
        self.registered = bool(entry.get("registered", False))
        self.admin = bool(entry.get("admin", False))
        self.lang = str(entry.get("lang", "en"))
        self.login_time = float(entry.get("login", 0.0))
        self.interface = str(entry.get("interface", ""))
        self.timeseal = bool(entry.get("timeseal", False))
        self.lag_ms = int(entry.get("lag", 0))
        self.notes = [str(n) for n in entry.get("notes", ())]
        variables = entry.get("variables", {})
        self.variables = {k: variables[k] for k in SHARED_VARIABLES if k in variables}
        self.channels = frozenset(int(c) for c in entry.get("channels", ()))
        self.censor = frozenset(str(c) for c in entry.get("censor", ()))
        self.ratings = ratings_from_json(entry.get("ratings"))
        mark = entry.get("game", "")
        self.game_mark = mark if mark in ("^", "#") else ""

    def __repr__(self) -> str:
        return f"<RemotePlayer {self.handle} on {self.node}>"

    def display_name(self) -> str:
        """As :meth:`ficsfen.server.session.Session.display_name`."""
        if self.admin:
            return f"{self.handle}(*)"
        return self.handle if self.registered else f"{self.handle}(U)"

    @staticmethod
    def to_json(session: Any, *, login: float, channels: Iterable[int], censor: Iterable[str],
                notes: Iterable[str] = ()) -> dict[str, Any]:
        """The entry of a local ``session`` (what other nodes build a :class:`RemotePlayer` from)."""
        return {"handle": session.handle, "registered": bool(session.registered),
                "admin": bool(getattr(session, "admin", False)), "lang": session.lang,
                "login": login, "interface": getattr(session, "interface", "") or "",
                "timeseal": bool(getattr(session, "timeseal", False)),
                "lag": int(getattr(session, "lag_ms", 0) or 0), "notes": list(notes),
                "variables": {k: session.variables[k] for k in SHARED_VARIABLES
                              if k in session.variables},
                "channels": sorted(channels), "censor": sorted(censor)}
