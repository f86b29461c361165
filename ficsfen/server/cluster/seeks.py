"""Seeks across nodes: every node lists every node's seeks in ``sought`` and tells its players.

A seek is posted, removed and answered on the node of its owner, which
keeps it in its :class:`~ficsfen.server.seeks.SeekBoard` under its own
number.  That node publishes it (``seek.add``: the owner, the terms, the
owner's rating as posted, its number there), and publishes the numbers of
the seeks it removes (``seek.remove``: ``unseek``, a game started, a
logout).  Every other node lists the seek in its own board under a number of
its own (the lowest free one, as FICS numbers seeks: numbers are per node,
so a player reads ``sought``, ``<s>``/``<sr>`` lines and ``play N`` with the
numbers of the node they are on); the seek keeps its node and its number
there (:attr:`~ficsfen.server.seeks.Seek.node`,
:attr:`~ficsfen.server.seeks.Seek.remote_id`).  Each node renders the
announcement and the ``<s>``, ``<sr>`` lines itself, through the same
:class:`~ficsfen.server.seeks.SeekBoard` as a local seek, so its players'
rating ranges, ``seek`` variables, ``seekinfo`` and censor lists apply as on
one node.

When the bus comes up (at the start and after an outage) a node publishes
all its seeks (``seek.sync``, asking the others for theirs); a node that
receives one replaces what it lists of the sender's.  A seek goes when its
owner leaves the copy of the other nodes' players
(:class:`~ficsfen.server.cluster.presence.Presence`): a logout, a node
whose heartbeat expired, the bus going down.

``play N`` of another node's seek goes to the owner's node (``seek.play``),
which starts the game as an accepted ``match`` between nodes would: through
the hook :attr:`ClusterSeeks.games`, an object whose ``start_game(challenge,
node=, state=)`` starts a game of a :class:`~ficsfen.server.challenges.Challenge`
whose receiver is on ``node``, described by ``state``
(:func:`~ficsfen.server.cluster.seats.snapshot`; the cluster's game
ownership, :class:`~ficsfen.server.cluster.games.ClusterGames`).  While a node
has no such object, ``play`` of a remote seek answers that games between
servers cannot start yet.  A seek that is gone by then is answered "That
seek is not available." (``seek.refused``).  Seeks never pair at once with
another node's seek (``seek`` with the same terms posts a seek).

``seek.add`` carries a question (``ask``): each node answers how many of its
players read the announcement (``seek.seen``), and the seeker's "(N players
saw the seek.)" counts them (:meth:`ClusterSeeks.seen`, :mod:`.replies`).
"""

from __future__ import annotations

from typing import Any, Callable

import chess
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.names import fold
from ficsfen.server.challenges import Challenge
from ficsfen.server.clock import TimeControl
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.cluster.presence import Presence
from ficsfen.server.cluster.replies import Replies
from ficsfen.server.cluster.seats import snapshot
from ficsfen.server.parsed import parsed
from ficsfen.server.rating_view import Shown
from ficsfen.server.seeks import Seek, SeekBoard, SeekRequest

__all__ = ["ClusterSeeks", "not_yet", "seek_from_json", "seek_to_json"]

_log = Logger(namespace="ficsfen.cluster.seeks")

def not_yet(handle: str) -> Message:
    """``play`` of ``handle``'s seek, on another node, while games between nodes cannot start."""
    return msg("{handle} is on another server: games between servers cannot start yet.",
               handle=handle)


def seek_to_json(seek: Seek) -> dict[str, Any]:
    """What the other nodes are told of a local ``seek``."""
    r, shown = seek.request, seek.shown
    return {"id": seek.id, "owner": seek.owner, "registered": seek.registered,
            "time": [r.time_control.minutes, r.time_control.increment],
            "colour": None if r.colour is None else ("w" if r.colour == chess.WHITE else "b"),
            "variant": r.variant, "manual": r.manual, "formula": r.formula,
            "range": [r.low, r.high], "rated": bool(r.rated),
            "shown": None if shown is None else [shown.text, shown.value, shown.mark]}


def seek_from_json(body: dict[str, Any]) -> tuple[int, str, bool, SeekRequest, Shown | None]:
    """The number, owner, registered flag, terms and rating of a seek :func:`seek_to_json` wrote.

    :raises KeyError, TypeError, ValueError: not such a seek.
    """
    minutes, increment = body["time"]
    low, high = body["range"]
    colour = {None: None, "w": chess.WHITE, "b": chess.BLACK}[body.get("colour")]
    variant = body.get("variant")
    request = SeekRequest(TimeControl(int(minutes), int(increment)), colour,
                          None if variant is None else str(variant), bool(body.get("manual")),
                          bool(body.get("formula")), int(low), int(high), bool(body.get("rated")))
    shown = body.get("shown")
    rating = None if shown is None else Shown(str(shown[0]), int(shown[1]), str(shown[2]))
    return int(body["id"]), str(body["owner"]), bool(body["registered"]), request, rating


class ClusterSeeks:
    """This node's seeks told to the other nodes, and theirs listed here; see the module.

    ``board`` is the server's :class:`~ficsfen.server.seeks.SeekBoard`;
    ``sessions`` its registry (``get(key)`` of a folded handle).
    """

    def __init__(self, bus: Bus, presence: Presence, *, board: SeekBoard, sessions: Any,
                 timeout: float = 1.0) -> None:
        self.bus = bus
        self.presence = presence
        self.board = board
        self.sessions = sessions
        #: The cluster's games: ``start_game(challenge)`` with a player on another node;
        #: None until the nodes can start games between them.
        self.games: Any = None
        self._present: set[tuple[str, str]] = set()  # (node, folded handle) at the last check
        #: How many players of each other node read a seek posted here (``seek.seen``).
        self.replies = Replies(bus, presence, reply="seek.seen", timeout=timeout)
        self._seen: dict[int, Deferred[list[dict[str, Any]]]] = {}  # by seek number here
        board.elsewhere = self
        for kind, handler in (("seek.add", self._heard_add), ("seek.remove", self._heard_remove),
                              ("seek.sync", self._heard_sync), ("seek.play", self._heard_play),
                              ("seek.refused", self._heard_refused)):
            bus.on(kind, handler)
        bus.on_state(self._bus_state)

    # -- what the board tells ------------------------------------------------------------

    def posted(self, seek: Seek) -> None:
        """A seek was posted here: the other nodes list it, and say how many read it."""
        nodes = self.presence.nodes() if self.bus.up else {}
        number, self._seen[seek.id] = self.replies.ask(nodes)
        d = self.bus.broadcast("seek.add", {"seek": seek_to_json(seek), "ask": number})
        self._send(d, "add", lambda: self.replies.closed(number))

    def seen(self, seek: Seek) -> Deferred[int] | None:
        """How many players of the other nodes read ``seek`` (posted here) once each node
        has said, at most ``timeout`` seconds; None if it was not published."""
        answer = self._seen.pop(seek.id, None)
        if answer is None:
            return None
        return answer.addCallback(lambda bodies: sum(
            b["count"] for b in bodies if isinstance(b.get("count"), int)))

    def removed(self, seeks: list[Seek]) -> None:
        """Seeks posted here were removed."""
        if seeks:
            self._send(self.bus.broadcast("seek.remove", {"ids": [s.id for s in seeks]}),
                       "remove")

    def play(self, caller: Any, seek: Seek) -> None:
        """``caller`` answers ``seek``, another node's: its node starts the game."""
        if self.games is None:
            caller.send(not_yet(seek.owner))
            return
        d = self.bus.to_node(str(seek.node), "seek.play", {
            "id": seek.remote_id, "from": caller.handle, "registered": bool(caller.registered),
            "state": snapshot(caller)})

        def failed(failure: Failure) -> None:
            error = failure.value
            if isinstance(error, LocalizedError):
                caller.send(error.message)
            else:
                _log.failure("seeks: play failed", failure=failure)

        d.addErrback(failed)

    def _send(self, d: Any, what: str, unsent: Callable[[], None] = lambda: None) -> None:
        def failed(failure: Failure) -> None:
            unsent()
            if not failure.check(BusDown):  # everything is published again when the bus is back
                _log.failure("seeks: {what} failed", failure=failure, what=what)

        d.addErrback(failed)

    # -- the other nodes' seeks ----------------------------------------------------------

    def of(self, node: str) -> dict[int, Seek]:
        """The seeks of ``node`` listed here, by their number there."""
        return {s.remote_id: s for s in self.board.seeks if s.node == node}

    def _list(self, node: str, body: dict[str, Any]) -> int:
        """List ``node``'s seek ``body`` and announce it; how many read it."""
        try:
            remote_id, owner, registered, request, rating = seek_from_json(body)
        except (KeyError, TypeError, ValueError):
            _log.warn("seeks: a malformed seek from {node}", node=node)
            return 0
        if remote_id in self.of(node):
            return 0
        seek = self.board.seeks.add_remote(node, remote_id, owner, request,
                                           registered=registered, rating=rating)
        return self.board.announce(seek)

    def _heard_add(self, message: BusMessage) -> None:
        seek = message.body.get("seek")
        count = self._list(message.sender, seek) if isinstance(seek, dict) else 0
        ask = message.body.get("ask")
        if isinstance(ask, int):
            self.bus.to_node(message.sender, "seek.seen", {"id": ask, "count": count}
                             ).addErrback(lambda _: None)

    def _heard_remove(self, message: BusMessage) -> None:
        listed = self.of(message.sender)
        ids = message.body.get("ids")
        if isinstance(ids, list):
            self.board.remove([listed[i] for i in ids if isinstance(i, int) and i in listed])

    def _heard_sync(self, message: BusMessage) -> None:
        seeks = message.body.get("seeks")
        if not isinstance(seeks, list):
            return
        numbers = {s.get("id") for s in seeks if isinstance(s, dict)}
        self.board.remove([s for n, s in self.of(message.sender).items() if n not in numbers])
        for body in seeks:
            if isinstance(body, dict):
                self._list(message.sender, body)
        if message.body.get("want"):
            self._send(self.bus.to_node(message.sender, "seek.sync", self._mine(False)), "sync")

    def _mine(self, want: bool) -> dict[str, Any]:
        return {"seeks": [seek_to_json(s) for s in self.board.seeks if s.node is None],
                "want": want}

    def _bus_state(self, up: bool) -> None:
        if up:
            self._send(self.bus.broadcast("seek.sync", self._mine(True)), "sync")

    def check(self) -> None:
        """The other nodes' players changed: the seeks of those who left (a logout, a node
        gone, the bus down) go."""
        present = {(p.node, fold(p.handle)) for p in self.presence.players()}
        left = self._present - present
        self._present = present
        if left:
            self.board.remove([s for s in self.board.seeks if s.node is not None
                               and (s.node, fold(s.owner)) in left])

    # -- play ---------------------------------------------------------------------------

    def _heard_play(self, message: BusMessage) -> None:
        body = message.body
        responder = str(body.get("from", ""))
        number = body.get("id")
        seek = self.board.seeks.get(number) if isinstance(number, int) else None
        owner = None if seek is None or seek.node is not None else self.sessions.get(
            fold(seek.owner))
        if seek is None or owner is None or self.games is None:
            self._refuse(message.sender, responder)
            return
        challenge = Challenge(seek.owner, responder, seek.request.time_control,
                              seek.request.colour, variant=seek.request.variant,
                              rated=bool(seek.request.rated))
        owner.notify(parsed(msg("{handle} accepts your seek.", handle=responder)))
        state = body.get("state")
        try:
            self.games.start_game(challenge, node=message.sender,
                                  state=state if isinstance(state, dict) else {"handle": responder})
        except LocalizedError:
            self._refuse(message.sender, responder)

    def _refuse(self, node: str, responder: str) -> None:
        self._send(self.bus.to_node(node, "seek.refused", {"to": fold(responder)}), "refused")

    def _heard_refused(self, message: BusMessage) -> None:
        session = self.sessions.get(str(message.body.get("to", "")))
        if session is not None:
            session.notify(msg("That seek is not available."))
