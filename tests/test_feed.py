"""The NDJSON game feed: event contents, clocks, and a slow reader on loopback.

The loopback test runs Twisted's reactor one iteration at a time
(``reactor.iterate``) while plain blocking-free sockets play the readers:
one reads everything, one never reads.  The slow one must cost a bounded
amount of memory and the fast one must still get every event, in order.
"""

from __future__ import annotations

import json
import socket
import time

import chess
import chess.pgn
import pytest
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
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


def _shared_games(shared_pgn, count: int):
    with open(shared_pgn / "lichess-2013-100games.pgn", encoding="utf-8") as fp:
        games = []
        while len(games) < count and (game := chess.pgn.read_game(fp)) is not None:
            games.append(game)
    return games


def _pump(reactor, seconds: float = 0.0) -> None:
    reactor.iterate(seconds)


def _buffered(transport) -> int:
    """Bytes a Twisted TCP transport holds but has not yet handed to the kernel."""
    return len(transport.dataBuffer) - transport.offset + transport._tempDataLen


def test_slow_tcp_reader_stays_bounded_and_fast_reader_gets_everything(shared_pgn):
    from twisted.internet import reactor

    max_buffer = 8 * 1024
    feed = GameFeed(max_buffer=max_buffer)
    port = reactor.listenTCP(0, feed.factory(), interface="127.0.0.1")
    address = ("127.0.0.1", port.getHost().port)
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(address)
    fast = socket.create_connection(address)
    fast.setblocking(False)
    deadline = time.monotonic() + 20  # guards against a hang only
    try:
        while len(feed.readers) < 2:
            assert time.monotonic() < deadline, "feed readers did not connect"
            _pump(reactor, 0.01)
        by_port = {r.transport.getPeer().port: r for r in feed.readers}
        slow_reader = by_port[slow.getsockname()[1]]
        # keep the kernel's share small so the test needs few events
        slow_reader.transport.getHandle().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)

        received = bytearray()
        expected: list[dict] = [{"type": "hello", "games": 0}]
        worst_queue = worst_transport = 0
        for number, pgn_game in enumerate(_shared_games(shared_pgn, 60), 1):
            game = ScratchGame(number, pgn_game.headers["White"], pgn_game.headers["Black"])
            feed.game_started(game)
            expected.append({"type": "start", "game": number})
            for move in pgn_game.mainline_moves():
                ply = game.tracker.push_move(move)
                expected.append({"type": "move", "game": number, "fen": ply.fen})
                _pump(reactor)
                worst_queue = max(worst_queue, slow_reader.queued_bytes)
                worst_transport = max(worst_transport, _buffered(slow_reader.transport))
                try:
                    while chunk := fast.recv(65536):
                        received += chunk
                except BlockingIOError:
                    pass
            feed.game_ended(game, pgn_game.headers["Result"])
            expected.append({"type": "end", "game": number})

        total = sum(len(json.dumps(e)) for e in expected)
        assert slow_reader.dropped_total > 0, "the slow reader never fell behind"
        assert worst_queue <= max_buffer
        # Twisted stops us writing once its buffer passes bufferSize: at most one line more
        assert worst_transport <= slow_reader.transport.bufferSize + 4096
        assert worst_queue + worst_transport < total / 4

        while received.count(b"\n") < len(expected):
            assert time.monotonic() < deadline, "fast reader did not get every event"
            _pump(reactor, 0.01)
            try:
                while chunk := fast.recv(65536):
                    received += chunk
            except BlockingIOError:
                pass
        got = [json.loads(line) for line in received.decode("utf-8").splitlines()]
        assert len(got) == len(expected)
        for event, want in zip(got, expected):
            assert {k: event[k] for k in want} == want

        # Once the slow reader reads, it gets a prefix, one overflow notice, then the tail.
        slow.setblocking(False)
        data = bytearray()
        while True:
            assert time.monotonic() < deadline, "slow reader did not catch up"
            _pump(reactor, 0.01)
            try:
                while chunk := slow.recv(65536):
                    data += chunk
            except BlockingIOError:
                pass
            lines = data.decode("utf-8").splitlines()
            if not slow_reader.queued_bytes and data.endswith(b"\n") and lines and \
                    json.loads(lines[-1])["type"] == "end":
                break
        late = [json.loads(line) for line in lines]
        notices = [i for i, e in enumerate(late) if e["type"] == "overflow"]
        assert len(notices) == 1
        k = notices[0]
        dropped = late[k]["dropped"]
        assert dropped == slow_reader.dropped_total
        assert late[:k] == got[:k]
        assert late[k + 1:] == got[k + dropped:]
    finally:
        slow.close()
        fast.close()
        port.stopListening()
        for _ in range(20):
            _pump(reactor, 0.01)
        if feed.readers:
            pytest.fail(f"readers still connected: {feed.readers}")


def test_our_server_feeds_its_games_through_the_same_hooks():
    from ficsfen.server.testing import connect, make_server

    server = make_server()
    if not hasattr(server, "game_hooks"):
        pytest.skip("FicsServer.game_hooks is not wired yet (server change of issue 5)")
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
