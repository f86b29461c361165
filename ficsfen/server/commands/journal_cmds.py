"""A registered player's journal: ``journal``, ``jsave`` and ``jkill``, as on FICS.

A journal keeps up to 26 finished games for good, where ``history`` keeps
the last ten.  Its slots are named ``a`` to ``z`` (or ``1`` to ``26``) when
typed, and listed ``%01`` to ``%26`` in FICS's layout, which pychess reads
at login (``Journal for NAME:`` then one line per entry) and whose entries
it opens with ``smoves NAME %01`` and ``examine NAME %01``.  A slot holds
the number of a game of the store (games are never deleted from it), kept
in the player's saved settings (``journal``: slot number -> game id) and in
their session while they are logged in (:attr:`Session.journal`).  Guests
have none.

``jsave SLOT NAME GAME`` copies game ``GAME`` of ``NAME``'s history (its
number there, ``-1`` the last) or of ``NAME``'s journal (``%SLOT``) into
the caller's slot; ``jkill SLOT`` empties one.  The listing and its
"no entries" line stay in English (clients parse them).
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred

from ficsfen.commands.base import Command
from ficsfen.i18n import msg
from ficsfen.server.commands.history import find_history_game
from ficsfen.server.commands.store_commands import (Reader, StoreCommand, StoreGetter,
                                                    for_player)
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.openings import NO_ECO, stored_eco
from ficsfen.server.store import StoredGame
from ficsfen.server.variant_games import category_letter, stored_category
from ficsfen.tracker import Tracker, TrackerError

__all__ = ["SLOTS", "JournalCommand", "JkillCommand", "JsaveCommand", "commands",
           "journal_line", "journal_slot", "live_journal", "parse_journal",
           "replayed_journal_game"]

#: How many games a journal holds (FICS: 26, named by the letters).
SLOTS = 26
_HEADER = "     White         Rating  Black         Rating  Type         ECO End Result"

#: Saves a player's settings (``FicsServer.save_settings``).
Save = Callable[[IServerCaller], None]


def journal_slot(word: str) -> int | None:
    """The slot ``word`` names, 1 to 26: a letter ``a``-``z`` (any case) or a number,
    with or without FICS's ``%``; ``None`` if it names none."""
    word = word.removeprefix("%")
    if len(word) == 1 and word.isascii() and word.isalpha():
        return ord(word.lower()) - ord("a") + 1
    if word.isascii() and word.isdigit() and 1 <= int(word) <= SLOTS:
        return int(word)
    return None


def _shown(slot: int) -> str:
    return f"%{slot:02d}"


def live_journal(caller: IServerCaller, handle: str) -> dict[int, int] | None:
    """``handle``'s journal (slot -> game id) as their session holds it while they are
    logged in, a copy; ``None`` when they are not (their saved settings hold it)."""
    session = caller.players.session(handle)
    if session is None:
        return None
    return dict(getattr(session, "journal", {}))


def _journal(store: Any, handle: str, live: dict[int, int] | None) -> dict[int, int]:
    """``live``, else the journal ``handle``'s saved settings hold (a store read)."""
    if live is not None:
        return live
    return parse_journal(store.load_settings(handle).get("journal"))


def parse_journal(value: Any) -> dict[int, int]:
    """The journal in saved settings (``{"1": game id, ...}``), what is valid of it."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for key, game_id in value.items():
        slot = journal_slot(str(key))
        if slot is not None and isinstance(game_id, int) and not isinstance(game_id, bool):
            out[slot] = game_id
    return out


def journal_line(slot: int, game: StoredGame) -> str:
    """One entry of ``journal``, FICS's columns (ratings 0: nobody is rated here)."""
    start, end = game.start, game.end
    kind = category_letter(stored_category(start)) + ("r" if start.rated else "u")
    code = str(end.code) if end is not None else "---"
    result = end.result if end is not None else "*"
    return (f"{_shown(slot)}: {start.white[:13]:<13} {0:>4}    {start.black[:13]:<13} {0:>4}    "
            f"[ {kind}{start.initial_seconds // 60:>3}{start.increment_seconds:>4}] "
            f"{stored_eco(game) or NO_ECO:<3} {code:<3} {result}")


def _games(store: Any, journal: dict[int, int]) -> list[tuple[int, StoredGame]]:
    """The games of ``journal`` in slot order (a store read)."""
    out = []
    for slot in sorted(journal):
        game = store.get_game(journal[slot])
        if game is not None:
            out.append((slot, game))
    return out


def replayed_journal_game(caller: IServerCaller, store: Any, who: str, word: str,
                          read: Reader = maybeDeferred
                          ) -> Deferred[tuple[StoredGame, Tracker] | None]:
    """Entry ``word`` (``%01``, ``%a``) of ``who``'s journal and its moves replayed, or tell
    the caller why not (``smoves NAME %01``, ``examine NAME %01``)."""
    slot = journal_slot(word)

    def named(handle: str) -> Any:
        if slot is None:
            caller.send(msg("\"{slot}\" is not a journal slot: use a to z.", slot=word))
            return None
        return read(_entry, store, handle, slot, live_journal(caller, handle)).addCallback(
            replayed, handle)

    def replayed(game: StoredGame | None, handle: str) -> tuple[StoredGame, Tracker] | None:
        if game is None:
            caller.send(msg("{handle} has no journal entry {slot}.", handle=handle,
                            slot=_shown(slot or 0)))
            return None
        try:
            return game, game.replay()
        except TrackerError:
            caller.send(msg("History game {number} not available for {handle}.",
                            number=_shown(slot or 0), handle=handle))
            return None

    return for_player(caller, who, store, read, named)


def _entry(store: Any, handle: str, slot: int,
           live: dict[int, int] | None) -> StoredGame | None:
    """Entry ``slot`` of ``handle``'s journal (a store read)."""
    if store is None:
        return None
    game_id = _journal(store, handle, live).get(slot)
    return store.get_game(game_id) if game_id is not None else None


class JournalCommand(StoreCommand):
    """``journal [HANDLE]``: the games a player keeps in their journal."""

    name = "journal"
    spec = "o"
    usage = msg("journal [HANDLE]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> Deferred[None]:
        store = self.store()

        def listed(handle: str) -> Any:
            if store is None:
                return caller.send(f"{handle} has no journal entries.")
            return self.read(_listing, store, handle, live_journal(caller, handle)).addCallback(
                caller.send)

        return self.for_player(caller, who, store, listed)


def _listing(store: Any, handle: str, live: dict[int, int] | None) -> str:
    """The ``journal`` answer for ``handle`` (a store read)."""
    games = _games(store, _journal(store, handle, live))
    if not games:
        return f"{handle} has no journal entries."  # FICS's words: pychess reads them
    return "\n".join([f"Journal for {handle}:", _HEADER,
                      *(journal_line(slot, game) for slot, game in games)])


class _OwnJournal(StoreCommand):
    """A command that changes the caller's own journal, then saves their settings."""

    def __init__(self, store: StoreGetter, save: Save, read: Reader = maybeDeferred) -> None:
        super().__init__(store, read)
        self.save = save

    def allowed(self, caller: IServerCaller) -> bool:
        if not caller.registered or not hasattr(caller, "journal"):
            caller.send(msg("Only registered players may keep a journal."))
            return False
        if self.store() is None:
            caller.send(msg("This server keeps no data file: there are no journals here."))
            return False
        return True


class JsaveCommand(_OwnJournal):
    """``jsave SLOT HANDLE GAME``: keep a game of a player's history or journal."""

    name = "jsave"
    spec = "www"
    usage = msg("jsave SLOT HANDLE NUMBER|%SLOT")

    def run(self, caller: IServerCaller, slot_word: str, who: str, game: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        slot = journal_slot(slot_word)
        if slot is None or slot_word.startswith("%"):
            caller.send(msg("\"{slot}\" is not a journal slot: use a to z.", slot=slot_word))
            return None
        if not self.allowed(caller):
            return None
        store = self.store()
        if game.startswith("%"):
            found = replayed_journal_game(caller, store, who, game, self.read)
            return found.addCallback(lambda got: self._keep(caller, slot, got and got[0]))
        try:
            number = int(game)
        except ValueError:
            self.send_usage(caller)
            return None

        def named(handle: str) -> Any:
            return find_history_game(caller, store, handle, number, self.read).addCallback(
                lambda stored: self._keep(caller, slot, stored))

        return self.for_player(caller, who, store, named)

    def _keep(self, caller: IServerCaller, slot: int, game: StoredGame | None) -> None:
        if game is None:
            return
        journal: dict[int, int] = caller.journal
        journal[slot] = game.id
        self.save(caller)
        caller.send(msg("Game {white} vs. {black} saved in your journal as {slot}.",
                        white=game.start.white, black=game.start.black, slot=_shown(slot)))


class JkillCommand(_OwnJournal):
    """``jkill SLOT``: empty a slot of the caller's journal."""

    name = "jkill"
    spec = "w"
    usage = msg("jkill SLOT")

    def run(self, caller: IServerCaller, slot_word: str, *,
            directory: IServerDirectory) -> None:
        slot = journal_slot(slot_word)
        if slot is None:
            caller.send(msg("\"{slot}\" is not a journal slot: use a to z.", slot=slot_word))
            return
        if not self.allowed(caller):
            return
        journal: dict[int, int] = caller.journal
        if journal.pop(slot, None) is None:
            caller.send(msg("Your journal has no entry {slot}.", slot=_shown(slot)))
            return
        self.save(caller)
        caller.send(msg("Journal entry {slot} deleted.", slot=_shown(slot)))


def commands(store: StoreGetter, *, save: Save, read: Reader = maybeDeferred
             ) -> tuple[Command, ...]:
    """``journal``, ``jsave`` and ``jkill`` on the server's store, settings saver and reader."""
    return (JournalCommand(store, read), JsaveCommand(store, save, read),
            JkillCommand(store, save, read))

