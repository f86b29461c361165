"""The NDJSON game feed: event contents, clocks, and slow readers.

No test here touches the global reactor or a socket.  The feed listens on a
``MemoryReactorClock`` and its readers connect through ``twisted.test.iosim``
on a transport that applies TCP's flow control as Twisted's own sockets do
(pause the producer past ``bufferSize``, resume once drained): one reader
reads everything, one never reads.  The slow one must cost a bounded amount
of memory and the fast one must still get every event, in order.
"""

from __future__ import annotations

import json

import chess
import pytest
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.test.iosim import FakeTransport, connectedServerAndClient
from zope.interface import implementer

from ficsfen import GameFeed, IGame, Tracker
from ficsfen.server.clock import TimeControl
from ficsfen.server.games import PlayedGame

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
AFTER_C5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
AFTER_NF3 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@implementer(IGame)
class ScratchGame:
    """The smallest IGame: two handles and a real tracker, no clock."""

    examined = True

    def __init__(self, number: int, white: str = "alice", black: str = "bob") -> None:
        self.number = number
        self.white = white
        self.black = black
        self.tracker = Tracker()

    def players(self):
        return (self.white, self.black)


def connect_reader(feed: GameFeed):
    """A reader on a StringTransport that accepts producers, as a TCP transport does."""
    transport = StringTransport()
    reader = feed.factory().buildProtocol(None)
    reader.makeConnection(transport)
    return reader, transport


def events(transport: StringTransport) -> list[dict]:
    return [json.loads(line) for line in transport.value().decode("utf-8").splitlines()]


def test_move_start_and_end_events_carry_the_standard_fens():
    feed = GameFeed()
    reader, transport = connect_reader(feed)
    assert transport.producer is reader and transport.streaming
    game = ScratchGame(7)
    feed.game_started(game)
    for move in ("e4", "c5", "Nf3"):
        game.tracker.push(move)
    feed.game_ended(game, "*")
    game.tracker.push("d6")  # no longer followed
    hello, *got = events(transport)
    assert hello == {"type": "hello", "protocol": 1, "games": 0}
    assert [e["type"] for e in got] == ["start", "move", "move", "move", "end"]
    assert got[0] == {"type": "start", "game": 7, "white": "alice", "black": "bob",
                      "examined": True, "fen": START, "ply": 0, "time_control": None,
                      "clocks": None}
    assert [(e["ply"], e["san"], e["uci"], e["fen"]) for e in got[1:4]] == [
        (1, "e4", "e2e4", AFTER_E4), (2, "c5", "c7c5", AFTER_C5), (3, "Nf3", "g1f3", AFTER_NF3)]
    assert all(e["game"] == 7 and e["clocks"] is None for e in got[1:4])
    assert got[4]["result"] == "*" and got[4]["fen"] == AFTER_NF3
    assert feed.following() == 0


def test_played_game_clocks_include_the_increment_and_the_end_reason():
    reactor = Clock()
    feed = GameFeed(lang="fr")
    reader, transport = connect_reader(feed)
    game = PlayedGame("alice", "bob", reactor=reactor, number=3,
                      time_control=TimeControl(minutes=3, increment=2))
    feed.game_started(game)
    clocks_seen = []
    for mover, move, think in (("alice", "e4", 4), ("bob", "e5", 3), ("alice", "Nf3", 5),
                               ("bob", "Nc6", 7)):
        reactor.advance(think)
        game.move(mover, move)
        clocks_seen.append({"white": round(game.clock.remaining(chess.WHITE), 3),
                            "black": round(game.clock.remaining(chess.BLACK), 3)})
    game.resign("bob")
    feed.game_ended(game, game.result)
    got = events(transport)[1:]
    assert got[0]["time_control"] == {"initial": 180.0, "increment": 2.0}
    assert got[0]["clocks"] == {"white": 180.0, "black": 180.0}
    moves = [e for e in got if e["type"] == "move"]
    # each move event shows the clocks exactly as the game has them once the move is done
    assert [e["clocks"] for e in moves] == clocks_seen
    assert clocks_seen[2] == {"white": 177.0, "black": 180.0}  # 5 s used, 2 s back
    end = got[-1]
    assert end["type"] == "end" and end["result"] == "1-0"
    assert end["reason"] == game.result.reason.render("fr") and "bob" in end["reason"]


def test_a_paused_reader_queues_boundedly_then_gets_an_overflow_notice():
    feed = GameFeed(max_buffer=600)
    slow, slow_t = connect_reader(feed)
    fast, fast_t = connect_reader(feed)
    game = ScratchGame(1)
    feed.game_started(game)
    slow.pauseProducing()  # what a TCP transport does when its buffer is full
    sans = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5"]
    for san in sans:
        game.tracker.push(san)
        assert slow.queued_bytes <= 600
    assert slow.dropped > 0
    before = events(slow_t)
    assert [e["type"] for e in before] == ["hello", "start"]
    slow.resumeProducing()
    after = events(slow_t)[2:]
    notice = after[0]
    assert notice["type"] == "overflow"
    rest = after[1:]
    assert notice["dropped"] + len(rest) == len(sans)
    assert [e["san"] for e in rest] == sans[notice["dropped"]:]
    assert [e["san"] for e in events(fast_t) if e["type"] == "move"] == sans


def test_a_late_reader_learns_the_games_in_progress():
    feed = GameFeed()
    first, second = ScratchGame(1), ScratchGame(2, "carol", "dave")
    feed.game_started(first)
    feed.game_started(second)
    for move in ("e4", "c5"):
        first.tracker.push(move)
    feed.game_ended(second, "1/2-1/2")
    reader, transport = connect_reader(feed)
    first.tracker.push("Nf3")
    got = events(transport)
    assert got[0] == {"type": "hello", "protocol": 1, "games": 1}
    assert got[1]["type"] == "start" and got[1]["game"] == 1
    assert (got[1]["ply"], got[1]["fen"]) == (2, AFTER_C5)
    assert [(e["type"], e["ply"], e["fen"]) for e in got[2:]] == [("move", 3, AFTER_NF3)]


def test_a_new_tracker_or_a_takeback_is_a_position_event():
    feed = GameFeed()
    reader, transport = connect_reader(feed)
    game = ScratchGame(2)
    feed.game_started(game)
    game.tracker.push("e4")
    feed.position_changed(game)  # nothing new: the move was already sent
    game.tracker.takeback(1)
    feed.position_changed(game)
    feed.position_changed(game)
    game.tracker = Tracker(AFTER_C5)  # what "bsetup done" does to an examined game
    feed.position_changed(game)
    game.tracker.push("Nf3")
    feed.position_changed(ScratchGame(9))  # a game the feed does not follow: ignored
    got = events(transport)[2:]
    assert [(e["type"], e["ply"], e["fen"]) for e in got] == [
        ("move", 1, AFTER_E4), ("position", 0, START), ("position", 0, AFTER_C5),
        ("move", 1, AFTER_NF3)]
    assert feed.following() == 1


def test_extra_readers_are_refused_and_departed_readers_forgotten():
    feed = GameFeed(max_readers=1)
    first, first_t = connect_reader(feed)
    second, second_t = connect_reader(feed)
    assert feed.readers == [first] and second_t.disconnecting
    first.connectionLost(None)
    assert feed.readers == []
    feed.publish({"type": "test"})  # nobody to send to: no error


class Collector(Protocol):
    """The reading end of a feed connection: keeps every byte it is given."""

    def __init__(self) -> None:
        self.data = bytearray()

    def dataReceived(self, data: bytes) -> None:
        self.data += data

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.data.decode("utf-8").splitlines()]


class FlowControlledTransport(FakeTransport):
    """An iosim transport that applies TCP flow control the way Twisted's sockets do.

    Written bytes wait here until the pump hands them to the reader.  Once
    more than ``bufferSize`` wait, a streaming producer is paused; once the
    reader has taken them all, it is resumed (``abstract.FileDescriptor``'s
    rule).  A reader whose pump is not run is a reader that stopped reading.
    """

    def __init__(self, protocol, isServer: bool, bufferSize: int) -> None:
        super().__init__(protocol, isServer)
        self.bufferSize = bufferSize
        self.producerPaused = False
        self.waiting = 0
        self.most_waiting = 0

    def write(self, data: bytes) -> None:
        if self.disconnecting:
            return
        super().write(data)
        self.waiting += len(data)
        self.most_waiting = max(self.most_waiting, self.waiting)
        if self.waiting > self.bufferSize and self.streamingProducer and not self.producerPaused:
            self.producerPaused = True
            self.producer.pauseProducing()

    def getOutBuffer(self):
        data = super().getOutBuffer()
        self.waiting = 0
        if self.producerPaused and self.producer is not None:
            self.producerPaused = False
            self.producer.resumeProducing()
        return data


def listening_feed(reactor: MemoryReactorClock, **options) -> tuple[GameFeed, object]:
    """A feed listening on ``reactor`` (no socket), and the factory it listens with."""
    feed = GameFeed(**options)
    listening = feed.listen(reactor, "tcp:4321:interface=127.0.0.1")
    assert listening.called
    ((port, factory, _, interface),) = reactor.tcpServers
    assert (port, interface) == (4321, "127.0.0.1")
    return feed, factory


def tcp_reader(factory, reactor: MemoryReactorClock, buffer_size: int):
    """A reader connected through iosim: (its collector, the feed's reader, the pump)."""
    return connectedServerAndClient(
        lambda: factory.buildProtocol(None), Collector,
        serverTransportFactory=lambda p: FlowControlledTransport(p, True, buffer_size),
        clock=reactor)


def scripted_games(count: int, plies: int = 80):
    """``count`` legal games, each move picked from python-chess's legal moves by a fixed rule."""
    for number in range(1, count + 1):
        board = chess.Board()
        moves = []
        while len(moves) < plies and not board.is_game_over():
            legal = sorted(board.legal_moves, key=chess.Move.uci)
            move = legal[(number * 7 + len(moves) * 3) % len(legal)]
            board.push(move)
            moves.append(move)
        yield number, moves


@pytest.mark.slow
def test_slow_reader_stays_bounded_and_fast_reader_gets_everything():
    reactor = MemoryReactorClock()
    max_buffer, socket_buffer = 8 * 1024, 4096
    feed, factory = listening_feed(reactor, max_buffer=max_buffer)
    slow, slow_reader, slow_pump = tcp_reader(factory, reactor, socket_buffer)
    fast, fast_reader, fast_pump = tcp_reader(factory, reactor, socket_buffer)
    slow_transport = slow_reader.transport
    assert feed.readers == [slow_reader, fast_reader]
    assert slow_transport.producer is slow_reader and slow_transport.streamingProducer

    expected: list[dict] = [{"type": "hello", "games": 0}]
    worst_queue = longest = 0
    for number, moves in scripted_games(60):
        game = ScratchGame(number)
        feed.game_started(game)
        expected.append({"type": "start", "game": number})
        for move in moves:
            ply = game.tracker.push_move(move)
            expected.append({"type": "move", "game": number, "fen": ply.fen})
            fast_pump.flush()  # the fast reader reads everything at once; the slow one nothing
            worst_queue = max(worst_queue, slow_reader.queued_bytes)
        feed.game_ended(game, "*")
        expected.append({"type": "end", "game": number})
        longest = max(longest, *(len(line) for line in fast.data.splitlines()))
    fast_pump.flush()

    got = fast.events()
    assert len(got) == len(expected)
    for event, want in zip(got, expected):
        assert {k: event[k] for k in want} == want
    assert fast_reader.dropped_total == 0

    total = len(fast.data)
    assert slow_reader.dropped_total > 0, "the slow reader never fell behind"
    assert worst_queue <= max_buffer
    # the transport pauses the reader once past its buffer size: at most one line more
    assert slow_transport.most_waiting <= socket_buffer + longest + 1
    assert worst_queue + slow_transport.most_waiting < total / 4

    # Once the slow reader reads, it gets a prefix, one overflow notice, then the tail.
    slow_pump.flush()
    assert slow_reader.queued_bytes == 0 and not slow_reader.paused
    late = slow.events()
    notices = [i for i, e in enumerate(late) if e["type"] == "overflow"]
    assert len(notices) == 1
    k = notices[0]
    dropped = late[k]["dropped"]
    assert dropped == slow_reader.dropped_total
    assert late[:k] == got[:k]
    assert late[k + 1:] == got[k + dropped:]

    # readers that hang up are forgotten
    slow.transport.loseConnection()
    slow_pump.flush()
    assert feed.readers == [fast_reader]
    fast.transport.loseConnection()
    fast_pump.flush()
    assert feed.readers == []


def test_a_reader_that_hangs_up_while_paused_is_forgotten_and_costs_nothing():
    reactor = MemoryReactorClock()
    feed, factory = listening_feed(reactor, max_buffer=1024)
    slow, slow_reader, slow_pump = tcp_reader(factory, reactor, 512)
    game = ScratchGame(5)
    feed.game_started(game)
    for move in next(scripted_games(1, plies=40))[1]:
        game.tracker.push_move(move)
    assert slow_reader.paused and slow_reader.queued_bytes > 0
    slow.transport.loseConnection()
    slow_pump.flush()
    assert feed.readers == [] and slow_reader.queued_bytes == 0
    received = bytes(slow.data)
    game.tracker.push_move(next(iter(game.tracker.board.legal_moves)))
    slow_pump.flush()
    assert slow_reader.queued_bytes == 0 and slow.data == received


def test_our_server_feeds_its_games_through_the_same_hooks():
    from ficsfen.server.testing import connect, make_server

    server = make_server()
    feed = GameFeed()
    server.game_hooks.append(feed)
    reader, transport = connect_reader(feed)
    alice = connect(server)
    handle = alice.login()
    alice.command("examine")
    for move in ("e4", "c5", "Nf3"):
        alice.command(move)
    alice.command("backward")
    for line in ("bsetup", f"bsetup fen {AFTER_NF3}", "bsetup done", "d6"):
        alice.command(line)
    alice.command("unexamine")
    got = events(transport)[1:]
    assert [e["type"] for e in got] == [
        "start", "move", "move", "move", "position", "position", "move", "end"]
    assert got[0]["white"] == handle and got[0]["fen"] == START
    assert [e["fen"] for e in got[1:4]] == [AFTER_E4, AFTER_C5, AFTER_NF3]
    assert (got[4]["ply"], got[4]["fen"]) == (2, AFTER_C5)
    assert (got[5]["ply"], got[5]["fen"]) == (0, AFTER_NF3)  # bsetup gave a new tracker
    assert (got[6]["ply"], got[6]["san"]) == (1, "d6")
    assert {e["game"] for e in got} == {got[0]["game"]}
    assert feed.following() == 0


def test_examined_moves_and_forward_steps_are_reported_once():
    """Moves reach the feed once each, however often the host says the position changed."""
    from ficsfen.server.examined import ExaminedGame

    feed = GameFeed()
    reader, transport = connect_reader(feed)
    game = ExaminedGame("alice")
    game.number = 4
    feed.game_started(game)
    game.move("alice", "e4")
    feed.position_changed(game)
    game.move("alice", "c5")
    game.backward(2)
    feed.position_changed(game)
    game.forward(2)
    feed.position_changed(game)
    feed.position_changed(game)
    got = events(transport)[2:]
    assert [(e["type"], e["ply"], e["fen"]) for e in got] == [
        ("move", 1, AFTER_E4), ("move", 2, AFTER_C5), ("position", 0, START),
        ("move", 1, AFTER_E4), ("move", 2, AFTER_C5)]


def test_a_host_game_declaring_IClockedGame_gets_its_clocks_reported():
    from twisted.internet.task import Clock

    from ficsfen.interfaces import IClockedGame
    from ficsfen.server.clock import ChessClock

    @implementer(IClockedGame)
    class HostClockedGame(ScratchGame):
        examined = False

        def __init__(self, number: int) -> None:
            super().__init__(number)
            self.time_control = TimeControl(minutes=1, increment=0)
            self.clock = ChessClock(time_control=self.time_control, reactor=Clock())
            self.move_times: list[float] = []

    feed = GameFeed()
    _, transport = connect_reader(feed)
    feed.game_started(HostClockedGame(3))
    plain = ScratchGame(4)
    plain.clock = HostClockedGame(5).clock  # a clock it does not declare: not reported
    feed.game_started(plain)
    _, clocked, undeclared = events(transport)
    assert clocked["clocks"] == {"white": 60.0, "black": 60.0}
    assert clocked["time_control"] == {"initial": 60.0, "increment": 0.0}
    assert undeclared["clocks"] is None and undeclared["time_control"] is None
