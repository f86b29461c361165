"""In-game requests answered in FICS's words, which clients match.

``bob declines the draw request.`` (pychess clears its "You sent a draw
offer" on that line), ``You decline the draw request from alice.``, and
``You accept the draw request from alice.`` in the accepter's own answer,
just above the end of the game: in block mode one frame holds both, as
FICS's does.  The in-process table covers every kind of request; the
loopback run covers a real server with a data file, where the end is
announced once stored and the answer waits for it.
"""

from __future__ import annotations

import textwrap

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.testing import ServerProcess

from test_history_e2e import PASSWORD, login
from test_play import Table

START = "{Game 1 (alice vs. bob)"


@pytest.fixture
def table() -> Table:
    table = Table(registered=True)
    table.start()
    table.play("e4", "e5")
    return table


@pytest.mark.parametrize("kind, command", [
    ("draw", "draw"), ("abort", "abort"), ("adjourn", "adjourn"), ("takeback", "takeback 1"),
])
def test_decline_of_each_request(table, kind, command):
    table.alice.command(command)
    table.bob.output()
    assert table.bob.command("decline") == f"You decline the {kind} request from alice.\n"
    assert table.alice.output() == f"\nbob declines the {kind} request.\nfics% "


def test_withdraw_and_a_move_answer_requests_in_the_same_words(table):
    table.alice.command("draw")
    table.bob.output()
    assert table.alice.command("withdraw") == "You withdraw the draw request to bob.\n"
    assert table.bob.output() == "\nalice withdraws the draw request.\nfics% "
    table.bob.command("abort")
    table.alice.output()
    table.alice.command("Nf3")  # a move declines the opponent's request
    assert "\nalice declines the abort request.\nfics% " in table.bob.output()


@pytest.mark.parametrize("command", ["accept", "draw"])
def test_accepting_a_draw_answers_above_the_end(table, command):
    table.alice.command("draw")
    table.bob.output()
    assert table.bob.command(command) == (
        "You accept the draw request from alice.\n"
        f"{START} Game drawn by mutual agreement}} 1/2-1/2\n")
    assert table.alice.output() == (
        "\nbob accepts the draw request.\n"
        f"{START} Game drawn by mutual agreement}} 1/2-1/2\nfics% ")


@pytest.mark.parametrize("kind, end", [
    ("abort", "Game aborted by mutual agreement} *"),
    ("adjourn", "Game adjourned by mutual agreement} *"),
])
def test_accepting_an_abort_or_adjourn_request(table, kind, end):
    table.carol.command("observe 1")
    table.alice.command(kind)
    table.bob.output()
    assert table.bob.command("accept") == (
        f"You accept the {kind} request from alice.\n{START} {end}\n")
    assert table.alice.output() == f"\nbob accepts the {kind} request.\n{START} {end}\nfics% "
    assert table.carol.output() == (
        f"\n{START} {end}\nRemoving game 1 from observation list.\nfics% ")


def test_accepting_a_takeback_request(table):
    table.alice.command("takeback 2")
    table.bob.output()
    out = table.bob.command("accept")
    assert out.startswith("Game 1 (alice vs. bob)\n")  # the board, then the line
    assert out.endswith("\nYou accept the takeback request from alice.\n")
    assert table.alice.output().endswith("\nbob accepts the takeback request.\nfics% ")


def test_accept_in_block_mode_is_one_frame_with_the_end(table):
    table.alice.command("draw")
    table.bob.output()
    table.bob.command("iset block 1")
    table.bob.send("7 accept")
    assert table.bob.raw_output() == (
        b"\x157\x1611\x16You accept the draw request from alice.\r\n"
        b"{Game 1 (alice vs. bob) Game drawn by mutual agreement} 1/2-1/2\r\n\x17\r\n")


@pytest.mark.slow
def test_on_a_real_server_with_a_data_file_the_answer_waits_for_the_stored_end(tmp_path):
    hashed = hash_password(PASSWORD, iterations=1000)
    conf = tmp_path / "ficsfen.toml"
    conf.write_text(textwrap.dedent(f"""\
        [accounts]
        alice = "{hashed}"
        bob = "{hashed}"
        """))
    with ServerProcess("--config", str(conf), "--data", str(tmp_path / "data.sqlite3")) as server:
        alice, bob = login(server, "alice", PASSWORD), login(server, "bob", PASSWORD)
        alice.command("match bob 3 0 white")
        bob.read_until(bob.prompt)
        bob.send("accept")
        for client in (alice, bob):
            client.read_until("Creating unrated")
            client.read_until(client.prompt)
        for mover, other, san in ((alice, bob, "e4"), (bob, alice, "e5")):
            mover.send(san)
            for client in (mover, other):
                client.read_until(f"Moves : '{san}")
                client.read_until(client.prompt)
        alice.send("takeback 1")
        assert alice.read_until(alice.prompt) == "Takeback request for 1 half move sent to bob.\nfics% "
        bob.read_until(bob.prompt)
        assert bob.command("decline") == "You decline the takeback request from alice.\n"
        assert alice.read_until(alice.prompt) == "\nbob declines the takeback request.\nfics% "
        alice.command("draw")
        bob.read_until(bob.prompt)
        assert bob.command("iset block 1") == "block set.\n"
        bob.send("5 accept")
        assert bob.read_bytes_until(b"\x17") == (
            b"\x155\x1611\x16You accept the draw request from alice.\r\n"
            b"{Game 1 (alice vs. bob) Game drawn by mutual agreement} 1/2-1/2\r\n\x17")
        assert alice.read_until(alice.prompt) == (
            "\nbob accepts the draw request.\n"
            "{Game 1 (alice vs. bob) Game drawn by mutual agreement} 1/2-1/2\nfics% ")
