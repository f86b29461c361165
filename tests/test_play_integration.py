"""Played and observed games over real sockets: ``ficsfen serve`` on a loopback port.

Three telnet sessions: two players and an observer.  The observer's ``<12>``
lines, turned back into FEN, must equal what ``fen`` answers after every ply
of a real game, and the ``showfen`` line must follow each board.
"""

from __future__ import annotations

import pytest

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.config import hash_password
from ficsfen.pgn import read_file
from ficsfen.server.testing import ServerProcess


@pytest.fixture(scope="module")
def server():
    with ServerProcess() as process:
        yield process


def _sessions(server, *names):
    clients = [server.connect() for _ in names]
    for client, name in zip(clients, names):
        client.login(name)
    return clients


def _start(white, black, names, time="0 0"):
    white.command(f"match {names[1]} {time} white")
    black.read_until(white.prompt)  # the challenge
    out = black.command("accept")
    assert "Creating unrated" in out
    white.read_until("Creating unrated")
    white.read_until("  a   b   c   d   e   f   g   h")  # the board, White at the bottom
    white.read_until(white.prompt)


@pytest.mark.slow
def test_whole_game_to_checkmate_with_an_observer(server):
    alice, bob, carol = _sessions(server, "alice", "bob", "carol")
    try:
        _start(alice, bob, ("alice", "bob"), "3 0")
        assert "now observing game" in carol.command("observe alice")
        moves = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]
        for i, san in enumerate(moves):
            mover, other = (alice, bob) if i % 2 == 0 else (bob, alice)
            assert "Move #" in mover.command(san)
            assert f"Moves : '{san}" in other.read_until(other.prompt)
            assert f"Moves : '{san}" in carol.read_until(carol.prompt)
        assert bob.command("e5").strip() == "It is not your move."
        out = alice.command("Qxf7#")
        end = "{Game 1 (alice vs. bob) bob checkmated} 1-0"
        assert end in out
        assert end in bob.read_until(end)
        assert end in carol.read_until(end)
        # As FICS: the observer's list loses the game, under the result, before one prompt.
        tail = carol.read_until(carol.prompt)
        assert tail.strip().splitlines()[0] == "Removing game 1 from observation list."
        assert "Removing game" not in out + bob.read_until(bob.prompt)  # players observe nothing
        assert "There are no games in progress." in carol.command("games")
    finally:
        for client in (alice, bob, carol):
            client.close()


def test_observer_style12_lines_equal_fen_after_every_ply(server, shared_pgn):
    game = read_file(shared_pgn / "kasparov-deep-blue-1997.pgn")[0]
    expected = game.fens()
    white, black, watcher = _sessions(server, "Kasparov", "DeepBlue", "watcher")
    try:
        _start(white, black, ("Kasparov", "DeepBlue"))
        for client in (white, black, watcher):
            client.command("style 12")
        watcher.command("set showfen 1")
        watcher.command("observe Kasparov")
        number = None
        for ply, san in enumerate(game.moves, 1):
            mover, other = (white, black) if ply % 2 else (black, white)
            mover.command(san)
            other.read_until(other.prompt)
            seen = watcher.read_until(watcher.prompt).splitlines()
            board = [i for i, line in enumerate(seen) if line.startswith("<12> ")]
            assert len(board) == 1, seen
            line = seen[board[0]]
            number = line.split()[16]
            fen = watcher.command(f"fen {number}").splitlines()[-1]
            assert fen_from_style12(line) == fen == expected[ply]
            assert seen[board[0] + 1] == fen  # the showfen line, right after the board
        assert "Kasparov" in watcher.command("moves Kasparov")
        assert watcher.command("fen DeepBlue").splitlines()[-1] == expected[-1]
        white.command("resign")
        assert "Kasparov resigns} 0-1" in watcher.read_until("0-1")
    finally:
        for client in (white, black, watcher):
            client.close()


@pytest.mark.slow
def test_disconnect_adjourns_and_resume_continues_over_real_sockets(tmp_path):
    passwords = {"alice": "ecila", "bob": "bob!"}
    config = tmp_path / "accounts.toml"
    config.write_text("[accounts]\n" + "".join(
        f'{name} = "{hash_password(word, iterations=1000)}"\n' for name, word in passwords.items()))
    with ServerProcess("--config", str(config)) as server:
        alice, bob, carol = server.connect(), server.connect(), server.connect()
        try:
            alice.login("alice", passwords["alice"])
            bob.login("bob", passwords["bob"])
            carol.login("carol")
            _start(alice, bob, ("alice", "bob"), "5 0")
            carol.command("observe alice")
            for mover, other, san in ((alice, bob, "d4"), (bob, alice, "Nf6"), (alice, bob, "c4")):
                mover.command(san)
                other.read_until(other.prompt)
                carol.read_until(carol.prompt)
            fen = carol.command("fen alice").splitlines()[-1]
            bob.close()
            end = "bob lost connection; game adjourned} *"
            assert end in alice.read_until(end)
            assert end in carol.read_until(end)
            for client in (alice, carol):
                client.read_until(client.prompt)
            bob = server.connect()
            bob.login("bob", passwords["bob"])
            assert "who has an adjourned game with you, is online:\nalice" in bob.read_until("alice")
            bob.read_until(bob.prompt)
            assert "bob, who has an adjourned game with you, has arrived." in alice.read_until(alice.prompt)
            assert "(adjourned)." in bob.command("resume")
            assert "Challenge: bob (----) [black] alice" in alice.read_until(alice.prompt)
            assert "Continuing unrated blitz match." in alice.command("accept")
            assert "Continuing" in bob.read_until("Continuing")
            bob.read_until("  h   g   f   e   d   c   b   a")  # his board, Black at the bottom
            bob.read_until(bob.prompt)
            assert bob.command("fen").splitlines()[-1] == fen
            assert "Move #" in bob.command("e6")
            assert "Black Moves : 'e6" in alice.read_until(alice.prompt)
        finally:
            for client in (alice, bob, carol):
                client.close()
