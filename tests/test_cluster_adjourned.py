"""Adjourned games kept by two real ``ficsfen serve`` nodes on one Redis and one
PostgreSQL, when a node misses what the other did, and when they expire.

A node that missed a game's resumption and its new adjournment (Redis down)
resumes it at the position the store has, the moves played meanwhile
included; a game that expires is told to its players on both nodes, each in
their language.  Waits poll with a generous deadline; nothing is timed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, two_nodes
from test_cluster_games import _ids, _status, login, wait_for_board
from test_cluster_resume import CONTINUING, adjourned_game, play, read_all

from ficsfen.server.testing import TelnetClient

pytestmark = pytest.mark.slow

DOWN = "The link between the servers is down: you see and reach the players of this server only."
BACK = "The link between the servers is back: you see and reach the players of every server again."


def adjourn(alice: TelnetClient, bob: TelnetClient) -> None:
    alice.command("adjourn")
    bob.read_until("alice would like to adjourn the game.")
    bob.send("adjourn")
    for client in (alice, bob):
        client.read_until("Game adjourned by mutual agreement} *")


def resume(alice: TelnetClient, bob: TelnetClient) -> None:
    """alice asks, bob accepts: both read the game continued."""
    alice.send("resume bob")
    bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0 (adjourned).")
    bob.read_until("fics% ")
    bob.send("accept")
    for client in (alice, bob):
        client.read_until(CONTINUING)


def test_a_node_that_missed_a_resumption_resumes_at_the_stored_position(
        redis: RedisServer, pg_url: str, tmp_path: Path) -> None:
    with two_nodes(tmp_path, redis.url, namespace("stale"), data=pg_url) as (one, two):
        alice, bob, board = adjourned_game(one, two)  # hosted by two, kept by one
        alice.close()
        # carol, on node one, reads when its bus is back
        with login(two, "alice") as alice, bob, login(one, "carol") as carol:
            redis.kill()  # node one hears nothing of what follows
            for client in (alice, bob, carol):
                client.read_until(DOWN)
            resume(alice, bob)
            for client in (alice, bob):
                wait_for_board(client, board.board_fen())
            play(alice, bob, board, "Nf3", "Nc6", "Bb5")  # acknowledged: in the store
            adjourn(alice, bob)
            redis.restart()
            for client in (alice, bob, carol):
                client.read_until(BACK)
        # node one kept the game as it was after 1. e4 e5; it resumes from the store
        with login(one, "alice") as alice, login(one, "bob") as bob:
            resume(alice, bob)
            for client in (alice, bob):
                client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
            [game_id] = _ids(pg_url)
            assert _status(pg_url, game_id) == "playing"
            play(alice, bob, board, "a6")
            for client in (alice, bob):
                client.ask("fen", f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")


def test_an_expired_game_is_told_to_its_players_on_every_node(
        redis: RedisServer, pg_url: str, tmp_path: Path) -> None:
    # 0.0001 days: 8.64 s, looked for as often
    with two_nodes(tmp_path, redis.url, namespace("expiry"), data=pg_url,
                   extra="[limits]\nadjourned_expiry_days = 0.0001\n") as (one, two):
        alice, bob, _ = adjourned_game(one, two)  # kept by both nodes
        with alice, bob:
            bob.command("set language fr")
            expired = {alice: "Your adjourned game with bob has expired: it was not resumed "
                              "within 0 days.",
                       bob: "Votre partie ajournée avec alice a expiré\u202f: elle n’a pas été "
                            "reprise dans le délai de 0 jour."}
            for client, text in expired.items():
                read_all(client, text)
            [game_id] = _ids(pg_url)
            assert _status(pg_url, game_id) == "finished"
            for client in (alice, bob):  # neither node keeps it any more
                eventually("the game is no longer kept",
                           lambda c=client: " 1: " not in c.command("stored"))
