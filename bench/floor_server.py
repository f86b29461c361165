"""The floor: the least a Twisted line server can do for a FICS-style session.

``bench/load.py`` measures ficsfen against this server side by side.  It does
only what a benchmark client needs: the ``login:`` prompt, a ``guest`` login
with a fresh ``GuestXXXX`` handle in FICS wording, the ``fics% `` prompt, a
``fen`` command answering one constant FEN, and ``quit``.  Any other command
gets a one-line "Command not found." so that set-up commands sent to both
servers cost the floor next to nothing.  No telnet negotiation, no logging,
no catalogs: whatever ficsfen spends above this is ficsfen's own cost.  (The
floor of a move watched by many is ``bench/fanout_floor.py``.)

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

__all__ = ["FloorFactory", "FloorSession", "main", "raise_fd_limit"]

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
            self.transport.write(line.split()[0][:40] + b": Command not found.\r\n" + PROMPT)


class FloorFactory(protocol.Factory):
    """Holds the handles in use so that every guest gets a unique one."""

    protocol = FloorSession

    def __init__(self, *, rng: random.Random | None = None) -> None:
        self.handles: set[bytes] = set()
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
    args = parser.parse_args(argv)

    from twisted.internet import reactor

    limit = raise_fd_limit()
    port = reactor.listenTCP(args.port, FloorFactory(), backlog=args.backlog,
                              interface=args.interface)
    host = port.getHost()
    print(f"floor_server listening on {host.host}:{host.port} (fd limit {limit})", flush=True)
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
