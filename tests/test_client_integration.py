"""What xboard, eboard and pychess read, over a real loopback connection to ``ficsfen serve``.

The clients' set-up lines are sent as they send them (``set interface``
with spaces, ``set width``, ``style 12``); the replies are parsed as those
clients parse them: style 12 field by field, the ``Creating:`` line,
``games N``, the ``observe`` header, the ``moves`` header, ``date`` and
``finger``.  The interface variables (``iset``) have their own tests; their
effects are covered in process by tests/test_client_output.py.
"""

from __future__ import annotations

import re

import pytest

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.testing import ServerProcess

from test_client_output import GAMES_LINE, boards12

pytestmark = pytest.mark.slow


def board_after(client, san: str):
    """Read ``client``'s lines up to the board whose last move is ``san`` (earlier output skipped)."""
    while True:
        line = client.read_until("\n").rstrip("\n")
        start = line.find("<12> ")
        if start >= 0:
            board = boards12(line[start:])[0]
            if board.pretty == san:
                return board


@pytest.fixture(scope="module")
def server():
    with ServerProcess() as process:
        yield process


def test_an_xboard_style_session_plays_and_observes(server):
    alice, bob, carol = (server.connect() for _ in range(3))
    try:
        for client, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            client.login(name)
            assert 'interface set to "xboard 4.9.1 + Stockfish 15.1"' in client.command(
                "set interface xboard 4.9.1 + Stockfish 15.1")
            assert "Style 12 set." in client.command("style 12")
            assert "width set to 79." in client.command("set width 79")
        alice.command("match bob 3 0 white")
        bob.read_until(bob.prompt)
        out = bob.command("accept")
        created = re.search(r"^Creating: (\w+) \((\S+)\) (\w+) \((\S+)\) (\w+) (\w+) (\d+) (\d+)$",
                            out, re.M)
        assert created is not None and created.groups() == (
            "alice", "++++", "bob", "++++", "unrated", "blitz", "3", "0")  # guests: FICS's ++++
        alice.read_until(alice.prompt)
        out = carol.command("observe 1")
        assert re.search(r"^Game 1: alice \(\+\+\+\+\) bob \(\+\+\+\+\) unrated blitz 3 0$", out, re.M)
        assert boards12(out)[0].relation == 0
        for i, san in enumerate(["e4", "c5", "Nf3"]):
            mover, other = (alice, bob) if i % 2 == 0 else (bob, alice)
            mover.send(san)
            mine, theirs, seen = (board_after(c, san) for c in (mover, other, carol))
            assert (mine.relation, theirs.relation, seen.relation) == (-1, 1, 0)
            assert (mine.flip, theirs.flip, seen.flip) == ((0, 1, 0) if i % 2 == 0 else (1, 0, 0))
            assert seen.lag == 0  # no timeseal here
        for client in (alice, bob, carol):
            client.read_until(client.prompt)
        fen = carol.command("fen 1").splitlines()[-1]
        refreshed = next(l for l in carol.command("refresh").splitlines() if l.startswith("<12> "))
        assert fen_from_style12(refreshed) == fen
        row = [m for m in map(GAMES_LINE.match, carol.command("games 1").splitlines()) if m]
        assert [(m.group(1), m.group(3), m.group(5), m.group(6)) for m in row] == [
            ("1", "alice", "bob", "bu")]
        moves = carol.command("moves 1").splitlines()
        assert moves[0] == "Movelist for game 1:"
        assert re.fullmatch(r"alice \(UNR\) vs\. bob \(UNR\) --- .+", moves[2])
        assert moves[3] == "Unrated blitz match, initial time: 3 minutes, increment: 0 seconds."
        date = carol.command("date").splitlines()
        assert [line[:17] for line in date] == ["Local time     - ", "Server time    - ",
                                                "GMT            - "]
        finger = carol.command("finger alice")
        assert finger.startswith("Finger of alice(U):")
        assert 'Interface  : "xboard 4.9.1 + Stockfish 15.1"' in finger
        assert re.search(r"^Timeseal +: +Off$", finger, re.M)
    finally:
        for client in (alice, bob, carol):
            client.close()
