"""Timeseal across nodes (ficsfen.server.cluster.seal): a timeseal player of another
node is charged what a single server charges for the same stamps.

On one process with a fake clock, the same moves with the same stamps and the same
wall clock are played twice: by a timeseal client of the server (the single-server
path), and by a player whose session times its moves as an owner's seat does, from
the stamps a move line brings over the bus.  Both must be charged the same, with
the same caps.  The outbox's ping and the path over real nodes are in
``test_cluster_seal_serve.py``.
"""

from __future__ import annotations

import chess
import pytest
from test_login_timeseal import ACCOUNTS, Sealed, guest, registered
from twisted.internet.task import Clock

from ficsfen.server import timeseal
from ficsfen.server.testing import make_server

seal = pytest.importorskip("ficsfen.server.cluster.seal")

LAG_OUT, LAG_IN = 0.3, 0.3  # the board's way to the client, the move's way back


def _opened(alice_of):
    """alice (White, made by ``alice_of(server)``) against bob (plain), 5 0, on a fake
    clock, both first moves made: alice's clock runs and she was pinged."""
    clock = Clock()
    server = make_server(clock=clock, accounts=ACCOUNTS)
    alice, pings = alice_of(server)
    bob = guest(server, "bob")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    alice.command("e4")
    bob.command("e5")
    return clock, server, alice, pings, server.directory.game_of("alice")


def _single(reply_at, move_at, think):
    """The move d4 of a timeseal client of the server."""
    def sealed(server):
        alice = Sealed(server, stamp=1_000)
        alice.login("alice", "secret")
        return alice, []
    clock, server, alice, _, game = _opened(sealed)
    clock.advance(LAG_OUT)
    if reply_at is not None:
        alice.send_raw(timeseal.PING_REPLY, stamp=reply_at)
    clock.advance(think + LAG_IN)
    alice.command("d4", stamp=move_at)
    return game, alice.client.session


def _seated(reply_at, move_at, think, *, there=None):
    """The move d4 of a seat whose player's node sent the stamps (``there``: the
    milliseconds its node measured from the ping to the move, None if unknown)."""
    def seat(server):
        alice = registered(server)
        pings: list[int] = []
        session = alice.session
        session.move_timer = seal.SeatTimer(session, lambda: pings.append(game_ply()),
                                            max_compensation=server.config.lag_compensation)

        def game_ply():
            return server.directory.game_of("alice").tracker.ply
        return alice, pings
    clock, server, alice, pings, game = _opened(seat)
    assert pings == [0, 2]  # after the boards where she is to move (not after her e4)
    clock.advance(LAG_OUT + think + LAG_IN)
    alice.session.move_timer.running({"r": reply_at, "m": move_at, "w": there})
    alice.command("d4")
    return game, alice.session


#: The board's arrival, the move's stamp, the thinking time; what a single server charges.
CASES = {
    "thinking time charged, lag excluded": (50_000, 60_000, 10.0, 10.0),
    "claims little: only the allowance forgiven": (50_000, 51_000, 10.0, 10.6 - 1.0),
    "claims more than the wall clock: the wall clock": (50_000, 90_000, 10.0, 10.6),
    "stamps wrapping around": (9_995_000, 5_000, 10.0, 10.0),
    "no answer to the ping": (None, 60_000, 10.0, 10.6 - 1.0),
}


@pytest.mark.parametrize("case", CASES)
def test_a_seat_is_charged_what_a_single_server_charges_for_the_same_stamps(case):
    reply_at, move_at, think, charged = CASES[case]
    alone, here = _single(reply_at, move_at, think)
    seated, there = _seated(reply_at, move_at, think)
    assert seated.move_times[-1] == pytest.approx(alone.move_times[-1])
    assert seated.clock.remaining(chess.WHITE) == pytest.approx(alone.clock.remaining(chess.WHITE))
    assert there.lag_ms == here.lag_ms
    assert alone.move_times[-1] == pytest.approx(charged)


def test_the_player_s_node_wall_clock_bounds_the_charge_not_the_bus_s_hops():
    # the owner measured 10.6 s; the player's node 10.4 s from the ping to the move
    game, session = _seated(50_000, 51_000, 10.0, there=10_400)  # claims 1 s
    assert game.move_times[-1] == pytest.approx(10.4 - 1.0)  # the allowance, from 10.4 s
    assert session.lag_ms == 9_400
    game, _ = _seated(50_000, 90_000, 10.0, there=10_400)  # claims 40 s
    assert game.move_times[-1] == pytest.approx(10.4)
    game, _ = _seated(50_000, 60_000, 10.0, there=99_000)  # never more than the owner ran
    assert game.move_times[-1] == pytest.approx(10.0)
    game, _ = _seated(50_000, 90_000, 10.0, there=99_000)
    assert game.move_times[-1] == pytest.approx(10.6)


def test_a_line_without_stamps_forgives_only_the_allowance():
    game, _ = _seated(None, None, 10.0)
    assert game.move_times[-1] == pytest.approx(10.6 - 1.0)
    bad = {"r": "50000", "m": -3, "w": True}  # nothing a node sends: no stamps
    clock, server, alice, pings, game = _opened(lambda s: (registered(s), []))
    timer = seal.SeatTimer(alice.session, lambda: None)
    alice.session.move_timer = timer
    clock.advance(10.6)
    timer.running(bad)
    alice.command("d4")
    assert game.move_times[-1] == pytest.approx(10.6 - 1.0)


class _Player:
    """What :func:`seal.stamps` reads of a player of the node: a session's timer and lag."""

    def __init__(self, ping: bytes = timeseal.PING) -> None:
        self.move_timer = timeseal.MoveTimer(ping=ping)
        self.lag_ms = 0
        self.sent: list[bytes] = []
        self.move_timer.attach(self)  # type: ignore[arg-type]

    def emit(self, data: bytes) -> None:
        self.sent.append(data)


def test_the_player_s_node_pings_and_sends_the_stamps_of_the_move():
    player = _Player()
    timer = player.move_timer
    assert seal.stamps(player, 5.0) == {"r": None, "m": None, "w": None}  # never pinged
    seal.ping_here(player, 100.0)
    assert player.sent == [timeseal.PING]  # the client's own version's ping bytes
    timer.replied(2_000)
    timer.digits = b"12000"  # the move line's stamp
    assert seal.stamps(player, 110.5) == {"r": 2_000, "m": 12_000, "w": 10_500}
    assert player.lag_ms == 500
    timer.replied(3_000)  # an answer no ping asked for changes nothing
    assert seal.stamps(player, 110.5)["r"] == 2_000


def test_a_version_2_client_is_pinged_as_version_2_clients_are():
    player = _Player(timeseal.PING_V2)
    seal.ping_here(player, 1.0)
    assert player.sent == [timeseal.PING_V2]


def test_stamps_of_a_player_without_timeseal_are_none():
    class Plain:
        move_timer = None
    assert seal.stamps(Plain(), 1.0) is None
    seal.ping_here(Plain(), 1.0)  # nothing to ping
