"""The command table: names, aliases and unique-prefix resolution, FICS-style.

``he fen`` runs ``help fen`` because ``he`` starts only one command name;
an exact name or alias always wins over a prefix (``re`` is ``refresh``
even though ``revert`` also starts with it).  Resolution failures are
values (:class:`UnknownCommandError`, :class:`AmbiguousCommandError`) carrying the
localized message, so the table itself never writes anything.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterable, Iterator

from ficsfen.i18n import LocalizedError, msg, unique_prefix
from ficsfen.interfaces import ICommand

__all__ = ["AmbiguousCommandError", "CommandError", "CommandTable", "UnknownCommandError"]


class CommandError(LocalizedError, LookupError):
    """A command word that does not resolve to one command."""


class UnknownCommandError(CommandError):
    def __init__(self, word: str) -> None:
        super().__init__(msg("{word}: Command not found.", word=word), word)
        self.word = word


class AmbiguousCommandError(CommandError):
    def __init__(self, word: str, matches: Iterable[str]) -> None:
        matches = tuple(sorted(matches))
        super().__init__(msg("Ambiguous command \"{word}\". Matches: {matches}",
                             word=word, matches=" ".join(matches)), word)
        self.word = word
        self.matches = matches


class CommandTable:
    """Commands by name, with aliases; any object providing ICommand fits."""

    def __init__(self, commands: Iterable[object] = ()) -> None:
        # Names and aliases in lower case, one dict: a name wins over an alias.
        self._commands: dict[str, object] = {}
        self._sorted: list[str] = []  # the names alone, sorted
        for command in commands:
            self.register(command)

    def _is_name(self, key: str) -> bool:
        command = self._commands.get(key)
        return command is not None and command.name.lower() == key

    def register(self, command: object) -> None:
        """Add ``command``; a later registration of the same name replaces it."""
        if not ICommand.providedBy(command):
            raise TypeError(f"{command!r} does not provide ICommand")
        name = command.name.lower()
        self._commands[name] = command
        for alias in getattr(command, "aliases", ()):
            self._set_alias(alias.lower(), command)
        if name not in self._sorted:
            self._sorted = sorted([*self._sorted, name])

    def alias(self, alias: str, name: str) -> None:
        """Make ``alias`` run the command ``name`` (exact match only)."""
        key = name.lower()
        if not self._is_name(key):
            raise KeyError(name)
        self._set_alias(alias.lower(), self._commands[key])

    def _set_alias(self, key: str, command: object) -> None:
        if not self._is_name(key):
            self._commands[key] = command

    def exact(self, word: str) -> object | None:
        """The command whose name or alias is exactly ``word`` (any case), else None.

        One dict access: the server tries it before anything else on every line.
        """
        return self._commands.get(word.lower())

    def resolve(self, word: str) -> object:
        """The command ``word`` names: exact name or alias, else unique prefix.

        :raises UnknownCommandError: nothing matches.
        :raises AmbiguousCommandError: several names start with ``word``.
        """
        key = word.lower()
        command = self._commands.get(key)
        if command is not None:
            return command
        # Only the names starting with the word can match: a bisection finds
        # them (the table is sorted), the shared FICS rule picks among them.
        names = self._sorted
        lo = bisect_left(names, key)
        found = unique_prefix(word, names[lo:bisect_left(names, key + "\U0010ffff", lo)])
        if found is None:
            raise UnknownCommandError(word)
        if isinstance(found, tuple):
            raise AmbiguousCommandError(word, found)
        return self._commands[found]

    def names(self) -> list[str]:
        """Command names, sorted (aliases left out)."""
        return list(self._sorted)

    def __iter__(self) -> Iterator[object]:
        commands = self._commands
        return (commands[n] for n in self._sorted)

    def __contains__(self, name: str) -> bool:
        return self._is_name(name.lower())

    def __len__(self) -> int:
        return len(self._sorted)
