"""``set VARIABLE VALUE``, ``variables [HANDLE]`` and ``style N``.

Each variable is a small value object saying how to read what the player
typed and how to confirm it.  Variable names and the words they accept
may be abbreviated to any unique prefix (``set lang fr``, ``set sh on``);
the language confirmation is rendered in the new language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ficsfen.commands.base import Command, find_player
from ficsfen.i18n import (LocalizedError, Message, available_languages, language_name, msg,
                          resolve_language, unique_prefix)
from ficsfen.server.session import CHARSETS

__all__ = ["SetCommand", "StyleCommand", "VARIABLES", "Variable", "VariablesCommand",
           "resolve_variable"]


class BadValueError(LocalizedError, ValueError):
    """A value a variable cannot take; :attr:`message` says which ones it can."""


def _choice(word: str, choices: dict[str, Any], what: Message) -> Any:
    """The value of the unique choice ``word`` starts (any case)."""
    found = unique_prefix(word, choices)
    if isinstance(found, tuple) and len({choices[k] for k in found}) == 1:
        found = found[0]  # several spellings of one value: "utf" is utf8 and utf-8
    if isinstance(found, str):
        return choices[found]
    raise BadValueError(msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                       value=word, what=what, choices=" ".join(dict.fromkeys(choices))))


def _language(word: str) -> str:
    found = resolve_language(word)
    if isinstance(found, str):
        return found
    names = ", ".join(f"{language_name(c)} ({c})" for c in available_languages())
    if found:
        raise BadValueError(msg("Ambiguous language \"{value}\". Matches: {matches}",
                           value=word, matches=", ".join(language_name(c) for c in found)))
    raise BadValueError(msg("Unknown language \"{value}\". Available: {choices}", value=word, choices=names))


def _set_language(session: Any, code: str) -> Message:
    session.lang = code
    return msg("Language set to {language}.", language=language_name(code))


_CHARSET_WORDS = {"utf8": "utf8", "utf-8": "utf8", "latin1": "latin1", "latin-1": "latin1",
                  "iso-8859-1": "latin1", "ascii": "ascii"}


def _charset(word: str) -> str:
    return _choice(word, _CHARSET_WORDS, msg("charset"))


def _set_charset(session: Any, value: str) -> Message:
    session.charset = value
    return msg("Output charset set to {charset}.", charset=value)


def _style(word: str) -> int:
    if word in ("1", "12"):
        return int(word)
    raise BadValueError(msg("Style {value} is not supported; use 1 (diagram) or 12 (ICS clients).",
                       value=word))


def _set_style(session: Any, value: int) -> Message:
    session.style = value
    return msg("Style {style} set.", style=value)


_BOOLEAN = {"1": True, "on": True, "true": True, "yes": True,
            "0": False, "off": False, "false": False, "no": False}


def _showfen(word: str) -> bool:
    return _choice(word, _BOOLEAN, msg("showfen"))


def _set_showfen(session: Any, value: bool) -> Message:
    session.showfen = value
    if value:
        return msg("You will now see the FEN after every board.")
    return msg("You will no longer see the FEN after every board.")


@dataclass(frozen=True)
class Variable:
    """One settable variable: how to read a value, apply it and show it."""

    name: str
    values: str
    read: Callable[[str], Any]
    apply: Callable[[Any, Any], Message]
    show: Callable[[Any], str]
    toggle: Callable[[Any], Any] | None = None

    @property
    def topic(self) -> str:
        return self.name


VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("charset", "utf8|latin1|ascii", _charset, _set_charset, lambda s: s.charset),
    Variable("language", "English|Français|en|fr", _language, _set_language,
             lambda s: language_name(s.lang)),
    Variable("showfen", "0|1|on|off", _showfen, _set_showfen,
             lambda s: "1" if s.showfen else "0", toggle=lambda s: not s.showfen),
    Variable("style", "1|12", _style, _set_style, lambda s: str(s.style)),
)}
assert set(_CHARSET_WORDS.values()) == set(CHARSETS)


def resolve_variable(word: str) -> Variable | Message:
    """The variable ``word`` names (unique prefix allowed), or why not."""
    found = unique_prefix(word, VARIABLES)
    if isinstance(found, str):
        return VARIABLES[found]
    if found:
        return msg("Ambiguous variable \"{name}\". Matches: {matches}",
                   name=word, matches=" ".join(found))
    return msg("No such variable \"{name}\".", name=word)


class SetCommand(Command):
    name = "set"
    spec = "wo"
    usage = msg("set variable [value]")

    def run(self, caller: Any, name: str, value: str | None, *, directory: Any) -> None:
        variable = resolve_variable(name)
        if isinstance(variable, Message):
            caller.send(variable)
            return
        if value is None:
            if variable.toggle is None:
                caller.send(msg("Usage: set {name} {values}", name=variable.name,
                                values=variable.values))
                return
            parsed = variable.toggle(caller)
        else:
            try:
                parsed = variable.read(value)
            except BadValueError as e:
                caller.send(e.message)
                return
        caller.send(variable.apply(caller, parsed))


class StyleCommand(Command):
    """``style N``: the FICS shortcut for ``set style N``."""

    name = "style"
    spec = "w"
    usage = msg("style 1|12")

    def run(self, caller: Any, value: str, *, directory: Any) -> None:
        try:
            parsed = _style(value)
        except BadValueError as e:
            caller.send(e.message)
            return
        caller.send(_set_style(caller, parsed))


class VariablesCommand(Command):
    name = "variables"
    spec = "o"
    usage = msg("variables [handle]")

    def run(self, caller: Any, who: str | None, *, directory: Any) -> None:
        target = caller
        if who is not None:
            handle = find_player(who, directory)
            if isinstance(handle, Message):
                caller.send(handle)
                return
            target = caller.server.session(handle)
        values = "  ".join(f"{v.name}={v.show(target)}" for v in VARIABLES.values())
        caller.send(msg("Variable settings of {handle}:", handle=target.handle))
        caller.send("\n" + values)
