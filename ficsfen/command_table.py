"""The command table: names, aliases and unique-prefix resolution, FICS-style.

``he fen`` runs ``help fen`` because ``he`` starts only one command name;
an exact name or alias always wins over a prefix (``re`` is ``refresh``
even though ``revert`` also starts with it).  Resolution failures are
values (:class:`UnknownCommand`, :class:`AmbiguousCommand`) carrying the
localized message, so the table itself never writes anything.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterable, Iterator

from ficsfen.i18n import DEFAULT_LANGUAGE, Message, msg
from ficsfen.interfaces import ICommand

__all__ = ["AmbiguousCommand", "CommandError", "CommandTable", "UnknownCommand"]


class CommandError(LookupError):
    """A command word that does not resolve to one command."""

    message: Message

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return self.message.render(lang)

    def __str__(self) -> str:
        return self.render()


class UnknownCommand(CommandError):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word
        self.message = msg("{word}: Command not found.", word=word)


class AmbiguousCommand(CommandError):
    def __init__(self, word: str, matches: Iterable[str]) -> None:
        super().__init__(word)
        self.word = word
        self.matches = tuple(sorted(matches))
        self.message = msg("Ambiguous command \"{word}\". Matches: {matches}",
                           word=word, matches=" ".join(self.matches))


class CommandTable:
    """Commands by name, with aliases; any object providing ICommand fits."""

    def __init__(self, commands: Iterable[object] = ()) -> None:
        self._by_name: dict[str, object] = {}
        self._aliases: dict[str, object] = {}
        self._exact: dict[str, object] = {}  # names and aliases, as typed in lower case
        self._sorted: list[str] = []
        for command in commands:
            self.register(command)

    def register(self, command: object) -> None:
        """Add ``command``; a later registration of the same name replaces it."""
        if not ICommand.providedBy(command):
            raise TypeError(f"{command!r} does not provide ICommand")
        name = command.name.lower()
        self._by_name[name] = command
        for alias in getattr(command, "aliases", ()):
            self._aliases[alias.lower()] = command
        self._sorted = sorted(self._by_name)
        self._rebuild_exact()

    def alias(self, alias: str, name: str) -> None:
        """Make ``alias`` run the command ``name`` (exact match only)."""
        self._aliases[alias.lower()] = self._by_name[name]
        self._rebuild_exact()

    def _rebuild_exact(self) -> None:
        # What resolve() finds first: a name, else an alias.
        self._exact = {**self._aliases, **self._by_name}

    def exact(self, word: str) -> object | None:
        """The command whose name or alias is exactly ``word`` (lower case), else None.

        One dict access: the server tries it before anything else on every line.
        """
        return self._exact.get(word)

    def resolve(self, word: str) -> object:
        """The command ``word`` names: exact name or alias, else unique prefix.

        :raises UnknownCommand: nothing matches.
        :raises AmbiguousCommand: several names start with ``word``.
        """
        key = word.lower()
        command = self._by_name.get(key) or self._aliases.get(key)
        if command is not None:
            return command
        names = self._sorted
        i = bisect_left(names, key)
        matches = []
        while i < len(names) and names[i].startswith(key):
            matches.append(names[i])
            i += 1
        if len(matches) == 1:
            return self._by_name[matches[0]]
        if matches:
            raise AmbiguousCommand(word, matches)
        raise UnknownCommand(word)

    def names(self) -> list[str]:
        """Command names, sorted (aliases left out)."""
        return list(self._sorted)

    def __iter__(self) -> Iterator[object]:
        return (self._by_name[n] for n in self._sorted)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._by_name

    def __len__(self) -> int:
        return len(self._by_name)
