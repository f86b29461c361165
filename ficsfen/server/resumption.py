"""An adjourned game's resumption claimed in a store that several servers may share.

The claim is the store's conditional write (:meth:`IStore.resume_game`): of the
servers trying at once, one succeeds and the others get
:class:`~ficsfen.server.store.errors.NoSuchGameError`.  The claimed game goes on
from what the store holds once the claim is committed, not from this server's
copy: another server sharing the store may have resumed and adjourned it since.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from ficsfen.i18n import msg
from ficsfen.server.journal import StoreJournal, reload_game
from ficsfen.server.store.errors import NoSuchGameError

if TYPE_CHECKING:
    from ficsfen.server.broadcaster import Broadcaster
    from ficsfen.server.games import PlayedGame

__all__ = ["Resumption", "tell_not_resumed"]


class Resumption:
    """The claim of ``game`` through ``journal``; ``read(f, *args)`` runs a store read off
    the reactor thread.  :attr:`written` fires once the claim is settled and, when it
    succeeded, ``game`` holds the store's moves and clocks; :attr:`lost` then says
    whether another server claimed it first."""

    def __init__(self, game: PlayedGame, journal: StoreJournal, store: Any,
                 read: Callable[..., Deferred[Any]]) -> None:
        self.lost = False

        def reload(stored: Any) -> None:
            if stored is not None:
                reload_game(game, stored, journal)

        def read_back(_: object) -> Deferred[None]:
            # committed here: no other server writes the game while it is in play here
            return read(store.get_game, game.record_id).addCallback(reload)

        def taken(failure: Failure) -> None:
            failure.trap(NoSuchGameError)
            self.lost = True

        self.written: Deferred[Any] = journal.resumed(game).addCallback(read_back).addErrback(taken)


def tell_not_resumed(broadcaster: Broadcaster, game: PlayedGame) -> None:
    """Another server resumed ``game`` first: its players read what a ``resume`` finding no
    such game answers."""
    for handle in game.players():
        broadcaster.tell(handle, msg("You have no adjourned game with {name}.",
                                     name=game.opponent_of(handle)))
