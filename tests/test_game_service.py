"""The game service alone: games started, moved, adjourned, expired and restored through a
real SQLite store, sessions from the real registry, game clocks on a fake clock.

The parts are composed here by hand (directory, sessions, broadcaster, service), as
the server's composition root does, so what is tested is the service's own contract:
each change is in the store before anyone hears of it.
"""

from __future__ import annotations

import random

import chess
import pytest
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from ficsfen.server.broadcaster import Broadcaster
from ficsfen.server.challenges import Challenge
from ficsfen.server.clock import TimeControl
from ficsfen.server.config import Config
from ficsfen.server.directory import GameDirectory
from ficsfen.server.game_service import GameService
from ficsfen.server.game_values import EndCode, GameStatus
from ficsfen.server.reply import Reply
from ficsfen.server.session import Services
from ficsfen.server.sessions import Sessions
from ficsfen.server.store import Adjournment, SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for

DAY = 86400.0


class Table:
    """A game service over ``path``, with the sessions it reaches and a settable wall time."""

    def __init__(self, path, reactor, *, accounts=("alice", "bob")) -> None:
        self.reactor = reactor
        self.store = SQLiteStore.open(path, reactor=reactor)
        self.clock = Clock()
        self.now = 1_700_000_000.0
        self.sessions = Sessions(clock=self.clock, language="en")
        self.directory = GameDirectory(self.sessions.handles)
        self.broadcaster = Broadcaster(session=self.sessions.by_key, directory=self.directory,
                                       allresults=lambda: self.sessions.listening("allresults"))
        self.service = GameService(
            directory=self.directory, broadcaster=self.broadcaster, clock=self.clock,
            session=self.sessions.get, is_registered=lambda name: name in accounts,
            config=Config(adjourned_expiry_days=2), rng=random.Random(0), store=self.store,
            wall=lambda: self.now)
        self.sessions.bind(Services(players=self.sessions, boards=self.broadcaster,
                                    games=self.service, ivars_changed=self.sessions.ivars_changed,
                                    prompt="fics% "), game_of=self.directory.game_of,
                           announce=self.broadcaster.announce)
        self.wires: dict[str, StringTransport] = {}

    def login(self, handle: str, *, registered: bool = True):
        wire = self.wires[handle] = StringTransport()
        return self.sessions.enter(handle, write=wire.write, close=wire.loseConnection,
                                   registered=registered)

    def read(self, handle: str) -> str:
        wire = self.wires[handle]
        text = wire.value().decode("utf-8").replace("\r\n", "\n")
        wire.clear()
        return text

    def commit(self) -> None:
        """Wait until every write asked for so far is committed and announced."""
        wait_for(self.reactor, self.store.import_accounts({}))  # a write after all the others
        self.clock.advance(0)

    def moves_stored(self, game) -> list[str]:
        return [m.san for m in self.store.get_game(game.record_id).moves]


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture
def table(tmp_path, reactor):
    table = Table(tmp_path / "games.sqlite3", reactor)
    yield table
    wait_for(reactor, table.store.close())


def started(table, white="alice", black="bob"):
    game = table.service.start_game(Challenge(white, black, TimeControl(5, 0), colour=chess.WHITE))
    table.commit()
    return game


def test_a_game_is_numbered_and_shown_only_once_its_start_is_stored(table):
    alice, bob = table.login("alice"), table.login("bob")
    game = table.service.start_game(Challenge("alice", "bob", TimeControl(5, 0), colour=chess.WHITE))
    assert table.read("alice") == table.read("bob") == ""
    assert table.directory.game_of("alice") is None and table.service.busy("alice")
    table.commit()
    assert table.directory.game_of("alice") is game and game.number == 1
    assert "{Game 1 (alice vs. bob) Creating unrated blitz match.}" in table.read("alice")
    assert "Creating: alice (----) bob (----) unrated blitz 5 0" in table.read("bob")
    assert table.store.get_game(game.record_id).status is GameStatus.PLAYING
    assert (alice.handle, bob.handle) == game.players()


def test_a_move_is_stored_then_announced_and_the_mover_prompt_waits_for_its_board(table):
    alice = table.login("alice")
    table.login("bob")
    game = started(table)
    table.read("alice"), table.read("bob")
    reply = Reply.open(alice)
    table.service.move(alice, "e4", reply)
    reply.close()
    assert table.read("alice") == "" and table.read("bob") == ""  # not committed: not told
    assert table.moves_stored(game) == []
    assert game.tracker.ply == 1  # made at once: a second move by alice is refused
    table.commit()
    assert table.moves_stored(game) == ["e4"]
    mover = table.read("alice")
    assert "White Moves : 'e4" in mover and mover.endswith("fics% ")
    assert mover.count("fics% ") == 1  # the board brings the prompt the command left out
    assert "White Moves : 'e4" in table.read("bob")


def test_a_refused_move_is_told_to_the_mover_and_changes_nothing(table):
    alice = table.login("alice")
    table.login("bob")
    game = started(table)
    table.read("alice")
    reply = Reply.open(alice)
    table.service.move(alice, "e5", reply)
    reply.close()
    assert table.read("alice") == "Illegal move: no pawn can reach e5.\nfics% "
    table.commit()
    assert game.tracker.ply == 0 and table.moves_stored(game) == []


def test_a_move_with_no_game_is_refused(table):
    carol = table.login("carol")
    reply = Reply.open(carol)
    table.service.move(carol, "e4", reply)
    reply.close()
    assert table.read("carol") == "You are not playing or examining a game.\nfics% "


def test_an_adjourned_game_is_kept_then_expires_in_the_store(table):
    table.login("alice")
    table.login("bob")
    game = started(table)
    table.service.departed(table.sessions.get("alice"))  # both registered: adjourned
    table.commit()
    assert table.service.adjourned.between("alice", "bob") is game
    assert table.store.get_game(game.record_id).status is GameStatus.ADJOURNED
    assert "lost connection; game adjourned" in table.read("bob")
    table.now += 3 * DAY
    table.clock.advance(3600)  # the periodic look
    table.commit()
    assert len(table.service.adjourned) == 0
    stored = table.store.get_game(game.record_id)
    assert stored.status is GameStatus.FINISHED and stored.end.code is EndCode.ABORTED
    assert "Your adjourned game with alice has expired" in table.read("bob")


def test_an_expiry_by_an_older_copy_leaves_a_game_adjourned_again_since_alone(table):
    # what another server sharing the store does meanwhile: resume it, adjourn it again
    table.login("alice")
    table.login("bob")
    game = started(table)
    table.service.departed(table.sessions.get("alice"))
    table.commit()
    table.read("bob")
    refused = []
    table.service.keeping.expiry_refused = refused.append
    wait_for(table.reactor, table.store.resume_game(game.record_id))
    wait_for(table.reactor, table.store.adjourn_game(game.record_id, Adjournment(
        "again", table.now + 2.5 * DAY, 300_000, 300_000, 0)))
    table.now += 3 * DAY  # past this copy's expiry, not the store's adjournment's
    table.clock.advance(3600)
    table.commit()
    assert table.store.get_game(game.record_id).status is GameStatus.ADJOURNED
    assert refused == [game]
    assert "expired" not in table.read("bob")


def test_a_restarted_service_restores_the_adjourned_game_and_resumes_it(tmp_path, reactor):
    path = tmp_path / "games.sqlite3"
    first = Table(path, reactor)
    first.login("alice")
    first.login("bob")
    game = started(first)
    first.service.move(first.sessions.get("alice"), "d4")
    first.commit()
    wait_for(reactor, first.service.stop())
    wait_for(reactor, first.store.close())

    second = Table(path, reactor)
    try:
        wait_for(reactor, second.service.restore())
        kept = second.service.adjourned.between("alice", "bob")
        assert kept is not None and kept.record_id == game.record_id
        assert [p.san for p in kept.tracker.history] == ["d4"]
        second.login("alice")
        second.login("bob")
        second.service.start_game(Challenge("alice", "bob", adjourned=True))
        second.commit()
        assert second.directory.game_of("alice") is kept and kept.result is None
        assert "Continuing unrated" in second.read("bob")
        second.service.move(second.sessions.get("bob"), "d5")
        second.commit()
        assert second.moves_stored(kept) == ["d4", "d5"]
    finally:
        wait_for(reactor, second.store.close())


def test_a_game_with_a_guest_is_aborted_at_restore(tmp_path, reactor):
    path = tmp_path / "games.sqlite3"
    first = Table(path, reactor, accounts=("alice", "bob", "guest"))
    first.login("alice")
    first.login("guest")
    game = started(first, "alice", "guest")
    wait_for(reactor, first.store.close())  # as a crash: the game is still "playing"

    second = Table(path, reactor)  # guest has no account here
    try:
        wait_for(reactor, second.service.restore())
        assert len(second.service.adjourned) == 0
        stored = second.store.get_game(game.record_id)
        assert stored.status is GameStatus.FINISHED and stored.end.code is EndCode.ABORTED
    finally:
        wait_for(reactor, second.store.close())
