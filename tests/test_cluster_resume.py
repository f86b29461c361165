"""Adjourned games between two real ``ficsfen serve`` nodes on one Redis and one PostgreSQL.

alice (node one) and bob (node two) adjourn a game hosted by node two; node
one keeps it too.  An arrival on one node is told to the opponent on the
other, in the opponent's language; two resumptions of the game accepted on
both nodes at once (crossed offers: each player's ``resume`` ran on the
other's node) give exactly one game, at the exact position, the store's
claim refusing the second.  Waits poll with a generous deadline; nothing is
timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, two_nodes
from test_cluster_games import board_of, login, wait_for_board
from test_cluster_serve import who_lists

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

CONTINUING = "Continuing unrated blitz match.}"


@pytest.fixture
def shared_nodes(redis: RedisServer, pg_url: str, tmp_path: Path
                 ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two nodes sharing one Redis and one PostgreSQL database."""
    with two_nodes(tmp_path, redis.url, namespace("resume"), data=pg_url) as both:
        yield both


def read_all(client: TelnetClient, *markers: str) -> str:
    """Lines read until every one of ``markers`` was among them, in any order."""
    text = ""
    while not all(marker in text for marker in markers):
        text += client.read_until("\n")
    return text


def play(alice: TelnetClient, bob: TelnetClient, board: chess.Board, *sans: str) -> None:
    for san in sans:
        mover, other = (alice, bob) if board.turn == chess.WHITE else (bob, alice)
        board.push_san(san)
        assert board_of(mover.command(san)) == board.board_fen()  # stored, then shown
        wait_for_board(other, board.board_fen())


def adjourned_game(one: ServerProcess, two: ServerProcess
                   ) -> tuple[TelnetClient, TelnetClient, chess.Board]:
    """alice on node one, bob on node two, their game (hosted by node two) adjourned by
    agreement after 1. e4 e5, and kept by node one too."""
    alice, bob = login(one, "alice"), login(two, "bob")
    eventually("node one sees bob", lambda: who_lists(alice, "bob"))
    alice.command("match bob 3 0 white")
    bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0.")
    bob.read_until("fics% ")
    board = chess.Board()
    bob.send("accept")
    for client in (alice, bob):
        wait_for_board(client, board.board_fen())
    play(alice, bob, board, "e4", "e5")
    alice.command("adjourn")
    bob.read_until("alice would like to adjourn the game.")
    bob.send("adjourn")
    for client in (alice, bob):
        client.read_until("Game adjourned by mutual agreement} *")
    eventually("node one keeps the adjourned game",
               lambda: " 1: W bob " in alice.command("stored"))
    return alice, bob, board


def test_an_arrival_is_told_to_the_opponent_on_the_other_node_in_their_language(
        shared_nodes) -> None:
    one, two = shared_nodes
    alice, bob, _ = adjourned_game(one, two)
    with bob:
        alice.close()
        eventually("node two sees alice leave", lambda: not who_lists(bob, "alice"))
        with login(one, "alice"):  # back on node one
            bob.read_until("Notification: alice, who has an adjourned game with you, has "
                           "arrived.")
        eventually("node two sees alice leave", lambda: not who_lists(bob, "alice"))
        bob.command("set language fr")
        with login(one, "alice"):
            bob.read_until("Avis\u202f: alice, qui a une partie ajournée avec vous, vient "
                           "d’arriver.")


def test_a_game_resumed_on_both_nodes_at_once_is_resumed_once(shared_nodes, pg_url) -> None:
    from test_cluster_games import _ids, _status
    one, two = shared_nodes
    alice, bob, board = adjourned_game(one, two)
    with alice, bob:
        # crossed offers: alice's resume runs on node two, bob's on node one
        alice.send("resume bob")
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0 "
                       "(adjourned).")
        bob.read_until("fics% ")
        bob.send("resume alice")
        alice.read_until("Challenge: bob (----) [black] alice (----) unrated blitz 3 0 "
                         "(adjourned).")
        alice.read_until("fics% ")
        # both accepted at once: each node resumes the game; the store lets one do it
        alice.send("accept")
        bob.send("accept")
        for client, other in ((alice, "bob"), (bob, "alice")):
            text = read_all(client, CONTINUING, f"You have no adjourned game with {other}.")
            assert text.count(CONTINUING) == 1
        for client in (alice, bob):  # the exact position (what was read before: skipped)
            client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
        [game_id] = _ids(pg_url)
        assert _status(pg_url, game_id) == "playing"
        for client in (alice, bob):  # one game, listed alike on both nodes
            eventually("one game listed",
                       lambda c=client: "  1 games displayed." in c.command("games"))
        play(alice, bob, board, "Nf3", "Nc6")  # lines reach the node that resumed it
        for client in (alice, bob):
            client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
