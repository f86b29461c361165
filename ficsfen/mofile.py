"""The message ids of a compiled gettext catalog (a ``.mo`` file).

:mod:`gettext` translates a message it is given but offers no public way to
list the messages a catalog holds, which :mod:`ficsfen.i18n` needs to read
every text at start-up and :mod:`ficsfen.argparse_i18n` needs to recognise
argparse's messages.  The ``.mo`` layout is small and documented (GNU
gettext manual, "The Format of GNU MO Files"), so its index is read here:
a magic number giving the byte order, a revision, the number of strings and
the offset of the table of original strings, whose entries are (length,
offset) pairs.  Translations are still looked up through :mod:`gettext`.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MoFormatError", "MsgId", "msgids", "read_msgids"]

_LITTLE, _BIG = 0x950412DE, 0xDE120495
_CHARSET = re.compile(rb"charset=([-\w.:]+)", re.IGNORECASE)
_CONTEXT = "\x04"  # separates a message's context from its id in a .mo
_PLURAL = b"\x00"  # separates a message's singular and plural ids


class MoFormatError(ValueError):
    """The bytes are not a GNU ``.mo`` catalog (bad magic number, truncated table)."""


@dataclass(frozen=True)
class MsgId:
    """One message of a catalog: its id, plural id (``None`` if it has none), context."""

    singular: str
    plural: str | None = None
    context: str | None = None


def msgids(data: bytes) -> tuple[MsgId, ...]:
    """The messages of the ``.mo`` catalog ``data``, in the file's order.

    The catalog's header (the empty msgid) is left out.  Ids are decoded
    with the charset the header names (UTF-8 when it names none).

    :raises MoFormatError: ``data`` is not a ``.mo`` catalog.
    """
    if len(data) < 20:
        raise MoFormatError("too short for a .mo header")
    (magic,) = struct.unpack("<I", data[:4])
    if magic == _LITTLE:
        order = "<"
    elif magic == _BIG:
        order = ">"
    else:
        raise MoFormatError(f"bad magic number {magic:#010x}")
    _revision, count, originals, translations = struct.unpack(order + "4I", data[4:20])
    if originals + 8 * count > len(data) or translations + 8 * count > len(data):
        raise MoFormatError("string tables run past the end of the file")
    raw: list[bytes] = []
    charset = "utf-8"
    for index in range(count):
        length, offset = struct.unpack_from(order + "2I", data, originals + 8 * index)
        if offset + length > len(data):
            raise MoFormatError(f"message {index} runs past the end of the file")
        original = data[offset:offset + length]
        if not original:  # the header: its msgstr names the charset
            length, offset = struct.unpack_from(order + "2I", data, translations + 8 * index)
            found = _CHARSET.search(data[offset:offset + length])
            if found:
                charset = found.group(1).decode("ascii")
            continue
        raw.append(original)
    found_ids: list[MsgId] = []
    for original in raw:
        singular, _, plural = original.partition(_PLURAL)
        text = singular.decode(charset)
        context, separator, msgid = text.rpartition(_CONTEXT)
        found_ids.append(MsgId(msgid, plural.decode(charset) if _PLURAL in original else None,
                               context if separator else None))
    return tuple(found_ids)


def read_msgids(path: Path) -> tuple[MsgId, ...]:
    """:func:`msgids` of the file at ``path``.

    :raises OSError: the file cannot be read.
    :raises MoFormatError: it is not a ``.mo`` catalog.
    """
    return msgids(path.read_bytes())
