"""The chess service behind the telnet protocol: sessions, games, commands.

:class:`FicsServer` knows nothing about bytes or telnet: the protocol
(:mod:`ficsfen.telnet`) hands it decoded lines, and it answers through
:class:`ficsfen.session.Session` objects.  Commands reach games only through
the :class:`ficsfen.interfaces.IGameDirectory` it owns, exactly as in a host
server.  Time comes from an injected ``IReactorTime`` (a
:class:`twisted.internet.task.Clock` in tests).
"""

from __future__ import annotations

import random
import re
import string
from typing import Any, Callable

from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorThreads, IReactorTime
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger

from ficsfen.command_table import CommandError, CommandTable
from ficsfen.commands import board_cmds, examine, session_cmds, settings
from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.config import Config, verify_password
from ficsfen.directory import GameDirectory
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.i18n import Message, msg
from ficsfen import boards
from ficsfen.session import Session

__all__ = ["FicsServer", "MOVE_PATTERN", "build_command_table"]

# A word shaped like a move (SAN, coordinates, castling): sent to the game,
# never looked up as a command.  Command names have no digits, so they
# cannot collide.
MOVE_PATTERN = re.compile(
    r"(?:[KQRBN]?[a-h]?[1-8]?[x:]?[a-h][1-8](?:=?[QRBNqrbn])?"
    r"|[a-h][1-8][-x]?[a-h][1-8]=?[QRBNqrbn]?"
    r"|[Oo0]-[Oo0](?:-[Oo0])?)[+#]?[!?]{0,2}"
)


def build_command_table(server: "FicsServer") -> CommandTable:
    """Every command of issue 3, with the FICS aliases."""
    pager = Pager(server.config.help_page_lines)
    table = CommandTable()
    for command in (
        FenCommand(),
        HelpCommand(server.catalog, pager=pager, command_names=lambda: table.names()),
        NextCommand(pager),
        settings.SetCommand(),
        settings.StyleCommand(),
        settings.VariablesCommand(),
        session_cmds.WhoCommand(),
        session_cmds.GamesCommand(),
        session_cmds.QuitCommand(),
        examine.ExamineCommand(),
        examine.UnexamineCommand(),
        examine.ForwardCommand(),
        examine.BackwardCommand(),
        examine.RevertCommand(),
        examine.BsetupCommand(),
        board_cmds.RefreshCommand(),
        board_cmds.MovesCommand(),
    ):
        table.register(command)
    return table


class FicsServer:
    """Sessions by handle, the game directory and the command table."""

    log = Logger()

    def __init__(self, config: Config | None = None, *, clock: IReactorTime,
                 rng: random.Random | None = None, catalog: HelpCatalog | None = None) -> None:
        self.config = config if config is not None else Config()
        self.clock = clock
        self.rng = rng if rng is not None else random.SystemRandom()
        self.catalog = catalog if catalog is not None else HelpCatalog(self.config.help_dir)
        self._sessions: dict[str, Session] = {}
        self._reserved: set[str] = set()
        self.directory = GameDirectory(self.handles)
        #: Game event listeners (the ``--feed``): see :attr:`GameDirectory.listeners`.
        self.game_hooks = self.directory.listeners
        self.connections = 0
        self.table = build_command_table(self)
        self.logout_hooks: list[Callable[[Session], None]] = []
        self._current: Session | None = None

    def __repr__(self) -> str:
        return f"<FicsServer sessions={len(self._sessions)} games={len(self.directory)}>"

    # -- sessions --------------------------------------------------------

    def handles(self) -> list[str]:
        return [s.handle for s in self._sessions.values()]

    def session(self, handle: str) -> Session | None:
        return self._sessions.get(handle.casefold())

    def sessions_sorted(self) -> list[Session]:
        return sorted(self._sessions.values(), key=lambda s: s.handle.casefold())

    def __len__(self) -> int:
        return len(self._sessions)

    def in_use(self, name: str) -> bool:
        key = name.casefold()
        return key in self._sessions or key in self._reserved

    def check_name(self, name: str) -> Message | None:
        """Why ``name`` cannot be used as a login name now, or ``None``."""
        if not (name.isascii() and name.isalpha()):
            return msg("Sorry, names can only consist of lower and upper case letters. Try again.")
        if len(name) < 3:
            return msg("A name should be at least 3 characters long! Try again.")
        if len(name) > 17:
            return msg("Sorry, names may be at most 17 characters long. Try again.")
        if name.casefold().startswith("guest"):
            return msg("Names starting with \"Guest\" are given to guests; type \"{word}\" to get one.",
                       word=self.config.guest_login)
        if self.in_use(name):
            return msg("Sorry, {name} is already logged in. Try another name.", name=name)
        return None

    def is_registered(self, name: str) -> bool:
        return name.casefold() in self.config.accounts

    def check_password(self, name: str, password: str) -> Deferred:
        """Whether ``password`` is ``name``'s, as a Deferred.

        Hashing takes a good fraction of a second by design, so it runs in
        the reactor's thread pool when the clock is a real reactor (inline
        with a test clock), never blocking other players.
        """
        stored = self.config.accounts.get(name.casefold(), "")
        if IReactorThreads.providedBy(self.clock):
            return deferToThreadPool(self.clock, self.clock.getThreadPool(),
                                     verify_password, password, stored)
        return succeed(verify_password(password, stored))

    def allocate_guest(self) -> str:
        """A fresh, unused ``GuestXXXX`` handle (reserved until entered or released)."""
        letters = string.ascii_uppercase
        while True:
            handle = "Guest" + "".join(self.rng.choice(letters) for _ in range(4))
            if not self.in_use(handle):
                self.reserve(handle)
                return handle

    def reserve(self, name: str) -> None:
        self._reserved.add(name.casefold())

    def release(self, name: str) -> None:
        self._reserved.discard(name.casefold())

    def enter(self, handle: str, *, write: Callable[[bytes], None], close: Callable[[], None],
              registered: bool = False, peer: str = "") -> Session:
        """Log ``handle`` in; the name must have been reserved by the login."""
        self.release(handle)
        session = Session(self, handle, write=write, close=close, lang=self.config.language,
                          registered=registered, peer=peer)
        self._sessions[handle.casefold()] = session
        self.log.info("login {handle} from {peer}", handle=handle, peer=peer)
        return session

    def logout(self, session: Session, *, reason: str = "") -> None:
        """Take ``session`` out of the server (its games and observations too) and close it."""
        key = session.handle.casefold()
        if self._sessions.get(key) is not session:
            return
        del self._sessions[key]
        for hook in self.logout_hooks:
            try:
                hook(session)
            except Exception:
                self.log.failure("logout hook failed for {handle}", handle=session.handle)
        game = self.directory.game_of(session.handle)
        if game is not None and getattr(game, "examined", False):
            self.stop_examining(session.handle, game, quiet=True)
        for observed in self.directory.observed_games(session.handle):
            self.directory.unobserve(session.handle, observed)
        self.log.info("logout {handle} ({reason})", handle=session.handle, reason=reason)
        session.disconnect()

    def shutdown(self) -> None:
        """Tell everyone the server stops, and close every session."""
        for session in list(self._sessions.values()):
            session.notify(msg("The server is shutting down. Goodbye."))
            self.logout(session, reason="shutdown")

    # -- commands --------------------------------------------------------

    def execute(self, session: Session, line: str) -> None:
        """Run one input line for ``session``, then write the prompt."""
        self._current = session
        session.hold()
        try:
            words = line.split(None, 1)
            if words:
                word = words[0]
                rest = words[1].strip() if len(words) > 1 else ""
                if not rest and MOVE_PATTERN.fullmatch(word):
                    self.move(session, word)
                else:
                    try:
                        command = self.table.resolve(word)
                    except CommandError as e:
                        session.send(e.message)
                    else:
                        command(session, rest, self.directory)
        except Exception:
            self.log.failure("command {line!r} from {handle} failed", line=line[:200],
                             handle=session.handle)
            session.send(msg("Sorry, an internal error occurred; it has been logged."))
        finally:
            self._current = None
        if self._sessions.get(session.handle.casefold()) is session:
            session.prompt()
        session.release()

    def move(self, session: Session, text: str) -> None:
        """A move typed at the prompt, for the game ``session`` plays or examines."""
        game = self.directory.game_of(session.handle)
        if game is None:
            session.send(msg("You are not playing or examining a game."))
            return
        try:
            ply = game.push_move(session.handle, text)
        except Exception as e:
            # Refusals (illegal move, not your turn, setup mode...) carry
            # their localized reason; anything else is a bug, logged by execute.
            if not callable(getattr(e, "render", None)):
                raise
            session.send(e.render(session.lang))
            return
        if ply is not None:
            self.show_position(game, note=msg("Game {number}: {handle} moves: {san}",
                                              number=game.number, handle=session.handle,
                                              san=ply.san), note_to_caller=False)

    # -- boards ----------------------------------------------------------

    def watchers(self, game: Any) -> list[str]:
        """Handles who see every board of ``game``: its players, then observers."""
        return list(dict.fromkeys([*game.players(), *self.directory.observers(game)]))

    def board_text(self, session: Session, game: Any, cache: dict | None = None) -> str:
        """The board as ``session`` wants it (style 1 or 12), with the FEN if showfen."""
        if session.style == 12:
            text = boards.style12(game, viewer=session.handle)
        else:
            flipped = boards.flip_for(game, session.handle)
            key = (session.lang, flipped)
            text = cache.get(key) if cache is not None else None
            if text is None:
                own = getattr(game, "style1", None)  # games that cache their diagrams
                if own is not None:
                    text = own(flipped=flipped, lang=session.lang)
                else:
                    text = boards.style1(game, viewer=session.handle, lang=session.lang)
                if cache is not None:
                    cache[key] = text
        if session.showfen:
            text = f"{text}\n{game.tracker.fen}"
        return text

    def send_board(self, session: Session, game: Any) -> None:
        session.write_text(self.board_text(session, game))

    def show_position(self, game: Any, *, note: Message | None = None,
                      note_to_caller: bool = True) -> None:
        """Send the board to everyone watching ``game``.

        The session running the current command gets it as command output;
        everyone else gets it as an asynchronous message with a prompt.
        """
        cache: dict = {}
        for handle in self.watchers(game):
            session = self.session(handle)
            if session is None:
                continue
            text = self.board_text(session, game, cache)
            is_caller = session is self._current
            if note is not None and (note_to_caller or not is_caller):
                text = f"{session.render(note)}\n{text}"
            if is_caller:
                session.write_text(text)
            else:
                session.notify(text)

    def stop_examining(self, handle: str, game: Any, *, quiet: bool = False) -> None:
        """``handle`` leaves the examined ``game``; the game ends when nobody examines it."""
        if handle in game.examiners:
            game.examiners.remove(handle)
        self.directory.leave(handle)
        session = self.session(handle)
        if session is not None and not quiet:
            session.send(msg("You are no longer examining game {number}.", number=game.number))
        if game.examiners:
            note = msg("{handle} has stopped examining game {number}.", handle=handle,
                       number=game.number)
            targets = self.watchers(game)
        else:
            note = msg("Game {number} has no examiners left and is over.", number=game.number)
            targets = self.directory.observers(game)
            self.directory.remove(game)
        for other in targets:
            s = self.session(other)
            if s is not None and s is not session:
                s.notify(note)
