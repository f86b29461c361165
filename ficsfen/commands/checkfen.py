"""``checkfen [VARIANT] RECORD``: is a FEN record valid?  ``ficsfen check``'s answer.

The answer is what ``ficsfen check "RECORD"`` (``--variant VARIANT``) writes,
in the caller's language: the record in its strict form on a line of its
own, or ``Invalid FEN: ...`` naming the field, what is wrong with it and,
when the fix is obvious, the corrected text.  Same parsers, same catalogue
messages, same rendering: a record checked on the server and on the command
line gets the same words.

``RECORD`` is the rest of the line as typed (blanks inside it included, so a
doubled space is reported, as ``ficsfen check`` reports it in a quoted
record).  A first word that names a variant (``chess960``, ``crazyhouse``
and the names :func:`ficsfen.variants.variant_named` knows, FICS's ``fr``
and ``zh`` among them), followed by more, checks the record as that
variant's (``--variant``); Chess960 castling is written in X-FEN.  No
variant name is a valid placement, so the two readings never overlap on a
valid record.

Only :mod:`ficsfen.interfaces` is needed from the host: the caller's
language and ``send``.
"""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.fen import FenError, Position, parse
from ficsfen.i18n import Message, msg
from ficsfen.interfaces import ICaller, IGameDirectory
from ficsfen.variants import UnknownVariantError, Variant, VariantPosition, parse_variant, variant_named

__all__ = ["CheckFenCommand", "check_answer"]


def _variant_and_record(line: str) -> tuple[Variant | None, str]:
    """``(variant, record)`` from the command's argument line."""
    words = line.split(None, 1)
    if len(words) == 2:
        try:
            return variant_named(words[0]), words[1]
        except UnknownVariantError:
            pass
    return None, line


def check_answer(line: str) -> Message | str:
    """The answer to ``checkfen LINE``: the strict record (a plain string), or the
    ``Invalid FEN: {error}`` message, its field error lazy (rendered per reader).

    Never raises for any text: every way a record can be wrong is a
    :class:`~ficsfen.fen.FenError`.
    """
    variant, record = _variant_and_record(line)
    try:
        position: Position | VariantPosition = (
            parse(record) if variant is None else parse_variant(record, variant))
    except FenError as exc:
        return msg("Invalid FEN: {error}", error=exc.describe())
    return position.fen()


class CheckFenCommand(Command):
    """Check a FEN record: its strict form, or the field error with its fix."""

    name = "checkfen"
    spec = "S"
    usage = msg("checkfen [VARIANT] FEN")

    def __call__(self, caller: ICaller, args: str, directory: IGameDirectory) -> None:
        # The record as typed: the spec's parsing would only strip it, and a
        # blank inside a record is part of what is checked.
        if not args.strip():
            self.send_usage(caller)
            return
        self.run(caller, args.strip(), directory=directory)

    def run(self, caller: ICaller, line: str, *, directory: IGameDirectory) -> None:
        caller.send(check_answer(line))
