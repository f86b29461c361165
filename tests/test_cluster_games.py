"""Games across two real ``ficsfen serve`` nodes sharing one real Redis server.

alice (node one) challenges bob (node two): the game is hosted by bob's node
(the receiver's); alice's moves and answers cross the bus.  An observer on
each node (carol on one, dave on two) reads every board; ``fen N`` and
``games`` answer the same on both nodes.  Waits poll with a generous
deadline; nothing is timed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import chess
import pytest
from redis_server import RedisServer, namespace

import cluster_nodes
from cluster_nodes import PASSWORDS, node_config, two_nodes

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

@pytest.fixture
def nodes(redis: RedisServer, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with two_nodes(tmp_path, redis.url, namespace("games")) as both:
        yield both


def login(node: ServerProcess, name: str) -> TelnetClient:
    client = cluster_nodes.login(node, name)
    client.ask("set style 12", "Style 12 set.")
    return client


def board_of(text: str) -> str:
    """The placement of the last style 12 board in ``text``, as a FEN's first field."""
    rows = re.findall(r"^<12> ((?:[-pnbrqkPNBRQK]{8} ){8})", text, re.M)
    assert rows, f"no board in {text!r}"
    fen_rows = []
    for row in rows[-1].split():
        fen_rows.append(re.sub(r"-+", lambda m: str(len(m.group())), row))
    return "/".join(fen_rows)


def wait_for_board(client: TelnetClient, placement: str) -> str:
    """Read boards until one shows ``placement``; returns what was read."""
    text = ""
    while True:
        chunk = client.read_until("fics% ", timeout=60)
        text += chunk
        if "<12> " in chunk and board_of(chunk) == placement:
            return text


def test_a_game_between_nodes_to_mate_seen_on_both(nodes) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(one, "carol") as carol, \
            login(two, "bob") as bob, login(two, "dave") as dave:
        from test_cluster_serve import eventually, who_lists  # the presence helpers
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        eventually("node two sees alice", lambda: who_lists(bob, "alice"))
        answer = alice.command("match bob 5 0 white")
        assert answer == "Issuing: alice (----) [white] bob (----) unrated blitz 5 0.\n"
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 5 0.")
        bob.read_until("fics% ")
        started = bob.command("accept")
        number = int(re.search(r"\{Game (\d+) \(alice vs\. bob\) Creating", started).group(1))
        assert "Creating: alice (----) bob (----) unrated blitz 5 0" in alice.read_until(
            "Creating unrated blitz match.}")
        alice.read_until("fics% ")
        # the game is listed on both nodes, with the same line
        listed = [ln for ln in dave.command("games").splitlines() if "alice" in ln]
        assert len(listed) == 1 and listed[0].startswith(f"{number:>3} ---- alice")
        eventually("node one lists the game of node two as node two does",
                   lambda: listed[0] in carol.command("games").splitlines())
        # an observer on each node: carol's observe runs on the owner (node two)
        assert f"You are now observing game {number}." in carol.command(f"observe {number}")
        assert f"You are now observing game {number}." in dave.command(f"observe {number}")
        # allobservers N (pychess asks it of the game it plays) answers the same on both nodes
        observers = dave.command(f"allobservers {number}")
        assert "carol" in observers and "dave" in observers
        assert carol.command(f"allobservers {number}") == observers
        assert alice.command(f"allobservers {number}") == observers
        # xboard asks "$moves N" ($: no alias expansion) of the game it observes
        assert f"Movelist for game {number}:" in carol.command(f"$moves {number}")
        board = chess.Board()
        players = {chess.WHITE: alice, chess.BLACK: bob}
        for san in ("f3", "e5", "g4", "Qh4#"):
            mover = players[board.turn]
            waiting = players[not board.turn]
            board.push_san(san)
            placement = board.board_fen()
            answer = mover.command(san)
            assert board_of(answer) == placement
            for client in (waiting, carol, dave):
                wait_for_board(client, placement)
            if board.ply() == 1:  # an offer from node one, declined from node two
                assert alice.command("draw") == "Draw offer sent to bob.\n"
                bob.read_until("alice offers you a draw.")
                bob.read_until("fics% ")
                assert "You decline the draw request from alice." in bob.command("decline")
                alice.read_until("bob declines the draw request.")
                alice.read_until("fics% ")
            if not board.is_game_over():
                fen_one = carol.command(f"fen {number}")
                fen_two = dave.command(f"fen {number}")
                assert fen_one == fen_two
                assert board.fen(en_passant="fen") in fen_one
        end = f"{{Game {number} (alice vs. bob) alice checkmated}} 0-1"
        for client in (alice, carol, dave):
            assert end in client.read_until(end)
        # the game is over everywhere; alice's lines run on node one again
        eventually("the game left node one's list",
                   lambda: "There are no games in progress." in carol.command("games"))
        eventually("alice's lines run at home again",
                   lambda: "You are not playing" in alice.command("draw"))


@pytest.fixture
def shared_nodes(redis: RedisServer, pg_url: str, tmp_path: Path
                 ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two nodes sharing one Redis and one PostgreSQL database."""
    ns = namespace("failover")
    one = ServerProcess("--config", str(node_config(tmp_path, "one", ns)), "--cluster", redis.url,
                        "--data", pg_url)
    two = ServerProcess("--config", str(node_config(tmp_path, "two", ns)), "--cluster", redis.url,
                        "--data", pg_url)
    with one, two:
        yield one, two


def test_kill_9_of_the_owner_adjourns_its_game_resumed_on_the_other_node(shared_nodes) -> None:
    import signal

    from test_cluster_serve import eventually, who_lists
    one, two = shared_nodes
    alice = login(one, "alice")
    bob = login(two, "bob")
    try:
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        alice.command("match bob 3 0 white")
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0.")
        bob.read_until("fics% ")
        bob.send("accept")  # answered once the game is stored
        number = int(re.search(r"\{Game (\d+) \(alice vs\. bob\) Creating", bob.read_until(
            "Creating unrated blitz match.}")).group(1))
        bob.read_until("fics% ")
        alice.read_until("Creating unrated blitz match.}")
        alice.read_until("fics% ")
        board = chess.Board()
        for san in ("e4", "c5", "Nf3", "d6"):
            mover, other = (alice, bob) if board.turn == chess.WHITE else (bob, alice)
            board.push_san(san)
            assert board_of(mover.command(san)) == board.board_fen()  # stored, then shown
            wait_for_board(other, board.board_fen())
        # the owner (node two, bob's) dies without a word
        two.stop(signal.SIGKILL)
        bob.close()
        alice.read_until("The server hosting your game has stopped; the game is interrupted.",
                         timeout=60)
        alice.read_until("You have an adjourned game with bob, who is not logged in.", timeout=60)
        alice.read_until("fics% ")
        assert "There are no games in progress." in alice.command("games")
        # bob comes back on node one: the adjourned game, resumed at the exact position
        bob = login(one, "bob")
        alice.read_until("Notification: bob, who has an adjourned game with you, has arrived.")
        alice.read_until("fics% ")
        assert " 1: B alice           Y [ bu  3   0]" in bob.ask("stored", "Stored games for bob:")
        bob.send("resume alice")
        alice.read_until("Challenge: bob (----) [black] alice (----) unrated blitz 3 0 "
                         "(adjourned).")
        alice.read_until("fics% ")
        alice.ask("accept", "Continuing unrated blitz match.}")
        wait_for_board(alice, board.board_fen())  # the board, once the resumption is stored
        bob.read_until("Continuing unrated blitz match.}")
        for client in (alice, bob):  # the exact FEN of the last stored move, e.p. field included
            client.send("fen")
            client.read_until(f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
        assert number >= 1
    finally:
        alice.close()
        bob.close()


def _status(url: str, game_id: int) -> str:
    """A game's status as the shared database has it (a connection of the test's own)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT status FROM games WHERE id = %s", (game_id,)).fetchone()
    assert row is not None
    return str(row[0])


def _ids(url: str) -> list[int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        return [int(r[0]) for r in db.execute("SELECT id FROM games ORDER BY id").fetchall()]


def test_a_node_restarting_leaves_the_games_of_the_other_node_in_play(shared_nodes, pg_url) -> None:
    from test_cluster_serve import eventually, who_lists
    one, two = shared_nodes
    with login(two, "carol") as carol, login(two, "dave") as dave, login(one, "alice") as alice:
        carol.ask("match dave 3 0 white", "Issuing:")
        dave.read_until("Challenge:")
        dave.read_until("fics% ")
        board = chess.Board()
        dave.send("accept")
        for client in (carol, dave):  # the first board, once the game is stored
            wait_for_board(client, board.board_fen())
        for san in ("e4", "e5"):
            mover, other = (carol, dave) if board.turn == chess.WHITE else (dave, carol)
            board.push_san(san)
            assert board_of(mover.command(san)) == board.board_fen()
            wait_for_board(other, board.board_fen())
        [game_id] = _ids(pg_url)
        eventually("node one lists node two's game", lambda: "carol" in alice.command("games"))
        # node one stops and starts again: its start adjourns the games the store has in
        # play, but not this one, in play on node two
        one.stop()
        one.start()
        assert _status(pg_url, game_id) == "playing"
        with login(one, "alice") as again:
            eventually("node one sees carol", lambda: who_lists(again, "carol"))
            assert "There are no games in progress." not in again.command("games")
        for san in ("Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"):
            mover, other = (carol, dave) if board.turn == chess.WHITE else (dave, carol)
            board.push_san(san)
            assert board_of(mover.command(san)) == board.board_fen()
            wait_for_board(other, board.board_fen())
        assert _status(pg_url, game_id) == "finished"


def test_a_game_adjourned_by_a_departure_is_resumed_from_the_other_node(shared_nodes) -> None:
    from test_cluster_serve import eventually, who_lists
    one, two = shared_nodes
    alice = login(one, "alice")
    with login(two, "bob") as bob:
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        alice.command("match bob 3 0 white")
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0.")
        bob.read_until("fics% ")
        board = chess.Board()
        bob.send("accept")  # the game is hosted by node two
        for client in (alice, bob):
            wait_for_board(client, board.board_fen())
        for san in ("e4", "e5"):
            mover, other = (alice, bob) if board.turn == chess.WHITE else (bob, alice)
            board.push_san(san)
            assert board_of(mover.command(san)) == board.board_fen()
            wait_for_board(other, board.board_fen())
        alice.close()  # alice leaves node one: her game on node two is adjourned
        bob.read_until("{Game ")
        bob.read_until("adjourned")
        # back on node one: the notice names bob, online on node two
        eventually("node one keeps the adjourned game", lambda: " 1: W bob " in _stored(one))
        alice = one.connect()
        alice.login("alice", PASSWORDS["alice"])
        alice.read_until("1 player, who has an adjourned game with you, is online:\r\nbob")
        alice.ask("set style 12", "Style 12 set.")
        alice.send("match bob")  # run on bob's node, where the game resumes
        bob.read_until("Challenge: alice (----) [white] bob (----) unrated blitz 3 0 (adjourned).")
        bob.read_until("fics% ")
        bob.send("accept")
        for client in (alice, bob):
            wait_for_board(client, board.board_fen())
            client.send("fen")
            client.read_until(f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
        alice.close()


def _stored(node: ServerProcess) -> str:
    """alice's ``stored`` on ``node`` (she logs in and out)."""
    with node.connect() as client:
        client.login("alice", PASSWORDS["alice"])
        return client.ask("stored", "Stored games for alice:")


def test_play_of_a_seek_of_the_other_node_starts_the_game_on_the_seeker_s_node(nodes) -> None:
    _play_a_seek_of_the_other_node(*nodes)


def test_play_of_a_seek_of_the_other_node_with_a_shared_store(shared_nodes) -> None:
    """With a store the game is announced once its start is committed: the answering
    player's seat on the seeker's node must outlast that wait."""
    _play_a_seek_of_the_other_node(*shared_nodes)


def _play_a_seek_of_the_other_node(one: ServerProcess, two: ServerProcess) -> None:
    from test_cluster_serve import eventually, who_lists
    with login(one, "alice") as alice, login(two, "bob") as bob:
        eventually("node two sees alice", lambda: who_lists(bob, "alice"))
        assert "Your seek has been posted with index 1." in alice.command("seek 5 0 white")
        eventually("node two lists alice's seek", lambda: "alice" in bob.command("sought"))
        number = re.search(r"^ *(\d+) ---- alice", bob.command("sought"), re.M).group(1)
        board = chess.Board()
        bob.send(f"play {number}")
        alice.read_until("bob accepts your seek.")
        for client in (alice, bob):
            assert "Creating: alice (----) bob (----) unrated blitz 5 0" in client.read_until(
                "Creating unrated blitz match.}")
            wait_for_board(client, board.board_fen())
        for san in ("e4", "e5", "Nf3"):  # bob's moves go to node one, the seeker's
            mover, other = (alice, bob) if board.turn == chess.WHITE else (bob, alice)
            board.push_san(san)
            assert board_of(mover.command(san)) == board.board_fen()
            wait_for_board(other, board.board_fen())
        bob.send("fen")
        bob.read_until(f"(alice vs. bob):\r\n{board.fen(en_passant='fen')}\r\n")
        bob.read_until("fics% ")
        # say from the seat's node reaches the opponent on the owner
        assert bob.command("say good luck") == "(told alice, who is playing)\n"
        assert "bob[" in alice.read_until("says: good luck")


def test_a_setting_changed_while_seated_elsewhere_reaches_the_seat(nodes) -> None:
    """eboard sends ``style 12`` just after its first line; when that line was a ``match``
    to a player of another node (so run there, the player seated there), the board of the
    game must still come in style 12."""
    from test_cluster_serve import eventually, who_lists
    one, two = nodes
    with cluster_nodes.login(one, "alice") as alice, login(two, "bob") as bob:
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        assert alice.command("match bob 5 0 white").startswith("Issuing: alice")
        bob.read_until("Challenge: alice")
        bob.read_until("fics% ")
        assert alice.command("style 12") == "Style 12 set.\n"
        # a tell from node one comes after the setting (one node's messages keep their order)
        assert alice.command("tell bob ready") == "(told bob)\n"
        bob.read_until("alice tells you: ready")
        bob.send("accept")
        text = alice.read_until("Creating unrated blitz match.}")
        text += alice.read_until("fics% ")
        assert board_of(text) == chess.Board().board_fen()
