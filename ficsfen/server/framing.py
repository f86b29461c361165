"""Lines out of a byte stream whose line ends are already LF.

:class:`LineFramer` has ``twisted.protocols.basic.LineOnlyReceiver``'s
contract: each complete line is handed over without its ``\\n``; a line
longer than ``limit`` bytes is reported once (:meth:`LineSink.line_too_long`)
and skipped up to its end, however it is chunked, and the framer goes on
with the next line.  Unlike ``LineOnlyReceiver`` it stops between lines
when its sink says so (the client is not reading its output), keeping the
rest for :meth:`LineFramer.feed` with no new data.
"""

from __future__ import annotations

import codecs
from typing import Protocol

__all__ = ["LineFramer", "LineSink", "decode_line", "remove_controls"]


def _latin1_fallback(error: UnicodeError) -> tuple[str, int]:
    """Decode the one offending byte as Latin-1 and carry on with UTF-8."""
    if not isinstance(error, UnicodeDecodeError):  # registered for decoding only
        raise error
    return error.object[error.start:error.start + 1].decode("latin-1"), error.start + 1


codecs.register_error("ficsfen-latin1", _latin1_fallback)

# C0 controls (but tab), DEL and C1 controls are dropped from input lines:
# echoed back in an error message they could drive the reader's terminal.
_CONTROLS = dict.fromkeys([*range(0, 9), *range(10, 32), *range(127, 160)])


def remove_controls(text: str) -> str:
    """``text`` without C0 controls (but tab), DEL and C1 controls."""
    if text.isprintable():  # nothing to remove (the usual line)
        return text
    return text.translate(_CONTROLS)


def decode_line(raw: bytes) -> str:
    """Text of one input line: UTF-8, each undecodable byte as Latin-1, controls removed."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "ficsfen-latin1")
    if text.isprintable():  # no control character to remove (the usual line)
        return text
    return text.translate(_CONTROLS)


class LineSink(Protocol):
    """Where a :class:`LineFramer` hands its lines."""

    def line_received(self, line: bytes) -> None:
        """One line, without its ``\\n``, at most ``limit`` bytes."""

    def line_too_long(self) -> None:
        """A line longer than ``limit`` bytes was skipped."""

    def lines_stalled(self) -> bool:
        """Whether to stop handing lines for now (checked before each line of a split)."""


class LineFramer:
    """Splits input into lines of at most :attr:`limit` bytes.  Never raises on any bytes."""

    __slots__ = ("limit", "_buffer", "_discarding")

    def __init__(self, limit: int) -> None:
        #: Longest line handed over (a longer one is reported and skipped).
        self.limit = limit
        self._buffer = b""  # an unended line, or lines kept while the sink stalled
        self._discarding = False  # inside an overlong line, until its end

    @property
    def buffered(self) -> bytes:
        """Input received and not handed over yet (an unended line, lines kept back)."""
        return self._buffer

    def clear(self) -> None:
        """Forget what is buffered (the connection is going)."""
        self._buffer = b""
        self._discarding = False

    def feed(self, data: bytes, sink: LineSink) -> None:
        """Hand the complete lines of what was buffered plus ``data`` to ``sink``.

        ``data == b""`` goes on with lines kept back while the sink stalled.
        Exactly one line with nothing buffered (a command typed at the
        prompt) is handed over without the split: the fast path measured by
        ``bench/load.py --compare`` (the ``fen`` CPU ratio to
        ``bench/floor_server.py``).
        """
        if (data[-1:] == b"\n" and not self._buffer and not self._discarding
                and len(data) <= self.limit + 1 and data.find(b"\n") == len(data) - 1):
            sink.line_received(data[:-1])
            return
        self._split(data, sink)

    def _split(self, data: bytes, sink: LineSink) -> None:
        limit = self.limit
        if self._discarding:
            k = data.find(b"\n")
            if k < 0:
                return
            data = data[k + 1:]
            self._discarding = False
            sink.line_too_long()
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
        for k, raw in enumerate(lines):
            if sink.lines_stalled():  # the rest waits for a feed with no new data
                lines.append(tail)
                self._buffer = b"\n".join(lines[k:])
                return
            if len(raw) > limit:
                sink.line_too_long()
            else:
                sink.line_received(raw)
        if len(tail) > limit:
            self._buffer = b""
            self._discarding = True
        else:
            self._buffer = tail
