"""The broadcaster: the one way from game events and talk to sessions.

Sessions are real ones from the registry, each writing to a ``StringTransport``;
the game service and a real SQLite store make the moves, so what each session
reads, and when, is what a client would.
"""

from __future__ import annotations

import random

import chess
import pytest
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from ficsfen.i18n import msg
from ficsfen.server.broadcaster import Broadcaster
from ficsfen.server.challenges import Challenge
from ficsfen.server.clock import TimeControl
from ficsfen.server.config import Config
from ficsfen.server.directory import GameDirectory
from ficsfen.server.game_service import GameService
from ficsfen.server.reply import Reply
from ficsfen.server.session import Services
from ficsfen.server.sessions import Sessions
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for

PROMPT = "fics% "


class Room:
    """Sessions, a directory, a broadcaster and a game service (with a store when given)."""

    def __init__(self, store=None, reactor=None) -> None:
        self.store, self.reactor = store, reactor
        self.clock = Clock()
        self.sessions = Sessions(clock=self.clock, language="en")
        self.directory = GameDirectory(self.sessions.handles)
        self.broadcaster = Broadcaster(session=self.sessions.by_key, directory=self.directory,
                                       allresults=lambda: self.sessions.listening("allresults"))
        self.service = GameService(
            directory=self.directory, broadcaster=self.broadcaster, clock=self.clock,
            session=self.sessions.get, is_registered=lambda name: True, config=Config(),
            rng=random.Random(0), store=store)
        self.sessions.bind(Services(players=self.sessions, boards=self.broadcaster,
                                    games=self.service, ivars_changed=self.sessions.ivars_changed,
                                    prompt=PROMPT), game_of=self.directory.game_of,
                           announce=self.broadcaster.announce)
        self.wires: dict[str, StringTransport] = {}

    def login(self, handle: str, *, style: int = 1, lang: str = "en", showfen: bool = False):
        wire = self.wires[handle] = StringTransport()
        session = self.sessions.enter(handle, write=wire.write, close=wire.loseConnection,
                                      registered=True)
        session.style, session.lang, session.showfen = style, lang, showfen
        return session

    def raw(self, handle: str) -> bytes:
        wire = self.wires[handle]
        data = wire.value()
        wire.clear()
        return data

    def read(self, handle: str) -> str:
        return self.raw(handle).decode("utf-8").replace("\r\n", "\n")

    def commit(self) -> None:
        if self.store is not None:
            wait_for(self.reactor, self.store.import_accounts({}))
        self.clock.advance(0)

    def game(self):
        game = self.service.start_game(Challenge("alice", "bob", TimeControl(5, 0),
                                                 colour=chess.WHITE))
        self.commit()
        self.read("alice"), self.read("bob")
        return game

    def move(self, session, text: str) -> None:
        reply = Reply.open(session)
        try:
            self.service.move(session, text, reply)
        finally:
            reply.close()


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture
def stored_room(tmp_path, reactor):
    store = SQLiteStore.open(tmp_path / "games.sqlite3", reactor=reactor)
    yield Room(store, reactor)
    wait_for(reactor, store.close())


VIEWS = [(12, "en", False), (12, "fr", True), (1, "en", False), (1, "fr", True)]


def _observers(room, game, count: int):
    watchers = []
    for i in range(count):
        style, lang, showfen = VIEWS[i % len(VIEWS)]
        name = f"watcher{chr(97 + i)}"
        room.login(name, style=style, lang=lang, showfen=showfen)
        room.directory.observe(name, game)
        watchers.append((name, style, lang, showfen))
    return watchers


def test_observers_get_one_board_each_only_after_the_commit(stored_room):
    room = stored_room
    alice = room.login("alice", style=12)
    room.login("bob")
    game = room.game()
    watchers = _observers(room, game, 8)
    views = []
    built = room.broadcaster.board_text

    def counting(session, game, **kw):
        views.append((session.style, session.lang, session.showfen))
        return built(session, game, **kw)

    room.broadcaster.board_text = counting
    room.move(alice, "e4")
    assert all(room.raw(name) == b"" for name, *_ in watchers)  # not committed yet
    assert views == []
    room.commit()
    fen = game.tracker.fen
    for name, style, lang, showfen in watchers:
        text = room.read(name)
        assert text.count(PROMPT) == 1 and text.endswith(PROMPT)
        if style == 12:
            assert text.count("<12> ") == 1
        else:
            assert text.count("Move # : 1 (Black)" if lang == "en" else "Coup n°\u202f: 1 (Noirs)") == 1
        assert (fen in text.splitlines()) == showfen
    # alice and bob, then one text per distinct observer view, not per observer
    assert len(views) == 2 + len(VIEWS)


def test_observers_with_the_same_view_get_the_same_bytes(stored_room):
    room = stored_room
    alice = room.login("alice")
    room.login("bob")
    game = room.game()
    for name in ("carol", "dave", "erin"):
        room.login(name, style=12, showfen=True)
        room.directory.observe(name, game)
    room.move(alice, "d4")
    room.commit()
    assert len({room.raw(name) for name in ("carol", "dave", "erin")}) == 1


def test_a_board_is_command_output_for_the_session_whose_command_runs():
    room = Room()  # no store: the move is announced within the mover's command
    alice = room.login("alice", style=12)
    room.login("bob", style=12)
    room.game()
    reply = Reply.open(alice)
    room.service.move(alice, "e4", reply)
    assert room.raw("alice").startswith(b"<12> ")  # no fresh line: the answer itself
    reply.close()
    assert room.read("bob").startswith("\n<12> ")  # a notification, on a fresh line
    assert room.read("alice") == PROMPT  # the command's prompt, once


def test_a_result_reaches_players_observers_and_allresults_listeners(stored_room):
    room = stored_room
    alice = room.login("alice")
    room.login("bob")
    game = room.game()
    room.login("olga")
    room.directory.observe("olga", game)
    carol = room.login("carol")
    carol.set_ivar("allresults", True)
    game.resign("alice")
    assert room.read("bob") == "" and room.read("carol") == ""
    room.commit()
    result = "{Game 1 (alice vs. bob) alice resigns} 0-1"
    # FICS's line to the players of a game that ended unrated, under the result.
    assert room.read("bob") == f"\n{result}\nNo ratings adjustment done.\n{PROMPT}"
    assert room.read("olga") == (f"\n{result}\nRemoving game 1 from observation list.\n{PROMPT}")
    assert room.read("carol") == f"\n{result}\n{PROMPT}"
    assert alice.handle not in {s.handle for s in room.sessions.listening("allresults")}


def test_talk_goes_to_each_session_in_its_language_and_to_the_sender_in_its_answer():
    room = Room()
    alice, bob = room.login("alice"), room.login("bob", lang="fr")
    reply = Reply.open(alice)
    room.broadcaster.talk([alice, bob], msg("Game drawn by mutual agreement"))
    reply.close()
    assert room.read("alice") == f"Game drawn by mutual agreement\n{PROMPT}"
    french = room.read("bob")
    assert french.startswith("\n") and french.endswith(PROMPT)
    assert "Game drawn by mutual agreement" not in french
