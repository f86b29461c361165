"""What ICS clients read, in process (their parsers' expectations, and the ivar effects on boards and offers).

Style 12 is parsed here the way xboard parses it (a fixed field list, each
field checked); headers are matched with the patterns xboard and eboard
use.  The interface variables are set on the session directly: ``iset``
itself is tested with the command layer.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest
from twisted.internet.task import Clock

from ficsfen.fen import STARTING_FEN
from ficsfen.server.boards import fen_from_style12, format_move_time_ms
from ficsfen.server.clock import TimeControl
from ficsfen.server.config import hash_password
from ficsfen.server.testing import connect, make_server

# 2024-01-07 14:02:00 UTC, a Sunday.
EPOCH = 1704636120


@dataclass(frozen=True)
class Board12:
    """A ``<12>`` line read field by field, as xboard's ParseBoard12 reads it."""

    ranks: tuple[str, ...]
    to_move: str
    double_push: int
    castling: tuple[int, int, int, int]
    halfmoves: int
    number: int
    white: str
    black: str
    relation: int
    minutes: int
    increment: int
    white_strength: int
    black_strength: int
    white_clock: int
    black_clock: int
    move_number: int
    verbose: str
    took: str
    pretty: str
    flip: int
    ticking: int
    lag: int


def parse12(line: str) -> Board12:
    fields = line.split(" ")
    assert fields[0] == "<12>" and len(fields) == 33, line
    ranks = tuple(fields[1:9])
    assert all(re.fullmatch(r"[-PNBRQKpnbrqk]{8}", r) for r in ranks), line
    assert fields[9] in ("W", "B")
    assert re.fullmatch(r"\(\d+:\d\d(\.\d\d\d)?\)", fields[28]), fields[28]
    ints = [int(f) for f in (fields[10:17] + fields[19:27] + fields[30:33])]
    return Board12(ranks, fields[9], ints[0], tuple(ints[1:5]), ints[5], ints[6], fields[17],
                   fields[18], ints[7], ints[8], ints[9], ints[10], ints[11], ints[12], ints[13],
                   ints[14], fields[27], fields[28], fields[29], ints[15], ints[16], ints[17])


def boards12(text: str) -> list[Board12]:
    return [parse12(line) for line in text.splitlines() if line.startswith("<12> ")]


class Room:
    """alice, bob (players) and carol (observer) on a fake clock, all in style 12."""

    def __init__(self, **settings) -> None:
        self.clock = Clock()
        self.clock.advance(EPOCH)
        self.server = make_server(clock=self.clock, **settings)
        self.alice, self.bob, self.carol = (connect(self.server) for _ in range(3))
        for client, name in ((self.alice, "alice"), (self.bob, "bob"), (self.carol, "carol")):
            client.login(name)
            client.command("style 12")

    def ivar(self, client, name: str, value: bool = True) -> None:
        client.session.preset_ivars({name: value})

    def start(self, time_control: str = "5 0") -> object:
        self.alice.command(f"match bob {time_control} white")
        self.bob.command("accept")
        return self.server.directory.game_of("alice")

    def clear(self) -> None:
        for client in (self.alice, self.bob, self.carol):
            client.output()


@pytest.fixture
def room() -> Room:
    return Room()


# -- style 12: the lag field and ms ------------------------------------------------


def test_style12_has_33_fields_and_the_movers_lag_last(room):
    room.start()
    room.alice.session.lag_ms = 137
    room.bob.session.lag_ms = 58
    room.carol.command("observe 1")
    room.clear()
    room.alice.command("e4")
    seen = boards12(room.carol.output())
    assert [b.lag for b in seen] == [137]
    assert boards12(room.bob.output())[0].lag == 137
    room.bob.command("e5")
    assert boards12(room.carol.output())[0].lag == 58
    board = boards12(room.alice.command("refresh"))[0]
    assert (board.lag, board.relation, board.verbose, board.pretty) == (58, 1, "P/e7-e5", "e5")


def test_lag_is_zero_before_any_move_and_in_examined_games(room):
    room.alice.session.lag_ms = 99
    game = room.start()
    assert boards12(room.alice.command("refresh"))[0].lag == 0
    game.abort("alice")
    room.carol.session.lag_ms = 99
    out = room.carol.command("examine")
    room.carol.command("e4")
    assert boards12(room.carol.command("refresh"))[0].lag == 0, out


def test_ms_gives_clocks_and_move_time_in_milliseconds(room):
    room.start("5 0")
    room.ivar(room.carol, "ms")
    room.carol.command("observe 1")
    room.clear()
    room.alice.command("e4")
    room.clock.advance(1.234)
    room.bob.command("e5")
    room.clock.advance(2.5)
    room.alice.command("Nf3")
    observed = boards12(room.carol.output())[-1]
    plain = boards12(room.bob.output())[-1]
    # Clocks run from both sides' first moves: White has used 2.5 s.
    assert (observed.white_clock, observed.black_clock) == (297500, 300000)
    assert observed.took == "(0:02.500)"
    assert (plain.white_clock, plain.black_clock) == (298, 300)  # 297.5 rounds up
    assert plain.took == "(0:02)"
    assert fen_from_style12(" ".join(
        ["<12>", *observed.ranks, observed.to_move, str(observed.double_push),
         *map(str, observed.castling), str(observed.halfmoves)] + ["x"] * 10
        + [str(observed.move_number)])) == room.server.directory.game_of("alice").tracker.fen


def test_observers_with_and_without_ms_share_the_fanout_by_group():
    room = Room()
    room.start()
    others = [connect(room.server) for _ in range(6)]
    for i, client in enumerate(others):
        client.login(f"watcher{chr(97 + i)}")
        client.command("style 12")
        client.session.preset_ivars({"ms": i % 2 == 0})
        client.command("observe 1")
        client.output()
    room.alice.command("e4")
    lines = {c.session.ivars["ms"]: boards12(c.output())[0] for c in others}
    assert lines[True].white_clock == 300000 and lines[False].white_clock == 300
    groups = room.server.broadcaster.observer_groups(room.server.directory.game_of("alice"), ["alice", "bob"])
    assert sorted(len(members) for _, members in groups) == [3, 3]


def test_format_move_time_ms():
    assert format_move_time_ms(0) == "0:00.000"
    assert format_move_time_ms(61.2346) == "1:01.235"
    assert format_move_time_ms(-3) == "0:00.000"


# -- startpos ---------------------------------------------------------------------------


SETUP = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"


def _examine_from(client, fen: str) -> None:
    client.command("examine")
    client.command("bsetup")
    client.command(f"bsetup fen {fen}")
    client.command("bsetup done")
    client.command("e4")


def test_startpos_puts_the_starting_board_in_the_move_list(room):
    _examine_from(room.carol, SETUP)
    room.ivar(room.carol, "startpos")
    out = room.carol.command("moves")
    boards = boards12(out)
    assert len(boards) == 1 and boards[0].relation == -4
    line = next(l for l in out.splitlines() if l.startswith("<12> "))
    assert fen_from_style12(line) == SETUP
    # The board comes after the header lines and before the "Move  " heading.
    lines = out.splitlines()
    assert lines.index(line) < next(i for i, l in enumerate(lines) if l.startswith("Move  "))
    assert lines.index(line) > next(i for i, l in enumerate(lines) if " match, initial time: " in l)
    # FICS's layout, which pychess counts on: the header, one blank line, the board.
    assert lines[lines.index(line) - 2:lines.index(line)] == [
        "Unrated untimed match, initial time: 0 minutes, increment: 0 seconds.", ""]


def test_startpos_in_style1_and_off_and_for_the_usual_start(room):
    _examine_from(room.carol, SETUP)
    assert "<12>" not in room.carol.command("moves")
    room.ivar(room.carol, "startpos")
    room.carol.command("style 1")
    out = room.carol.command("moves")
    assert "<12>" not in out and "|   |   |   |   | K |   |   |   |" in out
    room.start()
    room.ivar(room.alice, "startpos")
    assert room.server.directory.game_of("alice").tracker.initial_fen == STARTING_FEN
    assert "<12>" not in room.alice.command("moves")


# -- gameinfo ---------------------------------------------------------------------------


G1 = re.compile(r"^<g1> (\d+) p=(\d) t=(\w+) r=(\d) u=(\d),(\d) it=(\d+),(\d+) i=(\d+),(\d+) "
                r"pt=(\d+) rt=(\S+),(\S+) ts=(\d),(\d)", re.M)


def test_gameinfo_line_when_a_game_starts_for_those_who_asked(room):
    room.ivar(room.bob, "gameinfo")
    room.bob.session.timeseal = True
    room.alice.command("match bob 3 2 white")
    out = room.bob.command("accept")
    m = G1.search(out)
    assert m is not None, out
    # Guests have no rating: FICS's 0 and the provisional mark.
    assert m.groups() == ("1", "0", "blitz", "0", "0", "0", "180", "2", "180", "2", "0", "0P",
                          "0P", "0", "1")
    assert out.index("<g1>") > out.index("Creating:")
    assert "<g1>" not in room.alice.output()


def test_gameinfo_when_observing_a_played_game_not_an_examined_one(room):
    room.start("1 0")
    room.ivar(room.carol, "gameinfo")
    out = room.carol.command("observe 1")
    assert G1.search(out).group(3) == "lightning"
    assert out.index("<g1>") > out.index("<12>")
    dave = connect(room.server)
    dave.login("dave")
    dave.command("examine")
    room.carol.command("unobserve")
    assert "<g1>" not in room.carol.command("observe dave")


# -- pendinfo ---------------------------------------------------------------------------


PEND = re.compile(r"^<(pt|pf)> (\d+) w=(\w+) t=(\w+) p=(.*)$|^<pr> (\d+)$", re.M)


def pend(text: str) -> list[tuple]:
    out = []
    for m in PEND.finditer(text):
        if m.group(6):
            out.append(("pr", int(m.group(6))))
        else:
            out.append((m.group(1), int(m.group(2)), m.group(3), m.group(4), m.group(5)))
    return out


def test_pendinfo_match_offer_accepted_by_its_number(room):
    room.ivar(room.alice, "pendinfo")
    room.ivar(room.bob, "pendinfo")
    out = room.alice.command("match bob 1 0 white")
    [(kind, number, who, what, params)] = pend(out)
    assert (kind, who, what, params) == ("pt", "bob", "match",
                                         "alice (++++) [white] bob (++++) unrated lightning 1 0")
    assert out.index("<pt>") > out.index("Issuing:")
    told = room.bob.output()
    assert pend(told) == [("pf", number, "alice", "match", params)]
    out = room.bob.command(f"accept {number}")
    assert ("pr", number) in pend(out) and out.index("<pr>") < out.index("Creating:")
    assert ("pr", number) in pend(room.alice.output())
    assert room.server.directory.game_of("alice") is not None


def test_pendinfo_in_game_offers_and_their_removal(room):
    room.ivar(room.alice, "pendinfo")
    room.ivar(room.bob, "pendinfo")
    room.start()
    room.clear()
    [(_, draw, who, kind, params)] = pend(room.alice.command("draw"))
    assert (who, kind, params) == ("bob", "draw", "#")
    assert pend(room.bob.output()) == [("pf", draw, "alice", "draw", "#")]
    out = room.bob.command(f"decline {draw}")
    assert pend(out) == [("pr", draw)] and pend(room.alice.output()) == [("pr", draw)]
    room.alice.command("e4")
    room.bob.command("e5")
    room.clear()
    [(_, takeback, _, kind, params)] = pend(room.bob.command("takeback 2"))
    assert (kind, params) == ("takeback", "2")
    room.alice.output()
    [(_, abort, _, _, params)] = pend(room.bob.command("abort"))
    assert params == "#" and abort != takeback
    room.alice.output()
    out = room.bob.command(f"withdraw {abort}")
    assert pend(out) == [("pr", abort)]
    room.alice.output()
    # Resigning ends the game: the takeback still pending is removed for both.
    out = room.alice.command("resign")
    assert ("pr", takeback) in pend(out)
    assert ("pr", takeback) in pend(room.bob.output())


def test_a_number_that_is_no_offer_of_yours(room):
    room.ivar(room.bob, "pendinfo")
    room.alice.command("match bob 5 0")
    [(_, number, *_)] = pend(room.bob.output())
    assert "There is no offer 999 for you." in room.bob.command("accept 999")
    room.bob.command("set lang fr")
    assert "Aucune offre numéro 999" in room.bob.command("decline 999")
    assert room.server.challenges.to("bob")[0].id == number


def test_no_pendinfo_lines_without_the_ivar(room):
    out = room.alice.command("match bob 5 0")
    out += room.bob.output() + room.bob.command("accept")
    out += room.alice.command("draw") + room.bob.output()
    assert not pend(out) and "<p" not in out


# -- games, observe, moves, Creating ------------------------------------------------------


GAMES_LINE = re.compile(r"^\s*(\d+) (\S+)\s+(\w+)\s+(\S+)\s+(\w+)\s+\[ *(\w+)\s+(\d+)\s+(\d+)\]")


def test_games_n_lists_one_game_and_games_word_filters_by_handle(room):
    room.start("2 12")
    dave, erin = connect(room.server), connect(room.server)
    dave.login("dave")
    erin.login("erin")
    dave.command("match erin 15 0 white")
    erin.command("accept")
    out = room.carol.command("games 2")
    rows = [GAMES_LINE.match(l) for l in out.splitlines() if GAMES_LINE.match(l)]
    assert [(m.group(1), m.group(3), m.group(5), m.group(6)) for m in rows] == [
        ("2", "dave", "erin", "su")]
    assert "1 games displayed (of 2 in progress)." in out  # always "games": pychess waits for it
    assert "alice" in room.carol.command("games AL") and "dave" not in room.carol.command("games al")
    assert "There is no game 7." in room.carol.command("games 7")
    assert "starts with \"zz\"" in room.carol.command("games zz")
    assert "2 games displayed." in room.carol.command("games")


@pytest.mark.parametrize("tc, category", [("1 0", "lightning"), ("2 1", "lightning"),
                                          ("2 2", "blitz"), ("14 1", "blitz"),
                                          ("15 0", "standard"), ("0 0", "untimed")])
def test_creating_and_moves_headers_name_the_category(tc, category):
    assert TimeControl(*map(int, tc.split())).category == category
    room = Room()
    room.alice.command(f"match bob {tc} white")
    out = room.bob.command("accept")
    minutes, increment = tc.split()
    assert f"Creating: alice (++++) bob (++++) unrated {category} {minutes} {increment}" in out
    moves = room.carol.command("moves alice")
    assert (f"Unrated {category} match, initial time: {minutes} minutes, "
            f"increment: {increment} seconds.") in moves


def test_moves_header_as_xboard_reads_it_in_any_language(room):
    room.start("5 0")
    room.alice.command("e4")
    room.carol.command("set interface xboard 4.9.1")
    room.carol.command("set language fr")  # an interface: FICS's English all the same
    out = room.carol.command("moves 1")
    lines = out.splitlines()
    assert lines[0] == "Movelist for game 1:"
    # xboard: "* (*) vs. * (*) --- *", "* * match, initial time: * minute*, increment: * second",
    # then "Move  " opens the list, and "}" followed by the result ends it.
    vs = re.fullmatch(r"(\S+) \((\S+)\) vs\. (\S+) \((\S+)\) --- (.+)", lines[2])
    assert vs is not None and vs.group(1, 3) == ("alice", "bob")
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d, \d\d:\d\d \S+ 2024", vs.group(5))
    assert re.fullmatch(r"Unrated blitz match, initial time: 5 minutes, increment: 0 seconds\.",
                        lines[3])
    assert any(l.startswith("Move  ") for l in lines)
    assert lines[-1] == "      {Still in progress} *"


def test_observe_header_then_the_board(room):
    room.start("5 3")
    out = room.carol.command("observe 1")
    lines = out.splitlines()
    at = lines.index("You are now observing game 1.")
    # scid and eboard scan "Game %d: %s (%s) %s (%s) %s %s %d %d".
    header = re.fullmatch(r"Game (\d+): (\w+) \((\S+)\) (\w+) \((\S+)\) (\w+) (\w+) (\d+) (\d+)",
                          lines[at + 1])
    assert header is not None
    assert header.groups() == ("1", "alice", "++++", "bob", "++++", "unrated", "blitz", "5", "3")
    # FICS's blank line before the board: pychess 1.0.3 expects exactly these four lines.
    assert lines[at + 2] == "" and lines[at + 3].startswith("<12> ")
    names, ratings = r"(\w+)", r"\(\s*([0-9\ \-\+]{1,4}[P E]?|UNR)\)"
    pychess_observe = [r"You are now observing game \d+\.",
                       r"Game (\d+): %s %s %s %s %s ([\w/]+) (\d+) (\d+)" % (
                           names, ratings, names, ratings, "(rated|unrated)"), "", "<12> (.+)"]
    assert all(re.match(rx, line, re.I) for rx, line in zip(pychess_observe, lines[at:at + 4]))
    room.carol.command("set lang fr")
    room.carol.command("unobserve")
    assert "\nPartie 1\u202f: alice (++++) bob (++++) non classée blitz 5 3\n" in (
        room.carol.command("observe 1"))  # a person reads French
    room.carol.command("set interface eboard")
    room.carol.command("unobserve")
    assert "\nGame 1: alice (++++) bob (++++) unrated blitz 5 3\n" in room.carol.command("observe 1")


# -- date and finger ------------------------------------------------------------------------


def test_date_answers_with_three_fics_lines(room):
    out = room.alice.command("date")
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[2] == "GMT            - Sun Jan  7, 14:02 GMT 2024"
    local = time.localtime(EPOCH)
    for label, line in zip(("Local time     - ", "Server time    - "), lines[:2]):
        assert line.startswith(label)
        assert line.endswith(f"{local.tm_hour:02d}:{local.tm_min:02d} "
                             f"{time.strftime('%Z', local)} 2024")
    room.alice.command("set lang fr")
    french = room.alice.command("date").splitlines()
    assert french[2] == "GMT            - dim janv  7, 14:02 GMT 2024"
    assert french[0].startswith("Heure locale   - ") and french[1].startswith("Heure serveur  - ")
    room.alice.command("set interface pychess")
    assert room.alice.command("date") == out


def test_finger_shows_status_interface_timeseal_and_language(room):
    room.start()
    room.alice.command("set interface xboard 4.9.1 + Stockfish 15.1")
    room.alice.session.timeseal = True
    room.alice.session.lag_ms = 42
    room.clock.advance(125)  # (under the idle timeout)
    out = room.carol.command("finger ali")
    lines = out.splitlines()
    assert lines[0] == "Finger of alice(U):"
    assert "On for: 2 mins 5 secs" in out
    assert "(playing game 1: alice vs. bob)" in out
    assert "alice is NOT a registered player." in out
    assert "Language   : English" in out
    assert 'Interface  : "xboard 4.9.1 + Stockfish 15.1"' in out
    assert "Lag        : 42 ms" in out
    assert re.search(r"^Timeseal +: +(On|Off)$", out, re.M).group(1) == "On"  # pychess's pattern
    mine = room.carol.command("finger")
    assert mine.splitlines()[0] == "Finger of carol(U):" and mine.rstrip().endswith("Off")
    assert "Interface" not in mine and "Lag" not in mine
    room.carol.command("set lang fr")
    french = room.carol.command("finger alice")
    assert french.startswith("Fiche de alice(U)\u202f:") and "Langue\u202f:     English" in french
    assert "Timeseal\u202f:   activé" in french
    room.carol.command("iset ms 0")  # an interface: FICS's lines
    english = room.carol.command("finger alice")
    assert english.startswith("Finger of alice(U):") and "Language   : English" in english
    assert "Timeseal   : On" in english


def test_finger_of_a_registered_player_who_is_away():
    clock = Clock()
    clock.advance(EPOCH)
    server = make_server(clock=clock, accounts={"sam": hash_password("pw", iterations=1000)})
    carol = connect(server)
    carol.login("carol")
    assert "sam is not logged in." in carol.command("finger sam")
    assert "No player named \"zed\" is logged in." in carol.command("finger zed")
    sam = connect(server)
    sam.output()
    sam.send("sam")
    sam.send("pw")
    sam.output()
    assert "Finger of sam:" in carol.command("finger sam")
    assert "NOT a registered" not in carol.command("finger sam")
    sam.command("quit")
    clock.advance(60)
    out = carol.command("finger sam")
    assert out.splitlines()[0] == "Finger of sam:"
    assert "Last disconnected: Sun Jan  7, " in out


# -- set and variables ----------------------------------------------------------------------


def test_set_interface_takes_the_rest_of_the_line(room):
    out = room.alice.command("set interface xboard 4.9.1 + Stockfish 15.1")
    assert 'interface set to "xboard 4.9.1 + Stockfish 15.1".' in out
    assert room.alice.session.interface == "xboard 4.9.1 + Stockfish 15.1"
    assert 'Interface: "xboard 4.9.1 + Stockfish 15.1"' in room.bob.command("variables alice")


@pytest.mark.parametrize("line, name, value", [
    ("set width 79", "width", 79), ("set height 24", "height", 24), ("set bell 0", "bell", False),
    ("set open 1", "open", True), ("set seek 0", "seek", False), ("set shout 0", "shout", False),
    ("set cshout 0", "cshout", False), ("set tell 0", "tell", False),
    ("set chanoff 1", "chanoff", True), ("set pin 1", "pin", True), ("set gin 1", "gin", True),
    ("set availinfo 1", "availinfo", True), ("set level1 5", "level1", 5),
])
def test_client_variables_are_accepted_stored_and_listed(room, line, name, value):
    out = room.alice.command(line)
    # open confirms with FICS's own words
    said = {"open": "You are now open to receive match requests."}
    assert said.get(name, f"{name} set to {int(value)}.") in out
    assert room.alice.session.variables[name] == value
    listed = room.alice.command("variables")
    assert f"{name}={int(value)}" in listed
    assert all(len(l) <= 79 for l in listed.splitlines())


def test_client_variables_refuse_values_out_of_range_in_the_players_language(room):
    assert "give a number from 32 to 240" in room.alice.command("set width 300")
    assert "give a number from 5 to 240" in room.alice.command("set height 2")
    assert 'Bad value "maybe" for open' in room.alice.command("set open maybe")
    room.alice.command("set lang fr")
    assert "donnez un nombre de 32 à 240" in room.alice.command("set width x")
    assert "width" not in room.alice.session.variables
    assert "seek vaut maintenant 0." in room.alice.command("set seek")  # a toggle from 1
    assert room.alice.session.variables["seek"] is False


def test_set_prompt_changes_the_prompt_and_set_prompt_alone_restores_it(room):
    room.alice.output()
    room.alice.send("set prompt ready>")
    out = room.alice.output()
    assert out.endswith("ready> ") and 'prompt set to "ready> ".' in out
    room.bob.command("match alice 5 0")
    assert room.alice.output().endswith("ready> ")  # asynchronous messages too
    room.alice.send("set prompt")
    assert room.alice.output().endswith("fics% ")
    assert 'Prompt: "fics% "' in room.alice.command("variables")


def test_online_for_in_words():
    from ficsfen.server.commands.info import online_for

    assert online_for(0).render() == "0 secs"
    assert online_for(61).render() == "1 min 1 sec"
    assert online_for(3725).render() == "1 hr 2 mins"
    assert online_for(90061).render("fr") == "1 jour 1 h"
