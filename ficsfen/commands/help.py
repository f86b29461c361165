"""``help [TOPIC]`` and ``next``: help pages in the caller's language, paged.

Resolution and the English fallback are the help catalog's
(:mod:`ficsfen.helpcatalog`); this module only presents pages.  A page
longer than ``page_lines`` is cut into pages and the rest waits, per
caller, for ``next``.  Pending pages are held weakly by caller object, so
a caller that goes away takes its pages with it.  What waits is the page's
text (the catalog's own string, shared by every caller) and the number of
the next line, not a list of the remaining lines: a client that asks for a
long page and never reads kept ~100 strings of its own before.
"""

from __future__ import annotations

import weakref
from typing import Callable, Iterable, Sequence

from ficsfen.commands.base import Command
from ficsfen.helpcatalog import HelpCatalog, HelpError, HelpPage, columns, default_catalog
from ficsfen.i18n import msg
from ficsfen.interfaces import ICaller, ICommand, IGameDirectory

__all__ = ["PARSED_TOPICS", "HelpCommand", "NextCommand", "Pager"]

#: Pages that ICS clients read at login and parse (pychess: ``channel_list``):
#: a caller whose ``parsed_lang`` is English (an interface) gets the English
#: page whatever their language.
PARSED_TOPICS = frozenset({"channel_list"})


class Pager:
    """Remaining lines per caller, shown ``page_lines`` at a time."""

    def __init__(self, page_lines: int = 0) -> None:
        self.page_lines = page_lines
        # caller -> (the page's whole text, index of its next line to show)
        self._pending: weakref.WeakKeyDictionary[ICaller, tuple[str, int]] = weakref.WeakKeyDictionary()

    def show(self, caller: ICaller, lines: Sequence[str]) -> None:
        """Send the first page of ``lines``, keep the rest for :meth:`next`."""
        self.show_text(caller, "\n".join(lines))

    def show_text(self, caller: ICaller, text: str, start: int = 0) -> None:
        """Send ``text`` (lines joined by ``\\n``, trailing line ends ignored) from
        its line ``start``, a page at most; keep ``text`` itself (the catalog's
        string, shared), not its lines, for :meth:`next`."""
        size = self.page_lines
        lines = text.rstrip("\n").split("\n")
        if size <= 0 or len(lines) - start <= size:
            self._forget(caller)
            caller.send("\n".join(lines[start:]))
            return
        try:
            self._pending[caller] = (text, start + size)
        except TypeError:  # a caller object that cannot be weakly referenced
            caller.send("\n".join(lines[start:]))
            return
        caller.send("\n".join(lines[start:start + size]))
        caller.send(msg("Type [next] to see the next page."))

    def next(self, caller: ICaller) -> None:
        """Send the next page, or say there is none."""
        try:
            pending = self._pending.pop(caller, None)
        except TypeError:
            pending = None
        if pending is None:
            caller.send(msg("There is no more to show."))
            return
        self.show_text(caller, *pending)

    def _forget(self, caller: ICaller) -> None:
        try:
            self._pending.pop(caller, None)
        except TypeError:
            pass


class HelpCommand(Command):
    """Show a help page, the topic index, or the list of commands.

    ``catalog`` defaults to the pages shipped in the package;
    ``command_names`` (a callable returning names), when given, answers
    ``help commands``; ``pager`` is shared with the :class:`NextCommand`.
    ``exact_command`` (a callable from a typed word to the command that word
    names exactly, alias included, or ``None``), when given, lets ``help
    bye`` or ``help re`` show the page of the command the alias runs when no
    topic answers the word.
    """

    name = "help"
    topic = "help"
    spec = "o"
    usage = msg("help [topic]")

    def __init__(self, catalog: HelpCatalog | None = None, *, pager: Pager | None = None,
                 command_names: Callable[[], Iterable[str]] | None = None,
                 exact_command: Callable[[str], object] | None = None) -> None:
        self.catalog = catalog if catalog is not None else default_catalog()
        self.pager = pager if pager is not None else Pager()
        self.command_names = command_names
        self.exact_command = exact_command

    def run(self, caller: ICaller, topic: str | None, *, directory: IGameDirectory) -> None:
        lang = caller.lang
        if topic is None:
            self.pager.show_text(caller, self.catalog.index(lang))
            return
        if self.command_names is not None and topic.lower() == "commands":
            names = sorted(self.command_names())
            lines = [msg("Commands available on this server:").render(lang), ""]
            lines += columns(names)
            self.pager.show(caller, lines)
            return
        try:
            page = self.catalog.lookup(topic, lang)
            if page.topic in PARSED_TOPICS:  # an interface reads FICS's English page
                parsed = getattr(caller, "parsed_lang", lang)
                if parsed != lang:
                    page = self.catalog.lookup(page.topic, parsed)
        except HelpError as e:
            alias = self._alias_page(topic, lang)
            if alias is None:
                caller.send(e.render(lang))
                return
            page = alias
        text = page.text
        if page.notice is not None:
            text = page.notice.render(lang) + "\n" + text
        self.pager.show_text(caller, text)


    def _alias_page(self, word: str, lang: str) -> HelpPage | None:
        """The page of the command ``word`` names exactly (an alias), if any."""
        if self.exact_command is None:
            return None
        command = ICommand(self.exact_command(word.strip().lower()), None)
        if command is None or not command.topic:
            return None  # nothing, or a host's own command without a help topic
        try:
            return self.catalog.lookup(command.topic, lang)
        except HelpError:
            return None


class NextCommand(Command):
    """Show the next page of the last long help page."""

    name = "next"
    topic = "next"
    spec = ""
    usage = msg("next")

    def __init__(self, pager: Pager) -> None:
        self.pager = pager

    def run(self, caller: ICaller, *, directory: IGameDirectory) -> None:
        self.pager.next(caller)
