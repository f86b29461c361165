"""Games across nodes: the owner hosts, the other nodes forward lines and relay bytes.

**Ownership.**  A game lives on one node, its *owner*: the node where it
starts, which keeps its clock, tracker, offers and journal.  A match offer
to a player of another node is run on that player's node (the receiver's):
the challenger's line (``match bob 5 0``, ``resume bob``) is forwarded there
(``seat.cmd``) and run for the challenger's seat
(:mod:`~ficsfen.server.cluster.seats`); ``accept`` then starts the game on
the receiver's node, as on a single server.

**Forwarding.**  While a player of this node is *seated* on another node (has
a challenge, a game or an observed game there), the lines about it
(moves, ``draw``, ``resign``, ``abort``, ``adjourn``, ``takeback``,
``flag``, ``accept``, ``decline``, ``withdraw``, ``pending``, ``moretime``,
``refresh``, ``fen``, ``moves``) are run there, for the seat, and the answers come back as bytes
(``seat.out``); so do ``observe N``, ``unobserve N``, ``fen N``, ``moves N``
and ``refresh N`` for a game number of another node.  The owner says
``seat.free`` when a seat has nothing left there (after a line, at a game's
end); the player's node then runs their lines itself again.  A player of
this node who logs out while seated elsewhere is logged out of their seats
too (``seat.leave``: their game there is adjourned or forfeited as on a
single server).

**Numbers.**  A game's number is unique across the cluster.  Numbers are
reserved in the Redis hash ``numbers`` (number -> node): each node keeps
:data:`POOL` of them at hand, claimed with one script that takes the
smallest numbers nobody holds (``HSETNX`` from 1 up), so a game starts
without waiting for Redis and two nodes never hand out the same number; a
game's end gives its number back to the node's pool (or to Redis beyond
:data:`POOL`), and the numbers of a node that stops or dies are released.
With none at hand (the bus down) a node takes the smallest number free here
and not listed by another node.  Each owner keeps the games it hosts in the
hash ``games`` (number -> node, store id and ``games`` line, updated after
the moves at most once a second) and announces them (``cgame.up``,
``cgame.down``): ``games`` lists the games of every node.

**Failure.**  A node whose heartbeat expired (:mod:`.presence`, ``[cluster]
heartbeat_timeout``) is gone: its games leave the lists, and the players of
this node seated there are told the game is interrupted; their lines run
here again.  With a shared store (PostgreSQL: every acknowledged move is
in it), one surviving node (the one whose ``HDEL`` removes the game from the
``games`` hash) reads each of the dead node's games from the store, marks
it adjourned there (clocks as at its last move) and keeps it for
``resume``, as a restarted server does with its own games; its players
logged in there read the adjourned-game notice of a login.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import msg
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.presence import Presence, RemotePlayer
from ficsfen.server.cluster.seats import Seats, snapshot
from ficsfen.server.boards import category
from ficsfen.server.commands.session_cmds import games_line
from ficsfen.server.game_values import GameStatus
from ficsfen.server.interfaces import IPlayedGame
from ficsfen.server.variant_games import category_letter
from ficsfen.tracker import is_move_text

__all__ = ["ClusterGames", "GAME_COMMANDS", "NUMBERED_COMMANDS", "RemoteListing"]

_log = Logger(namespace="ficsfen.cluster.games")

#: Commands run on the node hosting the caller's game or challenge while seated there.
GAME_COMMANDS = frozenset({"accept", "decline", "withdraw", "pending", "resign", "draw", "abort",
                           "adjourn", "flag", "takeback", "moretime", "refresh", "fen",
                           "moves"})
#: Commands run on a game's owner when their argument is the number of a game of another node.
NUMBERED_COMMANDS = frozenset({"observe", "unobserve", "fen", "moves", "refresh"})

#: Seconds a game's ``games`` listing may lag its moves on the other nodes (one write
#: to Redis and one announcement per game and period, however fast it is played).
LISTING_DELAY = 1.0

#: Game numbers a node keeps reserved ahead (claimed in Redis, handed out without waiting).
POOL = 16

# Claims the ARGV[2] smallest numbers not in the hash for node ARGV[1]; returns them.
_CLAIM = ("local got = {} local n = 1 "
          "while #got < tonumber(ARGV[2]) do "
          "if redis.call('HSETNX', KEYS[1], n, ARGV[1]) == 1 then table.insert(got, n) end "
          "n = n + 1 end return got")
# Gives back every number of node ARGV[1].
_RELEASE_NODE = ("local flat = redis.call('HGETALL', KEYS[1]) local c = 0 "
                 "for i = 1, #flat, 2 do if flat[i + 1] == ARGV[1] then "
                 "redis.call('HDEL', KEYS[1], flat[i]) c = c + 1 end end return c")
# Gives back number ARGV[2] if node ARGV[1] holds it.
_RELEASE = ("if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[1] then "
            "return redis.call('HDEL', KEYS[1], ARGV[2]) end return 0")

#: What the players of a node that vanished read, for each game they were in there.
NODE_GONE = msg("The server hosting your game has stopped; the game is interrupted.")


@dataclass(frozen=True)
class RemoteListing:
    """A game of another node as ``games`` lists it: its number, owner, line, players and
    the ``games /FLAGS`` letter that selects it."""

    number: int
    node: str
    line: str
    handles: tuple[str, str]
    kind: str

    def players(self) -> tuple[str, str]:
        return self.handles

    #: The store's id of the game (None: not stored, or not yet).
    record: int | None = None

    def to_json(self) -> str:
        return json.dumps({"number": self.number, "line": self.line,
                           "players": list(self.handles), "kind": self.kind,
                           "record": self.record}, separators=(",", ":"))

    @staticmethod
    def of(node: str, body: Any) -> RemoteListing:
        """From a ``cgame.up`` body or a ``games`` hash value.

        :raises KeyError, TypeError, ValueError: not such a listing.
        """
        white, black = body["players"]
        record = body.get("record")
        return RemoteListing(int(body["number"]), node, str(body["line"]),
                             (str(white), str(black)), str(body.get("kind", "")),
                             record if isinstance(record, int) else None)


class ClusterGames:
    """This node's part in the games of the cluster; see the module's documentation.

    ``server``: the node's :class:`~ficsfen.server.server.FicsServer`; ``bus``
    and ``presence``: the node's.
    """

    def __init__(self, server: Any, bus: Bus, presence: Presence) -> None:
        self.server = server
        self.bus = bus
        self.presence = presence
        sessions = server.sessions
        self.seats = Seats(bus, lambda: sessions.services)
        #: Where each player of this node is seated (folded handle -> owner node).
        self.seated: dict[str, str] = {}
        self.listings: dict[int, RemoteListing] = {}
        lookup = self.seats.lookup(sessions.by_key)
        server.broadcaster.find_sessions(lookup)
        server.games.find_sessions(lambda handle: lookup(fold(handle)))
        server.games.anywhere = lambda handle: lookup(fold(handle)) or presence.get(fold(handle))
        server.dispatcher.forward = self.forward
        directory = server.directory
        directory.taken_elsewhere = self._taken_elsewhere
        directory.number_source = self._take_number
        #: Numbers reserved for this node in Redis and not in use, smallest first.
        self._pool: list[int] = []
        #: Reserved numbers of this node's games in play.
        self._in_use: set[int] = set()
        self._claiming = False
        self._soon: dict[int, Any] = {}  # game number -> its listing's delayed call
        directory.listed_elsewhere = self.remote_listings
        directory.listeners.append(self)
        sessions.departures.append(self._departed)
        for kind, handler in (("seat.cmd", self._heard_command), ("seat.out", self._heard_output),
                              ("seat.free", self._heard_free), ("seat.leave", self._heard_leave),
                              ("cgame.up", self._heard_up), ("cgame.down", self._heard_down),
                              ("cgame.adjourned", self._heard_adjourned),
                              ("cgame.resumed", self._heard_resumed)):
            bus.on(kind, handler)
        bus.on_state(self._bus_state)
        self._unfollow: dict[int, Any] = {}

    # -- the player's node: which lines run elsewhere ---------------------------------

    def forward(self, session: Any, line: str) -> bool:
        """Run ``line`` of ``session`` on another node when it is about a game or a
        challenge there (see the module); True when it was sent."""
        if session in self.seats:
            return False  # a seat's line, forwarded here: run it here
        words = line.split()
        if session.ivars["block"] and words:
            words = words[1:]  # the block's number, kept in the line sent
        if not words:
            return False
        key = fold(session.handle)
        command = self._command_name(words[0])
        owner: str | None = None
        if command in NUMBERED_COMMANDS and len(words) > 1 and words[1].isdigit():
            number = int(words[1])
            listing = self.listings.get(number)
            if listing is not None and self.server.directory.by_number(number) is None:
                owner = listing.node
        if owner is None and command in ("match", "resume") and len(words) > 1:
            try:
                found = self.server.sessions.anywhere(words[1])
            except NameResolutionError:
                found = None
            if isinstance(found, RemotePlayer):
                owner = found.node
        if owner is None and key in self.seated and (
                command in GAME_COMMANDS or (command is None and len(words) == 1
                                             and is_move_text(words[0]))):
            owner = self.seated[key]
        if owner is None:
            return False
        if not self.bus.up:
            return False  # the link is down: the line runs here (and says what it can)
        self.seated[key] = owner
        self.bus.to_node(owner, "seat.cmd", {"state": snapshot(session), "line": line}).addErrback(
            self._unsent, session)
        return True

    def _command_name(self, word: str) -> str | None:
        table = self.server.table
        command = table.exact(word)
        if command is None:
            try:
                command = table.resolve(word)
            except NameResolutionError:
                return None
        return str(command.name)

    def _unsent(self, failure: Failure, session: Any) -> None:
        if isinstance(failure.value, BusDown):
            session.notify(failure.value.message)
        else:
            _log.failure("a line was not forwarded", failure=failure)

    def _heard_output(self, message: BusMessage) -> None:
        """Bytes for players of this node, written as they are."""
        keys, text = message.body.get("to"), message.body.get("d")
        if not isinstance(keys, list) or not isinstance(text, str):
            return
        data = text.encode("latin-1")
        by_key = self.server.sessions.by_key
        targets = [s for s in (by_key(str(k)) for k in keys) if s is not None]
        if targets:
            type(targets[0]).emit_all(targets, data)

    def _heard_free(self, message: BusMessage) -> None:
        key = str(message.body.get("key", ""))
        if self.seated.get(key) == message.sender:
            del self.seated[key]

    def _departed(self, session: Any) -> None:
        if session in self.seats:
            return
        key = fold(session.handle)
        node = self.seated.pop(key, None)
        if node is not None and self.bus.up:
            self.bus.to_node(node, "seat.leave", {"key": key}).addErrback(lambda _: None)

    # -- the owner: lines of seats, what they hold -----------------------------------------

    def _heard_command(self, message: BusMessage) -> None:
        state, line = message.body.get("state"), message.body.get("line")
        if not isinstance(state, dict) or not isinstance(line, str):
            return
        try:
            seat = self.seats.seat(message.sender, state)
        except ValueError:
            return
        self.server.dispatcher.execute(seat, line)
        self._release_if_idle(fold(seat.handle))

    def _holds(self, key: str) -> bool:
        seat = self.seats.get(key)
        if seat is None:
            return False
        handle, server = seat.handle, self.server
        return bool(server.directory.game_of(handle) is not None
                    or server.directory.observed_games(handle)
                    or server.challenges.to(handle) or server.challenges.by(handle)
                    or (seat.reply is not None and seat.reply.waiting))

    def _release_if_idle(self, key: str) -> None:
        if self._holds(key):
            return
        node = self.seats.node_of(key)
        self.seats.drop(key)
        if node is not None and self.bus.up:
            self.bus.to_node(node, "seat.free", {"key": key}).addErrback(lambda _: None)

    def _heard_leave(self, message: BusMessage) -> None:
        key = str(message.body.get("key", ""))
        seat = self.seats.get(key)
        if seat is None or self.seats.node_of(key) != message.sender:
            return
        self._leave(seat)

    def _leave(self, seat: Any) -> None:
        """A seat's player is gone: their game adjourned or forfeited, offers and
        observations dropped, as a logout on a single server."""
        server, handle = self.server, seat.handle
        server.games.departed(seat)
        server.broadcaster.deliver(server.challenges.drop(handle))
        for game in list(server.directory.observed_games(handle)):
            server.directory.unobserve(handle, game)
        self.seats.drop(fold(handle))

    # -- game numbers and listings ------------------------------------------------------

    def _numbers_key(self) -> str:
        return self.bus.key("numbers")

    def _take_number(self) -> int | None:
        """A reserved number for a new game, or None (none at hand: the directory picks)."""
        number = self._pool.pop(0) if self._pool else None
        if number is not None:
            self._in_use.add(number)
        if len(self._pool) < POOL // 2:
            self._claim()
        return number

    def _claim(self) -> None:
        """Reserve numbers until :data:`POOL` are at hand (one claim at a time)."""
        want = POOL - len(self._pool)
        if self._claiming or want <= 0 or not self.bus.up:
            return
        self._claiming = True

        def claimed(numbers: list[Any]) -> None:
            self._pool = sorted({*self._pool, *(int(n) for n in numbers)} - self._in_use)

        def done(_: object) -> None:
            self._claiming = False

        self.bus.execute("EVAL", _CLAIM, 1, self._numbers_key(), self.bus.node, want).addCallback(
            claimed).addErrback(self._failed, "reserving game numbers").addBoth(done)

    def _number_free(self, number: int) -> None:
        """A game of a reserved number ended: kept at hand, or given back."""
        if number not in self._in_use:
            return
        self._in_use.discard(number)
        if len(self._pool) < POOL:
            self._pool = sorted({*self._pool, number})
        elif self.bus.up:
            self.bus.execute("EVAL", _RELEASE, 1, self._numbers_key(), self.bus.node,
                             number).addErrback(self._failed, "giving back a number")

    def release_numbers(self) -> Deferred[Any]:
        """Give back every number of this node (it stops)."""
        self._pool = []
        if not self.bus.up:
            return succeed(None)
        return self.bus.execute("EVAL", _RELEASE_NODE, 1, self._numbers_key(),
                                self.bus.node).addErrback(self._failed, "giving back numbers")

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

    def _publish(self, game: Any) -> None:
        if not self.bus.up or self.server.directory.by_number(game.number) is not game:
            return
        listing = self._listing(game)
        body = json.loads(listing.to_json())
        self.bus.execute("HSET", self.bus.key("games"), str(game.number),
                         json.dumps({**body, "node": self.bus.node})).addErrback(lambda _: None)
        self.bus.broadcast("cgame.up", body).addErrback(lambda _: None)

    # IGameEvents: this node's games

    def game_started(self, game: Any) -> None:
        if not IPlayedGame.providedBy(game):
            return
        self._publish(game)
        record = getattr(game, "record_id", None)
        if record is not None and self.bus.up:  # resumed here: nowhere else
            self.bus.broadcast("cgame.resumed", {"record": record,
                                                 "players": list(game.players())}).addErrback(
                self._failed, "resumption")
        self._unfollow[game.number] = game.subscribe_moves(lambda ply: self._publish_soon(game))

    def game_ended(self, game: Any, result: object = None) -> None:
        number = game.number
        soon = self._soon.pop(number, None)
        if soon is not None and soon.active():
            soon.cancel()
        self._number_free(number)
        if getattr(result, "adjourned", False) and game.record_id is not None:
            # the others keep it too, once the store has it adjourned
            game.after_write(None, lambda: self._announce_adjourned(game.record_id,
                                                                    game.players()))
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

    def _release_idle_seats(self) -> None:
        for key in self.seats.keys():
            self._release_if_idle(key)

    def _announce_adjourned(self, record: int, players: tuple[str, str]) -> None:
        if self.bus.up:
            self.bus.broadcast("cgame.adjourned", {"record": record, "players": list(players)}
                               ).addErrback(self._failed, "adjournment")

    def _heard_adjourned(self, message: BusMessage) -> None:
        """Another node adjourned a game: kept here too, read from the shared store, so its
        players logging in here read the notice and may ``resume`` here."""
        record, players = message.body.get("record"), message.body.get("players")
        server = self.server
        if (server.store is None or not isinstance(record, int) or not isinstance(players, list)
                or len(players) != 2):
            return
        white, black = str(players[0]), str(players[1])
        if server.adjourned.between(white, black) is not None:
            return
        store, accounts = server.store, server.accounts

        def unfinished() -> list[tuple[Any, bool]]:  # in the read thread
            return [(stored, accounts.is_registered(white) and accounts.is_registered(black))
                    for stored in store.unfinished_games(white)
                    if stored.id == record and stored.status is GameStatus.ADJOURNED]

        def keep(found: list[tuple[Any, bool]]) -> Any:
            if not found or server.adjourned.between(white, black) is not None:
                return None
            return server.games.keeping.adjourn_unfinished(found, store, server.games,
                                                           server.offer_limiter)

        server.reads.read(unfinished).addCallback(keep).addErrback(self._failed, "adjourned game")

    def _heard_resumed(self, message: BusMessage) -> None:
        """A game resumed on another node: no longer adjourned here."""
        record, players = message.body.get("record"), message.body.get("players")
        if not isinstance(players, list) or len(players) != 2:
            return
        kept = self.server.adjourned.between(str(players[0]), str(players[1]))
        if kept is not None and kept.record_id == record:
            self.server.adjourned.take(str(players[0]), str(players[1]))

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
        bus, key = self.bus, self._numbers_key()
        self._pool = []  # Redis may have restarted empty: claimed again
        bus.execute("EVAL", _RELEASE_NODE, 1, key, bus.node).addErrback(self._failed, "numbers")
        for number in sorted(self._in_use):
            bus.execute("HSET", key, str(number), bus.node).addErrback(self._failed, "numbers")
        self._claim()
        for game in self.server.directory.games():
            if game.number in self._unfollow:
                self._publish(game)
        self.bus.execute("HGETALL", self.bus.key("games")).addCallback(self._read).addErrback(
            lambda _: None)

    def _read(self, flat: list[str]) -> None:
        for value in flat[1::2]:
            try:
                body = json.loads(value)
                listing = RemoteListing.of(str(body["node"]), body)
            except (KeyError, TypeError, ValueError):
                continue
            if listing.node != self.bus.node:
                self.listings.setdefault(listing.number, listing)

    def node_gone(self, node: str) -> None:
        """``node`` vanished: its listings go; this node's players seated there are told and
        run their lines here again."""
        for number in [n for n, g in self.listings.items() if g.node == node]:
            del self.listings[number]
        if self.bus.up:  # its reserved numbers are free again
            self.bus.execute("EVAL", _RELEASE_NODE, 1, self._numbers_key(), node).addErrback(
                self._failed, "numbers of a node gone")
        for key in [k for k, n in self.seated.items() if n == node]:
            del self.seated[key]
            session = self.server.sessions.by_key(key)
            if session is not None:
                session.notify(NODE_GONE)
        for seat in self.seats.of_node(node):
            self._leave(seat)
        if self.server.store is not None and self.bus.up:
            self.bus.execute("HGETALL", self.bus.key("games")).addCallback(
                self._adopt_all, node).addErrback(self._failed, "adoption")

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
        listings: list[RemoteListing] = []
        for value in flat[1::2]:
            try:
                body = json.loads(value)
                listing = RemoteListing.of(str(body["node"]), body)
            except (KeyError, TypeError, ValueError):
                continue
            if listing.record is not None and listing.node != self.bus.node:
                listings.append(listing)
        nodes = sorted({g.node for g in listings})
        if not nodes:
            return succeed(frozenset())

        def alive(flags: list[str | None]) -> frozenset[int]:
            living = {n for n, flag in zip(nodes, flags) if flag is not None}
            return frozenset(g.record for g in listings
                             if g.node in living and g.record is not None)

        return self.bus.execute("MGET", *(self.bus.key("alive", n) for n in nodes)).addCallback(
            alive)

    # -- the games of a node that died --------------------------------------------------

    def _adopt_all(self, flat: list[str], node: str) -> None:
        """Take over the games ``node`` listed: one node only for each (the one whose
        ``HDEL`` removes its listing)."""
        for value in flat[1::2]:
            try:
                body = json.loads(value)
                listing = RemoteListing.of(str(body["node"]), body)
            except (KeyError, TypeError, ValueError):
                continue
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

