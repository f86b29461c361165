"""The values the store keeps and gives back: plain frozen dataclasses.

Times of day (``started``, ``ended``, ``Adjournment.at``, ``Account.created``)
are Unix times in seconds (:func:`time.time`), not reactor times: they must
mean the same after a restart.  Clocks and move times are whole
milliseconds.  Handles are kept as the player spelled them; lookups by
handle use :func:`ficsfen.names.fold`, the server's case rule.

:class:`EndCode` and :class:`GameStatus` are the game domain's
(:mod:`ficsfen.server.game_values`); they are importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ficsfen.fen import STARTING_FEN
from ficsfen.names import fold
from ficsfen.server.game_values import EndCode, GameStatus
from ficsfen.server.variant_games import stored_variant
from ficsfen.tracker import Tracker

__all__ = [
    "Account",
    "Adjournment",
    "BAN_KINDS",
    "Ban",
    "EndCode",
    "GameEnd",
    "GameRecord",
    "GameStart",
    "GameStatus",
    "HISTORY_NUMBERS",
    "HISTORY_SIZE",
    "HistoryEntry",
    "MoveRecord",
    "NewsItem",
    "RESULTS",
    "StoredGame",
]

#: The results a game can end with; ``*`` is an aborted (unfinished) game.
RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*"})

#: How many finished games ``history`` shows per player (FICS: "the last 10").
HISTORY_SIZE = 10
#: History numbers cycle through 0..99 as on FICS: a player's n-th finished
#: game (counting from 1) is number ``(n - 1) % 100``.
HISTORY_NUMBERS = 100


@dataclass(frozen=True)
class Account:
    """A registered handle: ``password_hash`` is what ``hash_password`` made.

    ``admin``: an operator (``ficsfen accounts admin NAME on``); ``muzzled``:
    may not shout (``muzzle``).
    """

    name: str
    password_hash: str
    created: float
    admin: bool = False
    muzzled: bool = False


#: The kinds of :class:`Ban`: a handle, or an address or network.
BAN_KINDS = ("handle", "address")


@dataclass(frozen=True)
class Ban:
    """A handle or an address refused at login.

    ``value`` is a folded handle (``kind == "handle"``) or an address or
    network in the form :func:`ipaddress.ip_network` prints (``10.0.0.0/8``,
    ``192.0.2.7/32``); ``by`` the operator who banned it, ``at`` when (Unix
    time), ``reason`` what they said (may be empty).
    """

    kind: str
    value: str
    by: str
    at: float
    reason: str = ""


@dataclass(frozen=True)
class NewsItem:
    """An item of ``news``: its number, when and by whom it was posted, its title and
    its text (lines separated by ``\\n``; empty until ``cnewsf`` adds some)."""

    number: int
    posted: float
    author: str
    title: str
    text: str = ""


@dataclass(frozen=True)
class GameStart:
    """What is known of a played game when it starts.

    ``fen`` is the position it starts from (the standard one, or a
    ``bsetup`` position); ``initial_seconds``/``increment_seconds`` the time
    control (FICS's ``2 12`` is 120 and 12).
    """

    white: str
    black: str
    initial_seconds: int
    increment_seconds: int
    started: float
    fen: str = STARTING_FEN
    rated: bool = False
    variant: str = "chess"


@dataclass(frozen=True)
class MoveRecord:
    """One acknowledged half-move: ``ply`` counts from 1; the clocks are after it.

    The position after it is not kept: :meth:`StoredGame.replay` gives it.
    """

    ply: int
    san: str
    uci: str
    white_ms: int
    black_ms: int
    took_ms: int


@dataclass(frozen=True)
class Adjournment:
    """Why and when a game was adjourned, and both clocks then; ``ply`` is its length then."""

    reason: str
    at: float
    white_ms: int
    black_ms: int
    ply: int


@dataclass(frozen=True)
class GameEnd:
    """The end of a game: ``result`` is one of :data:`RESULTS`, ``reason`` FICS's English text
    (``alice resigns``), ``code`` an :class:`EndCode`."""

    result: str
    reason: str
    code: EndCode
    ended: float

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"result must be one of {sorted(RESULTS)}, not {self.result!r}")
        object.__setattr__(self, "code", EndCode(self.code))


@dataclass(frozen=True)
class GameRecord:
    """A stored game without its moves (what ``history`` lists)."""

    id: int
    start: GameStart
    status: GameStatus
    adjournment: Adjournment | None = None
    end: GameEnd | None = None


@dataclass(frozen=True)
class StoredGame(GameRecord):
    """A stored game with its moves in ply order."""

    moves: tuple[MoveRecord, ...] = ()

    @property
    def ply(self) -> int:
        """Half-moves played."""
        return self.moves[-1].ply if self.moves else 0

    def replay(self) -> Tracker:
        """A tracker with the stored moves played from the start position: each
        ply's FEN as the server showed it.

        :raises ficsfen.tracker.TrackerError: a stored move that does not
            replay (a damaged record).
        """
        tracker = Tracker(self.start.fen, variant=stored_variant(self.start.variant))
        for move in self.moves:
            try:
                parsed = chess.Move.from_uci(move.uci)
            except ValueError:
                tracker.push(move.uci)  # refused with the tracker's own error
            else:
                tracker.push_move(parsed)
        return tracker

    @property
    def fen(self) -> str:
        """The position now: after the last stored move (a replay of the moves: see
        :meth:`replay`), else the start position."""
        return self.replay().fen if self.moves else self.start.fen

    @property
    def clocks_ms(self) -> tuple[int, int]:
        """White's and Black's clocks as a resumed game must show them.

        Those of the adjournment if no move came after it, else those after
        the last acknowledged move, else the initial time: a game found
        ``PLAYING`` after a crash resumes with the clocks of its last move.
        """
        adjourned = self.adjournment
        if adjourned is not None and adjourned.ply >= self.ply:
            return adjourned.white_ms, adjourned.black_ms
        if self.moves:
            return self.moves[-1].white_ms, self.moves[-1].black_ms
        initial = self.start.initial_seconds * 1000
        return initial, initial


@dataclass(frozen=True)
class HistoryEntry:
    """One line of a player's ``history``: FICS's ``number`` (0-99) and the game."""

    number: int
    handle: str
    game: GameRecord

    @property
    def white(self) -> bool:
        """Whether the player had White (FICS's ``W``/``B`` column)."""
        return fold(self.game.start.white) == fold(self.handle)

    @property
    def opponent(self) -> str:
        start = self.game.start
        return start.black if self.white else start.white

    @property
    def outcome(self) -> str:
        """FICS's result column for the player: ``+`` won, ``-`` lost, ``=`` drawn."""
        result = self.game.end.result if self.game.end is not None else "*"
        if result == "1/2-1/2":
            return "="
        won = "1-0" if self.white else "0-1"
        return "+" if result == won else "-"
