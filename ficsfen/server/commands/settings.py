"""``set VARIABLE VALUE``, ``variables [HANDLE]`` and ``style N``.

Each variable is a small value object saying how to read what the player
typed and how to confirm it.  Variable names and the words they accept
may be abbreviated to any unique prefix (``set lang fr``, ``set showf on``);
the language confirmation is rendered in the new language.

Besides ours, the variables ICS clients set when they connect (``set
interface xboard 4.9.1``, ``set width 79``, ``set seek 0``...) are accepted
with FICS's ranges, kept per session and listed by ``variables``;
``interface`` and ``prompt`` take the rest of the line.

A registered player's settings (language, style, showfen, charset, the
prompt and the ``set`` variables) are saved when changed and applied at
their next login (:func:`saved`, :func:`apply_saved`); ``interface`` and the
interface variables (``iset``) stay with the session, as on FICS.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, language_name, msg
from ficsfen.names import (VARIABLE, NameKind, NameResolutionError,
                           resolve_language, resolve_value)
from ficsfen.server import zones
from ficsfen.server.commands import notes
from ficsfen.server.commands.online_player import online_player
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["SetCommand", "StyleCommand", "VARIABLES", "Variable", "VariablesCommand",
           "apply_saved", "saved"]


class BadValueError(LocalizedError, ValueError):
    """A value a variable cannot take; :attr:`message` says which ones it can."""


def _values_of(what: Message, choices: dict[str, Any]) -> NameKind:
    """The words a variable takes: a word naming none of them, or several, is a bad value."""

    def bad(word: str, *matches: object) -> Message:
        return msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                   value=word, what=what, choices=" ".join(dict.fromkeys(choices)))

    return NameKind(f"value of {what.msgid}", no_match=bad, ambiguous=bad)


def _set_language(session: IServerCaller, code: str) -> Message:
    session.lang = code
    return msg("Language set to {language}.", language=language_name(code))


_CHARSET_WORDS = {"utf8": "utf8", "utf-8": "utf8", "latin1": "latin1", "latin-1": "latin1",
                  "iso-8859-1": "latin1", "ascii": "ascii"}


_CHARSET_VALUES = _values_of(msg("charset"), _CHARSET_WORDS)


def _charset(word: str) -> str:
    return resolve_value(word, _CHARSET_WORDS, _CHARSET_VALUES)


def _set_charset(session: IServerCaller, value: str) -> Message:
    session.charset = value
    return msg("Output charset set to {charset}.", charset=value)


def _style(word: str) -> int:
    if word in ("1", "12"):
        return int(word)
    raise BadValueError(msg("Style {value} is not supported; use 1 (diagram) or 12 (ICS clients).",
                       value=word))


def _set_style(session: IServerCaller, value: int) -> Message:
    session.style = value
    return msg("Style {style} set.", style=value)


_BOOLEAN = {"1": True, "on": True, "true": True, "yes": True,
            "0": False, "off": False, "false": False, "no": False}


_SHOWFEN_VALUES = _values_of(msg("showfen"), _BOOLEAN)


def _showfen(word: str) -> bool:
    return resolve_value(word, _BOOLEAN, _SHOWFEN_VALUES)


def _set_showfen(session: IServerCaller, value: bool) -> Message:
    session.showfen = value
    if value:
        return msg("You will now see the FEN after every board.")
    return msg("You will no longer see the FEN after every board.")


@dataclass(frozen=True)
class Variable:
    """One settable variable: how to read a value, apply it and show it.

    ``listed`` says whether ``variables`` shows it among the ``name=value``
    pairs (``interface`` and ``prompt`` get lines of their own).
    """

    name: str
    values: str
    read: Callable[[str], Any]
    apply: Callable[[Any, Any], Message]
    show: Callable[[Any], str]
    toggle: Callable[[Any], Any] | None = None
    listed: bool = True
    #: The help page, when not the variable's name (``notes`` for ``set 1``..``set 10``).
    help_topic: str = ""

    @property
    def topic(self) -> str:
        return self.help_topic or self.name


def _flag(name: str, default: bool, *, listed_by_who: bool = False,
          said: tuple[Message, Message] | None = None) -> Variable:
    """A FICS on/off variable clients set (``set open 1``); ``set NAME`` alone toggles it.

    ``listed_by_who``: ``who`` shows it, so a change makes its listing stale;
    ``said``: FICS's confirmations (on, off) instead of ``NAME set to 1.``.
    """
    values = _values_of(msg(name), _BOOLEAN)

    def read(word: str) -> bool:
        return resolve_value(word, _BOOLEAN, values)

    def current(session: IServerCaller) -> bool:
        return bool(session.variables.get(name, default))

    def apply(session: IServerCaller, value: bool) -> Message:
        session.variables[name] = value
        if listed_by_who:
            session.players.listing_changed()
        if said is not None:
            return said[0] if value else said[1]
        return msg("{name} set to {value}.", name=name, value=int(value))

    return Variable(name, "0|1|on|off", read, apply, lambda s: str(int(current(s))),
                    toggle=lambda s: not current(s))


def _rated_flag() -> Variable:
    """``set rated``: whether ``match`` and ``seek`` ask for rated games by default (0, as
    in the lasker server's defaults); a guest plays unrated only and cannot change it
    (the lasker server's answer)."""
    flag = _flag("rated", False)

    def apply(session: IServerCaller, value: bool) -> Message:
        if not session.registered:
            return msg("You cannot change your rated status.")
        return flag.apply(session, value)

    def show(session: IServerCaller) -> str:
        return flag.show(session) if session.registered else "0"

    return replace(flag, apply=apply, show=show)


def _number(name: str, low: int, high: int, default: int) -> Variable:
    """A FICS number variable (``set width 79``), refused outside ``low``-``high``."""

    def read(word: str) -> int:
        if word.isascii() and word.isdigit() and low <= int(word) <= high:
            return int(word)
        raise BadValueError(msg("Bad value \"{value}\" for {what}: give a number from {low} to {high}.",
                                value=word, what=name, low=low, high=high))

    def apply(session: IServerCaller, value: int) -> Message:
        session.variables[name] = value
        return msg("{name} set to {value}.", name=name, value=value)

    return Variable(name, f"{low}-{high}", read, apply,
                    lambda s: str(s.variables.get(name, default)))


_MAX_TEXT = 1000


def _text(word: str) -> str:
    if len(word) > _MAX_TEXT:
        raise BadValueError(msg("That text is too long: at most {limit} characters.",
                                limit=_MAX_TEXT))
    return word


def _set_interface(session: IServerCaller, value: str) -> Message:
    session.interface = value
    return msg("interface set to \"{value}\".", value=value)


def _set_prompt(session: IServerCaller, value: str | None) -> Message:
    # FICS puts a space after the text, as after its own "fics%".
    session.chosen_prompt = session.default_prompt if value is None else value + " "
    return msg("prompt set to \"{value}\".", value=session.chosen_prompt)


def _zone(word: str) -> str:
    """The time zone ``word`` names (``""``: the server's own)."""
    try:
        return zones.zone_name(word)
    except zones.UnknownZoneError as e:
        raise BadValueError(e.message) from None


def _set_zone(session: IServerCaller, value: str) -> Message:
    session.tzone = value
    if not value:
        return msg("Time zone set to the server's own ({zone}).", zone=zones.server_zone_name())
    return msg("Time zone set to {zone}.", zone=value)


def _note(number: int) -> Variable:
    """``set N TEXT``: finger note ``N`` (an empty text, or none, clears it)."""

    def read(word: str) -> str:
        try:
            return notes.note_text(word)
        except notes.NoteTooLongError as e:
            raise BadValueError(e.message) from None

    return Variable(str(number), "TEXT", read,
                    lambda session, text: notes.set_note(session, number, text),
                    lambda s: s.notes[number - 1] if number <= len(s.notes) else "",
                    toggle=lambda s: "", listed=False, help_topic="notes")


VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("charset", "utf8|latin1|ascii", _charset, _set_charset, lambda s: s.charset),
    Variable("language", "English|Français|en|fr", resolve_language, _set_language,
             lambda s: language_name(s.lang)),
    Variable("showfen", "0|1|on|off", _showfen, _set_showfen,
             lambda s: "1" if s.showfen else "0", toggle=lambda s: not s.showfen),
    Variable("style", "1|12", _style, _set_style, lambda s: str(s.style)),
    # What ICS clients set: FICS's names, ranges and defaults; listed, no effect here.
    _number("width", 32, 240, 79),
    _number("height", 5, 240, 24),
    _flag("bell", True),
    _flag("open", True, listed_by_who=True,
          said=(msg("You are now open to receive match requests."),
                msg("You are no longer open to receive match requests."))),
    _flag("private", False, said=(msg("Your games will be private."),
                                  msg("Your games may not be private."))),
    _rated_flag(),
    _flag("seek", True),
    _flag("shout", True),
    _flag("cshout", True),
    _flag("tell", True),
    _flag("chanoff", False),
    _flag("pin", False),
    _flag("gin", False),
    _flag("availinfo", False),
    # Hear of a player who has you on their notify list when you do not list them.
    _flag("notifiedby", True),
    _number("level1", 0, 9, 0),
    # pychess sets these two.  The server always calls the flag when a clock
    # runs out, and starting a game never stops your observing others: the
    # defaults say what happens here (autoflag 1, unobserve 3), whatever is set.
    _flag("autoflag", True),
    _number("unobserve", 0, 3, 3),
    Variable("interface", "TEXT", _text, _set_interface, lambda s: s.interface, listed=False),
    Variable("tzone", "ZONE", _zone, _set_zone, lambda s: s.tzone, toggle=lambda s: "",
             listed=False),
    *(_note(number) for number in range(1, notes.MAX_NOTES + 1)),
    Variable("prompt", "TEXT", _text, _set_prompt, lambda s: s.chosen_prompt,
             toggle=lambda s: None, listed=False),
)}


#: Keeps a registered player's settings for their next login (nothing for others).
SaveSettings = Callable[[IServerCaller], None]


class SetCommand(Command):
    """``set variable [value]``; each change but ``interface`` is saved with ``save``."""

    name = "set"
    spec = "ws"
    usage = msg("set variable [value]")

    def __init__(self, *, save: SaveSettings = lambda caller: None) -> None:
        self.save = save

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
        if variable.name != "interface":
            self.save(caller)


class StyleCommand(Command):
    """``style N``: the FICS shortcut for ``set style N``."""

    name = "style"
    spec = "w"
    usage = msg("style 1|12")

    def __init__(self, *, save: SaveSettings = lambda caller: None) -> None:
        self.save = save

    def run(self, caller: IServerCaller, value: str, *, directory: IServerDirectory) -> None:
        try:
            parsed = _style(value)
        except BadValueError as e:
            caller.send(e.message)
            return
        caller.send(_set_style(caller, parsed))
        self.save(caller)


class VariablesCommand(Command):
    name = "variables"
    spec = "o"
    usage = msg("variables [handle]")

    def run(self, caller: IServerCaller, who: str | None, *, directory: IServerDirectory) -> None:
        target = online_player(caller, who)
        if target is None:
            return
        values = "  ".join(f"{v.name}={v.show(target)}" for v in VARIABLES.values() if v.listed)
        # FICS's layout; the name=value cells are the variables' own names.
        caller.send(parsed(msg("Variable settings of {handle}:", handle=target.handle)))
        caller.send("\n" + _wrapped(values, 79))
        caller.send("\n" + caller.render(parsed(msg("Prompt: \"{prompt}\"",
                                                    prompt=target.prompt_text))))
        if target.interface:
            caller.send(parsed(msg("Interface: \"{interface}\"", interface=target.interface)))


def _wrapped(text: str, width: int) -> str:
    """``text`` broken at its double spaces into lines of at most ``width`` columns."""
    lines: list[str] = []
    for item in text.split("  "):
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += "  " + item
        else:
            lines.append(item)
    return "\n".join(lines)


#: Settings kept across logins, as ``set`` names them (``variables`` are the rest).
_KEPT = ("language", "style", "showfen", "charset", "tzone")


def saved(session: IServerCaller) -> dict[str, Any]:
    """What a registered player's next login restores: JSON values by ``set`` name."""
    data: dict[str, Any] = {"language": session.lang, "style": session.style,
                            "showfen": session.showfen, "charset": session.charset,
                            "tzone": session.tzone, "variables": dict(session.variables)}
    if any(session.notes):
        data["notes"] = list(session.notes)
    if session.chosen_prompt != session.default_prompt:
        data["prompt"] = session.chosen_prompt
    if session.journal:
        data["journal"] = {str(slot): game for slot, game in sorted(session.journal.items())}
    return data


def apply_saved(session: IServerCaller, data: dict[str, Any]) -> None:
    """Apply :func:`saved` settings read back from the store.

    Each value goes through its variable's own reading, so a value this
    version does not accept (a language no longer shipped, a hand-edited
    file) is skipped rather than applied.
    """
    for name in _KEPT:
        if name in data:
            _restore(session, VARIABLES[name], data[name])
    variables = data.get("variables")
    if isinstance(variables, dict):
        for name, value in variables.items():
            variable = VARIABLES.get(name)
            if variable is not None and variable.listed and name not in _KEPT:
                _restore(session, variable, value)
    prompt = data.get("prompt")
    if isinstance(prompt, str) and prompt.endswith(" "):
        _restore(session, VARIABLES["prompt"], prompt[:-1])
    journal = data.get("journal")
    if isinstance(journal, dict):
        for key, game in journal.items():
            if (isinstance(key, str) and key.isascii() and key.isdigit() and 1 <= int(key) <= 26
                    and isinstance(game, int) and not isinstance(game, bool)):
                session.journal[int(key)] = game
    kept_notes = data.get("notes")
    if isinstance(kept_notes, list):
        for number, text in enumerate(kept_notes[:notes.MAX_NOTES], 1):
            if isinstance(text, str) and text:
                _restore(session, VARIABLES[str(number)], text)


def _restore(session: IServerCaller, variable: Variable, value: Any) -> None:
    if isinstance(value, bool) and variable.name != "showfen" and variable.toggle is None:
        return
    word = str(int(value)) if isinstance(value, bool) else str(value)
    try:
        variable.apply(session, variable.read(word))
    except (BadValueError, NameResolutionError, ValueError, TypeError):
        pass
