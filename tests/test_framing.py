"""Line framing alone (:mod:`ficsfen.server.framing`): LineOnlyReceiver's contract."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.server.framing import LineFramer


class Sink:
    """A :class:`ficsfen.server.framing.LineSink` that keeps what it is handed."""

    def __init__(self, *, stall_after: int | None = None) -> None:
        self.events: list[bytes | None] = []  # a line, or None for "too long"
        self.stall_after = stall_after

    def line_received(self, line: bytes) -> None:
        self.events.append(line)

    def line_too_long(self) -> None:
        self.events.append(None)

    def lines_stalled(self) -> bool:
        return self.stall_after is not None and len(self.events) >= self.stall_after


def _frame(chunks: list[bytes], limit: int) -> tuple[list[bytes | None], bytes]:
    framer, sink = LineFramer(limit), Sink()
    for chunk in chunks:
        framer.feed(chunk, sink)
    return sink.events, framer.buffered


def _reference(stream: bytes, limit: int) -> tuple[list[bytes | None], bytes]:
    """What the framing should give: every ended line, None for each one over the limit;
    the unended rest (empty if it is already over the limit)."""
    *lines, tail = stream.split(b"\n")
    return [line if len(line) <= limit else None for line in lines], tail if len(tail) <= limit else b""


def test_lines_come_without_their_line_end():
    assert _frame([b"fen\nwho\n"], 10) == ([b"fen", b"who"], b"")
    assert _frame([b"fe", b"n\nwh", b"o"], 10) == ([b"fen"], b"who")
    assert _frame([b"\n\n"], 10) == ([b"", b""], b"")
    assert _frame([b"a\rb\n"], 10) == ([b"a\rb"], b"")  # CR is the codec's business, not ours


def test_an_overlong_line_is_reported_once_and_the_next_line_goes_on():
    assert _frame([b"x" * 11 + b"\nfen\n"], 10) == ([None, b"fen"], b"")
    assert _frame([b"x" * 6, b"x" * 6, b"x" * 6, b"\nfen\n"], 10) == ([None, b"fen"], b"")
    assert _frame([b"x" * 10 + b"\n"], 10) == ([b"x" * 10], b"")  # at the limit: a line
    events, buffered = _frame([b"x" * 20], 10)
    assert events == [] and buffered == b""  # not reported before its end: it may be long yet


def test_lines_wait_while_the_sink_stalls_and_go_on_with_an_empty_feed():
    framer, sink = LineFramer(10), Sink(stall_after=1)
    framer.feed(b"one\ntwo\nthree\nfo", sink)
    assert sink.events == [b"one"] and framer.buffered == b"two\nthree\nfo"
    sink.stall_after = None
    framer.feed(b"", sink)
    assert sink.events == [b"one", b"two", b"three"] and framer.buffered == b"fo"
    framer.clear()
    assert framer.buffered == b""


def test_one_whole_line_and_a_line_split_across_reads_give_the_same():
    assert _frame([b"fen\n"], 10) == _frame([b"f", b"en\n"], 10) == ([b"fen"], b"")
    assert _frame([b"x" * 10 + b"\n"], 10) == _frame([b"x" * 5, b"x" * 5 + b"\n"], 10)
    assert _frame([b"x" * 11 + b"\n"], 10) == _frame([b"x" * 11, b"\n"], 10) == ([None], b"")


_LINES = st.lists(st.one_of(st.binary(max_size=14).map(lambda b: b.replace(b"\n", b"")),
                            st.sampled_from([b"fen", b"", b"x" * 16, b"y" * 40])), max_size=20)


@pytest.mark.slow
@given(_LINES, st.booleans(), st.data())
@settings(max_examples=300, deadline=None)
def test_lines_are_the_same_however_the_input_is_chunked(lines, ended, data):
    stream = b"\n".join(lines) + (b"\n" if ended else b"")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    events, buffered = _frame(chunks, 15)
    expected_events, expected_tail = _reference(stream, 15)
    assert events == expected_events
    assert buffered == expected_tail
