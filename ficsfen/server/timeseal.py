"""Timeseal version 1: the line encoding ICS clients use to time-stamp what they type.

A timeseal client (pychess, eboard, the ``timeseal``/``openseal`` helpers
of other interfaces) sends every line encoded, with its own clock in it.
The server then knows how long the player *thought* over a move (client
time from the board's arrival to the move's sending), so network lag is
not charged to the player's clock.

The encoding of one line, as clients apply it:

1. append ``\\x18``, the client's clock in milliseconds modulo 10**7 as
   decimal digits, ``\\x19``, and filler up to a multiple of 12 bytes;
2. in each 12-byte block swap bytes 0 and 11, 2 and 9, 4 and 7;
3. for each byte at position ``n``: OR it with 0x80, XOR it with
   ``KEY[(n + offset) % 50]`` for a random ``offset``, subtract 32;
4. append ``0x80 | offset`` and the line end ``\\n``.

:func:`unseal` undoes it with C-level operations only (``bytes.translate``,
integer masks and shifts for the swaps, one XOR with a cached key stream):
no Python loop over the bytes of a line.

The first line a client sends is ``TIMESTAMP|USER|SYSTEM|`` (``TIMESEAL2|``
for version 2 clients), which tells the server to decode the rest.  The
server asks for a stamp by sending :data:`PING`; the client answers with an
encoded :data:`PING_REPLY` line.

:class:`MoveTimer` turns those stamps into the time charged for a move,
never more than the wall clock measured and never less than the wall
clock minus a configured lag allowance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ficsfen.i18n import LocalizedError, msg

if TYPE_CHECKING:  # pragma: no cover
    from ficsfen.server.session import Session

__all__ = [
    "HELLO_V1",
    "HELLO_V2",
    "KEY",
    "MAX_OVERHEAD",
    "MoveTimer",
    "PING",
    "PING_REPLY",
    "PING_V2",
    "STAMP_MODULUS",
    "SealedLine",
    "TimesealError",
    "client_elapsed_ms",
    "decode",
    "detect",
    "lag_charge",
    "move_charge",
    "stamp_of",
    "unseal",
]

#: The XOR key every timeseal implementation shares (50 bytes).
KEY = b"Timestamp (FICS) v1.0 - programmed by Henrik Gram."
#: Client stamps are milliseconds modulo this (they wrap every 2 h 46 min).
STAMP_MODULUS = 10_000_000
#: First line of a version 1 (``openseal``) client, and of a version 2 one.
HELLO_V1 = b"TIMESTAMP|"
HELLO_V2 = b"TIMESEAL2|"
#: What the server sends to ask for a stamp.  FICS writes "\n[G]\n" and
#: its output layer turns each "\n" into "\n\r": these are the bytes
#: clients look for (pychess matches "[G]\n\r", older helpers all of it).
PING = b"\n\r[G]\n\r"
#: Version 2 clients wait for "[G]" followed by a NUL byte instead.
PING_V2 = b"[G]\x00"
#: The decoded text of the client's answer to :data:`PING`.
PING_REPLY = b"\x029"
#: Most bytes the encoding adds to a line's text: the stamp's marks and up
#: to 13 digits (some clients send the full millisecond clock), up to 12
#: filler bytes and the offset byte.
MAX_OVERHEAD = 2 + 13 + 12 + 1

_KEY_LENGTH = len(KEY)
_MAX_DIGITS = 20

# Encoded bytes are (x ^ key) - 32 with x >= 0x80, so they lie in
# 0x60..0xDF; adding 32 back and dropping the high bit leaves x ^ key with
# x's own high bit gone.  Any other byte cannot come from an encoder: it
# maps to 0xFF, which no valid line decodes to.
_UNSHIFT = bytes((b + 32) & 0x7F if 0x60 <= b <= 0xDF else 0xFF for b in range(256))


def _swap_blocks(line: bytes, size: int) -> bytes:
    """The first ``size`` bytes of ``line`` with the swaps undone in every 12-byte block."""
    block = bytearray(line[:size])
    block[0::12], block[11::12] = block[11::12], block[0::12]
    block[2::12], block[9::12] = block[9::12], block[2::12]
    block[4::12], block[7::12] = block[7::12], block[4::12]
    return bytes(block)


#: What decoding a line needs, by the length of the line with its ``\n``,
#: then by its offset byte (None for a byte that is not an offset): the size
#: of the encoded text, the key stream in the text's own byte order as one
#: integer, and for lines of one or two blocks the masks and shifts that undo
#: the swaps (see :func:`unseal`).  Only valid lengths and offsets get an
#: entry, so the lookup also checks both.
_TABLES: dict[int, list[tuple[int, int, int, int, int, int] | None]] = {}
_MAX_TABLES = 4096  # 50 offsets x the line sizes in use
_table_count = 0
#: Byte positions of a block the swaps move (0, 2, 4, 7, 9, 11) and keep.
_SWAPPED = frozenset((0, 2, 4, 7, 9, 11))
_from_bytes = int.from_bytes


def _mask(size: int, positions: frozenset[int]) -> int:
    """An integer with 0xFF at each byte of a ``size``-byte text whose place in its block is in ``positions``."""
    return int.from_bytes(bytes(0xFF if n % 12 in positions else 0 for n in range(size)), "little")


def _tables(data: bytes) -> tuple[int, int, int, int, int, int]:
    """The :data:`_TABLES` entry for ``data``, made and kept; raises on a bad length or offset."""
    global _table_count
    size = len(data) - 2
    if size <= 0 or size % 12:
        raise TimesealError(msg("Bad timeseal line: its length is not a multiple of 12 plus 1."))
    offset = data[-2] - 0x80
    if not 0 <= offset < _KEY_LENGTH:
        raise TimesealError(msg("Bad timeseal line: its last byte is not a key offset."))
    key = _from_bytes(_swap_blocks(bytes(KEY[(n + offset) % _KEY_LENGTH] for n in range(size)), size), "little")
    swapped, kept = _mask(size, _SWAPPED), _mask(size, frozenset(range(12)) - _SWAPPED)
    if size == 12:
        shifts = 16, 0
    elif size == 24:
        shifts = 112, 80
        # The left shift brings the offset byte, as translated, to byte 11,
        # which the right shift fills too: the key takes it out again.
        key ^= _UNSHIFT[data[-2]] << 88
    else:
        shifts = 0, 0
    tables = size, key, swapped, kept, *shifts
    if _table_count < _MAX_TABLES:
        _TABLES.setdefault(len(data), [None] * 256)[data[-2]] = tables
        _table_count += 1
    return tables


class TimesealError(LocalizedError, ValueError):
    """A line that is not valid timeseal; :attr:`message` says what is wrong."""


class SealedLine(NamedTuple):
    """One decoded line: its ``text`` and the client's ``stamp`` (ms modulo 10**7)."""

    text: bytes
    stamp: int


def unseal(data: bytes) -> tuple[bytes, bytes]:
    """The typed text and the stamp's digits of one encoded line that ends in ``\\n``.

    The receive path's own decoder: the digits are read as a number only
    when a move needs them (:func:`stamp_of`).

    The swaps of a 12-byte block exchange byte ``i`` with byte ``11 - i``
    for ``i`` in 0, 2, 4: the bytes a reversal of the block would move.
    Reading the line as a big-endian integer reverses it, so the text of a
    one- or two-block line is the reversed reading where the swaps act, the
    plain reading elsewhere, each masked, then XORed with the key stream: a
    handful of C-level integer operations, no pass over the bytes in Python.

    :raises TimesealError: wrong length, a byte no encoder writes, a bad
        offset byte, or no ``\\x18DIGITS\\x19`` stamp at the end.
    """
    try:
        entry = _TABLES[len(data)][data[-2]]
    except (KeyError, IndexError):
        entry = None
    size, key, swapped, kept, right, left = entry if entry is not None else _tables(data)
    # Undo the shift (a translation: the offset byte and the line end never
    # map to 0xFF nor reach the text), then the swaps and the XOR.
    plain = data.translate(_UNSHIFT)
    if left:  # two blocks: the reversed reading's blocks change places too
        turned = _from_bytes(plain)
        mixed = (turned >> right ^ turned << left) & swapped | _from_bytes(plain, "little") & kept
    elif right:  # one block
        mixed = _from_bytes(plain) >> right & swapped | _from_bytes(plain, "little") & kept
    else:  # three blocks or more
        mixed = _from_bytes(_swap_blocks(plain, size), "little")
    text = (mixed ^ key).to_bytes(size, "little")
    # A byte no encoder writes translated to 0xFF, which no key byte brings below 0x80.
    if not text.isascii():
        raise TimesealError(msg("Bad timeseal line: it holds bytes no timeseal client sends."))
    text, start, tail = text.rpartition(b"\x18")
    digits, end, filler = tail.partition(b"\x19")
    if not start or not end or len(digits) > _MAX_DIGITS or not digits.isdigit() or len(filler) > 12:
        raise TimesealError(msg("Bad timeseal line: it carries no time stamp."))
    return text, digits


def stamp_of(digits: bytes) -> int:
    """The stamp (ms modulo 10**7) that :func:`unseal`'s ``digits`` give."""
    return int(digits) % STAMP_MODULUS


def decode(line: bytes) -> SealedLine:
    """The text and stamp of one encoded ``line`` (without its ``\\n``).

    :raises TimesealError: as :func:`unseal`.
    """
    text, digits = unseal(line + b"\n")
    return SealedLine(text, stamp_of(digits))


def detect(line: bytes) -> tuple[SealedLine, bytes] | None:
    """``(decoded hello, ping bytes)`` if ``line`` is a timeseal client's first line, else ``None``.

    Only the first line of a connection is looked at; a line that cannot be
    decoded or does not start like a hello is plain text.
    """
    if len(line) < 13 or line[-1] < 0x80:
        return None
    try:
        hello = decode(line)
    except TimesealError:
        return None
    if hello.text.startswith(HELLO_V1):
        return hello, PING
    if hello.text.startswith(HELLO_V2):
        return hello, PING_V2
    return None


def client_elapsed_ms(received: int, moved: int, wall_ms: float) -> int:
    """Milliseconds between two client stamps, the wrap-around resolved by the wall clock.

    The stamps are known modulo 10**7 only; of all the differences they
    allow, this is the one nearest the ``wall_ms`` the server measured (it
    may be negative: a move sent before the board arrived).
    """
    difference = (moved - received) % STAMP_MODULUS
    turns = round((wall_ms - difference) / STAMP_MODULUS)
    return difference + turns * STAMP_MODULUS


def lag_charge(client: float, wall: float, max_compensation: float) -> float:
    """Seconds to charge for a move: the client's time, within what the wall clock allows.

    ``charged = min(wall, max(client, wall - max_compensation, 0))``: never
    more than the server measured (a client can never gain time), and at
    most ``max_compensation`` seconds of lag forgiven per move.
    """
    return min(wall, max(client, wall - max_compensation, 0.0))


def move_charge(received: int | None, moved: int | None, wall: float,
                max_compensation: float) -> tuple[float, int | None]:
    """Seconds to charge for a move and the lag measured (ms, None when unknown).

    ``received``: the stamp of the board's arrival (the first answer to the
    last ping), ``moved``: the move line's stamp, ``wall``: the seconds the
    server measured.  Without both stamps the client is taken to have moved
    at once, so the lag allowance alone is forgiven.
    """
    if received is None or moved is None:
        return lag_charge(0.0, wall, max_compensation), None
    client = client_elapsed_ms(received, moved, wall * 1000.0) / 1000.0
    return lag_charge(client, wall, max_compensation), max(0, round((wall - client) * 1000.0))


class MoveTimer:
    """What one timeseal connection's stamps say about the player's moves.

    The telnet side sets :attr:`digits` to the stamp digits of each line before
    running it and reports answers to pings (:meth:`replied`); the server
    calls :meth:`ping` after sending the board to the player to move and
    :meth:`charge` when that player's move arrives.  As FICS does, the
    thinking time is the move line's stamp minus the stamp of the first
    answer after the last ping (the board's arrival).  An answer when no
    ping is pending is ignored; an early one (to an older ping) can only
    date the board earlier, which charges more, never less.
    """

    def __init__(self, *, ping: bytes = PING, max_compensation: float = 1.0) -> None:
        self.ping_bytes = ping
        self.max_compensation = max_compensation
        #: The stamp's digits on the line being run, as sent: read as a
        #: number (:attr:`stamp`) only when a move or a type-ahead needs it.
        self.digits: bytes | None = None
        self._session: Session | None = None
        self._pending = 0  # pings sent and not answered yet
        self._received: int | None = None  # stamp of the first answer since the last ping
        #: When the last ping was sent, if :meth:`ping` was told (a cluster node times
        #: the moves of a game hosted elsewhere from it: :mod:`ficsfen.server.cluster.seal`).
        self.pinged_at: float | None = None

    @property
    def stamp(self) -> int | None:
        """The stamp of the line being run (ms modulo 10**7), if it had one."""
        digits = self.digits
        return None if digits is None else stamp_of(digits)

    def attach(self, session: Session) -> None:
        """Send pings to ``session`` and report its lag there (``session.lag_ms``)."""
        self._session = session

    @property
    def received(self) -> int | None:
        """The stamp of the board's arrival: the first answer since the last ping, if any."""
        return self._received

    def ping(self, at: float | None = None) -> None:
        """A board reached the player to move: ask for the stamp of its arrival (sent
        ``at`` that time, in seconds, when the caller gives it)."""
        if self._session is None:
            return
        self._pending += 1
        self._received = None
        self.pinged_at = at
        self._session.emit(self.ping_bytes)

    def replied(self, stamp: int) -> None:
        """The client answered a ping: the first answer since the last ping dates the board."""
        if self._pending:
            self._pending -= 1
            if self._received is None:
                self._received = stamp

    def charge(self, wall: float) -> float:
        """Seconds to charge for the move on the current line, whose clock ran ``wall`` seconds.

        Without an answer to the last ping (or without a stamp) the client
        is taken to have moved at once, so the lag allowance alone is
        forgiven.  The measured lag (wall minus client time) goes to the
        session's ``lag_ms``.
        """
        received, self._received = self._received, None
        charged, lag = move_charge(received, self.stamp, wall, self.max_compensation)
        if lag is not None and self._session is not None:
            self._session.lag_ms = lag
        return charged
