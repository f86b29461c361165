"""examples/host_server.py, driven over loopback as a separate process.

The example is a chess server of its own that mounts ficsfen's ``fen`` and
``help`` through the public API; this test talks to it as a player would
and checks it against the standard's FENs, the help pages and the
tracker's own localized errors.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ficsfen import IllegalMoveError, Tracker, lookup, msg

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "host_server.py"
PROMPT = b"> "

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
AFTER_C5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
AFTER_NF3 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
TIMEOUT = 60.0  # guards against a hang only


class Player:
    """A plain socket client reading up to the host's prompt."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buffer = b""
        self.greeting = self.read()

    def read(self) -> str:
        while not self.buffer.endswith(PROMPT):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buffer += chunk
        out, self.buffer = self.buffer, b""
        return out.decode("utf-8").removesuffix("> ").replace("\r\n", "\n")

    def command(self, line: str) -> str:
        self.sock.sendall(line.encode("utf-8") + b"\r\n")
        return self.read()

    def fen(self) -> str:
        lines = self.command("fen").strip().split("\n")
        assert len(lines) == 2, lines  # a header naming the game, then the FEN alone
        return lines[1]

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def host():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--port", "0", "--feed", "tcp:0:interface=127.0.0.1"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ports = {}
    deadline = time.monotonic() + TIMEOUT
    try:
        while len(ports) < 2:
            line = process.stdout.readline()
            if not line:
                pytest.fail(f"host example exited: {process.stderr.read()}")
            assert time.monotonic() < deadline
            kind, _, rest = line.partition(" listening on port ")
            if rest:
                ports[kind] = int(rest)
        yield ports
    finally:
        process.terminate()
        process.wait(TIMEOUT)
        process.stdout.close()
        process.stderr.close()


def page_text(topic: str, lang: str) -> str:
    return lookup(topic, lang).text.rstrip("\n")


def test_help_fen_in_english_and_french(host):
    player = Player(host["host"])
    try:
        english = player.command("help fen")
        assert english.rstrip("\n") == page_text("fen", "en")
        switched = player.command("lang fr")
        assert switched.strip() == msg("Messages and help are now in English.").render("fr")
        assert "français" in switched
        french = player.command("help fen")
        assert french.rstrip("\n") == page_text("fen", "fr")
        assert french != english
        assert player.command("lang en").strip() == "Messages and help are now in English."
        # a unique prefix of a topic works as on the server
        assert player.command("help pg").rstrip("\n") == page_text("pgn", "en")
    finally:
        player.close()


def test_moves_then_fen_give_the_standard_fens_and_errors_are_localized(host):
    player = Player(host["host"])
    other = Player(host["host"])
    try:
        assert "PlayerA" in player.greeting
        assert player.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        for move, want in (("e4", AFTER_E4), ("c5", AFTER_C5), ("Nf3", AFTER_NF3)):
            assert player.command(move).strip() == f"You played {move}."
            assert player.fen() == want

        # the tracker's own error, in the caller's language, and nothing changes
        reference = Tracker()
        for move in ("e4", "c5", "Nf3"):
            reference.push(move)
        with pytest.raises(IllegalMoveError) as error:
            reference.push("Qh4")
        assert player.command("Qh4").strip() == error.value.render("en")
        player.command("lang fr")
        assert player.command("Qh4").strip() == error.value.render("fr")
        assert player.fen() == AFTER_NF3

        # fen N and fen HANDLE through the host's own IGameDirectory
        assert other.command("fen 1").strip().split("\n")[-1] == AFTER_NF3
        assert other.command("fen playera").strip().split("\n")[-1] == AFTER_NF3
        assert other.command("fen 99").strip() == msg("There is no game {number}.", number=99).render("en")
        assert other.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    finally:
        player.close()
        other.close()


def test_host_serves_the_feed(host):
    reader = socket.create_connection(("127.0.0.1", host["feed"]), timeout=TIMEOUT)
    lines = reader.makefile("rb")
    try:
        # the hello line proves the host accepted the reader before the game starts
        assert json.loads(lines.readline())["type"] == "hello"
        player = Player(host["host"])
        for move in ("e4", "c5"):
            player.command(move)
        start = json.loads(lines.readline())
        assert start["type"] == "start" and start["ply"] == 0 and start["white"] == "PlayerA"
        moves = [json.loads(lines.readline()) for _ in range(2)]
        assert [(e["type"], e["game"], e["ply"], e["san"], e["uci"], e["fen"], e["clocks"])
                for e in moves] == [
            ("move", start["game"], 1, "e4", "e2e4", AFTER_E4, None),
            ("move", start["game"], 2, "c5", "c7c5", AFTER_C5, None)]
        player.close()
        end = json.loads(lines.readline())
        assert (end["type"], end["game"], end["result"], end["fen"]) == (
            "end", start["game"], "*", AFTER_C5)
    finally:
        lines.close()
        reader.close()


def test_bad_bytes_and_overlong_lines_leave_the_connection_working(host):
    player = Player(host["host"])
    try:
        assert "Not a move" in player.command("\x00\x7f garbage")
        player.sock.sendall(b"\xff\xfe\xc3(bad utf-8\r\n")
        assert "Not a move" in player.read()
        # one notice per overlong line, and the line typed after it still counts
        player.sock.sendall(b"x" * 100_000 + b"\r\ne4\r\n")
        out = player.read()
        if "You played e4." not in out:
            out += player.read()
        assert out.count("That line is too long; it was ignored.") == 1, out
        assert "You played e4." in out
        assert player.fen() == AFTER_E4
        # an overlong line and the next one in one packet: the next one is read at once
        player.sock.sendall(b"y" * 5000 + b"\r\nc5\r\n")
        out = player.read()
        if "You played c5." not in out:
            out += player.read()
        assert out.count("That line is too long; it was ignored.") == 1, out
        assert "You played c5." in out
    finally:
        player.close()
