"""``who`` and ``games`` with FICS's option letters, as pychess's helper connection asks.

pychess 1.0.3 opens a second connection and sends ``who IbslwBzSLx`` and
``games /bslwBzSLx``; its game list is built from the ``games`` reply alone.
The patterns below are pychess 1.0.3's (``pychess/ic/managers/HelperManager.py``
and ``pychess/ic/__init__.py``), copied as facts: they are what the replies
must match.  pychess's own classes read the same bytes in
``tools/clients/pychess_check.py`` (not run here: CI has no pychess).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.server.block import BAD_PARAMS
from ficsfen.server.testing import ServerProcess, TelnetClient, connect, make_server
from ficsfen.server.wholist import (WhoCache, WhoOptionsError, parse_games_flags,
                                    parse_who_options)

# -- pychess 1.0.3's patterns -----------------------------------------------------

# GAME_TYPES_BY_SHORT_FICS_NAME's keys: the category letters it knows.
SHORT_TYPES = "w|b|s|l|o|M|f|F|J|K|u|e|n|w20|w21|x|B|z|L|S"
RATINGS = r"([\d\+\- ]{1,4})"
PYCHESS_GAME = re.compile(
    r"(\d+) %s (\w+)\s+%s (\w+)\s+\[(p| )(%s)(u|r)\s*(\d+)\s+(\d+)\]\s*(\d:)?(\d+):(\d+)\s*-\s*"
    r"(\d:)?(\d+):(\d+) \(\s*(\d+)-\s*(\d+)\) (W|B):\s*(\d+)" % (RATINGS, RATINGS, SHORT_TYPES),
    re.IGNORECASE)
PYCHESS_GAMES_END = re.compile(r"(\d+) games displayed.", re.IGNORECASE)
# pychess 1.0.3 writes the title group as r"(\\d{2})", a literal backslash that no
# FICS line has; its earlier releases had (\d{2}), two digits, as used here.
PYCHESS_WHO_I = re.compile(r"([A-Za-z]+)([\^~:\#. &])(\d{2})" + r"(\d{1,4})([P E])" * 8
                           + r"(\d{1,4})([PE]?)", re.IGNORECASE)
PYCHESS_WHO_END = re.compile(r"(\d+) Players Displayed.", re.IGNORECASE)
PYCHESS_WA = re.compile("<wa> " + PYCHESS_WHO_I.pattern, re.IGNORECASE)
# pychess's STATUS table: the status marks it knows.
PYCHESS_STATUS = {"^", " ", ".", "#", ":", "~", "&"}


def from_to(lines: list[str], first: re.Pattern, last: re.Pattern) -> list[str] | None:
    """pychess's FromToPrediction: a line matching ``first``, every line up to one matching ``last``.

    None when no line starts it or the list never ends (pychess then waits forever).
    """
    for i, line in enumerate(lines):
        if first.match(line):
            for j in range(i + 1, len(lines)):
                if last.match(lines[j]):
                    return lines[i:j + 1]
            return None
    return None


def game_row(line: str) -> tuple[str, ...]:
    """A listed game as pychess's on_game_list reads a line that is not the first."""
    head, tail = line.split("[")
    number, wrating, white, brating, black = head.split()
    return number, white, black, tail[1], tail[2], tail[3:6].strip(), tail[7:10].strip()


# -- in process ------------------------------------------------------------------------


class Lobby:
    """alice plays bob (blitz 3 0), dave examines, carol and erin watch."""

    def __init__(self) -> None:
        self.server = make_server()
        self.alice, self.bob, self.carol, self.dave, self.erin = (
            connect(self.server) for _ in range(5))
        for client, name in ((self.alice, "alice"), (self.bob, "bob"), (self.carol, "carol"),
                             (self.dave, "dave"), (self.erin, "erin")):
            client.login(name)
        self.alice.command("match bob 3 0 white")
        self.bob.command("accept")
        self.alice.command("e4")
        self.dave.command("examine")


@pytest.fixture
def lobby() -> Lobby:
    return Lobby()


def test_who_i_has_one_line_per_player_in_pychess_layout(lobby):
    out = lobby.carol.command("who IbslwBzSLx").splitlines()
    rows = [PYCHESS_WHO_I.fullmatch(line) for line in out if PYCHESS_WHO_I.fullmatch(line)]
    seen = {m.group(1): (m.group(2), m.group(3)) for m in rows}
    assert seen == {"alice": ("^", "01"), "bob": ("^", "01"), "carol": (" ", "01"),
                    "dave": ("#", "01"), "erin": (" ", "01")}
    assert all(m.group(2) in PYCHESS_STATUS for m in rows)
    # pychess's on_player_connectI reads 9 rating and deviation pairs, bslwBzSLx.
    assert all(len(m.groups()) == 21 and m.group(4) == "0" and m.group(5) == "P" for m in rows)
    assert PYCHESS_WHO_END.match(out[-1].strip())
    assert from_to([line.strip() for line in out], PYCHESS_WHO_I, PYCHESS_WHO_END) is not None


def test_who_i_columns_follow_the_letters(lobby):
    assert "carol 010P\n" in lobby.carol.command("who I")           # blitz alone
    assert "carol 010P0P\n" in lobby.carol.command("who Isb")
    assert "carol 010P\n" in lobby.carol.command("who I b b")       # blanks, repeats


def test_registered_players_are_marked_and_listed_first(lobby):
    # What a password login sets (the login itself is tested in test_login_timeseal).
    lobby.server.sessions.get("erin").registered = True
    out = lobby.carol.command("who")
    assert out.index("---- erin") < out.index("++++^alice(U)")
    assert "erin 000P\n" in lobby.carol.command("who I")
    assert "alice^010P\n" in lobby.carol.command("who I")
    assert "---- erin" in lobby.carol.command("who R")


def test_who_filters(lobby):
    lobby.erin.command("set open 0")
    names = lambda text: re.findall(r"^(?:\+\+\+\+|----|     ).(\w+)", text, re.M)  # noqa: E731
    assert names(lobby.carol.command("who f")) == ["carol", "erin"]
    assert names(lobby.carol.command("who a")) == ["carol"]
    assert names(lobby.carol.command("who o")) == ["alice", "bob", "carol", "dave"]
    assert "++++:erin(U)" in lobby.carol.command("who")
    assert names(lobby.carol.command("who U")) == ["alice", "bob", "carol", "dave", "erin"]
    for nobody in ("R", "r", "B"):
        assert (lobby.carol.command(f"who {nobody}")
                == "No logged in players match the flags in your who request.\n")
    assert "     carol(U)\n" in lobby.carol.command("who l")


def test_who_parts_of_the_list(lobby):
    def shown(option: str) -> list[str]:
        return re.findall(r"^\S{4}.(\w+)", lobby.carol.command(f"who {option}"), re.M)

    assert shown("1") + shown("2") + shown("3") == ["alice", "bob", "carol", "dave", "erin"]
    assert shown("55") == ["erin"] and shown("15") == ["alice"] and shown("19") == []
    assert "1 players displayed (of 5)." in lobby.carol.command("who 1")


@pytest.mark.parametrize("options", ["q", "x", "Ibq", "4", "40", "98", "tI", "!"])
def test_who_unknown_letters_are_a_usage_error(lobby, options):
    assert lobby.carol.command(f"who {options}").startswith("Usage: who [o][r]")


def test_who_usage_error_is_block_code_513(lobby):
    lobby.carol.command("iset block 1")
    out = lobby.carol.command("7 who Q")
    assert out.startswith(f"\x157\x16{BAD_PARAMS}\x16Usage: who")


def test_who_v_is_refused_with_a_reason(lobby):
    assert "not available here" in lobby.carol.command("who v")
    lobby.carol.command("set language fr")
    assert "n’existent pas ici" in lobby.carol.command("who n")


def test_who_trailer_stays_english_for_a_french_interface(lobby):
    lobby.carol.command("set interface pychess")
    lobby.carol.command("set language fr")
    out = lobby.carol.command("who IbslwBzSLx")
    assert " 5 players displayed (of 5). (*) indicates system administrator." in out


def test_who_trailer_in_french_for_a_person(lobby):
    lobby.carol.command("set language fr")
    out = lobby.carol.command("who IbslwBzSLx")
    assert out.endswith("\n 5 joueurs affichés (sur 5). (*) signale un administrateur.\n")


def test_pin_arrival_is_the_who_i_line(lobby):
    lobby.carol.command("iset pin 1")
    lobby.carol.output()
    frank = connect(lobby.server)
    frank.login("frank")
    [line] = [l for l in lobby.carol.output().splitlines() if l.startswith("<wa>")]
    assert PYCHESS_WA.fullmatch(line) and line == "<wa> " + next(
        l for l in lobby.carol.command("who IbslwBzSLx").splitlines() if l.startswith("frank"))


def _status_of(lobby: Lobby, handle: str) -> str | None:
    """``handle``'s mark in carol's ``who`` (None: not listed)."""
    found = re.search(rf"^(?:\+\+\+\+|----)(.){handle}\(U\)$", lobby.carol.command("who"), re.M)
    return found.group(1) if found else None


#: What changes the listing, and how each change shows in it.
_LISTING_CHANGES = {
    "login": (lambda lobby: setattr(lobby, "frank", connect(lobby.server)) or lobby.frank.login("frank"),
              lambda lobby: _status_of(lobby, "frank") == " "),
    "logout": (lambda lobby: lobby.erin.command("quit"),
               lambda lobby: _status_of(lobby, "erin") is None),
    "game end": (lambda lobby: lobby.bob.command("resign"),
                 lambda lobby: _status_of(lobby, "alice") == " "),
    "game start": (lambda lobby: (lobby.carol.command("match erin 5 0"), lobby.erin.command("accept")),
                   lambda lobby: _status_of(lobby, "erin") == "^"),
    "unexamine": (lambda lobby: lobby.dave.command("unexamine"),
                  lambda lobby: _status_of(lobby, "dave") == " "),
    "examine": (lambda lobby: lobby.erin.command("examine"),
                lambda lobby: _status_of(lobby, "erin") == "#"),
    "open": (lambda lobby: lobby.erin.command("set open 0"),
             lambda lobby: _status_of(lobby, "erin") == ":"),
}


@pytest.mark.parametrize("change", list(_LISTING_CHANGES))
def test_who_is_rendered_again_after_each_change(lobby, change):
    make, shows = _LISTING_CHANGES[change]
    cache = lobby.server.who_cache
    lobby.carol.command("who")
    before = cache.renders
    make(lobby)
    assert shows(lobby) and cache.renders == before + 1


def test_who_twice_without_change_is_rendered_once(lobby):
    cache = lobby.server.who_cache
    first = lobby.carol.command("who IbslwBzSLx")
    renders = cache.renders
    lobby.carol.command("set interface pychess")
    lobby.carol.command("set language fr")  # an interface: the English answer
    assert lobby.carol.command("who IbslwBzSLx") == first
    assert lobby.alice.command("who IbslwBzSLx") == first
    assert cache.renders == renders
    lobby.carol.command("who")  # another request: rendered on its own
    assert cache.renders == renders + 1


def test_who_cache_keeps_few_requests():
    cache = WhoCache(lambda: 0, size=2)
    rendered = []
    render = lambda request: rendered.append(request) or str(request)  # noqa: E731
    for letters in ("", "o", "", "f", ""):
        cache.answer(parse_who_options(letters), render)
    # "" stays while it is used; "o" is dropped when "f" comes, the cache holding two.
    assert [r.filters for r in rendered] == [frozenset(), frozenset("o"), frozenset("f")]
    cache.answer(parse_who_options("o"), render)
    assert len(rendered) == 4


# -- games ---------------------------------------------------------------------------


def test_games_with_pychess_flags_lists_played_games_as_pychess_reads_them(lobby):
    out = lobby.carol.command("games /bslwBzSLx")
    lines = [line.strip() for line in out.splitlines()]
    listing = from_to(lines, PYCHESS_GAME, PYCHESS_GAMES_END)
    assert listing is not None, out
    m = PYCHESS_GAME.match(listing[0])
    assert (m.group(1), m.group(3), m.group(5), m.group(7), m.group(8), m.group(9),
            m.group(10)) == ("1", "alice", "bob", "b", "u", "3", "0")
    assert "Exam." not in out  # no "e" among the flags
    assert out.startswith("\n")  # FICS's blank first line (see the loopback test)


def test_games_trailer_says_games_even_for_one(lobby):
    out = lobby.carol.command("games /b")
    assert out.endswith("\n  1 games displayed (of 2 in progress).\n")
    lobby.dave.command("unexamine")
    assert lobby.carol.command("games").endswith("\n  1 games displayed.\n")


def test_games_lines_after_the_first_split_as_pychess_splits_them(lobby):
    frank = connect(lobby.server)
    frank.login("frank")
    lobby.erin.command("match frank 15 5 white")
    frank.command("accept")
    lines = [line.strip() for line in lobby.carol.command("games /bslwBzSLx").splitlines()]
    listing = from_to(lines, PYCHESS_GAME, PYCHESS_GAMES_END)
    assert [game_row(line) for line in listing[1:-1] if line] == [
        ("3", "erin", "frank", "s", "u", "15", "5")]


def test_games_flags_select_categories(lobby):
    assert "alice" in lobby.carol.command("games /b") and "alice" not in lobby.carol.command("games /s")
    exam = lobby.carol.command("games /e")
    assert "(Exam." in exam and "alice" not in exam
    both = lobby.carol.command("games -eb")
    assert both.index("(Exam.") < both.index("alice")  # examined games first, as on FICS
    assert "2 games displayed." in both
    assert (lobby.carol.command("games /xzBLSw")
            == "No matching games were found (of 2 in progress).\n")
    assert "alice" in lobby.carol.command("games /b al") and "There is no game 9" in \
        lobby.carol.command("games /b 9")


@pytest.mark.parametrize("args", ["/", "/q", "/b /s", "al bo", "/bq"])
def test_games_bad_flags_are_a_usage_error(lobby, args):
    assert lobby.carol.command(f"games {args}").startswith("Usage: games [/bslueBzSLwx]")
    lobby.carol.command("iset block 1")
    assert lobby.carol.command(f"4 games {args}").startswith(f"\x154\x16{BAD_PARAMS}\x16")


def test_plain_games_lists_examined_first(lobby):
    out = lobby.carol.command("games")
    assert out.index("(Exam.    0 dave") < out.index("1 ++++ alice")


# -- variables pychess sets ----------------------------------------------------------------


def test_pychess_variables_are_accepted_and_listed(lobby):
    assert lobby.carol.command("set unobserve 3") == "unobserve set to 3.\n"
    assert lobby.carol.command("set autoflag 1") == "autoflag set to 1.\n"
    assert lobby.carol.command("set autoflag") == "autoflag set to 0.\n"  # toggles
    shown = lobby.carol.command("variables")
    assert "autoflag=0" in shown and "unobserve=3" in shown
    assert "autoflag=0" in lobby.erin.command("variables carol")
    assert "from 0 to 3" in lobby.carol.command("set unobserve 4")
    lobby.carol.command("set language fr")
    assert "de 0 à 3" in lobby.carol.command("set unobserve 9")


def test_defaults_say_what_the_server_does(lobby):
    shown = lobby.erin.command("variables")
    assert "autoflag=1" in shown and "unobserve=3" in shown


def test_observing_survives_starting_a_game_whatever_unobserve_says(lobby):
    lobby.carol.command("observe 1")
    lobby.carol.command("set unobserve 1")
    lobby.carol.command("match erin 5 0")
    lobby.erin.command("accept")
    directory = lobby.server.directory
    assert directory.game_of("carol") is not None
    assert "carol" in directory.observers(directory.game_of("alice"))


# -- parsers never crash ---------------------------------------------------------------------


def test_who_part_digits_are_ascii_only():
    # "¹" is a digit to str.isdigit but not to int(): the part "1" then a bad letter.
    with pytest.raises(WhoOptionsError):
        parse_who_options("1\u00b9")


@given(st.text(max_size=30))
def test_who_options_parser_takes_any_text(text):
    try:
        options = parse_who_options(text)
    except WhoOptionsError:
        return
    assert options.layout in "tvnI" and options.columns


@given(st.text(max_size=20))
def test_games_flags_parser_takes_any_text(text):
    try:
        assert parse_games_flags("/" + text) <= frozenset("bslueBzSLwx")
    except WhoOptionsError:
        pass


# -- over a real connection: pychess's helper bytes -------------------------------------------


def pychess_lines(client: TelnetClient, last_id: int) -> list[tuple[int | None, str]]:
    """Lines as pychess's TelnetLines yields them, up to the end of frame ``last_id``.

    Each raw line is stripped and loses a leading "fics% "; a frame's first
    line is the text after its second separator, *not* stripped again.
    """
    out: list[tuple[int | None, str]] = []
    while True:
        line = client.read_until("\n").strip()
        if line.startswith("fics%"):
            line = line[len("fics%") + 1:]
        if not line.startswith("\x15"):
            out.append((None, line))
            continue
        ident, code, text = line[1:].split("\x16", 2)
        if not text:
            text = client.read_until("\n").strip()
        while not text.endswith("\x17"):
            out.append((int(code), text))
            text = client.read_until("\n").strip()
        out.append((int(code), text[:-1]))
        if int(ident) == last_id:
            return out


@pytest.mark.slow
def test_pychess_helper_connection_reads_the_game_list():
    with ServerProcess() as server:
        with server.connect() as w, server.connect() as b, server.connect() as helper:
            white, black = w.login(), b.login()
            w.command(f"match {black} 3 0 white")
            b.read_until("Challenge:")
            b.command("accept")
            w.command("e4")
            helper.login()
            # pychess 1.0.3's helper connection, byte for byte.
            helper.send_bytes(b"iset block 1\n")
            helper.read_until("block set.\r\n")
            helper.send_bytes(b"14 who IbslwBzSLx\n15 games /bslwBzSLx\n")
            lines = pychess_lines(helper, 15)
    who = [text for code, text in lines if code == 146]
    games = [text for code, text in lines if code == 43]
    assert from_to(who, PYCHESS_WHO_I, PYCHESS_WHO_END) is not None
    # pychess skips empty lines before trying its patterns on the rest.
    listing = from_to([g for g in games if g] + [""], PYCHESS_GAME, PYCHESS_GAMES_END)
    assert listing is not None, games
    m = PYCHESS_GAME.match(listing[0])
    assert (m.group(3), m.group(5), m.group(7)) == (white, black, "b")
    # FICS's blank first line: pychess reads the game line as the next, stripped, line.
    assert games[0] == listing[0] and games[0].startswith("1 ")
