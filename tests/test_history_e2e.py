"""A real ``ficsfen serve --data FILE``: a game to mate, then history, smoves, examine,
password, and the export replayed to the FENs the server showed."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import chess
import chess.pgn
import pytest

from conftest import REPO
from ficsfen.server.config import hash_password
from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

PASSWORD = "s3cret"
MOVES = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def login(server, name, password):
    client = server.connect()
    client.read_until("login: ")
    client.send(name)
    client.read_until("password: ")
    client.send(password)
    out = client.read_until(client.prompt)
    assert f"Starting FICS session as {name}" in out, out
    return client


def fen(client):
    return client.command("fen").strip().split("\n")[-1].strip()


def test_a_game_to_mate_then_history_smoves_examine_password_and_export(tmp_path):
    data = tmp_path / "data.sqlite3"
    conf = tmp_path / "ficsfen.toml"
    hashed = hash_password(PASSWORD, iterations=1000)
    conf.write_text(textwrap.dedent(f"""\
        [accounts]
        alice = "{hashed}"
        bob = "{hashed}"
        """))
    shown = []
    with ServerProcess("--config", str(conf), "--data", str(data)) as server:
        alice, bob = login(server, "alice", PASSWORD), login(server, "bob", PASSWORD)
        alice.command("match bob 3 0 white")
        bob.read_until(bob.prompt)  # the challenge
        bob.send("accept")
        # With a store, the game is announced once its start is committed (after the prompt).
        for client, files in ((alice, "  a   b   c"), (bob, "  h   g   f")):  # black's side down
            client.read_until("Creating unrated")
            client.read_until(files)
            client.read_until(client.prompt)
        shown.append(fen(alice))
        for i, san in enumerate(MOVES[:-1]):
            mover, other = (alice, bob) if i % 2 == 0 else (bob, alice)
            mover.send(san)  # each board comes once the move is committed
            for client in (mover, other):
                client.read_until(f"Moves : '{san}")
                client.read_until(client.prompt)
            shown.append(fen(mover))
        end = "{Game 1 (alice vs. bob) bob checkmated} 1-0"
        alice.send("Qxf7#")
        for client in (alice, bob):
            client.read_until(end)
            client.read_until(client.prompt)
        history = alice.command("history").strip().split("\n")
        assert history[0] == "History for alice:"
        assert history[2].startswith(" 0: +    0 W    0 bob ") and "] C23 Mat " in history[2]
        smoves = bob.command("smoves alice 0")
        assert smoves.rstrip().endswith("      {Black checkmated} 1-0")
        assert "  4.  Qxf7#" in smoves
        assert alice.command("jsave a alice 0") == (
            "Game alice vs. bob saved in your journal as %01.\n")
        assert bob.command("journal alice").split("\n")[2] == (
            "%01: alice            0    bob              0    [ bu  3   0] C23 Mat 1-0")
        assert bob.command("smoves alice %01") == smoves
        bob.command("examine alice -1")
        assert fen(bob) == shown[0]
        bob.command("forward 6")
        assert fen(bob) == shown[6]
        bob.command("forward")
        last = fen(bob)
        alice.send("password s3cret n3wer")  # answered once the new hash is committed
        alice.read_until("Password changed.")
        for client in (alice, bob):
            client.close()
    shown.append(last)

    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL="C")
    export = subprocess.run([sys.executable, "-m", "ficsfen", "games", "export", "--data",
                             str(data)], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120)
    assert export.returncode == 0, export.stderr
    game = chess.pgn.read_game(io.StringIO(export.stdout))
    board = game.board()
    replayed = [board.fen(en_passant="fen")]
    for move in game.mainline_moves():
        board.push(move)
        replayed.append(board.fen(en_passant="fen"))
    assert replayed == shown
    assert game.headers["Result"] == "1-0" and game.headers["TimeControl"] == "180+0"
    assert game.headers["ECO"] == "C23"  # Bishop's Opening: 1. e4 e5 2. Bc4
    assert all(node.clock() is not None for node in game.mainline())

    # the new password survives a restart; the old one is refused
    with ServerProcess("--config", str(conf), "--data", str(data)) as server:
        login(server, "alice", "n3wer").close()
        client = server.connect()
        client.read_until("login: ")
        client.send("alice")
        client.read_until("password: ")
        client.send(PASSWORD)
        assert "Invalid password" in client.read_until("login: ")
        client.close()
