"""Finger notes: ``set 1 TEXT`` .. ``set 10 TEXT``, shown at the end of ``finger``.

A player has ten numbered lines of text (empty ones unset).  ``finger``
lists them as FICS does, each number right-aligned in two columns, from 1
to the last one set (a gap shows as an empty line).  A registered player's
notes are saved with their settings; a guest's last the session.
"""

from __future__ import annotations

from typing import Sequence

from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.server.interfaces import IServerCaller

__all__ = ["MAX_NOTES", "NOTE_LENGTH", "NoteTooLongError", "note_lines", "note_text", "set_note"]

#: How many notes a player has (FICS's ten).
MAX_NOTES = 10
#: The longest note kept, in characters.
NOTE_LENGTH = 200


class NoteTooLongError(LocalizedError, ValueError):
    """A note longer than :data:`NOTE_LENGTH`."""


def note_text(word: str) -> str:
    """``word`` as a note: control characters dropped, blanks at the ends trimmed.

    :raises NoteTooLongError: longer than :data:`NOTE_LENGTH` characters.
    """
    text = "".join(c for c in word if c.isprintable()).strip()
    if len(text) > NOTE_LENGTH:
        raise NoteTooLongError(msg("That note is too long: at most {limit} characters.",
                                   limit=NOTE_LENGTH))
    return text


def set_note(session: IServerCaller, number: int, text: str) -> Message:
    """Make note ``number`` (1 to :data:`MAX_NOTES`) of ``session`` read ``text`` ("" unsets it)."""
    kept = list(session.notes) + [""] * (MAX_NOTES - len(session.notes))
    kept[number - 1] = text
    session.notes = kept
    if not text:
        return msg("Note {number} unset.", number=number)
    return msg("Note {number} set: {text}", number=number, text=text)


def note_lines(notes: Sequence[str]) -> list[str]:
    """The notes as ``finger`` ends with them: `` 1: text`` lines up to the last one set,
    after a blank line; nothing when none is set."""
    last = max((i for i, text in enumerate(notes[:MAX_NOTES], 1) if text), default=0)
    if not last:
        return []
    return ["", *(f"{i:2d}: {notes[i - 1]}".rstrip() for i in range(1, last + 1))]
