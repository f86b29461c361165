"""The telnet byte codec: IAC sequences in, option negotiation, IAC doubling out.

:class:`TelnetCodec` is the whole of telnet (RFC 854) a FICS server needs,
owned here rather than taken from ``twisted.conch.telnet.TelnetTransport``:
that class raises ``ValueError`` on an unknown IAC command (the connection
drops), answers a long subnegotiation by dropping the connection, keeps a
Deferred per offer that a silent client never answers and a table of
bound methods per connection; bending it meant skipping its ``__init__``
and overriding its private methods.  This codec does no I/O: it is fed
bytes and reports to its :class:`TelnetHost`.

What it reads:

- a bare CR, CR LF, CR NUL and LF each end a line, handed up as one LF;
- ``IAC IAC`` is a data byte 255; ``IAC`` and any one-byte command (NOP,
  GA, AYT...) is skipped; an unknown byte after IAC is skipped with it;
- ``IAC WILL/WONT/DO/DONT opt`` is negotiated as Twisted's ``Telnet`` does
  (the same answers, the same loop prevention), with the host's
  :meth:`TelnetHost.enable_local` and :meth:`TelnetHost.enable_remote`;
- ``IAC SB ... IAC SE``: at most :data:`MAX_SUBNEGOTIATION` bytes are
  kept; a longer one is skipped up to its ``IAC SE``, and one that takes
  more than ``sb_limit`` bytes or ``sb_timeout`` seconds is abandoned:
  the bytes after it are input again.
"""

from __future__ import annotations

import re
from typing import Callable, Protocol

from twisted.conch.telnet import (
    AO, AYT, BRK, DM, DO, DONT, EC, EL, EOR, GA, IAC, IP, NOP, SB, SE, WILL, WONT,
)
from twisted.logger import LogLevel, Logger

__all__ = ["MAX_SUBNEGOTIATION", "OptionState", "Side", "TelnetCodec", "TelnetHost", "escape"]

#: Most bytes of one subnegotiation kept (option byte and payload), as Twisted's bound.
MAX_SUBNEGOTIATION = 4096

_SPECIAL = re.compile(rb"[\xff\r]")
_NEGOTIATION = frozenset((WILL, WONT, DO, DONT))
# A run of two-byte IAC sequences that carry no option: escaped 255s (IAC IAC)
# and the one-byte commands, none of which means anything to a FICS session.
# One C-level match skips a whole flood of them.
_IAC_RUN = re.compile(b"(?:\xff[" + re.escape(EOR + NOP + DM + BRK + IP + AO + AYT + EC + EL + GA)
                      + b"\xff])+")
#: Parser states in which a chunk without an IAC byte is plain text (the fast path).
_PLAIN_STATES = frozenset(("data", "cr"))
_SUBNEGOTIATION_STATES = frozenset(("subnegotiation", "subnegotiation-escaped",
                                    "subnegotiation-discard", "subnegotiation-discard-escaped"))


def escape(data: bytes) -> bytes:
    """``data`` for the wire: every byte 255 doubled (line ends are the caller's)."""
    if b"\xff" in data:
        return data.replace(b"\xff", b"\xff\xff")
    return data


class TelnetHost(Protocol):
    """What a :class:`TelnetCodec` reports to (the connection it parses for)."""

    @property
    def peer(self) -> str:
        """``host:port`` of the client, for log lines."""

    def telnet_data(self, data: bytes) -> None:
        """Typed input, every line end made one LF (several lines at a time)."""

    def telnet_stalled(self) -> bool:
        """Whether parsing must stop for now (checked after each piece handed up)."""

    def telnet_send(self, data: bytes) -> None:
        """Negotiation bytes to write as they are (no IAC doubling)."""

    def enable_local(self, option: bytes) -> bool:
        """Whether we agree to do ``option`` when the client asks (``DO``)."""

    def enable_remote(self, option: bytes) -> bool:
        """Whether we let the client do ``option`` when it offers (``WILL``)."""


class Side:
    """One side's state of an option: ``"yes"``/``"no"``, and whether a change is asked."""

    __slots__ = ("state", "negotiating")

    def __init__(self) -> None:
        self.state = "no"
        self.negotiating = False

    def __str__(self) -> str:
        return self.state + ("*" * self.negotiating)


class OptionState:
    """An option's state on our side (``us``) and the client's (``him``)."""

    __slots__ = ("us", "him")

    def __init__(self) -> None:
        self.us = Side()
        self.him = Side()

    def __repr__(self) -> str:
        return f"<OptionState us={self.us} him={self.him}>"


_NO_OPTIONS: dict[bytes, OptionState] = {}
_NO_SUBNEGOTIATION: list[bytes] = []  # outside subnegotiations (never appended to)


class TelnetCodec:
    """One connection's telnet parser and option table.

    :meth:`feed` parses input and reports to ``host``; :meth:`offer` starts
    a negotiation of ours.  ``state`` is the parser's state (``"data"``,
    ``"cr"``, ``"escaped"``, ``"command"`` or a subnegotiation state).
    Nothing here raises on any input.
    """

    __slots__ = ("host", "state", "_command", "_sb", "_sb_room", "_sb_since", "sb_limit",
                 "sb_timeout", "options")

    log = Logger()

    def __init__(self, host: TelnetHost, *, sb_limit: int = 65536, sb_timeout: float = 10.0) -> None:
        self.host = host
        self.state = "data"
        self._command = b""
        self._sb = _NO_SUBNEGOTIATION  # the subnegotiation being read
        self._sb_room = 0  # bytes the current subnegotiation may still take
        self._sb_since = 0.0  # clock time of its IAC SB
        self.sb_limit = sb_limit
        self.sb_timeout = sb_timeout
        #: Negotiated options' states by option byte: a shared empty table until
        #: the first negotiation (most connections negotiate nothing).
        self.options = _NO_OPTIONS

    # -- options ----------------------------------------------------------------

    def option_state(self, option: bytes) -> OptionState:
        """``option``'s state, made (and the connection's own table with it) on first use."""
        state = self.options.get(option)
        if state is None:
            if self.options is _NO_OPTIONS:
                self.options = {}
            state = self.options[option] = OptionState()
        return state

    def offer(self, option: bytes, on: bool) -> None:
        """Send ``WILL`` (``on``) or ``WONT`` ``option`` unless it is so already or being negotiated.

        Nobody waits for the answer: a client that never answers leaves the
        option "being negotiated", and further offers do nothing.
        """
        state = self.option_state(option)
        if state.us.negotiating or state.him.negotiating or (state.us.state == "yes") == on:
            return
        state.us.negotiating = True
        self.host.telnet_send(IAC + (WILL if on else WONT) + option)

    def command_received(self, command: bytes, option: bytes) -> None:
        """``IAC command option`` (``WILL``/``WONT``/``DO``/``DONT``) from the client: answered."""
        state = self.option_state(option)
        send = self.host.telnet_send
        if command == WILL or command == WONT:
            him = state.him
            if command == WILL:
                if him.state == "no" and not him.negotiating:
                    if self.host.enable_remote(option):
                        him.state = "yes"
                        send(IAC + DO + option)
                    else:
                        send(IAC + DONT + option)
                elif him.state == "no":  # the answer to a DO of ours (we send none)
                    him.state, him.negotiating = "yes", False
            elif him.state == "yes":
                him.state = "no"
                if him.negotiating:
                    him.negotiating = False
                else:
                    send(IAC + DONT + option)
            else:
                him.negotiating = False
            return
        us = state.us
        if command == DO:
            if us.state == "no" and not us.negotiating:
                if self.host.enable_local(option):
                    us.state = "yes"
                    send(IAC + WILL + option)
                else:
                    send(IAC + WONT + option)
            elif us.state == "no":  # the client agrees to our WILL
                us.state, us.negotiating = "yes", False
            # "yes": already on (a DO while our WONT is pending changes nothing)
        elif us.state == "yes":  # DONT
            us.state = "no"
            if us.negotiating:  # the client acknowledges our WONT
                us.negotiating = False
            else:
                send(IAC + WONT + option)
        else:
            us.negotiating = False  # our WILL refused, or a DONT for what is off

    def subnegotiation_received(self, payload: bytes) -> None:
        """``IAC SB payload IAC SE``: no option of ours has subnegotiations, so it is ignored."""

    # -- input ------------------------------------------------------------------

    def plain_prefix(self, data: bytes, start: int, end: int) -> int:
        """How many bytes of ``data[start:end]`` are typed text before any telnet command."""
        if self.state not in _PLAIN_STATES:
            return 0
        k = data.find(b"\xff", start, end)
        return end - start if k < 0 else k - start

    def feed(self, data: bytes, now: float) -> tuple[int, int]:
        """Parse ``data`` (read at clock time ``now``) until its end or the host stalls.

        Returns how many bytes were consumed (the rest is the caller's to
        feed again later) and how many of those were telnet commands, not
        typed text.

        Typed text with no IAC byte (every command a client types) takes a
        fast path, measured by ``bench/load.py --compare`` (the ``fen`` CPU
        ratio to ``bench/floor_server.py``): line ends rewritten by three
        C-level replaces, the same result as the byte parser (a bare CR,
        CR LF and CR NUL each become one LF; a trailing CR leaves state
        ``"cr"`` so that an LF or NUL opening the next chunk is swallowed).
        """
        if not data:
            return 0, 0
        state = self.state
        if state in _SUBNEGOTIATION_STATES and now - self._sb_since > self.sb_timeout:
            self._abandon(f"{self.sb_timeout:g} seconds")
            state = self.state
        if state not in _PLAIN_STATES or b"\xff" in data:
            return self._parse(data, now)
        n = len(data)
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
            self.host.telnet_data(data)
        return n, 0

    def _parse(self, data: bytes, now: float) -> tuple[int, int]:
        """The byte parser (input with IAC bytes, or inside a subnegotiation)."""
        host = self.host
        app: list[bytes] = []
        i, n = 0, len(data)
        plain = 0  # bytes of typed text (and its line ends) among those parsed
        stalled = host.telnet_stalled()
        while i < n:
            if stalled:
                self._flush(app)
                return i, i - plain
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
                    self._sb = []
                    self._sb_room = self.sb_limit
                    self._sb_since = now
                elif b in _NEGOTIATION:
                    self.state = "command"
                    self._command = b
                # any other byte after IAC means nothing to a FICS session: ignore both
            elif state == "command":
                self.state = "data"
                stalled = self._flush(app)
                self._safely(self.command_received, self._command, b)
                stalled = stalled or host.telnet_stalled()
            elif state == "subnegotiation":
                sb = self._sb
                if b == IAC:
                    self.state = "subnegotiation-escaped"
                elif len(sb) < min(MAX_SUBNEGOTIATION, self._sb_room):
                    sb.append(b)
                else:  # runaway subnegotiation: drop it up to its IAC SE, keep the connection
                    self._sb_room -= len(sb)
                    self.state = "subnegotiation-discard"
                    self._sb = _NO_SUBNEGOTIATION
                    i -= 1  # counted in the discarded part
            elif state == "subnegotiation-escaped":
                if b == SE:
                    self.state = "data"
                    payload = b"".join(self._sb)
                    self._sb = _NO_SUBNEGOTIATION
                    stalled = self._flush(app)
                    if payload:  # IAC SB IAC SE names no option: nothing to handle
                        self._safely(self.subnegotiation_received, payload)
                        stalled = stalled or host.telnet_stalled()
                else:
                    self.state = "subnegotiation"
                    self._sb.append(b)
            elif state == "subnegotiation-discard":
                # Its bytes are option data, never typed input: skip to the next IAC,
                # unless the subnegotiation has taken all it may.
                start = i - 1
                k = data.find(b"\xff", start)
                end = k if k >= 0 else n
                if end - start >= self._sb_room:
                    i = start + max(self._sb_room, 0)
                    self._abandon(f"{self.sb_limit} bytes")
                    continue
                self._sb_room -= end - start
                if k < 0:
                    break
                i = k + 1
                self.state = "subnegotiation-discard-escaped"
            else:  # "subnegotiation-discard-escaped"
                # IAC SE ends it; IAC IAC (an escaped 255) or anything else does not.
                self.state = "data" if b == SE else "subnegotiation-discard"
        self._flush(app)
        return n, n - plain

    def _flush(self, app: list[bytes]) -> bool:
        """Hand the typed text parsed so far up; returns whether the host stalled since."""
        if not app:
            return False
        data = b"".join(app)
        del app[:]
        self.host.telnet_data(data)
        return self.host.telnet_stalled()

    def _abandon(self, bound: str) -> None:
        """An ``IAC SB`` never ended: drop it and read what follows as input again."""
        self.state = "data"
        self._sb = _NO_SUBNEGOTIATION
        self.log.info("telnet subnegotiation from {peer} not ended within {bound}: dropped, "
                      "reading input again", peer=self.host.peer, bound=bound)

    def _safely(self, handler: Callable[..., object], *args: object) -> None:
        try:
            handler(*args)
        except Exception:
            self.log.failure("telnet option handling failed; ignored", level=LogLevel.error)
