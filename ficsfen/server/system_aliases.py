"""FICS's system aliases: the short words every player may type (``f`` for ``finger``).

The table is FICS's ``help system_alias`` list, kept to the commands this
server has.  An alias is a template: the command and fixed words, then
``$@`` where the rest of the typed line goes (``p R`` is ``who aR``); a
template without ``$@`` gets the rest after a space.  A one-character
punctuation alias is glued to its text: ``!hello`` shouts ``hello``,
``*nice`` kibitzes ``nice``, ``#`` whispers.

Where they sit in the command-line grammar (:mod:`.dispatcher`): after the
player's own aliases (so ``alias f finger $@ /b`` overrides ``f``), before
command names (so ``r`` is ``refresh``, never a prefix of ``resign``); a
line starting with ``$`` skips both.  An alias whose command this server
does not have (``i`` before ``it`` exists) is left alone: the word then
goes through the command table as typed.

``quit`` is not here: it cannot be abbreviated (``q`` does not log out),
which the command table enforces (:class:`~ficsfen.server.command_table.CommandTable`).
"""

from __future__ import annotations

from typing import Callable, Mapping

from ficsfen.names import fold
from ficsfen.tracker import is_move_text

__all__ = ["SYSTEM_ALIASES", "SystemAliases"]

#: FICS's system aliases (``help system_alias``), by word.
SYSTEM_ALIASES: Mapping[str, str] = {
    "a": "accept $@",
    "b": "backward $@",
    "clearboard": "bsetup $@",
    "cm": "clearmessages $@",
    "d": "decline $@",
    "e": "examine $@",
    "f": "finger $@",
    "fi": "finger $@",
    "fo": "forward $@",
    "g": "games $@",
    "h": "help $@",
    "hi": "history $@",
    "i": "it $@",
    "in": "inchannel $@",
    "logout": "quit",
    "m": "match $@",
    "ma": "match $@",
    "more": "next",
    "n": "next $@",
    "new": "news $@",
    "o": "observe $@",
    "p": "who a$@",
    "pl": "who a$@",
    "player": "who a$@",
    "players": "who a$@",
    "r": "refresh $@",
    "res": "resign $@",
    "setup": "bsetup $@",
    "sh": "shout $@",
    "vars": "variables $@",
    "w": "who $@",
    "znotl": "znotify $@",
    # punctuation, glued to its text
    "!": "shout $@",
    "#": "whisper $@",
    "*": "kibitz $@",
    ":": "it $@",
    "?": "help $@",
    "^": "cshout $@",
    "`": ". $@",
}


class SystemAliases:
    """Expands a command line's first word by :data:`SYSTEM_ALIASES`.

    ``exists(name)`` says whether the server has the command ``name``: an
    alias of a command it lacks is not expanded.

    :raises ValueError: an alias word reads as a move (the dispatcher would run
        it instead of the move).
    """

    def __init__(self, exists: Callable[[str], bool],
                 table: Mapping[str, str] = SYSTEM_ALIASES) -> None:
        moves = [word for word in table if is_move_text(word)]
        if moves:
            raise ValueError(f"system aliases read as moves: {moves}")
        self._exists = exists
        self._table = {fold(word): text for word, text in table.items()}
        self._glued = frozenset(w for w in self._table if len(w) == 1 and not w.isalnum())

    def expand(self, line: str, word: str) -> str:
        """``line`` (whose first word is ``word``) with that word expanded, or ``line``
        itself (the same object) when it names no system alias, or one of a command
        the server lacks."""
        if word[0] in self._glued:
            text = line.lstrip()
            key, rest = text[0], text[1:].strip()
        else:
            key = fold(word)
            if key not in self._table:
                return line
            rest = line.lstrip()[len(word):].strip()
        template = self._table[key]
        if not self._exists(template.split(None, 1)[0]):
            return line
        if "$@" in template:
            return template.replace("$@", rest).rstrip()
        return f"{template} {rest}".rstrip()

    def words(self) -> list[str]:
        """The alias words that expand here (their command exists), sorted."""
        return sorted(w for w, t in self._table.items() if self._exists(t.split(None, 1)[0]))
