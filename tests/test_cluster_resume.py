"""Adjourned games between two real ``ficsfen serve`` nodes on one Redis and one PostgreSQL.

alice (node one) and bob (node two) adjourn a game hosted by node two; node
one keeps it too.  An arrival on one node is told to the opponent on the
other, in the opponent's language; bob's ``resume alice`` or ``match alice``
answering alice's offer (made on bob's node) continues the game at the exact
position, as on one server, instead of crossing it with an offer of his own.
(Two nodes resuming one game at once: the store's claim,
``tests/test_store_claims.py``.)  Waits poll with a generous deadline;
nothing is timed.
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


@pytest.mark.parametrize("answer", ["resume alice", "match alice"])
def test_an_answer_to_the_other_nodes_offer_continues_the_game_as_on_one_server(
        shared_nodes, pg_url, answer) -> None:
    from test_cluster_games import _ids, _status
    one, two = shared_nodes
    alice, bob, board = adjourned_game(one, two)
    with alice, bob:
        alice.send("resume bob")  # run on node two, where bob is
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0 "
                       "(adjourned).")
        bob.read_until("fics% ")
        bob.send(answer)  # answers alice's offer, as on one server: no offer crosses it
        for client in (alice, bob):
            client.read_until(CONTINUING)
        for client in (alice, bob):  # the exact position (what was read before: skipped)
            client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
        for client in (alice, bob):  # both offers answered: none left on either node
            pending = client.command("pending")
            assert "There are no offers pending to other players." in pending
            assert "There are no offers pending from other players." in pending
        [game_id] = _ids(pg_url)
        assert _status(pg_url, game_id) == "playing"
        for client in (alice, bob):  # one game, listed alike on both nodes
            eventually("one game listed",
                       lambda c=client: "  1 games displayed." in c.command("games"))
        play(alice, bob, board, "Nf3", "Nc6")
        for client in (alice, bob):
            client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
