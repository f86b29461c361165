"""What every command shares: an argument spec and the usage line.

Host-agnostic (only :mod:`ficsfen.interfaces` and :mod:`ficsfen.i18n`), so
the exported commands (``fen``, ``help``) can build on it.

An argument spec is a short string, one letter per argument, after FICS's
own command table:

=====  ===========================================
``w``  a word (required)
``o``  a word (optional)
``i``  an integer (required)
``p``  an integer (optional)
``S``  the rest of the line (required, at least one word)
``s``  the rest of the line (optional)
=====  ===========================================
"""

from __future__ import annotations

import re
from collections.abc import Callable

from zope.interface import implementer

from ficsfen.i18n import Message, msg
from ficsfen.interfaces import ICaller, ICommand, IGameDirectory

__all__ = ["Command", "UsageError", "parse_args"]

_CODES = frozenset("woipSs")
_INTEGER = re.compile(r"-?[0-9]+")  # ASCII digits only, at most one sign


class UsageError(ValueError):
    """The arguments do not fit the command's spec."""


#: One parsed argument: a word or the rest of the line, an integer, or an optional one absent.
Argument = str | int | None


def parse_args(spec: str, line: str) -> list[Argument]:
    """Split ``line`` by ``spec``; optional arguments absent are ``None``.

    :raises UsageError: too many or too few words, or a non-integer where an
        integer is wanted.
    """
    words = line.split()
    out: list[Argument] = []
    pos = 0
    for code in spec:
        if code in "Ss":
            rest = line.strip()
            if pos:
                rest = rest.split(None, pos)[pos] if len(words) > pos else ""
            if code == "S" and not rest:
                raise UsageError(line)
            out.append(rest or None)
            return out
        word = words[pos] if pos < len(words) else None
        pos += 1
        if word is None:
            if code in "wi":
                raise UsageError(line)
            out.append(None)
        elif code in "ip":
            if not _INTEGER.fullmatch(word):
                raise UsageError(line)
            out.append(int(word))
        else:
            out.append(word)
    if pos < len(words):
        raise UsageError(line)
    return out


@implementer(ICommand)
class Command:
    """Base for commands: subclasses set the attributes and write :meth:`run`.

    :meth:`__call__` (what hosts and our table call) parses the argument
    line by :attr:`spec` and answers a mismatch with the usage line, so
    :meth:`run` only sees well-formed arguments.
    """

    name: str = ""
    aliases: tuple[str, ...] = ()
    topic: str = ""
    spec: str = ""
    usage: Message = msg("(no usage)")
    #: Its arguments are secrets (passwords): logs show the command word only.
    secret: bool = False

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if not set(cls.spec) <= _CODES:
            raise TypeError(f"{cls.__name__}.spec {cls.spec!r}: codes are {''.join(sorted(_CODES))}")
        if cls.name and not cls.topic:
            cls.topic = cls.name

    #: The command itself, called with the arguments :attr:`spec` gives (each
    #: subclass's own signature), then ``directory=`` the host's IGameDirectory.
    #: Returns ``None``, or for a host that allows it an object saying the
    #: answer is not complete yet.
    run: Callable[..., object]

    def __call__(self, caller: ICaller, args: str, directory: IGameDirectory) -> object:
        """Parse ``args`` and run; returns what :meth:`run` returns (``None``, or for a
        host that allows it an object saying the answer is not complete yet)."""
        try:
            parsed = parse_args(self.spec, args)
        except UsageError:
            self.send_usage(caller)
            return None
        return self.run(caller, *parsed, directory=directory)

    def send_usage(self, caller: ICaller) -> None:
        caller.send(msg("Usage: {usage}", usage=self.usage))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
