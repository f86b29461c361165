"""A new played game from an accepted challenge: colours, variant, privacy and adjournability.

:func:`new_game` builds the :class:`~ficsfen.server.games.PlayedGame` that
an accepted match offer or seek describes, before it is numbered, stored or
announced (:class:`~ficsfen.server.game_service.GameService` does that).
It decides, as FICS does, what the players' state at the start fixes for
the whole game: who has White, the start position of a variant, whether
observers are kept out (a player has ``set private 1``) and whether the
game may be adjourned (both players logged in with a password, neither
already at the most adjourned games allowed).
"""

from __future__ import annotations

import random
from typing import Any, Callable

from twisted.internet.interfaces import IReactorTime

from ficsfen.i18n import msgn
from ficsfen.server.adjourned import AdjournedGames
from ficsfen.server.game_hooks import IGameJournal, IGameListener
from ficsfen.server.games import PlayedGame
from ficsfen.server.variant_games import FICS_TYPES, start_fen

__all__ = ["new_game"]


def new_game(challenge: Any, *, rng: random.Random, clock: IReactorTime,
             listener: IGameListener, journal: IGameJournal | None,
             session: Callable[[str], Any], adjourned: AdjournedGames, most_adjourned: int,
             limiter: Any = None) -> PlayedGame:
    """The game ``challenge`` (accepted, not a resumption) describes, not yet numbered.

    Colours come from ``challenge.colours(rng)``; a variant starts from
    ``start_fen`` (drawn with ``rng`` for Chess960).  ``session(handle)``
    finds a logged-in session (``None``: not logged in).  The game is
    adjournable only when both players are logged in registered; it is not
    either when one of them already has ``most_adjourned`` adjourned games
    in ``adjourned`` (``0``: no limit), and its ``not_adjournable`` then
    names them.  It is private when a player has ``set private 1``.
    ``limiter`` counts the players' offers.  Raises nothing of its own.
    """
    def registered(handle: str) -> bool:
        present = session(handle)
        return present is not None and present.registered

    def wants_private(handle: str) -> bool:
        present = session(handle)
        return present is not None and bool(present.variables.get("private", False))

    white, black = challenge.colours(rng)
    variant = challenge.variant
    extra: dict[str, Any] = {} if variant is None else {
        "variant": FICS_TYPES[variant], "fen": start_fen(variant, rng)}
    game = PlayedGame(white, black, reactor=clock, time_control=challenge.time_control,
                      listener=listener, journal=journal, **extra,
                      adjournable=registered(white) and registered(black))
    game.limiter = limiter
    game.private = any(wants_private(h) for h in (white, black))
    most = most_adjourned
    crowded = [h for h in (white, black) if most and len(adjourned.of(h)) >= most]
    if game.adjournable and crowded:
        game.adjournable = False
        game.not_adjournable = msgn(
            "{handle} has {count} adjourned game, the most allowed: this game cannot be "
            "adjourned.  Use \"abort\".",
            "{handle} has {count} adjourned games, the most allowed: this game cannot be "
            "adjourned.  Use \"abort\".", most, handle=crowded[0])
    return game
