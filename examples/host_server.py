"""A minimal chess server of its own that mounts ficsfen's ``fen`` and ``help``.

    python examples/host_server.py --port 5050 [--interface 127.0.0.1] [--feed tcp:5051]

(with ficsfen installed, ``pip install .``, or from a checkout with
``PYTHONPATH=.``)

This is what a developer of another chess server writes to embed ficsfen:
no FICS login, no telnet negotiation, its own tiny command loop and game
store.  Every connection gets a handle (``PlayerA``, ``PlayerB``...) and its
own game at the start position.  A line whose first word is a command runs
it; any other line is a move in that game.  ``lang fr`` / ``lang en``
switches the connection's language.

Everything from ficsfen is imported from the top-level package (the public
API).  The host provides the three seams ficsfen's commands need:

- ``ICaller``: the connection itself (``handle``, ``lang``, ``send``);
- ``IGameDirectory``: :class:`GameStore`, finding games by player or number;
- ``IGame``: :class:`HostGame`, a number, two handles and a ``Tracker``.

With ``--feed ENDPOINT`` the host also serves ficsfen's NDJSON game feed.
``--port 0`` picks a free port; the ports are printed on standard output.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Iterable

from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineReceiver
from zope.interface import implementer

from ficsfen import (
    FenCommand,
    GameFeed,
    HelpCommand,
    ICaller,
    IGame,
    IGameDirectory,
    MoveError,
    NextCommand,
    Pager,
    Tracker,
    available_languages,
    msg,
    render,
)

PROMPT = b"> "


@implementer(IGame)
class HostGame:
    """One connection's game: the player plays both sides from the start position."""

    examined = True  # a scratch board, not a rated game between two people

    def __init__(self, number: int, handle: str) -> None:
        self.number = number
        self.white = handle
        self.black = handle
        self.tracker = Tracker()

    def players(self) -> tuple[str, ...]:
        return (self.white,)


@implementer(IGameDirectory)
class GameStore:
    """The host's own game store: one game per handle, numbered from 1."""

    def __init__(self) -> None:
        self._by_handle: dict[str, HostGame] = {}
        self._by_number: dict[int, HostGame] = {}
        self._next = 1

    def new_game(self, handle: str) -> HostGame:
        game = HostGame(self._next, handle)
        self._next += 1
        self._by_handle[handle.casefold()] = game
        self._by_number[game.number] = game
        return game

    def drop(self, handle: str) -> HostGame | None:
        game = self._by_handle.pop(handle.casefold(), None)
        if game is not None:
            self._by_number.pop(game.number, None)
        return game

    # -- IGameDirectory --------------------------------------------------

    def by_number(self, number: int) -> HostGame | None:
        return self._by_number.get(number)

    def game_of(self, handle: str) -> HostGame | None:
        return self._by_handle.get(handle.casefold())

    def observed_by(self, handle: str) -> None:
        return None  # nobody observes in this tiny host

    def handles(self) -> Iterable[str]:
        return [game.white for game in self._by_handle.values()]


@implementer(ICaller)
class HostConnection(LineReceiver):
    """One player's line-based connection; it is also the ``ICaller``."""

    delimiter = b"\n"
    MAX_LENGTH = 4096

    def __init__(self, host: "HostFactory") -> None:
        self.host = host
        self.handle = ""
        self.lang = "en"
        self.game: HostGame | None = None
        self._unread = b""  # an overlong line and what came with it, still to read

    # -- ICaller -------------------------------------------------------------

    def send(self, message: Any) -> None:
        """Render a ficsfen message (or plain text) in this caller's language."""
        text = render(message, self.lang)
        for line in text.split("\n"):
            self.transport.write(line.encode("utf-8") + b"\r\n")

    # -- the connection ----------------------------------------------------

    def connectionMade(self) -> None:
        self.handle = self.host.new_handle()
        self.game = self.host.games.new_game(self.handle)
        if self.host.feed is not None:
            self.host.feed.game_started(self.game)
        self.send(msg("Welcome, {handle}. You have game {number} at the start position. "
                      "Type a move (e4), fen, help fen, lang fr or quit.",
                      handle=self.handle, number=self.game.number))
        self.transport.write(PROMPT)

    def connectionLost(self, reason: Any = None) -> None:
        game = self.host.games.drop(self.handle)
        if game is not None and self.host.feed is not None:
            self.host.feed.game_ended(game, "*")

    # Overlong lines: LineReceiver's default hangs up.  Instead say so once,
    # then skip the rest of that line in raw mode; line mode resumes after it.

    def lineLengthExceeded(self, line: bytes) -> None:
        self.send(msg("That line is too long; it was ignored."))
        self.transport.write(PROMPT)
        self.setRawMode()
        self._unread = line  # it may hold the lines typed after it: read on below

    def rawDataReceived(self, data: bytes) -> None:
        _, end, rest = data.partition(self.delimiter)
        if end:
            self.setLineMode(rest)

    def dataReceived(self, data: bytes) -> None:
        super().dataReceived(data)
        unread, self._unread = self._unread, b""
        if unread:  # LineReceiver stops reading at an overlong line
            self.dataReceived(unread)

    def lineReceived(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").strip()
        if line:
            word, _, rest = line.partition(" ")
            command = self.host.commands.get(word.lower())
            if command is not None:
                # ficsfen's commands and the host's own share one signature
                command(self, rest.strip(), self.host.games)
            else:
                self.play(line)
        if self.transport is not None and not self.transport.disconnecting:
            self.transport.write(PROMPT)

    def play(self, text: str) -> None:
        """Any line that is not a command is a move in this connection's game."""
        try:
            ply = self.game.tracker.push(text)
        except MoveError as e:
            self.send(e.message)
            return
        self.send(msg("You played {san}.", san=ply.san))


def lang_command(caller: HostConnection, args: str, directory: Any) -> None:
    """``lang en|fr``: the host's own command, next to ficsfen's."""
    code = args.strip().lower()
    if code not in available_languages():
        caller.send(msg("Usage: lang {choices}", choices="|".join(available_languages())))
        return
    caller.lang = code
    caller.send(msg("Messages and help are now in English."))


def quit_command(caller: HostConnection, args: str, directory: Any) -> None:
    caller.send(msg("Goodbye."))
    caller.transport.loseConnection()


class HostFactory(Factory):
    """The host server: its game store, its command table, ficsfen's commands in it."""

    def __init__(self, *, feed: GameFeed | None = None, page_lines: int = 0) -> None:
        self.games = GameStore()
        self.feed = feed
        self._count = 0
        pager = Pager(page_lines)
        # Mounting ficsfen: three objects providing ICommand, registered by name.
        fen = FenCommand()
        help_ = HelpCommand(pager=pager, command_names=lambda: self.commands.keys())
        next_ = NextCommand(pager)
        self.commands: dict[str, Any] = {
            fen.name: fen,
            help_.name: help_,
            next_.name: next_,
            "lang": lang_command,
            "quit": quit_command,
        }

    def new_handle(self) -> str:
        """``PlayerA``, ``PlayerB``, ... ``PlayerAA``: letters only, as FICS handles."""
        self._count += 1
        n, letters = self._count, ""
        while n:
            n, r = divmod(n - 1, 26)
            letters = chr(65 + r) + letters
        return "Player" + letters

    def buildProtocol(self, addr: Any) -> HostConnection:
        protocol = HostConnection(self)
        protocol.factory = self
        return protocol


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A tiny chess server mounting ficsfen.")
    parser.add_argument("--port", type=int, default=5050, help="TCP port (0: any free port)")
    parser.add_argument("--interface", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--feed", metavar="ENDPOINT", help="serve ficsfen's NDJSON game feed here")
    args = parser.parse_args(argv)

    from twisted.internet import reactor

    feed = GameFeed() if args.feed else None
    factory = HostFactory(feed=feed)
    port = reactor.listenTCP(args.port, factory, interface=args.interface)
    print(f"host listening on port {port.getHost().port}", flush=True)
    if feed is not None:
        def feeding(feed_port: Any) -> None:
            print(f"feed listening on port {feed_port.getHost().port}", flush=True)

        def no_feed(failure: Any) -> None:
            print(f"cannot serve the feed: {failure.getErrorMessage()}", file=sys.stderr, flush=True)
            reactor.stop()

        feed.listen(reactor, args.feed).addCallbacks(feeding, no_feed)
    reactor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
