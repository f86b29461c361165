"""Adjourned games shared by the nodes, and the games of a node that died.

With a shared store (PostgreSQL, where every acknowledged move is
committed before its board is sent):

* a game adjourned on one node (agreement, a player's departure, a node's
  death) is announced once the store has it (``cgame.adjourned``); every
  node reads it from the store and keeps it, so its players read the
  notice and may ``resume`` on any node; a game resumed on one node is
  dropped by the others (``cgame.resumed``); one kept already is replaced (a
  node that missed a resumption elsewhere, the bus being down, keeps no older
  position; a resumption goes on from the store's anyway);
* an adjourned game expired on one node (the one whose write of its end the
  store took) is told to its players on every node (``cgame.expired``);
* a player logging in with an adjourned game, whose opponent is logged in on
  another node: that node tells the opponent (``cgame.arrived``), with the
  single server's line, in the opponent's language;
* when a node's heartbeat expires, one survivor (the one whose ``HDEL``
  removes the game from the Redis hash ``games``) reads each of its games
  from the store, marks it adjourned there (clocks as at its last move) and
  keeps it for ``resume``, as a restarted server does with its own;
* a node starting leaves in play the games the living nodes host
  (:meth:`Failover.live_games`): a single server adjourns, at start, every
  game its store has in play.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.names import fold
from ficsfen.server.adjourned_arrivals import arrival_notice
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.listing import RemoteListing, listings_of
from ficsfen.server.game_keeping import expiry_notice
from ficsfen.server.game_values import GameStatus

__all__ = ["Failover"]

_log = Logger(namespace="ficsfen.cluster.failover")


class Failover:
    """Adjourned games across nodes and the games of the nodes that die (see the module).

    ``server``: the node's :class:`~ficsfen.server.server.FicsServer`; ``bus``: its bus;
    ``presence``: its :class:`~.presence.Presence` (who is on the other nodes).
    """

    def __init__(self, server: Any, bus: Bus, presence: Any) -> None:
        self.server = server
        self.bus = bus
        self.presence = presence
        bus.on("cgame.adjourned", self._heard_adjourned)
        bus.on("cgame.resumed", self._heard_resumed)
        bus.on("cgame.arrived", self._heard_arrived)
        bus.on("cgame.expired", self._heard_expired)
        server.games.arrival_elsewhere = self.arrival_elsewhere
        server.games.keeping.expired_elsewhere = self.expired
        server.games.keeping.expiry_refused = self._expiry_refused

    def arrival_elsewhere(self, opponent: str, handle: str) -> bool:
        """Tell ``opponent``, if logged in on another node, that ``handle`` (who has an
        adjourned game with them) arrived here; whether they are there."""
        key = fold(opponent)
        there = self.presence.get(key)
        if there is None or self.server.sessions.by_key(key) is not None or not self.bus.up:
            return False
        self.bus.to_node(there.node, "cgame.arrived", {"to": key, "handle": handle}).addErrback(
            self._failed, "an arrival")
        return True

    def _heard_arrived(self, message: BusMessage) -> None:
        """A player arrived on the sender with an adjourned game with a player of this node."""
        key, handle = message.body.get("to"), message.body.get("handle")
        session = self.server.sessions.by_key(key) if isinstance(key, str) else None
        if session is not None and isinstance(handle, str):
            self.server.broadcaster.tell(session.handle, arrival_notice(handle))

    def expired(self, game: Any, days: float) -> None:
        """``game`` expired here (this node's write of its end won): the other nodes tell
        their players and forget it."""
        if self.bus.up:
            self.bus.broadcast("cgame.expired", {"record": game.record_id,
                                                 "players": list(game.players()), "days": days}
                               ).addErrback(self._failed, "an expiry")

    def _heard_expired(self, message: BusMessage) -> None:
        """An adjourned game expired on the sender: its players here read the single
        server's notice, in their language."""
        players, days = message.body.get("players"), message.body.get("days")
        if not isinstance(players, list) or len(players) != 2 or not isinstance(
                days, (int, float)):
            return
        self._forget(message.body.get("record"), str(players[0]), str(players[1]))
        for handle, opponent in ((players[0], players[1]), (players[1], players[0])):
            session = self.server.sessions.by_key(fold(str(handle)))
            if session is not None:
                self.server.broadcaster.tell(session.handle, expiry_notice(str(opponent), days))

    def _forget(self, record: object, white: str, black: str) -> None:
        """The copy kept here of the adjourned game ``record`` is no longer adjourned."""
        kept = self.server.adjourned.between(white, black)
        if kept is not None and kept.record_id == record:
            self.server.adjourned.take(white, black)

    def resumed(self, game: Any) -> None:
        """``game`` (re)started here: the other nodes forget it as adjourned."""
        record = getattr(game, "record_id", None)
        if record is not None and self.bus.up:
            self.bus.broadcast("cgame.resumed", {"record": record,
                                                 "players": list(game.players())}).addErrback(
                self._failed, "resumption")

    def ended(self, game: Any, result: object) -> None:
        """``game`` ended here: if adjourned, announced once the store has it."""
        record = getattr(game, "record_id", None)
        if getattr(result, "adjourned", False) and record is not None:
            game.after_write(None, lambda: self._announce_adjourned(record, game.players()))

    def _announce_adjourned(self, record: int, players: tuple[str, str]) -> None:
        if self.bus.up:
            self.bus.broadcast("cgame.adjourned", {"record": record, "players": list(players)}
                               ).addErrback(self._failed, "adjournment")

    def _heard_adjourned(self, message: BusMessage) -> None:
        """Another node adjourned a game: kept here too, read from the shared store, so its
        players logging in here read the notice and may ``resume`` here.  A copy kept
        already (this node missed the game's resumption elsewhere) is replaced."""
        record, players = message.body.get("record"), message.body.get("players")
        server = self.server
        if (server.store is None or not isinstance(record, int) or not isinstance(players, list)
                or len(players) != 2):
            return
        self._keep_from_store(record, str(players[0]), str(players[1]))

    def _expiry_refused(self, game: Any) -> None:
        """The store refused this node's expiry of ``game``: resumed elsewhere, or adjourned
        again since this node's copy; if still adjourned, the store's is kept instead."""
        if game.record_id is not None:
            self._keep_from_store(game.record_id, game.white, game.black)

    def _keep_from_store(self, record: int, white: str, black: str) -> None:
        """Keep the game ``record`` of ``white`` and ``black`` as the store has it, if it is
        adjourned there and not in play here (replacing a copy kept)."""
        server = self.server
        store, accounts = server.store, server.accounts

        def unfinished() -> list[tuple[Any, bool]]:  # in the read thread
            return [(stored, accounts.is_registered(white) and accounts.is_registered(black))
                    for stored in store.unfinished_games(white)
                    if stored.id == record and stored.status is GameStatus.ADJOURNED]

        def keep(found: list[tuple[Any, bool]]) -> Any:
            if not found or self._in_play_here(record, white, black):
                return None  # resumed here meanwhile
            return server.games.keeping.adjourn_unfinished(found, store, server.games,
                                                           server.offer_limiter)

        server.reads.read(unfinished).addCallback(keep).addErrback(self._failed, "adjourned game")

    def _in_play_here(self, record: int, *players: str) -> bool:
        """Whether the game ``record`` is in play here (or being resumed) for ``players``."""
        games = self.server.games
        return any(getattr(games.playing(handle), "record_id", None) == record
                   for handle in players)

    def _heard_resumed(self, message: BusMessage) -> None:
        """A game resumed on another node: no longer adjourned here."""
        record, players = message.body.get("record"), message.body.get("players")
        if isinstance(players, list) and len(players) == 2:
            self._forget(record, str(players[0]), str(players[1]))

    def live_games(self, clock: Any, wait: float) -> Deferred[frozenset[int]]:
        """The store's ids of the games listed by the other nodes still alive: what a node
        starting on a shared store must leave in play.  Waits for the bus at most ``wait``
        seconds; without it, fires with none (logged: this node then adjourns every game
        the store has in play, as a single server does).
        """
        result: Deferred[frozenset[int]] = Deferred()
        bus = self.bus

        def fire(value: frozenset[int]) -> None:
            if not result.called:
                result.callback(value)

        def read() -> None:
            d = bus.execute("HGETALL", bus.key("games"))
            d.addCallback(self._living_records).addCallbacks(fire, lambda f: fire(frozenset()))

        def timed_out() -> None:
            if not result.called:
                _log.warn("cluster: the bus is not up: every game in play in the store is "
                          "adjourned")
                fire(frozenset())

        if bus.up:
            read()
        else:
            bus.on_state(lambda up: read() if up and not result.called else None)
            clock.callLater(wait, timed_out)
        return result

    def _living_records(self, flat: list[str]) -> Deferred[frozenset[int]]:
        listings = [g for g in listings_of(flat)
                    if g.record is not None and g.node != self.bus.node]
        nodes = sorted({g.node for g in listings})
        if not nodes:
            return succeed(frozenset())

        def alive(flags: list[str | None]) -> frozenset[int]:
            living = {n for n, flag in zip(nodes, flags) if flag is not None}
            return frozenset(g.record for g in listings
                             if g.node in living and g.record is not None)

        return self.bus.execute("MGET", *(self.bus.key("alive", n) for n in nodes)).addCallback(
            alive)

    def node_gone(self, node: str) -> None:
        """Take over the games of ``node``, gone (with a shared store)."""
        if self.server.store is not None and self.bus.up:
            self.bus.execute("HGETALL", self.bus.key("games")).addCallback(
                self._adopt_all, node).addErrback(self._failed, "adoption")

    def _adopt_all(self, flat: list[str], node: str) -> None:
        """Take over the games ``node`` listed: one node only for each (the one whose
        ``HDEL`` removes its listing)."""
        for listing in listings_of(flat):
            if listing.node != node:
                continue
            self.bus.execute("HDEL", self.bus.key("games"), str(listing.number)).addCallback(
                self._adopt_if_removed, listing).addErrback(self._failed, "adoption")

    def _adopt_if_removed(self, removed: Any, listing: RemoteListing) -> Any:
        return self._adopt(listing) if removed else None

    def _adopt(self, listing: RemoteListing) -> Any:
        """The game of ``listing``, in play on a node that died, adjourned in the shared
        store and kept here for ``resume``; its players here are told."""
        server = self.server
        store, accounts = server.store, server.accounts
        white, black = listing.handles

        def unfinished() -> list[tuple[Any, bool]]:  # in the read thread
            return [(stored, accounts.is_registered(white) and accounts.is_registered(black))
                    for stored in store.unfinished_games(white)
                    if (stored.id == listing.record if listing.record is not None else
                        fold(stored.start.black) == fold(black))
                    and stored.status is GameStatus.PLAYING]

        def adopted(_: object) -> None:
            if listing.record is not None:
                self._announce_adjourned(listing.record, listing.handles)
            for handle in listing.handles:
                session = server.sessions.get(handle)
                if session is not None:
                    server.games.arrived(session)  # the adjourned-game notice, as at a login

        def adjourn(found: list[tuple[Any, bool]]) -> Any:
            _log.info("cluster: adjourning {count} game(s) of a node that died ({white} vs. "
                      "{black})", count=len(found), white=white, black=black)
            return server.games.keeping.adjourn_unfinished(
                found, store, server.games, server.offer_limiter).addCallback(adopted)

        return server.reads.read(unfinished).addCallback(adjourn).addErrback(
            self._failed, "adoption")

    @staticmethod
    def _failed(failure: Failure, what: str) -> None:
        if not failure.check(BusDown):
            _log.failure("cluster games: {what} failed", failure=failure, what=what)
