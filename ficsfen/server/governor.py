"""The input governor: how much of one client's input is read, and when.

:class:`InputGovernor` sits between a TCP connection and the protocol
above it (:class:`GovernedProtocol`), as a ``ProtocolWrapper`` does: it is
the protocol of the TCP connection and the transport of the protocol above.
It is also the connection's streaming producer, so that one client cannot
take the server's memory or time:

- when Twisted's write buffer passes its high-water mark (the client is
  not reading), Twisted calls :meth:`InputGovernor.pauseProducing`: reading
  stops and input lines wait (:attr:`InputGovernor.holding`) until the
  buffer has drained; output written meanwhile is counted, and past
  ``[limits] output_buffer`` bytes the connection is aborted;
- at most ``input_budget`` bytes are parsed, and at most ``lines_per_turn``
  lines handed up, per reactor turn; the rest waits for the next turn with
  reading paused, so other connections are served in between;
- at most ``input_rate`` bytes a second are parsed (bursts of
  ``input_burst``), and ``commands_per_second`` lines run (bursts of
  ``command_burst``): past that, reading pauses until the rate allows more
  (logged once per connection), so a flood is slowed by TCP itself;
- protocol commands (telnet IAC sequences) have a budget of their own,
  ``telnet_rate`` bytes a second in bursts of ``telnet_burst``: the
  protocol's parser says which bytes are typed text
  (:meth:`Parser.plain_prefix`) and how many it parsed were commands;
- connections whose input cost the most CPU lately, and newcomers, take
  turns in the server's :class:`ficsfen.server.load.TurnScheduler`.

The token buckets are made with the first input: a connection that never
sends anything (most of an attack's) never has them.
"""

from __future__ import annotations

from typing import Any, Protocol as TypingProtocol

from twisted.internet.interfaces import IConsumer, IPushProducer, ITCPTransport
from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.server.load import TurnScheduler
from ficsfen.server.rates import TokenBucket

__all__ = ["GovernedProtocol", "HeldOutput", "InputGovernor", "Parser", "Rates"]


class Parser(TypingProtocol):
    """The byte parser of a :class:`GovernedProtocol` (e.g. :class:`ficsfen.server.iac.TelnetCodec`)."""

    def plain_prefix(self, data: bytes, start: int, end: int) -> int:
        """How many bytes of ``data[start:end]`` are typed text before a protocol command."""

    def feed(self, data: bytes, now: float) -> tuple[int, int]:
        """Parse ``data``, handing input up through :meth:`InputGovernor.deliver`, until
        :attr:`InputGovernor.stalled`; returns (bytes consumed, command bytes among them)."""


class GovernedProtocol(TypingProtocol):
    """The protocol above an :class:`InputGovernor` (what it parses and hands up)."""

    @property
    def peer(self) -> str: ...  # noqa: D102,E704

    @property
    def who(self) -> str:
        """Who is connected, for the output cap's log line ("-" before a name is known)."""

    @property
    def codec(self) -> Parser:
        """What turns the bytes read into input (with the protocol's commands taken out)."""

    def makeConnection(self, transport: Any) -> None: ...  # noqa: D102,E704,N802

    def connectionLost(self, reason: Any) -> None: ...  # noqa: D102,E704,N802

    def lines_received(self, data: bytes) -> None:
        """Input lines (LF-ended) the governor lets through; ``b""``: go on with lines kept."""


class IGovernedTransport(ITCPTransport, IConsumer, IPushProducer):
    """The TCP connection under a :class:`HeldOutput`: it writes and aborts, takes the
    protocol as its producer, and is paused and resumed."""


@implementer(IPushProducer)
class HeldOutput(Protocol):
    """The output side of a connection: Twisted's write buffer seen as backpressure.

    It is the streaming producer of its TCP connection: when Twisted's
    buffer passes its high-water mark, :attr:`holding` is set until it has
    drained (subclasses stop taking input meanwhile); output written while
    holding is counted, and past ``[limits] output_buffer`` bytes the
    connection is aborted.  :meth:`loseConnection` closes once the output
    is sent, or aborts ``[limits] close_grace`` seconds later.
    """

    log = Logger()
    # Twisted's Protocol has ``ITransport | None``: set by makeConnection, before any use.
    transport: IGovernedTransport
    factory: Any = None  # ``closing``: the closed connections not gone yet, timed out together
    wrappedProtocol: Any = None  # ``peer`` and ``who``, for log lines
    #: True while the client is not reading its output: input lines wait.
    holding = False
    _overflowed = False  # closed for unsent output: writes are dropped
    _unsent = 0  # bytes written since the output was paused
    _producing = False  # registered as the connection's producer
    _closing = False  # loseConnection was called
    _output_cap = 1 << 20

    def _stop_input(self) -> None:
        """No more input: what waits is dropped (subclasses)."""

    def _update_reading(self) -> None:
        """Read or not, now that :attr:`holding` or :attr:`_closing` changed (subclasses)."""

    def _schedule_drain(self) -> None:
        """Input kept back may go on now that :attr:`holding` is over (subclasses)."""

    def getPeer(self) -> Any:  # noqa: N802 - ITransport's name
        return self.transport.getPeer()

    def getHost(self) -> Any:  # noqa: N802 - ITransport's name
        return self.transport.getHost()

    def loseConnection(self) -> None:
        """Close once the output is written; no more input is read or handed up."""
        # Twisted never ends a connection whose streaming producer is paused when
        # its buffer drains (it resumes the producer instead): unregister first.
        self._closing = True
        self._stop_input()
        if self._producing:
            self._producing = False
            self.transport.unregisterProducer()
        self.transport.loseConnection()
        # Twisted closes the socket once its output is sent: never, for a client
        # that does not read.  Aborted after [limits] close_grace seconds.
        closing = self.factory.closing
        if self not in closing:
            closing.start(self)

    def _grace_over(self) -> None:
        """Still open ``close_grace`` seconds after :meth:`loseConnection`: the client
        does not read its last output; the socket is aborted, the output dropped."""
        wrapped = self.wrappedProtocol
        self.log.info("aborted {peer}: closed {seconds:g} s ago, its output still unsent "
                      "(limits.close_grace)", peer=wrapped.peer if wrapped is not None else "?",
                      seconds=self.factory.closing.seconds)
        self.transport.abortConnection()

    # -- IPushProducer: Twisted's view of the connection's write buffer -------------

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

    # -- output ------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """``data`` as it is; while the client is not reading, up to ``output_buffer`` bytes."""
        if self.holding:
            self._write_held(data)
        else:
            self.transport.write(data)

    def write_later(self, data: bytes) -> None:
        """:meth:`write`, through the transport's buffer when it has one of its own
        (:meth:`ficsfen.server.listening.Connection.write_later`), not at once."""
        if self.holding:
            self._write_held(data)
        else:
            getattr(self.transport, "write_later", self.transport.write)(data)

    @staticmethod
    def write_all(governors: list[HeldOutput], data: bytes) -> None:
        """:meth:`write` the same ``data`` to each of ``governors`` (a board to its observers)."""
        for governor in governors:
            if governor.holding:
                governor._write_held(data)
            else:
                governor.transport.write(data)

    def _write_held(self, data: bytes) -> None:
        """Output for a client that is not reading: kept up to the cap, then the connection goes."""
        if self._overflowed:
            return
        self._unsent += len(data)
        if self._unsent <= self._output_cap:
            self.transport.write(data)
            return
        self._overflowed = True
        wrapped = self.wrappedProtocol
        self.log.info("closed {peer} ({handle}): not reading its output, {size} bytes written "
                      "since its buffer filled (limits.output_buffer = {cap})",
                      peer=wrapped.peer if wrapped is not None else "?",
                      handle=wrapped.who if wrapped is not None else "-",
                      size=self._unsent, cap=self._output_cap)
        self._stop_input()
        self.transport.abortConnection()



class InputGovernor(HeldOutput):
    """The TCP-side protocol of one connection, and the transport of ``wrapped``."""

    log = Logger()
    _reading = True  # whether the connection is read from (as far as we asked)
    _pending = b""  # input not parsed yet (beyond a turn's budget, or while holding)
    _offset = 0  # where the unparsed part of _pending starts
    #: Input parsed into lines beyond the turn's ``lines_per_turn``: the next turn's first.
    _lines_pending = b""
    _lines_left = 4  # lines this turn may still hand up
    _lines_per_turn = 4
    #: The rate limits' token buckets, made with the first input (None until then,
    #: and when no rate is configured).
    rates: Rates | None = None
    _rates_due = False  # the rate limits are made with the first input
    _scheduler: TurnScheduler | None = None  # where heavy connections take turns (or None)
    _load = 0.0  # seconds of CPU its input cost lately (decayed: TurnScheduler.cost)
    _load_at = 0.0  # clock time of _load
    #: In the turn scheduler's queue.
    waiting_turn = False
    _newcomer_until = 0.0  # clock time until which its input waits as a newcomer's
    _drain_call: Any = None
    _budget = 4096

    def __init__(self, factory: Any, wrapped: GovernedProtocol) -> None:
        #: What built it: ``server`` (config, clock), ``scheduler``, ``trimmer``, ``closing``
        #: (the closed connections whose output is not sent yet, aborted together).
        self.factory = factory
        self.wrappedProtocol = wrapped

    # -- connection --------------------------------------------------------------

    def connectionMade(self) -> None:
        factory = self.factory
        config = factory.server.config
        self._clock = factory.server.clock
        self._output_cap = config.output_buffer
        self._budget = config.input_budget
        self._lines_per_turn = self._lines_left = config.lines_per_turn
        self._rates_due = bool(config.input_rate or config.telnet_rate or config.commands_per_second)
        if config.heavy_percent:
            self._scheduler = factory.scheduler
            self._newcomer_until = self._clock.seconds() + config.newcomer_seconds
        self.transport.registerProducer(self, True)
        self._producing = True
        self.wrappedProtocol.makeConnection(self)

    def connectionLost(self, reason: Any = None) -> None:
        self._stop_input()
        self._producing = False
        self.wrappedProtocol.connectionLost(reason)
        self.factory.closing.stop(self)
        self.factory.trimmer.closed()

    # -- input -------------------------------------------------------------------

    @property
    def stalled(self) -> bool:
        """Whether the protocol above must stop parsing for now (output held, or this
        turn's lines handed up)."""
        return self.holding or self._lines_left <= 0

    @property
    def input_waiting(self) -> bool:
        """Whether input kept back is due in the next reactor turn (not later, by the rate)."""
        call = self._drain_call
        return self.waiting_turn or (call is not None and call.getTime() <= self._clock.seconds())

    @property
    def unparsed(self) -> int:
        """Bytes received and not parsed yet."""
        return len(self._pending) - self._offset

    @property
    def undelivered(self) -> bytes:
        """Input parsed but not handed up yet (lines beyond a turn's count)."""
        return self._lines_pending

    @property
    def pending_input(self) -> bytes:
        """Input received and not parsed yet."""
        return self._pending[self._offset:]

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        if not data:
            return
        if self._rates_due:
            self._rates_due = False
            self.rates = Rates(self.factory.server.config, self._clock.seconds())
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
        rates, now = self.rates, self._clock.seconds()
        if rates is None:
            self._lines_left = self._lines_per_turn
            n = min(len(data), self._budget)
        else:
            self._lines_left = rates.lines(self._lines_per_turn, now)
            n = rates.allow(self, data, 0, min(len(data), self._budget), now)
        if n < len(data):  # the rest in later reactor turns
            self._pending = data
            self._offset = n
            data = data[:n]
        if data:
            if scheduler is not None:
                started = scheduler.timer()
                self._parse(data, now)
                self._charge(scheduler.timer() - started)
            else:
                self._parse(data, now)
        self._turn_over()

    def deliver(self, data: bytes) -> None:
        """Parsed input up: at most the lines this turn has left, the rest kept for later turns."""
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
            self.wrappedProtocol.lines_received(data)

    def _parse(self, data: bytes, now: float) -> None:
        """Parse a piece the turn allows (read at clock time ``now``, the caller's one
        reading of the clock); unparsed bytes are kept, command bytes charged."""
        consumed, commands = self.wrappedProtocol.codec.feed(data, now)
        rates = self.rates
        if rates is not None and (commands or rates.taken):
            rates.settle(commands, now)
        if consumed < len(data):
            self._pending = data[consumed:] + self._pending[self._offset:]
            self._offset = 0
            self._update_reading()

    def _drain(self) -> None:
        """Input kept back is due: handled now, or after the heavy connections' queue."""
        self._drain_call = None
        if self._scheduler is not None and self._queued():
            self._wait_turn()
            return
        self.take_turn()

    def take_turn(self) -> None:
        """One turn's share of the input kept back (after lines held by the protocol above)."""
        self.waiting_turn = False
        wrapped = self.wrappedProtocol
        if self.holding or wrapped is None:
            return
        scheduler = self._scheduler
        started = scheduler.timer() if scheduler is not None else 0.0
        wrapped.lines_received(b"")  # lines the protocol kept while holding
        if not self.holding:
            rates, now = self.rates, self._clock.seconds()
            self._lines_left = (self._lines_per_turn if rates is None
                                else rates.lines(self._lines_per_turn, now))
            if self._lines_pending:
                lines, self._lines_pending = self._lines_pending, b""
                self.deliver(lines)
            pending, start = self._pending, self._offset
            if start < len(pending) and self._lines_left > 0 and not (self.holding or self._lines_pending):
                n = min(len(pending) - start, self._budget)
                if rates is not None:
                    n = rates.allow(self, pending, start, n, now)
                if n:
                    end = self._offset = start + n
                    if end >= len(pending):
                        self._pending, self._offset = b"", 0
                    self._parse(pending[start:end], self._clock.seconds())
        if scheduler is not None:
            self._charge(scheduler.timer() - started)
        self._turn_over()

    # -- turns and rates ---------------------------------------------------------------

    def _charge(self, spent: float) -> None:
        """Add ``spent`` seconds of CPU to what this connection's input cost lately."""
        scheduler = self._scheduler
        if scheduler is not None:
            now = self._clock.seconds()
            self._load = scheduler.cost(self._load, self._load_at, now) + spent
            self._load_at = now

    def charge(self, load: float) -> None:
        """Say that the connection's input cost ``load`` seconds of CPU just now."""
        self._load, self._load_at = load, self._clock.seconds()

    def _newcomer(self) -> bool:
        """Still in its first ``newcomer_seconds``: its cost is not known yet."""
        return self._clock.seconds() < self._newcomer_until

    def _queued(self) -> bool:
        """Whether its input waits in the scheduler's queue (heavy, or a newcomer)."""
        scheduler = self._scheduler
        return scheduler is not None and (self._newcomer() or scheduler.heavy(self._load, self._load_at))

    def _wait_turn(self) -> None:
        scheduler = self._scheduler
        if scheduler is not None and not self.waiting_turn:
            self.waiting_turn = True
            scheduler.wait(self, scheduler.cost(self._load, self._load_at, self._clock.seconds()),
                           newcomer=self._newcomer())

    def _turn_over(self) -> None:
        """After a turn's input: come back for what waits, read only when nothing does."""
        commands = self.rates.commands if self.rates is not None else None
        if commands is not None and self._lines_left > 0:
            commands.give_back(self._lines_left)  # lines not used this turn
            self._lines_left = 0
        if (self._pending or self._lines_pending) and not self.holding:
            self._schedule_drain()
        self._update_reading()

    def log_rate(self, text: str, bucket: TokenBucket) -> None:
        """The one log line of a connection that passed a rate limit."""
        wrapped = self.wrappedProtocol
        self.log.info(text, peer=wrapped.peer if wrapped is not None else "?",
                      rate=bucket.rate, burst=bucket.burst)

    def _schedule_drain(self) -> None:
        if self._drain_call is not None or self.waiting_turn:
            return
        delay = 0.0
        if self.rates is not None:
            delay = self.rates.delay(self, self._pending, self._offset, bool(self._lines_pending),
                                     self._clock.seconds())
        self._drain_call = self._clock.callLater(delay, self._drain)

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
        if self.waiting_turn and self._scheduler is not None:
            self.waiting_turn = False
            self._scheduler.discard(self)


class Rates:
    """One connection's rate limits: token buckets for its bytes, its command bytes, its lines.

    ``input_rate`` (bytes parsed), ``telnet_rate`` (protocol command bytes
    among them) and ``commands_per_second`` (lines handed up), each None
    when not configured.  Each limit is logged once per connection, the
    first time it holds input back.
    """

    __slots__ = ("rate", "telnet", "commands", "budget", "taken", "_logged")

    def __init__(self, config: Any, now: float) -> None:
        self.rate = TokenBucket(config.input_rate, config.input_burst, now) if config.input_rate else None
        self.telnet = (TokenBucket(config.telnet_rate, config.telnet_burst, now)
                       if config.telnet_rate else None)
        self.commands = (TokenBucket(config.commands_per_second, config.command_burst, now)
                         if config.commands_per_second else None)
        self.budget = config.input_budget
        #: Telnet tokens taken for the piece about to be parsed (settled after it).
        self.taken = 0
        self._logged = 0  # the limits logged already (bits: _LOGGED)

    def allow(self, governor: InputGovernor, data: bytes, start: int, n: int, now: float) -> int:
        """How many of the ``n`` bytes at ``data[start:]`` the rates let through now (taken)."""
        rate = self.rate
        if rate is not None:
            allowed = rate.take(n, now)
            if allowed < n:
                self._log_once(governor, "input", "input from {peer} passed limits.input_rate ({rate} "
                               "bytes/s, bursts of {burst}): read at that rate from now on", rate)
            n = allowed
        telnet = self.telnet
        if telnet is not None and n:
            plain = governor.wrappedProtocol.codec.plain_prefix(data, start, start + n)
            if plain < n:
                # Commands ahead: every byte after the typed text before them is
                # counted for now (settle gives back the typed text among them).
                taken = self.taken = telnet.take(n - plain, now)
                allowed = plain + taken
                if rate is not None:
                    rate.give_back(n - allowed)
                n = allowed
        return n

    def settle(self, used: int, now: float) -> None:
        """The piece was parsed: ``used`` of its bytes were commands (telnet tokens adjusted)."""
        taken, self.taken = self.taken, 0
        telnet = self.telnet
        if telnet is not None:
            if used < taken:
                telnet.give_back(taken - used)
            elif used > taken:
                telnet.take(used - taken, now)

    def lines(self, wanted: int, now: float) -> int:
        """How many of ``wanted`` lines the command rate lets through now (taken)."""
        commands = self.commands
        return wanted if commands is None else commands.take(wanted, now)

    def delay(self, governor: InputGovernor, pending: bytes, offset: int, lines_waiting: bool,
              now: float) -> float:
        """Seconds until the input kept back may go on: lines at the command rate, else bytes."""
        commands = self.commands
        if commands is not None and lines_waiting:
            delay = commands.wait(1, now)
            if delay:
                self._log_once(governor, "commands", "commands from {peer} passed "
                               "limits.commands_per_second ({rate} a second, bursts of {burst}): "
                               "run at that rate from now on", commands)
            return delay
        delay = 0.0
        if not pending:
            return delay
        if self.rate is not None:
            delay = self._next_piece_wait(self.rate, pending, offset, now)
        telnet = self.telnet
        if telnet is not None and not governor.wrappedProtocol.codec.plain_prefix(pending, offset,
                                                                                offset + 1):
            held = self._next_piece_wait(telnet, pending, offset, now)
            if held:  # commands wait for their budget
                self._log_once(governor, "telnet", "telnet commands from {peer} passed "
                               "limits.telnet_rate ({rate} bytes/s, bursts of {burst}): read at "
                               "that rate from now on", telnet)
            delay = max(delay, held)
        return delay

    def _next_piece_wait(self, bucket: TokenBucket, pending: bytes, offset: int, now: float) -> float:
        """Seconds until ``bucket`` allows the next piece of pending input: a quarter
        second's worth (or all that is left), not a whole budget."""
        wanted = min(self.budget, len(pending) - offset, max(1, int(bucket.rate) // 4))
        return bucket.wait(wanted, now)

    def _log_once(self, governor: InputGovernor, limit: str, text: str, bucket: TokenBucket) -> None:
        bit = _LOGGED[limit]
        if not self._logged & bit:
            self._logged |= bit
            governor.log_rate(text, bucket)


_LOGGED = {"input": 1, "telnet": 2, "commands": 4}
