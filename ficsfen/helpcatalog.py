"""The help catalog: text pages in ``help/<lang>/<topic>``, resolved like FICS.

A server answers ``help fen`` thousands of times, so the folder listing is
read once per language and each page's text once per (topic, language);
:meth:`HelpCatalog.reload` forgets both after the pages change on disk.

Topic names typed by users are checked against a strict pattern *before*
anything touches the file system, and only names found in the folder
listing are ever opened: ``help ../../etc/passwd`` cannot escape, and the
cache cannot grow past the number of pages that exist.

Nothing here imports Twisted: host servers use this module directly.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ficsfen.i18n import DEFAULT_LANGUAGE, LocalizedError, Message, msg
from ficsfen.names import TOPIC, AmbiguousNameError, NoMatchError, resolve

__all__ = [
    "AmbiguousTopicError",
    "HELP_DIR",
    "HelpCatalog",
    "HelpError",
    "HelpPage",
    "InvalidTopicError",
    "MAX_TOPIC_LENGTH",
    "NoSuchTopicError",
    "default_catalog",
    "index",
    "lookup",
    "normalize_topic",
    "topics",
]

HELP_DIR = Path(__file__).with_name("help")
MAX_TOPIC_LENGTH = 32
_TOPIC = re.compile(r"[a-z0-9_-]+")
_LANG = re.compile(r"[a-z]{2,3}(?:_[A-Z]{2})?")


class HelpError(LocalizedError, LookupError):
    """A help request that cannot be answered; ``message`` says why, per language."""

    message: Message


class NoSuchTopicError(HelpError):
    """No page has this name or starts with it."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        super().__init__(msg('No help available on "{topic}".', topic=topic))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.topic!r})"


class InvalidTopicError(NoSuchTopicError):
    """The name cannot be a topic at all (bad characters, too long).

    A subclass of :class:`NoSuchTopicError` so callers treat both alike; the
    name it carries is made printable and shortened for display.
    """

    def __init__(self, topic: str) -> None:
        self.raw = topic
        shown = "".join(c if c.isprintable() else "?" for c in topic)
        if len(shown) > MAX_TOPIC_LENGTH:
            shown = shown[:MAX_TOPIC_LENGTH] + "..."
        super().__init__(shown)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.raw!r})"


class AmbiguousTopicError(HelpError):
    """Several pages start with the name; ``matches`` lists them, sorted."""

    def __init__(self, topic: str, matches: list[str] | tuple[str, ...]) -> None:
        self.topic = topic
        self.matches = tuple(sorted(matches))
        super().__init__(
            msg(
                'Ambiguous help topic "{topic}". Matches: {matches}',
                topic=topic,
                matches=" ".join(self.matches),
            )
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.topic!r}, {list(self.matches)!r})"


FALLBACK_NOTICE = msg(
    "This help page has not been translated into your language yet; "
    "showing the English version."
)


@dataclass(frozen=True)
class HelpPage:
    """One page as served: ``lang`` is the language actually used.

    ``fallback`` is true when the requested language lacked the page and
    the English one was used; ``notice`` then holds the one-line message
    to show first, rendered in the user's language.
    """

    topic: str
    lang: str
    text: str
    fallback: bool = False
    notice: Message | None = None


def normalize_topic(topic: str) -> str:
    """The canonical form of a typed topic name, or :class:`InvalidTopicError`.

    Case is folded (only for ASCII, so no exotic letter can fold into an
    ASCII one); only ``[a-z0-9_-]`` up to :data:`MAX_TOPIC_LENGTH` pass.
    """
    if not isinstance(topic, str):
        raise InvalidTopicError(repr(topic))
    word = topic.strip()
    if (
        not word
        or len(word) > MAX_TOPIC_LENGTH
        or not word.isascii()
        or not _TOPIC.fullmatch(word.lower())
    ):
        raise InvalidTopicError(topic)
    return word.lower()


class HelpCatalog:
    """Help pages under ``root/<lang>/<topic>``, English being the reference set."""

    def __init__(self, root: Path | str | None = None, *, reference: str = DEFAULT_LANGUAGE) -> None:
        self.root = Path(root) if root is not None else HELP_DIR
        self.reference = reference
        self._langs: frozenset[str] | None = None
        self._listing: dict[str, frozenset[str]] = {}
        self._readable: dict[str, frozenset[str]] = {}
        self._text: dict[tuple[str, str], str] = {}
        self._pages: dict[tuple[str, str], HelpPage] = {}

    def __repr__(self) -> str:
        return f"HelpCatalog({str(self.root)!r}, reference={self.reference!r})"

    # -- listing --------------------------------------------------------

    def _folders(self) -> frozenset[str]:
        """Language folders under the root, listed once."""
        langs = self._langs
        if langs is None:
            try:
                with os.scandir(self.root) as it:
                    langs = frozenset(
                        e.name for e in it if _LANG.fullmatch(e.name) and e.is_dir()
                    )
            except OSError:
                langs = frozenset()
            self._langs = langs
        return langs

    def _names(self, lang: str) -> frozenset[str]:
        """Topic files of one language folder, listed once.

        A language without a folder has no pages and is not remembered, so
        arbitrary codes cannot grow the caches.
        """
        names = self._listing.get(lang)
        if names is None:
            if lang not in self._folders():
                return frozenset()
            found = set()
            try:
                with os.scandir(self.root / lang) as it:
                    for entry in it:
                        if (
                            len(entry.name) <= MAX_TOPIC_LENGTH
                            and _TOPIC.fullmatch(entry.name)
                            and entry.is_file()
                        ):
                            found.add(entry.name)
            except OSError:
                pass
            names = frozenset(found)
            self._listing[lang] = names
        return names

    def languages(self) -> list[str]:
        """Language folders present, the reference language first."""
        return sorted(self._folders(), key=lambda c: (c != self.reference, c))

    def topics(self, lang: str | None = None) -> list[str]:
        """Sorted topics a reader of ``lang`` can open (reference pages included).

        ``None`` gives the reference (English) set.
        """
        return sorted(self._readable_in(lang or self.reference))

    def _readable_in(self, lang: str) -> frozenset[str]:
        """Reference topics plus those of ``lang``, computed once per language."""
        names = self._readable.get(lang)
        if names is None:
            names = self._names(self.reference)
            if lang == self.reference or lang not in self._folders():
                return names
            names = names | self._names(lang)
            self._readable[lang] = names
        return names

    def translated(self, lang: str) -> list[str]:
        """Sorted topics actually written in ``lang`` (no fallback)."""
        return sorted(self._names(lang))

    def missing(self, lang: str) -> list[str]:
        """Reference topics that ``lang`` lacks and would serve in English."""
        return sorted(self._names(self.reference) - self._names(lang))

    # -- lookup ---------------------------------------------------------

    def resolve(self, topic: str, lang: str | None = None) -> str:
        """The full topic name: exact, else unique prefix.

        :raises InvalidTopicError: bad characters or too long (nothing opened).
        :raises AmbiguousTopicError: several topics start with ``topic``.
        :raises NoSuchTopicError: nothing matches.
        """
        word = normalize_topic(topic)
        if not isinstance(lang, str) or not _LANG.fullmatch(lang):
            lang = self.reference
        try:
            return resolve(word, self._readable_in(lang), TOPIC)
        except AmbiguousNameError as e:  # the help family, part of the public API
            raise AmbiguousTopicError(word, e.matches) from None
        except NoMatchError:
            raise NoSuchTopicError(word) from None

    def lookup(self, topic: str, lang: str = DEFAULT_LANGUAGE) -> HelpPage:
        """The page for ``topic`` in ``lang``, falling back to the reference language."""
        if not isinstance(lang, str) or not _LANG.fullmatch(lang):
            lang = self.reference
        name = self.resolve(topic, lang)
        # Every language without pages gets the same fallback page.
        slot = lang if lang == self.reference or lang in self._folders() else "*"
        key = (name, slot)
        page = self._pages.get(key)
        if page is None:
            page = self._load(name, lang)
            self._pages[key] = page
        return page

    def _load(self, name: str, lang: str) -> HelpPage:
        if name in self._names(lang):
            return HelpPage(name, lang, self._read(name, lang))
        return HelpPage(
            name,
            self.reference,
            self._read(name, self.reference),
            fallback=True,
            notice=FALLBACK_NOTICE,
        )

    def _read(self, name: str, lang: str) -> str:
        # ``name`` and ``lang`` come from the folder listing and the
        # language pattern, never straight from user input.
        key = (name, lang)
        text = self._text.get(key)
        if text is None:
            path = self.root / lang / name
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                raise NoSuchTopicError(name) from None
            text = text.removeprefix("\ufeff")
            self._text[key] = text
        return text

    def reload(self) -> None:
        """Forget listings and cached texts, e.g. after pages were edited."""
        self._langs = None
        self._listing.clear()
        self._readable.clear()
        self._text.clear()
        self._pages.clear()

    # -- index ----------------------------------------------------------

    def index(self, lang: str = DEFAULT_LANGUAGE, *, width: int = 79) -> str:
        """All topics in columns under a localized heading, like FICS ``help``."""
        names = self.topics(lang if isinstance(lang, str) and _LANG.fullmatch(lang) else None)
        heading = msg("Help is available on the following topics:").render(lang)
        footer = msg('Type "help TOPIC" to read a page; a unique prefix of TOPIC is enough.')
        lines = [heading, ""]
        lines += columns(names, width=width)
        lines += ["", footer.render(lang)]
        return "\n".join(lines) + "\n"


def columns(words: list[str], *, width: int = 79, gap: int = 2) -> list[str]:
    """Lay words out column-major in as many columns as fit in ``width``."""
    if not words:
        return []
    cell = max(len(w) for w in words) + gap
    ncols = max(1, (width + gap) // cell)
    nrows = -(-len(words) // ncols)
    rows = []
    for r in range(nrows):
        row = [words[c * nrows + r] for c in range(ncols) if c * nrows + r < len(words)]
        rows.append("".join(w.ljust(cell) for w in row).rstrip())
    return rows


_default: HelpCatalog | None = None


def default_catalog() -> HelpCatalog:
    """The catalog over the pages shipped in the package, made on first use."""
    global _default
    if _default is None:
        _default = HelpCatalog()
    return _default


def topics(lang: str | None = None) -> list[str]:
    """:meth:`HelpCatalog.topics` on the shipped pages."""
    return default_catalog().topics(lang)


def lookup(topic: str, lang: str = DEFAULT_LANGUAGE) -> HelpPage:
    """:meth:`HelpCatalog.lookup` on the shipped pages."""
    return default_catalog().lookup(topic, lang)


def index(lang: str = DEFAULT_LANGUAGE, *, width: int = 79) -> str:
    """:meth:`HelpCatalog.index` on the shipped pages."""
    return default_catalog().index(lang, width=width)
