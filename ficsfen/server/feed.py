"""A feed of game events: newline-delimited JSON for any number of TCP readers.

Integrators (broadcast boards, databases, bots) want every move of every
game as it happens, like the per-move FEN streams big chess sites offer.
:class:`GameFeed` turns game events into one JSON object per line.  A new
reader first gets a ``hello`` line and a ``start`` line for every game in
progress (its current FEN and ply), then the events as they happen::

    {"type": "hello", "protocol": 1, "games": 1}
    {"type": "start", "game": 3, "white": "alice", "black": "bob", ...}
    {"type": "move", "game": 3, "ply": 1, "san": "e4", "uci": "e2e4",
     "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
     "clocks": {"white": 180.0, "black": 180.0}}
    {"type": "end", "game": 3, "white": "alice", "black": "bob",
     "result": "1-0", "reason": "bob resigns"}

A takeback or a new position set up in an examined game is a ``position``
event (``game``, ``fen``, ``ply``, ``clocks``): the host calls
:meth:`GameFeed.position_changed`.

It is host-agnostic: the host calls :meth:`GameFeed.game_started` when a
game (anything providing :class:`ficsfen.interfaces.IGame`) begins, which
follows its moves (through ``subscribe_moves`` when the game provides
:class:`ficsfen.interfaces.IMoveEvents`, so clocks are read once the move
is complete, else through its tracker's ``subscribe``), and
:meth:`GameFeed.game_ended` when it ends.  Clocks and time control come
from games providing :class:`ficsfen.interfaces.IClockedGame`.  Our own
server does exactly that; so can any other.

A slow reader must never block the server or make it grow without bound.
Each reader registers itself as a streaming producer on its transport, so
Twisted tells it (``pauseProducing``) when the socket stops draining; from
then on lines wait in that reader's own queue, capped at ``max_buffer``
bytes.  When the cap is reached the oldest lines are dropped, and once the
reader catches up it first gets ``{"type": "overflow", "dropped": N}`` so it
knows it missed ``N`` events.  Other readers are not affected.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Callable

import chess
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IAddress, IConsumer, IListeningPort, IPushProducer, ITransport
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.logger import LogLevel, Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from ficsfen.i18n import DEFAULT_LANGUAGE, msg
from ficsfen.interfaces import IClockedGame, IGame, IMoveEvents
from ficsfen.tracker import Ply, Tracker, outcome_message
from ficsfen.server.games import GameResult
from ficsfen.server.interfaces import IGameEvents

__all__ = [
    "DEFAULT_MAX_BUFFER",
    "FEED_OPTION_HELP",
    "PROTOCOL_VERSION",
    "FeedReader",
    "GameFeed",
    "clocks_of",
]

#: Version of the event format, sent in the ``hello`` line to each new reader.
PROTOCOL_VERSION = 1

#: Bytes a reader may have waiting in its own queue before lines are dropped.
DEFAULT_MAX_BUFFER = 256 * 1024

#: The help of a ``--feed ENDPOINT`` option (``ficsfen serve``, ``twist ficsfen``, hosts).
FEED_OPTION_HELP = msg("serve newline-delimited JSON game events on this Twisted endpoint "
                       "(off by default)")

_log = Logger(namespace="ficsfen.server.feed")


def _line(event: Mapping[str, object]) -> bytes:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def clocks_of(game: IGame) -> dict[str, float] | None:
    """The game's clocks in seconds, ``None`` for a game without a clock.

    Move events are sent once the game has finished the move (see
    :meth:`GameFeed.game_started`), so this is what the clock shows now.
    """
    clocked = IClockedGame(game, None)
    if clocked is None:
        return None
    try:  # a host's clock: a value that is no number is no clock
        white = float(clocked.clock.remaining(chess.WHITE))
        black = float(clocked.clock.remaining(chess.BLACK))
    except (TypeError, ValueError):
        return None
    return {"white": round(white, 3), "black": round(black, 3)}


def _time_control(game: IGame) -> dict[str, float] | None:
    clocked = IClockedGame(game, None)
    if clocked is None or clocked.time_control.untimed:
        return None
    tc = clocked.time_control
    try:
        return {"initial": float(tc.initial_seconds), "increment": float(tc.increment)}
    except (TypeError, ValueError):
        return None


class IReaderTransport(ITransport, IConsumer):
    """A reader's connection as the feed uses it: it writes, and takes the reader as its producer."""


@implementer(IPushProducer)
class FeedReader(Protocol):
    """One reader's connection: writes lines, queues them while the socket is full."""

    # Twisted's Protocol has ``ITransport | None``: a reader's is set when it is
    # connected, before the feed writes to it, and is a TCP connection.
    transport: IReaderTransport

    def __init__(self, feed: GameFeed) -> None:
        self.feed = feed
        self.paused = False
        self.dropped = 0  #: events dropped since the last overflow notice
        self.dropped_total = 0
        self._queue: deque[bytes] = deque()
        self._queued = 0

    def __repr__(self) -> str:
        return f"<FeedReader queued={self._queued} dropped={self.dropped_total} paused={self.paused}>"

    @property
    def queued_bytes(self) -> int:
        """Bytes waiting in this reader's own queue (never above ``max_buffer``)."""
        return self._queued

    def connectionMade(self) -> None:
        if not self.feed._attach(self):
            self.transport.loseConnection()
            return
        self.transport.registerProducer(self, True)
        self.feed._greet(self)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.feed._detach(self)
        self._queue.clear()
        self._queued = 0

    def dataReceived(self, data: bytes) -> None:
        """Readers only read; whatever they send is ignored."""

    # -- IPushProducer ----------------------------------------------------

    def pauseProducing(self) -> None:
        self.paused = True

    def resumeProducing(self) -> None:
        self.paused = False
        self._flush()

    def stopProducing(self) -> None:
        self.paused = True
        self._queue.clear()
        self._queued = 0

    # -- writing ----------------------------------------------------------

    def send(self, line: bytes) -> None:
        """Write one line now, or queue it (bounded) while the reader is slow."""
        if not self.paused and not self._queue and not self.dropped:
            self.transport.write(line)
            return
        limit = self.feed.max_buffer
        if len(line) > limit:
            self._drop(1)
            return
        self._queue.append(line)
        self._queued += len(line)
        while self._queued > limit:
            self._queued -= len(self._queue.popleft())
            self._drop(1)
        if not self.paused:
            self._flush()

    def _drop(self, count: int) -> None:
        self.dropped += count
        self.dropped_total += count

    def _flush(self) -> None:
        # Each write may pause us again (the transport calls pauseProducing
        # from inside write once its buffer passes its high-water mark).
        if self.dropped and not self.paused:
            notice, self.dropped = self.dropped, 0
            self.transport.write(_line({"type": "overflow", "dropped": notice}))
        queue = self._queue
        while queue and not self.paused:
            line = queue.popleft()
            self._queued -= len(line)
            self.transport.write(line)


@dataclass
class _Followed:
    """A game the feed follows: its tracker, the unsubscriber, the last (ply, FEN) sent."""

    game: IGame
    tracker: Tracker
    unsubscribe: Callable[[], None]
    last: tuple[int, str]


class _ReaderFactory(Factory):
    def __init__(self, feed: GameFeed) -> None:
        self.feed = feed

    def buildProtocol(self, addr: IAddress | None) -> FeedReader:
        reader = FeedReader(self.feed)
        reader.factory = self
        return reader


@implementer(IGameEvents)
class GameFeed:
    """Game events as newline-delimited JSON to every connected reader.

    ``max_buffer`` bounds each reader's queue in bytes; ``max_readers``
    bounds how many may connect (extra connections are closed at once);
    ``lang`` is the language of the human-readable ``reason`` of end events.
    """

    def __init__(self, *, max_buffer: int = DEFAULT_MAX_BUFFER, max_readers: int = 1000,
                 lang: str = DEFAULT_LANGUAGE) -> None:
        if max_buffer < 1 or max_readers < 0:
            raise ValueError("max_buffer must be positive and max_readers not negative")
        self.max_buffer = max_buffer
        self.max_readers = max_readers
        self.lang = lang
        self.readers: list[FeedReader] = []
        self._games: dict[int, _Followed] = {}

    def __repr__(self) -> str:
        return (f"GameFeed(max_buffer={self.max_buffer!r}, max_readers={self.max_readers!r}, "
                f"lang={self.lang!r})")

    # -- network ----------------------------------------------------------

    def factory(self) -> Factory:
        """A Twisted factory whose connections are readers of this feed."""
        return _ReaderFactory(self)

    def listen(self, reactor: object, endpoint: str) -> Deferred[IListeningPort]:
        """Listen on a Twisted endpoint string; a Deferred firing with the port."""
        from twisted.internet.endpoints import serverFromString

        return serverFromString(reactor, endpoint).listen(self.factory())

    def _attach(self, reader: FeedReader) -> bool:
        if len(self.readers) >= self.max_readers:
            return False
        self.readers.append(reader)
        return True

    def _detach(self, reader: FeedReader) -> None:
        try:
            self.readers.remove(reader)
        except ValueError:
            pass

    # -- events -----------------------------------------------------------

    def publish(self, event: Mapping[str, object]) -> None:
        """Send one event (a JSON-serializable dict) to every reader."""
        if not self.readers:
            return
        line = _line(event)
        for reader in tuple(self.readers):
            try:
                reader.send(line)
            except Exception:
                _log.failure("feed reader {reader!r} failed", level=LogLevel.error, reader=reader)

    def game_started(self, game: IGame) -> None:
        """Announce ``game`` (an :class:`~ficsfen.interfaces.IGame`) and follow its moves.

        A game providing :class:`~ficsfen.interfaces.IMoveEvents` (played and
        examined games) reports each move once it is complete, clocks
        included; any other game is followed through its tracker's ``subscribe``.
        """
        if id(game) in self._games:
            return
        self._follow(game)
        self.publish(self._start_event(game))

    def _follow(self, game: IGame) -> None:
        tracker = game.tracker
        events = IMoveEvents(game, None)
        subscribe = events.subscribe_moves if events is not None else tracker.subscribe
        followed = _Followed(game, tracker, subscribe(lambda ply: self._moved(game, ply)),
                             (tracker.ply, tracker.fen))
        self._games[id(game)] = followed

    @staticmethod
    def _start_event(game: IGame) -> dict[str, object]:
        tracker = game.tracker
        return {
            "type": "start",
            "game": game.number,
            "white": game.white,
            "black": game.black,
            "examined": bool(game.examined),
            "fen": tracker.fen,
            "ply": tracker.ply,
            "time_control": _time_control(game),
            "clocks": clocks_of(game),
        }

    def _greet(self, reader: FeedReader) -> None:
        """A new reader learns the games in progress (``ply`` > 0 when joining late)."""
        games = [followed.game for followed in self._games.values()]
        reader.send(_line({"type": "hello", "protocol": PROTOCOL_VERSION, "games": len(games)}))
        for game in games:
            reader.send(_line(self._start_event(game)))

    def position_changed(self, game: IGame) -> None:
        """The position may have changed other than by a move (takeback, ``bsetup``...).

        Cheap to call after every change of any kind: when the game's tracker
        and position are those the feed last reported (a move it already
        sent), nothing happens.  Otherwise the feed follows the game's
        tracker again (a new one may have replaced it) and sends
        ``{"type": "position", ...}`` with the current FEN and ply.
        """
        followed = self._games.get(id(game))
        if followed is None:
            return
        tracker = game.tracker
        if tracker is followed.tracker and (tracker.ply, tracker.fen) == followed.last:
            return
        if tracker is not followed.tracker:
            followed.unsubscribe()
            self._follow(game)
        else:
            followed.last = (tracker.ply, tracker.fen)
        self.publish({
            "type": "position",
            "game": game.number,
            "fen": tracker.fen,
            "ply": tracker.ply,
            "clocks": clocks_of(game),
        })

    def game_ended(self, game: IGame, result: object = None) -> None:
        """Announce the end of ``game`` and stop following it.

        ``result`` may be a ``GameResult`` (``score`` and ``reason``), a
        tracker's :class:`chess.Outcome`, a score string or ``None``.
        """
        followed = self._games.pop(id(game), None)
        if followed is not None:
            followed.unsubscribe()
        score, reason = _result_fields(result, self.lang)
        self.publish({
            "type": "end",
            "game": game.number,
            "white": game.white,
            "black": game.black,
            "result": score,
            "reason": reason,
            "fen": game.tracker.fen,
            "ply": game.tracker.ply,
            "clocks": clocks_of(game),
        })

    def disconnect_all(self) -> None:
        """Close every reader's connection (when the host shuts down)."""
        for reader in tuple(self.readers):
            reader.transport.loseConnection()

    def following(self) -> int:
        """How many games the feed follows now."""
        return len(self._games)

    def _moved(self, game: IGame, ply: Ply) -> None:
        followed = self._games.get(id(game))
        if followed is not None:
            followed.last = (ply.number, ply.fen)
        self.publish({
            "type": "move",
            "game": game.number,
            "ply": ply.number,
            "san": ply.san,
            "uci": ply.uci,
            "fen": ply.fen,
            "clocks": clocks_of(game),
        })


def _result_fields(result: object, lang: str) -> tuple[str, str | None]:
    """(score, reason text) of the result a host hands :meth:`GameFeed.game_ended`.

    Each shape is named: our server's ``GameResult``, python-chess's
    :class:`chess.Outcome` (what :meth:`Tracker.outcome` returns), a score
    string, or ``None`` for an unfinished game.
    """
    if result is None:
        return "*", None
    if isinstance(result, str):
        return result, None
    if isinstance(result, chess.Outcome):
        return result.result(), outcome_message(result).render(lang)
    if isinstance(result, GameResult):
        return result.score, result.reason.render(lang)
    raise TypeError(f"a game result is a GameResult, a chess.Outcome, a score or None, not {result!r}")
