"""``ficsfen backup`` beside a real server with 200 games in play, then a server on the copy.

400 registered players (200 pairs) play over loopback; once every game is moving,
``ficsfen backup`` copies the data file while they go on.  The server is then killed
(SIGKILL) and a new one started on the copy: each of the 200 games is there, adjourned,
and resumes at the position it had in the copy, which is the position after some ply
``p`` with ``acked_before <= p <= sent_by_end``: every move acknowledged before the
backup began is in it, and none sent after it ended.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field

import chess
import pytest

from ficsfen.server.testing import ServerProcess
from ficsfen.server.config import hash_password
from ficsfen.tracker import Tracker

pytestmark = pytest.mark.slow

GAMES = 200
WAIT = 120.0  # seconds any one read may take (a loaded machine is slow); no measure
PROMPT = b"fics% "
FEN = re.compile(rb"[1-8pnbrqkPNBRQK/]{15,} [wb] [KQkq-]+ [a-h1-8-]+ \d+ \d+")
PASSWORD = "secret"


def handle(prefix: str, i: int) -> str:
    """Letters only (a handle is 3 to 17 letters)."""
    return prefix + chr(97 + i // 26) + chr(97 + i % 26)


PAIRS = [(handle("white", i), handle("black", i)) for i in range(GAMES)]


class Conn:
    """One telnet session over asyncio streams."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.buffer = reader, writer, b""

    async def until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = await asyncio.wait_for(self.reader.read(65536), WAIT)
            if not chunk:
                raise ConnectionError(f"closed before {marker!r}: {self.buffer[-300:]!r}")
            self.buffer += chunk
        k = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:k], self.buffer[k:]
        return data

    async def board(self) -> list[str]:
        """The fields of the next style 12 board."""
        await self.until(b"<12> ")
        return (b"<12> " + await self.until(b"\n")).decode().split()

    async def fen(self) -> str:
        """Ask ``fen``; the FEN it answers."""
        self.send("fen")
        while (m := FEN.search(self.buffer)) is None:
            chunk = await asyncio.wait_for(self.reader.read(65536), WAIT)
            if not chunk:
                raise ConnectionError("closed before the FEN")
            self.buffer += chunk
        self.buffer = self.buffer[m.end():]
        return m.group().decode()

    def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\r\n")

    def close(self) -> None:
        self.writer.close()


async def login(port: int, name: str) -> Conn:
    conn = Conn(*await asyncio.open_connection("127.0.0.1", port))
    await conn.until(b"login: ")
    conn.send(name)
    await conn.until(b"password: ")
    conn.send(PASSWORD)
    text = await conn.until(PROMPT)
    assert b"Starting FICS session as " + name.encode() in text, text
    conn.send("style 12")
    await conn.until(b"Style 12 set.")
    await conn.until(PROMPT)
    return conn


async def login_all(port: int) -> dict[str, Conn]:
    gate = asyncio.Semaphore(40)

    async def one(name: str) -> tuple[str, Conn]:
        async with gate:
            return name, await login(port, name)

    return dict(await asyncio.gather(*(one(n) for pair in PAIRS for n in pair)))


@dataclass
class Game:
    """One game as the test plays it: the FEN after each ply, moves sent and acknowledged."""

    white: Conn
    black: Conn
    rng: random.Random
    board: chess.Board = field(default_factory=chess.Board)
    tracker: Tracker = field(default_factory=Tracker)
    fens: list[str] = field(default_factory=list)
    sent: int = 0
    acked: int = 0

    def __post_init__(self) -> None:
        self.fens.append(self.tracker.fen)

    def pick(self) -> str:
        """A random legal move that does not end the game."""
        moves = list(self.board.legal_moves)
        self.rng.shuffle(moves)
        for move in moves:
            self.board.push(move)
            over = self.board.is_game_over(claim_draw=False)
            self.board.pop()
            if not over:
                return self.board.san(move)
        raise AssertionError("no move that keeps the game going")

    async def move(self) -> None:
        mover, other = (self.white, self.black) if self.board.turn else (self.black, self.white)
        san = self.pick()
        mover.send(san)
        self.sent += 1
        mine, theirs = await mover.board(), await other.board()  # the mover's: stored
        self.board.push_san(san)
        self.tracker.push(san)
        self.fens.append(self.tracker.fen)
        side = "W" if self.board.turn else "B"
        assert mine[9] == theirs[9] == side, (mine, theirs)
        self.acked += 1


async def start_games(conns: dict[str, Conn]) -> list[Game]:
    async def one(i: int, white: str, black: str) -> Game:
        conns[white].send(f"match {black} 60 0 white")
        await conns[black].until(b"Challenge:")
        conns[black].send("accept")
        await conns[white].board()
        await conns[black].board()
        return Game(conns[white], conns[black], random.Random(i))

    return list(await asyncio.gather(*(one(i, w, b) for i, (w, b) in enumerate(PAIRS))))


async def play_through_backup(games: list[Game], backup) -> tuple[list[int], list[int], object]:
    """Every game moves; once each has moved twice more, ``backup()`` runs in a thread while
    they go on; each then plays two more plies.  Returns (acked before, sent by end, result)."""
    done = asyncio.Event()
    moving = [0] * len(games)
    all_moving = asyncio.Event()

    async def keep_moving(k: int, game: Game) -> None:
        after = None
        while after is None or game.acked < after + 2:
            await game.move()
            moving[k] += 1
            if moving[k] == 2 and all(n >= 2 for n in moving):
                all_moving.set()
            if done.is_set() and after is None:
                after = game.acked

    players = [asyncio.create_task(keep_moving(k, game)) for k, game in enumerate(games)]
    await asyncio.wait_for(all_moving.wait(), WAIT)
    acked_before = [game.acked for game in games]
    result = await asyncio.to_thread(backup)
    sent_by_end = [game.sent for game in games]
    done.set()
    await asyncio.gather(*players)
    return acked_before, sent_by_end, result


async def resume_all(port: int) -> list[str]:
    """Each pair logs in to the new server and resumes its game; the FEN each then shows."""
    conns = await login_all(port)

    async def one(white: str, black: str) -> str:
        conns[white].send("resume")
        await conns[white].until(b"(adjourned).")
        await conns[black].until(b"Challenge:")
        conns[black].send("accept")
        await conns[white].board()
        await conns[black].board()
        return await conns[black].fen()

    fens = list(await asyncio.gather(*(one(w, b) for w, b in PAIRS)))
    for conn in conns.values():
        conn.close()
    return fens


def test_a_backup_during_200_games_resumes_them_all_where_the_copy_has_them(tmp_path) -> None:
    config = tmp_path / "ficsfen.toml"
    config.write_text('[limits]\nexempt = ["127.0.0.0/8"]\n[accounts]\n' + "".join(
        f'{name} = "{hash_password(PASSWORD, iterations=1000)}"\n' for pair in PAIRS for name in pair))
    data, copy = tmp_path / "data.sqlite3", tmp_path / "copy.sqlite3"

    def backup() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ficsfen", "backup", str(copy), "--data", str(data),
                               "--config", str(config), "--lang", "en"],
                              capture_output=True, text=True, timeout=WAIT)

    async def first_server(port: int):
        conns = await login_all(port)
        games = await start_games(conns)
        for _ in range(4):  # a few moves each before the backup
            await asyncio.gather(*(game.move() for game in games))
        outcome = await play_through_backup(games, backup)
        return games, outcome

    with ServerProcess("--config", str(config), "--data", str(data), timeout=WAIT) as server:
        games, (acked_before, sent_by_end, done) = asyncio.run(first_server(server.port))
        server.stop(signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    assert f"{GAMES} games: {GAMES} in play" in done.stdout
    assert f"{2 * GAMES} accounts," in done.stdout
    moved_during = sum(sent_by_end) - sum(acked_before)
    print(f"moves sent during the backup: {moved_during}; {done.stdout.strip()}")
    assert moved_during > 0  # the games went on during the backup

    with sqlite3.connect(copy) as db:
        plies = {game: n for game, n in db.execute("SELECT game, count(*) FROM moves GROUP BY game")}
        ids = {(w, b): gid for gid, w, b in db.execute("SELECT id, white, black FROM games")}
        assert db.execute("SELECT DISTINCT status FROM games").fetchall() == [("playing",)]
    ply_of = [plies.get(ids[pair], 0) for pair in PAIRS]
    for k in range(GAMES):
        assert acked_before[k] <= ply_of[k] <= sent_by_end[k], (PAIRS[k], acked_before[k], ply_of[k],
                                                                 sent_by_end[k])

    with ServerProcess("--config", str(config), "--data", str(copy), timeout=WAIT) as server:
        fens = asyncio.run(resume_all(server.port))
    assert fens == [game.fens[ply_of[k]] for k, game in enumerate(games)]


def test_a_backup_by_a_symbolic_link_works_by_a_hard_link_is_refused(tmp_path) -> None:
    data = tmp_path / "data.sqlite3"
    with ServerProcess("--data", str(data)) as server:
        guest = server.connect()
        guest.login()  # the server has the file open, its -wal file beside it
        symlink, hardlink = tmp_path / "sym.sqlite3", tmp_path / "hard.sqlite3"
        symlink.symlink_to(data)
        os.link(data, hardlink)

        def run(source, target):
            return subprocess.run([sys.executable, "-m", "ficsfen", "backup", str(target), "--data",
                                   str(source), "--lang", "en"], capture_output=True, text=True,
                                  timeout=WAIT)

        done = run(symlink, tmp_path / "one.sqlite3")
        assert done.returncode == 0 and "0 games" in done.stdout, done.stderr
        refused = run(hardlink, tmp_path / "two.sqlite3")
        assert refused.returncode == 1
        assert refused.stderr.startswith(f"{hardlink}: a server (process {server.process.pid}) runs "
                                         "on this data file by another name"), refused.stderr
        assert not (tmp_path / "two.sqlite3").exists()
        guest.close()
