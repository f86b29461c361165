"""Games across nodes: this node's games announced, the other nodes' games listed.

A game's number is unique across the cluster: reserved in
Redis (:mod:`.numbers`).  Each owner keeps the games it hosts in the Redis
hash ``games`` (:mod:`.listing`: number -> node, store id and ``games``
line, updated after the moves at most once a second) and announces them
(``cgame.up``, ``cgame.down``): ``games`` lists the games of every node.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ficsfen.server.boards import category
from ficsfen.server.cluster.bus import BusMessage
from ficsfen.server.cluster.games_base import ClusterGamesBase
from ficsfen.server.cluster.listing import RemoteListing, listings_of
from ficsfen.server.commands.session_cmds import games_line
from ficsfen.server.interfaces import IPlayedGame
from ficsfen.server.variant_games import category_letter

__all__ = ["GameAnnouncements", "LISTING_DELAY"]

#: Seconds a game's ``games`` listing may lag its moves on the other nodes (one write
#: to Redis and one announcement per game and period, however fast it is played).
LISTING_DELAY = 1.0


class GameAnnouncements(ClusterGamesBase):
    """Game numbers and listings, this node's and the others' (a base of
    :class:`~ficsfen.server.cluster.games.ClusterGames`)."""

    if TYPE_CHECKING:  # pragma: no cover - SeatHosting's
        def _release_idle_seats(self) -> None: ...

    def _taken_elsewhere(self, number: int) -> bool:
        return number in self.listings

    def remote_listings(self) -> list[RemoteListing]:
        """The games of the other nodes still alive, by number."""
        alive = self.presence.nodes()
        return [g for n, g in sorted(self.listings.items()) if g.node in alive]

    def _listing(self, game: Any) -> RemoteListing:
        line = games_line(game, self.server.broadcaster.game_rating_texts(game))
        return RemoteListing(game.number, self.bus.node, line, tuple(game.players()),
                             category_letter(category(game)), game.record_id)

    def _publish(self, game: Any, started: bool = False) -> None:
        """The listing of ``game`` to Redis and the other nodes (``started``: it has just
        started; followers of its players observe it)."""
        if not self.bus.up or self.server.directory.by_number(game.number) is not game:
            return
        listing = self._listing(game)
        body = json.loads(listing.to_json())
        self.bus.execute("HSET", self.bus.key("games"), str(game.number),
                         json.dumps({**body, "node": self.bus.node})).addErrback(lambda _: None)
        self.bus.broadcast("cgame.up", {**body, "started": True} if started else body
                           ).addErrback(lambda _: None)

    # IGameEvents: this node's games

    def game_started(self, game: Any) -> None:
        if not IPlayedGame.providedBy(game):
            return
        self._publish(game, started=True)
        self.failover.resumed(game)
        self._unfollow[game.number] = game.subscribe_moves(lambda ply: self._publish_soon(game))

    def game_ended(self, game: Any, result: object = None) -> None:
        number = game.number
        soon = self._soon.pop(number, None)
        if soon is not None and soon.active():
            soon.cancel()
        self.numbers.freed(number)
        self.failover.ended(game, result)
        unfollow = self._unfollow.pop(number, None)
        if unfollow is None:
            return
        unfollow()
        if self.bus.up:
            self.bus.execute("HDEL", self.bus.key("games"), str(number)).addErrback(lambda _: None)
            self.bus.broadcast("cgame.down", {"number": number}).addErrback(lambda _: None)
        # its players and observers of other nodes may have nothing more here
        self.server.clock.callLater(0, self._release_idle_seats)

    def position_changed(self, game: Any) -> None:
        if game.number in self._unfollow:
            self._publish_soon(game)

    def _publish_soon(self, game: Any) -> None:
        """The listing of ``game`` after a move: at most once per :data:`LISTING_DELAY`
        seconds (``games`` elsewhere shows it that late at most)."""
        if game.number in self._soon:
            return

        def publish() -> None:
            if self._soon.pop(game.number, None) is not None:
                self._publish(game)

        self._soon[game.number] = self.server.clock.callLater(LISTING_DELAY, publish)

    # -- other nodes' games -------------------------------------------------------------

    def _heard_up(self, message: BusMessage) -> None:
        try:
            listing = RemoteListing.of(message.sender, message.body)
        except (KeyError, TypeError, ValueError):
            return
        self.listings[listing.number] = listing

    def _heard_down(self, message: BusMessage) -> None:
        number = message.body.get("number")
        listing = self.listings.get(number) if isinstance(number, int) else None
        if listing is not None and listing.node == message.sender:
            del self.listings[listing.number]

    def _bus_state(self, up: bool) -> None:
        if not up:
            return
        for game in self.server.directory.games():
            if game.number in self._unfollow:
                self._publish(game)
        self.bus.execute("HGETALL", self.bus.key("games")).addCallback(self._read).addErrback(
            lambda _: None)

    def _read(self, flat: list[str]) -> None:
        for listing in listings_of(flat):
            if listing.node != self.bus.node:
                self.listings.setdefault(listing.number, listing)
