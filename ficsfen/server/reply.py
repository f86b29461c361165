"""The answer to one command line: what a command writes for whoever typed it.

The :class:`~ficsfen.server.dispatcher.Dispatcher` opens a :class:`Reply` on
the caller's session before the command runs and closes it after.  While it
is open, everything written to that session as command output
(:meth:`Session.send`, :meth:`Session.write_text`) goes into it, and so does
what the command causes for its own caller (the board after their move, the
end of the game they resigned: :meth:`Session.inform`).  Everything else a
session receives is a notification (:meth:`Session.notify`): on a fresh
line, with its own prompt.

Closing the reply ends the answer: the prompt, or in block mode one frame
(:mod:`ficsfen.server.block`) holding the whole output and the command's
code.  A command whose answer comes later (a move announced once its write
is committed) takes the prompt over with :meth:`Reply.defer_prompt`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Callable, TypeVar

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from ficsfen.i18n import Message
from ficsfen.server.block import NULL, BlockReply
from ficsfen.server.session import encode_text

if TYPE_CHECKING:  # pragma: no cover
    from ficsfen.server.session import Session

__all__ = ["MAX_WAITING_LINES", "Reply", "resumed"]

T = TypeVar("T")

#: Lines a session may type while its command's answer waits (run after it);
#: later ones are dropped, and counted.
MAX_WAITING_LINES = 50


class Reply:
    """The answer to one command line, for the session that typed it.

    Open (:meth:`open`) until :meth:`close`; a session has at most one open
    reply (:attr:`Session.reply`).  In block mode (``frame`` given) the
    output is collected and written as one frame at :meth:`close`; else it
    is written as it comes (the session holds it until the command ends)
    and the prompt follows.
    """

    __slots__ = ("session", "frame", "answer", "_prompt", "_open", "_waiting", "_gathering",
                 "_queued", "dropped")

    def __init__(self, session: Session, frame: BlockReply | None = None) -> None:
        """Open: from now on ``session``'s command output goes into this reply.

        :raises RuntimeError: ``session`` already has an open reply (a command
            never runs inside another one's answer).
        """
        if session.reply is not None:
            raise RuntimeError(f"{session!r} is already being answered")
        self.session = session
        #: The block-mode frame being built, or ``None`` (plain output, then the prompt).
        self.frame = frame
        #: What the answer waits for (:meth:`wait`), or ``None``.
        self.answer: Deferred[object] | None = None
        #: Whether :meth:`close` writes the prompt (never in block mode).
        self._prompt = frame is None
        self._open = True
        self._waiting = False
        self._gathering = False
        self._queued: deque[str] | None = None  # made by the first line kept
        #: Lines dropped meanwhile, beyond :data:`MAX_WAITING_LINES`.
        self.dropped = 0
        session.reply = self

    @classmethod
    def open(cls, session: Session, ident: str | None = None) -> Reply:
        """A reply now receiving ``session``'s command output; ``ident``: block mode's number.

        :raises RuntimeError: ``session`` already has an open reply.
        """
        return cls(session, None if ident is None else BlockReply(ident))

    @property
    def is_open(self) -> bool:
        return self._open

    @property
    def answering(self) -> bool:
        """Whether what happens to the session now is part of this answer: open, and not
        waiting (:meth:`wait`) unless inside what it waited for (:meth:`resumed`) or
        gathering (:meth:`gather`)."""
        return self._open and (not self._waiting or self._gathering)

    def gather(self) -> None:
        """While the answer waits (:meth:`wait`), what happens to the session is part of
        it, not a notification: the command waits for a game's change to be stored
        and announced (the end of the game its ``accept`` or ``resign`` ended), and that
        announcement belongs to its answer, as on FICS.  Lines typed meanwhile are
        still kept for later (:attr:`waiting` is unchanged)."""
        self._gathering = True

    @property
    def waiting(self) -> bool:
        """Whether the answer waits for something (a store read) before it is complete."""
        return self._open and self._waiting

    def wait(self, answer: Deferred[object]) -> None:
        """The command returned ``answer``, a Deferred: its answer is complete once that
        fires (it reads the store).

        Meanwhile the session gets what others do as notifications, and the
        lines it types are kept (:meth:`keep`) to run after the answer.
        """
        self.answer = answer
        self._waiting = True

    @property
    def queued(self) -> deque[str]:
        """Lines the session typed while the answer waits (:meth:`wait`), to run after it."""
        if self._queued is None:
            self._queued = deque()
        return self._queued

    def keep(self, line: str) -> None:
        """A line typed while the answer waits: kept (at most :data:`MAX_WAITING_LINES`)."""
        queued = self.queued
        if len(queued) < MAX_WAITING_LINES:
            queued.append(line)
        else:
            self.dropped += 1

    def resumed(self, waited: Deferred[T]) -> Deferred[T]:
        """What ``waited`` gives, with the answer resumed while its callbacks run: what
        they cause for the session (the board of a stored game opened) is the answer again.

        A command wraps the reads it waits for in it; outside a waiting answer it
        changes nothing.
        """
        out: Deferred[T] = Deferred()

        def arrived(result: T | Failure) -> None:
            waiting, self._waiting = self._waiting, False
            try:
                out.callback(result)  # a Failure errbacks
            finally:
                self._waiting = waiting and self._open  # closed meanwhile: it waits no more

        waited.addBoth(arrived)
        return out

    def done_waiting(self) -> None:
        """What the answer waited for is there: it can be closed."""
        self._waiting = False

    @property
    def block(self) -> bool:
        """Whether the answer is a block-mode frame."""
        return self.frame is not None

    @property
    def code(self) -> int:
        """The frame's command code (FICS's table), ``NULL`` outside block mode."""
        return self.frame.code if self.frame is not None else NULL

    @code.setter
    def code(self, value: int) -> None:
        if self.frame is not None:
            self.frame.code = value

    def send(self, message: Message | str) -> None:
        """``message`` in the session's language, as part of the answer.

        In block mode the first refusal among :data:`ficsfen.server.block.ERROR_MESSAGES`
        ("Usage: ...") sets the frame's error code.
        """
        frame = self.frame
        if frame is not None and isinstance(message, Message):
            frame.note(message.msgid)
        self.write_text(self.session.render(message))

    def write_text(self, text: str) -> None:
        """Already rendered lines, each ended with CR LF, as part of the answer."""
        if "\n" in text:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        data = encode_text(text + "\r\n", self.session.charset)
        frame = self.frame
        if frame is None:
            self.session.emit(data)
        else:
            frame.chunks.append(data)

    def defer_prompt(self) -> Callable[[], None]:
        """Leave the prompt out when the command ends: what comes later brings it.

        A move waiting for its write is announced once committed, and that
        board, sent as a notification, ends with the prompt.  The callable
        returned writes the prompt instead, for a caller that ends the
        answer with something else; it writes it once, and nothing if the
        session is gone by then.  In block mode there is no prompt and the
        callable does nothing.
        """
        owed = self._prompt
        self._prompt = False
        session = self.session
        state = [owed]

        def prompt() -> None:
            if state[0] and not session.closed:
                state[0] = False
                session.prompt()

        return prompt

    def close(self, *, prompt: bool = True) -> None:
        """End the answer: write the frame, or the prompt (unless deferred or ``prompt``
        is false, as when the session is closing).  Later calls do nothing."""
        if not self._open:
            return
        self._open = self._waiting = self._gathering = False
        session = self.session
        if session.reply is self:
            session.reply = None
        frame = self.frame
        if frame is not None:
            session.emit(frame.to_bytes())
        elif prompt and self._prompt and not session.closed:
            session.prompt()


def resumed(caller: object, waited: Deferred[T]) -> Deferred[T]:
    """``waited``, with the answer of ``caller``'s command resumed while its callbacks run
    (:meth:`Reply.resumed`); unchanged for a caller with no open reply (a host's own)."""
    reply = getattr(caller, "reply", None)
    return waited if not isinstance(reply, Reply) else reply.resumed(waited)
