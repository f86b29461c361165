"""What ICS clients set for themselves: ``iset``, ``ivariables``, ``alias``, ``unalias``.

Interface variables (:mod:`ficsfen.server.ivars`) are switches a client
flips with ``iset NAME 0|1``; the replies (``block set.``) and the lock
refusal are FICS's own English lines, which clients read, so they stay out
of the message catalogs.  Aliases are a session's own command words,
expanded FICS's way by :func:`expand_alias` (``$@`` is everything typed
after the word, ``$1`` its first word, ``$m`` your handle...).
"""

from __future__ import annotations

import re
from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.names import NameKind, NameResolutionError, fold, resolve_value
from ficsfen.server.commands.online_player import online_player
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.ivars import IVARS

__all__ = [
    "AliasCommand",
    "AliasError",
    "IVARIABLE",
    "IsetCommand",
    "IvariablesCommand",
    "MAX_ALIASES",
    "MAX_ALIAS_DEPTH",
    "MAX_ALIAS_NAME",
    "MAX_ALIAS_TEXT",
    "MAX_EXPANSION",
    "UnaliasCommand",
    "expand_alias",
    "ivariables_table",
    "parse_ivar_value",
    "split_alias_word",
]

# -- interface variables ------------------------------------------------------

IVARIABLE = NameKind(
    "ivariable",
    no_match=lambda word: msg("No such ivariable \"{name}\".", name=word),
    ambiguous=lambda word, matches: msg("Ambiguous ivariable \"{name}\". Matches: {matches}",
                                        name=word, matches=" ".join(matches)),
)

_IVAR_NAMES = {name: name for name in IVARS}

# FICS takes 0 and 1; the words of "set showfen" are accepted too.
_IVAR_VALUES = {"1": True, "on": True, "true": True, "0": False, "off": False, "false": False}

# FICS's own lines, read by clients: never translated.
LOCKED = "Cannot alter: Interface setting locked."

# The ``ivariables`` layout: FICS's rows of four 19-column cells (its own
# order, which is not the %b order), and the two ivars FICS does not list.
_ROWS: tuple[tuple[str, ...], ...] = (
    ("compressmove", "defprompt", "lock", "ms"),
    ("seekremove", "startpos", "block", "gameinfo"),
    ("pendinfo", "graph", "seekinfo", "extascii"),
    ("showserver", "nohighlight", "vthighlight", "pin"),
    ("pinginfo", "boardinfo", "extuserinfo", "audiochat"),
    ("seekca", "showownseek", "premove", "smartmove"),
    ("movecase", "nowrap", "allresults"),
    ("singleboard",),
    ("suicide", "crazyhouse", "losers", "wildcastle"),
    ("fr", "xdr", "obsping"),
)
_CELL = 19


class BadIvarValueError(LocalizedError, ValueError):
    """An ``iset`` value other than 0/1 (on/off, true/false)."""


def parse_ivar_value(name: str, word: str) -> bool:
    """The boolean ``word`` means for the ivar ``name``.

    :raises BadIvarValueError: anything else, with a message naming both.
    """
    value = _IVAR_VALUES.get(word.lower())
    if value is None:
        raise BadIvarValueError(msg("Bad value \"{value}\" given for ivariable \"{name}\".",
                                    value=word, name=name))
    return value


def ivariables_table(ivars: dict[str, bool]) -> str:
    """All 35 ivars as ``name=0|1`` cells, FICS's rows."""
    lines = []
    for row in _ROWS:
        cells = [f"{name}={int(ivars.get(name, False))}" for name in row]
        lines.append("".join(c.ljust(_CELL) for c in cells[:-1]) + cells[-1])
    return "\n".join(lines)


class IsetCommand(Command):
    """``iset NAME 0|1``: set an interface variable (refused once ``lock`` is set)."""

    name = "iset"
    spec = "ww"
    usage = msg("iset ivariable 0|1")

    def run(self, caller: IServerCaller, name: str, value: str, *,
            directory: IServerDirectory) -> None:
        if caller.ivars["lock"]:
            caller.send(LOCKED)
            return
        try:
            ivar = resolve_value(name, _IVAR_NAMES, IVARIABLE)
            on = parse_ivar_value(ivar, value)
        except (NameResolutionError, BadIvarValueError) as e:
            caller.send(e.message)
            return
        # FICS's words, in English: only programs set ivars (this one may be the
        # first, so the session is not yet known as one).
        caller.send(f"{ivar} set." if on else f"{ivar} unset.")
        # Each is read where it acts (the prompt, block mode...); what turning it
        # on sends (seekinfo's seek list) follows the reply, as on FICS.
        caller.set_ivar(ivar, on)


class IvariablesCommand(Command):
    """``ivariables [HANDLE]``: every interface variable of a logged-in player."""

    name = "ivariables"
    aliases = ("ivars",)
    spec = "o"
    usage = msg("ivariables [handle]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> None:
        target = online_player(caller, who)
        if target is None:
            return
        caller.send(parsed(msg("Interface variable settings of {handle}:", handle=target.handle)))
        caller.send("\n" + ivariables_table(target.ivars) + "\n")


# -- aliases ------------------------------------------------------------------

#: How many aliases a session may have, how long a name and a text may be.
MAX_ALIASES = 30
MAX_ALIAS_NAME = 15
MAX_ALIAS_TEXT = 400
#: How many aliases one line may go through (an alias whose text starts
#: with another alias is expanded again), and the longest line they may make.
MAX_ALIAS_DEPTH = 8
MAX_EXPANSION = 2048

#: FICS lets nobody alias these: a session could never leave, or undo it.
_UNALIASABLE = frozenset({"quit", "unalias"})

# A line starting with punctuation names its alias by the punctuation alone
# ("+alice" is the alias "+" with "alice"), as FICS reads "!", "." and ",".
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]+")
_WORD = re.compile(r"\S+")
# FICS's "$" parameters, and the older "@" for the rest of the line (xboard
# still sends "alias $ @").
_PARAMETER = re.compile(r"\$(?:(\d)-|-(\d)|(\d)|(.)|$)|@", re.DOTALL)


class AliasError(LocalizedError, ValueError):
    """A line whose aliases cannot be expanded: a loop, too deep, or too long."""


def split_alias_word(line: str) -> tuple[str, str]:
    """The word an alias would be named by, and the rest of the line."""
    text = line.lstrip()
    m = _PUNCTUATION.match(text) or _WORD.match(text)
    if m is None:
        return "", ""
    return m.group(), text[m.end():].strip()


def _substitute(text: str, rest: str, handle: str) -> str:
    """``text`` with FICS's ``$`` parameters (and ``@``, the rest) filled from ``rest``."""
    if "$" not in text and "@" not in text:
        return text
    words = rest.split()

    def fill(m: re.Match) -> str:
        if m.group() == "@":
            return rest
        tail, upto, one, other = m.groups()
        if tail is not None:  # $n-: words n and after
            return " ".join(words[int(tail) - 1:]) if tail != "0" else rest
        if upto is not None:  # $-n: words 1 to n
            return " ".join(words[:int(upto)])
        if one is not None:
            n = int(one)
            return words[n - 1] if 0 < n <= len(words) else ""
        return {"@": rest, "m": handle, "$": "$"}.get(other, m.group())

    return _PARAMETER.sub(fill, text)


def expand_alias(line: str, aliases: dict[str, tuple[str, str]], handle: str) -> str:
    """``line`` with the caller's aliases expanded, FICS's way.

    ``aliases`` maps a folded name to ``(name, text)``.  An alias whose text
    starts with another alias is expanded again (up to :data:`MAX_ALIAS_DEPTH`);
    one that starts with its own name is not (``alias who who $@ a``).

    :raises AliasError: a loop (``a`` -> ``b`` -> ``a``), too many levels, or
        a line longer than :data:`MAX_EXPANSION`.
    """
    seen: list[str] = []
    while True:
        word, rest = split_alias_word(line)
        entry = aliases.get(fold(word))
        if entry is None or (seen and fold(word) == fold(seen[-1])):
            return line
        name, text = entry
        if fold(name) in map(fold, seen):
            raise AliasError(msg("Alias loop: {chain}.", chain=" -> ".join([*seen, name])))
        if len(seen) >= MAX_ALIAS_DEPTH:
            raise AliasError(msg("Aliases nested more than {depth} deep: {chain}...",
                                 depth=MAX_ALIAS_DEPTH, chain=" -> ".join(seen)))
        seen.append(name)
        line = _substitute(text, rest, handle)
        if len(line) > MAX_EXPANSION:
            raise AliasError(msg("Alias {name} makes a line longer than {limit} characters.",
                                 name=name, limit=MAX_EXPANSION))


def _shown(name: str, text: str) -> str:
    return f"{name} -> {text}"


class AliasCommand(Command):
    """``alias [NAME [TEXT]]``: list, show or set one of the caller's aliases."""

    name = "alias"
    spec = "os"
    usage = msg("alias [word [text]]")

    def run(self, caller: IServerCaller, word: str | None, text: str | None, *,
            directory: IServerDirectory) -> None:
        aliases = caller.aliases
        if word is None:
            if not aliases:
                caller.send(msg("You have no aliases."))
                return
            caller.send("\n".join(_shown(*entry) for entry in aliases.values()))
            return
        key = fold(word)
        if text is None:
            entry = aliases.get(key)
            caller.send(_shown(*entry) if entry is not None
                        else msg("You have no alias named \"{name}\".", name=word))
            return
        refusal = self._refusal(word, text, replacing=key in aliases, count=len(aliases))
        if refusal is not None:
            caller.send(refusal)
            return
        replaced = key in aliases
        aliases[key] = (word, text)
        caller.send(msg("Alias \"{name}\" replaced.", name=word) if replaced
                    else msg("Alias \"{name}\" set.", name=word))

    @staticmethod
    def _refusal(word: str, text: str, *, replacing: bool, count: int) -> Message | None:
        if fold(word) in _UNALIASABLE:
            return msg("You can't alias this command.")
        if len(word) > MAX_ALIAS_NAME:
            return msg("Alias names may be at most {limit} characters long.",
                       limit=MAX_ALIAS_NAME)
        if not word.isprintable():
            return msg("Alias names must be printable.")
        if len(text) > MAX_ALIAS_TEXT:
            return msg("An alias may be at most {limit} characters long.", limit=MAX_ALIAS_TEXT)
        if not replacing and count >= MAX_ALIASES:
            return msg("You have your maximum number of aliases ({limit}).", limit=MAX_ALIASES)
        return None


class UnaliasCommand(Command):
    """``unalias NAME``: forget one of the caller's aliases."""

    name = "unalias"
    spec = "w"
    usage = msg("unalias word")

    def run(self, caller: IServerCaller, word: str, *, directory: IServerDirectory) -> None:
        if caller.aliases.pop(fold(word), None) is None:
            caller.send(msg("You have no alias named \"{name}\".", name=word))
        else:
            caller.send(msg("Alias \"{name}\" removed.", name=word))


COMMANDS = (IsetCommand(), IvariablesCommand(), AliasCommand(), UnaliasCommand())
