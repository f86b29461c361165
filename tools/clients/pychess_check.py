#!/usr/bin/python3
"""pychess's own parsers read what ``ficsfen serve`` answers to its helper connection.

    /usr/bin/python3 tools/clients/pychess_check.py --checkout /path/to/ficsfen

Run with the system Python that has Debian's pychess (1.0.3) and GTK's
bindings; no display is needed.  It starts the checkout's ``ficsfen serve``
on a free loopback port, has two guests start a game and play 1. e4 e5,
then opens the connection pychess calls its helper: a guest login,
``iset block 1``, then the exact lines pychess 1.0.3 sends
(``2 who IbslwBzSLx``, ``3 games /bslwBzSLx``).  The replies are fed,
line by line, to pychess's own machinery: its ``TelnetLines`` block
parser, its ``PredictionsTelnet`` dispatcher and a real ``HelperManager``
with its regular expressions, on pychess's own player and game lists.

It prints what pychess understood, and exits 1 when pychess's game list
does not hold the game being played.  The player list is checked twice:
with pychess 1.0.3's ``who I`` pattern as shipped (its ``(\\\\d{2})`` asks
for a backslash, so it matches no FICS line) and with that one group as
pychess meant it (``(\\d{2})``, two digits), which must read every
player.  Not part of the test suite: CI machines have no pychess.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Guest:
    """A raw telnet guest: enough to log in and send lines."""

    def __init__(self, port: int) -> None:
        deadline = time.monotonic() + 20
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        self.buf = b""

    def read_until(self, pattern: bytes, timeout: float = 10.0) -> bytes:
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while not (m := rx.search(self.buf)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {pattern!r} in {self.buf[-300:]!r}")
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise ConnectionError(f"closed; last {self.buf[-300:]!r}")
            self.buf += data
        out, self.buf = self.buf[:m.end()], self.buf[m.end():]
        return out

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def login(self) -> str:
        self.read_until(rb"login: ")
        self.send("guest")
        self.read_until(rb'Press return to enter the server as "\w+": ')
        self.send("")
        text = self.read_until(rb"Starting FICS session as (\w+?)(\(U\))? \*\*\*\*")
        self.read_until(rb"fics% ")
        return re.search(rb"session as (\w+?)(\(U\))? ", text).group(1).decode()

    def login_registered(self, name: str, password: str) -> str:
        """Log in as the registered ``name``; returns the handle."""
        self.read_until(rb"login: ")
        self.send(name)
        self.read_until(rb"password: ")
        self.send(password)
        text = self.read_until(rb"Starting FICS session as (\w+?)(\(\*\))? \*\*\*\*")
        self.read_until(rb"fics% ")
        return re.search(rb"session as (\w+?)(\(\*\))? ", text).group(1).decode()


class Replay:
    """What pychess's ``TelnetLines`` reads from: the recorded lines, one at a time."""

    name = "helper"
    sensitive = False

    def __init__(self, lines: list[str]) -> None:
        self.lines = list(lines)

    async def readline(self) -> str:
        if not self.lines:
            raise EOFError
        return self.lines.pop(0).strip()  # as pychess's ICSTelnet.readline strips

    def write(self, text: str) -> None:
        pass


def pychess_reads(lines: list[str], who_pattern: str | None = None) -> tuple[list, list]:
    """Feed ``lines`` to pychess's HelperManager; the games and players it then knows."""
    from pychess.ic.FICSConnection import FICSConnection
    from pychess.ic.FICSObjects import FICSGames, FICSPlayers
    from pychess.ic.VerboseTelnet import PredictionsTelnet
    from pychess.ic.managers import HelperManager as helper_module

    original = helper_module.whoI
    if who_pattern is not None:
        helper_module.whoI = who_pattern
        helper_module.re_whoI = re.compile(who_pattern)
    try:
        conn = FICSConnection("127.0.0.1", [0], False, "guest", "")
        conn.players = FICSPlayers(conn)
        conn.games = FICSGames(conn)
        conn.client = PredictionsTelnet(Replay(lines), conn.predictions, conn.reply_cmd_dict,
                                        conn.replay_dg_dict, conn.replay_cn_dict)
        conn.client.lines.line_prefix = "fics%"
        conn.client.lines.block_mode = True
        helper_module.HelperManager(conn, conn)

        async def parse_all() -> None:
            try:
                while True:
                    await conn.client.parse()
            except EOFError:
                pass

        asyncio.run(parse_all())
    finally:
        helper_module.whoI = original
        helper_module.re_whoI = re.compile(original)
    games = [(g.gameno, g.wplayer.name, g.bplayer.name, g.game_type.fics_name, g.minutes, g.inc)
             for g in conn.games.values()]
    players = sorted((p.name, p.status, sorted(map(str, p.titles))) for p in conn.players.values()
                     if p.online)
    return games, players


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkout", type=Path, required=True)
    args = p.parse_args()
    port = free_port()
    server = subprocess.Popen([str(args.checkout / ".venv/bin/ficsfen"), "serve", "--lang", "en", "--web", "none",
                               "--listen", f"tcp:{port}:interface=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        white, black = Guest(port), Guest(port)
        w, b = white.login(), black.login()
        white.send(f"match {b} 5 0 white")
        black.read_until(rb"Challenge: ")
        black.send("accept")
        black.read_until(rb"\{Game \d+ \(")
        white.send("e4")
        black.read_until(rb"e4")
        black.send("e5")
        white.read_until(rb"e5")

        helper = Guest(port)
        helper.login()
        helper.send("iset block 1")
        helper.read_until(rb"block set\.\r\n")
        helper.send("2 who IbslwBzSLx")
        helper.send("3 games /bslwBzSLx")
        raw = helper.read_until(rb"\x153\x16[^\x17]*\x17\r\n")
        lines = raw.decode("latin-1").split("\n")
        print("server lines:")
        for line in lines:
            print("   ", repr(line))

        games, players = pychess_reads(lines)
        print("pychess 1.0.3 as shipped: games", games, "players", players)
        import pychess.ic.managers.HelperManager as hm
        fixed = hm.whoI.replace(r"(\\d{2})", r"(\d{2})")
        _, fixed_players = pychess_reads(lines, fixed)
        print("with its who-I digits group as meant: players", fixed_players)

        ok = any(g[1] == w and g[2] == b for g in games)
        ok_players = {w, b} <= {name for name, *_ in fixed_players}
        print("game list:", "OK" if ok else "MISSING", "| player list (pattern as meant):",
              "OK" if ok_players else "MISSING")
        return 0 if ok and ok_players else 1
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
