"""The values of the game domain: how games end, where they are, what is durable.

They belong to the games (:mod:`ficsfen.server.games`), not to what shows
or keeps them: the board renderer and the store
(:mod:`ficsfen.server.store.records`) import them from here, never the
reverse.  Nothing here imports the store, the boards or Twisted.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import chess
from chess import Termination

from ficsfen.i18n import Message, msg
from ficsfen.server.parsed import parsed

__all__ = [
    "DRAW",
    "NOT_SAVED",
    "UNFINISHED",
    "DurableState",
    "EndCode",
    "GameResult",
    "GameStatus",
    "draw_result",
    "movelist_reason",
    "win_score",
]

#: The score of a drawn game, and of one that did not finish (aborted, adjourned).
DRAW = "1/2-1/2"
UNFINISHED = "*"


class GameStatus(enum.StrEnum):
    """Where a game is; ``PLAYING`` in a store after a crash means "in progress when it stopped"."""

    PLAYING = "playing"
    ADJOURNED = "adjourned"
    FINISHED = "finished"


class EndCode(enum.StrEnum):
    """How a game ended, as the ``End`` column of FICS's ``history`` spells it.

    ``ABORTED`` is ours: aborted games are kept but FICS lists them nowhere.
    Draws by the 75-move rule or fivefold repetition use ``FIFTY`` and
    ``REPETITION``, as FICS knows only those two.
    """

    MATE = "Mat"
    RESIGNATION = "Res"
    FLAG = "Fla"
    AGREED = "Agr"
    REPETITION = "Rep"
    STALEMATE = "Sta"
    FIFTY = "50"
    NO_MATERIAL = "NM"
    TIME_NO_MATERIAL = "TM"
    DISCONNECTION = "Dis"
    ADJUDICATED = "Adj"
    ABORTED = "Abo"


@dataclass(frozen=True)
class GameResult:
    """``score`` is ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``; ``reason`` the FICS text."""

    score: str
    reason: Message
    adjourned: bool = False
    #: FICS's ``history`` end code (:class:`EndCode`); empty for an adjournment.
    code: str = ""
    #: What the end tells particular people besides the announcement: the
    #: pendinfo removals of the offers it cleared
    #: (:class:`ficsfen.server.challenges.Notice` values; the host delivers them).
    notices: tuple[Any, ...] = field(default=(), compare=False)
    #: What players read just before the announcement, in the same message: who
    #: accepted the request that ended the game (``You accept the draw request
    #: from alice.``), as :class:`ficsfen.server.challenges.Notice` values.
    preface: tuple[Any, ...] = field(default=(), compare=False)

    def announcement(self, game: Any) -> Message:
        """``{Game 12 (alice vs. bob) bob checkmated} 1-0`` (``game``: number and players)."""
        return parsed(msg("{{Game {number} ({white} vs. {black}) {reason}}} {score}",
                   number=game.number, white=game.white, black=game.black,
                   reason=self.reason, score=self.score))


@dataclass(frozen=True)
class DurableState:
    """What a journal holds of a game: its moves (SAN), their times and both clocks.

    Times and clocks are in seconds; the clocks are White's and Black's as
    the game must show them from there (after the last move, or as adjourned).
    """

    sans: tuple[str, ...]
    took: tuple[float, ...]
    white: float
    black: float


def win_score(color: chess.Color) -> str:
    """The score of a win by ``color``: ``1-0`` or ``0-1``."""
    return "1-0" if color == chess.WHITE else "0-1"


_AUTOMATIC_DRAWS = {
    Termination.STALEMATE: msg("Game drawn by stalemate"),
    Termination.INSUFFICIENT_MATERIAL: msg("Neither player has mating material"),
    Termination.SEVENTYFIVE_MOVES: msg("Game drawn by the 75 move rule"),
    Termination.FIVEFOLD_REPETITION: msg("Game drawn by fivefold repetition"),
    Termination.FIFTY_MOVES: msg("Game drawn by the 50 move rule"),
    Termination.THREEFOLD_REPETITION: msg("Game drawn by repetition"),
}

#: FICS's end code of each automatic or claimed draw (it knows 50 and Rep only).
_DRAW_CODES = {
    Termination.STALEMATE: EndCode.STALEMATE,
    Termination.INSUFFICIENT_MATERIAL: EndCode.NO_MATERIAL,
    Termination.SEVENTYFIVE_MOVES: EndCode.FIFTY,
    Termination.FIVEFOLD_REPETITION: EndCode.REPETITION,
    Termination.FIFTY_MOVES: EndCode.FIFTY,
    Termination.THREEFOLD_REPETITION: EndCode.REPETITION,
}


def draw_result(termination: Termination) -> GameResult:
    """The result of an automatic or claimed draw.

    :raises KeyError: ``termination`` is no draw (checkmate, variant wins).
    """
    return GameResult(DRAW, _AUTOMATIC_DRAWS[termination], code=_DRAW_CODES[termination])


#: Why a game stops when the store cannot keep it (see PlayedGame.write_failed).
NOT_SAVED = msg("Game adjourned because the server could not save it")


#: The ends that name a player, and how a movelist names them instead: FICS
#: writes the colour there (``{White resigns} 0-1``), which clients look for.
#: Keys are the English templates of :class:`GameResult` reasons; values the
#: forms with White, then Black, as the player named first.
_COLOUR_FORMS: dict[str, tuple[Message, Message]] = {
    "{handle} checkmated": (msg("White checkmated"), msg("Black checkmated")),
    "{handle} resigns": (msg("White resigns"), msg("Black resigns")),
    "{handle} forfeits on time": (msg("White forfeits on time"), msg("Black forfeits on time")),
    "{handle} forfeits by disconnection": (msg("White forfeits by disconnection"),
                                           msg("Black forfeits by disconnection")),
    "{handle} lost connection; game adjourned": (
        msg("White lost connection; game adjourned"),
        msg("Black lost connection; game adjourned")),
    "{loser} ran out of time and {winner} has no material to mate": (
        msg("White ran out of time and Black has no material to mate"),
        msg("Black ran out of time and White has no material to mate")),
}


def movelist_reason(reason: str, white: str, black: str) -> Message:
    """The ``{...}`` text closing a movelist of a game that ended for ``reason``.

    ``reason`` is the English text of the end as players were told it
    (``carol resigns``: a :class:`GameResult` reason rendered in English, or
    a stored :class:`~ficsfen.server.store.GameEnd` reason); ``white`` and
    ``black`` are the players' handles as the game spells them.  An end that
    names a player names their colour instead (``White resigns``), as
    FICS's movelists do; any other end is its own text, translated when the
    catalogs know it.  Never raises.
    """
    for template, forms in _COLOUR_FORMS.items():
        for form, (loser, winner) in zip(forms, ((white, black), (black, white))):
            if template.format(handle=loser, loser=loser, winner=winner) == reason:
                return form
    return Message(reason)
