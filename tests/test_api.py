"""The public API: its exact surface, its documentation, and commands run by a foreign host.

Changing ``ficsfen.__all__`` is a decision: this test lists it on purpose,
so that a name is added or removed knowingly (and documented in
docs/integration.md).
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from zope.interface import implementer
from zope.interface.verify import verifyClass, verifyObject

import ficsfen
from ficsfen import (
    FenCommand,
    FenError,
    HelpCatalog,
    HelpCommand,
    ICaller,
    ICommand,
    IGame,
    IGameDirectory,
    NextCommand,
    NoSuchTopicError,
    Pager,
    Tracker,
    lookup,
    msg,
    parse,
    render,
    topics,
)

REPO = Path(__file__).resolve().parents[1]
INTEGRATION_DOC = REPO / "docs" / "integration.md"

PUBLIC = [
    "AmbiguousMoveError", "AmbiguousTopicError", "Epd", "EpdError", "FenCommand", "FenError",
    "FenSyntaxError", "GameFeed", "GameOverError", "HelpCatalog", "HelpCommand", "HelpError",
    "HelpPage", "ICaller", "IClockedGame", "ICommand", "IGame", "IGameDirectory", "IMoveEvents", "IllegalMoveError",
    "InvalidPositionError", "InvalidTopicError", "MalformedMoveError", "Message", "MoveError",
    "NextCommand", "NoSuchTopicError", "Outcome", "Pager", "Ply", "Position", "STARTING_FEN",
    "Termination", "Tracker", "TrackerError", "available_languages", "emit", "emit_epd",
    "is_valid", "lookup", "msg", "msgn", "outcome_message", "parse", "parse_epd", "parse_syntax",
    "render", "topics",
    # variant FEN
    "VARIANTS", "Variant", "VariantPosition", "parse_variant", "emit_variant", "is_valid_variant",
    "variant_named", "chess960_fen", "CastlingRightsError", "HoldingsError", "PromotedMarkError",
    "TooManyPiecesError", "UnknownVariantError",
]

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def test_all_is_exactly_the_promised_surface():
    assert sorted(ficsfen.__all__) == sorted(PUBLIC)
    assert len(set(ficsfen.__all__)) == len(ficsfen.__all__)


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_is_importable_and_documented(name):
    namespace: dict = {}
    exec(f"from ficsfen import {name}", namespace)
    value = namespace[name]
    assert value is getattr(ficsfen, name)
    if inspect.isclass(value) or inspect.isfunction(value) or hasattr(value, "names"):
        own = value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
        assert own and own.strip(), f"{name} has no docstring of its own"
    # and the integration guide mentions it, so a developer can find it
    assert f"`{name}`" in INTEGRATION_DOC.read_text(encoding="utf-8"), name


def test_star_import_and_dir_match_all():
    namespace: dict = {}
    exec("from ficsfen import *", namespace)
    assert set(PUBLIC) <= set(namespace)
    assert set(PUBLIC) <= set(dir(ficsfen))
    with pytest.raises(AttributeError):
        ficsfen.no_such_name  # noqa: B018


OLD_NAMES = {
    "MalformedMove": "MalformedMoveError", "IllegalMove": "IllegalMoveError",
    "AmbiguousMove": "AmbiguousMoveError", "NoSuchTopic": "NoSuchTopicError",
    "AmbiguousTopic": "AmbiguousTopicError", "InvalidTopic": "InvalidTopicError",
}


@pytest.mark.parametrize("old, new", sorted(OLD_NAMES.items()))
def test_exception_names_of_before_the_error_suffix_still_work(old, new):
    namespace: dict = {}
    exec(f"from ficsfen import {old}", namespace)
    assert namespace[old] is getattr(ficsfen, new) is getattr(ficsfen, old)
    assert new.endswith("Error") and old not in ficsfen.__all__
    assert f"`{old}`" in INTEGRATION_DOC.read_text(encoding="utf-8"), old


def test_outcome_and_termination_are_python_chess_own():
    import chess

    assert ficsfen.Outcome is chess.Outcome and ficsfen.Termination is chess.Termination
    tracker = Tracker("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")
    tracker.push("Qg7#")
    assert tracker.outcome() == ficsfen.Outcome(ficsfen.Termination.CHECKMATE, chess.WHITE)
    assert ficsfen.outcome_message(tracker.outcome()).render("fr") == "Les Blancs gagnent par échec et mat."
    assert issubclass(ficsfen.IllegalMoveError, chess.IllegalMoveError)
    assert issubclass(ficsfen.AmbiguousMoveError, chess.AmbiguousMoveError)
    assert issubclass(ficsfen.MalformedMoveError, chess.InvalidMoveError)


def _fresh_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_import_is_cheap_and_the_core_never_loads_the_telnet_server():
    out = _fresh_python(
        "import sys, ficsfen\n"
        "print(sorted(m for m in ('chess', 'twisted.internet.reactor') if m in sys.modules))\n"
        "for name in ficsfen.__all__: getattr(ficsfen, name)\n"
        "print(sorted(m for m in sys.modules if m in ('ficsfen.server.server', 'ficsfen.server.telnet',"
        " 'ficsfen.server.session', 'ficsfen.server.serve', 'ficsfen.server.config', 'twisted.internet.reactor')))\n")
    assert out.splitlines() == ["[]", "[]"]


# -- a host of our own: nothing but the interfaces ----------------------------


@implementer(ICaller)
class Caller:
    def __init__(self, handle: str, lang: str = "en") -> None:
        self.handle = handle
        self.lang = lang
        self.lines: list[str] = []

    def send(self, message):
        self.lines.extend(render(message, self.lang).split("\n"))


@implementer(IGame)
class Game:
    examined = False

    def __init__(self, number: int, white: str, black: str) -> None:
        self.number, self.white, self.black = number, white, black
        self.tracker = Tracker()

    def players(self):
        return (self.white, self.black)


@implementer(IGameDirectory)
class Directory:
    def __init__(self, *games: Game, watching: dict[str, Game] | None = None,
                 online: tuple[str, ...] = ()) -> None:
        self.games = {g.number: g for g in games}
        self.watching = watching or {}
        self.online = online

    def by_number(self, number):
        return self.games.get(number)

    def game_of(self, handle):
        return next((g for g in self.games.values() if handle in g.players()), None)

    def observed_by(self, handle):
        return self.watching.get(handle)

    def handles(self):
        return self.online


def test_host_objects_satisfy_the_interfaces():
    game = Game(4, "alice", "bob")
    verifyObject(ICaller, Caller("alice"))
    verifyObject(IGame, game)
    verifyObject(IGameDirectory, Directory(game))
    for command in (FenCommand(), HelpCommand(), NextCommand(Pager())):
        verifyObject(ICommand, command)
        assert command.name == command.name.lower()
        assert render(command.usage, "fr")


def test_fen_command_with_only_the_interfaces():
    game = Game(4, "alice", "bob")
    game.tracker.push("e4")
    directory = Directory(game, watching={"carol": game}, online=("alice", "bob", "carol", "dora"))
    fen = FenCommand()
    for who, args in (("alice", ""), ("carol", ""), ("dora", "4"), ("dora", "bo"), ("dora", "ALICE")):
        caller = Caller(who)
        fen(caller, args, directory)
        assert caller.lines[-1] == AFTER_E4, (who, args, caller.lines)
        assert "alice" in caller.lines[0] and "4" in caller.lines[0]
    errors = {
        "": msg("You are not playing, examining or observing a game."),
        "9": msg("There is no game {number}.", number=9),
        "zed": msg('No player named "{name}" is logged in.', name="zed"),
        "dora": msg("{handle} is not playing or examining a game.", handle="dora"),
    }
    for args, expected in errors.items():
        caller = Caller("dora", "fr")
        fen(caller, args, directory)
        assert caller.lines == [expected.render("fr")], args
        assert caller.lines[0] != expected.render("en")
    caller = Caller("dora")
    fen(caller, "4 5", directory)
    assert caller.lines == [render(msg("Usage: {usage}", usage=fen.usage), "en")]


def test_help_command_with_only_the_interfaces():
    help_ = HelpCommand()
    for lang in ("en", "fr"):
        caller = Caller("alice", lang)
        help_(caller, "fen", Directory())
        assert "\n".join(caller.lines) == lookup("fen", lang).text.rstrip("\n")
    caller = Caller("alice", "fr")
    help_(caller, "nosuchtopic", Directory())
    assert caller.lines == [NoSuchTopicError("nosuchtopic").render("fr")]
    caller = Caller("alice")
    help_(caller, "", Directory())
    assert all(t in "\n".join(caller.lines) for t in ("fen", "pgn"))


def test_help_pages_long_pages_with_next():
    pager = Pager(5)
    help_, next_ = HelpCommand(pager=pager), NextCommand(pager)
    caller = Caller("alice")
    help_(caller, "fen", Directory())
    text = lookup("fen", "en").text.rstrip("\n").split("\n")
    assert caller.lines[:5] == text[:5] and len(caller.lines) == 6
    caller.lines.clear()
    next_(caller, "", Directory())
    assert caller.lines[:5] == text[5:10]



def test_the_pager_keeps_the_catalogs_text_for_next_not_lines_of_its_own():
    """A caller waiting for ``next`` holds the page's text (the catalog's string,
    the same for every caller) and the number of its next line: a client that
    asks for a long page and never reads keeps no copy of it (memory after an attack)."""
    pager = Pager(5)
    help_, next_ = HelpCommand(pager=pager), NextCommand(pager)
    alice, bob = Caller("alice"), Caller("bob")
    help_(alice, "fen", Directory())
    help_(bob, "fen", Directory())
    (alice_text, alice_next), (bob_text, bob_next) = pager._pending[alice], pager._pending[bob]
    assert alice_text is bob_text is lookup("fen", "en").text
    assert alice_next == bob_next == 5
    pages = [alice.lines[:5]]
    while True:
        alice.lines.clear()
        next_(alice, "", Directory())
        if alice.lines[-1] == "There is no more to show.":
            break
        pages.append([line for line in "\n".join(alice.lines).split("\n")
                      if line != "Type [next] to see the next page."])
    assert [line for page in pages for line in page] == lookup("fen", "en").text.rstrip("\n").split("\n")
    assert alice not in pager._pending

def test_help_catalog_resolution_and_fallback(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "fr").mkdir()
    (tmp_path / "en" / "castling").write_text("Castling moves king and rook.\n", encoding="utf-8")
    (tmp_path / "en" / "cheat").write_text("No.\n", encoding="utf-8")
    (tmp_path / "fr" / "cheat").write_text("Non.\n", encoding="utf-8")
    catalog = HelpCatalog(tmp_path)
    assert catalog.topics() == ["castling", "cheat"]
    page = catalog.lookup("cas", "fr")
    assert (page.topic, page.lang, page.fallback) == ("castling", "en", True)
    assert page.notice is not None and page.notice.render("fr") != page.notice.render("en")
    assert catalog.lookup("cheat", "fr").text == "Non.\n"
    with pytest.raises(ficsfen.AmbiguousTopicError):
        catalog.lookup("c", "en")
    with pytest.raises(ficsfen.InvalidTopicError):
        catalog.lookup("../en/cheat", "en")
    assert "fen" in topics() and lookup("fe", "en").topic == "fen"


def test_codec_tracker_and_messages_through_the_facade():
    tracker = Tracker()
    seen = []
    unsubscribe = tracker.subscribe(seen.append)
    tracker.push("e4")
    unsubscribe()
    tracker.push("c5")
    assert [(p.number, p.san, p.uci, p.fen) for p in seen] == [(1, "e4", "e2e4", AFTER_E4)]
    assert ficsfen.emit(parse(AFTER_E4)) == AFTER_E4
    assert ficsfen.is_valid(ficsfen.STARTING_FEN)
    with pytest.raises(FenError) as error:
        parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQqk - 0 1")
    assert error.value.field == 3
    assert error.value.render("en") != error.value.render("fr")
    with pytest.raises(ficsfen.IllegalMoveError):
        tracker.push("Ke3")
    assert render(msg("Goodbye."), "fr") == "Au revoir."
    assert render("plain text", "fr") == "plain text"
    assert set(ficsfen.available_languages()) >= {"en", "fr"}


def test_our_server_implements_the_same_interfaces():
    from ficsfen.server.directory import GameDirectory
    from ficsfen.server.session import Session

    verifyClass(ICaller, Session)
    verifyClass(IGameDirectory, GameDirectory)


def test_help_on_an_alias_shows_its_commands_page():
    from ficsfen.server.command_table import CommandTable

    table = CommandTable([FenCommand(), HelpCommand()])
    table.alias("position", "fen")  # a host's own alias for our fen command
    help_ = HelpCommand(exact_command=table.exact)
    for lang in ("en", "fr"):
        caller = Caller("alice", lang)
        help_(caller, "position", Directory())
        assert "\n".join(caller.lines) == lookup("fen", lang).text.rstrip("\n")
    caller = Caller("alice")
    help_(caller, "nosuchtopic", Directory())  # neither a topic nor a command
    assert caller.lines == [NoSuchTopicError("nosuchtopic").render("en")]
    caller = Caller("alice")
    HelpCommand()(caller, "position", Directory())  # without the hook: no such topic
    assert caller.lines == [NoSuchTopicError("position").render("en")]
