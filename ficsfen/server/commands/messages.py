"""Stored messages between registered players: ``messages`` and ``clearmessages``.

As on FICS, ``messages HANDLE TEXT`` (``message`` is its prefix) stores a
message for a registered player, online or not; ``messages`` lists yours,
``messages u`` the unread ones, ``messages N`` or ``N-M`` some by number,
``messages HANDLE`` those between you and HANDLE; ``clearmessages`` takes
``*``, ``N``, ``N-M`` or ``HANDLE``.  A recipient who is logged in gets
"The following message was received:" at once; the others are told at
their next login ("You have 2 messages (1 unread).", :meth:`Mailbox.arrived`).

They live in the store (:class:`~ficsfen.server.store.interfaces.IStore`):
a message is confirmed to its sender only once its write is committed, as
a move is announced, and every read is made off the reactor thread (the
command's answer waits for it).  ``[limits] messages_per_player`` and
``message_max_length`` bound them.  Guests can neither send nor receive.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from twisted.internet.defer import Deferred
from twisted.logger import LogLevel, Logger

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn, render
from ficsfen.names import NameResolutionError, fold, resolve_handle
from ficsfen.server.commands.info import fics_date
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.reads import Reader
from ficsfen.server.store.errors import MailboxFullError, NoSuchAccountError
from ficsfen.server.store.message_rows import StoredMessage

__all__ = ["ClearmessagesCommand", "Mailbox", "MessagesCommand", "commands", "message_line"]

_RANGE = re.compile(r"([0-9]{1,4})-([0-9]{1,4})")
_NUMBER = re.compile(r"[0-9]{1,4}")

GUESTS = msg("Unregistered players may not send or receive messages.")
NO_FILE = msg("Messages are not kept on this server: it has no data file.")


def message_line(m: StoredMessage) -> str:
    """``alice at Sun Jan  7, 14:22 GMT 2024: text``: a message as FICS shows it."""
    return f"{m.sender} at {fics_date(m.sent, utc=True)}: {m.text}"


def _numbered(messages: list[StoredMessage]) -> str:
    return "\n".join(f"{m.number}. {message_line(m)}" for m in messages)


class Mailbox:
    """What the two commands and the login notice share.

    ``store()`` is the ``IStore`` (or ``None``), ``read`` runs store reads
    off the reactor thread, ``limit`` and ``max_length`` are ``[limits]``'s,
    ``now()`` the Unix time a message is dated with, ``censors(receiver_key,
    sender)`` whether a logged-in player censors someone.
    """

    log = Logger()

    def __init__(self, store: Callable[[], Any], *, read: Reader, limit: int, max_length: int,
                 now: Callable[[], float],
                 censors: Callable[[str, str], bool] = lambda key, sender: False) -> None:
        self.store = store
        self.read = read
        self.limit = limit
        self.max_length = max_length
        self.now = now
        self.censors = censors

    def arrived(self, session: IServerCaller) -> None:
        """A registered player logged in: how many messages they have, if any."""
        store = self.store()
        if store is None or not session.registered:
            return

        def tell(counts: tuple[int, int]) -> None:
            total, unread = counts
            if total and session.players.session(session.handle) is session:
                session.notify(render(msgn(
                    "You have {count} message ({unread} unread).",
                    "You have {count} messages ({unread} unread).", total, unread=unread),
                    session.parsed_lang) + "\n" + session.render(msg(
                        "Use \"messages u\" to view unread messages and \"clearmessages *\" to "
                        "clear all.")))

        self.read(store.message_counts, session.handle).addCallbacks(tell, self._logged)

    def _logged(self, failure: Any) -> None:
        self.log.failure("could not read stored messages", failure, LogLevel.error)

    def mark_read(self, handle: str, shown: list[StoredMessage]) -> None:
        """Those just shown are read now (nothing waits for it; a failure is logged)."""
        unread = [m.id for m in shown if m.unread]
        if unread:
            self.store().mark_read(handle, unread).addErrback(self._logged)


class _MessageCommand(Command):
    def __init__(self, mailbox: Mailbox) -> None:
        self.mailbox = mailbox

    def _store(self, caller: IServerCaller) -> Any:
        """The store, or ``None`` once the caller was told why there is none for them."""
        if not caller.registered:
            caller.send(GUESTS)
            return None
        store = self.mailbox.store()
        if store is None:
            caller.send(NO_FILE)
        return store


class MessagesCommand(_MessageCommand):
    """``messages [HANDLE [TEXT] | N | N-M | u]``: read or send stored messages."""

    name = "messages"
    spec = "os"
    usage = msg("messages [HANDLE [TEXT] | NUMBER | FROM-TO | u]")

    def run(self, caller: IServerCaller, word: str | None, text: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store = self._store(caller)
        if store is None:
            return None
        if text is not None:
            return self._send(caller, store, word or "", text, directory)
        mailbox, handle = self.mailbox, caller.handle
        if word is not None and fold(word) != "u" and not (
                _NUMBER.fullmatch(word) or _RANGE.fullmatch(word)):
            return self._between(caller, store, word, directory)

        def show(messages: list[StoredMessage]) -> None:
            shown, header, empty = _select(messages, word)
            if shown is None:
                caller.send(empty)
                return
            if header is not None:
                caller.send(header)
            caller.send(_numbered(shown))
            mailbox.mark_read(handle, shown)

        return mailbox.read(store.messages, handle).addCallback(show)

    def _between(self, caller: IServerCaller, store: Any, word: str,
                 directory: IServerDirectory) -> Deferred[None]:
        """``messages HANDLE``: yours to them, then theirs to you."""
        mailbox = self.mailbox

        def read(name: str) -> tuple[str, list[StoredMessage], list[StoredMessage]] | None:
            account = store.get_account(name)
            if account is None:
                return None
            me, them = fold(caller.handle), fold(account.name)
            return (account.name,
                    [m for m in store.messages(account.name) if fold(m.sender) == me],
                    [m for m in store.messages(caller.handle) if fold(m.sender) == them])

        def show(found: tuple[str, list[StoredMessage], list[StoredMessage]] | None) -> None:
            if found is None:
                caller.send(msg("There is no player matching the name {name}.", name=word))
                return
            name, sent, received = found
            if sent:
                caller.send(msg("Messages to {handle}:", handle=name))
                caller.send("\n".join(message_line(m) for m in sent))
            else:
                caller.send(msg("You have no messages to {handle}.", handle=name))
            caller.send("")
            if received:
                caller.send(msg("Messages from {handle}:", handle=name))
                caller.send(_numbered(received))
                mailbox.mark_read(caller.handle, received)
            else:
                caller.send(msg("You have no messages from {handle}.", handle=name))

        return mailbox.read(read, _online_or_typed(word, directory)).addCallback(show)

    def _send(self, caller: IServerCaller, store: Any, word: str, text: str,
              directory: IServerDirectory) -> Deferred[None] | None:
        mailbox = self.mailbox
        if len(text) > mailbox.max_length or not text.isprintable():
            caller.send(msg("A message may be at most {limit} printable characters long; "
                            "it was not sent.", limit=mailbox.max_length))
            return None
        name = _online_or_typed(word, directory)
        online = caller.players.session(name)
        if online is not None and not online.registered:
            caller.send(msg("Player \"{handle}\" is unregistered and cannot receive messages.",
                            handle=online.handle))
            return None

        def read(name: str) -> tuple[str, bool] | None:
            account = store.get_account(name)
            if account is None:
                return None
            if online is not None:  # the lists of a player logged in are the server's
                return account.name, False
            censor = store.load_settings(name).get("lists", {}).get("censor", [])
            return account.name, isinstance(censor, list) and fold(caller.handle) in map(
                fold, (c for c in censor if isinstance(c, str)))

        def checked(found: tuple[str, bool] | None) -> Deferred[None] | None:
            if caller.players.session(caller.handle) is not caller:
                return None  # left during the read
            if found is None:
                caller.send(msg("There is no player matching the name {name}.", name=word))
                return None
            recipient, censored = found
            if censored or mailbox.censors(fold(recipient), caller.handle):
                caller.send(msg("{handle} is censoring you.", handle=recipient))
                return None
            return store.send_message(caller.handle, recipient, text, limit=mailbox.limit,
                                      sent=mailbox.now()).addCallbacks(
                sent, refused, callbackArgs=(recipient,), errbackArgs=(recipient,))

        def sent(message: StoredMessage, recipient: str) -> None:
            line = message_line(message)
            caller.send(msg("The following message was sent to {handle}:", handle=recipient))
            caller.send(line)
            there = caller.players.session(recipient)
            if there is not None and there.registered:
                there.notify(there.render(msg("The following message was received:")) + "\n"
                             + line)

        def refused(failure: Any, recipient: str) -> None:
            failure.trap(MailboxFullError, NoSuchAccountError)
            if failure.check(MailboxFullError):
                caller.send(msg("Couldn't send message to {handle}. Message buffer full.",
                                handle=recipient))
            else:
                caller.send(msg("There is no player matching the name {name}.", name=word))

        return mailbox.read(read, name).addCallback(checked)


def _online_or_typed(word: str, directory: IServerDirectory) -> str:
    """The logged-in handle ``word`` names (exact or unique prefix), else ``word`` as typed
    (an account is then looked up by its whole name)."""
    try:
        return resolve_handle(word, directory.handles())
    except NameResolutionError:
        return word


def _select(messages: list[StoredMessage], word: str | None
            ) -> tuple[list[StoredMessage] | None, Message | None, Message]:
    """What ``messages [N | N-M | u]`` shows: the messages (``None``: nothing to show), a
    header line, and what to say when there is nothing."""
    if not messages:
        return None, None, msg("You have no messages.")
    if word is None:
        return messages, msg("Messages:"), msg("You have no messages.")
    if fold(word) == "u":
        unread = [m for m in messages if m.unread]
        return (unread or None), msg("Unread messages:"), msg("You have no unread messages.")
    first, last = _bounds(word)
    if first is None or last is None or first < 1 or first > last:
        return None, None, msg("Invalid message range.")
    chosen = [m for m in messages if first <= m.number <= last]
    return (chosen or None), None, msg("There is no such message.")


def _bounds(word: str) -> tuple[int | None, int | None]:
    m = _RANGE.fullmatch(word)
    if m is not None:
        return int(m.group(1)), int(m.group(2))
    return (int(word), int(word)) if _NUMBER.fullmatch(word) else (None, None)


class ClearmessagesCommand(_MessageCommand):
    """``clearmessages * | N | N-M | HANDLE``: delete some of your stored messages."""

    name = "clearmessages"
    spec = "o"
    usage = msg("clearmessages * | NUMBER | FROM-TO | HANDLE")

    def run(self, caller: IServerCaller, word: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store = self._store(caller)
        if store is None:
            return None
        if word is None:
            caller.send(msg("Use \"clearmessages *\" to clear all your messages."))
            return None
        by_number = word == "*" or _NUMBER.fullmatch(word) or _RANGE.fullmatch(word)
        if by_number and word != "*":
            first, last = _bounds(word)
            if first is None or last is None or first < 1 or first > last:
                caller.send(msg("Invalid message range."))
                return None

        def chosen(messages: list[StoredMessage]) -> Deferred[None] | None:
            if not messages:
                caller.send(msg("You have no messages."))
                return None
            if word == "*":
                doomed = messages
            elif by_number:
                first, last = _bounds(word)
                doomed = [m for m in messages if first <= m.number <= last]  # type: ignore[operator]
                if not doomed:
                    caller.send(msg("There is no such message."))
                    return None
            else:
                sender = fold(_online_or_typed(word, directory))
                doomed = [m for m in messages if fold(m.sender) == sender]
                if not doomed:
                    caller.send(msg("You have no messages from {handle}.", handle=word))
                    return None
            return store.clear_messages(caller.handle, [m.id for m in doomed]).addCallback(
                cleared)

        def cleared(count: int) -> None:
            caller.send(msgn("Cleared {count} message.", "Cleared {count} messages.", count))

        return self.mailbox.read(store.messages, caller.handle).addCallback(chosen)


def commands(mailbox: Mailbox) -> list[Command]:
    """``messages`` and ``clearmessages`` over ``mailbox``."""
    return [MessagesCommand(mailbox), ClearmessagesCommand(mailbox)]

