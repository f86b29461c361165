"""``fen [NUMBER|HANDLE]``: the FEN of a game, on a line of its own.

Only :mod:`ficsfen.interfaces` is needed from the host: the caller
(handle, language, ``send``) and a game directory.  The FEN line stands
alone so that players can copy it and clients can parse it; the line before
it names the game.
"""

from __future__ import annotations


from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.interfaces import ICaller, IGame, IGameDirectory
from ficsfen.names import NameResolutionError, resolve_handle

__all__ = ["FenCommand", "NoGameError", "game_header"]


class NoGameError(LocalizedError, LookupError):
    """The caller's words name no current game; :attr:`message` says why."""


def game_header(game: IGame) -> Message:
    """The line naming a game above its FEN."""
    if game.examined:
        return msg("Game {number} ({white} vs. {black}, examined):",
                   number=game.number, white=game.white, black=game.black)
    return msg("Game {number} ({white} vs. {black}):",
               number=game.number, white=game.white, black=game.black)


class FenCommand(Command):
    """Print the FEN of your game, of game N, or of a player's game."""

    name = "fen"
    topic = "fen"
    spec = "o"
    usage = msg("fen [shredder] [game number | handle]")

    def __init__(self) -> None:
        # Rendered header lines by (number, white, black, examined, language):
        # everything the text depends on, so a cached line is never stale.
        self._headers: dict[tuple[int, str, str, bool, str], str] = {}

    def __call__(self, caller: ICaller, args: str, directory: IGameDirectory) -> None:
        if not args:  # bare ``fen``, by far the most common: nothing to parse
            self.run(caller, None, directory=directory)
            return
        # "shredder", first or last, asks for Shredder-FEN castling (rook files);
        # "fen shredder shredder" is then the game of a player called Shredder.
        words = args.split()
        if len(words) <= 2 and words[0].casefold() == "shredder":
            self.run(caller, words[1] if len(words) == 2 else None, directory=directory, shredder=True)
        elif len(words) == 2 and words[1].casefold() == "shredder":
            self.run(caller, words[0], directory=directory, shredder=True)
        else:
            super().__call__(caller, args, directory)

    def run(self, caller: ICaller, target: str | None, *, directory: IGameDirectory,
            shredder: bool = False) -> None:
        try:
            game = self.find(caller, target, directory)
        except (NoGameError, NameResolutionError) as e:
            caller.send(e.message)
            return
        tracker = game.tracker
        fen = tracker.fen_at(tracker.ply, shredder=True) if shredder else tracker.fen
        caller.send(f"{self.header(game, caller.lang)}\n{fen}")

    def header(self, game: IGame, lang: str) -> str:
        """:func:`game_header` rendered in ``lang``, cached."""
        key = (game.number, game.white, game.black, game.examined, lang)
        text = self._headers.get(key)
        if text is None:
            if len(self._headers) >= 4096:  # bound it; games come and go
                self._headers.clear()
            text = self._headers[key] = game_header(game).render(lang)
        return text

    @staticmethod
    def find(caller: ICaller, target: str | None, directory: IGameDirectory) -> IGame:
        """The game meant by ``target`` (see the help page).

        :raises NoGameError: there is no such game.
        :raises ficsfen.names.NameResolutionError: ``target`` names no logged-in player.
        """
        if target is None:
            game = directory.game_of(caller.handle) or directory.observed_by(caller.handle)
            if game is None:
                raise NoGameError(msg("You are not playing, examining or observing a game."))
            return game
        if target.isascii() and target.isdigit():
            game = directory.by_number(int(target))
            if game is None:
                raise NoGameError(msg("There is no game {number}.", number=int(target)))
            return game
        handle = resolve_handle(target, directory.handles())
        game = directory.game_of(handle)
        if game is None:
            raise NoGameError(msg("{handle} is not playing or examining a game.", handle=handle))
        return game
