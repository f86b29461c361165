"""The floor for a move's fan-out: a Twisted server that only broadcasts bytes.

The peer of ``bench/observers.py``.  Every connection but the first is an
"observer"; a line ``MOVE FEN`` from any connection makes the server send
every observer one precomputed-size message (a ``<12>``-sized line, the FEN
line and the prompt, like ficsfen's board notification) and answer the
sender with a prompt.  ``TELL TEXT`` does the same with the text alone on
its line (the floor of a channel tell, ``bench/fanout_tell.py``).  No
login, no parsing, no formatting: what is left is the cost of one write per
observer through Twisted (``--direct`` listens through ficsfen's own ports,
whose connections write to the socket at once when nothing is queued, as
ficsfen does).

    python bench/fanout_floor.py --port 5001 [--direct]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

BOARD = b"<12> " + b"x" * 190  # about the size of a real <12> line
PROMPT = b"fics% "


class Broadcast(LineOnlyReceiver):
    delimiter = b"\r\n"

    def connectionMade(self) -> None:
        self.factory.clients.append(self)
        no_delay = getattr(self.transport, "setTcpNoDelay", None)
        if no_delay is not None:
            no_delay(True)
        self.transport.write(PROMPT)  # tells the client it is registered

    def connectionLost(self, reason=None) -> None:
        if self in self.factory.clients:
            self.factory.clients.remove(self)

    def lineReceived(self, line: bytes) -> None:
        # MOVE: a board-sized line and the text (bench/observers.py); TELL: the text
        # alone, as a chat line (bench/fanout_tell.py).
        if line.startswith(b"MOVE ") or line.startswith(b"TELL "):
            body = line[5:] if line.startswith(b"TELL ") else BOARD + b"\r\n" + line[5:]
            data = b"\r\n" + body + b"\r\n" + PROMPT
            for client in self.factory.clients:
                if client is not self:
                    client.transport.write(data)
        self.transport.write(b"ok\r\n" + PROMPT)


class BroadcastFactory(Factory):
    protocol = Broadcast

    def __init__(self) -> None:
        self.clients: list[Broadcast] = []


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--interface", default="127.0.0.1")
    p.add_argument("--direct", action="store_true")
    args = p.parse_args(argv)
    listener = reactor
    if args.direct:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from ficsfen.server.listening import AcceptLimitedReactor

        # as many accepts a turn as Twisted's own port takes: only the writes differ
        listener = AcceptLimitedReactor(reactor, accepts_per_turn=100)
    listener.listenTCP(args.port, BroadcastFactory(), interface=args.interface, backlog=2048)
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
