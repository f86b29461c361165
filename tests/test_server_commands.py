"""The server's commands (fen, help, examine, who, games...), driven in-process through the telnet protocol."""

from __future__ import annotations

import re

import pytest

from ficsfen.server.boards import fen_from_style12
from ficsfen.helpcatalog import lookup
from ficsfen.server.testing import connect, make_server
from ficsfen.tracker import is_move_text

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
AFTER_C5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
AFTER_NF3 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@pytest.fixture
def server():
    return make_server()


def login(server, name=None):
    client = connect(server)
    client.output()
    client.login(name)
    return client


def fen_of(client, args=""):
    """The FEN line printed by `fen`: it stands alone after the header line."""
    lines = client.command(f"fen {args}".strip()).strip("\n").split("\n")
    assert len(lines) == 2, lines
    assert lines[0].startswith(("Game ", "Partie ")), lines
    return lines[1]


# -- fen ---------------------------------------------------------------------------

def test_examine_and_the_standard_example_fens(server):
    a = login(server, "alice")
    assert "Starting a game in examine (scratch) mode." in a.command("examine")
    assert fen_of(a) == START
    for move, expected in (("e4", AFTER_E4), ("c5", AFTER_C5), ("Nf3", AFTER_NF3)):
        a.command(move)
        assert fen_of(a) == expected
    header = a.command("fen").split("\n")[0]
    assert header == "Game 1 (alice vs. alice, examined):"


def test_fen_number_and_handle_from_another_session(server):
    a = login(server, "alice")
    b = login(server, "bob")
    a.command("examine")
    for move in ("e2e4", "c7c5"):
        a.command(move)
    assert fen_of(b, "1") == AFTER_C5
    assert fen_of(b, "alice") == AFTER_C5
    assert fen_of(b, "ALI") == AFTER_C5  # unique prefix, any case


@pytest.mark.parametrize("lang, args, expected", [
    ("en", "", "You are not playing, examining or observing a game."),
    ("fr", "", "Vous ne jouez, n’examinez ni n’observez aucune partie."),
    ("en", "42", "There is no game 42."),
    ("fr", "42", "Il n’y a pas de partie 42."),
    ("en", "nobody", 'No player named "nobody" is logged in.'),
    ("en", "no-body", 'No player named "no-body" is logged in.'),
    ("en", "carol", "carol is not playing or examining a game."),
    ("fr", "carol", "carol ne joue ni n’examine aucune partie."),
    ("en", "ca", 'Ambiguous handle "ca". Matches: carl carol'),
    ("en", "1 2", "Usage: fen [shredder] [game number | handle]"),
])
def test_fen_errors(server, lang, args, expected):
    login(server, "carol")
    login(server, "carl")
    b = login(server, "bob")
    b.command(f"set lang {lang}")
    assert b.command(f"fen {args}".strip()).strip() == expected


def test_fen_of_an_observed_game(server):
    a = login(server, "alice")
    b = login(server, "bob")
    a.command("examine")
    a.command("d4")
    server.directory.observe("bob", server.directory.by_number(1))
    assert fen_of(b) == "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1"


def test_observer_gets_the_board_asynchronously_with_a_prompt(server):
    a = login(server, "alice")
    b = login(server, "bob")
    a.command("examine")
    server.directory.observe("bob", server.directory.by_number(1))
    b.command("set style 12")
    b.command("set showfen on")
    a.command("e4")
    text = b.output()
    assert text.startswith("\nGame 1: alice moves: e4\n<12> ")
    lines = text.split("\n")
    assert fen_from_style12(lines[2]) == AFTER_E4
    assert lines[3] == AFTER_E4
    assert text.endswith("fics% ")


# -- moves, forward, backward, revert ---------------------------------------------

def test_bad_moves_change_nothing(server):
    a = login(server)
    assert "You are not playing or examining a game." in a.command("e4")
    a.command("examine")
    a.command("e4")
    for bad in ("e5e4", "Ke2", "Nc3x", "e9"):
        text = a.command(bad)
        assert text.strip(), bad
        assert fen_of(a) == AFTER_E4
    a.command("set lang fr")
    text = a.command("Qh5")
    assert fen_of(a) == AFTER_E4
    assert text.strip() and "Game" not in text


def test_annotated_moves_reach_the_game(server):
    a = login(server)
    a.command("examine")
    for move in ("e4!?", "c5?!", "Nf3!!"):
        assert "Command not found" not in a.command(move), move
    assert fen_of(a) == AFTER_NF3


@pytest.mark.parametrize("word", ["Nxe4??!!", "Nxe4?!", "e4+!?", "O-O-O#?", "e7e8=Q!", "g1-f3", "xyzzy", "Z9"])
def test_a_word_goes_to_the_game_exactly_when_the_tracker_reads_it_as_a_move(server, word):
    # The server and the tracker share one grammar (tracker.is_move_text):
    # a move the tracker would read never comes back as "Command not found".
    a = login(server)
    a.command("examine")
    text = a.command(word)
    assert ("Command not found" in text) == (not is_move_text(word)), text


def test_forward_backward_revert(server):
    a = login(server)
    a.command("examine")
    assert "You're at the end of the game." in a.command("forward")
    assert "You're at the beginning of the game." in a.command("backward")
    for move in ("e4", "c5", "Nf3"):
        a.command(move)
    assert "backs up 2 moves" in a.command("backward 2")
    assert fen_of(a) == AFTER_E4
    assert "goes forward 1 move." in a.command("forward")
    assert fen_of(a) == AFTER_C5
    a.command("revert")
    assert fen_of(a) == START
    a.command("forward 9")
    assert fen_of(a) == AFTER_NF3
    a.command("backward 1")
    a.command("d4")  # a new move drops the rest of the line
    assert "You're at the end of the game." in a.command("forward")
    assert "Usage: backward [count]" in a.command("backward 0")
    assert "Usage: forward [count]" in a.command("forward x")
    assert "Usage: forward [count]" in a.command("forward --1")


def test_moves_lists_the_game(server):
    a = login(server, "alice")
    a.command("examine")
    for move in ("e4", "c5", "Nf3"):
        a.command(move)
    text = a.command("moves")
    assert "Movelist for game 1:" in text
    assert "  1.  e4      (0:00)          c5      (0:00)" in text
    assert "  2.  Nf3     (0:00)" in text
    assert "{Still in progress} *" in text


def test_refresh_in_both_styles(server):
    a = login(server, "alice")
    assert "You are not playing" in a.command("refresh")
    a.command("examine")
    a.command("e4")
    assert "| P |" in a.command("re")
    a.command("style 12")
    line = a.command("refresh").strip()
    assert fen_from_style12(line) == AFTER_E4


def test_unexamine_and_games(server):
    a = login(server, "alice")
    b = login(server, "bob")
    assert "There are no games in progress." in a.command("games")
    a.command("examine")
    b.command("examine")
    text = a.command("games")
    assert "  1 (Exam." in text and "  2 (Exam." in text and "2 games displayed." in text
    assert "You are no longer examining game 1." in a.command("unexamine")
    assert "You are not examining a game." in a.command("unexamine")
    assert "1 games displayed." in b.command("games")
    assert "Game 1 (alice" in a.command("examine")  # the number is reused


# -- bsetup -------------------------------------------------------------------------

def test_bsetup_fen_round_trip(server):
    a = login(server)
    a.command("examine")
    record = "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"
    assert f"Setup position: {record}" in a.command(f"bsetup fen {record}")
    assert "set up a position" in a.command("bsetup done")
    assert fen_of(a) == record
    a.command("e4")
    assert fen_of(a) == "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 39"


def test_bsetup_placement_alone_and_field_commands(server):
    a = login(server)
    a.command("examine")
    a.command("bsetup")
    a.command("bsetup fen r3k2r/8/8/3pP3/8/8/8/R3K2R")
    a.command("bsetup tomove white")
    a.command("bsetup wcastle both")
    a.command("bsetup bcastle kside")
    a.command("bsetup eppos d")
    a.command("bsetup done")
    assert fen_of(a) == "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQk d6 0 1"
    a.command("bsetup clear")
    a.command("bsetup start")
    a.command("bsetup done")
    assert fen_of(a) == START


def test_bsetup_placement_alone_drops_castling_rights_the_board_no_longer_allows(server):
    a = login(server)
    a.command("examine")
    a.command("bsetup start")
    assert "Setup position: 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1" in a.command("bsetup fen 4k3/8/8/8/8/8/4P3/4K3")
    assert "set up a position" in a.command("bsetup done")
    assert fen_of(a) == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    a.command("bsetup start")
    # White's king and h1 rook and Black's king and a8 rook are home: K and q stay
    assert "Setup position: r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1" in a.command("bsetup fen r3k3/8/8/8/8/8/8/4K2R")
    # a right once dropped does not come back by itself
    assert "Setup position: r3k3/8/8/8/8/8/8/R3K2R w Kq - 0 1" in a.command("bsetup fen r3k3/8/8/8/8/8/8/R3K2R")
    a.command("bsetup done")
    assert fen_of(a) == "r3k3/8/8/8/8/8/8/R3K2R w Kq - 0 1"


@pytest.mark.parametrize("lang, record, expected", [
    ("en", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1", "field 3 (castling)"),
    ("fr", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1", "champ 3 (roques)"),
    ("en", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "6"),
    ("en", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR", "field 1 (placement)"),
])
def test_bsetup_bad_fen_gets_the_codec_error_and_changes_nothing(server, lang, record, expected):
    a = login(server)
    a.command("examine")
    a.command("e4")
    a.command(f"set lang {lang}")
    assert expected in a.command(f"bsetup fen {record}")
    assert server.directory.by_number(1).setup is None
    assert fen_of(a) == AFTER_E4


def test_bsetup_done_refuses_an_invalid_position(server):
    a = login(server)
    a.command("examine")
    a.command("bsetup clear")
    text = a.command("bsetup done")
    assert "field 1 (placement)" in text and "still in setup mode" in text
    assert "You are setting up a position" in a.command("e4")
    assert "Usage: bsetup" in a.command("bsetup tomove green")
    assert "Usage: bsetup" in a.command("bsetup frobnicate")
    a.command("bsetup start")
    a.command("bsetup done")
    assert fen_of(a) == START


def test_bsetup_needs_an_examined_game(server):
    a = login(server)
    assert "You are not examining a game." in a.command("bsetup fen 8/8/8/8/8/8/8/8")


# -- settings --------------------------------------------------------------------

@pytest.mark.parametrize("word, expected", [
    ("fr", "Langue\u202f: Français."), ("FR", "Langue\u202f: Français."), ("French", "Langue\u202f: Français."),
    ("français", "Langue\u202f: Français."), ("Fran", "Langue\u202f: Français."),
    ("English", "Language set to English."), ("en", "Language set to English."),
    ("eng", "Language set to English."),
])
def test_set_language_confirms_in_the_new_language(server, word, expected):
    a = login(server)
    a.command("set lang fr" if expected.startswith("Language") else "set lang en")
    assert a.command(f"set language {word}").strip() == expected


def test_set_errors_and_prefixes(server):
    a = login(server)
    assert 'Unknown language "klingon"' in a.command("set lang klingon")
    assert 'Ambiguous variable "s". Matches: seek shout showfen style' in a.command("set s 1")
    assert 'No such variable "colour".' in a.command("set colour red")
    assert "Usage: set variable [value]" in a.command("set")
    assert "Style 12 set." in a.command("set st 12")
    assert "Style 3 is not supported" in a.command("set style 3")
    assert "now see the FEN" in a.command("set showf on")
    assert "no longer see the FEN" in a.command("set showfen")  # toggles
    assert "Usage: set language" in a.command("set language")
    assert 'Bad value "maybe"' in a.command("set showfen maybe")
    assert "Output charset set to latin1." in a.command("set charset lat")


def test_variables_shows_own_and_others(server):
    a = login(server, "alice")
    b = login(server, "bob")
    b.command("set style 12")
    assert "style=1" in a.command("variables")
    text = a.command("variables bob")
    assert "Variable settings of bob:" in text and "style=12" in text and "language=English" in text
    assert 'No player named "zed"' in a.command("variables zed")
    # "ſ" folds to "s": a non-ASCII word names nobody, it never reaches a handle by folding
    login(server, "sam")
    assert 'No player named "ſ"' in a.command("variables ſ")
    assert "Variable settings of sam:" in a.command("variables SA")


def test_value_spellings_of_one_value_are_not_ambiguous(server):
    a = login(server)
    assert "Output charset set to utf8." in a.command("set charset utf")  # utf8 and utf-8
    assert 'Bad value "o" for showfen' in a.command("set showfen o")  # on and off


# -- help ----------------------------------------------------------------------------

def test_help_fen_in_both_languages_and_abbreviated(server):
    a = login(server)
    english = a.command("help fen")
    assert "Forsyth" in english
    assert a.command("he fen") == english
    a.command("set lang fr")
    french = a.command("help fen")
    assert "Forsyth" in french and french != english


def test_help_paging_with_next(server):
    a = login(make_server(help_page_lines=10))
    first = a.command("help fen")
    assert first.strip().endswith("Type [next] to see the next page.")
    assert len(first.strip().split("\n")) == 11
    pages = [first]
    for _ in range(200):
        page = a.command("next")
        if "There is no more to show." in page:
            break
        pages.append(page)
    text = "".join(p.replace("Type [next] to see the next page.\n", "") for p in pages)
    assert "16.1" in text
    assert "There is no more to show." in a.command("next")


def test_help_index_commands_and_errors(server):
    a = login(server)
    assert "fen" in a.command("help")
    text = a.command("help commands")
    assert "bsetup" in text and "unexamine" in text
    assert 'No help available on "zzz".' in a.command("help zzz")
    assert "Ambiguous help topic" in a.command("help s")
    assert 'No help available on "../etc/passwd"' in a.command("help ../etc/passwd")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_help_on_an_alias_shows_its_command_page(server, lang):
    a = login(server)
    a.command(f"set lang {lang}")
    quit_page = a.command("help quit")
    assert quit_page.startswith("quit\n") and ("USAGE" in quit_page or "UTILISATION" in quit_page)
    assert a.command("help bye") == quit_page
    assert a.command("help exit") == quit_page
    assert a.command("help BYE") == quit_page
    assert a.command("help re") == a.command("help refresh")
    assert a.connected  # "help bye" shows a page, it does not log out


def test_who_lists_everyone(server):
    login(server, "alice")
    b = login(server, "bob")
    text = b.command("who")
    assert "++++ alice(U)" in text and "++++ bob(U)" in text
    assert "2 players displayed (of 2)." in text


def test_unknown_and_ambiguous_commands(server):
    a = login(server)
    assert a.command("xyzzy").strip() == "xyzzy: Command not found."
    assert "Matches: unalias unexamine unobserve unseek" in a.command("un")
    a.command("set lang fr")
    assert a.command("xyzzy").strip() == "xyzzy\u202f: commande introuvable."


def test_bsetup_eppos_takes_a_square_and_follows_the_side_to_move(server):
    a = login(server)
    a.command("examine")
    a.command("bsetup fen 4k3/8/8/8/4P3/8/8/4K3 w - - 0 1")
    assert "Setup position: 4k3/8/8/8/4P3/8/8/4K3 w - e6 0 1" in a.command("bsetup eppos e")
    # the target moves to rank 3 when Black gets the move (the pawn on e4 made it)
    assert "Setup position: 4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1" in a.command("bsetup tomove black")
    a.command("bsetup eppos none")
    assert "Setup position: 4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1" in a.command("bsetup eppos e3")
    a.command("bsetup done")
    assert fen_of(a) == "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"
    assert "Usage: bsetup" in a.command("bsetup eppos e4")


def test_the_set_page_examples_really_work(server):
    """Every "set ..." example quoted on the set page (both languages) is accepted."""
    a = login(server)
    for lang in ("en", "fr"):
        examples = re.findall(r'[«"]\s*(set [^»"]+?)\s*[»"]', lookup("set", lang).text)
        assert examples, lang
        for example in examples:
            out = a.command(example)
            assert "Ambiguous" not in out and "Usage" not in out and "No such" not in out, (example, out)
            a.command("set lang en")  # the next example is judged in English


def test_every_charset_spelling_names_a_charset_the_session_knows():
    from ficsfen.server.commands.settings import _CHARSET_WORDS
    from ficsfen.server.session import CHARSETS

    assert set(_CHARSET_WORDS.values()) == set(CHARSETS)
