"""A FICS telnet connection: the parts of :mod:`ficsfen.server` that make one, put together.

Each connection is, from the socket up:

- :class:`ficsfen.server.governor.InputGovernor`: backpressure, the output
  cap and the close grace (:class:`ficsfen.server.governor.HeldOutput`),
  input budgets, rates and turns (the TCP connection's protocol);
- :class:`TelnetConnection` (the governor's protocol), which owns
  a :class:`ficsfen.server.iac.TelnetCodec` (IAC sequences, options),
  a :class:`ficsfen.server.framing.LineFramer` (lines, the length limit),
  the timeseal decoding of a client whose first line says so
  (:mod:`ficsfen.server.timeseal`), the
  :class:`ficsfen.server.login.LoginDialogue` until a session starts, then
  the :class:`ficsfen.server.session.Session`, to which it is "a connection
  that sends lines" (:class:`ficsfen.server.interfaces.ILineConnection`);
- login, idle and close-grace timeouts, one timer each for all connections
  (:class:`ficsfen.server.timeouts.Timeouts`).

:class:`FicsFactory` builds that stack for each accepted connection.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from twisted.conch.telnet import ECHO, SGA
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.i18n import Message, msg
from ficsfen.server import timeseal
from ficsfen.server.addresses import peer_host, peer_text
from ficsfen.server.framing import LineFramer, decode_line, remove_controls
from ficsfen.server.governor import InputGovernor
from ficsfen.server.iac import TelnetCodec, escape
from ficsfen.server.interfaces import ILineConnection
from ficsfen.server.load import MemoryTrimmer, TurnScheduler
from ficsfen.server.login import MAX_TYPE_AHEAD, Desk, LoginDialogue
from ficsfen.server.session import Session, encode_text
from ficsfen.server.sockets import tune
from ficsfen.server.timeouts import Timeouts

__all__ = ["FicsFactory", "MAX_TYPE_AHEAD", "TelnetConnection", "decode_line"]


@implementer(ILineConnection)
class TelnetConnection(Protocol):
    """One client over telnet: bytes to lines, the login dialogue, then its session's lines."""

    log = Logger()
    # Twisted's Protocol has ``ITransport | None``: this protocol is wrapped by its
    # input governor (FicsFactory.buildProtocol), its transport from makeConnection on.
    transport: InputGovernor  # type: ignore[assignment]  # a transport in all but declaration
    #: The session once logged in (None before, and after it left).
    session: Session | None = None
    #: A timeseal client's timing, once its first line said so.
    seal: timeseal.MoveTimer | None = None
    #: Whether the connection is closing or closed (lines mean nothing more).
    closed = False
    #: What each raw input line goes through (_RAW_LINE_HANDLERS): the first one is
    #: looked at for a timeseal hello, then every line is plain or decoded.
    _raw_lines = "first"
    _host = ""  # the peer's address, once counted by the per-address limits
    _counted = False

    def __init__(self, desk: Desk, logins: Timeouts[TelnetConnection] | None,
                 idle: Timeouts[TelnetConnection] | None) -> None:
        self.desk = desk
        self.config = config = desk.config
        #: IAC sequences and options; the governor's parser of this connection's bytes.
        self.codec = TelnetCodec(self, sb_limit=config.subnegotiation_limit,
                                 sb_timeout=config.subnegotiation_timeout)
        self.framer = LineFramer(config.max_line)
        #: The login dialogue, until a session starts.
        self.dialogue: LoginDialogue | None = LoginDialogue(self, desk)
        self._logins = logins  # the login timeouts (at the prompt) ...
        self._idle = idle  # ... and the idle ones (logged in): one timer each for all

    # -- the connection ----------------------------------------------------------------

    @property
    def peer(self) -> str:
        """``host:port`` of the client (behind a PROXY-protocol proxy, the client it names)."""
        return peer_text(self.transport)

    @property
    def host(self) -> str:
        """The client's address without the port (what per-address limits, bans and
        throttling count; see :mod:`ficsfen.server.addresses`)."""
        return peer_host(self.transport)

    @property
    def who(self) -> str:
        """The handle, or the name being logged in, or ``-``."""
        if self.session is not None:
            return self.session.handle
        dialogue = self.dialogue
        return dialogue.pending_name if dialogue is not None and dialogue.pending_name else "-"

    @property
    def holding(self) -> bool:
        """Whether the client is not reading its output (it waits in buffers)."""
        return self.transport.holding

    def connectionMade(self) -> None:  # noqa: N802 - Twisted's name
        desk = self.desk
        if desk.full():
            self.log.info("refused {peer}: server full", peer=self.peer)
            self._refuse(msg("Sorry, the server is full; please try again later."))
            return
        host = self.host
        over = desk.address_limits.connect(host)
        if over is not None:
            if over.report:
                self.log.warn("refused {peer}: {count} connections already open from {host} "
                              "(limits.connections_per_address); more refusals for this "
                              "address within a minute are not logged",
                              peer=self.peer, count=over.count, host=host)
            self._refuse(msg("Sorry, {count} connections are open from your address already, the "
                             "most this server allows. Close one and try again.", count=over.count))
            return
        self._host = host
        desk.opened()
        self._counted = True
        tune(self.transport.transport, self.config, self.peer)
        self.log.info("connection from {peer}", peer=self.peer)
        banner = self.config.banner
        self.say(banner if banner else msg(
            "Welcome to ficsfen, a FICS-style chess server.\n"
            "If you are not a registered player, enter the login name \"{guest}\".\n"
            "Once logged in, type \"help fen\" to learn about FEN.",
            guest=self.config.guest_login))
        if self.dialogue is not None:
            self.dialogue.prompt(fresh_line=True)
        if self._logins is not None:
            self._logins.start(self)

    def _refuse(self, message: Message) -> None:
        self.say(message)
        self.transport.loseConnection()
        self.closed = True
        if self.dialogue is not None:
            self.dialogue.stop()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted's name
        self._cancel_timers()
        if self.dialogue is not None:
            self.dialogue.gone()
        desk = self.desk
        if self._counted:
            desk.closed()
            self._counted = False
        if self._host:
            desk.address_limits.disconnect(self._host)
            self._host = ""
        if self.session is not None:
            desk.logout(self.session, "connection closed")
            self.session = None
        self.closed = True

    def close(self) -> None:
        """End the connection once what was written has gone."""
        self.closed = True
        self._cancel_timers()
        if self.dialogue is not None:
            self.dialogue.stop()
        self.transport.loseConnection()

    def _cancel_timers(self) -> None:
        """No login or idle timeout for this connection any more."""
        if self._logins is not None:
            self._logins.stop(self)
        if self._idle is not None:
            self._idle.stop(self)

    def _login_timeout(self) -> None:
        self.say(msg("\n**** Login timeout: you took more than {seconds} seconds. ****",
                     seconds=int(self.config.login_timeout)))
        self.log.info("login timeout for {peer}", peer=self.peer)
        self.close()

    def _idle_timeout(self) -> None:
        session = self.session
        if session is not None:
            minutes = f"{self.config.idle_timeout / 60:g}"
            note = msg("**** Auto-logout because you were idle more than {minutes} minutes. ****",
                       minutes=minutes)
            session.write_text("\n" + session.render(note))
            self.desk.logout(session, "idle")

    def start_session(self, session: Session) -> None:
        """The login is over: lines are ``session``'s from now on."""
        self._cancel_timers()
        session.sink = self  # broadcasts write to many through write_all
        if self.seal is not None:
            session.timeseal = True
            session.move_timer = self.seal
            self.seal.attach(session)
        self.session = session
        self.dialogue = None
        if self._idle is not None:
            self._idle.start(self)

    # -- output ------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Bytes already encoded, CR LF line ends; IAC bytes are doubled here."""
        if b"\xff" in data:
            data = data.replace(b"\xff", b"\xff\xff")
        self.transport.write(data)

    @staticmethod
    def write_all(connections: list[TelnetConnection], data: bytes) -> None:
        """:meth:`write` the same ``data`` to each of ``connections``, IAC bytes doubled once.

        The fan-out of a board to its observers (``bench/observers.py``).
        """
        data = escape(data)
        for connection in connections:
            connection.transport.write(data)

    def say(self, message: Message | str) -> None:
        """A line before login, in the server's default language."""
        text = message.render(self.config.language) if isinstance(message, Message) else message
        self.write(encode_text(text.replace("\n", "\r\n") + "\r\n", "utf8"))

    # -- telnet (TelnetHost, for the codec) ----------------------------------------------

    def telnet_data(self, data: bytes) -> None:
        self.transport.deliver(data)

    def telnet_stalled(self) -> bool:
        return self.transport.stalled

    def telnet_send(self, data: bytes) -> None:
        self.transport.write_later(data)  # a flood of negotiations: answered a write pass at a time

    def enable_local(self, option: bytes) -> bool:
        dialogue = self.dialogue
        return option == SGA or (option == ECHO and dialogue is not None and dialogue.echo_off)

    def enable_remote(self, option: bytes) -> bool:
        return False

    def echo(self, on: bool) -> None:
        """Ask the client to stop (``on=False``) or resume local echo around a password.

        The server offers WILL ECHO (it echoes, so the client does not) and
        withdraws it with WONT ECHO.  A client that never answered the offer
        gets nothing more.
        """
        codec = self.codec
        if not on:
            codec.offer(ECHO, True)
            return
        state = codec.option_state(ECHO).us
        if state.state == "yes" and not state.negotiating:
            codec.offer(ECHO, False)

    # -- input (GovernedProtocol, for the governor) --------------------------------------

    def lines_received(self, data: bytes) -> None:
        self.framer.feed(data, self)

    # -- lines (LineSink, for the framer) ------------------------------------------------

    def lines_stalled(self) -> bool:
        return self.closed or self.transport.holding

    def line_received(self, line: bytes) -> None:
        """One raw line: decoded by the connection's mode (:data:`_RAW_LINE_HANDLERS`).

        A plain line of a logged-in session, what :meth:`_plain_line` does,
        inlined: the path of every command, measured by ``bench/load.py
        --compare`` (the ``fen`` CPU ratio to ``bench/floor_server.py``).
        """
        if self.closed:
            return
        session = self.session
        if session is None or self._raw_lines != "plain":
            _RAW_LINE_HANDLERS[self._raw_lines](self, line)
            return
        text = decode_line(line)
        if text[:2] != "$$" and self._idle is not None:  # not text.startswith("$$"), no call
            self._idle.start(self)
        self.desk.dispatcher.execute(session, text)

    def line_too_long(self) -> None:
        if self.session is not None:  # the server answers (code 520 in block mode)
            self.desk.line_too_long(self.session)
        else:
            self._complain(msg("Your line was longer than {limit} bytes and has been ignored.",
                               limit=self.config.max_line))

    def text_line(self, line: str) -> None:
        """A decoded line: a command once logged in, else the login dialogue's."""
        if self.closed:
            return
        session = self.session
        if session is not None:
            if not line.startswith("$$") and self._idle is not None:
                self._idle.start(self)  # activity ("$$" lines are not): the idle time starts again
            self.desk.dispatcher.execute(session, line)
        elif self.dialogue is not None:
            self.dialogue.line(line)

    def _first_line(self, raw: bytes) -> None:
        """The connection's first line: a timeseal hello switches decoding on."""
        found = timeseal.detect(raw)
        if found is None:
            self._raw_lines = "plain"
            self.text_line(decode_line(raw))
            return
        hello, ping = found
        self.seal = timeseal.MoveTimer(ping=ping, max_compensation=self.config.lag_compensation)
        self._raw_lines = "sealed"
        self.framer.limit = self.config.max_line + timeseal.MAX_OVERHEAD
        self.log.info("timeseal client at {peer}: {hello}", peer=self.peer,
                      hello=decode_line(hello.text[:200]))

    def _plain_line(self, raw: bytes) -> None:
        """A line of a plain (not timeseal) connection."""
        self.text_line(decode_line(raw))

    def _sealed_line(self, raw: bytes) -> None:
        """One line of a timeseal connection: decoded, a ping answer kept, else run."""
        try:
            typed, digits = timeseal.unseal(raw + b"\n")
        except timeseal.TimesealError as e:
            if raw:  # a bare line end: nothing a timeseal client encodes
                self.log.info("ignored a bad timeseal line from {peer}: {reason}", peer=self.peer,
                              reason=e.render("en"))
                self._complain(e.message)
            return
        seal = self.seal
        if seal is None:  # pragma: no cover - only sealed lines come here
            return
        if typed == timeseal.PING_REPLY:
            seal.replied(timeseal.stamp_of(digits))
            return
        seal.digits = digits
        # What decode_line does: a timeseal line's text is ASCII (7 bits a byte).
        self.text_line(remove_controls(typed.decode()))

    def _complain(self, note: Message) -> None:
        """Why an input line was ignored, then the prompt of where the client is."""
        if self.session is not None:
            self.session.send(note)
            self.session.prompt()
        elif not self.closed and self.dialogue is not None:
            self.say(note)
            self.dialogue.prompt()


#: What TelnetConnection.line_received does with each raw line, by ``_raw_lines``:
#: one table for every connection, rather than bound methods made for each.
_RAW_LINE_HANDLERS: dict[str, Callable[[TelnetConnection, bytes], None]] = {
    "first": TelnetConnection._first_line,
    "plain": TelnetConnection._plain_line,
    "sealed": TelnetConnection._sealed_line,
}

#: Per server, whichever factory built the connection (tests build one factory per client).
_Shared = tuple[Desk, TurnScheduler, MemoryTrimmer, Timeouts[TelnetConnection],
                Timeouts[TelnetConnection], Timeouts[InputGovernor]]
_SHARED: weakref.WeakKeyDictionary[Any, _Shared] = weakref.WeakKeyDictionary()


class FicsFactory(ServerFactory):
    """Builds an :class:`InputGovernor` around a :class:`TelnetConnection` for each connection."""

    noisy = False  # our own log line per connection says more

    def __init__(self, server: Any) -> None:
        self.server = server
        #: What all the server's connections share, made with its first factory.
        shared = _SHARED.get(server)
        if shared is None:
            config = server.config
            shared = _SHARED[server] = (
                Desk(server),
                TurnScheduler(server.clock, share=config.heavy_percent / 100,
                              budget=config.heavy_turn_ms / 1000),
                MemoryTrimmer(server.clock, after=config.trim_after, again=config.trim_again,
                              tidy=server.tidy),
                Timeouts(server.clock, config.login_timeout, TelnetConnection._login_timeout),
                Timeouts(server.clock, config.idle_timeout, TelnetConnection._idle_timeout),
                Timeouts(server.clock, config.close_grace, InputGovernor._grace_over))
        #: ``desk``: the server's methods the telnet side calls; ``scheduler``: where heavy
        #: connections take turns; ``trimmer``: gives memory back after many connections
        #: closed; ``logins``: the connections at the login or password prompt, timed out
        #: together; ``idle``: the logged-in ones, each restarted by its command lines;
        #: ``closing``: the closed ones whose output is not sent yet.
        self.desk, self.scheduler, self.trimmer, self.logins, self.idle, self.closing = shared

    def buildProtocol(self, addr: Any) -> InputGovernor:  # noqa: N802 - Twisted's name
        return InputGovernor(self, TelnetConnection(self.desk, self.logins, self.idle))
