"""A :class:`~ficsfen.server.server.FicsServer` as one node of a cluster.

:class:`ClusterNode` makes the node's :class:`~.bus.Bus`, its
:class:`~.presence.Presence` and its :class:`~.talk.ClusterTalk`, and plugs
them into the server's seams, which otherwise stay empty:

* ``server.sessions.elsewhere``: the players of the other nodes (``who``,
  ``finger``, ``tell`` find them; login names are unique across nodes);
* ``server.talk.elsewhere``: tells, channel tells and shouts to the other nodes;
* the dispatcher's ``forward``, the broadcaster's and game service's session
  lookups and the directory's numbers and listings: games across nodes
  (:mod:`.games`, :mod:`.seats`);
* the talk's recipients and censors, the directory's ``watching`` and
  ``observing_changed``: observing across nodes (:mod:`.watching`: ``kibitz``,
  ``whisper``, ``unobserve``, ``allobservers``, ``primary``, ``follow``);
* the registry's ``entering``, ``arrivals`` and ``departures`` hooks and the
  server's ``player_changed``: what this node writes of its players;
* the bus's state: every player of the node is told when the link between the
  servers goes down and when it comes back (``cluster_notices``);
* the ``pin`` and ``allresults`` lines: the other nodes' players arriving and
  leaving (:mod:`.pins`), their games' ends (:mod:`.results`);
* ``server.seeks.elsewhere``: seeks across nodes (:class:`~.seeks.ClusterSeeks`);
* ``server.ratings.elsewhere`` and the entry's ``ratings`` and ``game``: the
  other nodes' players' ratings and status marks (``who``, ``finger``, ``tell``),
  published again when a game starts or ends and when a rated game's ratings
  are committed.

``ficsfen serve`` makes one when ``[cluster] url`` or ``--cluster`` names a
Redis server, starts it with the server and stops it after the
goodbyes.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any, Callable

from twisted.internet.defer import Deferred

from ficsfen.i18n import msg
from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus
from ficsfen.server.cluster.games import ClusterGames
from ficsfen.server.cluster.pins import RemotePins
from ficsfen.server.cluster.presence import Presence, RemotePlayer, ratings_to_json
from ficsfen.server.cluster.results import ClusterResults
from ficsfen.server.cluster.seeks import ClusterSeeks
from ficsfen.server.cluster.talk import ClusterTalk
from ficsfen.server.cluster.watching import Watching
from ficsfen.server.wholist import status_char

__all__ = ["ClusterNode", "DOWN", "UP", "default_node_name"]

#: What every player of a node reads when the bus goes down, and when it is back.
DOWN = msg("The link between the servers is down: you see and reach the players of this "
           "server only.")
UP = msg("The link between the servers is back: you see and reach the players of every "
         "server again.")


def default_node_name() -> str:
    """``HOST:PID``: this machine's name and this process's id."""
    return f"{socket.gethostname()}:{os.getpid()}"


class ClusterNode:
    """``server`` joined to the cluster of its ``[cluster]`` settings; see the module.

    ``reactor`` runs the bus and the heartbeats; ``wall()`` is Unix time (login
    times, compared across nodes).

    :raises ValueError: ``[cluster] url`` is not set or not a Redis URL.
    """

    def __init__(self, server: Any, *, reactor: Any, wall: Callable[[], float] = time.time) -> None:
        config = server.config
        if not config.cluster_url:
            raise ValueError("no [cluster] url")
        self.server = server
        self.wall = wall
        self.reactor = reactor
        self.bus = Bus(config.cluster_url, config.cluster_node or default_node_name(),
                       reactor=reactor, namespace=config.cluster_namespace)
        sessions = server.sessions
        self._logins: dict[str, float] = {}  # folded handle -> Unix time of its login here
        self._was_up = False
        self.presence = Presence(
            self.bus, clock=reactor, wall=wall, interval=config.heartbeat_interval,
            timeout=config.heartbeat_timeout, entries=self._entries, local=self._logins.get,
            replaced=self._replaced, changed=self._presence_changed)
        self.talk = ClusterTalk(self.bus, self.presence, talk=server.talk, local=sessions.keys)
        self.seeks = ClusterSeeks(self.bus, self.presence, board=server.seeks, sessions=sessions,
                                  timeout=config.heartbeat_timeout)
        server.ratings.elsewhere = self._ratings_of
        server.ratings.listeners.append(self._changed_handle)
        server.directory.listeners.append(_GameMarks(self))
        #: Games across nodes: seats, forwarded lines, cluster-wide game numbers.
        self.games = ClusterGames(server, self.bus, self.presence)
        self.seeks.games = self.games  # play of another node's seek starts a game
        #: Observing across nodes: kibitz, whisper, unobserve, allobservers, primary, follow.
        self.watching = Watching(server, self.bus, self.presence, self.games)
        self.presence.gone.append(self.games.node_gone)
        #: ``iset pin`` and ``iset allresults`` lines of the other nodes' players and games.
        self.pins = RemotePins(self.presence, sessions=sessions,
                               announce=server.broadcaster.announce)
        self.results = ClusterResults(self.bus, server.broadcaster)
        sessions.elsewhere = self.presence
        server.talk.elsewhere = self.talk
        sessions.entering.append(self._entering)
        sessions.arrivals.append(self._arrived)
        sessions.departures.append(self._departed)
        server.player_changed.append(self._changed)
        self.bus.on_state(self._state)

    @property
    def name(self) -> str:
        """This node's name."""
        return self.bus.node

    def start(self) -> None:
        """Connect to Redis (again and again, backing off, until :meth:`stop`) and beat."""
        self.bus.start()
        self.presence.start()

    def live_games(self) -> Deferred[frozenset[int]]:
        """The store's ids of the games in play on the other living nodes (what this node,
        starting, must not adjourn): :meth:`~.failover.Failover.live_games`, waiting for the
        bus at most ``[cluster] heartbeat_timeout`` seconds."""
        return self.games.failover.live_games(self.reactor,
                                             self.server.config.heartbeat_timeout)

    def stop(self) -> Deferred[None]:
        """Leave the cluster: this node's table deleted, the bus closed."""
        return self.games.numbers.release().addBoth(
            lambda _: self.presence.stop()).addBoth(lambda _: self.bus.stop())

    # -- this node's players --------------------------------------------------------------

    def entry(self, session: Any, ended: Any = None) -> dict[str, Any]:
        """What the other nodes are told of ``session`` (``ended``: a game ending, no longer
        theirs)."""
        server, key = self.server, fold(session.handle)
        lists = server.lists.of(session.handle)
        censor = [fold(h) for h in lists.members("censor")] if "censor" in lists.names else []
        entry = RemotePlayer.to_json(session, login=self._logins.get(key, self.wall()),
                                     channels=server.talk.channels.of(session.handle),
                                     censor=censor, notes=getattr(session, "notes", ()) or ())
        game = server.directory.game_of(session.handle)
        entry["game"] = "" if game is None or game is ended else status_char(game)
        entry["ratings"] = ratings_to_json(server.ratings.stored(session.handle) or {})
        return entry

    def _ratings_of(self, key: str) -> Any:
        """A registered player of another node's played ratings (None: a guest, or unknown)."""
        player = self.presence.get(key)
        return player.ratings if player is not None and player.registered else None

    def _presence_changed(self) -> None:
        self.server.sessions.listing_changed()
        seeks = getattr(self, "seeks", None)  # made after the presence
        if seeks is not None:
            seeks.check()

    def _changed_handle(self, handle: str, ended: Any = None) -> None:
        session = self.server.sessions.get(handle)
        if session is not None and self.server.sessions.is_online(session):
            self.presence.updated(self.entry(session, ended))

    def _entries(self) -> list[dict[str, Any]]:
        return [self.entry(s) for s in self.server.sessions.all() if fold(s.handle) in self._logins]

    def _entering(self, session: Any, replaced: Any, saved: Any) -> None:
        key = fold(session.handle)
        self._logins[key] = self.wall()
        if replaced is None and self.presence.get(key) is not None:
            session.send(msg("**** {handle} is already logged in - kicking them out. ****",
                             handle=session.handle))

    def _arrived(self, session: Any) -> None:
        self.presence.arrived(self.entry(session))
        if self._was_up and not self.bus.up:
            session.notify(DOWN)  # logged in while the link is down

    def _changed(self, session: Any) -> None:
        if self.server.sessions.is_online(session):
            self.presence.updated(self.entry(session))

    def _departed(self, session: Any) -> None:
        self._logins.pop(fold(session.handle), None)
        self.presence.departed(session.handle)

    def _replaced(self, key: str) -> None:
        """``key`` logged in on another node after logging in here: this session goes."""
        session = self.server.sessions.get(key)
        if session is None:
            return
        session.write_text("\n" + session.render(msg(
            "**** {handle} has arrived - you can't both be logged in. ****",
            handle=session.handle)))
        self.server.sessions.logout(session, reason="logged in on another node")

    def _state(self, up: bool) -> None:
        if up and not self._was_up:
            self._was_up = True
            return  # the first connection: nothing to tell
        for session in list(self.server.sessions.all()):
            session.notify(UP if up else DOWN)



class _GameMarks:
    """A listener of the node's games: its players' status marks published again."""

    def __init__(self, node: ClusterNode) -> None:
        self.node = node

    def game_started(self, game: Any) -> None:
        for handle in game.players():
            self.node._changed_handle(handle)

    def game_ended(self, game: Any, result: Any = None) -> None:
        for handle in game.players():
            self.node._changed_handle(handle, game)

    def position_changed(self, game: Any) -> None:
        """Nothing to publish."""
