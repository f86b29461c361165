"""The telnet side: bytes in and out, line ends, IAC, login, timeouts.

:class:`FicsTelnetTransport` is Twisted's ``TelnetTransport`` (option
negotiation and all) with a tolerant byte parser: a bare CR, CR LF, CR NUL
and LF each end a line at once, and an unknown or malformed IAC sequence is
skipped instead of raising (the stock parser raises ``ValueError`` and the
connection drops).  :class:`FicsProtocol` turns lines into the FICS login
dialogue and then into commands for :class:`ficsfen.server.server.FicsServer`.
"""

from __future__ import annotations

import codecs
import re
from collections import deque
from typing import Any

from twisted.conch.telnet import (
    AO, AYT, BRK, DM, DO, DONT, EC, ECHO, EL, EOR, GA, IAC, IP, NOP, SB, SE, SGA, WILL, WONT,
    TelnetProtocol, TelnetTransport,
)
from twisted.internet import tcp
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.protocol import ServerFactory
from twisted.logger import Logger

from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server import timeseal
from ficsfen.server.ivars import IVARS
from ficsfen.server.session import Session, encode_text

__all__ = ["FicsFactory", "FicsProtocol", "FicsTelnetTransport", "MAX_TYPE_AHEAD", "decode_line"]


def _latin1_fallback(error: UnicodeDecodeError) -> tuple[str, int]:
    """Decode the one offending byte as Latin-1 and carry on with UTF-8."""
    return error.object[error.start:error.start + 1].decode("latin-1"), error.start + 1


codecs.register_error("ficsfen-latin1", _latin1_fallback)

# C0 controls (but tab), DEL and C1 controls are dropped from input lines:
# echoed back in an error message they could drive the reader's terminal.
_CONTROLS = dict.fromkeys([*range(0, 9), *range(10, 32), *range(127, 160)])


def decode_line(raw: bytes) -> str:
    """Text of one input line: UTF-8, each undecodable byte as Latin-1, controls removed."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "ficsfen-latin1")
    if text.isprintable():  # no control character to remove (the usual line)
        return text
    return text.translate(_CONTROLS)


_SPECIAL = re.compile(rb"[\xff\r]")
_SIMPLE_COMMANDS = frozenset((EOR, NOP, DM, BRK, IP, AO, AYT, EC, EL, GA))
_NEGOTIATION = frozenset((WILL, WONT, DO, DONT))


# Plain TCP server connections (exactly that class: a subclass or a wrapper
# such as TLS may do more in write), whose socket we may write to at once.
_DIRECT_TRANSPORTS = frozenset({tcp.Server})

# What the login dialogue asks for, by FicsProtocol.state (FICS's own words:
# clients and scripts wait for them, so they are never translated).
_PROMPTS = {"login": b"login: ", "password": b"password: "}

#: Most lines kept while a password is being checked (typed ahead by a
#: script or a client); later ones are dropped, and the player is told how
#: many once logged in.  Each line is at most ``max_line`` bytes.
MAX_TYPE_AHEAD = 50

_DOLLAR = ord("$")


def _send_now(transport: Any, data: bytes) -> bool:
    """Put ``data`` on ``transport``'s socket now when nothing is queued before it.

    Why: a move watched by a thousand observers is a thousand small writes.
    Through ``transport.write`` each one costs two ``epoll_ctl`` calls and a
    trip through the reactor's write loop (the plain Twisted floor in
    ``bench/fanout_floor.py`` spends three times our CPU per move that way);
    when the connection's buffer is empty (the usual case) a non-blocking
    ``send`` right away gives the same bytes in the same order.

    This reads private attributes of Twisted's ``tcp.Server`` (checked in
    ``tests/test_fanout.py``), so it is only used for that exact class, and
    every doubt means "no": anything queued in Twisted's buffers (sending
    now would overtake it), a producer attached, not connected, closing or
    half-closed, TLS started on the connection (the bytes must be
    encrypted), an attribute missing (another Twisted version), or a socket
    error (``EAGAIN``, a reset peer, a closed socket).  Then it returns
    False having sent nothing, and the caller writes through Twisted as
    usual, which also reports any error.  A partial send hands the rest to
    Twisted, which keeps it ahead of anything written later.
    """
    try:
        if (transport.dataBuffer or transport._tempDataBuffer or transport.producer is not None
                or not transport.connected or transport.disconnecting or transport.TLS
                or transport._writeDisconnecting or transport._writeDisconnected):
            return False
        sent = transport.socket.send(data)
    except (AttributeError, OSError):
        return False
    if sent < len(data):
        transport.write(data[sent:])
    return True


class FicsTelnetTransport(TelnetTransport):
    """``TelnetTransport`` whose input parser never raises and ends lines on a bare CR.

    Application data reaches the protocol with every line end turned into
    a single ``\\n``.
    """

    log = Logger()
    _direct = False  # whether the transport is plain TCP (set when connected)

    def connectionMade(self) -> None:
        self._direct = type(self.transport) in _DIRECT_TRANSPORTS
        super().connectionMade()

    def dataReceived(self, data: bytes) -> None:
        # Fast path: almost every chunk is typed text ending in CR LF, with no
        # IAC byte.  Line ends are then rewritten with three C-level replaces,
        # giving exactly what the byte parser below gives (a bare CR, CR LF
        # and CR NUL each become one LF; a trailing CR leaves state "cr" so
        # that an LF or NUL opening the next chunk is swallowed).
        state = self.state
        if not data:
            return
        if state == "subnegotiation-discard" and b"\xff" not in data:
            return  # the tail of an overlong subnegotiation: no IAC SE in it yet
        if b"\xff" not in data and (state == "data" or state == "cr"):
            if state == "cr":
                self.state = "data"
                if data[:1] in (b"\n", b"\0"):
                    data = data[1:]
            if b"\r" in data:
                if data[-1:] == b"\r":
                    data = data[:-1].replace(b"\r\n", b"\n").replace(b"\r\0", b"\n").replace(
                        b"\r", b"\n") + b"\n"
                    self.state = "cr"
                else:
                    data = data.replace(b"\r\n", b"\n").replace(b"\r\0", b"\n").replace(b"\r", b"\n")
            if data:
                self.protocol.dataReceived(data)
            return
        app: list[bytes] = []
        i, n = 0, len(data)
        while i < n:
            state = self.state
            if state == "data":
                m = _SPECIAL.search(data, i)
                end = m.start() if m else n
                if end > i:
                    app.append(data[i:end])
                if m is None:
                    break
                i = end + 1
                if data[end] == 0xFF:
                    self.state = "escaped"
                else:
                    app.append(b"\n")
                    self.state = "cr"
                continue
            b = data[i:i + 1]
            i += 1
            if state == "cr":
                self.state = "data"
                if b not in (b"\n", b"\0"):
                    i -= 1  # an ordinary byte after a bare CR: read it as data
            elif state == "escaped":
                self.state = "data"
                if b == IAC:
                    app.append(IAC)
                elif b == SB:
                    self.state = "subnegotiation"
                    self.commands = []
                elif b in _NEGOTIATION:
                    self.state = "command"
                    self.command = b
                elif b in _SIMPLE_COMMANDS:
                    self._flush(app)
                    self._safely(self.commandReceived, b, None)
                # any other byte after IAC is not a telnet command: ignore both
            elif state == "command":
                self.state = "data"
                command = self.command
                del self.command
                self._flush(app)
                self._safely(self.commandReceived, command, b)
            elif state == "subnegotiation":
                if b == IAC:
                    self.state = "subnegotiation-escaped"
                elif len(self.commands) < self._MAX_SUBNEGOTIATION_LENGTH:
                    self.commands.append(b)
                else:  # runaway subnegotiation: drop it up to its IAC SE, keep the connection
                    self.state = "subnegotiation-discard"
                    del self.commands
            elif state == "subnegotiation-escaped":
                if b == SE:
                    self.state = "data"
                    commands = self.commands
                    del self.commands
                    self._flush(app)
                    self._safely(self.negotiate, commands)
                else:
                    self.state = "subnegotiation"
                    self.commands.append(b)
            elif state == "subnegotiation-discard":
                # Its bytes are option data, never typed input: skip to the next IAC.
                k = data.find(b"\xff", i - 1)
                if k < 0:
                    break
                i = k + 1
                self.state = "subnegotiation-discard-escaped"
            elif state == "subnegotiation-discard-escaped":
                # IAC SE ends it; IAC IAC (an escaped 255) or anything else does not.
                self.state = "data" if b == SE else "subnegotiation-discard"
            else:  # pragma: no cover - states are ours
                self.state = "data"
        self._flush(app)

    def write(self, data: bytes) -> None:
        """Write ``data`` with IAC doubled; line ends are already CR LF (no LF rewriting)."""
        if b"\xff" in data:
            data = data.replace(b"\xff", b"\xff\xff")
        transport = self.transport
        if self._direct and _send_now(transport, data):
            return
        transport.write(data)

    @staticmethod
    def write_all(connections: "list[FicsTelnetTransport]", data: bytes) -> None:
        """Write the same ``data`` to many connections (a board to its observers).

        IAC bytes are doubled once for all, and each plain TCP connection
        with nothing queued gets the bytes from one ``send`` (:func:`_send_now`).
        """
        if b"\xff" in data:
            data = data.replace(b"\xff", b"\xff\xff")
        send_now = _send_now
        for telnet in connections:
            transport = telnet.transport
            if not (telnet._direct and send_now(transport, data)):
                transport.write(data)

    def _flush(self, app: list[bytes]) -> None:
        if app:
            data = b"".join(app)
            del app[:]
            self.applicationDataReceived(data)

    def _safely(self, handler: Any, *args: Any) -> None:
        try:
            handler(*args)
        except Exception:
            self.log.failure("telnet option handling failed; ignored")


class FicsProtocol(TelnetProtocol):
    """One connection: the login dialogue, then commands (one per line)."""

    log = Logger()

    def __init__(self, server: Any) -> None:
        self.server = server
        self.config = server.config
        self.state = "login"
        self.session: Session | None = None
        self.pending_name = ""
        self._buffer = b""
        self._discarding = False
        self._timer: Any = None
        self._counted = False
        self._echo_off = False
        self._last_input = 0.0  # clock time of the last command line (idle timeout)
        #: Lines typed while the password is checked, with their timeseal stamps.
        self._type_ahead: deque[tuple[str, int | None]] = deque()
        self._dropped = 0  # type-ahead lines beyond MAX_TYPE_AHEAD
        self._ivars: dict[str, bool] = {}  # set by %b at the login prompt
        #: A timeseal client's timing, once its first line said so.
        self._seal: timeseal.MoveTimer | None = None
        # What each raw input line goes through: the first one is looked at
        # for a timeseal hello, then every line is plain or decoded.
        self._take = self._first_line
        # What a line means in each state of the login dialogue (none once closed).
        self._line_handlers = {
            "login": self.line_login,
            "password": self.line_password,
            "checking": self.line_type_ahead,
            "confirm": self.line_confirm,
            "command": self.line_command,
        }

    # -- connection ------------------------------------------------------

    @property
    def peer(self) -> str:
        try:
            addr = self.transport.getPeer()
            return f"{addr.host}:{addr.port}"
        except Exception:
            return "?"

    def connectionMade(self) -> None:
        server = self.server
        if server.connections >= self.config.max_connections:
            self.log.info("refused {peer}: server full", peer=self.peer)
            self.say(msg("Sorry, the server is full; please try again later."))
            self.transport.loseConnection()
            self.state = "closed"
            return
        server.connections += 1
        self._counted = True
        # Answers and boards are small writes: send them at once, not after
        # the client's delayed ACK (Nagle), which costs an ICS player ~40 ms.
        connection = self.transport.transport  # under the telnet layer
        if ITCPTransport.providedBy(connection):
            try:
                connection.setTcpNoDelay(True)
            except OSError:  # pragma: no cover - not a TCP socket after all
                pass
        self.log.info("connection from {peer}", peer=self.peer)
        banner = self.config.banner
        self.say(banner if banner else msg(
            "Welcome to ficsfen, a FICS-style chess server.\n"
            "If you are not a registered player, enter the login name \"{guest}\".\n"
            "Once logged in, type \"help fen\" to learn about FEN.",
            guest=self.config.guest_login))
        self._reprompt(fresh_line=True)
        if self.config.login_timeout:
            self._timer = self.server.clock.callLater(self.config.login_timeout, self._login_timeout)

    def connectionLost(self, reason: Any = None) -> None:
        self._cancel_timer()
        if self._counted:
            self.server.connections -= 1
            self._counted = False
        if self.session is not None:
            self.server.logout(self.session, reason="connection closed")
            self.session = None
        elif self.pending_name:
            self.server.release(self.pending_name)
        self.state = "closed"

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def _login_timeout(self) -> None:
        self._timer = None
        self.say(msg("\n**** Login timeout: you took more than {seconds} seconds. ****",
                     seconds=int(self.config.login_timeout)))
        self.log.info("login timeout for {peer}", peer=self.peer)
        self.close()

    def _idle_timeout(self) -> None:
        self._timer = None
        # The timer is not pushed back on every line (a DelayedCall.reset per
        # command costs more than the command): when it fires after activity,
        # it is armed again for the rest of the idle time.
        left = self._last_input + self.config.idle_timeout - self.server.clock.seconds()
        if left > 0 and self.session is not None:
            self._timer = self.server.clock.callLater(left, self._idle_timeout)
            return
        if self.session is not None:
            minutes = f"{self.config.idle_timeout / 60:g}"
            note = msg("**** Auto-logout because you were idle more than {minutes} minutes. ****",
                       minutes=minutes)
            self.session.write_text("\n" + self.session.render(note))
            self.server.logout(self.session, reason="idle")

    def close(self) -> None:
        self.state = "closed"
        self._cancel_timer()
        self.transport.loseConnection()

    # -- output ------------------------------------------------------------

    def write(self, data: bytes) -> None:
        self.transport.write(data)

    def say(self, message: Message | str) -> None:
        """A line before login, in the server's default language."""
        text = message.render(self.config.language) if isinstance(message, Message) else message
        self.write(encode_text(text.replace("\n", "\r\n") + "\r\n", "utf8"))

    # -- input -------------------------------------------------------------

    def dataReceived(self, data: bytes) -> None:
        limit = self.config.max_line
        # Fast path: one whole command line, nothing buffered (what a client
        # typing at the prompt sends); the same steps as below, fewer calls.
        if (self.state == "command" and data[-1:] == b"\n" and not self._buffer
                and not self._discarding and len(data) <= limit
                and data.find(b"\n") == len(data) - 1):
            if data[0] != _DOLLAR or data[1] != _DOLLAR:  # "$$" is not activity
                self._last_input = self.server.clock.seconds()
            self.server.execute(self.session, decode_line(data[:-1]))
            return
        self._receive(data, limit)

    def _sealed_data(self, data: bytes) -> None:
        """``dataReceived`` of a timeseal connection: every line is decoded first.

        It replaces the plain method on the instance once the first line
        was a timeseal hello, so plain connections pay nothing for timeseal.
        An encoded line is longer than its text by at most
        :data:`ficsfen.server.timeseal.MAX_OVERHEAD` bytes.
        """
        limit = self.config.max_line + timeseal.MAX_OVERHEAD
        # Fast path, as in dataReceived: one whole line and nothing buffered.
        if (data[-1:] == b"\n" and not self._buffer and not self._discarding
                and len(data) <= limit and data.find(b"\n") == len(data) - 1):
            self._sealed_line(data[:-1])
            return
        self._receive(data, limit)

    def _receive(self, data: bytes, limit: int) -> None:
        """Split ``data`` into lines, each handed to the current line taker."""
        if self._discarding:
            k = data.find(b"\n")
            if k < 0:
                return
            data = data[k + 1:]
            self._discarding = False
            self._line_too_long()
        if self._buffer:
            data = self._buffer + data
        if b"\n" not in data:
            if len(data) > limit:
                self._buffer = b""
                self._discarding = True
            else:
                self._buffer = data
            return
        lines = data.split(b"\n")
        tail = lines.pop()
        for raw in lines:
            if self.state == "closed":
                return
            if len(raw) > limit:
                self._line_too_long()
            else:
                self._take(raw)
        if len(tail) > limit:
            self._buffer = b""
            self._discarding = True
        else:
            self._buffer = tail

    def _first_line(self, raw: bytes) -> None:
        """The connection's first line: a timeseal hello switches decoding on."""
        found = timeseal.detect(raw)
        if found is None:
            self._take = self._plain_line
            self._plain_line(raw)
            return
        hello, ping = found
        self._seal = timeseal.MoveTimer(ping=ping, max_compensation=self.config.lag_compensation)
        self._take = self._sealed_line
        self.dataReceived = self._sealed_data  # type: ignore[method-assign]
        self.log.info("timeseal client at {peer}: {hello}", peer=self.peer,
                      hello=decode_line(hello.text[:200]))

    def _plain_line(self, raw: bytes) -> None:
        self.lineReceived(decode_line(raw))

    def _sealed_line(self, raw: bytes) -> None:
        """One line of a timeseal connection: decoded, a ping answer kept, else run."""
        if not raw:
            return  # a bare line end: nothing a timeseal client encodes
        try:
            typed, stamp = timeseal.decode(raw)
        except timeseal.TimesealError as e:
            self.log.info("ignored a bad timeseal line from {peer}: {reason}", peer=self.peer,
                          reason=e.render("en"))
            self._complain(e.message)
            return
        if typed == timeseal.PING_REPLY:
            self._seal.replied(stamp)
            return
        self._seal.stamp = stamp
        if self.state == "command":  # what line_command does, one call less
            text = decode_line(typed)
            if not text.startswith("$$"):
                self._last_input = self.server.clock.seconds()
            self.server.execute(self.session, text)
        else:
            self.lineReceived(decode_line(typed))

    def _line_too_long(self) -> None:
        if self.session is not None:  # the server answers (code 520 in block mode)
            self.server.line_too_long(self.session)
        else:
            self._complain(msg("Your line was longer than {limit} bytes and has been ignored.",
                               limit=self.config.max_line))

    def _complain(self, note: Message) -> None:
        """Why an input line was ignored, then the prompt of where the client is."""
        if self.session is not None:
            self.session.send(note)
            self.session.prompt()
        elif self.state != "closed":
            self.say(note)
            self._reprompt()

    def _reprompt(self, *, fresh_line: bool = False) -> None:
        """The prompt of the login dialogue's current step, if it has one."""
        prompt = _PROMPTS.get(self.state)
        if prompt is not None:
            self.write(b"\r\n" + prompt if fresh_line else prompt)

    def lineReceived(self, line: str) -> None:
        handler = self._line_handlers.get(self.state)
        if handler is not None:
            handler(line)

    def line_login(self, line: str) -> None:
        name = line.strip()
        if not name:
            self._reprompt()
            return
        if name.startswith("%b"):
            self._set_ivars(name[2:])
            return
        name = name.split()[0]
        server = self.server
        if fold(name) == fold(self.config.guest_login):
            handle = server.allocate_guest()
            self.pending_name = handle
            self.say(msg("Logging you in as \"{handle}\"; you may use this name to play "
                         "unrated games.", handle=handle))
            self._ask_return(handle)
            return
        if server.is_registered(name):
            # Asked even when the player is logged in: the right password
            # then closes the other session (FicsServer.enter).
            self.pending_name = name
            self.state = "password"
            self.say(msg("\"{name}\" is a registered name.  If it is yours, type the password.\n"
                         "If not, just hit return to try another name.", name=name))
            self.write(b"\r\n")
            self._echo(False)
            self._reprompt()
            return
        reason = server.check_name(name)
        if reason is not None:
            self.say(reason)
            self._reprompt()
            return
        server.reserve(name)
        self.pending_name = name
        self.say(msg("\"{name}\" is not a registered name.  You may play unrated games as a "
                     "guest.", name=name))
        self._ask_return(name)

    def _set_ivars(self, digits: str) -> None:
        """``%b0101...`` at the login prompt: interface variables by position, for the session."""
        if digits.strip("01"):
            self.say(msg("Sorry, \"%b\" must be followed by the digits 0 and 1 only, one per "
                         "interface variable. Try again."))
        elif len(digits) > len(IVARS):
            self.say(msg("Sorry, \"%b\" sets at most {count} interface variables; you gave "
                         "{given} digits. Try again.", count=len(IVARS), given=len(digits)))
        else:
            self._ivars.update((name, digit == "1") for name, digit in zip(IVARS, digits))
            self.say(msg("#Ivars set."))
        self._reprompt()

    def _ask_return(self, handle: str) -> None:
        self.state = "confirm"
        text = msg("Press return to enter the server as \"{handle}\":", handle=handle)
        self.write(encode_text("\r\n" + text.render(self.config.language) + " ", "utf8"))

    def line_password(self, line: str) -> None:
        self._echo(True)
        self.write(b"\r\n")
        if not line:  # "If not, just hit return to try another name."
            self.pending_name = ""
            self.state = "login"
            self._reprompt()
            return
        self.state = "checking"  # lines typed meanwhile wait in self._type_ahead
        d = self.server.check_password(self.pending_name, line)
        d.addCallback(self._password_checked)
        d.addErrback(lambda failure: self.log.failure("password check failed", failure))

    def line_type_ahead(self, line: str) -> None:
        """A line typed while the password is checked: kept, to run in order afterwards."""
        if len(self._type_ahead) < MAX_TYPE_AHEAD:
            self._type_ahead.append((line, self._seal.stamp if self._seal is not None else None))
        else:
            self._dropped += 1

    def _password_checked(self, ok: bool) -> None:
        if self.state != "checking":  # the connection went away meanwhile
            return
        if ok:
            self._enter(registered=True)
        else:
            name = self.pending_name
            self.log.info("bad password for {name} from {peer}", name=name, peer=self.peer)
            self.pending_name = ""
            self.state = "login"
            self.say(msg("**** Invalid password! ****"))
            self._reprompt(fresh_line=True)
        self._replay_type_ahead()

    def _replay_type_ahead(self) -> None:
        """Run the lines typed during the check, as if they came now (until another check)."""
        queue = self._type_ahead
        while queue and self.state != "checking" and self.state != "closed":
            line, stamp = queue.popleft()
            if self._seal is not None:
                self._seal.stamp = stamp
            self.lineReceived(line)

    def line_confirm(self, line: str) -> None:
        self._enter(registered=False)

    def _enter(self, *, registered: bool) -> None:
        handle = self.pending_name
        self.pending_name = ""
        self._cancel_timer()
        # The session writes straight to the telnet transport (what self.write
        # does, one call less per board sent to each of many observers).
        session = self.server.enter(handle, write=self.transport.write, close=self.close,
                                    registered=registered, peer=self.peer)
        session.sink = self.transport  # broadcasts write to many through FicsTelnetTransport.write_all
        session.ivars.update(self._ivars)
        if self._seal is not None:
            session.timeseal = True
            session.move_timer = self._seal
            self._seal.attach(session)
        self.session = session
        self.state = "command"
        session.send(msg("**** Starting FICS session as {name} ****", name=session.display_name()))
        session.write_text("")
        session.prompt()
        if self._dropped:
            session.notify(msgn("{count} line typed before your login was complete was ignored.",
                                "{count} lines typed before your login was complete were ignored.",
                                self._dropped))
            self._dropped = 0
        self.server.arrived(session)  # a game going on, adjourned games: tell both players
        self._arm_idle()

    def _arm_idle(self) -> None:
        self._last_input = self.server.clock.seconds()
        if self.config.idle_timeout and (self._timer is None or not self._timer.active()):
            self._timer = self.server.clock.callLater(self.config.idle_timeout, self._idle_timeout)

    def line_command(self, line: str) -> None:
        if not line.startswith("$$"):  # "$$" lines do not count as activity
            self._last_input = self.server.clock.seconds()
        self.server.execute(self.session, line)

    # -- telnet options ----------------------------------------------------

    def _echo(self, on: bool) -> None:
        """Ask the client to stop (``on=False``) or resume local echo around a password.

        The server offers WILL ECHO (it echoes, so the client does not) and
        withdraws it with WONT ECHO.  A client that never answered the offer
        gets nothing more.
        """
        transport = self.transport
        if not on:
            self._echo_off = True
            transport.will(ECHO).addErrback(lambda failure: None)
        elif self._echo_off:
            self._echo_off = False
            state = transport.getOptionState(ECHO).us
            if state.state == "yes" and not state.negotiating:
                transport.wont(ECHO).addErrback(lambda failure: None)

    def enableLocal(self, option: bytes) -> bool:
        return option == SGA or (option == ECHO and self._echo_off)

    def disableLocal(self, option: bytes) -> None:
        pass

    def enableRemote(self, option: bytes) -> bool:
        return False


class FicsFactory(ServerFactory):
    """Builds a telnet transport around a :class:`FicsProtocol` for each connection."""

    noisy = False  # our own log line per connection says more

    def __init__(self, server: Any) -> None:
        self.server = server

    def buildProtocol(self, addr: Any) -> FicsTelnetTransport:
        transport = FicsTelnetTransport(FicsProtocol, self.server)
        transport.factory = self
        return transport
