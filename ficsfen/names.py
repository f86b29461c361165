"""Names typed by players, resolved FICS-style: the exact name, else a unique prefix.

One rule for every kind of name a player types (commands, variables and
their values, languages, help topics, handles, subcommands):

1. a name equal to the word wins, even when longer names start with it
   (``re`` is ``refresh`` although ``revert`` starts with ``re`` too);
2. else the only name that starts with the word wins;
3. else the word is ambiguous (:class:`AmbiguousNameError`, with the
   matches sorted) or names nothing (:class:`NoMatchError`).

**Case.**  Names are matched case-insensitively, one character at a time,
but lowering never moves a character in or out of ASCII: an ASCII letter
matches only its own other case, and a word holding a non-ASCII letter
never matches an ASCII name.  :meth:`str.casefold` would turn ``ſ`` (long
s) into ``s`` and the Kelvin sign into ``k``, so ``fen ſam`` reached player
``sam``; here ``ſam`` names nobody, for every command.  Non-ASCII names
still match across case (``FRANÇAIS`` is ``Français``).  :func:`fold` is
that rule; keys of tables by handle use it too.

Failures are exceptions of one family (:class:`NameResolutionError`, a
:class:`~ficsfen.i18n.LocalizedError`), whose message says what kind of
name was looked up (:class:`NameKind`).  Nothing here imports Twisted.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass
from functools import cache
from typing import Callable, Iterable, Iterator, Mapping, TypeVar

from ficsfen.i18n import (LocalizedError, Message, available_languages, language_name,
                          language_names, msg)

__all__ = [
    "AmbiguousNameError",
    "COMMAND",
    "HANDLE",
    "LANGUAGE",
    "NameIndex",
    "NameKind",
    "NameResolutionError",
    "NoMatchError",
    "TOPIC",
    "VARIABLE",
    "fold",
    "resolve",
    "resolve_handle",
    "resolve_language",
    "resolve_value",
]

V = TypeVar("V")


def _fold_char(c: str) -> str:
    low = c.lower()
    if len(low) == 1 and low.isascii() == c.isascii():
        return low
    return c  # e.g. the Kelvin sign (lowers to ASCII k), İ (lowers to two characters)


def fold(name: str) -> str:
    """``name`` as names are compared: lowered without crossing the ASCII boundary."""
    if name.isascii():
        return name.lower()
    return "".join(map(_fold_char, name))


@dataclass(frozen=True)
class NameKind:
    """A kind of name (``what``, e.g. ``"command"``) and how its failures read.

    ``no_match(word)`` and ``ambiguous(word, matches)`` build the localized
    messages; ``matches`` are the matching names, sorted.
    """

    what: str
    no_match: Callable[[str], Message]
    ambiguous: Callable[[str, tuple[str, ...]], Message]

    def __repr__(self) -> str:
        return f"<NameKind {self.what}>"


class NameResolutionError(LocalizedError, LookupError):
    """A typed word that does not name exactly one thing of its kind."""

    def __init__(self, message: Message, word: str, kind: NameKind) -> None:
        super().__init__(message, word)
        self.word = word
        self.kind = kind


class NoMatchError(NameResolutionError):
    """No name of the kind is, or starts with, the word."""

    def __init__(self, word: str, kind: NameKind) -> None:
        super().__init__(kind.no_match(word), word, kind)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.word!r}, {self.kind!r})"


class AmbiguousNameError(NameResolutionError):
    """Several names start with the word: ``matches`` lists them, sorted.

    ``values`` are what the matches stand for (:func:`resolve_value`), in
    the same order without repeats; for :func:`resolve`, the matches.
    """

    def __init__(self, word: str, kind: NameKind, matches: Iterable[str],
                 values: tuple[object, ...] | None = None) -> None:
        self.matches = tuple(sorted(matches, key=_order))
        self.values = self.matches if values is None else values
        super().__init__(kind.ambiguous(word, self.matches), word, kind)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.word!r}, {self.kind!r}, {list(self.matches)!r})"


def _order(name: str) -> tuple[str, str]:
    return (fold(name), name)


class NameIndex:
    """Names kept by their folded form, in order: :func:`resolve` finds a word among them by bisection.

    Why: a server resolves a typed handle (``match``, ``tell``...) against
    every handle online; with thousands online, listing and folding them all
    at each command costs more than the command.  Kept up to date with
    :meth:`add` and :meth:`discard`; iterating gives the names.  Resolving a
    word here gives exactly what it gives among the same names in a list.
    """

    __slots__ = ("_names", "_keys")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._names: dict[str, dict[str, None]] = {}  # folded form -> its spellings (an ordered set)
        self._keys: list[str] = []  # the folded forms, sorted
        for name in names:
            self.add(name)

    def add(self, name: str) -> None:
        key = fold(name)
        spellings = self._names.get(key)
        if spellings is None:
            self._names[key] = {name: None}
            insort(self._keys, key)
        else:
            spellings[name] = None

    def discard(self, name: str) -> None:
        """Forget ``name`` (nothing happens if it is not here)."""
        key = fold(name)
        spellings = self._names.get(key)
        if spellings is None or name not in spellings:
            return
        del spellings[name]
        if not spellings:
            del self._names[key]
            del self._keys[bisect_left(self._keys, key)]

    def __iter__(self) -> Iterator[str]:
        for spellings in self._names.values():
            yield from spellings

    def __len__(self) -> int:
        return sum(map(len, self._names.values()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names.get(fold(name), ())

    def candidates(self, word: str) -> str | list[str]:
        """What :func:`_candidates` gives for ``word`` among these names."""
        key = fold(word)
        equal = self._names.get(key)
        if equal:
            if word in equal:
                return word
            found = list(equal)
        else:
            keys, names = self._keys, self._names
            found = []
            i = bisect_left(keys, key)
            while i < len(keys) and keys[i].startswith(key):  # a prefix's names are contiguous
                found.extend(names[keys[i]])
                i += 1
        return found[0] if len(found) == 1 else found


def _candidates(word: str, names: Iterable[str]) -> str | list[str]:
    """The name ``word`` picks, or every name equal to it or, failing that, starting with it."""
    if isinstance(names, NameIndex):
        return names.candidates(word)
    key = fold(word)
    equal: list[str] = []
    starting: list[str] = []
    for name in names:
        if name == word:
            return name
        folded = fold(name)
        if folded == key:
            equal.append(name)
        elif not equal and folded.startswith(key):
            starting.append(name)
    found = list(dict.fromkeys(equal or starting))  # a name listed twice is still one name
    return found[0] if len(found) == 1 else found


def resolve(word: str, names: Iterable[str], kind: NameKind) -> str:
    """The name of ``names`` that ``word`` means (see the module's rule).

    An empty word names nothing.

    :raises NoMatchError: no name is or starts with ``word``.
    :raises AmbiguousNameError: several names do, and none is ``word`` itself.
    """
    found = _candidates(word, names) if word else []
    if isinstance(found, str):
        return found
    if found:
        raise AmbiguousNameError(word, kind, found)
    raise NoMatchError(word, kind)


def resolve_value(word: str, table: Mapping[str, V], kind: NameKind) -> V:
    """The value of the name in ``table`` that ``word`` means.

    Spellings of one value are synonyms: ``utf`` starts both ``utf8`` and
    ``utf-8``, which mean the same charset, so it is not ambiguous.

    :raises NoMatchError: as :func:`resolve`.
    :raises AmbiguousNameError: the names ``word`` starts mean different values.
    """
    found = _candidates(word, table) if word else []
    if isinstance(found, str):
        return table[found]
    values = list(dict.fromkeys(table[name] for name in sorted(found, key=_order)))
    if len(values) == 1:
        return values[0]
    if found:
        raise AmbiguousNameError(word, kind, found, tuple(values))
    raise NoMatchError(word, kind)


# -- the kinds of names -------------------------------------------------------

COMMAND = NameKind(
    "command",
    no_match=lambda word: msg("{word}: Command not found.", word=word),
    ambiguous=lambda word, matches: msg("Ambiguous command \"{word}\". Matches: {matches}",
                                        word=word, matches=" ".join(matches)),
)

VARIABLE = NameKind(
    "variable",
    no_match=lambda word: msg("No such variable \"{name}\".", name=word),
    ambiguous=lambda word, matches: msg("Ambiguous variable \"{name}\". Matches: {matches}",
                                        name=word, matches=" ".join(matches)),
)

HANDLE = NameKind(
    "handle",
    no_match=lambda word: msg("No player named \"{name}\" is logged in.", name=word),
    ambiguous=lambda word, matches: msg("Ambiguous handle \"{name}\". Matches: {matches}",
                                        name=word, matches=" ".join(matches)),
)

TOPIC = NameKind(
    "help topic",
    no_match=lambda word: msg("No help available on \"{topic}\".", topic=word),
    ambiguous=lambda word, matches: msg("Ambiguous help topic \"{topic}\". Matches: {matches}",
                                        topic=word, matches=" ".join(matches)),
)


def _languages_ambiguous(word: str, matches: tuple[str, ...]) -> Message:
    codes = _language_table()
    return msg("Ambiguous language \"{value}\". Matches: {matches}", value=word,
               matches=", ".join(dict.fromkeys(language_name(codes[m]) for m in matches)))


def _languages_unknown(word: str) -> Message:
    choices = ", ".join(f"{language_name(c)} ({c})" for c in available_languages())
    return msg("Unknown language \"{value}\". Available: {choices}", value=word, choices=choices)


LANGUAGE = NameKind("language", no_match=_languages_unknown, ambiguous=_languages_ambiguous)


def resolve_handle(word: str, handles: Iterable[str]) -> str:
    """The logged-in handle ``word`` names, among ``handles``.

    :raises NoMatchError: "No player named ... is logged in."
    :raises AmbiguousNameError: "Ambiguous handle ... Matches: ..."
    """
    return resolve(word, handles, HANDLE)


@cache
def _language_table() -> dict[str, str]:
    """Every name of every language with a catalog (codes too) -> its code."""
    return {name: code for code in available_languages() for name in language_names(code)}


def resolve_language(text: str) -> str:
    """The language code ``text`` names: a code or a name, any case, or a unique prefix.

    :raises NoMatchError: "Unknown language ... Available: ..."
    :raises AmbiguousNameError: the prefix starts names of several languages
        (:attr:`~AmbiguousNameError.values` are their codes).
    """
    return resolve_value(text.strip(), _language_table(), LANGUAGE)
