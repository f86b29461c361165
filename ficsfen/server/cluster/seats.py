"""Seats: the players of other nodes, as sessions of the node hosting their game.

A game is hosted by one node (its *owner*: clock, tracker, offers).  A player
logged in on another node who plays or observes it, or who challenged a
player of the owner, has a *seat* there: a real
:class:`~ficsfen.server.session.Session` of the owner, made from what the
player's node says of them (:func:`snapshot`: language, charset, style,
interface variables, prompt...), kept out of the owner's session registry
(``who`` does not list it twice) but found by the owner's
:class:`~ficsfen.server.broadcaster.Broadcaster` and game service.  Every
byte the owner writes to a seat (boards, results, offers, the answers to the
commands run for it) leaves as a ``seat.out`` message to the player's node,
which writes it to the player's connection as it is: the text is built by
the same code, for the same settings, as for a player of the owner, so it is
exactly what a single server writes.

What the owner writes to the seats of one node during one turn of its
reactor (a board for many observers, the player's board, a prompt; the
boards of several games) leaves as one message (:class:`Outbox`); a board
for many observers is one entry with all their handles (:class:`SeatSink`:
the fan-out's ``write_all`` per kind of sink).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from twisted.logger import Logger

from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus, BusDown
from ficsfen.server.cluster.seal import SeatTimer
from ficsfen.server.session import Services, Session

__all__ = ["Outbox", "SeatSink", "Seats", "SentStates", "snapshot"]

_log = Logger(namespace="ficsfen.cluster.seats")


def snapshot(session: Any) -> dict[str, Any]:
    """What a seat copies of a local ``session`` (sent with a line run elsewhere when it
    changed: :class:`SentStates`)."""
    return {"handle": session.handle, "registered": bool(session.registered),
            "admin": bool(session.admin), "lang": session.lang, "charset": session.charset,
            "style": session.style, "showfen": bool(session.showfen),
            "ivars": dict(session.ivars), "timeseal": bool(session.timeseal),
            "lag": int(session.lag_ms or 0), "interface": session.interface,
            "prompt": session.chosen_prompt, "variables": dict(session.variables)}


class SentStates:
    """What a player's node last sent each owner of its players' settings (:func:`snapshot`).

    A line forwarded to an owner (``seat.cmd``) carries the settings only when that
    owner does not have them as they are; else just the player's folded handle
    (``{"key": KEY, "line": LINE}``), run with what the owner's seat holds.  An owner
    with no seat for such a line (freed meanwhile) asks for it again with the
    settings (``seat.again``).
    """

    def __init__(self) -> None:
        self._sent: dict[tuple[str, str], dict[str, Any]] = {}

    def body(self, node: str, session: Any, line: str) -> dict[str, Any]:
        """The ``seat.cmd`` body of ``line`` of ``session`` for ``node``."""
        key = fold(session.handle)
        state = snapshot(session)
        if self._sent.get((node, key)) == state:
            return {"key": key, "line": line}
        self._sent[(node, key)] = state
        return {"state": state, "line": line}

    def record(self, node: str, session: Any) -> dict[str, Any]:
        """The settings of ``session``, sent to ``node`` now on their own (``seat.state``)."""
        state = snapshot(session)
        self._sent[(node, fold(session.handle))] = state
        return state

    def forget(self, key: str | None = None, node: str | None = None) -> None:
        """Send the settings with the next line again: of ``key`` to ``node``, of ``key``
        to every node (``node`` None), of every player to ``node`` (``key`` None)."""
        if key is not None and node is not None:
            self._sent.pop((node, key), None)
            return
        for pair in [p for p in self._sent if p[1] == key or p[0] == node]:
            del self._sent[pair]


class Outbox:
    """The bytes for the seats of each other node, gathered during one turn of the
    reactor and sent as one ``seat.out`` message per node (the fast path of boards
    across nodes: ``bench/cluster_observers.py``).

    A message's body is ``{"w": [[KEYS, TEXT], ...]}``: each TEXT (the bytes, as
    latin-1 text in the JSON) for the players of KEYS (their folded handles, separated
    by spaces: one JSON string, cheaper to write and read than a list of a thousand),
    in the order written; consecutive writes to the same KEYS are joined.  ``"p"``,
    when there, lists the players whose timeseal client is pinged after the bytes
    (:meth:`ping`, :mod:`.seal`).  The
    messages leave at the reactor's next turn, or before any other message the
    bus publishes (:meth:`Bus.before_publish`), so the order of everything a node
    sends another is kept.
    """

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self._pending: dict[str, list[list[Any]]] = {}
        self._pings: dict[str, list[str]] = {}
        self._call: Any = None
        bus.before_publish(self.flush)

    def add(self, node: str, keys: str, data: bytes) -> None:
        """``data`` for the players ``keys`` (folded handles separated by spaces) of
        ``node``, sent with the turn's others."""
        writes = self._pending.get(node)
        if writes is None:
            writes = self._pending[node] = []
            self._schedule()
        text = data.decode("latin-1")  # bytes as they are, in JSON
        if writes and writes[-1][0] == keys:
            writes[-1][1] += text
        else:
            writes.append([keys, text])

    def ping(self, node: str, key: str) -> None:
        """Have the timeseal client of the player ``key`` of ``node`` pinged once the
        turn's bytes are written (:mod:`.seal`): ``"p"``, the folded handles, in the body."""
        self._pings.setdefault(node, []).append(key)
        if node not in self._pending:
            self._pending[node] = []
            self._schedule()

    def _schedule(self) -> None:
        if self._call is None:
            self._call = self.bus.reactor.callLater(0, self._turn_ended)

    def _turn_ended(self) -> None:
        self._call = None
        self.flush()

    def flush(self) -> None:
        """Send what was gathered: one ``seat.out`` per node."""
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        pings, self._pings = self._pings, {}
        for node, writes in pending.items():
            body: dict[str, Any] = {"w": writes}
            if node in pings:
                body["p"] = pings[node]
            self.bus.to_node(node, "seat.out", body).addErrback(_lost)


class SeatSink:
    """Where a seat's bytes go: the player's node, through the :class:`Outbox` (one
    message per node and turn, whatever the number of seats and writes)."""

    def __init__(self, outbox: Outbox, node: str, key: str) -> None:
        self.outbox, self.node, self.key = outbox, node, key

    def write(self, data: bytes) -> None:
        """``data`` to this seat's player."""
        self.outbox.add(self.node, self.key, data)

    def ping(self) -> None:
        """This seat's timeseal client pinged, after the bytes of the turn."""
        self.outbox.ping(self.node, self.key)

    @staticmethod
    def write_all(sinks: list[SeatSink], data: bytes) -> None:
        """The same ``data`` to each seat of ``sinks``: one entry per node (part of the
        fast path of boards across nodes: ``bench/cluster_observers.py``)."""
        outbox = sinks[0].outbox
        nodes = {sink.node for sink in sinks}
        if len(nodes) == 1:  # the usual case: no grouping
            outbox.add(sinks[0].node, " ".join([sink.key for sink in sinks]), data)
            return
        for node in nodes:
            outbox.add(node, " ".join([sink.key for sink in sinks if sink.node == node]), data)


def _lost(failure: Any) -> None:
    if not failure.check(BusDown):
        _log.failure("a seat's output was not sent", failure=failure)


class Seats:
    """The seats of this node (the players of other nodes in the games it hosts).

    ``services``: the node's session services (seats are sessions of this node);
    ``lag_compensation``: the node's allowance for the moves of timeseal players.
    """

    def __init__(self, bus: Bus, services: Callable[[], Services | None], *,
                 lag_compensation: float = 1.0) -> None:
        self.bus = bus
        self.lag_compensation = lag_compensation
        #: The bytes for the seats' players, gathered per node and turn.
        self.outbox = Outbox(bus)
        self._services = services
        self._seats: dict[str, Session] = {}
        self._nodes: dict[str, str] = {}

    def get(self, key: str) -> Session | None:
        """The seat of the folded handle ``key``, or None."""
        return self._seats.get(key)

    def node_of(self, key: str) -> str | None:
        """The node of the player seated as ``key``, or None."""
        return self._nodes.get(key)

    def __contains__(self, session: object) -> bool:
        handle = getattr(session, "handle", None)
        return handle is not None and self._seats.get(fold(handle)) is session

    def __len__(self) -> int:
        return len(self._seats)

    def keys(self) -> list[str]:
        """The folded handles seated here."""
        return list(self._seats)

    def lookup(self, local: Callable[[str], Session | None]) -> Callable[[str], Session | None]:
        """A lookup by folded handle: ``local(key)``, else the seat."""
        seats = self._seats

        def find(key: str) -> Session | None:
            return local(key) or seats.get(key)

        return find

    def seat(self, node: str, state: Mapping[str, Any]) -> Session:
        """The seat of the player ``state`` describes (:func:`snapshot`), on ``node``: made
        or brought up to date.

        :raises ValueError: the session services are not bound yet, or ``state`` has no handle.
        """
        handle = str(state.get("handle", ""))
        if not handle:
            raise ValueError("a seat needs a handle")
        key = fold(handle)
        seat = self._seats.get(key)
        if seat is None or self._nodes.get(key) != node:
            services = self._services()
            if services is None:
                raise ValueError("the session services are not bound")
            sink = SeatSink(self.outbox, node, key)
            seat = Session(services, handle, write=sink.write, close=lambda: self._closed(key),
                           lang=str(state.get("lang", "en")))
            seat.sink = sink  # type: ignore[assignment]  # a SeatSink writes as ILineConnection says
            self._seats[key], self._nodes[key] = seat, node
        seat.lang = str(state.get("lang", seat.lang))
        seat.registered = bool(state.get("registered", seat.registered))
        seat.admin = bool(state.get("admin", seat.admin))
        charset = state.get("charset")
        if charset in ("utf8", "latin1", "ascii"):
            seat.charset = str(charset)
        style = state.get("style")
        if isinstance(style, int):
            seat.style = style
        seat.showfen = bool(state.get("showfen", seat.showfen))
        ivars = state.get("ivars")
        if isinstance(ivars, dict) and ivars != dict(seat.ivars):
            seat.preset_ivars({str(k): bool(v) for k, v in ivars.items()})
        seat.timeseal = bool(state.get("timeseal", seat.timeseal))
        if seat.timeseal != isinstance(seat.move_timer, SeatTimer):
            self._time(seat)
        seat.lag_ms = int(state.get("lag", seat.lag_ms) or 0)
        seat.interface = str(state.get("interface", seat.interface) or "")
        prompt = state.get("prompt")
        if isinstance(prompt, str):
            seat.chosen_prompt = prompt
        variables = state.get("variables")
        if isinstance(variables, dict):
            seat.variables.update({str(k): v for k, v in variables.items()
                                   if isinstance(v, (bool, int))})
        return seat

    def _time(self, seat: Session) -> None:
        """A timeseal player's seat times their moves from their stamps (:mod:`.seal`)."""
        sink = seat.sink
        if seat.timeseal and isinstance(sink, SeatSink):
            seat.move_timer = SeatTimer(seat, sink.ping, max_compensation=self.lag_compensation)
        else:
            seat.move_timer = None

    def _closed(self, key: str) -> None:
        self.drop(key)

    def drop(self, key: str) -> Session | None:
        """Forget the seat of ``key``; returns it (or None)."""
        self._nodes.pop(key, None)
        return self._seats.pop(key, None)

    def of_node(self, node: str) -> list[Session]:
        """The seats of the players of ``node``."""
        return [self._seats[k] for k, n in self._nodes.items() if n == node and k in self._seats]
