"""``follow`` across nodes: the games a followed player starts on any node are observed.

Who follows whom is kept by the follower's node (its
:class:`~ficsfen.server.following.Following`, as on a single server), which
observes for them the games its own directory starts.  A game starting on
another node is announced (``cgame.up`` marked ``started``): the node of each
follower of its players asks the owner to seat them and start their observation
(``watch.follow``, with each follower's settings), and the owner writes them the
single server's lines ("alice, whom you are following, has started a game with
bob.", "You are now observing game 3.", the game's header and board).
``follow NAME`` of a player in a game on another node observes that game at once,
with ``observe``'s lines; following a player of another node ends when they log
out, as on one server.
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import msg
from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.seats import snapshot
from ficsfen.server.following import is_private, observing_head, observing_tail
from ficsfen.server.interfaces import IPlayedGame

__all__ = ["ClusterFollowing"]

_log = Logger(namespace="ficsfen.cluster.follow")


class ClusterFollowing:
    """Followers of this node, games of the others; see the module's documentation.

    ``games``: the node's :class:`~.games.ClusterGames` (seats, listings).
    """

    def __init__(self, server: Any, bus: Bus, games: Any, presence: Presence) -> None:
        self.server, self.bus, self.games = server, bus, games
        bus.on("cgame.up", self._heard_up)
        bus.on("watch.follow", self._heard_follow)
        presence.left.append(self._left)

    def _left(self, key: str) -> None:
        """A player of another node logged out: nobody follows them any more (as when a
        player of this node logs out), unless they are logged in here now."""
        if self.server.sessions.by_key(key) is None:
            self.server.following.forget(key)

    # -- the followers' node ----------------------------------------------------------

    def _heard_up(self, message: BusMessage) -> None:
        body = message.body
        players, number = body.get("players"), body.get("number")
        if not (body.get("started") and isinstance(players, list) and isinstance(number, int)):
            return
        playing = {fold(str(h)) for h in players}
        by_key = self.server.sessions.by_key
        for handle in players:
            followers = [s for s in map(by_key, map(fold, self.server.following.followers(
                str(handle)))) if s is not None and fold(s.handle) not in playing]
            if followers:
                self._ask(message.sender, number, str(handle), followers, started=True)

    def now(self, session: Any, handle: str) -> None:
        """``session`` follows ``handle`` from now on: their game on another node, if any,
        is observed at once."""
        key = fold(handle)
        for listing in list(self.games.listings.values()):
            if key in map(fold, listing.handles) and fold(session.handle) not in map(
                    fold, listing.handles):
                self._ask(listing.node, listing.number, handle, [session], started=False)

    def _ask(self, node: str, number: int, followed: str, followers: list[Any], *,
             started: bool) -> None:
        for session in followers:
            self.games.seated.setdefault(fold(session.handle), node)
        self.bus.to_node(node, "watch.follow", {
            "number": number, "followed": followed, "started": started,
            "states": [snapshot(s) for s in followers]}).addErrback(_failed)

    # -- the owner --------------------------------------------------------------------

    def _heard_follow(self, message: BusMessage) -> None:
        body = message.body
        number, followed, states = body.get("number"), body.get("followed"), body.get("states")
        game = self.server.directory.by_number(number) if isinstance(number, int) else None
        if not isinstance(states, list) or not isinstance(followed, str):
            return
        if (game is None or not IPlayedGame.providedBy(game)
                or fold(followed) not in map(fold, game.players())):
            game = None  # over meanwhile: nothing to observe
        for state in states:
            if not isinstance(state, dict):
                continue
            try:
                seat = self.games.seats.seat(message.sender, state)
            except ValueError:
                continue
            if game is not None:
                self._observe(seat, game, followed, started=bool(body.get("started")))
            self.games.release_if_idle(fold(seat.handle))

    def _observe(self, seat: Any, game: Any, followed: str, *, started: bool) -> None:
        """What a single server does for a follower of a player of ``game``."""
        if fold(seat.handle) in map(fold, game.players()):
            return
        if is_private(game):
            if not started:  # as ``follow NAME`` during a private game
                seat.notify(msg("Sorry, game {number} is a private game.", number=game.number))
            return
        if not self.server.directory.observe(seat.handle, game):
            return
        if started:
            seat.notify(self.server.following.started_text(seat, game, followed,
                                                           game.opponent_of(followed)))
            return
        board = self.server.broadcaster.board_text(seat, game, fresh=True)
        seat.notify("\n".join([*observing_head(seat, game), board,
                               *observing_tail(seat, game)]))


def _failed(failure: Failure) -> None:
    if not failure.check(BusDown):
        _log.failure("follow: a message was not sent", failure=failure)
