"""Examine mode: ``examine [HANDLE N]``, ``unexamine``, ``forward``, ``backward``, ``revert``, ``bsetup``.

The game logic is :class:`ficsfen.server.examined.ExaminedGame` (an
:class:`~ficsfen.server.interfaces.IExaminedGame`); these commands check who
may do what, and tell the examiners and observers through the caller's
:class:`~ficsfen.server.interfaces.IBoards` (``show_position``), which sends
each one the board in their style.
"""

from __future__ import annotations

import re

from dataclasses import replace
from typing import Any

from twisted.internet.defer import Deferred, maybeDeferred

from ficsfen.commands.base import Command
from ficsfen.fen import FenError
from ficsfen.i18n import Message, msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.names import NameKind, NameResolutionError, fold, resolve
from ficsfen.server.commands.history import replayed_history_game
from ficsfen.server.commands.store_commands import Reader, StoreGetter
from ficsfen.server.examined import (ExaminedGame, GameStateError, SetupDraft, clear_draft,
                                     draft_with_castling, draft_with_fen, start_draft)
from ficsfen.server.interfaces import IExaminedGame, IServerCaller, IServerDirectory
from ficsfen.server.reply import resumed
from ficsfen.server.variant_games import FICS_TYPES, stored_variant, variant_word
from ficsfen.variants import Variant

_INTEGER = re.compile(r"-?[0-9]+")

__all__ = ["BackwardCommand", "BsetupCommand", "ExamineCommand", "ForwardCommand",
           "RevertCommand", "UnexamineCommand", "examined_game"]


def examined_game(caller: IServerCaller, directory: IServerDirectory) -> IExaminedGame | None:
    """The game ``caller`` examines; tells them when there is none."""
    game = directory.game_of(caller.handle)
    if not IExaminedGame.providedBy(game):
        caller.send(msg("You are not examining a game."))
        return None
    return game


class ExamineCommand(Command):
    """``examine``: a scratch board; ``examine HANDLE N``: game N of a player's history.

    A stored game starts at its first position with its moves ahead:
    ``forward`` and ``backward`` step through it, ``fen`` shows where.
    ``store`` returns the server's store (``None`` without a data file);
    ``listener`` is told of moves in the game, as for any examined game.
    """

    name = "examine"
    spec = "oo"
    usage = msg("examine [HANDLE NUMBER|%SLOT]")

    def __init__(self, store: StoreGetter = lambda: None, listener: Any = None,
                 read: Reader = maybeDeferred) -> None:
        self.store = store
        self.listener = listener
        #: Runs a store read off the reactor thread (``FicsServer.read``).
        self.read = read

    def run(self, caller: IServerCaller, who: str | None, game: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        """A Deferred for a stored game (it is read off the reactor thread)."""
        journal = game is not None and game.startswith("%")
        number = int(game) if game is not None and _INTEGER.fullmatch(game) else None
        if who is not None and number is None and not journal:
            self.send_usage(caller)  # FICS's adjourned games are not examined here
            return None
        if self._busy(caller, directory):
            return None
        if who is None or game is None:
            caller.send(parsed(msg("Starting a game in examine (scratch) mode.")))
            caller.games.examine(caller.handle)
            return None
        if journal:
            from ficsfen.server.commands.journal_cmds import replayed_journal_game
            return resumed(caller, replayed_journal_game(caller, self.store(), who, game,
                                                         self.read)).addCallback(
                self._open, caller, directory)
        assert number is not None
        return self.examine_stored(caller, who, number, directory)

    @staticmethod
    def _busy(caller: IServerCaller, directory: IServerDirectory) -> bool:
        current = directory.game_of(caller.handle)
        if current is None:
            return False
        if IExaminedGame.providedBy(current):
            caller.send(parsed(msg("You are already examining game {number}.", number=current.number)))
        else:
            caller.send(msg("You are playing game {number}.", number=current.number))
        return True

    def examine_stored(self, caller: IServerCaller, who: str, number: int,
                       directory: IServerDirectory) -> Deferred[None]:
        # Once the game is read, its board is part of this command's answer again.
        return resumed(caller, replayed_history_game(caller, self.store(), who, number,
                                                     self.read)).addCallback(
            self._open, caller, directory)

    def _open(self, found: Any, caller: IServerCaller, directory: IServerDirectory) -> None:
        # Checked again: a game may have started, or the caller left, during the read.
        if found is None or caller.players.session(caller.handle) is not caller or (
                self._busy(caller, directory)):
            return
        stored = found[0]
        game = ExaminedGame.replaying(caller.handle, white=stored.start.white,
                                      black=stored.start.black, fen=stored.start.fen,
                                      moves=[m.uci for m in stored.moves],
                                      variant=stored_variant(stored.start.variant))
        game.listener = self.listener
        directory.add(game)
        caller.boards.show_position(game)


class UnexamineCommand(Command):
    name = "unexamine"
    spec = ""
    usage = msg("unexamine")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        game = examined_game(caller, directory)
        if game is not None:
            caller.games.stop_examining(caller.handle, game)


class _Step(Command):
    spec = "p"

    def run(self, caller: IServerCaller, count: int | None, *, directory: IServerDirectory) -> None:
        if count is not None and count < 1:
            self.send_usage(caller)
            return
        game = examined_game(caller, directory)
        if game is None:
            return
        try:
            moved = self.step(game, count or 1)
        except GameStateError as e:
            caller.send(e.message)
            return
        if not moved:
            caller.send(self.nothing)
            return
        directory.position_changed(game)  # listeners skip what they already heard (forward's moves)
        caller.boards.show_position(game, note=self.note(game, caller.handle, moved))

    nothing: Message

    def step(self, game: IExaminedGame, count: int) -> int:  # pragma: no cover
        raise NotImplementedError

    def note(self, game: IExaminedGame, handle: str, moved: int) -> Message:  # pragma: no cover
        raise NotImplementedError


class ForwardCommand(_Step):
    name = "forward"
    usage = msg("forward [count]")
    nothing = msg("You're at the end of the game.")

    def step(self, game: IExaminedGame, count: int) -> int:
        return game.forward(count)

    def note(self, game: IExaminedGame, handle: str, moved: int) -> Message:
        return parsed(msgn("Game {number}: {handle} goes forward {count} move.",
                    "Game {number}: {handle} goes forward {count} moves.",
                    moved, number=game.number, handle=handle))


class BackwardCommand(_Step):
    name = "backward"
    usage = msg("backward [count]")
    nothing = msg("You're at the beginning of the game.")

    def step(self, game: IExaminedGame, count: int) -> int:
        return game.backward(count)

    def note(self, game: IExaminedGame, handle: str, moved: int) -> Message:
        return parsed(msgn("Game {number}: {handle} backs up {count} move.",
                    "Game {number}: {handle} backs up {count} moves.",
                    moved, number=game.number, handle=handle))


class RevertCommand(_Step):
    name = "revert"
    spec = ""
    usage = msg("revert")
    nothing = msg("You're at the beginning of the game.")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:  # type: ignore[override]
        super().run(caller, None, directory=directory)

    def step(self, game: IExaminedGame, count: int) -> int:
        return game.revert()

    def note(self, game: IExaminedGame, handle: str, moved: int) -> Message:
        return parsed(msg("Game {number}: {handle} goes back to the starting position.",
                   number=game.number, handle=handle))


_CASTLE_WORDS = ("none", "kside", "qside", "both")


_BSETUP_USAGE = msg("bsetup [fen RECORD | start | clear | tomove white|black | "
                    "wcastle|bcastle none|kside|qside|both | eppos FILE|none | done]")
_BSETUP_VARIANT_USAGE = msg("bsetup fr | wild fr | crazyhouse | zh")

#: The words of ``bsetup`` (subcommands and their arguments): a word that
#: names none of them, or several, is answered with the usage line.
_BSETUP_WORD = NameKind(
    "bsetup word",
    no_match=lambda word: msg("Usage: {usage}", usage=_BSETUP_USAGE),
    ambiguous=lambda word, matches: msg("Usage: {usage}", usage=_BSETUP_USAGE),
)


# Each ``bsetup`` edit: (draft, argument, variant) -> the new draft.  ``ValueError``
# or a NameResolutionError means the argument does not fit (the usage line);
# ``FenError`` is the codec's own field error.  Nothing is stored until the edit succeeds.


def _setup_fen(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
    if not arg:
        raise ValueError(arg)
    return draft_with_fen(draft, arg, variant)


def _setup_start(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
    return start_draft(variant)


def _setup_clear(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
    return clear_draft(variant)


def _setup_tomove(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
    side = resolve(arg, ("white", "black"), _BSETUP_WORD)
    draft = replace(draft, turn=side[0])
    if draft.ep != "-":  # the en passant square follows the side to move
        draft = replace(draft, ep=draft.ep[0] + ("6" if side[0] == "w" else "3"))
    return draft


def _setup_castle(color: str):
    def edit(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
        which = resolve(arg, _CASTLE_WORDS, _BSETUP_WORD)
        return draft_with_castling(draft, color, which)
    return edit


def _setup_eppos(draft: SetupDraft, arg: str, variant: Variant | None) -> SetupDraft:
    word = fold(arg)
    if word in ("none", "-"):
        return replace(draft, ep="-")
    if len(word) == 1 and "a" <= word <= "h":
        rank = "6" if draft.turn == "w" else "3"
        return replace(draft, ep=word + rank)
    if len(word) == 2 and "a" <= word[0] <= "h" and word[1] in "36":
        return replace(draft, ep=word)  # a whole square; "bsetup done" checks it
    raise ValueError(arg)


_EDITS = {
    "bcastle": _setup_castle("b"),
    "clear": _setup_clear,
    "eppos": _setup_eppos,
    "fen": _setup_fen,
    "start": _setup_start,
    "tomove": _setup_tomove,
    "wcastle": _setup_castle("w"),
}
_SUBCOMMANDS = tuple(sorted([*_EDITS, "done"]))


class BsetupCommand(Command):
    """Set up a position in the examined game; ``bsetup done`` validates it."""

    name = "bsetup"
    spec = "s"
    usage = _BSETUP_USAGE

    def run(self, caller: IServerCaller, rest: str | None, *, directory: IServerDirectory) -> None:
        game = examined_game(caller, directory)
        if game is None:
            return
        if rest is None:
            if game.setup is not None:
                caller.send(msg("You are already in setup mode."))
                return
            game.start_setup()
            caller.send(parsed(msg("Entering setup mode for game {number}.", number=game.number)))
            return
        word, _, arg = rest.partition(" ")
        words = rest.split()
        variant_name, _ = variant_word(fold(word), words, 1)
        if variant_name is not None:
            self.set_up_variant(caller, game, variant_name)
            return
        try:
            sub = resolve(word, _SUBCOMMANDS, _BSETUP_WORD)
        except NameResolutionError as e:
            caller.send(e.message)
            return
        if sub == "done":
            self.done(caller, game, directory)
            return
        try:
            variant = game.setup_variant if game.setup is not None else game.tracker.variant
            draft = _EDITS[sub](game.draft(), arg.strip(), variant)
        except FenError as e:
            caller.send(e.render(caller.lang))
            return
        except (ValueError, NameResolutionError):
            self.send_usage(caller)
            return
        if game.setup is None:
            game.start_setup()  # the position's rules become the draft's
        game.setup = draft
        caller.send(msg("Setup position: {fen}", fen=draft.fen()))

    @staticmethod
    def set_up_variant(caller: IServerCaller, game: IExaminedGame, name: str) -> None:
        """``bsetup fr``, ``bsetup zh``: set up a position of that variant, from its start."""
        variant = FICS_TYPES.get(name)
        if variant is None:
            caller.send(msg("Sorry, {variant} games cannot be played on this server yet.",
                            variant=name))
            caller.send(msg("Usage: {usage}", usage=_BSETUP_VARIANT_USAGE))
            return
        draft = game.set_up_variant(variant)
        caller.send(msg("Setting up a {variant} position for game {number}.", variant=name,
                        number=game.number))
        caller.send(msg("Setup position: {fen}", fen=draft.fen()))

    @staticmethod
    def done(caller: IServerCaller, game: IExaminedGame, directory: IServerDirectory) -> None:
        if game.setup is None:
            caller.send(msg("You are not in setup mode."))
            return
        try:
            game.finish_setup()
        except FenError as e:
            caller.send(e.render(caller.lang))
            caller.send(msg("The position is not valid; you are still in setup mode."))
            return
        directory.position_changed(game)
        caller.boards.show_position(game, note=parsed(msg(
            "Game {number}: {handle} has set up a position.", number=game.number,
            handle=caller.handle)))
