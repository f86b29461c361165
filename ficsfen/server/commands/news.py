"""News: ``news [N|all]`` for everyone; ``cnewsi``, ``cnewsf``, ``cnewse`` for operators.

Items live in the store (``news`` table), read off the reactor thread like
every store read.  The index keeps FICS's lines, which clients parse
(pychess reads ``news`` at every login, then ``news N`` for the newest
items)::

    Index of the last few news items:
       1 (Tue, Jun 23) Welcome to our server

and an item is that line, a blank line, its text, a blank line and
``Posted by alice.``.  A server without news, or without a data file,
answers ``There is no news.`` at once.  FICS's way of writing an item is
kept: ``cnewsi TITLE`` makes it (its number is answered), ``cnewsf N LINE``
adds a line to its text (an empty ``cnewsf N`` a blank one), ``cnewse N``
deletes it.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from twisted.internet.defer import Deferred

from ficsfen.commands.base import Command
from ficsfen.i18n import msg
from ficsfen.server.commands.operator_cmds import OperatorCommand
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.operators import Operators
from ficsfen.server.store.records import NewsItem

__all__ = ["CnewseCommand", "CnewsfCommand", "CnewsiCommand", "MAX_TITLE", "NewsCommand",
           "commands", "index_line"]

#: Items ``news`` lists (FICS: the last ten); ``news all`` lists every one.
LAST_FEW = 10
#: Longest title, in characters (FICS's).
MAX_TITLE = 45

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def index_line(item: NewsItem) -> str:
    """``   7 (Tue, Jun 23) Title``: FICS's index line (English names: clients parse it)."""
    stamp = time.localtime(item.posted)
    return (f"{item.number:>4} ({_DAYS[stamp.tm_wday]}, {_MONTHS[stamp.tm_mon - 1]} "
            f"{stamp.tm_mday}) {item.title}")


class NewsCommand(Command):
    """``news [N|all]``: the last few items, item N, or every item."""

    name = "news"
    spec = "o"
    usage = msg("news [NUMBER|all]")

    def __init__(self, operators: Operators) -> None:
        self.operators = operators

    def run(self, caller: IServerCaller, word: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store, read = self.operators.store, self.operators.read
        if word is not None and word.lower() != "all":
            if not (word.isascii() and word.isdigit()):
                self.send_usage(caller)
                return None
            number = int(word)
            if store is None:
                caller.send(msg("News item {number} not found.", number=number))
                return None
            return read(store.news_item, number).addCallback(self._item, caller, number)
        if store is None:
            caller.send(msg("There is no news."))
            return None
        every = word is not None
        return read(store.news, None if every else LAST_FEW).addCallback(
            self._index, caller, every)

    @staticmethod
    def _index(items: list[NewsItem], caller: IServerCaller, every: bool) -> None:
        # FICS's lines, which clients parse: in English.
        if not items:
            caller.send(msg("There is no news."))
            return
        head = "Index of all news items:" if every else "Index of the last few news items:"
        caller.send("\n".join([head, *map(index_line, items)]))

    @staticmethod
    def _item(item: NewsItem | None, caller: IServerCaller, number: int) -> None:
        if item is None:
            caller.send(msg("News item {number} not found.", number=number))
            return
        caller.send("\n".join([index_line(item), "", item.text, "",
                               f"Posted by {item.author}."]))


class _NewsWriter(OperatorCommand):
    """An operator's news command: it needs a data file."""

    def _store(self, caller: IServerCaller) -> Any:
        store = self.operators.store
        if store is None:
            caller.send(msg("This server keeps no data file: news cannot be written."))
        return store


class CnewsiCommand(_NewsWriter):
    """``cnewsi TITLE``: a new item, with no text yet."""

    name = "cnewsi"
    spec = "S"
    usage = msg("cnewsi TITLE")

    def __init__(self, operators: Operators, *, now: Callable[[], float] = time.time) -> None:
        super().__init__(operators)
        self.now = now

    def run(self, caller: IServerCaller, title: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if len(title) > MAX_TITLE:
            caller.send(msg("The news title exceeds the {most}-character maximum length; "
                            "not posted.", most=MAX_TITLE))
            return None
        store = self._store(caller)
        if store is None:
            return None

        def created(number: int) -> None:
            caller.send(msg("Created news item {number}.", number=number))
            self.operators.record(caller.handle, "news item {number} created: {title}",
                                  number=number, title=title)

        return store.add_news(caller.handle, title, posted=self.now()).addCallback(created)


class CnewsfCommand(_NewsWriter):
    """``cnewsf N [LINE]``: add a line (or a blank one) to item N's text."""

    name = "cnewsf"
    topic = "cnewsi"
    spec = "is"
    usage = msg("cnewsf NUMBER [TEXT]")

    def run(self, caller: IServerCaller, number: int, line: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store = self._store(caller)
        if store is None:
            return None

        def added(found: bool) -> None:
            if not found:
                caller.send(msg("News item {number} not found.", number=number))
                return
            caller.send(msg("News item {number} updated.", number=number))
            self.operators.record(caller.handle, "news item {number}: line added",
                                  number=number)

        return store.add_news_line(number, line or "").addCallback(added)


class CnewseCommand(_NewsWriter):
    """``cnewse N``: delete item N."""

    name = "cnewse"
    topic = "cnewsi"
    spec = "i"
    usage = msg("cnewse NUMBER")

    def run(self, caller: IServerCaller, number: int, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store = self._store(caller)
        if store is None:
            return None

        def removed(found: bool) -> None:
            if not found:
                caller.send(msg("News item {number} not found.", number=number))
                return
            caller.send(msg("Deleted news item {number}.", number=number))
            self.operators.record(caller.handle, "news item {number} deleted", number=number)

        return store.remove_news(number).addCallback(removed)


def commands(operators: Operators, *, now: Callable[[], float] = time.time) -> list[Command]:
    """``news`` and the operators' news commands; ``now`` dates new items (Unix time)."""
    return [NewsCommand(operators), CnewsiCommand(operators, now=now), CnewsfCommand(operators),
            CnewseCommand(operators)]
