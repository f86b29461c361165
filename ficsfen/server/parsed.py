"""Texts ICS clients parse: in FICS's English for an interface, else in the player's language.

A message an interface (xboard, eboard, pychess, a bot) reads to follow the
server (a ``who`` listing, a movelist, a game's ``Creating:`` line, a tell)
is marked with :func:`parsed`.  A session renders such a message in its
``parsed_lang`` (:attr:`ficsfen.server.session.Session.parsed_lang`): English,
word for word FICS's, while a program reads the session (timeseal, ``set
interface``, any ``iset``, block mode, ``%b`` at login); the player's own
language for a person.  Every other message follows the player's language.
``docs/design.md`` (section "Languages") lists which texts are which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ficsfen.i18n import Message, render

__all__ = ["ParsedMessage", "Reader", "heading", "language_of", "parsed", "render_for"]


@dataclass(frozen=True)
class ParsedMessage(Message):
    """A :class:`Message` that ICS clients parse (see the module's docstring)."""


def parsed(message: Message) -> ParsedMessage:
    """``message`` marked as a text ICS clients parse (its catalogue entry unchanged:
    write ``parsed(msg("..."))`` so the catalogue tools still find the ``msg``)."""
    return ParsedMessage(message.msgid, message.params, message.plural, message.count)


class Reader(Protocol):
    """Whoever a message is rendered for: their language, and that of parsed texts."""

    @property
    def lang(self) -> str: ...

    @property
    def parsed_lang(self) -> str: ...


def language_of(reader: Reader, message: Message | str) -> str:
    """The language ``reader`` reads ``message`` in: ``parsed_lang`` for a
    :class:`ParsedMessage`, else ``lang``."""
    return reader.parsed_lang if isinstance(message, ParsedMessage) else reader.lang


def render_for(reader: Reader, message: Message | str) -> str:
    """``message`` rendered for ``reader`` (:func:`language_of`); a ``str`` passes through."""
    return render(message, language_of(reader, message))


def heading(columns: tuple[tuple[Message | str, int], ...], lang: str) -> str:
    """A table's heading in ``lang``: each label left-aligned in its column's width, the
    last one as it is, so labels of any language start above their columns.

    :raises ValueError: a label (but the last) does not fit its column with a blank after it.
    """
    cells = []
    for i, (label, width) in enumerate(columns):
        text = render(label, lang)
        if i < len(columns) - 1:
            if len(text) >= width:
                raise ValueError(f"{text!r} does not fit a column of {width}")
            text = text.ljust(width)
        cells.append(text)
    return "".join(cells)
