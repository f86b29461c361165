"""argparse that speaks the user's language, through argparse's public hooks only.

argparse writes its own texts (``usage:``, the ``options`` heading, the
``-h`` help, its error messages) in English.  :class:`LocalizedArgumentParser`
translates them from the ``argparse`` gettext domain in
``ficsfen/locale/<lang>/LC_MESSAGES/argparse.po``, whose msgids are
argparse's exact strings:

- help and usage go through :class:`LocalizedHelpFormatter`, which
  translates the ``usage:`` prefix, section headings and argument help that
  are argparse's own (our help strings are already in the user's language
  and are not in that domain, so they pass through);
- error messages reach :meth:`ArgumentParser.error` in English, already
  formatted; :meth:`LocalizedArgumentParser.translate_error` finds the
  msgid whose pattern they fit (``%s``, ``%(name)r``... match any text),
  and puts the same values into the translation.  A message no msgid fits
  (a newer Python's new wording, say) stays English.

Nothing of argparse or gettext is patched: other parsers in the process
keep speaking English.
"""

from __future__ import annotations

import argparse
import copy
import gettext
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any, NoReturn

from ficsfen.i18n import DEFAULT_LANGUAGE, LOCALE_DIR
from ficsfen.mofile import MsgId, read_msgids

__all__ = ["ArgparseTexts", "LocalizedArgumentParser", "LocalizedHelpFormatter", "argparse_texts"]

DOMAIN = "argparse"

# A printf conversion as argparse's messages use them: %s, %r, %d, %(name)s, %%.
_CONVERSION = re.compile(r"%(?:\((?P<name>\w+)\))?[-#0 +]*\d*(?:\.\d+)?(?P<kind>[sdrifx%])")


@dataclass(frozen=True)
class _Pattern:
    """One English text of a msgid, as a regular expression over a formatted message."""

    regex: re.Pattern[str]
    keys: tuple[str | int, ...]  # what each group holds: a name or a position
    literal: int  # characters of fixed text: the more, the more specific
    message: MsgId


def _pattern(text: str, message: MsgId) -> _Pattern:
    parts: list[str] = []
    keys: list[str | int] = []
    literal = position = start = 0
    for found in _CONVERSION.finditer(text):
        fixed = text[start:found.start()]
        parts.append(re.escape(fixed))
        literal += len(fixed)
        if found["kind"] == "%":
            parts.append("%")
            literal += 1
        else:
            parts.append(f"(?P<g{len(keys)}>.*?)")
            if found["name"]:
                keys.append(found["name"])
            else:
                keys.append(position)
                position += 1
        start = found.end()
    fixed = text[start:]
    parts.append(re.escape(fixed))
    literal += len(fixed)
    return _Pattern(re.compile("".join(parts), re.DOTALL), tuple(keys), literal + len(keys), message)


def _fill(template: str, values: dict[str | int, str]) -> str | None:
    """``template`` with each conversion replaced by the text matched for it (``None``: one is missing)."""
    out: list[str] = []
    position = start = 0
    for found in _CONVERSION.finditer(template):
        out.append(template[start:found.start()])
        start = found.end()
        if found["kind"] == "%":
            out.append("%")
            continue
        key: str | int = found["name"] or position
        if not found["name"]:
            position += 1
        if key not in values:
            return None
        out.append(values[key])
    out.append(template[start:])
    return "".join(out)


class ArgparseTexts:
    """argparse's texts in one language: plain lookups, and whole error messages."""

    def __init__(self, catalog: gettext.NullTranslations, messages: Sequence[MsgId] = ()) -> None:
        self.catalog = catalog
        patterns = [_pattern(text, m) for m in messages
                    for text in (m.singular, m.plural) if text is not None and m.context is None]
        # the most fixed text first: "argument X: Y" before a bare "%s"
        self._patterns = sorted(patterns, key=lambda p: -p.literal)

    def gettext(self, text: str) -> str:
        return self.catalog.gettext(text)

    def translate_error(self, message: str) -> str:
        """The translation of an error message argparse formatted in English.

        A ``%(message)s`` inside the message (``argument X: ...``) is
        translated in turn; a count chooses the plural form.  Returns
        ``message`` itself when no msgid of the catalog fits it.
        """
        for pattern in self._patterns:
            found = pattern.regex.fullmatch(message)
            if found is None:
                continue
            values = {key: found[f"g{i}"] for i, key in enumerate(pattern.keys)}
            if "message" in values:
                values["message"] = self.translate_error(values["message"])
            m = pattern.message
            if m.plural is None:
                template = self.catalog.gettext(m.singular)
            else:
                count = next((int(v) for v in values.values() if v.isdigit()), 2)
                template = self.catalog.ngettext(m.singular, m.plural, count)
            translated = _fill(template, values)
            if translated is not None:
                return translated
        return message


@cache
def argparse_texts(lang: str) -> ArgparseTexts:
    """argparse's texts in ``lang`` (English, untranslated, when it has no ``argparse`` catalog)."""
    if lang == DEFAULT_LANGUAGE:
        return ArgparseTexts(gettext.NullTranslations())
    path = gettext.find(DOMAIN, LOCALE_DIR, languages=[lang])
    if path is None:
        return ArgparseTexts(gettext.NullTranslations())
    catalog = gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
    return ArgparseTexts(catalog, read_msgids(Path(path)))


class LocalizedHelpFormatter(argparse.HelpFormatter):
    """A help formatter whose argparse texts (``usage:``, headings, ``-h``'s help) are translated."""

    def __init__(self, prog: str, *, texts: ArgparseTexts, **kwargs: Any) -> None:
        super().__init__(prog, **kwargs)
        self.texts = texts

    # ``groups`` holds argparse's mutually exclusive groups, a class typeshed
    # names privately: Any keeps that name out of this module.
    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action], groups: Iterable[Any],
                  prefix: str | None = None) -> None:
        if prefix is None:
            prefix = self.texts.gettext("usage: ")
        super().add_usage(usage, actions, groups, prefix)

    def start_section(self, heading: str | None) -> None:
        super().start_section(None if heading is None else self.texts.gettext(heading))

    def add_argument(self, action: argparse.Action) -> None:
        if action.help and action.help is not argparse.SUPPRESS:
            translated = self.texts.gettext(action.help)
            if translated != action.help:
                action = copy.copy(action)
                action.help = translated
        super().add_argument(action)


class LocalizedArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose own texts are in ``lang``.

    ``lang`` is required, also of sub-parsers: give it to
    ``add_subparsers(...).add_parser(name, lang=lang, ...)``.  Other
    arguments are argparse's.  Usage errors print the usage and the
    translated error on stderr and exit with status 2, as argparse does.
    """

    def __init__(self, *args: Any, lang: str, **kwargs: Any) -> None:
        self.lang = lang
        self.texts = argparse_texts(lang)
        kwargs.setdefault("formatter_class", partial(LocalizedHelpFormatter, texts=self.texts))
        super().__init__(*args, **kwargs)

    def translate_error(self, message: str) -> str:
        """``message`` (formatted by argparse in English) in this parser's language."""
        return self.texts.translate_error(message)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, self.texts.gettext("%(prog)s: error: %(message)s\n")
                  % {"prog": self.prog, "message": self.translate_error(message)})
