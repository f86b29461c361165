"""The sizes and kinds of a WebSocket client's messages, read from its frame headers.

Twisted's WebSocket layer (:mod:`twisted.web.websocket`) gathers a whole
message before handing it up, however long.  :class:`FrameWatch` reads the
client's bytes first (RFC 6455 section 5.2: two header bytes, an extended
length, a mask, the payload) and says where a refused frame starts, before
its payload is buffered anywhere:

- a data message (its first frame and continuations) of more than ``limit``
  payload bytes;
- a binary message (this server speaks text).

:func:`close_frame` builds the server's Close frame that says why;
:func:`text_frame` a whole text message of the server's (the broadcast fast
path of :mod:`ficsfen.server.websocket`).
"""

from __future__ import annotations

import struct
from typing import Literal

__all__ = ["CLOSE_POLICY", "CLOSE_TOO_BIG", "CLOSE_UNSUPPORTED", "FrameWatch", "Refusal", "close_frame",
           "text_frame", "utf8_payload"]

#: Close codes (RFC 6455 section 7.4.1).
CLOSE_UNSUPPORTED = 1003  # a kind of data the endpoint does not accept (binary here)
CLOSE_POLICY = 1008  # a policy violation (the origin, a protocol error)
CLOSE_TOO_BIG = 1009  # a message too big to process

#: Why a frame is refused: a message over the limit, or binary data.
Refusal = Literal["too big", "binary"]

_BINARY = 0x2
_CONTINUATION = 0x0


class FrameWatch:
    """Follows a client's frames as bytes arrive, keeping nothing but the current header.

    ``limit``: the most payload bytes a data message may carry (its frames
    summed).  Control frames (opcodes 8 and up) are left to the WebSocket
    layer, which refuses those over 125 bytes.
    """

    __slots__ = ("limit", "_header", "_payload_left", "_message", "refused")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._header = b""  # the header being read (complete once its length is known)
        self._payload_left = 0  # payload bytes of the current frame still to come
        self._message = 0  # payload bytes of the data message so far
        #: Why a frame was refused (then every later byte is refused too), or None.
        self.refused: Refusal | None = None

    def scan(self, data: bytes) -> int:
        """How many bytes of ``data`` may go on: all of them, or up to the first refused
        frame's first byte (:attr:`refused` says why)."""
        if self.refused is not None:
            return 0
        i, end = 0, len(data)
        while i < end:
            left = self._payload_left
            if left:
                step = min(left, end - i)
                self._payload_left -= step
                i += step
                continue
            start = i - len(self._header)  # may be negative: the header began in earlier data
            need = self._header_size()
            take = min(need - len(self._header), end - i)
            self._header += data[i:i + take]
            i += take
            need = self._header_size()
            if len(self._header) < need:
                continue
            refusal = self._frame()
            if refusal is not None:
                self.refused = refusal
                return max(start, 0)
        return end

    def _header_size(self) -> int:
        """Bytes of the header being read, as far as its first two bytes say (2 until known)."""
        header = self._header
        if len(header) < 2:
            return 2
        code = header[1] & 0x7F
        size = 2 + (2 if code == 126 else 8 if code == 127 else 0)
        return size + (4 if header[1] & 0x80 else 0)

    def _frame(self) -> Refusal | None:
        """A complete header: its payload is counted, or the frame refused."""
        header, self._header = self._header, b""
        opcode, code = header[0] & 0x0F, header[1] & 0x7F
        if code == 126:
            length = struct.unpack("!H", header[2:4])[0]
        elif code == 127:
            length = struct.unpack("!Q", header[2:10])[0]
        else:
            length = code
        if opcode == _BINARY:
            return "binary"
        if opcode < 8:  # a data frame: text, or a continuation
            self._message = (self._message if opcode == _CONTINUATION else 0) + length
            if self._message > self.limit:
                return "too big"
        self._payload_left = length
        return None


def close_frame(code: int, reason: str) -> bytes:
    """The server's (unmasked) Close frame with ``code`` and ``reason``, cut to the
    123 bytes of UTF-8 a Close frame has room for (at a character boundary)."""
    text = reason.encode("utf-8")[:123].decode("utf-8", "ignore").encode("utf-8")
    payload = struct.pack("!H", code) + text
    return bytes([0x88, len(payload)]) + payload


def utf8_payload(data: bytes) -> bytes:
    """``data`` as a text message carries it: itself when it is valid UTF-8, else decoded
    with U+FFFD for each bad sequence and encoded again (what
    ``WebSocketTransport.sendTextMessage(data.decode("utf-8", "replace"))`` sends)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace").encode("utf-8")
    return data


def text_frame(payload: bytes) -> bytes:
    """The server's frame of one whole text message holding ``payload`` (UTF-8, not
    checked here: see :func:`utf8_payload`): FIN set, opcode 1, unmasked, the length in
    7, 16 or 64 bits (RFC 6455 section 5.2).

    The same bytes as wsproto's for that message on a connection with no extension:
    Twisted's :class:`twisted.web.websocket.WebSocketResource` accepts none
    (``tests/test_websocket.py`` checks both).
    """
    n = len(payload)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 127, n)
    return header + payload
