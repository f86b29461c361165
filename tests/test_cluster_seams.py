"""The seams a cluster plugs its games into, on one process (no Redis): the directory's
numbers, ``games`` listing another node's games, the dispatcher's forwarding hook."""

from __future__ import annotations

from dataclasses import dataclass

from ficsfen.server.directory import GameDirectory
from ficsfen.server.examined import ExaminedGame
from ficsfen.server.testing import connect, make_server


@dataclass(frozen=True)
class Listing:
    """Another node's game as ``games`` lists it (what ``listed_elsewhere`` returns)."""

    number: int
    line: str
    handles: tuple[str, str]
    kind: str

    def players(self) -> tuple[str, str]:
        return self.handles


def test_numbers_reserved_for_the_node_first_then_the_smallest_free_not_taken_elsewhere():
    directory = GameDirectory()
    reserved = [5, 6]
    directory.number_source = lambda: reserved.pop(0) if reserved else None
    directory.taken_elsewhere = {1, 3}.__contains__
    games = [ExaminedGame(name) for name in ("a", "b", "c", "d", "e")]
    assert [directory.add(g) for g in games[:2]] == [5, 6]  # the cluster's reservations
    assert [directory.add(g) for g in games[2:]] == [2, 4, 7]  # 1, 3 elsewhere; 5, 6 in use
    directory.remove(games[0])
    reserved.append(4)  # a reserved number already in use here is not handed out twice
    assert directory.add(ExaminedGame("f")) == 5


def test_games_lists_the_other_nodes_games_by_number_with_their_lines():
    server = make_server()
    alice = connect(server)
    alice.login("alice")
    carol = connect(server)
    carol.login("carol")
    alice.command("examine")
    remote = Listing(2, "  2 1500 bob        1400 dave       [ bu  5   0]   5:00 -  5:00 (39-39) W:  1",
                     ("bob", "dave"), "b")
    server.directory.listed_elsewhere = lambda: [remote]
    text = carol.command("games")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert lines[0].startswith("  1 (Exam.")
    assert lines[1] == remote.line
    assert "2 games displayed." in text
    assert remote.line in carol.command("games bo")
    assert "1 games displayed (of 2 in progress)." in carol.command("games /b")
    assert "No matching games were found (of 2 in progress)." in carol.command("games /z")


def test_a_forwarding_hook_takes_lines_and_gives_others_back():
    server = make_server()
    alice = connect(server)
    alice.login("alice")
    taken: list[str] = []

    def forward(session, line):
        if line.startswith("e4"):
            taken.append(line)
            return True
        return False

    server.dispatcher.forward = forward
    alice.send("e4")
    assert taken == ["e4"]
    assert "Style 12 set." in alice.command("style 12")


def test_each_change_to_what_a_player_observes_is_told_not_the_end_of_a_game():
    directory = GameDirectory()
    heard: list[tuple[str, int, str]] = []
    directory.observing_changed.append(lambda key, game, change: heard.append(
        (key, game.number, change)))
    one, two = ExaminedGame("a"), ExaminedGame("b")
    directory.add(one)
    directory.add(two)
    assert directory.observe("Erin", one) and directory.observe("Erin", two)
    assert not directory.observe("erin", two)  # no change, nothing told
    assert directory.make_primary("erin", one)
    assert directory.unobserve("ERIN", one)
    directory.remove(two)  # a game's end: its observers' node learns it otherwise
    assert heard == [("erin", 1, "observe"), ("erin", 2, "observe"), ("erin", 1, "primary"),
                     ("erin", 1, "unobserve")]
