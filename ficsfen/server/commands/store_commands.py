"""What the commands that read the store share: reaching it, and the player a word names.

The store (:class:`ficsfen.server.store.IStore`) is reached through a
callable that returns it, or ``None`` on a server run without a data file.
Its reads run off the reactor thread, through a ``read(function, *args)``
callable that returns a Deferred (the server's ``FicsServer.read``).
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed

from ficsfen.commands.base import Command
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.interfaces import IServerCaller
from ficsfen.server.store.interfaces import IStore

__all__ = ["Reader", "StoreCommand", "StoreGetter", "for_player", "whose"]

#: Returns the server's store, or ``None`` when it runs without a data file.
StoreGetter = Callable[[], Any]
#: Runs ``function(*args)`` (a store read) off the reactor thread; its result as a Deferred.
Reader = Callable[..., Deferred]


def whose(caller: IServerCaller, word: str | None, store: IStore | None,
          read: Reader = maybeDeferred) -> Deferred[str | None]:
    """The handle ``word`` names for a history, as FICS finds players; else tell why not.

    A logged-in player of that exact name, else an account of that exact
    name (logged in or not, read with ``read``), else a logged-in player
    whose handle starts with ``word``.  ``None`` (no word) is the caller.
    The Deferred fires with ``None`` once the caller is told no player is named.
    """
    if word is None:
        return succeed(caller.handle)
    online: str | None = None
    error: NameResolutionError | None = None
    try:
        online = caller.players.named(word).handle
    except NameResolutionError as e:
        error = e
    if online is not None and fold(online) == fold(word):
        return succeed(online)

    def chosen(account: Any) -> str | None:
        if account is not None:
            return str(account.name)
        if online is not None:
            return online
        assert error is not None
        caller.send(error.message)
        return None

    found = read(store.get_account, word) if store is not None else succeed(None)
    return found.addCallback(chosen)


def for_player(caller: IServerCaller, who: str | None, store: IStore | None, read: Reader,
               then: Callable[[str], Any]) -> Deferred[Any]:
    """Find the player ``who`` names (:func:`whose`), then ``then(handle)``.

    The Deferred fires with what ``then`` returns (a Deferred is chained), or
    with ``None`` when no player is named (the caller has been told why).
    """
    return whose(caller, who, store, read).addCallback(
        lambda handle: None if handle is None else then(handle))


class StoreCommand(Command):
    """A command reading the store: ``store()`` returns it (``None`` without a data
    file), ``read`` runs a store read off the reactor thread."""

    def __init__(self, store: StoreGetter, read: Reader = maybeDeferred) -> None:
        self.store = store
        self.read = read

    def for_player(self, caller: IServerCaller, who: str | None, store: IStore | None,
                   then: Callable[[str], Any]) -> Deferred[Any]:
        """:func:`for_player` with this command's reader."""
        return for_player(caller, who, store, self.read, then)
