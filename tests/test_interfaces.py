"""The interfaces are real: our objects provide them, commands get nothing wider."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from twisted.cred.checkers import ICredentialsChecker
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from ficsfen.commands.base import Command
from ficsfen.interfaces import ICaller, IClockedGame, IGame, IGameDirectory, IMoveEvents
from ficsfen.server.challenges import Challenge
from ficsfen.server.examined import ExaminedGame
from ficsfen.server.feed import GameFeed
from ficsfen.server.games import IGameListener, IMoveTiming, PlayedGame
from ficsfen.server.interfaces import (IBoards, IExaminedGame, IGameEvents, IGameService,
                                       ILineConnection, IPlayedGame, IPlayers, IServerCaller,
                                       IServerDirectory, IServerGame)
from ficsfen.server.testing import connect, make_server

PACKAGE = Path(__file__).resolve().parents[1] / "ficsfen"


def test_played_games_provide_what_commands_use():
    game = PlayedGame("alice", "bob", reactor=Clock())
    for iface in (IGame, IServerGame, IClockedGame, IMoveEvents, IPlayedGame):
        assert verifyObject(iface, game)
    assert not IExaminedGame.providedBy(game)


def test_examined_games_provide_what_commands_use():
    game = ExaminedGame("alice")
    for iface in (IGame, IServerGame, IMoveEvents, IExaminedGame):
        assert verifyObject(iface, game)
    assert not IPlayedGame.providedBy(game) and not IClockedGame.providedBy(game)


def test_the_server_and_its_parts_provide_their_interfaces():
    server = make_server()
    assert verifyObject(IPlayers, server.sessions)
    assert verifyObject(IBoards, server.broadcaster)
    for iface in (IGameService, IGameListener, IMoveTiming):
        assert verifyObject(iface, server.games)
    for iface in (IPlayers, IBoards, IGameService):  # the services are, not the composition root
        assert not iface.providedBy(server)
    assert verifyObject(ICredentialsChecker, server.accounts)
    assert verifyObject(IServerDirectory, server.directory)
    assert verifyObject(IGameDirectory, server.directory)
    assert verifyObject(IGameEvents, GameFeed())


def test_a_session_is_a_caller_carrying_narrow_services():
    server = make_server()
    client = connect(server)
    client.login("alice")
    session = server.sessions.get("alice")
    assert verifyObject(ICaller, session) and verifyObject(IServerCaller, session)
    assert IPlayers.providedBy(session.players) and IBoards.providedBy(session.boards)
    assert session.players is server.sessions
    assert IGameService.providedBy(session.games)
    assert not hasattr(session, "server")  # commands reach no further than the services


def test_the_games_of_a_running_server_are_told_apart_by_interface():
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    alice.command("examine")
    examined = server.directory.game_of("alice")
    assert IExaminedGame.providedBy(examined) and examined.listener is server.games
    played = server.games.start_game(Challenge("bob", "carol"))
    assert IPlayedGame.providedBy(played)


def _uses(source: Path, attribute: str) -> list[int]:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == attribute
            and isinstance(node.value, ast.Name) and node.value.id == "caller"]


@pytest.mark.parametrize("source", sorted((PACKAGE / "server" / "commands").glob("*.py"))
                         + sorted((PACKAGE / "commands").glob("*.py")), ids=lambda p: p.name)
def test_no_command_reaches_through_caller_server(source):
    assert _uses(source, "server") == []


def test_a_bad_argument_spec_is_refused_even_under_python_O():
    with pytest.raises(TypeError, match="spec"):
        class Broken(Command):  # noqa: F841 - defining it is the test
            name = "broken"
            spec = "wx"


def test_a_telnet_connection_is_a_connection_that_sends_lines():
    client = connect(make_server())
    client.login()
    connection = client.protocol.wrappedProtocol
    assert verifyObject(ILineConnection, connection)
    assert client.session.sink is connection  # what a board for many observers is written through
    assert connection.peer.startswith(connection.host + ":") and not connection.holding
