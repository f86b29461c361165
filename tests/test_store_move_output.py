"""What a mover and the others see of a move the store keeps.

The mover's board comes back once the move is committed, and with it the
prompt: one prompt, after the board, as FICS answers a move, not an empty
prompt at once and a second one with the board.  Boards built when the
commit arrives still show the clocks as at the move, in both clock units.
"""

from __future__ import annotations

import pytest

from ficsfen.server.store.testing import private_reactor, wait_for
from test_game_store import Site, start


@pytest.fixture
def site(tmp_path):
    reactor = private_reactor()
    site = Site(tmp_path / "games.sqlite3", reactor)
    yield site
    wait_for(reactor, site.store.close())


def test_the_mover_gets_one_prompt_after_its_board(site):
    alice, bob = site.login("alice"), site.login("bob")
    for client in (alice, bob):
        client.command("style 12")
    start(site, alice, bob)
    alice.output()
    alice.send("e4")
    assert alice.output() == ""  # neither board nor prompt before the commit
    site.commit()
    mover = alice.output()
    assert mover.count("fics% ") == 1 and mover.endswith("fics% ")
    assert mover.index("<12> ") < mover.index("fics% ")
    other = bob.output()
    assert other.count("fics% ") == 1 and other.index("<12> ") < other.index("fics% ")
    # a refused move still answers at once, with its prompt
    alice.send("e5")
    assert alice.output() == "It is not your move.\nfics% "


def test_without_a_store_the_mover_still_gets_board_then_prompt():
    from ficsfen.server.testing import connect, make_server
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice"), bob.login("bob")
    for client in (alice, bob):
        client.command("style 12")
    alice.command("match bob 0 0 white")
    bob.command("accept")
    alice.output()
    alice.send("e4")
    out = alice.output()
    assert out.startswith("<12> ") and out.count("fics% ") == 1 and out.endswith("fics% ")


def test_boards_built_at_the_commit_show_the_clocks_as_at_the_move(site):
    alice, bob = site.login("alice"), site.login("bob")
    alice.command("style 12")
    bob.command("style 12")
    bob.command("iset ms 1")
    game = start(site, alice, bob)
    for mover, san in ((alice, "e4"), (bob, "e5")):  # the clocks start after these
        mover.command(san)
        site.commit()
    alice.output(), bob.output()
    site.clock.advance(3)
    alice.command("Nf3")
    site.clock.advance(2)  # the commit arrives later: not charged, not shown
    site.commit()
    record = site.store.get_game(game.record_id).moves[-1]
    seconds = alice.output().split("<12> ", 1)[1].split()
    millis = bob.output().split("<12> ", 1)[1].split()
    # fields after "<12>": 23 and 24 are White's and Black's clocks
    assert (int(millis[23]), int(millis[24])) == (record.white_ms, record.black_ms)
    assert (int(seconds[23]), int(seconds[24])) == (round(record.white_ms / 1000),
                                                    round(record.black_ms / 1000))
    assert (record.white_ms, record.black_ms) == (297_000, 300_000)
