"""The timeseal receive path's decoder, :func:`ficsfen.server.timeseal.unseal`.

It undoes the swaps of one- and two-block lines with integer masks and
shifts and takes the line with its line end; these tests compare it with
the format read byte by byte, for every key offset and for lines of one,
two and more blocks.  The encoder here is written from the documented format.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.server import timeseal


def _encode(text: bytes, stamp: bytes, filler: bytes, offset: int) -> bytes:
    """``text`` with ``stamp`` as a timeseal v1 client sends it, line end included."""
    body = bytearray(text + b"\x18" + stamp + b"\x19")
    body += (filler * 12)[:(-len(body)) % 12]
    for base in range(0, len(body), 12):
        for a, b in ((0, 11), (2, 9), (4, 7)):
            body[base + a], body[base + b] = body[base + b], body[base + a]
    key = timeseal.KEY
    return bytes(((c | 0x80) ^ key[(n + offset) % len(key)]) - 32 for n, c in enumerate(body)) + bytes(
        [0x80 | offset]) + b"\n"


_text = st.binary(max_size=70).map(lambda b: bytes(c & 0x7F for c in b))


@pytest.mark.slow
@given(text=_text, stamp=st.integers(0, 10**13), offset=st.integers(0, 49),
       filler=st.binary(min_size=1, max_size=3))
def test_unseal_gives_the_text_and_the_stamp_digits(text, stamp, offset, filler):
    digits = str(stamp).encode()
    line = _encode(text, digits, bytes(0x20 + c % 0x5F for c in filler), offset)  # printable filler
    assert timeseal.unseal(line) == (text, digits)
    assert timeseal.stamp_of(digits) == stamp % 10**7


@pytest.mark.parametrize("offset", range(50))
@pytest.mark.parametrize("text", [b"", b"fen", b"e4", b"observe 12", b"x" * 15, b"tell alice hello there",
                                  b"y" * 40])
def test_unseal_every_offset_and_block_count(text, offset):
    """One, two and three-block lines, each key offset (two-block lines fold the offset byte out)."""
    assert timeseal.unseal(_encode(text, b"1234567", b"1", offset)) == (text, b"1234567")
    assert timeseal.decode(_encode(text, b"1234567", b"1", offset)[:-1]) == (text, 1234567)


@pytest.mark.slow
@given(line=st.binary(max_size=80), offset=st.integers(0, 49), where=st.integers(0, 79),
       byte=st.integers(0, 255))
def test_unseal_rejects_what_decode_rejects(line, offset, where, byte):
    """Garbage and single corrupted bytes: the same answer or the same error as decode."""
    sealed = _encode(line[:30].translate(bytes(c & 0x7F for c in range(256))), b"42", b"9", offset)
    corrupt = sealed[:where % (len(sealed) - 1)] + bytes([byte]) + sealed[where % (len(sealed) - 1) + 1:]
    for data in (line + b"\n", corrupt):
        try:
            expected = timeseal.decode(data[:-1])
        except timeseal.TimesealError as e:
            with pytest.raises(timeseal.TimesealError) as caught:
                timeseal.unseal(data)
            assert caught.value.render("en") == e.render("en")
        else:
            text, digits = timeseal.unseal(data)
            assert (text, timeseal.stamp_of(digits)) == expected


def test_move_timer_reads_the_stamp_digits_when_asked():
    timer = timeseal.MoveTimer()
    assert timer.stamp is None
    timer.digits = b"12345678"  # a client sending its whole millisecond clock
    assert timer.stamp == 2_345_678
    timer.replied(1_000)  # no ping pending: ignored
    assert timer.charge(2.0) == pytest.approx(1.0)  # no answer dates the board: lag allowance only
