"""Games across nodes, the player's node: the lines that run on the node hosting their game.

While a player of this node is *seated* on another node (has
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
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.names import NameResolutionError, fold
from ficsfen.server.cluster import seal
from ficsfen.server.cluster.bus import BusDown, BusMessage
from ficsfen.server.cluster.games_base import ClusterGamesBase
from ficsfen.server.cluster.presence import RemotePlayer
from ficsfen.tracker import is_move_text

__all__ = ["GAME_COMMANDS", "NUMBERED_COMMANDS", "GameForwarding"]

_log = Logger(namespace="ficsfen.cluster.games")

#: Commands run on the node hosting the caller's game or challenge while seated there.
GAME_COMMANDS = frozenset({"accept", "decline", "withdraw", "pending", "resign", "draw", "abort",
                           "adjourn", "flag", "takeback", "moretime", "refresh", "fen",
                           "moves", "say"})
#: Commands run on a game's owner when their argument is the number of a game of another node.
NUMBERED_COMMANDS = frozenset({"observe", "unobserve", "fen", "moves", "refresh",
                               "allobservers"})


class GameForwarding(ClusterGamesBase):
    """The player's node: which lines run elsewhere (a base of
    :class:`~ficsfen.server.cluster.games.ClusterGames`)."""

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

    def _departed(self, session: Any) -> None:
        if session in self.seats:
            return
        key = fold(session.handle)
        self.sent.forget(key)
        node = self.seated.pop(key, None)
        if node is not None and self.bus.up:
            self.bus.to_node(node, "seat.leave", {"key": key}).addErrback(lambda _: None)
