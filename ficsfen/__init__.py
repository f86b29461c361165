"""ficsfen: FEN for FICS-style chess servers.

This module is the public API: everything a host chess server needs to
mount ficsfen is importable from here, and only what is listed in
``__all__`` is promised to stay (with the exception names of before the
``Error`` suffix, kept as aliases).  The private modules behind it may move.

- FEN codec: :func:`parse`, :func:`emit`, :class:`Position`, the EPD
  variants and their errors (:class:`FenError` names the field at fault);
  :func:`parse_variant` and :class:`VariantPosition` for Chess960 (X-FEN,
  Shredder-FEN) and crazyhouse (holdings, ``~`` promoted pieces).
- Tracker: :class:`Tracker` plays moves and hands a :class:`Ply` (SAN, UCI,
  FEN) to every callback given to :meth:`Tracker.subscribe`; the end of a
  game is python-chess's :class:`chess.Outcome` (:func:`outcome_message`
  puts it into words).
- Help catalog: :func:`topics`, :func:`lookup` and :class:`HelpCatalog`,
  with the same resolution and English fallback as our server.
- Messages: :func:`msg` builds a lazy :class:`Message`; :func:`render` turns
  it into text in one recipient's language.
- Commands: :class:`FenCommand`, :class:`HelpCommand` and
  :class:`NextCommand` provide :class:`ICommand` and need nothing from the
  host but an :class:`ICaller` and an :class:`IGameDirectory`.
- :class:`GameFeed`: newline-delimited JSON game events for TCP readers.

Names are imported on first use (PEP 562), so ``import ficsfen`` stays
cheap and pulls in neither python-chess nor Twisted until needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> private module that defines it
_EXPORTS: dict[str, str] = {
    # FEN codec
    "STARTING_FEN": "ficsfen.fen",
    "Position": "ficsfen.fen",
    "parse": "ficsfen.fen",
    "parse_syntax": "ficsfen.fen",
    "emit": "ficsfen.fen",
    "is_valid": "ficsfen.fen",
    "FenError": "ficsfen.fen",
    "FenSyntaxError": "ficsfen.fen",
    "InvalidPositionError": "ficsfen.fen",
    "Epd": "ficsfen.epd",
    "EpdError": "ficsfen.epd",
    "parse_epd": "ficsfen.epd",
    "emit_epd": "ficsfen.epd",
    # variant FEN: Chess960 (X-FEN, Shredder-FEN) and crazyhouse (holdings)
    "VARIANTS": "ficsfen.variants",
    "Variant": "ficsfen.variants",
    "VariantPosition": "ficsfen.variants",
    "parse_variant": "ficsfen.variants",
    "emit_variant": "ficsfen.variants",
    "is_valid_variant": "ficsfen.variants",
    "variant_named": "ficsfen.variants",
    "chess960_fen": "ficsfen.variants",
    "CastlingRightsError": "ficsfen.variants",
    "HoldingsError": "ficsfen.variants",
    "PromotedMarkError": "ficsfen.variants",
    "TooManyPiecesError": "ficsfen.variants",
    "UnknownVariantError": "ficsfen.variants",
    # tracker and its per-move FEN events
    "Tracker": "ficsfen.tracker",
    "Ply": "ficsfen.tracker",
    "Outcome": "ficsfen.tracker",  # python-chess's chess.Outcome
    "Termination": "ficsfen.tracker",  # python-chess's chess.Termination
    "outcome_message": "ficsfen.tracker",
    "TrackerError": "ficsfen.tracker",
    "MoveError": "ficsfen.tracker",
    "MalformedMoveError": "ficsfen.tracker",
    "IllegalMoveError": "ficsfen.tracker",
    "AmbiguousMoveError": "ficsfen.tracker",
    "GameOverError": "ficsfen.tracker",
    # help catalog
    "HelpCatalog": "ficsfen.helpcatalog",
    "HelpPage": "ficsfen.helpcatalog",
    "HelpError": "ficsfen.helpcatalog",
    "NoSuchTopicError": "ficsfen.helpcatalog",
    "AmbiguousTopicError": "ficsfen.helpcatalog",
    "InvalidTopicError": "ficsfen.helpcatalog",
    "topics": "ficsfen.helpcatalog",
    "lookup": "ficsfen.helpcatalog",
    # messages
    "Message": "ficsfen.i18n",
    "msg": "ficsfen.i18n",
    "msgn": "ficsfen.i18n",
    "render": "ficsfen.i18n",
    "available_languages": "ficsfen.i18n",
    # the seams
    "ICaller": "ficsfen.interfaces",
    "ICommand": "ficsfen.interfaces",
    "IGame": "ficsfen.interfaces",
    "IGameDirectory": "ficsfen.interfaces",
    "IClockedGame": "ficsfen.interfaces",
    "IMoveEvents": "ficsfen.interfaces",
    # commands a host mounts
    "FenCommand": "ficsfen.commands.fen",
    "HelpCommand": "ficsfen.commands.help",
    "NextCommand": "ficsfen.commands.help",
    "Pager": "ficsfen.commands.help",
    # game-event feed
    "GameFeed": "ficsfen.server.feed",
}

# The exception names from before they ended in ``Error``: the very same
# classes, kept so that hosts written against them go on working.
_OLD_NAMES: dict[str, str] = {
    "MalformedMove": "MalformedMoveError",
    "IllegalMove": "IllegalMoveError",
    "AmbiguousMove": "AmbiguousMoveError",
    "NoSuchTopic": "NoSuchTopicError",
    "AmbiguousTopic": "AmbiguousTopicError",
    "InvalidTopic": "InvalidTopicError",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    current = _OLD_NAMES.get(name, name)
    module = _EXPORTS.get(current)
    if module is None:
        raise AttributeError(f"module 'ficsfen' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), current)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ficsfen.commands.fen import FenCommand
    from ficsfen.commands.help import HelpCommand, NextCommand, Pager
    from ficsfen.epd import Epd, EpdError, emit_epd, parse_epd
    from ficsfen.fen import (STARTING_FEN, FenError, FenSyntaxError, InvalidPositionError,
                             Position, emit, is_valid, parse, parse_syntax)
    from ficsfen.server.feed import GameFeed
    from ficsfen.helpcatalog import (AmbiguousTopicError, HelpCatalog, HelpError, HelpPage,
                                     InvalidTopicError, NoSuchTopicError, lookup, topics)
    from ficsfen.i18n import Message, available_languages, msg, msgn, render
    from ficsfen.interfaces import ICaller, IClockedGame, ICommand, IGame, IGameDirectory, IMoveEvents
    from ficsfen.variants import (VARIANTS, CastlingRightsError, HoldingsError,
                                  PromotedMarkError, TooManyPiecesError, UnknownVariantError,
                                  Variant, VariantPosition, chess960_fen, emit_variant,
                                  is_valid_variant, parse_variant, variant_named)
    from ficsfen.tracker import (AmbiguousMoveError, GameOverError, IllegalMoveError,
                                 MalformedMoveError, MoveError, Outcome, Ply, Termination,
                                 Tracker, TrackerError, outcome_message)

    MalformedMove = MalformedMoveError
    IllegalMove = IllegalMoveError
    AmbiguousMove = AmbiguousMoveError
    NoSuchTopic = NoSuchTopicError
    AmbiguousTopic = AmbiguousTopicError
    InvalidTopic = InvalidTopicError
