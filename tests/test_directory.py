"""The game directory: reused numbers, players, observers, event listeners."""

from __future__ import annotations

from ficsfen.server.directory import GameDirectory
from ficsfen.server.examined import ExaminedGame
from ficsfen.interfaces import IGameDirectory
from ficsfen.server.testing import connect, make_server


class Recorder:
    """A listener that keeps every event (what the --feed does with them)."""

    def __init__(self):
        self.events = []

    def game_started(self, game):
        self.events.append(("start", game.number, game.tracker.fen))

    def position_changed(self, game):
        self.events.append(("position", game.number, game.tracker.fen))

    def game_ended(self, game, result=None):
        self.events.append(("end", game.number, result))


def test_provides_the_interface_and_reuses_small_numbers():
    directory = GameDirectory(lambda: ["alice", "bob", "carol"])
    assert IGameDirectory.providedBy(directory)
    games = [ExaminedGame(name) for name in ("alice", "bob", "carol")]
    assert [directory.add(g) for g in games] == [1, 2, 3]
    directory.remove(games[1])
    directory.remove(games[0])
    assert directory.add(ExaminedGame("dave")) == 1
    assert directory.add(ExaminedGame("erin")) == 2
    assert directory.add(ExaminedGame("fred")) == 4
    assert directory.by_number(3) is games[2]
    assert directory.game_of("CAROL") is games[2]
    assert directory.game_of("alice") is None
    assert list(directory.handles()) == ["alice", "bob", "carol"]


def test_observers():
    directory = GameDirectory()
    first, second = ExaminedGame("alice"), ExaminedGame("bob")
    directory.add(first)
    directory.add(second)
    assert directory.observe("carol", first)
    assert not directory.observe("Carol", first)
    directory.observe("carol", second)
    assert directory.observed_by("carol") is second
    assert directory.unobserve("carol", second)
    assert directory.observed_by("carol") is first
    directory.remove(first)
    assert directory.observed_by("carol") is None
    assert directory.observers(first) == []


def test_a_failing_listener_does_not_break_the_game():
    class Broken:
        def game_started(self, game):
            raise RuntimeError("boom")

    directory = GameDirectory()
    recorder = Recorder()
    directory.listeners += [Broken(), recorder]
    directory.add(ExaminedGame("alice"))
    assert recorder.events[0][0] == "start"


def test_server_reports_examined_game_events():
    server = make_server()
    recorder = Recorder()
    server.game_hooks.append(recorder)
    client = connect(server)
    client.login("alice")
    client.command("examine")
    client.command("e4")
    client.command("backward")
    client.command("bsetup fen 4k3/8/8/8/8/8/4P3/4K3 w - - 5 39")
    client.command("bsetup done")
    client.command("unexamine")
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert recorder.events == [
        ("start", 1, start),
        ("position", 1, start),
        ("position", 1, "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"),
        ("end", 1, None),
    ]


def test_game_numbers_reused_across_sessions():
    server = make_server()
    a = connect(server)
    a.login("alice")
    a.command("examine")
    a.disconnect()
    b = connect(server)
    b.login("bob")
    assert "Game 1 (bob" in b.command("examine")
    assert "Game 1 (bob" in b.command("fen")
