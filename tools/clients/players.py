#!/usr/bin/env python3
"""Two scripted telnet players: log in as guests, one matches the other, play a PGN game.

Run with a Python that has python-chess (the checkout's ``.venv/bin/python``)::

    players.py --port P --pgn FILE [--index N] [--plies 40] [--delay 0.7]
               --state STATE.json [--go GO_FILE] [--go-timeout 60]

Writes STATE.json as the game goes: ``{"game": N, "white": ..., "black": ...,
"phase": "created" | "playing" | "paused" | "done", "ply": K, "fen": ...}``.
After the match is created it waits for GO_FILE to exist (so an observer can
start observing first), plays ``--plies`` moves of the PGN game ``--index``,
sets phase "paused" and waits for GO_FILE + ".end", then Black resigns and
the phase becomes "done".  Every byte each player receives is kept in
STATE.json's folder as ``player-white.log`` / ``player-black.log``.

With ``--rated NAME:PASSWORD,NAME:PASSWORD`` the two players log in as those
registered accounts instead of guests, first play a short rated game (White
resigns at once) so that both have a rating, then play the PGN game rated:
what clients list and show is then real ratings, not ``----``.

With ``--opponent NAME`` there is one scripted player instead, the opponent
of a client under test::

    players.py --port P --opponent NAME --replies "e5 Nc6 Nf6" --state STATE.json
               [--colour black] [--time "5 0"] [--timeout 240]

It logs in as a guest, sends ``match NAME 5 0 black`` (phase "challenged",
its handle in STATE.json; with ``--invite seek`` it posts ``seek 5 0 black``
instead, phase "seeking" and ``seek`` its number; with ``--invite wait`` it
waits for the client's challenge, phase "waiting", and accepts it), waits
for the game's ``Creating:`` (phase "playing"), and answers each move of the
client with the next of ``--replies`` as soon as a style 12 board says it is
its turn, recording the position after every move (``ply``, ``fen``, ``moves``).  When the game
ends the phase becomes "done" with the ``{Game N ...} RESULT`` line in
``result``.  Its bytes are kept in ``player-opponent.log``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import time
from pathlib import Path

import chess
import chess.pgn

PROMPT = b"fics% "


class Player:
    def __init__(self, port: int, log: Path) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""
        self.log = log.open("wb")
        self.handle = ""

    def read_until(self, pattern: bytes, timeout: float = 10.0) -> bytes:
        """Bytes up to and including the first match of regex ``pattern``."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while not (m := rx.search(self.buf)):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.handle or '?'}: no {pattern!r} in {self.buf[-300:]!r}")
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise ConnectionError(f"{self.handle}: server closed; last {self.buf[-300:]!r}")
            self.log.write(data)
            self.log.flush()
            self.buf += data
        out, self.buf = self.buf[:m.end()], self.buf[m.end():]
        return out

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def login_guest(self) -> str:
        self.read_until(rb"login: ")
        self.send("guest")
        self.read_until(rb'Press return to enter the server as "\w+": ')
        self.send("")
        text = self.read_until(rb"\*\*\*\* Starting FICS session as (\w+)")
        self.handle = re.search(rb"session as (\w+?)(\(U\))?$", text).group(1).decode()
        self.read_until(PROMPT)
        return self.handle

    def login_registered(self, name: str, password: str) -> str:
        self.read_until(rb"login: ")
        self.send(name)
        self.read_until(rb"password: ")
        self.send(password)
        text = self.read_until(rb"\*\*\*\* Starting FICS session as (\w+)")
        self.handle = re.search(rb"session as (\w+?)(\(\*\))?$", text).group(1).decode()
        self.read_until(PROMPT)
        return self.handle


def write_state(path: Path, **state) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(path)


def wait_file(path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


STYLE12 = re.compile(rb"<12> ([-pnbrqkPNBRQK]{8}(?: [-pnbrqkPNBRQK]{8}){7}) ([WB]) .*? "
                     rb"(\d+) \S+ \(\S+\) (\S+) [01] \d+ \d+\s*$", re.M)
END = re.compile(rb"\{Game \d+ \([^)]*\) [^}]*\} (?:1-0|0-1|1/2-1/2|\*)")


def fen_of(ranks: bytes, turn: bytes) -> str:
    """The placement and side to move of a style 12 board, as a (partial) FEN."""
    rows = []
    for rank in ranks.decode().split():
        row, empty = "", 0
        for ch in rank:
            if ch == "-":
                empty += 1
                continue
            row += (str(empty) if empty else "") + ch
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" w" if turn == b"W" else " b")


def play_against(args: argparse.Namespace) -> None:
    """One scripted opponent of the client ``args.opponent`` (see the module docstring)."""
    folder = args.state.parent
    me = Player(args.port, folder / "player-opponent.log")
    me.login_guest()
    me.send("style 12")
    me.read_until(PROMPT)
    replies = args.replies.split()
    mine = b"B" if args.colour == "black" else b"W"
    state = {"opponent": me.handle, "client": args.opponent, "phase": "challenged",
             "ply": 0, "moves": [], "fen": None}
    if args.invite == "match":
        me.send(f"match {args.opponent} {args.time} {args.colour}")
    elif args.invite == "seek":
        me.send(f"seek {args.time} {args.colour}")
        posted = me.read_until(rb"posted with index (\d+)[^\n]*\n")
        state.update(phase="seeking", seek=int(re.search(rb"index (\d+)", posted).group(1)))
    else:  # "wait": the client challenges; accepted once its offer is here
        state["phase"] = "waiting"
    write_state(args.state, **state)
    if args.invite == "wait":
        me.read_until(rb"Challenge: [^\n]*\n", timeout=args.timeout)
        me.send("accept")
    created = me.read_until(rb"\{Game (\d+) \([^)]*\) Creating [^}]*\}", timeout=args.timeout)
    state.update(phase="playing", game=int(re.search(rb"\{Game (\d+)", created).group(1)))
    write_state(args.state, **state)
    deadline = time.monotonic() + args.timeout
    answered: set[int] = set()
    while time.monotonic() < deadline:
        try:
            chunk = me.read_until(rb"(<12> [^\n]*\n)|" + END.pattern, timeout=deadline - time.monotonic())
        except TimeoutError:
            break
        if end := END.search(chunk):
            state.update(phase="done", result=end.group(0).decode("latin-1"))
            write_state(args.state, **state)
            break
        board = STYLE12.search(chunk)
        if board is None:
            continue
        ranks, turn, ply, san = board.group(1), board.group(2), int(board.group(3)), board.group(4)
        # style 12's "move number" field is the full move number of the side to move
        half = 2 * (ply - 1) + (turn == b"B")
        if half > state["ply"]:
            state["moves"] = state["moves"] + [san.decode()]
        state.update(ply=half, fen=fen_of(ranks, turn))
        write_state(args.state, **state)
        if turn == mine and replies and half not in answered:
            answered.add(half)
            time.sleep(args.delay)
            me.send(replies.pop(0))
    else:
        state.update(phase="timeout")
        write_state(args.state, **state)
    me.send("quit")
    time.sleep(0.2)
    me.sock.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opponent", help="play one game against this logged-in client")
    p.add_argument("--replies", default="", help="the scripted side's moves, space separated")
    p.add_argument("--colour", default="black", choices=("white", "black"))
    p.add_argument("--invite", default="match", choices=("match", "seek", "wait"),
                   help="with --opponent: challenge the client (match), post a seek for it "
                        "(seek), or wait for its challenge and accept it (wait)")
    p.add_argument("--time", default="5 0")
    p.add_argument("--timeout", type=float, default=240)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pgn", type=Path)
    p.add_argument("--index", type=int, default=0, help="which game of the PGN file (0-based)")
    p.add_argument("--plies", type=int, default=40)
    p.add_argument("--delay", type=float, default=0.7, help="seconds between moves")
    p.add_argument("--state", type=Path, required=True)
    p.add_argument("--go", type=Path)
    p.add_argument("--go-timeout", type=float, default=60)
    p.add_argument("--rated", help="NAME:PASSWORD,NAME:PASSWORD: registered players, rated games")
    args = p.parse_args()
    if args.opponent:
        play_against(args)
        return

    with args.pgn.open(encoding="utf-8-sig") as f:
        for _ in range(args.index):
            chess.pgn.skip_game(f)
        game = chess.pgn.read_game(f)
    moves = list(game.mainline_moves())[: args.plies]

    folder = args.state.parent
    white, black = Player(args.port, folder / "player-white.log"), Player(args.port, folder / "player-black.log")
    rated = ""
    if args.rated:
        (wname, wpass), (bname, bpass) = (pair.split(":", 1) for pair in args.rated.split(","))
        white.login_registered(wname, wpass)
        black.login_registered(bname, bpass)
        rated = " rated"
        white.send(f"match {black.handle} 15 0 white rated")  # a first game: ratings for both
        black.read_until(rb"Challenge: ")
        black.send("accept")
        white.read_until(rb"Creating")
        white.read_until(PROMPT)
        white.send("resign")
        white.read_until(rb"rating adjustment|No ratings adjustment")
        black.read_until(rb"rating adjustment|No ratings adjustment")
        time.sleep(0.5)
    else:
        white.login_guest()
        black.login_guest()
    for pl in (white, black):
        pl.send("style 12")
        pl.read_until(PROMPT)
    white.send(f"match {black.handle} 15 0 white{rated}")
    black.read_until(rb"Challenge: ")
    black.send("accept")
    created = black.read_until(rb"\{Game (\d+) \(")
    number = int(re.search(rb"\{Game (\d+) \($", created).group(1))
    state = {"game": number, "white": white.handle, "black": black.handle,
             "event": f'{game.headers.get("White")} - {game.headers.get("Black")}',
             "phase": "created", "ply": 0, "fen": chess.STARTING_FEN, "moves": []}
    write_state(args.state, **state)
    if args.go:
        wait_file(args.go, args.go_timeout)

    board = game.board()
    state["phase"] = "playing"
    for move in moves:
        mover = white if board.turn == chess.WHITE else black
        san = board.san(move)
        board.push(move)
        placement = board.board_fen().split("/")
        ranks = " ".join(r.replace("8", "--------").replace("7", "-------").replace("6", "------")
                         .replace("5", "-----").replace("4", "----").replace("3", "---")
                         .replace("2", "--").replace("1", "-") for r in placement)
        mover.send(san)
        # The move is accepted when the mover gets the style 12 board of the new position.
        mover.read_until(re.escape(b"<12> " + ranks.encode()))
        state.update(ply=board.ply(), fen=board.fen(), moves=state["moves"] + [san])
        write_state(args.state, **state)
        time.sleep(args.delay)

    state["phase"] = "paused"
    write_state(args.state, **state)
    if args.go:
        wait_file(Path(str(args.go) + ".end"), args.go_timeout)
    black.send("resign")
    end = white.read_until(rb"\{Game \d+ [^}]*\} \S+", timeout=10)
    state.update(phase="done", result=end.decode("latin-1").splitlines()[-1].strip())
    write_state(args.state, **state)
    for pl in (white, black):
        pl.send("quit")
        time.sleep(0.2)
        pl.sock.close()


if __name__ == "__main__":
    main()
