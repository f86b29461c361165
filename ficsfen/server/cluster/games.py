"""Games across nodes: the owner hosts, the other nodes forward lines and relay bytes.

**Ownership.**  A game lives on one node, its *owner*: the node where it
starts, which keeps its clock, tracker, offers and journal.  A match offer
to a player of another node is run on that player's node (the receiver's):
the challenger's line (``match bob 5 0``, ``resume bob``) is forwarded there
(``seat.cmd``) and run for the challenger's seat
(:mod:`~ficsfen.server.cluster.seats`); ``accept`` then starts the game on
the receiver's node, as on a single server.  A ``match`` or ``resume``
answering an offer to resume that waits here is run here: ``bob`` typing
``resume alice`` continues the game alice offered to resume, as on a single
server.

**Forwarding.**  While a player of this node is *seated* on another node (has
a challenge, a game or an observed game there), the lines about it
(moves, ``draw``, ``resign``, ``abort``, ``adjourn``, ``takeback``,
``flag``, ``accept``, ``decline``, ``withdraw``, ``pending``, ``moretime``,
``refresh``, ``fen``, ``moves``, ``say``) are run there, for the seat, and the answers come back as bytes
(``seat.out``); so do ``observe N``, ``unobserve N``, ``fen N``, ``moves N``,
``refresh N`` and ``allobservers N`` for a game number of another node.  The owner says
``seat.free`` when a seat has nothing left there (after a line, at a game's
end); the player's node then runs their lines itself again.  A player of
this node who logs out while seated elsewhere is logged out of their seats
too (``seat.leave``: their game there is adjourned or forfeited as on a
single server).  A timeseal player's moves carry their client's stamps and
their pings leave with the seat's bytes (:mod:`.seal`): they are charged as
on a single server.

**Numbers.**  A game's number is unique across the cluster: reserved in
Redis (:mod:`.numbers`).  Each owner keeps the games it hosts in the Redis
hash ``games`` (:mod:`.listing`: number -> node, store id and ``games``
line, updated after the moves at most once a second) and announces them
(``cgame.up``, ``cgame.down``): ``games`` lists the games of every node.

**Failure.**  A node whose heartbeat expired (:mod:`.presence`, ``[cluster]
heartbeat_timeout``) is gone: its games leave the lists, and the players of
this node seated there are told the game is interrupted; their lines run
here again.  Its games are adjourned in the shared store by one survivor,
and adjourned games are kept by every node (:mod:`.failover`).
"""

from __future__ import annotations

import json
from typing import Any

from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import msg
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.cluster import seal
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.failover import Failover
from ficsfen.server.cluster.listing import RemoteListing, listings_of
from ficsfen.server.cluster.numbers import GameNumbers
from ficsfen.server.cluster.presence import Presence, RemotePlayer
from ficsfen.server.cluster.seats import Seats, SentStates
from ficsfen.server.boards import category
from ficsfen.server.commands.session_cmds import games_line
from ficsfen.server.interfaces import IPlayedGame
from ficsfen.server.variant_games import category_letter
from ficsfen.tracker import is_move_text

__all__ = ["ClusterGames", "GAME_COMMANDS", "NUMBERED_COMMANDS", "RemoteListing"]

_log = Logger(namespace="ficsfen.cluster.games")

#: Commands run on the node hosting the caller's game or challenge while seated there.
GAME_COMMANDS = frozenset({"accept", "decline", "withdraw", "pending", "resign", "draw", "abort",
                           "adjourn", "flag", "takeback", "moretime", "refresh", "fen",
                           "moves", "say"})
#: Commands run on a game's owner when their argument is the number of a game of another node.
NUMBERED_COMMANDS = frozenset({"observe", "unobserve", "fen", "moves", "refresh",
                               "allobservers"})

#: Seconds a game's ``games`` listing may lag its moves on the other nodes (one write
#: to Redis and one announcement per game and period, however fast it is played).
LISTING_DELAY = 1.0

#: What the players of a node that vanished read, for each game they were in there.
NODE_GONE = msg("The server hosting your game has stopped; the game is interrupted.")


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
        self.seats = Seats(bus, lambda: sessions.services,
                           lag_compensation=server.config.lag_compensation)
        #: Where each player of this node is seated (folded handle -> owner node).
        self.seated: dict[str, str] = {}
        #: The players' settings as each owner has them (sent with a line when changed).
        self.sent = SentStates()
        self.listings: dict[int, RemoteListing] = {}
        lookup = self.seats.lookup(sessions.by_key)
        server.broadcaster.find_sessions(lookup)
        server.games.find_sessions(lambda handle: lookup(fold(handle)))
        server.games.anywhere = lambda handle: lookup(fold(handle)) or presence.get(fold(handle))
        server.dispatcher.forward = self.forward
        directory = server.directory
        #: This node's reserved game numbers.
        self.numbers = GameNumbers(bus)
        #: Adjourned games shared with the other nodes, the games of the nodes that die.
        self.failover = Failover(server, bus, presence)
        directory.taken_elsewhere = self._taken_elsewhere
        directory.number_source = self.numbers.take
        directory.reserve_number = self.numbers.reserve
        self._soon: dict[int, Any] = {}  # game number -> its listing's delayed call
        directory.listed_elsewhere = self.remote_listings
        directory.listeners.append(self)
        sessions.departures.append(self._departed)
        server.player_changed.append(self._settings_changed)
        for kind, handler in (("seat.cmd", self._heard_command), ("seat.out", self._heard_output),
                              ("seat.free", self._heard_free), ("seat.leave", self._heard_leave),
                              ("seat.held", self._heard_held), ("seat.state", self._heard_state),
                              ("seat.again", self._heard_again),
                              ("cgame.up", self._heard_up), ("cgame.down", self._heard_down)):
            bus.on(kind, handler)
        bus.on_state(self._bus_state)
        self._unfollow: dict[int, Any] = {}
        #: ``route(session, command, words)``: the node where a line the rules above leave
        #: here runs instead, or None (:mod:`.watching`: ``kibitz``, ``whisper``).
        self.routes: list[Any] = []

    # -- the player's node: which lines run elsewhere ---------------------------------

    def forward(self, session: Any, line: str) -> bool:
        """Run ``line`` of ``session`` on another node when it is about a game or a
        challenge there (see the module); True when it was sent."""
        if session in self.seats:
            return False  # a seat's line, forwarded here: run it here
        words = line.split()
        if session.ivars["block"] and words:
            words = words[1:]  # the block's number, kept in the line sent
        if words and words[0].startswith("$"):  # "$moves 1", "$$ moves 1": no alias expansion
            text = " ".join(words)
            words = (text[2:] if text.startswith("$$") else text[1:]).split()
        if not words:
            return False
        key = fold(session.handle)
        if len(words) == 1 and key not in self.seated:
            return False  # a move, most often, of a player seated nowhere: no command to look up
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
            if isinstance(found, RemotePlayer) and not self._offered_here(found.handle,
                                                                          session.handle):
                owner = found.node
        if owner is None and key in self.seated and (
                command in GAME_COMMANDS or (command is None and len(words) == 1
                                             and is_move_text(words[0]))) and not self._here(
                                                 session.handle, command):
            owner = self.seated[key]
        for route in self.routes:
            if owner is None:
                owner = route(session, command, words)
        if owner is None:
            return False
        if not self.bus.up:
            return False  # the link is down: the line runs here (and says what it can)
        self.seated[key] = owner
        seal_stamps = None
        if command is None and session.move_timer is not None:  # a move: timed by its stamps
            seal_stamps = seal.stamps(session, self.server.clock.seconds())
        self._send(session, owner, line, seal_stamps)
        return True

    def _offered_here(self, challenger: str, handle: str) -> bool:
        """Whether an offer of ``challenger`` (of another node) to resume their adjourned
        game with ``handle`` waits here: ``handle``'s ``match`` or ``resume`` then answers
        it here, as on a single server (where it continues the game)."""
        key = fold(challenger)
        return any(c.adjourned and fold(c.challenger) == key
                   for c in self.server.challenges.to(handle))

    def _here(self, handle: str, command: str | None) -> bool:
        """Whether a game line of ``handle``, seated elsewhere, is about this node: their
        game is here, or (``accept``, ``decline``) an offer to them is.  Two offers crossed
        (each player's ``match`` or ``resume`` run on the other's node) are answered where
        they are."""
        server = self.server
        return server.directory.game_of(handle) is not None or (
            command in ("accept", "decline") and bool(server.challenges.to(handle)))

    def _send(self, session: Any, owner: str, line: str, seal_stamps: Any = None) -> None:
        """``line`` of ``session`` to ``owner`` (``seat.cmd``), with the player's settings
        when ``owner`` does not have them as they are (:class:`~.seats.SentStates`) and a
        timeseal move's stamps."""
        body = self.sent.body(owner, session, line)
        if seal_stamps is not None:
            body["seal"] = seal_stamps
        self.bus.to_node(owner, "seat.cmd", body).addErrback(self._unsent, session, owner)

    def _command_name(self, word: str) -> str | None:
        table = self.server.table
        command = table.exact(word)
        if command is None:
            try:
                command = table.resolve(word)
            except NameResolutionError:
                return None
        return str(command.name)

    def _unsent(self, failure: Failure, session: Any, owner: str) -> None:
        self.sent.forget(fold(session.handle), owner)  # maybe lost with the line
        if isinstance(failure.value, BusDown):
            session.notify(failure.value.message)
        else:
            _log.failure("a line was not forwarded", failure=failure)

    def _heard_output(self, message: BusMessage) -> None:
        """Bytes for players of this node (:class:`~.seats.Outbox`), written as they are:
        each entry's bytes once to all its players (part of the fast path of boards
        across nodes: ``bench/cluster_observers.py``)."""
        writes = message.body.get("w")
        if not isinstance(writes, list):
            return
        by_key = self.server.sessions.by_key
        for entry in writes:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], str)):
                continue
            targets = [s for s in map(by_key, entry[0].split(" ")) if s is not None]
            if targets:
                type(targets[0]).emit_all(targets, entry[1].encode("latin-1"))
        pings = message.body.get("p")
        if isinstance(pings, list):  # after the bytes: a board's ping follows it
            now = self.server.clock.seconds()
            for session in map(by_key, map(str, pings)):
                if session is not None:
                    seal.ping_here(session, now)

    def _heard_free(self, message: BusMessage) -> None:
        key = str(message.body.get("key", ""))
        self.sent.forget(key, message.sender)  # the seat went, with the settings it had
        if self.seated.get(key) == message.sender:
            del self.seated[key]

    def _heard_again(self, message: BusMessage) -> None:
        """The owner had no seat for a line sent without the player's settings (freed
        meanwhile): the line again, with them."""
        key, line = str(message.body.get("key", "")), message.body.get("line")
        self.sent.forget(key, message.sender)
        session = self.server.sessions.by_key(key)
        if session is not None and isinstance(line, str) and self.bus.up:
            self._send(session, message.sender, line, message.body.get("seal"))

    def _heard_held(self, message: BusMessage) -> None:
        """A player of this node has a seat on the sender (a game started there from a
        seek): their game lines run there."""
        key = str(message.body.get("key", ""))
        if self.server.sessions.by_key(key) is not None:
            self.seated[key] = message.sender

    def _settings_changed(self, session: Any) -> None:
        """A player of this node seated on another changed a setting (``style 12`` typed
        while their ``match`` waits there): the seat takes it before their next line."""
        if session in self.seats:
            return
        node = self.seated.get(fold(session.handle))
        if node is not None and self.bus.up:
            state = self.sent.record(node, session)  # the next line need not carry them
            self.bus.to_node(node, "seat.state", {"state": state}).addErrback(
                self._state_unsent, fold(session.handle), node)

    def _state_unsent(self, failure: Failure, key: str, node: str) -> None:
        self.sent.forget(key, node)  # the next line carries them
        self._failed(failure, "seat")

    def _heard_state(self, message: BusMessage) -> None:
        state = message.body.get("state")
        if not isinstance(state, dict):
            return
        if self.seats.node_of(fold(str(state.get("handle", "")))) == message.sender:
            self.seats.seat(message.sender, state)

    def _departed(self, session: Any) -> None:
        if session in self.seats:
            return
        key = fold(session.handle)
        self.sent.forget(key)
        node = self.seated.pop(key, None)
        if node is not None and self.bus.up:
            self.bus.to_node(node, "seat.leave", {"key": key}).addErrback(lambda _: None)

    # -- the owner: lines of seats, what they hold -----------------------------------------

    def _heard_command(self, message: BusMessage) -> None:
        body = message.body
        state, line = body.get("state"), body.get("line")
        if not isinstance(line, str):
            return
        if isinstance(state, dict):
            try:
                seat = self.seats.seat(message.sender, state)
            except ValueError:
                return
        else:  # the settings the seat has (unchanged since they were sent)
            key = str(body.get("key", ""))
            found = self.seats.get(key)
            if found is None or self.seats.node_of(key) != message.sender:
                again = {"key": key, "line": line, "seal": body.get("seal")}
                self.bus.to_node(message.sender, "seat.again", again).addErrback(
                    self._failed, "seat.again")
                return
            seat = found
        timer = seat.move_timer
        if isinstance(timer, seal.SeatTimer):
            timer.running(body.get("seal"))
        self.server.dispatcher.execute(seat, line)
        self.release_if_idle(fold(seat.handle))

    def start_game(self, challenge: Any, *, node: str, state: dict[str, Any]) -> Any:
        """Start here the game of ``challenge`` (a seek of this node answered), whose
        receiver is a player of ``node`` that ``state`` describes (:func:`.seats.snapshot`):
        seated here first, so that the game's lines reach them and theirs come here.

        :raises ficsfen.i18n.LocalizedError: the game cannot start (as a local one).
        """
        seat = self.seats.seat(node, state)
        key = fold(seat.handle)
        self.bus.to_node(node, "seat.held", {"key": key}).addErrback(self._failed, "seat")
        try:
            return self.server.games.start_game(challenge)
        finally:
            self.server.clock.callLater(0, self.release_if_idle, key)

    def _holds(self, key: str) -> bool:
        seat = self.seats.get(key)
        if seat is None:
            return False
        handle, server = seat.handle, self.server
        # busy(): also a game whose start is not yet committed (with a store it is
        # announced only then, to the seat).
        return bool(server.games.busy(handle)
                    or server.directory.observed_games(handle)
                    or server.challenges.to(handle) or server.challenges.by(handle)
                    or (seat.reply is not None and seat.reply.waiting))

    def release_if_idle(self, key: str) -> None:
        """The seat of ``key`` goes (``seat.free``) when it holds nothing more here."""
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

    def _release_idle_seats(self) -> None:
        for key in self.seats.keys():
            self.release_if_idle(key)

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

    def node_gone(self, node: str) -> None:
        """``node`` vanished: its listings go; this node's players seated there are told and
        run their lines here again."""
        for number in [n for n, g in self.listings.items() if g.node == node]:
            del self.listings[number]
        self.sent.forget(node=node)
        self.numbers.release(node)  # its reserved numbers are free again
        for key in [k for k, n in self.seated.items() if n == node]:
            del self.seated[key]
            session = self.server.sessions.by_key(key)
            if session is not None:
                session.notify(NODE_GONE)
        for seat in self.seats.of_node(node):
            self._leave(seat)
        self.failover.node_gone(node)

    @staticmethod
    def _failed(failure: Failure, what: str) -> None:
        if not failure.check(BusDown):
            _log.failure("cluster games: {what} failed", failure=failure, what=what)

