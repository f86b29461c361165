"""Message catalogs, looked up per recipient.

Every user-visible string is written in English in the source, wrapped in
:func:`msg`, and translated through gettext catalogs kept in
``ficsfen/locale/<lang>/LC_MESSAGES/*.po`` (compiled to ``.mo`` next to them
by ``python tools/catalogs.py compile``).  Several ``.po`` files per language
are allowed, one per area of the code, and are merged at load time.

Nothing here calls :func:`gettext.install`: a server talks to French and
English players at once, so a message is kept as a :class:`Message` value
until it is rendered for one recipient with :meth:`Message.render`.
"""

from __future__ import annotations

import gettext
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Mapping

from ficsfen.mofile import read_msgids

__all__ = [
    "DEFAULT_LANGUAGE",
    "LOCALE_DIR",
    "LocalizedError",
    "Message",
    "available_languages",
    "language_from_environ",
    "language_from_locale",
    "language_name",
    "language_names",
    "load_catalogs",
    "msg",
    "msgn",
    "render",
    "resolve_language",
    "translation",
]

LOCALE_DIR = Path(__file__).with_name("locale")
DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Message:
    """A translatable message and its parameters, rendered late.

    ``msgid`` is the English text with ``str.format`` placeholders.  A
    parameter that is itself a :class:`Message` is rendered in the same
    language.  ``plural`` and ``count`` select an ngettext plural form.
    """

    msgid: str
    params: Mapping[str, object] = field(default_factory=dict)
    plural: str | None = None
    count: int | None = None

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        if self.plural is not None:
            text = translation(lang).ngettext(self.msgid, self.plural, self.count or 0)
        else:
            text = _lookup(lang, self.msgid)
        if not self.params and self.plural is None:
            return text
        params = {
            k: (v.render(lang) if isinstance(v, Message) else v)
            for k, v in self.params.items()
        }
        if self.plural is not None:
            params.setdefault("count", self.count)
        return text.format(**params)

    def __str__(self) -> str:
        return self.render(DEFAULT_LANGUAGE)

    def __repr__(self) -> str:
        args = [repr(self.msgid)]
        if self.plural is not None:
            args += [f"plural={self.plural!r}", f"count={self.count!r}"]
        args += [f"{k}={v!r}" for k, v in self.params.items()]
        return f"msg({', '.join(args)})"


def msg(msgid: str, /, **params: object) -> Message:
    """Mark ``msgid`` for translation and bind its parameters.

    ``msg`` and ``msgn`` are the keywords ``tools/catalogs.py`` extracts.
    """
    return Message(msgid, params)


def msgn(singular: str, plural: str, count: int, /, **params: object) -> Message:
    """A message with a plural form chosen by ``count`` (``{count}`` in the text)."""
    return Message(singular, params, plural, count)


class LocalizedError(Exception):
    """Base of every error a user may see: it carries a lazy :class:`Message`.

    Subclasses add their own fields (a FEN field number, a move text...);
    hosts catch this one class and send ``err.render(lang)`` to the user.
    """

    def __init__(self, message: Message, *args: object) -> None:
        super().__init__(message, *args)
        self.message = message

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return self.message.render(lang)

    def __str__(self) -> str:
        return self.render(DEFAULT_LANGUAGE)


def render(message: Message | str, lang: str = DEFAULT_LANGUAGE) -> str:
    """Render a :class:`Message` (or pass a plain string through)."""
    if isinstance(message, Message):
        return message.render(lang)
    return message


def _lookup(lang: str, msgid: str) -> str:
    """One translated string: the merged table's, else the msgid itself (gettext's rule)."""
    return _table(lang).get(msgid, msgid)


@cache
def _table(lang: str) -> dict[str, str]:
    """Every singular message of ``lang``'s catalogs, as :func:`translation` gives it.

    Why a table built once rather than a cache filled as messages are
    rendered: a cache entry made while a server is busy with thousands of
    connections lives on among their freed objects and keeps a whole arena
    of CPython's allocator from going back to the system.  (Plural forms
    still go through :func:`translation`.)  The msgids come from the
    catalog files (:mod:`ficsfen.mofile`: gettext cannot list them), each
    text from the merged chain, so the last file read wins; a plural
    message's entry is its form for 1, as gettext's ``gettext`` gives it.
    """
    catalog = translation(lang)
    table: dict[str, str] = {"": catalog.gettext("")}  # the catalog header, as gettext gives it
    for mo in _catalog_files(lang):
        for entry in read_msgids(mo):
            key = entry.singular if entry.context is None else f"{entry.context}\x04{entry.singular}"
            if entry.context is None:
                table[key] = catalog.gettext(entry.singular)
            else:
                table[key] = catalog.pgettext(entry.context, entry.singular)
    return table


def load_catalogs() -> None:
    """Read every language's catalogs now (a server calls it at start-up, before any
    connection: see :func:`_table`)."""
    for lang in available_languages():
        _table(lang)


@cache
def _catalog_files(lang: str) -> tuple[Path, ...]:
    """``lang``'s compiled catalogs, in the order they are chained."""
    folder = LOCALE_DIR / lang / "LC_MESSAGES"
    return tuple(sorted(folder.glob("*.mo"))) if folder.is_dir() else ()


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The merged catalog for ``lang``; English (the msgids) when unknown.

    Each file falls back on the ones read before it, so a msgid found in
    two files takes the later file's text.
    """
    merged = gettext.NullTranslations()
    for mo in _catalog_files(lang):
        with mo.open("rb") as fp:
            t = gettext.GNUTranslations(fp)
        t.add_fallback(merged)
        merged = t
    return merged


@cache
def available_languages() -> tuple[str, ...]:
    """Language codes with a catalog folder, English first."""
    codes = sorted(p.name for p in LOCALE_DIR.iterdir() if (p / "LC_MESSAGES").is_dir())
    codes.sort(key=lambda c: c != DEFAULT_LANGUAGE)
    return tuple(codes)


# The name of each language in itself, and the English names players type.
_NAMES: dict[str, tuple[str, ...]] = {
    "en": ("English", "anglais"),
    "fr": ("Français", "French", "Francais"),
}


def language_name(lang: str) -> str:
    """The language's own name, e.g. ``Français`` for ``fr``."""
    return _NAMES.get(lang, (lang,))[0]


def language_names(lang: str) -> tuple[str, ...]:
    """Every name players may type for ``lang``: its code, its own name, others."""
    return (lang, *_NAMES.get(lang, ()))


def resolve_language(text: str) -> str | None | tuple[str, ...]:
    """Map what a user typed to a language code, for the command line.

    The rule is :func:`ficsfen.names.resolve_language`'s (codes and names,
    any case, unique prefixes); this returns the code, ``None`` when
    nothing matches, or a tuple of codes when the prefix is ambiguous.
    """
    from ficsfen import names  # names builds on this module

    try:
        return names.resolve_language(text)
    except names.AmbiguousNameError as e:
        return tuple(str(code) for code in e.values)
    except names.NoMatchError:
        return None


def language_from_locale(value: str | None) -> str:
    """Pick a catalog language from a POSIX locale string such as ``fr_FR.UTF-8``."""
    if value:
        code = value.split(".")[0].split("_")[0].split("@")[0].casefold()
        if code in available_languages():
            return code
    return DEFAULT_LANGUAGE


def language_from_environ(environ: Mapping[str, str] | None = None) -> str:
    """The catalog language the POSIX locale variables ask for.

    ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG`` (the first one set wins,
    as in C's setlocale); English when none is set or its language has no
    catalog.  ``environ`` defaults to :data:`os.environ`.
    """
    if environ is None:
        environ = os.environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            return language_from_locale(value)
    return DEFAULT_LANGUAGE
