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
import socket
import weakref
from collections import deque
from types import MappingProxyType
from typing import Any, Callable, Mapping

from twisted.conch.telnet import (
    AO, AYT, BRK, DM, DO, DONT, EC, ECHO, EL, EOR, GA, IAC, IP, NOP, SB, SE, SGA, WILL, WONT,
    TelnetProtocol, TelnetTransport,
)
from twisted.internet import tcp
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.protocol import ServerFactory
from twisted.logger import Logger
from twisted.python import failure

from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server import timeseal
from ficsfen.server.accounts import BadPassword, LoginRefused, PasswordAttempt
from ficsfen.server.limits import (Failure, MemoryTrimmer, Refusal, TokenBucket, TurnScheduler,
                                   seconds_left)
from ficsfen.server.ivars import IVARS
from ficsfen.server.listening import Connection
from ficsfen.server.session import Session, encode_text
from ficsfen.server.timeouts import Timeouts

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
_NEGOTIATION = frozenset((WILL, WONT, DO, DONT))
# A run of two-byte IAC sequences that carry no option: escaped 255s (IAC IAC)
# and the one-byte commands (EOR, NOP, DM, BRK, IP, AO, AYT, EC, EL, GA),
# none of which means anything to a FICS session.  One C-level match skips a
# whole flood of them.
_IAC_RUN = re.compile(b"(?:\xff[" + re.escape(EOR + NOP + DM + BRK + IP + AO + AYT + EC + EL + GA)
                      + b"\xff])+")
#: Parser states in which a chunk without an IAC byte is plain text (the fast path).
_PLAIN_STATES = frozenset(("data", "cr"))
_SUBNEGOTIATION_STATES = frozenset(("subnegotiation", "subnegotiation-escaped",
                                    "subnegotiation-discard", "subnegotiation-discard-escaped"))

#: Socket options for shorter TCP keepalive timings, where the platform has them.
_KEEPALIVE_OPTIONS = tuple(
    (getattr(socket, name), setting)
    for name, setting in (("TCP_KEEPIDLE", "keepalive_idle"), ("TCP_KEEPINTVL", "keepalive_interval"),
                          ("TCP_KEEPCNT", "keepalive_count"))
    if hasattr(socket, name))


# Plain TCP server connections (exactly those classes: another subclass or a wrapper
# such as TLS may do more in write), whose socket we may write to at once.
_DIRECT_TRANSPORTS = frozenset({tcp.Server, Connection})

# What the login dialogue asks for, by FicsProtocol.state (FICS's own words:
# clients and scripts wait for them, so they are never translated).
_PROMPTS = {"login": b"login: ", "password": b"password: "}

#: Most lines kept while a password is being checked (typed ahead by a
#: script or a client); later ones are dropped, and the player is told how
#: many once logged in.  Each line is at most ``max_line`` bytes.
MAX_TYPE_AHEAD = 50

_DOLLAR = ord("$")


def _send_now(transport: Any, data: bytes, producer: Any = None) -> bool:
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
    now would overtake it), a producer attached other than ``producer`` (the
    connection's own :class:`FicsTelnetTransport`, which Twisted pauses only
    while something is queued), not connected, closing or
    half-closed, TLS started on the connection (the bytes must be
    encrypted), an attribute missing (another Twisted version), or a socket
    error (``EAGAIN``, a reset peer, a closed socket).  Then it returns
    False having sent nothing, and the caller writes through Twisted as
    usual, which also reports any error.  A partial send hands the rest to
    Twisted, which keeps it ahead of anything written later.
    """
    try:
        registered = transport.producer
        if (transport.dataBuffer or transport._tempDataBuffer
                or (registered is not None and registered is not producer)
                or not transport.connected or transport.disconnecting or transport.TLS
                or transport._writeDisconnecting or transport._writeDisconnected):
            return False
        sent = transport.socket.send(data)
    except (AttributeError, OSError):
        return False
    if sent < len(data):
        transport.write(data[sent:])
    return True


class _Side:
    """One side of a telnet option's state, as Twisted's ``_OptionState._Perspective`` has it.

    With ``__slots__``: Twisted's keeps its attributes in a table of each
    instance's own, and a connection at the password prompt has two of them
    for ECHO (see :class:`_OptionState`).
    """

    __slots__ = ("state", "negotiating", "onResult")

    def __init__(self) -> None:
        self.state = "no"
        self.negotiating = False
        self.onResult: Any = None

    def __str__(self) -> str:
        return self.state + ("*" * self.negotiating)


class _OptionState:
    """A telnet option's state on both sides: Twisted's ``Telnet._OptionState``, in slots."""

    __slots__ = ("us", "him")

    def __init__(self) -> None:
        self.us = _Side()
        self.him = _Side()

    def __repr__(self) -> str:
        return f"<_OptionState us={self.us} him={self.him}>"


class _NobodyWaits:
    """Where Twisted's option negotiation reports an answer that nobody waits for."""

    def callback(self, result: object) -> None:
        pass

    def errback(self, failure: object = None) -> None:
        pass


_NOBODY_WAITS = _NobodyWaits()


class FicsTelnetTransport(TelnetTransport):
    """``TelnetTransport`` whose input parser never raises and ends lines on a bare CR.

    Application data reaches the protocol with every line end turned into
    a single ``\\n``.

    It is also the streaming producer of its TCP connection, so that one
    client cannot take the server's memory or time:

    - when Twisted's write buffer passes its high-water mark (the client is
      not reading), Twisted calls :meth:`pauseProducing`: reading from the
      socket stops and input lines wait (:attr:`holding`) until the buffer
      has drained; output written meanwhile is counted, and past
      ``[limits] output_buffer`` bytes the connection is aborted;
    - at most ``[limits] input_budget`` bytes of a connection's input are
      parsed, and at most ``lines_per_turn`` lines handed to its session,
      per reactor turn; the rest waits for the next turn, with reading
      paused, so other connections are served in between (a line costs far
      more than its bytes: ``who`` is four bytes in, tens of KiB out);
    - at most ``input_rate`` bytes a second are parsed (bursts of
      ``input_burst``): past that, reading pauses until the rate allows
      more (logged once per connection), so a flood is slowed by TCP itself;
    - telnet commands (IAC sequences, subnegotiations) have a budget of
      their own, ``telnet_rate`` bytes a second in bursts of
      ``telnet_burst``: a client negotiates with a few dozen bytes, while a
      flood of them costs a Python loop per byte, so a negotiation flood is
      held after a few KiB while typed text keeps ``input_burst``;
    - a subnegotiation never ended by ``IAC SE`` is dropped after
      ``[limits] subnegotiation_limit`` bytes or ``subnegotiation_timeout``
      seconds, and parsing goes on with the next byte.
    """

    log = Logger()
    _direct = False  # whether the transport is plain TCP (set when connected)
    #: True while the client is not reading its output: input lines wait.
    holding = False
    _overflowed = False  # closed for unsent output: writes are dropped
    _unsent = 0  # bytes written since the output was paused
    _producing = False  # registered as the connection's producer
    _reading = True  # whether the connection is read from (as far as we asked)
    _pending = b""  # input not parsed yet (beyond a turn's budget, or while holding)
    _offset = 0  # where the unparsed part of _pending starts
    #: Input parsed into lines beyond the turn's ``lines_per_turn``: the next turn's first.
    _lines_pending = b""
    _lines_left = 4  # lines this turn may still hand to the session
    _lines_per_turn = 4
    _rate: TokenBucket | None = None  # input_rate, or None for no rate limit
    _telnet: TokenBucket | None = None  # telnet_rate (telnet command bytes), or None
    _telnet_taken = 0  # telnet tokens taken for the piece about to be parsed
    _telnet_logged = False
    _commands: TokenBucket | None = None  # commands_per_second (lines), or None
    _commands_logged = False
    _buckets_due = False  # the buckets above are made with the first input (_make_buckets)
    _scheduler: TurnScheduler | None = None  # where heavy connections take turns (or None)
    _load = 0.0  # seconds of CPU its input cost lately (decayed: TurnScheduler.cost)
    _load_at = 0.0  # clock time of _load
    _waiting_turn = False  # in the scheduler's queue
    _newcomer_until = 0.0  # clock time until which its input waits as a newcomer's
    _closing = False  # loseConnection was called
    _rate_logged = False
    _drain_call: Any = None
    _sb_since = 0.0  # clock time of the IAC SB that opened the current subnegotiation
    _sb_room = 0  # bytes the current subnegotiation may still take
    factory: Any = None  # the FicsFactory, set by buildProtocol
    _clock: Any = None
    _output_cap = 1 << 20
    _budget = 4096
    _sb_limit = 65536
    _sb_timeout = 10.0

    #: Twisted's ``Telnet.__init__`` gives each connection a ``commandMap`` of
    #: bound methods and an empty ``negotiationMap``; here both are the class's
    #: (nothing adds to them), so that thousands of connections do not each hold them.
    negotiationMap: Mapping[bytes, Callable[[list[bytes]], None]] = MappingProxyType({})
    _COMMANDS: dict[bytes, Callable[[TelnetTransport, bytes], None]] = {
        WILL: TelnetTransport.telnet_WILL,
        WONT: TelnetTransport.telnet_WONT,
        DO: TelnetTransport.telnet_DO,
        DONT: TelnetTransport.telnet_DONT,
    }

    #: Negotiated options' states: none until a first negotiation (most connections
    #: negotiate nothing), then a dict of the connection's own (getOptionState).
    options: Mapping[bytes, Any] = MappingProxyType({})
    protocolKwArgs: Mapping[str, Any] = MappingProxyType({})

    def __init__(self, protocolFactory: Any = None, *args: Any) -> None:
        # TelnetTransport.__init__ without Telnet.__init__'s per-connection maps
        # and empty dicts (``options``, ``protocolKwArgs``: the class's until needed).
        if protocolFactory is not None:
            self.protocolFactory = protocolFactory
            self.protocolArgs = args

    def offer(self, option: bytes, on: bool) -> None:
        """``WILL`` (``on``) or ``WONT`` ``option``, negotiated as Twisted's ``will``/``wont`` do.

        But with no Deferred: nobody here waits for the client's answer, and
        a client that never answers (one sitting at the password prompt) kept
        the Deferred and its callbacks until it left.  Does nothing while
        the option is being negotiated, or is already as asked.
        """
        state = self.getOptionState(option)
        if state.us.negotiating or state.him.negotiating or (state.us.state == "yes") == on:
            return
        state.us.negotiating = True
        state.us.onResult = _NOBODY_WAITS
        if on:
            self._will(option)
        else:
            self._wont(option)

    def getOptionState(self, opt: bytes) -> Any:
        # Twisted's makes a state to throw away at every call (setdefault).
        state = self.options.get(opt)
        if state is None:
            if type(self.options) is not dict:
                self.options = {}
            state = self.options[opt] = _OptionState()  # type: ignore[index]
        return state

    def commandReceived(self, command: bytes, argument: bytes) -> None:
        handler = self._COMMANDS.get(command)
        if handler is None:
            self.unhandledCommand(command, argument)
        else:
            handler(self, argument)

    def connectionMade(self) -> None:
        connection = self.transport
        self._direct = type(connection) in _DIRECT_TRANSPORTS
        if self.factory is not None:
            server = self.factory.server
            config = server.config
            self._clock = server.clock
            self._output_cap = config.output_buffer
            self._budget = config.input_budget
            self._lines_per_turn = self._lines_left = config.lines_per_turn
            self._buckets_due = bool(config.input_rate or config.telnet_rate or config.commands_per_second)
            if config.heavy_percent:
                self._scheduler = self.factory.scheduler
                self._newcomer_until = self._clock.seconds() + config.newcomer_seconds
            self._sb_limit = config.subnegotiation_limit
            self._sb_timeout = config.subnegotiation_timeout
        else:  # pragma: no cover - FicsFactory always sets it
            from twisted.internet import reactor

            self._clock = reactor
        connection.registerProducer(self, True)
        self._producing = True
        super().connectionMade()

    def connectionLost(self, reason: Any) -> None:
        self._stop_input()
        self._producing = False
        super().connectionLost(reason)
        if self.factory is not None:
            self.factory.closing.stop(self)
            self.factory.trimmer.closed()

    def loseConnection(self) -> None:
        # Twisted never ends a connection whose streaming producer is paused
        # when its buffer drains (it resumes the producer instead): unregister first.
        self._closing = True  # and read no more (a turn of its input may still be ending)
        self._stop_input()
        if self._producing:
            self._producing = False
            self.transport.unregisterProducer()
        self.transport.loseConnection()
        # Twisted closes the socket once its output is sent: never, for a client
        # that does not read.  Aborted after [limits] close_grace seconds.
        closing = self.factory.closing if self.factory is not None else None
        if closing is not None and self not in closing:
            closing.start(self)

    def _grace_over(self) -> None:
        """Still open ``close_grace`` seconds after :meth:`loseConnection`: the client
        does not read its last output; the socket is aborted, the output dropped."""
        protocol = self.protocol
        self.log.info("aborted {peer}: closed {seconds:g} s ago, its output still unsent "
                      "(limits.close_grace)", peer=protocol.peer if protocol is not None else "?",
                      seconds=self.factory.closing.seconds)
        self.transport.abortConnection()

    # -- IPushProducer: Twisted's view of the connection's write buffer ----------

    def pauseProducing(self) -> None:
        """The client is not reading (Twisted's buffer is full): stop taking its input."""
        if self.holding:  # Twisted says it again at every write while the buffer is full
            return
        self.holding = True
        self._unsent = 0
        self._update_reading()

    def resumeProducing(self) -> None:
        """The buffer has drained: the waiting input lines go on, then reading."""
        if self._overflowed or not self.holding:
            return
        self.holding = False
        self._schedule_drain()

    def stopProducing(self) -> None:
        self._stop_input()

    # -- input ---------------------------------------------------------------

    def _make_buckets(self) -> None:
        """The rate limits' token buckets, made with the first input: a connection
        that never sends anything (most of an attack's) never has them."""
        self._buckets_due = False
        config = self.factory.server.config
        now = self._clock.seconds()  # one float for the buckets' start, not one each
        if config.input_rate:
            self._rate = TokenBucket(config.input_rate, config.input_burst, now)
        if config.telnet_rate:
            self._telnet = TokenBucket(config.telnet_rate, config.telnet_burst, now)
        if config.commands_per_second:
            self._commands = TokenBucket(config.commands_per_second, config.command_burst, now)

    def dataReceived(self, data: bytes) -> None:
        if not data:
            return
        if self._buckets_due:
            self._make_buckets()
        if self.holding or self._pending or self._lines_pending:
            # A read already under way when reading was paused: it waits its turn.
            self._pending = self._pending[self._offset:] + data
            self._offset = 0
            self._update_reading()
            return
        scheduler = self._scheduler
        if scheduler is not None and self._queued():
            self._pending = data  # a heavy connection or a newcomer: its input waits for its turn
            self._wait_turn()
            self._update_reading()
            return
        self._lines_left = self._turn_lines()
        n = self._allowance(data, 0)
        if n < len(data):  # the rest in later reactor turns
            self._pending = data
            self._offset = n
            data = data[:n]
        if data:
            if scheduler is not None:
                started = scheduler.timer()
                self._parse(data)
                self._charge(scheduler.timer() - started)
            else:
                self._parse(data)
        self._turn_over()

    def _drain(self) -> None:
        """Input kept back is due: handled now, or after the heavy connections' queue."""
        self._drain_call = None
        if self._scheduler is not None and self._queued():
            self._wait_turn()
            return
        self.take_turn()

    def take_turn(self) -> None:
        """One turn's share of the input kept back (after lines held by the protocol)."""
        self._waiting_turn = False
        if self.holding or self.protocol is None:
            return
        scheduler = self._scheduler
        started = scheduler.timer() if scheduler is not None else 0.0
        self.applicationDataReceived(b"")  # lines the protocol kept while holding
        if not self.holding:
            self._lines_left = self._turn_lines()
            if self._lines_pending:
                lines, self._lines_pending = self._lines_pending, b""
                self._deliver(lines)
            pending, start = self._pending, self._offset
            if start < len(pending) and self._lines_left > 0 and not (self.holding or self._lines_pending):
                n = self._allowance(pending, start)
                if n:
                    end = self._offset = start + n
                    if end >= len(pending):
                        self._pending, self._offset = b"", 0
                    self._parse(pending[start:end])
        if scheduler is not None:
            self._charge(scheduler.timer() - started)
        self._turn_over()

    def _charge(self, spent: float) -> None:
        """Add ``spent`` seconds of CPU to what this connection's input cost lately."""
        now = self._clock.seconds()
        self._load = self._scheduler.cost(self._load, self._load_at, now) + spent
        self._load_at = now

    def _newcomer(self) -> bool:
        """Still in its first ``newcomer_seconds``: its cost is not known yet."""
        return self._clock.seconds() < self._newcomer_until

    def _queued(self) -> bool:
        """Whether its input waits in the scheduler's queue (heavy, or a newcomer)."""
        return self._newcomer() or self._scheduler.heavy(self._load, self._load_at)

    def _wait_turn(self) -> None:
        if not self._waiting_turn:
            self._waiting_turn = True
            self._scheduler.wait(self, self._scheduler.cost(self._load, self._load_at, self._clock.seconds()),
                                 newcomer=self._newcomer())

    def _turn_lines(self) -> int:
        """Lines this turn may hand to the session: ``lines_per_turn``, within the command rate."""
        commands = self._commands
        if commands is None:
            return self._lines_per_turn
        return commands.take(self._lines_per_turn, self._clock.seconds())

    def _turn_over(self) -> None:
        """After a turn's input: come back for what waits, read only when nothing does."""
        if self._commands is not None and self._lines_left > 0:
            self._commands.give_back(self._lines_left)  # lines not used this turn
            self._lines_left = 0
        if (self._pending or self._lines_pending) and not self.holding:
            self._schedule_drain()
        self._update_reading()

    def _allowance(self, data: bytes, start: int) -> int:
        """How many bytes of ``data[start:]`` to parse in this turn: the budget, the rates."""
        n = min(len(data) - start, self._budget)
        rate = self._rate
        if rate is not None:
            allowed = rate.take(n, self._clock.seconds())
            if allowed < n and not self._rate_logged:
                self._rate_logged = True
                self._log_rate("input from {peer} passed limits.input_rate ({rate} bytes/s, bursts "
                               "of {burst}): read at that rate from now on", rate)
            n = allowed
        telnet = self._telnet
        if telnet is not None and n:
            plain = self._plain_prefix(data, start, start + n)
            if plain < n:
                # Telnet commands ahead: every byte after the typed text before them is
                # counted for now (_parse gives back the typed text among them).
                taken = self._telnet_taken = telnet.take(n - plain, self._clock.seconds())
                allowed = plain + taken
                if rate is not None:
                    rate.give_back(n - allowed)
                n = allowed
        return n

    def _plain_prefix(self, data: bytes, start: int, end: int) -> int:
        """How many bytes of ``data[start:end]`` are typed text before any telnet command."""
        if self.state not in _PLAIN_STATES:
            return 0
        k = data.find(b"\xff", start, end)
        return end - start if k < 0 else k - start

    def _settle_telnet(self, taken: int, used: int) -> None:
        """Telnet tokens taken for a piece, ``used`` of them by its telnet commands."""
        if used < taken:
            self._telnet.give_back(taken - used)
        elif used > taken:
            self._telnet.take(used - taken, self._clock.seconds())

    def _log_rate(self, text: str, bucket: TokenBucket) -> None:
        """The one log line of a connection that passed a rate limit."""
        protocol = self.protocol
        self.log.info(text, peer=protocol.peer if protocol is not None else "?",
                      rate=bucket.rate, burst=bucket.burst)

    def _deliver(self, data: bytes) -> None:
        """Parsed input to the session: at most the lines this turn has left, the rest kept."""
        left = self._lines_left
        count = data.count(b"\n")
        if count > left:
            cut = -1
            for _ in range(left):
                cut = data.index(b"\n", cut + 1)
            self._lines_pending += data[cut + 1:]
            data = data[:cut + 1]
            left = 0
        else:
            left -= count
        self._lines_left = left
        if data:
            self.protocol.dataReceived(data)

    @property
    def input_waiting(self) -> bool:
        """Whether input kept back is due in the next reactor turn (not later, by the rate)."""
        call = self._drain_call
        return self._waiting_turn or (call is not None and call.getTime() <= self._clock.seconds())

    def _schedule_drain(self) -> None:
        if self._drain_call is not None or self._waiting_turn or self._clock is None:
            return
        delay = 0.0
        rate = self._rate
        commands = self._commands
        if commands is not None and self._lines_pending:
            delay = commands.wait(1, self._clock.seconds())
            if delay and not self._commands_logged:
                self._commands_logged = True
                self._log_rate("commands from {peer} passed limits.commands_per_second ({rate} a "
                               "second, bursts of {burst}): run at that rate from now on", commands)
        elif self._pending:
            if rate is not None:
                delay = self._next_piece_wait(rate)
            telnet = self._telnet
            if telnet is not None and not self._plain_prefix(self._pending, self._offset,
                                                             self._offset + 1):
                held = self._next_piece_wait(telnet)
                if held and not self._telnet_logged:  # telnet commands wait for their budget
                    self._telnet_logged = True
                    self._log_rate("telnet commands from {peer} passed limits.telnet_rate ({rate} "
                                   "bytes/s, bursts of {burst}): read at that rate from now on", telnet)
                delay = max(delay, held)
        self._drain_call = self._clock.callLater(delay, self._drain)

    def _next_piece_wait(self, bucket: TokenBucket) -> float:
        """Seconds until ``bucket`` allows the next piece of pending input: a quarter
        second's worth (or all that is left), not a whole budget."""
        wanted = min(self._budget, len(self._pending) - self._offset, max(1, int(bucket.rate) // 4))
        return bucket.wait(wanted, self._clock.seconds())

    def _update_reading(self) -> None:
        """Read from the socket only when nothing waits: no held output, no pending input."""
        want = not (self.holding or self._pending or self._lines_pending or self._closing)
        if want != self._reading and self.transport is not None:
            self._reading = want
            if want:
                self.transport.resumeProducing()
            else:
                self.transport.pauseProducing()

    def _stop_input(self) -> None:
        if self._drain_call is not None and self._drain_call.active():
            self._drain_call.cancel()
        self._drain_call = None
        self._pending, self._offset = b"", 0
        self._lines_pending = b""
        if self._waiting_turn:
            self._waiting_turn = False
            self._scheduler.discard(self)

    def _keep(self, data: bytes) -> None:
        """Unparsed input put back in front of what is pending (paused mid-chunk)."""
        if data:
            self._pending = data + self._pending[self._offset:]
            self._offset = 0
        self._update_reading()

    def _parse(self, data: bytes) -> None:
        taken, self._telnet_taken = self._telnet_taken, 0
        state = self.state
        if state in _SUBNEGOTIATION_STATES and self._clock is not None and (
                self._clock.seconds() - self._sb_since > self._sb_timeout):
            self._abandon_subnegotiation(f"{self._sb_timeout:g} seconds")
            state = self.state
        # Fast path: almost every chunk is typed text ending in CR LF, with no
        # IAC byte.  Line ends are then rewritten with three C-level replaces,
        # giving exactly what the byte parser below gives (a bare CR, CR LF
        # and CR NUL each become one LF; a trailing CR leaves state "cr" so
        # that an LF or NUL opening the next chunk is swallowed).
        if state in _PLAIN_STATES and b"\xff" not in data:
            if taken:  # no telnet command after all
                self._telnet.give_back(taken)
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
                self._deliver(data)
            return
        app: list[bytes] = []
        i, n = 0, len(data)
        plain = 0  # bytes of typed text (and its line ends) among those parsed
        while i < n:
            if self.holding or self._lines_left <= 0:  # the client stopped reading, or the
                if self._telnet is not None:  # turn's lines were handed up: the rest waits
                    self._settle_telnet(taken, i - plain)
                self._flush(app)
                self._keep(data[i:])
                return
            state = self.state
            if state == "data":
                m = _SPECIAL.search(data, i)
                end = m.start() if m else n
                if end > i:
                    app.append(data[i:end])
                    plain += end - i
                if m is None:
                    break
                if data[end] == 0xFF:
                    run = _IAC_RUN.match(data, end)
                    if run is not None:  # IAC IAC and option-less commands, as many as come
                        escaped = run.group().count(b"\xff\xff")
                        if escaped:
                            app.append(b"\xff" * escaped)
                        i = run.end()
                        continue
                    self.state = "escaped"
                else:
                    app.append(b"\n")
                    plain += 1
                    self.state = "cr"
                i = end + 1
                continue
            b = data[i:i + 1]
            i += 1
            if state == "cr":
                self.state = "data"
                if b in (b"\n", b"\0"):
                    plain += 1
                else:
                    i -= 1  # an ordinary byte after a bare CR: read it as data
            elif state == "escaped":
                self.state = "data"
                if b == IAC:
                    app.append(IAC)
                elif b == SB:
                    self.state = "subnegotiation"
                    self.commands = []
                    self._sb_room = self._sb_limit
                    if self._clock is not None:
                        self._sb_since = self._clock.seconds()
                elif b in _NEGOTIATION:
                    self.state = "command"
                    self.command = b
                # any other byte after IAC means nothing to a FICS session: ignore both
            elif state == "command":
                self.state = "data"
                command = self.command
                del self.command
                self._flush(app)
                self._safely(self.commandReceived, command, b)
            elif state == "subnegotiation":
                if b == IAC:
                    self.state = "subnegotiation-escaped"
                elif len(self.commands) < min(self._MAX_SUBNEGOTIATION_LENGTH, self._sb_room):
                    self.commands.append(b)
                else:  # runaway subnegotiation: drop it up to its IAC SE, keep the connection
                    self._sb_room -= len(self.commands)
                    self.state = "subnegotiation-discard"
                    del self.commands
                    i -= 1  # counted in the discarded part
            elif state == "subnegotiation-escaped":
                if b == SE:
                    self.state = "data"
                    commands = self.commands
                    del self.commands
                    self._flush(app)
                    if commands:  # IAC SB IAC SE names no option: nothing to handle
                        self._safely(self.negotiate, commands)
                else:
                    self.state = "subnegotiation"
                    self.commands.append(b)
            elif state == "subnegotiation-discard":
                # Its bytes are option data, never typed input: skip to the next IAC,
                # unless the subnegotiation has taken all it may.
                start = i - 1
                k = data.find(b"\xff", start)
                end = k if k >= 0 else n
                if end - start >= self._sb_room:
                    i = start + max(self._sb_room, 0)
                    self._abandon_subnegotiation(f"{self._sb_limit} bytes")
                    continue
                self._sb_room -= end - start
                if k < 0:
                    break
                i = k + 1
                self.state = "subnegotiation-discard-escaped"
            elif state == "subnegotiation-discard-escaped":
                # IAC SE ends it; IAC IAC (an escaped 255) or anything else does not.
                self.state = "data" if b == SE else "subnegotiation-discard"
            else:  # pragma: no cover - states are ours
                self.state = "data"
        if self._telnet is not None:
            self._settle_telnet(taken, n - plain)
        self._flush(app)

    def _abandon_subnegotiation(self, bound: str) -> None:
        """An ``IAC SB`` never ended: drop it and read what follows as input again."""
        self.state = "data"
        if hasattr(self, "commands"):
            del self.commands
        protocol = self.protocol
        self.log.info("telnet subnegotiation from {peer} not ended within {bound}: dropped, "
                      "reading input again", peer=protocol.peer if protocol is not None else "?",
                      bound=bound)

    # -- output --------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Write ``data`` with IAC doubled; line ends are already CR LF (no LF rewriting)."""
        if b"\xff" in data:
            data = data.replace(b"\xff", b"\xff\xff")
        transport = self.transport
        if self._direct and _send_now(transport, data, self):
            return
        if self.holding:
            self._write_held(data)
        else:
            transport.write(data)

    def _write(self, data: bytes) -> None:
        # Telnet's own writes (option negotiation) obey the same bound.
        if self.holding:
            self._write_held(data)
        else:
            self.transport.write(data)

    def _queue(self, data: bytes) -> None:
        """``data`` through Twisted's buffer (the socket was not free)."""
        if self.holding:
            self._write_held(data)
        else:
            self.transport.write(data)

    def _write_held(self, data: bytes) -> None:
        """Output for a client that is not reading: kept up to the cap, then the connection goes."""
        if self._overflowed:
            return
        self._unsent += len(data)
        if self._unsent <= self._output_cap:
            self.transport.write(data)
            return
        self._overflowed = True
        protocol = self.protocol
        handle = "-"
        if protocol is not None:
            session = protocol.session
            handle = session.handle if session is not None else protocol.pending_name or "-"
        self.log.info("closed {peer} ({handle}): not reading its output, {size} bytes written "
                      "since its buffer filled (limits.output_buffer = {cap})",
                      peer=protocol.peer if protocol is not None else "?", handle=handle,
                      size=self._unsent, cap=self._output_cap)
        self._stop_input()
        self.transport.abortConnection()

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
            if not (telnet._direct and send_now(telnet.transport, data, telnet)):
                telnet._queue(data)

    def _flush(self, app: list[bytes]) -> None:
        if app:
            data = b"".join(app)
            del app[:]
            self._deliver(data)

    def _safely(self, handler: Any, *args: Any) -> None:
        try:
            handler(*args)
        except Exception:
            self.log.failure("telnet option handling failed; ignored")


class FicsProtocol(TelnetProtocol):
    """One connection: the login dialogue, then commands (one per line)."""

    log = Logger()
    # Made on first use, not with each connection: most never type ahead or set ivars,
    # and thousands of connections at once would each hold them.
    #: Lines typed while the password is checked, with their timeseal stamps' digits.
    _type_ahead: deque[tuple[str, bytes | None]] | None = None
    _ivars: dict[str, bool] | None = None  # set by %b at the login prompt
    #: What each raw input line goes through (_RAW_LINE_HANDLERS): the first one is
    #: looked at for a timeseal hello, then every line is plain or decoded.
    _raw_lines = "first"
    #: The factory's login timeouts (at the prompt) and idle timeouts (logged in):
    #: one timer each for all connections (ficsfen.server.timeouts).
    _logins: Timeouts[FicsProtocol] | None = None
    _idle: Timeouts[FicsProtocol] | None = None

    def __init__(self, server: Any) -> None:
        self.server = server
        self.config = server.config
        self.state = "login"
        self.session: Session | None = None
        self.pending_name = ""
        self._held = ""  # the unregistered or guest name reserved by this login
        self._host = ""  # the peer's address, once counted by the per-address limits
        self._delay: Any = None  # the wait after a wrong password (DelayedCall)
        self._buffer = b""
        self._discarding = False
        self._counted = False
        self._echo_off = False
        self._dropped = 0  # type-ahead lines beyond MAX_TYPE_AHEAD
        #: A timeseal client's timing, once its first line said so.
        self._seal: timeseal.MoveTimer | None = None

    # -- connection ------------------------------------------------------

    @property
    def peer(self) -> str:
        try:
            addr = self.transport.getPeer()
            return f"{addr.host}:{addr.port}"
        except Exception:
            return "?"

    @property
    def host(self) -> str:
        """The peer's address without the port (what per-address limits count)."""
        try:
            return str(self.transport.getPeer().host)
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
        host = self.host
        over = server.address_limits.connect(host)
        if over is not None:
            if over.report:
                self.log.warn("refused {peer}: {count} connections already open from {host} "
                              "(limits.connections_per_address); more refusals for this "
                              "address within a minute are not logged",
                              peer=self.peer, count=over.count, host=host)
            self.say(msg("Sorry, {count} connections are open from your address already, the most "
                         "this server allows. Close one and try again.", count=over.count))
            self.transport.loseConnection()
            self.state = "closed"
            return
        self._host = host
        server.connections += 1
        self._counted = True
        # Answers and boards are small writes: send them at once, not after
        # the client's delayed ACK (Nagle), which costs an ICS player ~40 ms.
        connection = self.transport.transport  # under the telnet layer
        if ITCPTransport.providedBy(connection):
            try:
                connection.setTcpNoDelay(True)
                connection.setTcpKeepAlive(True)  # a dead peer is noticed (keepalive_* below)
            except OSError:  # pragma: no cover - not a TCP socket after all
                pass
            else:
                self._keepalive_timings(connection)
                self._send_buffer(connection)
        self.log.info("connection from {peer}", peer=self.peer)
        banner = self.config.banner
        self.say(banner if banner else msg(
            "Welcome to ficsfen, a FICS-style chess server.\n"
            "If you are not a registered player, enter the login name \"{guest}\".\n"
            "Once logged in, type \"help fen\" to learn about FEN.",
            guest=self.config.guest_login))
        self._reprompt(fresh_line=True)
        factory = self.transport.factory
        if factory is not None:
            self._logins, self._idle = factory.logins, factory.idle
            self._logins.start(self)

    def _keepalive_timings(self, connection: Any) -> None:
        """Shorter keepalive timings than the system's (2 hours idle on Linux), where it has them."""
        config = self.config
        if not config.keepalive_idle:
            return
        try:
            sock = connection.getHandle()
            for option, setting in _KEEPALIVE_OPTIONS:
                sock.setsockopt(socket.IPPROTO_TCP, option, int(getattr(config, setting)))
        except (AttributeError, OSError) as e:  # not a socket, or the system refuses
            self.log.debug("keepalive timings not set for {peer}: {reason}", peer=self.peer,
                           reason=str(e))

    def _send_buffer(self, connection: Any) -> None:
        """Bound what a client that does not read makes the server queue before its input waits.

        Why: Linux grows a socket's send buffer up to ``net.ipv4.tcp_wmem``
        (4 MiB), so a client that stops reading would have its commands run
        until megabytes of answers sat in the kernel; Twisted only pauses the
        connection (backpressure) once its own buffer passes its high-water
        mark.  Both are set to ``[limits] send_buffer`` bytes.
        """
        size = self.config.send_buffer
        if not size:
            return
        connection.bufferSize = size  # Twisted's high-water mark (and the size of one read)
        try:
            connection.getHandle().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
        except (AttributeError, OSError) as e:  # not a socket, or the system refuses
            self.log.debug("send buffer not set for {peer}: {reason}", peer=self.peer, reason=str(e))

    def connectionLost(self, reason: Any = None) -> None:
        self._cancel_timer()
        self._cancel_delay()
        if self._counted:
            self.server.connections -= 1
            self._counted = False
        if self._host:
            self.server.address_limits.disconnect(self._host)
            self._host = ""
        if self.session is not None:
            self.server.sessions.logout(self.session, reason="connection closed")
            self.session = None
        elif self._held:
            self.server.accounts.release(self._held)
            self._held = ""
        self.pending_name = ""
        self.state = "closed"

    def _cancel_delay(self) -> None:
        if self._delay is not None and self._delay.active():
            self._delay.cancel()
        self._delay = None

    def _cancel_timer(self) -> None:
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
        if self.session is not None:
            minutes = f"{self.config.idle_timeout / 60:g}"
            note = msg("**** Auto-logout because you were idle more than {minutes} minutes. ****",
                       minutes=minutes)
            self.session.write_text("\n" + self.session.render(note))
            self.server.sessions.logout(self.session, reason="idle")

    def close(self) -> None:
        self.state = "closed"
        self._cancel_timer()
        self._cancel_delay()
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
            if (data[0] != _DOLLAR or data[1] != _DOLLAR) and self._idle is not None:
                self._idle.start(self)  # activity ("$$" is not): the idle time starts again
            self.server.dispatcher.execute(self.session, decode_line(data[:-1]))
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
            self._sealed_line(data)
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
        telnet = self.transport
        for k, raw in enumerate(lines):
            if self.state == "closed":
                return
            if telnet.holding:  # the client is not reading: the rest waits for resumeProducing
                lines.append(tail)
                self._buffer = b"\n".join(lines[k:])
                return
            if len(raw) > limit:
                self._line_too_long()
            else:
                _RAW_LINE_HANDLERS[self._raw_lines](self, raw)
        if len(tail) > limit:
            self._buffer = b""
            self._discarding = True
        else:
            self._buffer = tail

    def _first_line(self, raw: bytes) -> None:
        """The connection's first line: a timeseal hello switches decoding on."""
        found = timeseal.detect(raw)
        if found is None:
            self._raw_lines = "plain"
            self._plain_line(raw)
            return
        hello, ping = found
        self._seal = timeseal.MoveTimer(ping=ping, max_compensation=self.config.lag_compensation)
        self._raw_lines = "sealed"
        self.dataReceived = self._sealed_data  # type: ignore[method-assign]
        self.log.info("timeseal client at {peer}: {hello}", peer=self.peer,
                      hello=decode_line(hello.text[:200]))

    def _plain_line(self, raw: bytes) -> None:
        self.lineReceived(decode_line(raw))

    def _sealed_raw(self, raw: bytes) -> None:
        """A line of a timeseal connection split from a longer read (without its ``\\n``)."""
        self._sealed_line(raw + b"\n")

    def _sealed_line(self, line: bytes) -> None:
        """One line of a timeseal connection, with its ``\\n``: decoded, a ping answer kept, else run."""
        try:
            typed, digits = timeseal.unseal(line)
        except timeseal.TimesealError as e:
            if line != b"\n":  # a bare line end: nothing a timeseal client encodes
                self.log.info("ignored a bad timeseal line from {peer}: {reason}", peer=self.peer,
                              reason=e.render("en"))
                self._complain(e.message)
            return
        if typed == timeseal.PING_REPLY:
            self._seal.replied(timeseal.stamp_of(digits))
            return
        self._seal.digits = digits
        # What decode_line does: a timeseal line's text is ASCII (7 bits a byte).
        text = typed.decode()
        if not text.isprintable():
            text = text.translate(_CONTROLS)
        if self.state == "command":  # what line_command does, one call less
            if not text.startswith("$$"):
                self._arm_idle()
            self.server.dispatcher.execute(self.session, text)
        else:
            self.lineReceived(text)

    def _line_too_long(self) -> None:
        if self.session is not None:  # the server answers (code 520 in block mode)
            self.server.dispatcher.line_too_long(self.session)
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
        handler = _LINE_HANDLERS.get(self.state)
        if handler is not None:
            if self.session is None and self.server.stopping:
                self._refuse_stopping()
                return
            handler(self, line)

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
        over = server.address_limits.login_attempt(self.host)
        if over is not None:
            wait = seconds_left(over.until, server.clock.seconds())
            if over.report:
                self.log.warn("refused logins from {host}: more than {count} a minute "
                              "(limits.logins_per_minute), for {seconds} s; more refusals for "
                              "this address within a minute are not logged",
                              host=self.host, count=over.count, seconds=wait)
            self.say(msg("Sorry, too many logins from your address: this server allows {count} a "
                         "minute. Try again in {wait}.", count=over.count, wait=_duration(wait)))
            self.close()
            return
        if fold(name) == fold(self.config.guest_login):
            handle = server.accounts.allocate_guest()
            self.pending_name = self._held = handle
            self.say(msg("Logging you in as \"{handle}\"; you may use this name to play "
                         "unrated games.", handle=handle))
            self._ask_return(handle)
            return
        # Read off the reactor thread (a stalled disk must not stall everyone);
        # lines typed meanwhile wait in self._type_ahead.
        self.state = "checking"
        server.accounts.registered(name).addCallbacks(self._looked_up, self._lookup_failed,
                                                      callbackArgs=(name,), errbackArgs=(name,))

    def _looked_up(self, registered: bool, name: str) -> None:
        """The rest of ``login:`` once the store said whether ``name`` has an account."""
        if self.state != "checking":  # the connection went away meanwhile
            return
        if self.server.stopping:
            self._refuse_stopping()
            return
        self.state = "login"
        self._named(registered, name)
        self._replay_type_ahead()

    def _lookup_failed(self, failure: Any, name: str) -> None:
        """A read of the login (account, settings) failed: refused, and closed."""
        if self.state != "checking":
            return
        if self.server.stopping:  # the store may be closed already
            self._refuse_stopping()
            return
        self.log.failure("store read for the login of {name} failed", failure, name=name)
        self._refuse_unavailable()

    def _refuse_stopping(self) -> None:
        """A login not finished when the server began to stop: told, and closed."""
        self.log.info("login of {peer} refused: the server is shutting down", peer=self.peer)
        self.say(msg("The server is shutting down. Goodbye."))
        self.close()

    def _refuse_unavailable(self) -> None:
        self.say(msg("Sorry, your login could not be completed; please try again later."))
        self.close()

    def _named(self, registered: bool, name: str) -> None:
        server = self.server
        if registered:
            # Asked even when the player is logged in, and the name is not
            # held meanwhile: the right password, typed here or at another
            # connection's prompt, gets in and closes the other session
            # (Sessions.enter).  A locked-out account is not even asked.
            refusal = server.accounts.throttle.refusal(name, self.host)
            if refusal is not None and refusal.kind == "locked":
                self._refuse(name, refusal)
                return
            self.pending_name = name
            self.state = "password"
            self.say(msg("\"{name}\" is a registered name.  If it is yours, type the password.\n"
                         "If not, just hit return to try another name.", name=name))
            self.write(b"\r\n")
            self._echo(False)
            self._reprompt()
            return
        reason = server.accounts.check_name(name)
        if reason is not None:
            self.say(reason)
            self._reprompt()
            return
        server.accounts.reserve(name)
        self.pending_name = self._held = name
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
            if self._ivars is None:
                self._ivars = {}
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
        name = self.pending_name
        self.state = "checking"  # lines typed meanwhile wait in self._type_ahead
        d = self.server.accounts.requestAvatarId(PasswordAttempt(name, line, self.host))
        d.addCallbacks(lambda _: self._password_checked(name, None), self._password_failed,
                       errbackArgs=(name,))

    def _password_failed(self, reason: failure.Failure, name: str) -> None:
        """The accounts refused the password: throttled (never hashed), wrong, or the
        check broke (the store read or the hash)."""
        if reason.check(LoginRefused):
            if self.state == "checking":
                self._refuse(name, reason.value.refusal)
            return
        if reason.check(BadPassword):  # counted even if the connection went away meanwhile
            counted = reason.value.failure
            self._log_failure(name, counted)
            self._password_checked(name, counted)
            return
        if self.state != "checking":
            return
        if self.server.stopping:  # the store may be closed already
            self._refuse_stopping()
            return
        self.log.failure("password check failed", reason)
        self._refuse_unavailable()

    def _refuse(self, name: str, refusal: Refusal) -> None:
        """A password login refused by the throttle, back at ``login:``."""
        wait = seconds_left(refusal.until, self.server.clock.seconds())
        if self.server.accounts.password_refusals.refused(self.host):  # then counted, a line a minute
            self.log.info("refused a password for {name} from {peer}: {kind} by {scope} "
                          "({seconds} s left); more refusals from this address are counted",
                          name=name, peer=self.peer, kind=refusal.kind, scope=refusal.scope,
                          seconds=wait)
        self.pending_name = ""
        self.state = "login"
        self.say(_refusal_text(name, refusal.kind, refusal.scope, wait))
        self._reprompt(fresh_line=True)

    def line_type_ahead(self, line: str) -> None:
        """A line typed while the password is checked: kept, to run in order afterwards."""
        if self._type_ahead is None:
            self._type_ahead = deque()
        if len(self._type_ahead) < MAX_TYPE_AHEAD:
            self._type_ahead.append((line, self._seal.digits if self._seal is not None else None))
        else:
            self._dropped += 1

    def _password_checked(self, name: str, failure: Failure | None) -> None:
        """The password was right (``failure`` is ``None``) or wrong, as counted."""
        if self.state != "checking":  # the connection went away meanwhile
            return
        if failure is None:
            if self.server.stopping:
                self._refuse_stopping()
                return
            # Settings read off the reactor thread, too; the state stays "checking".
            self.server.accounts.saved_settings(name).addCallbacks(
                self._settings_read, self._lookup_failed, errbackArgs=(name,))
            return
        self.pending_name = ""
        self.say(msg("**** Invalid password! ****"))
        if failure.locked:
            wait = seconds_left(failure.until, self.server.clock.seconds())
            self.say(_refusal_text(name, "locked", failure.locked[0], wait))
        if failure.locked or not failure.delay:
            self.state = "login"
            self._reprompt(fresh_line=True)
        else:  # the next "login:" after the delay; lines typed meanwhile wait
            self.state = "delayed"
            self._delay = self.server.clock.callLater(failure.delay, self._delay_over)
        self._replay_type_ahead()

    def _log_failure(self, name: str, failure: Failure) -> None:
        self.log.info("bad password for {name} from {peer} (failure {account} for the account, "
                      "{address} for the address; next attempt in {delay:g} s)", name=name,
                      peer=self.peer, account=failure.account_failures,
                      address=failure.address_failures, delay=failure.delay)
        for scope in failure.locked:
            self.log.warn("locked out {what} for {seconds:g} s after {count} bad passwords "
                          "(last: {name} from {peer})",
                          what=f"account {name}" if scope == "account" else f"address {self.host}",
                          seconds=self.config.password_lockout, name=name, peer=self.peer,
                          count=self.config.password_failures)

    def _delay_over(self) -> None:
        self._delay = None
        if self.state != "delayed":
            return
        self.state = "login"
        self._reprompt(fresh_line=True)
        self._replay_type_ahead()

    def _replay_type_ahead(self) -> None:
        """Run the lines typed during the check, as if they came now (until another
        check or wait)."""
        queue = self._type_ahead
        while queue and self.state not in ("checking", "delayed", "closed"):
            line, digits = queue.popleft()
            if self._seal is not None:
                self._seal.digits = digits
            self.lineReceived(line)

    def _settings_read(self, saved: dict[str, Any]) -> None:
        if self.state != "checking":  # the connection went away meanwhile
            return
        if self.server.stopping:
            self._refuse_stopping()
            return
        self._enter(registered=True, saved=saved)
        self._replay_type_ahead()

    def line_confirm(self, line: str) -> None:
        self._enter(registered=False)

    def _enter(self, *, registered: bool, saved: dict[str, Any] | None = None) -> None:
        handle = self.pending_name
        self.pending_name = self._held = ""
        self._cancel_timer()
        # The session writes straight to the telnet transport (what self.write
        # does, one call less per board sent to each of many observers).
        session = self.server.sessions.enter(handle, write=self.transport.write,
                                             close=self.close, registered=registered,
                                             peer=self.peer, host=self.host, saved=saved)
        session.sink = self.transport  # broadcasts write to many through FicsTelnetTransport.write_all
        if self._ivars is not None:
            session.preset_ivars(self._ivars)
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
        self.server.sessions.arrived(session)  # a game going on, adjourned games: tell both players
        self._arm_idle()

    def _arm_idle(self) -> None:
        """The idle time starts (again) now: at login, and at every command line but "$$" ones."""
        if self._idle is not None:
            self._idle.start(self)

    def line_command(self, line: str) -> None:
        if not line.startswith("$$"):  # "$$" lines do not count as activity
            self._arm_idle()
        self.server.dispatcher.execute(self.session, line)

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
            transport.offer(ECHO, True)
        elif self._echo_off:
            self._echo_off = False
            state = transport.getOptionState(ECHO).us
            if state.state == "yes" and not state.negotiating:
                transport.offer(ECHO, False)

    def enableLocal(self, option: bytes) -> bool:
        return option == SGA or (option == ECHO and self._echo_off)

    def disableLocal(self, option: bytes) -> None:
        pass

    def enableRemote(self, option: bytes) -> bool:
        return False


def _duration(seconds: int) -> Message:
    """``seconds`` for a person: seconds up to two minutes, else minutes (rounded up)."""
    if seconds < 120:
        return msgn("{count} second", "{count} seconds", seconds)
    return msgn("{count} minute", "{count} minutes", -(-seconds // 60))


def _refusal_text(name: str, kind: str, scope: str, seconds: int) -> Message:
    """What a throttled password login is told, by (kind, scope) of the refusal."""
    wait = _duration(seconds)
    return _REFUSALS[kind, scope](name=name, wait=wait)


_REFUSALS = {
    ("locked", "account"): lambda **p: msg(
        "Too many wrong passwords for {name}: its password logins are refused for {wait}. "
        "Try again then, or log in as a guest.", **p),
    ("locked", "address"): lambda **p: msg(
        "Too many wrong passwords from your address: password logins from it are refused for "
        "{wait}. Try again then, or log in as a guest.", **p),
    ("wait", "account"): lambda **p: msg(
        "A wrong password for {name} was typed a moment ago: wait {wait}, then log in again.", **p),
    ("wait", "address"): lambda **p: msg(
        "A wrong password came from your address a moment ago: wait {wait}, then log in again.",
        **p),
    ("busy", "account"): lambda **p: msg(
        "A password for {name} is being checked already: log in again in a moment.", **p),
    ("busy", "address"): lambda **p: msg(
        "A password from your address is being checked already: log in again in a moment.", **p),
}


#: Per server, whichever factory built the connection (tests build one factory per client).
_Shared = tuple[TurnScheduler, MemoryTrimmer, Timeouts["FicsProtocol"], Timeouts["FicsProtocol"],
                Timeouts["FicsTelnetTransport"]]
_SHARED: "weakref.WeakKeyDictionary[Any, _Shared]" = weakref.WeakKeyDictionary()


#: What FicsProtocol._raw_lines says each raw input line goes through.
_RAW_LINE_HANDLERS: dict[str, Callable[[FicsProtocol, bytes], None]] = {
    "first": FicsProtocol._first_line,
    "plain": FicsProtocol._plain_line,
    "sealed": FicsProtocol._sealed_raw,
}


#: What a line means in each state of the login dialogue (none once closed): one
#: table for every connection, rather than bound methods made for each.
_LINE_HANDLERS: dict[str, Callable[[FicsProtocol, str], None]] = {
    "login": FicsProtocol.line_login,
    "password": FicsProtocol.line_password,
    "checking": FicsProtocol.line_type_ahead,
    "delayed": FicsProtocol.line_type_ahead,
    "confirm": FicsProtocol.line_confirm,
    "command": FicsProtocol.line_command,
}


class FicsFactory(ServerFactory):
    """Builds a telnet transport around a :class:`FicsProtocol` for each connection."""

    noisy = False  # our own log line per connection says more

    def __init__(self, server: Any) -> None:
        self.server = server
        #: Where the server's heavy connections take turns, and what gives memory back
        #: after many connections closed: one of each per server.
        shared = _SHARED.get(server)
        if shared is None:
            config = server.config
            shared = _SHARED[server] = (
                TurnScheduler(server.clock, share=config.heavy_percent / 100,
                              budget=config.heavy_turn_ms / 1000),
                MemoryTrimmer(server.clock, after=config.trim_after, again=config.trim_again,
                              tidy=server.tidy),
                Timeouts(server.clock, config.login_timeout, FicsProtocol._login_timeout),
                Timeouts(server.clock, config.idle_timeout, FicsProtocol._idle_timeout),
                Timeouts(server.clock, config.close_grace, FicsTelnetTransport._grace_over))
        #: ``logins``: the connections at the login or password prompt, timed out together;
        #: ``idle``: the logged-in ones, each restarted by its command lines; ``closing``:
        #: the closed ones whose output is not sent yet.
        self.scheduler, self.trimmer, self.logins, self.idle, self.closing = shared
        self._protocol_args = (server,)

    def buildProtocol(self, addr: Any) -> FicsTelnetTransport:
        transport = FicsTelnetTransport(FicsProtocol)
        transport.protocolArgs = self._protocol_args  # one tuple for all connections
        transport.factory = self
        return transport
