"""The command-line grammar: from a line typed at the prompt to the command that runs.

A line is, in order: an empty line (nothing), ``$``/``$$`` then a command
(aliases skipped), a player's alias (``alias``), a system alias (``f``,
``!hello``: :mod:`.system_aliases`), ``+``/``-``/``=`` glued to a
list name (``+noplay bob``), an exact command name, a move (``e4``, handed to
the game service), or a unique prefix of a command name.  With the ``block``
ivar on, each line starts with the client's number for it and the answer is
one frame (:mod:`ficsfen.server.block`).

For each line the :class:`Dispatcher` opens a :class:`~ficsfen.server.reply.Reply`
on the session, runs the command, and closes the reply (the prompt, or the
frame).  It knows nothing of games, players or talk: the command table, the
directory commands look games up in and the move entry point are given to it.
"""

from __future__ import annotations

from typing import Callable

from twisted.internet.defer import Deferred
from twisted.logger import LogLevel, Logger
from twisted.python.failure import Failure

from ficsfen.i18n import Message, msg, msgn
from ficsfen.interfaces import ICommand
from ficsfen.names import AmbiguousNameError, NameResolutionError
from ficsfen.server import block
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands.interface import AliasError, expand_alias
from ficsfen.server.interfaces import IServerDirectory
from ficsfen.server.reply import Reply
from ficsfen.server.session import Session, encode_text
from ficsfen.server.system_aliases import SystemAliases
from ficsfen.tracker import is_move_text

__all__ = ["Dispatcher", "Move", "check_command_names"]

#: The game service's entry point for a move typed at the prompt:
#: ``move(session, text, reply)``.
Move = Callable[[Session, str, Reply], None]


def check_command_names(command: ICommand) -> None:
    """Refuse a name or alias shaped like a move: the dispatcher looks names up first.

    :raises ValueError: ``e4`` or ``O-O`` would run the command instead of moving.
    """
    for word in (command.name, *command.aliases):
        if is_move_text(word):
            raise ValueError(f"command name {word!r} reads as a move")


class Dispatcher:
    """Runs command lines for sessions: aliases, ``$``, block mode, the command table.

    ``table`` holds the commands (none named like a move:
    :func:`check_command_names`), ``directory`` is what commands find games
    in, ``move`` plays a move typed at the prompt, ``max_line`` is the
    longest line the telnet side accepts (quoted when it drops one),
    ``system_aliases`` FICS's aliases every player has (:mod:`.system_aliases`).
    """

    log = Logger()

    def __init__(self, table: CommandTable, directory: IServerDirectory, *, move: Move,
                 max_line: int, system_aliases: SystemAliases | None = None) -> None:
        self.table = table
        #: FICS's system aliases (``f``, ``w``, ``!``...), expanded after the player's own.
        self.system_aliases = system_aliases
        self.directory = directory
        self._move = move
        self.max_line = max_line

    def execute(self, session: Session, line: str) -> None:
        """Run one input line for ``session``; its answer leaves in one write.

        The prompt follows (unless the command deferred it, or the session
        closed); with the ``block`` ivar on, the line must start with a
        number and the answer is one frame with no prompt.  A command that
        raises is logged and the player told; nobody else is affected.
        """
        current = session.reply
        if current is not None and current.waiting:  # run once that answer is complete
            current.keep(line)
            return
        ident: str | None = None
        if session.ivars["block"]:
            try:
                ident, line = block.split_id(line)
            except block.BlockIdError:
                self.block_error(session, block.NO_SEQUENCE, msg(
                    "Block mode is on: start each command with its number, as in \"1 games\"."))
                return
        session.hold()
        reply = Reply(session, None if ident is None else block.BlockReply(ident))
        try:
            code = self.run(session, line, reply)
            if ident is not None:  # a frame's code (nothing to set outside block mode)
                reply.code = code
        except Exception:
            reply.done_waiting()
            self._failed(session, line, reply)
        answer = reply.answer
        if answer is None or not reply.waiting:
            reply.close()
            session.release()
        else:
            answer.addBoth(self._answered, session, line, reply)

    def _answered(self, result: object, session: Session, line: str, reply: Reply) -> None:
        """The answer that waited is complete: the prompt or frame, the output held so far,
        then the lines typed meanwhile, in order (until one of them waits in turn)."""
        reply.done_waiting()
        if isinstance(result, Failure):
            self._failed(session, line, reply, result)
        reply.close()
        session.release()
        queued, dropped = reply.queued, reply.dropped
        if session.closed:
            return  # gone meanwhile: nothing more to run
        if dropped:
            session.notify(msgn(
                "{count} line typed while your previous command waited for the data file "
                "was ignored.",
                "{count} lines typed while your previous command waited for the data file "
                "were ignored.", dropped))
        while queued:
            self.execute(session, queued.popleft())
            later = session.reply
            if later is not None and later.waiting:  # that one waits too: the rest after it
                later.queued.extend(queued)
                return

    def run(self, session: Session, line: str, reply: Reply) -> int:
        """Run one command line into ``reply``; returns its block-mode code (FICS's table).

        ``$`` and ``$$`` before a command skip alias expansion (the telnet
        side does not count a ``$$`` line as activity).
        """
        words = line.split(None, 1)
        if not words:
            return block.NULL
        word = words[0]
        command: ICommand | None = None
        if word[0] == "$":
            text = line.lstrip()
            line = text[2:] if text.startswith("$$") else text[1:]
            words = line.split(None, 1)
            if not words:
                return block.NULL
            word = words[0]
        elif not session.aliases and (command := self.table.exact(word)) is not None:
            # An exact command name and no alias of the player's: nothing to expand (no
            # system alias is named like a command).  The path of every command, measured
            # by bench/load.py --compare (the fen CPU ratio to bench/floor_server.py).
            pass
        elif not (len(words) == 1 and is_move_text(word)):
            expanded = line
            if session.aliases:
                try:
                    expanded = expand_alias(line, session.aliases, session.handle)
                except AliasError as e:
                    reply.send(e.message)
                    return block.BAD_COMMAND
                if expanded is not line:
                    words = expanded.split(None, 1)
                    if not words:
                        return block.NULL
                    word = words[0]
            system = self.system_aliases
            if system is not None:
                line = system.expand(expanded, word)
                if line is not expanded:
                    words = line.split(None, 1)
                    if not words:
                        return block.NULL
                    word = words[0]
        rest = words[1].strip() if len(words) > 1 else ""
        if len(word) > 1 and word[0] in "+-=":  # FICS's +noplay bob, =censor
            rest = f"{word[1:]} {rest}".strip()
            word = word[0]
        # An exact command name first (one dict access): no name or alias is
        # shaped like a move (check_command_names).
        if command is None:
            command = self.table.exact(word)
        if command is None:
            if not rest and is_move_text(word):  # the tracker's own grammar
                self._move(session, word, reply)
                return block.GAME_MOVE
            try:
                command = self.table.resolve(word)
            except NameResolutionError as e:
                reply.send(e.message)
                return block.AMBIGUOUS if isinstance(e, AmbiguousNameError) else block.BAD_COMMAND
        code = block.code_for(command.name)
        if reply.frame is not None:  # known before it runs: "quit" closes the frame itself
            reply.frame.code = code
        answer = command(session, rest, self.directory)
        # Most commands return None: no isinstance call for them (Deferred is an
        # ABC, so that check costs a Python-level call on every command line).
        if answer is not None and isinstance(answer, Deferred):  # it reads the store: the answer waits
            reply.wait(answer)
        return code

    def line_too_long(self, session: Session) -> None:
        """The telnet side dropped an over-long line: say so (code 520 in block mode)."""
        note = msg("Your line was longer than {limit} bytes and has been ignored.",
                   limit=self.max_line)
        if session.ivars["block"]:
            self.block_error(session, block.LINE_TOO_LONG, note)
        else:
            session.send(note)
            session.prompt()

    @staticmethod
    def block_error(session: Session, code: int, message: Message) -> None:
        """A frame numbered 0 for a line that never became a command (no id, too long)."""
        text = session.render(message).replace("\n", "\r\n") + "\r\n"
        session.emit(block.frame("0", code, encode_text(text, session.charset)))

    def _failed(self, session: Session, line: str, reply: Reply,
                failure: Failure | None = None) -> None:
        word = line.split(None, 1)[0] if line.strip() else ""
        try:
            secret = bool(getattr(self.table.resolve(word.lstrip("$")), "secret", False))
        except NameResolutionError:
            secret = False
        self.log.failure("command {line!r} from {handle} failed", failure, LogLevel.error,
                         line=f"{word} [hidden]" if secret else line[:200], handle=session.handle)
        reply.send(msg("Sorry, an internal error occurred; it has been logged."))
