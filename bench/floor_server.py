"""The floor: the least a Twisted line server can do for a FICS-style session.

``bench/load.py`` measures ficsfen against this server side by side.  It does
only what a benchmark client needs: the ``login:`` prompt, a ``guest`` login
with a fresh ``GuestXXXX`` handle in FICS wording, the ``fics% `` prompt, a
``fen`` command answering one constant FEN, and ``quit``.  Any other command
gets a one-line "Command not found." so that set-up commands sent to both
servers cost the floor next to nothing.  For the observers benchmark
(``--broadcast``) it also has one broadcast game (:class:`BroadcastGame`).  No telnet negotiation, no logging, no
catalogs: whatever ficsfen spends above this is ficsfen's own cost.

Run: ``python bench/floor_server.py --port 5001 --interface 127.0.0.1``
"""

from __future__ import annotations

import argparse
import random
import resource
import string
import sys

from twisted.internet import protocol
from twisted.protocols.basic import LineReceiver

__all__ = ["BroadcastGame", "FloorFactory", "FloorSession", "main", "raise_fd_limit"]

#: Position after 1. e4 c5 2. Nf3, as the standard writes it.
FEN = b"rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
PROMPT = b"fics% "


def raise_fd_limit() -> int:
    """Lift the soft open-file limit to the hard one; 10,000 sessions need it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return soft


class FloorSession(LineReceiver):
    """One telnet session: login, then a prompt loop."""

    delimiter = b"\n"
    MAX_LENGTH = 4096

    def __init__(self) -> None:
        self.handle: bytes | None = None
        self.state = "login"

    def connectionMade(self) -> None:
        self.transport.setTcpNoDelay(True)
        self.transport.write(b"\r\nWelcome to the floor server.\r\n\r\nlogin: ")

    def connectionLost(self, reason=None) -> None:
        game = self.factory.game
        if game is not None and self in game.observers:
            game.observers.remove(self)
        if self.handle is not None:
            self.factory.handles.discard(self.handle)
            self.handle = None

    def lineLengthExceeded(self, line: bytes) -> None:
        self.transport.write(b"Line too long.\r\n" + PROMPT)

    def lineReceived(self, line: bytes) -> None:
        line = line.rstrip(b"\r\x00").strip()
        getattr(self, "line_" + self.state)(line)

    def line_login(self, line: bytes) -> None:
        if line.lower() != b"guest":
            self.transport.write(b'"' + line[:20] + b'" is not a valid handle here.\r\n\r\nlogin: ')
            return
        self.handle = self.factory.new_guest()
        self.state = "confirm"
        self.transport.write(
            b'\r\nLogging you in as "' + self.handle + b'"; you may use this name to play unrated games.\r\n'
            b'\r\nPress return to enter the server as "' + self.handle + b'":\r\n'
        )

    def line_confirm(self, line: bytes) -> None:
        self.state = "command"
        self.transport.write(b"**** Starting session as " + self.handle + b" ****\r\n\r\n" + PROMPT)

    def line_command(self, line: bytes) -> None:
        if not line:
            self.transport.write(PROMPT)
        elif line == b"fen":
            self.transport.write(FEN + b"\r\n" + PROMPT)
        elif line in (b"quit", b"exit", b"bye"):
            self.transport.write(b"Thank you for using the floor server.\r\n")
            self.transport.loseConnection()
        else:
            words = line.split()
            game = self.factory.game
            if not self.factory.broadcast:
                self.transport.write(words[0][:40] + b": Command not found.\r\n" + PROMPT)
            elif words[0] == b"examine":
                self.factory.game = game = BroadcastGame(self)
                self.transport.write(b"Game 1 (" + self.handle + b" vs. " + self.handle + b")\r\n" + PROMPT)
            elif words[0] == b"observe" and game is not None:
                game.observers.append(self)
                self.transport.write(b"You are now observing game 1.\r\n" + PROMPT)
            elif words[0] in (b"style", b"set"):
                self.transport.write(b"Ignored by the floor.\r\n" + PROMPT)
            elif game is not None and game.mover is self:
                game.command(words)
            else:
                self.transport.write(words[0][:40] + b": Command not found.\r\n" + PROMPT)


class BroadcastGame:
    """The floor of a move watched by many: one position, its bytes built once, one write each.

    Only ``bench/load.py --observers`` uses it: ``examine`` makes the caller
    the mover, ``observe 1`` adds a watcher, a SAN move or ``backward N``
    changes the position and every observer gets a style-12-sized line and
    the FEN (python-chess computes it), then the prompt.  No clocks, no
    languages, no per-observer settings: what ficsfen does beyond this per
    move is ficsfen's own cost.  With ``--direct-send`` each observer's bytes
    go straight to ``socket.send`` when its connection has nothing queued
    (else through ``transport.write``), skipping the reactor's write loop.
    """

    def __init__(self, mover: FloorSession) -> None:
        import chess  # only this benchmark needs it; keeps the plain floor's RSS down

        self.chess = chess
        self.board = chess.Board()
        self.mover = mover
        self.observers: list[FloorSession] = []

    def command(self, words: list[bytes]) -> None:
        board = self.board
        try:
            if words[0] == b"backward":
                for _ in range(min(int(words[1]) if len(words) > 1 else 1, len(board.move_stack))):
                    board.pop()
                san = "back"
            else:
                move = board.parse_san(words[0].decode("ascii"))
                san = board.san(move)
                board.push(move)
        except (ValueError, UnicodeDecodeError):
            self.mover.transport.write(b"Illegal move.\r\n" + PROMPT)
            return
        fen = board.fen(en_passant="fen").encode("ascii")
        line = b"<12> " + board.board_fen().encode("ascii") + b" " + san.encode("ascii") + b" (0:00) 0 0"
        payload = (b"\r\nGame 1: " + self.mover.handle + b" moves: " + san.encode("ascii") + b"\r\n"
                   + line + b"\r\n" + fen + b"\r\n" + PROMPT)
        if self.mover.factory.direct_send:
            for watcher in self.observers:
                transport = watcher.transport
                if transport.connected and not transport.dataBuffer and not transport._tempDataBuffer:
                    try:
                        sent = transport.socket.send(payload)
                    except OSError:
                        sent = 0
                    if sent < len(payload):
                        transport.write(payload[sent:])
                elif transport.connected:
                    transport.write(payload)
        else:
            for watcher in self.observers:
                if watcher.transport.connected:
                    watcher.transport.write(payload)
        self.mover.transport.write(line + b"\r\n" + PROMPT)


class FloorFactory(protocol.Factory):
    """Holds the handles in use so that every guest gets a unique one."""

    protocol = FloorSession

    def __init__(self, *, rng: random.Random | None = None, broadcast: bool = False,
                 direct_send: bool = False) -> None:
        self.broadcast = broadcast
        self.direct_send = direct_send
        self.handles: set[bytes] = set()
        self.game: BroadcastGame | None = None
        self.rng = rng or random.Random()

    def new_guest(self) -> bytes:
        letters = string.ascii_uppercase
        while True:
            handle = ("Guest" + "".join(self.rng.choice(letters) for _ in range(4))).encode("ascii")
            if handle not in self.handles:
                self.handles.add(handle)
                return handle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=5001, help="TCP port (0 picks a free one)")
    parser.add_argument("--interface", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--backlog", type=int, default=50, help="listen backlog (default 50, as Twisted's tcp: endpoints)"
    )
    parser.add_argument(
        "--broadcast", action="store_true",
        help="enable the one broadcast game (examine, observe, moves) for the observers benchmark",
    )
    parser.add_argument(
        "--direct-send", action="store_true",
        help="broadcast boards with socket.send when nothing is queued, instead of transport.write",
    )
    args = parser.parse_args(argv)

    from twisted.internet import reactor

    limit = raise_fd_limit()
    port = reactor.listenTCP(args.port, FloorFactory(broadcast=args.broadcast, direct_send=args.direct_send), backlog=args.backlog, interface=args.interface)
    host = port.getHost()
    print(f"floor_server listening on {host.host}:{host.port} (fd limit {limit})", flush=True)
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
