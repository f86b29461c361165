"""Played games: two players, a clock, offers and FICS-style endings.

Observers are kept by the host's game directory alone (one source of truth).

:class:`PlayedGame` is host-agnostic: it never writes to a socket.  Actions
(:meth:`~PlayedGame.move`, :meth:`~PlayedGame.draw`, ...) raise a
:class:`GameError` carrying the localized reason when refused (and then
change nothing), and return the :class:`~ficsfen.server.challenges.Notice` values
meant for particular people when accepted.  What every watcher must see goes
to an :class:`IGameListener`: ``boardChanged`` after each move, takeback or
resumption (the host sends each player and observer their board, built from
the per-position caches :meth:`PlayedGame.style12_frame` and
:meth:`PlayedGame.style1`), and ``gameEnded`` with the result announcement,
including ends that come from the reactor (flag fall).

The host's game directory numbers games and finds them by player;
:class:`AdjournedGames` keeps adjourned games until ``resume``.

**Durability.**  A game may have an :class:`IGameJournal` (the server's
store).  Each change is then made in memory at once (a second move by the
same player is refused, the clocks switch at the move's time) and written
through the journal; what the change *announces* (the listener's
``boardChanged``/``gameEnded``, the move subscribers, the notices a host
delivers through :meth:`PlayedGame.after_write`) waits until the write is
committed, in the order the changes were made.  A write that fails takes
the game back to what the journal holds and adjourns it there
(:meth:`PlayedGame.write_failed`): nobody is left looking at a position the
store does not have.  Without a journal everything is announced at once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

import chess
from chess import Outcome, Termination
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import Interface, implementer

from ficsfen.server.boards import Style12Frame, _style1, category, material
from ficsfen.server.challenges import Notice, next_offer_id, offer_notices, removal_notices
from ficsfen.server.clock import ChessClock, TimeControl, format_clock
from ficsfen.i18n import LocalizedError, Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server.interfaces import IPlayedGame
from ficsfen.server.store.records import EndCode
from ficsfen.server.variant_games import category_letter
from ficsfen.tracker import MoveError, Ply, PlySubscribers, Tracker
from ficsfen.variants import Variant

__all__ = [
    "GameError",
    "AdjournedGames",
    "DurableState",
    "GameResult",
    "IGameJournal",
    "IGameListener",
    "IMoveTiming",
    "MoveRefusedError",
    "NoOfferError",
    "NullListener",
    "Offer",
    "NotOutOfTimeError",
    "NotPlayingError",
    "NotYourMoveError",
    "OfferPendingError",
    "PlayedGame",
]


# -- errors ------------------------------------------------------------------


class GameError(LocalizedError):
    """A refused game action; :attr:`message` tells the player why."""


class NotPlayingError(GameError):
    """The handle is not a player of this game."""


class NotYourMoveError(GameError):
    """A move typed while the opponent is to move."""


class GameFinishedError(GameError):
    """The game has ended or is adjourned."""


class MoveRefusedError(GameError):
    """The tracker refused the move (illegal, ambiguous, malformed)."""

    def __init__(self, error: MoveError) -> None:
        super().__init__(error.message)
        self.error = error


class OfferPendingError(GameError):
    """The same offer was already made."""


class NoOfferError(GameError):
    """``accept``/``decline``/``withdraw`` with no matching offer."""


class NotOutOfTimeError(GameError):
    """``flag`` while the opponent still has time."""


class BadTakebackError(GameError):
    """A takeback of zero or more plies than were played."""


class NotAdjournableError(GameError):
    """``adjourn`` in a game with an unregistered player (it could never be resumed)."""


# -- results -----------------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """``score`` is ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``; ``reason`` the FICS text."""

    score: str
    reason: Message
    adjourned: bool = False
    #: FICS's ``history`` end code (:class:`EndCode`); empty for an adjournment.
    code: str = ""
    #: What the end tells particular people besides the announcement: the
    #: pendinfo removals of the offers it cleared (the host delivers them).
    notices: tuple[Notice, ...] = field(default=(), compare=False)

    def announcement(self, game: "PlayedGame") -> Message:
        """``{Game 12 (alice vs. bob) bob checkmated} 1-0``."""
        return msg("{{Game {number} ({white} vs. {black}) {reason}}} {score}",
                   number=game.number, white=game.white, black=game.black,
                   reason=self.reason, score=self.score)


def _win(color: chess.Color) -> str:
    return "1-0" if color == chess.WHITE else "0-1"


DRAW = "1/2-1/2"
UNFINISHED = "*"

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


def _draw(termination: Termination) -> GameResult:
    return GameResult(DRAW, _AUTOMATIC_DRAWS[termination], code=_DRAW_CODES[termination])


#: Why a game stops when the store cannot keep it (see PlayedGame.write_failed).
NOT_SAVED = msg("Game adjourned because the server could not save it")

_OFFER_NAMES = {
    "draw": msg("draw"),
    "abort": msg("abort"),
    "adjourn": msg("adjourn"),
    "takeback": msg("takeback"),
}


class IGameListener(Interface):
    """What a host hears from a :class:`PlayedGame` (all calls synchronous)."""

    def boardChanged(game):
        """The position changed (move, takeback, resume): send the boards."""

    def gameEnded(game, result):
        """The game ended or was adjourned: announce ``result.announcement(game)``."""


class IMoveTiming(Interface):
    """How long a player's move took, when the host knows better than its clock.

    A host whose :class:`IGameListener` also provides this (the server, for
    players whose client time-stamps its lines with timeseal) decides what
    each move costs; the game holds the answer within the wall-clock time.
    """

    def charge(game, handle, wall):
        """Seconds to charge ``handle`` for the move just made, after ``wall`` seconds."""


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


class IGameJournal(Interface):
    """Where a played game's changes are made durable before anyone hears of them.

    Each method is called right after the change was made in memory and
    returns a ``Deferred`` that fires once the change is committed (or
    ``None``: nothing to wait for).  The game announces the change then.
    """

    def started(game):
        """The game was created (sets ``game.record_id``)."""

    def moved(game, ply):
        """``ply`` (a :class:`ficsfen.tracker.Ply`) was played; clocks as they now are."""

    def took_back(game):
        """Plies were taken back: the game is now ``game.tracker.ply`` long."""

    def ended(game, result):
        """The game ended with ``result`` (a :class:`GameResult`)."""

    def adjourned(game, result):
        """The game was adjourned; clocks as they now are."""

    def resumed(game):
        """The adjourned game goes on."""

    def durable(game):
        """The :class:`DurableState` committed so far, or ``None`` if the start was not."""


@implementer(IGameListener)
class NullListener:
    """Hears nothing; the default until a host plugs itself in."""

    def boardChanged(self, game: "PlayedGame") -> None:
        pass

    def gameEnded(self, game: "PlayedGame", result: GameResult) -> None:
        pass


@dataclass(frozen=True)
class Offer:
    """A pending in-game offer: ``kind`` from ``by``; ``plies`` for takebacks."""

    kind: str
    by: str
    plies: int = 0
    #: The offer's number (``accept N``, the pendinfo lines), shared with match offers.
    id: int = field(default_factory=next_offer_id, compare=False)

    @property
    def params(self) -> str:
        """The ``p=`` field of its pendinfo lines: the half-moves of a takeback, else ``#``."""
        return str(self.plies) if self.kind == "takeback" else "#"

    def describe(self) -> Message:
        if self.kind == "takeback":
            return msgn("{by} asks to take back {count} half-move",
                        "{by} asks to take back {count} half-moves", self.plies, by=self.by)
        return msg("{by} offers to {what}", by=self.by, what=_OFFER_NAMES[self.kind])


# -- the game ----------------------------------------------------------------


@implementer(IPlayedGame)
class PlayedGame:
    """A game between two handles, with clocks on ``reactor``.

    ``move_times[i]`` is how long ply ``i + 1`` took (reactor seconds since
    the previous move, as FICS shows it in ``(m:ss)``, or less if the
    listener provides :class:`IMoveTiming`: what it charged).
    """

    examined = False
    log = Logger()

    def __init__(
        self,
        white: str,
        black: str,
        *,
        reactor: IReactorTime,
        number: int = 0,
        time_control: TimeControl = TimeControl(),
        listener: IGameListener | None = None,
        fen: str | None = None,
        journal: IGameJournal | None = None,
        adjournable: bool = True,
        variant: Variant | None = None,
    ) -> None:
        self.number = number
        self.white = white
        self.black = black
        self.time_control = time_control
        # Chess960 or crazyhouse rules when ``variant`` is given (from ``fen``, else its start).
        self.tracker = Tracker(fen) if variant is None else Tracker(fen, variant=variant)
        self.reactor = reactor
        self.clock = ChessClock(time_control=time_control, reactor=reactor, on_flag=self._flag_fell)
        self.listener: IGameListener = listener if listener is not None else NullListener()
        self.move_times: list[float] = []
        self.result: GameResult | None = None
        self.offers: list[Offer] = []
        self._turn_started = reactor.seconds()
        #: When the game was created (reactor time): the ``moves`` header's date.
        self.started_at = reactor.seconds()
        self._version = 0
        self._frames: dict[bool, Style12Frame] = {}
        self._frames_version = -1
        #: (version, clocks) read at a move's instant: its frames, built when it is
        #: announced after the commit, show the clocks as at the move.
        self._frame_clocks: tuple[int, tuple[float, float, bool]] | None = None
        self._style1: dict[tuple[bool, str], str] = {}
        self._style1_version = -1
        self._moved = PlySubscribers()
        #: Makes changes durable before they are announced (``None``: announce at once).
        self.journal = journal
        #: The store's id of the game (set by the journal), else ``None``.
        self.record_id: int | None = None
        #: Whether a disconnection adjourns the game (both players registered, as on
        #: FICS) rather than forfeiting it, and whether ``adjourn`` may be offered.
        self.adjournable = adjournable
        #: Why ``adjourn`` is refused when the game is not :attr:`adjournable`.
        self.not_adjournable = msg("All players must be registered to adjourn a game.  Use \"abort\".")
        #: Counts the players' offers against the host's rate limit
        #: (:class:`ficsfen.server.challenges.OfferLimiter`), or ``None``.
        self.limiter: Any = None
        #: When the game was last adjourned (Unix time, set by the host), for ``stored``.
        self.adjourned_at = 0.0
        # Announcements waiting for their write: [written, announce] in change order.
        self._waiting: deque[list[Any]] = deque()
        self._settled: list[Deferred[None]] = []

    # -- durability ------------------------------------------------------------

    def after_write(self, written: Deferred[Any] | None, announce: Callable[[], None]) -> None:
        """Run ``announce`` once ``written`` (a journal write, or ``None``) and every
        write made before it are committed; at once when nothing is waiting.

        Hosts use it for what a change tells particular people (offers
        withdrawn by a move, an offer made while the move is being written),
        so that nobody hears of anything before the move itself.
        """
        if written is None and not self._waiting:
            announce()
            return
        entry = [written is None, announce]
        self._waiting.append(entry)
        if written is not None:
            written.addCallbacks(self._committed, self._not_committed,
                                 callbackArgs=(entry,), errbackArgs=(entry,))

    def _committed(self, result: Any, entry: list[Any]) -> None:
        entry[0] = True
        waiting = self._waiting
        while waiting and waiting[0][0]:
            _, announce = waiting.popleft()
            try:
                announce()
            except Exception:
                self.log.failure("announcing a change of {game!r} failed", game=self)
        if not waiting and self._settled:
            self._fire_settled()

    def _not_committed(self, failure: Failure, entry: list[Any]) -> None:
        if not any(waiting is entry for waiting in self._waiting):
            return  # already given up with an earlier failure
        self.log.failure("the store could not keep a change of {game!r}; game adjourned",
                         failure, game=self)
        # Later in the reactor: a write refused at once fails inside the change itself.
        self.reactor.callLater(0, self.write_failed)
        self._waiting.clear()
        self._waiting.append([False, lambda: None])  # nothing more is announced until then

    @property
    def move_clocks(self) -> tuple[float, float]:
        """Both clocks (white, black; seconds) as at the instant of the last move: what
        its boards show and what the journal stores with it."""
        white, black, _running = self._frame_clocks[1]
        return white, black

    @property
    def announcing(self) -> bool:
        """Whether a change waits for its write before it is announced."""
        return bool(self._waiting)

    def settled(self) -> Deferred[None]:
        """Fires once every change made so far is committed and announced."""
        if not self._waiting:
            return succeed(None)
        d: Deferred[None] = Deferred()
        self._settled.append(d)
        return d

    def _fire_settled(self) -> None:
        waiters, self._settled = self._settled, []
        for d in waiters:
            d.callback(None)

    def write_failed(self) -> None:
        """A change could not be stored: back to what the journal holds, adjourned there.

        Announcements still waiting are dropped (they told of what the store
        does not have); players and observers are told the game is adjourned
        (:data:`NOT_SAVED`) at the position they last saw.  The store still
        has the game in progress at that position, so a restart brings it
        back adjourned there too.  A game whose start was never stored ends
        at once with that reason (the host tells its two players).
        """
        self._waiting.clear()
        state = self.journal.durable(self) if self.journal is not None else None
        self.clock.stop()
        self.offers.clear()
        if state is None:
            self.result = GameResult(UNFINISHED, NOT_SAVED)
        else:
            self.load(state)
            self.clock.pause()
            self.result = GameResult(UNFINISHED, NOT_SAVED, adjourned=True)
        self._changed()
        try:
            self.listener.gameEnded(self, self.result)
        finally:
            self._fire_settled()

    def load(self, state: DurableState) -> None:
        """Bring moves, move times and clocks to ``state`` (a restart, a failed write).

        The moves in common are kept; the others are taken back or played.
        """
        played = [p.san for p in self.tracker.history]
        common = 0
        for mine, kept in zip(played, state.sans):
            if mine != kept:
                break
            common += 1
        self.tracker.takeback(len(played) - common)
        for san in state.sans[common:]:
            self.tracker.push(san)
        self.move_times[:] = list(state.took)
        self.clock.set_remaining(state.white, state.black)
        self._resync_clock()
        self._turn_started = self.reactor.seconds()
        self._changed()

    def subscribe_moves(self, callback: Callable[[Ply], None]) -> Callable[[], None]:
        """Call ``callback(ply)`` once each move is complete (clocks as they now show).

        The tracker's own subscribers hear a move while it is being made,
        before the mover's clock stops; a feed that reports clocks uses this.
        """
        return self._moved.add(callback)

    def __repr__(self) -> str:
        return (f"<PlayedGame {self.number} {self.white} vs. {self.black} "
                f"{self.time_control} ply={self.tracker.ply}>")

    # -- who is who ----------------------------------------------------------

    def players(self) -> tuple[str, str]:
        return (self.white, self.black)

    def color_of(self, handle: str) -> chess.Color | None:
        if handle == self.white:
            return chess.WHITE
        if handle == self.black:
            return chess.BLACK
        return None

    def handle_of(self, color: chess.Color) -> str:
        return self.white if color == chess.WHITE else self.black

    def opponent_of(self, handle: str) -> str:
        return self.black if handle == self.white else self.white

    @property
    def adjourned(self) -> bool:
        return self.result is not None and self.result.adjourned

    # -- cached displays -----------------------------------------------------

    def _changed(self) -> None:
        self._version += 1

    def style12_frame(self, *, ms: bool = False) -> Style12Frame:
        """The ``<12>`` frame of the current position, built once per change and clock unit.

        Clocks in it are as of the last change (what a move broadcast shows);
        for a fresh snapshot (``refresh``) use ``Style12Frame.for_game(game)``.
        ``ms`` gives clocks and move times in milliseconds (ivar ``ms``).
        """
        if self._frames_version != self._version:
            self._frames.clear()
            self._frames_version = self._version
        frame = self._frames.get(ms)
        if frame is None:
            held = self._frame_clocks
            clocks = held[1] if held is not None and held[0] == self._version else None
            frame = self._frames[ms] = Style12Frame.for_game(self, ms=ms, clocks=clocks)
        return frame

    def style1(self, *, flipped: bool, lang: str) -> str:
        """The style 1 diagram for one orientation and language, cached per change."""
        if self._style1_version != self._version:
            self._style1.clear()
            self._style1_version = self._version
        key = (flipped, lang)
        text = self._style1.get(key)
        if text is None:
            text = self._style1[key] = _style1(self, flipped, lang)
        return text

    def listing(self) -> str:
        """One ``games`` line: number, players, time control, clocks, material, move."""
        frame_board = self.tracker.board
        tc = self.time_control
        kind = category_letter(category(self))
        return (f"{self.number:>3} ++++ {self.white:<11} ++++ {self.black:<10} "
                f"[ {kind}u{tc.minutes:>3} {tc.increment:>3}] "
                f"{format_clock(self.clock.remaining(chess.WHITE)):>6} -"
                f"{format_clock(self.clock.remaining(chess.BLACK)):>6} "
                f"({material(frame_board, chess.WHITE):>2}-{material(frame_board, chess.BLACK):>2}) "
                f"{'W' if frame_board.turn else 'B'}: {frame_board.fullmove_number:>2}")

    # -- checks --------------------------------------------------------------

    def _player(self, handle: str) -> chess.Color:
        color = self.color_of(handle)
        if color is None:
            raise NotPlayingError(msg("You are not playing game {number}.", number=self.number))
        if self.result is not None:
            raise GameFinishedError(msg("Game {number} is not in progress.", number=self.number))
        return color

    # -- moves ---------------------------------------------------------------

    def move(self, handle: str, text: str) -> list[Notice]:
        """``handle`` plays ``text``; refused moves raise and change nothing."""
        color = self._player(handle)
        if color != self.tracker.turn:
            raise NotYourMoveError(msg("It is not your move."))
        if (self.clock.running == color and self.clock.remaining(color) <= 0):
            self._time_out(color)  # the flag fell before the move arrived
            raise GameFinishedError(msg("Your time ran out before your move arrived."))
        try:
            ply = self.tracker.push(text)
        except MoveError as exc:
            raise MoveRefusedError(exc) from None
        now = self.reactor.seconds()
        wall = now - self._turn_started
        timing = IMoveTiming(self.listener, None)
        used = None if timing is None else min(max(timing.charge(self, handle, wall), 0.0), wall)
        self.move_times.append(wall if used is None else used)
        self._turn_started = now
        self.clock.moved(color, used=used)
        notices = self._clear_offers(handle, moved=True)
        outcome = self.tracker.outcome()
        if outcome is not None:
            self.clock.stop()  # the last board already shows no clock running
        self._changed()
        journal = self.journal
        if journal is None:
            self._moved.notify(ply)
            self.listener.boardChanged(self)
        else:
            # The boards show the clocks as at the move (what the store keeps), not as at
            # the commit: the frames, built when needed, use this same reading.
            clock = self.clock
            with clock.as_started():
                white, black = clock.remaining(chess.WHITE), clock.remaining(chess.BLACK)
            self._frame_clocks = (self._version, (white, black, clock.running is not None))
            self.after_write(journal.moved(self, ply), lambda: self._announce_move(ply))
        if outcome is not None:
            self._end(self._automatic(outcome))
        return notices

    def _announce_move(self, ply: Ply) -> None:
        self._moved.notify(ply)
        self.listener.boardChanged(self)

    def _automatic(self, outcome: Outcome) -> GameResult:
        if outcome.termination == Termination.CHECKMATE and outcome.winner is not None:
            loser = self.handle_of(not outcome.winner)
            return GameResult(_win(outcome.winner), msg("{handle} checkmated", handle=loser),
                              code=EndCode.MATE)
        return _draw(outcome.termination)

    # -- offers --------------------------------------------------------------

    def _find(self, kind: str, by: str) -> Offer | None:
        for offer in self.offers:
            if offer.kind == kind and offer.by == by:
                return offer
        return None

    def _clear_offers(self, mover: str, *, moved: bool) -> list[Notice]:
        """A move withdraws the mover's offers and declines those made to them."""
        notices = []
        opponent = self.opponent_of(mover)
        for offer in self.offers:
            what = _OFFER_NAMES[offer.kind]
            if offer.by == mover:
                notices.append(Notice(opponent, msg("{handle} withdraws the {what} offer.",
                                                    handle=mover, what=what)))
            else:
                notices.append(Notice(offer.by, msg("{handle} declines the {what} offer.",
                                                    handle=mover, what=what)))
        return notices + self._drop_offers()

    def _drop_offers(self) -> list[Notice]:
        """Clear every pending offer; the pendinfo removals for both players."""
        notices = [n for offer in self.offers
                   for n in removal_notices(offer.id, self.white, self.black)]
        self.offers.clear()
        return notices

    def _offer(self, handle: str, kind: str, plies: int = 0) -> list[Notice]:
        existing = self._find(kind, handle)
        if existing is not None and existing.plies == plies:
            raise OfferPendingError(msg("You have already made that offer."))
        if self.limiter is not None:
            self.limiter.check(handle)
        opponent = self.opponent_of(handle)
        removed: list[Notice] = []
        if existing is not None:
            self.offers.remove(existing)
            removed = removal_notices(existing.id, handle, opponent)
        offer = Offer(kind, handle, plies)
        self.offers.append(offer)
        if kind == "takeback":
            told = msgn("{handle} would like to take back {count} half move.",
                        "{handle} would like to take back {count} half moves.", plies, handle=handle)
            sent = msgn("Takeback request for {count} half move sent to {handle}.",
                        "Takeback request for {count} half moves sent to {handle}.", plies, handle=opponent)
        elif kind == "draw":
            told = msg("{handle} offers you a draw.", handle=handle)
            sent = msg("Draw offer sent to {handle}.", handle=opponent)
        elif kind == "abort":
            told = msg("{handle} would like to abort the game.", handle=handle)
            sent = msg("Abort request sent to {handle}.", handle=opponent)
        else:
            told = msg("{handle} would like to adjourn the game.", handle=handle)
            sent = msg("Adjourn request sent to {handle}.", handle=opponent)
        hint = msg("Type \"{command}\" to accept or \"decline\" to refuse.",
                   command=kind if kind != "takeback" else "takeback %d" % plies)
        return [*removed, Notice(handle, sent), Notice(opponent, told), Notice(opponent, hint),
                *offer_notices(offer.id, handle, opponent, kind, offer.params)]

    def offers_to(self, handle: str) -> list[Offer]:
        return [o for o in self.offers if o.by != handle]

    def offers_by(self, handle: str) -> list[Offer]:
        return [o for o in self.offers if o.by == handle]

    def _numbered(self, offers: list[Offer], offer_id: int | None) -> list[Offer]:
        """``offers``, or only the one numbered ``offer_id`` (pendinfo's index)."""
        if offer_id is None:
            return offers
        chosen = [o for o in offers if o.id == offer_id]
        if not chosen:
            raise NoOfferError(msg("There is no offer {number} for you.", number=offer_id))
        return chosen

    def accept(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Accept the single pending offer made to ``handle`` (FICS ``accept``), or offer ``offer_id``."""
        self._player(handle)
        offers = self._numbered(self.offers_to(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("There are no offers to accept."))
        if len(offers) > 1:
            raise NoOfferError(msg("Several offers are pending; use draw, abort, adjourn or takeback to accept one."))
        offer = offers[0]
        accepting = {
            "draw": self.draw,
            "abort": self.abort,
            "adjourn": self.adjourn,
            "takeback": lambda handle: self.takeback(handle, offer.plies),
        }
        return accepting[offer.kind](handle)

    def decline(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Decline every offer made to ``handle`` (or only offer ``offer_id``)."""
        self._player(handle)
        offers = self._numbered(self.offers_to(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("There are no offers to decline."))
        notices = []
        for offer in offers:
            self.offers.remove(offer)
            notices += removal_notices(offer.id, offer.by, handle)
            what = _OFFER_NAMES[offer.kind]
            notices.append(Notice(offer.by, msg("{handle} declines the {what} offer.", handle=handle, what=what)))
            notices.append(Notice(handle, msg("You decline the {what} offer from {handle}.",
                                              what=what, handle=offer.by)))
        return notices

    def withdraw(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Withdraw every offer ``handle`` made (or only offer ``offer_id``)."""
        self._player(handle)
        offers = self._numbered(self.offers_by(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("You have no offers to withdraw."))
        opponent = self.opponent_of(handle)
        notices = []
        for offer in offers:
            self.offers.remove(offer)
            notices += removal_notices(offer.id, handle, opponent)
            what = _OFFER_NAMES[offer.kind]
            notices.append(Notice(opponent, msg("{handle} withdraws the {what} offer.", handle=handle, what=what)))
            notices.append(Notice(handle, msg("You withdraw the {what} offer.", what=what)))
        return notices

    # -- endings by players --------------------------------------------------

    def resign(self, handle: str) -> list[Notice]:
        color = self._player(handle)
        self._end(GameResult(_win(not color), msg("{handle} resigns", handle=handle),
                             code=EndCode.RESIGNATION))
        return []

    def draw(self, handle: str) -> list[Notice]:
        """Claim a fifty-move/threefold draw, accept the opponent's offer, or offer one."""
        self._player(handle)
        claim = self.tracker.claimable_draw()
        if claim is not None:
            self._end(_draw(claim.termination))
            return []
        if self._find("draw", self.opponent_of(handle)) is not None:
            self._end(GameResult(DRAW, msg("Game drawn by mutual agreement"), code=EndCode.AGREED))
            return []
        return self._offer(handle, "draw")

    def abort(self, handle: str) -> list[Notice]:
        """Abort at once before both sides have moved, else by agreement."""
        self._player(handle)
        if self.tracker.ply < 2:
            self._end(GameResult(UNFINISHED, msg("Game aborted on move {number}",
                                                 number=self.tracker.board.fullmove_number),
                                 code=EndCode.ABORTED))
            return []
        if self._find("abort", self.opponent_of(handle)) is not None:
            self._end(GameResult(UNFINISHED, msg("Game aborted by mutual agreement"),
                                 code=EndCode.ABORTED))
            return []
        return self._offer(handle, "abort")

    def adjourn(self, handle: str) -> list[Notice]:
        """Adjourn by agreement (the game is kept with its clocks for ``resume``)."""
        self._player(handle)
        if not self.adjournable:
            raise NotAdjournableError(self.not_adjournable)
        if self._find("adjourn", self.opponent_of(handle)) is not None:
            self._adjourn(msg("Game adjourned by mutual agreement"))
            return []
        return self._offer(handle, "adjourn")

    def takeback(self, handle: str, plies: int = 1) -> list[Notice]:
        """Ask to take back ``plies`` half-moves; the same request from the opponent accepts."""
        self._player(handle)
        played = self.tracker.ply
        if plies < 1 or plies > played:
            raise BadTakebackError(msgn("You can take back from 1 to {count} half move.",
                                   "You can take back from 1 to {count} half moves.", played)
                              if played else msg("There are no moves to take back."))
        opponent = self.opponent_of(handle)
        theirs = self._find("takeback", opponent)
        if theirs is None or theirs.plies != plies:
            return self._offer(handle, "takeback", plies)
        removed = self._drop_offers()
        self.tracker.takeback(plies)
        del self.move_times[played - plies:]
        self._turn_started = self.reactor.seconds()
        self._resync_clock()
        self._changed()
        if self.journal is None:
            self.listener.boardChanged(self)
        else:
            self.after_write(self.journal.took_back(self), lambda: self.listener.boardChanged(self))
        return [Notice(opponent, msg("{handle} accepts the takeback request.", handle=handle)),
                Notice(handle, msgn("You accept the takeback request: {count} half move taken back.",
                                    "You accept the takeback request: {count} half moves taken back.",
                                    plies)),
                *removed]

    def _resync_clock(self) -> None:
        first = chess.WHITE if self.tracker.initial_fen.split(" ")[1] == "w" else chess.BLACK
        plies = self.tracker.ply
        by_first = (plies + 1) // 2
        by_second = plies // 2
        white, black = (by_first, by_second) if first == chess.WHITE else (by_second, by_first)
        self.clock.resync(white_moves=white, black_moves=black, turn=self.tracker.turn)

    def flag(self, handle: str) -> list[Notice]:
        """Claim a win because the opponent's time is out."""
        color = self._player(handle)
        if self.time_control.untimed:
            raise NotOutOfTimeError(msg("This game is untimed."))
        if self.clock.remaining(not color) > 0:
            raise NotOutOfTimeError(msg("Your opponent is not out of time."))
        self._time_out(not color)
        return []

    def disconnect(self, handle: str, *, can_return: bool = True) -> None:
        """``handle`` left: the game is adjourned, or ``handle`` forfeits it (FICS).

        Only a game between registered players (:attr:`adjournable`) is
        adjourned; otherwise, as on FICS, the one who left loses ("forfeits
        by disconnection"): an adjourned game with a guest could never be
        resumed by the same person.  ``can_return=False`` forfeits an
        adjournable game too.  Observers are the host's business.
        """
        color = self.color_of(handle)
        if color is None or self.result is not None:
            return
        if can_return and self.adjournable:
            self._adjourn(msg("{handle} lost connection; game adjourned", handle=handle))
        else:
            self._end(GameResult(_win(not color), msg("{handle} forfeits by disconnection",
                                                      handle=handle),
                                 code=EndCode.DISCONNECTION))

    def stop(self) -> None:
        """The server stops: adjourn the game, or abort it if it cannot be adjourned.

        The clocks are kept as at the last move: nobody is charged for the
        time the server took to stop.
        """
        if self.result is not None:
            return
        if self.adjournable:
            self._adjourn(msg("Game adjourned by server shutdown"), charge=False)
        else:
            self._end(GameResult(UNFINISHED, msg("Game aborted by server shutdown"),
                                 code=EndCode.ABORTED))

    # -- endings by the clock and rules ---------------------------------------

    def _flag_fell(self, color: chess.Color) -> None:
        if self.result is None:
            self._time_out(color)

    def _time_out(self, color: chess.Color) -> None:
        loser = self.handle_of(color)
        winner = not color
        if self.tracker.board.has_insufficient_material(winner):
            self._end(GameResult(DRAW, msg("{loser} ran out of time and {winner} has no material to mate",
                                           loser=loser, winner=self.handle_of(winner)),
                                 code=EndCode.TIME_NO_MATERIAL))
        else:
            self._end(GameResult(_win(winner), msg("{handle} forfeits on time", handle=loser),
                                 code=EndCode.FLAG))

    def _end(self, result: GameResult) -> None:
        self.clock.stop()
        result = replace(result, notices=tuple(self._drop_offers()))
        self.result = result
        self._changed()
        self._after(lambda journal: journal.ended(self, result),
                    lambda: self.listener.gameEnded(self, result))

    def _adjourn(self, reason: Message, *, charge: bool = True) -> None:
        self.clock.pause(charge=charge)
        result = self.result = GameResult(UNFINISHED, reason, adjourned=True,
                                          notices=tuple(self._drop_offers()))
        self._changed()
        self._after(lambda journal: journal.adjourned(self, result),
                    lambda: self.listener.gameEnded(self, result))

    def _after(self, write: Callable[[IGameJournal], Deferred[Any] | None],
               announce: Callable[[], None]) -> None:
        """``announce`` now without a journal, else once ``write(journal)`` is committed."""
        if self.journal is None:
            announce()
        else:
            self.after_write(write(self.journal), announce)

    def resume(self) -> None:
        """Continue an adjourned game, clocks as they were.

        Add it back to the host's directory first (which gives it a number),
        then call this once the resumption is stored: the listener hears
        ``boardChanged``.
        """
        if not self.adjourned:
            raise GameFinishedError(msg("Game {number} is not adjourned.", number=self.number))
        self.result = None
        self._turn_started = self.reactor.seconds()
        self.clock.resume()
        self._changed()
        self.listener.boardChanged(self)


# -- adjourned games -----------------------------------------------------------


class AdjournedGames:
    """Adjourned games kept by their pair of players until they ``resume``.

    Current games are numbered and found by the host's game directory
    (:class:`ficsfen.server.directory.GameDirectory`); an adjourned game leaves it
    (its number is freed) and waits here with its history and clocks.
    """

    def __init__(self) -> None:
        self._games: dict[frozenset[str], PlayedGame] = {}

    def __len__(self) -> int:
        return len(self._games)

    def __iter__(self) -> Iterator[PlayedGame]:
        return iter(list(self._games.values()))

    @staticmethod
    def _key(a: str, b: str) -> frozenset[str]:
        return frozenset((fold(a), fold(b)))

    def keep(self, game: PlayedGame) -> None:
        if not game.adjourned:
            raise ValueError(f"{game!r} is not adjourned")
        self._games[self._key(game.white, game.black)] = game

    def between(self, a: str, b: str) -> PlayedGame | None:
        """The adjourned game of ``a`` and ``b`` (either colour), if any."""
        return self._games.get(self._key(a, b))

    def of(self, handle: str) -> list[PlayedGame]:
        key = fold(handle)
        return [g for k, g in self._games.items() if key in k]

    def take(self, a: str, b: str) -> PlayedGame | None:
        """Remove and return the adjourned game of ``a`` and ``b`` (then call ``resume``)."""
        return self._games.pop(self._key(a, b), None)

    def expire(self, before: float) -> list[PlayedGame]:
        """Remove and return the games adjourned before ``before`` (Unix time), oldest first."""
        old = sorted((g for g in self._games.values() if g.adjourned_at < before),
                     key=lambda g: g.adjourned_at)
        for game in old:
            del self._games[self._key(game.white, game.black)]
        return old
