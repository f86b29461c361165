"""FICS interface variables ("ivars"): switches an ICS client sets for itself.

Clients (xboard, eboard, pychess, Jin) turn these on with ``iset NAME 1``
or, before logging in, with a ``%b0101...`` string that sets them by
position.  The order and the defaults are FICS's: clients depend on both.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

__all__ = ["IVARS", "IVAR_DEFAULTS", "SHARED_DEFAULTS", "default_ivars"]

#: The 35 interface variables, in FICS's order (the ``%b`` string's positions).
IVARS: tuple[str, ...] = (
    "compressmove", "audiochat", "seekremove", "defprompt", "lock", "startpos", "block",
    "gameinfo", "xdr", "pendinfo", "graph", "seekinfo", "extascii", "nohighlight",
    "vthighlight", "showserver", "pin", "ms", "pinginfo", "boardinfo", "extuserinfo",
    "seekca", "showownseek", "premove", "smartmove", "movecase", "suicide", "crazyhouse",
    "losers", "wildcastle", "fr", "nowrap", "allresults", "obsping", "singleboard",
)

#: Every ivar is off at login but ``showownseek``.
IVAR_DEFAULTS: dict[str, bool] = {name: name == "showownseek" for name in IVARS}


#: What a new session's ivars are until one is set: one read-only table shared by
#: every session (a copy each would be 800 bytes for each of thousands of connections).
SHARED_DEFAULTS: Mapping[str, bool] = MappingProxyType(dict(IVAR_DEFAULTS))


def default_ivars() -> dict[str, bool]:
    """A new session's ivars, by name, in a dict of its own."""
    return dict(IVAR_DEFAULTS)
