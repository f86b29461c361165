"""The command table: names, aliases and unique-prefix resolution, FICS-style.

``he fen`` runs ``help fen`` because ``he`` starts only one command name;
an exact name or alias always wins over a prefix (``re`` is ``refresh``
even though ``revert`` also starts with it).  A command whose ``exact_only``
attribute is true (the operators' commands) runs by its full name only: it
never takes a prefix from the other commands (``ba`` stays ``backward``
beside ``ban``).  A command whose ``whole_name`` attribute is true (``quit``)
runs only by its full name or an alias, as on FICS: ``q`` answers "The
command 'quit' cannot be abbreviated." rather than logging the player out.
Resolution is
:mod:`ficsfen.names`' (its case rule included); a word that names no
command raises its :class:`~ficsfen.names.NameResolutionError`, carrying
the localized message, so the table itself never writes anything.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterable, Iterator

from ficsfen.i18n import msg
from ficsfen.interfaces import ICommand
from ficsfen.names import COMMAND, NameResolutionError, fold, resolve

__all__ = ["CommandTable"]


class CommandTable:
    """Commands by name, with aliases; any object providing ICommand fits."""

    def __init__(self, commands: Iterable[object] = ()) -> None:
        # Names and aliases in lower case, one dict: a name wins over an alias.
        self._commands: dict[str, ICommand] = {}
        self._sorted: list[str] = []  # the names alone, sorted
        self._prefixed: list[str] = []  # the names a prefix may resolve to, sorted
        self._whole: set[str] = set()  # names no prefix reaches (quit)
        for command in commands:
            self.register(command)

    def _is_name(self, key: str) -> bool:
        command = self._commands.get(key)
        return command is not None and fold(command.name) == key

    def register(self, command: object) -> None:
        """Add ``command``; a later registration of the same name replaces it."""
        if not ICommand.providedBy(command):
            raise TypeError(f"{command!r} does not provide ICommand")
        name = fold(command.name)
        self._commands[name] = command
        for alias in command.aliases:
            self._set_alias(fold(alias), command)
        if name not in self._sorted:
            self._sorted = sorted([*self._sorted, name])
        prefixed = not getattr(command, "exact_only", False)
        if prefixed != (name in self._prefixed):
            self._prefixed = sorted({*self._prefixed, name} if prefixed
                                    else set(self._prefixed) - {name})
        if getattr(command, "whole_name", False):
            self._whole.add(name)
        else:
            self._whole.discard(name)

    def alias(self, alias: str, name: str) -> None:
        """Make ``alias`` run the command ``name`` (exact match only)."""
        key = fold(name)
        if not self._is_name(key):
            raise KeyError(name)
        self._set_alias(fold(alias), self._commands[key])

    def _set_alias(self, key: str, command: ICommand) -> None:
        if not self._is_name(key):
            self._commands[key] = command

    def exact(self, word: str) -> ICommand | None:
        """The command whose name or alias is exactly ``word`` (any case), else None.

        One dict access: the server tries it before anything else on every line.
        """
        return self._commands.get(fold(word))

    def resolve(self, word: str) -> ICommand:
        """The command ``word`` names: exact name or alias, else unique prefix.

        :raises ficsfen.names.NoMatchError: nothing matches.
        :raises ficsfen.names.AmbiguousNameError: several names start with ``word``.
        :raises ficsfen.names.NameResolutionError: ``word`` only abbreviates commands
            that take no abbreviation (``q``).
        """
        key = fold(word)
        command = self._commands.get(key)
        if command is not None:
            return command
        # Only the names starting with the word can match: a bisection finds
        # them (the table is sorted), the shared FICS rule picks among them.
        names = self._prefixed
        lo = bisect_left(names, key)
        found = names[lo:bisect_left(names, key + "\U0010ffff", lo)]
        if self._whole and not self._whole.isdisjoint(found):
            whole = [name for name in found if name in self._whole]
            found = [name for name in found if name not in self._whole]
            if not found:
                raise NameResolutionError(msg("The command '{name}' cannot be abbreviated.",
                                              name=whole[0]), word, COMMAND)
        return self._commands[resolve(word, found, COMMAND)]

    def names(self) -> list[str]:
        """Command names, sorted (aliases left out)."""
        return list(self._sorted)

    def __iter__(self) -> Iterator[object]:
        commands = self._commands
        return (commands[n] for n in self._sorted)

    def __contains__(self, name: str) -> bool:
        return self._is_name(fold(name))

    def __len__(self) -> int:
        return len(self._sorted)
