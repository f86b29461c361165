"""``set VARIABLE VALUE``, ``variables [HANDLE]`` and ``style N``.

Each variable is a small value object saying how to read what the player
typed and how to confirm it.  Variable names and the words they accept
may be abbreviated to any unique prefix (``set lang fr``, ``set sh on``);
the language confirmation is rendered in the new language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, language_name, msg
from ficsfen.names import (VARIABLE, NameKind, NameResolutionError, resolve_handle,
                           resolve_language, resolve_value)
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["SetCommand", "StyleCommand", "VARIABLES", "Variable", "VariablesCommand"]


class BadValueError(LocalizedError, ValueError):
    """A value a variable cannot take; :attr:`message` says which ones it can."""


def _values_of(what: Message, choices: dict[str, Any]) -> NameKind:
    """The words a variable takes: a word naming none of them, or several, is a bad value."""

    def bad(word: str, *matches: object) -> Message:
        return msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                   value=word, what=what, choices=" ".join(dict.fromkeys(choices)))

    return NameKind(f"value of {what.msgid}", no_match=bad, ambiguous=bad)


def _set_language(session: Any, code: str) -> Message:
    session.lang = code
    return msg("Language set to {language}.", language=language_name(code))


_CHARSET_WORDS = {"utf8": "utf8", "utf-8": "utf8", "latin1": "latin1", "latin-1": "latin1",
                  "iso-8859-1": "latin1", "ascii": "ascii"}


_CHARSET_VALUES = _values_of(msg("charset"), _CHARSET_WORDS)


def _charset(word: str) -> str:
    return resolve_value(word, _CHARSET_WORDS, _CHARSET_VALUES)


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


_SHOWFEN_VALUES = _values_of(msg("showfen"), _BOOLEAN)


def _showfen(word: str) -> bool:
    return resolve_value(word, _BOOLEAN, _SHOWFEN_VALUES)


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
    Variable("language", "English|Français|en|fr", resolve_language, _set_language,
             lambda s: language_name(s.lang)),
    Variable("showfen", "0|1|on|off", _showfen, _set_showfen,
             lambda s: "1" if s.showfen else "0", toggle=lambda s: not s.showfen),
    Variable("style", "1|12", _style, _set_style, lambda s: str(s.style)),
)}


class SetCommand(Command):
    name = "set"
    spec = "wo"
    usage = msg("set variable [value]")

    def run(self, caller: IServerCaller, name: str, value: str | None, *,
            directory: IServerDirectory) -> None:
        try:
            variable = resolve_value(name, VARIABLES, VARIABLE)
        except NameResolutionError as e:
            caller.send(e.message)
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
            except (BadValueError, NameResolutionError) as e:
                caller.send(e.message)
                return
        caller.send(variable.apply(caller, parsed))


class StyleCommand(Command):
    """``style N``: the FICS shortcut for ``set style N``."""

    name = "style"
    spec = "w"
    usage = msg("style 1|12")

    def run(self, caller: IServerCaller, value: str, *, directory: IServerDirectory) -> None:
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

    def run(self, caller: IServerCaller, who: str | None, *, directory: IServerDirectory) -> None:
        target = caller
        if who is not None:
            try:
                handle = resolve_handle(who, directory.handles())
            except NameResolutionError as e:
                caller.send(e.message)
                return
            target = caller.players.session(handle)
        values = "  ".join(f"{v.name}={v.show(target)}" for v in VARIABLES.values())
        caller.send(msg("Variable settings of {handle}:", handle=target.handle))
        caller.send("\n" + values)
