"""Everyday FICS commands, in-process through the telnet protocol, exact bytes:
follow, primary, moretime, ping, it, uptime, limits, finger notes, set tzone,
set private, set open and help register."""

from __future__ import annotations

import chess
import pytest

from ficsfen.server import block
from ficsfen.server.config import hash_password
from ficsfen.server.testing import connect, make_server

PASSWORD = "s3cret"
HASH = hash_password(PASSWORD, iterations=1000)


@pytest.fixture
def server():
    # no idle timeout: tests move the clock by days
    return make_server(accounts={"alice": HASH, "bob": HASH, "carol": HASH}, idle_timeout=0)


def registered(server, name):
    client = connect(server)
    client.login(name, PASSWORD)
    client.output()
    return client


def guest(server):
    client = connect(server)
    client.login()
    return client


def start_game(white, black, minutes=5):
    white.command(f"match {black.handle} {minutes} 0 white")
    black.command("accept")
    white.output()
    black.output()


# -- follow ----------------------------------------------------------------------------------


def test_a_follower_observes_each_game_the_player_starts(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    carol.command("set style 12")
    assert carol.command("follow ali") == "You will now be following alice's games.\n"
    start_game(alice, bob)
    out = carol.raw_output()
    head = (b"\r\nalice, whom you are following, has started a game with bob.\r\n"
            b"You are now observing game 1.\r\n"
            b"Game 1: alice (----) bob (----) unrated blitz 5 0\r\n\r\n<12> ")
    assert out.startswith(head), out
    assert out.endswith(b"\r\nfics% ") and out.count(b"<12> ") == 1
    assert server.directory.observed_games("carol")[0].number == 1
    # the players' moves reach the follower as any observer's
    alice.command("e4")
    assert b"<12> " in carol.raw_output()


def test_follow_answers_and_refusals(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    assert carol.command("follow") == "You are not following any player's games.\n"
    assert carol.command("follow carol") == "You can't follow your own games.\n"
    assert carol.command("follow nobody") == "No player named \"nobody\" is logged in.\n"
    carol.command("follow alice")
    assert carol.command("follow alice") == "You are already following alice's games.\n"
    assert carol.command("follow bob") == ("You will no longer be following alice's games.\n"
                                           "You will now be following bob's games.\n")
    assert carol.command("follow") == "You will not follow any player's games.\n"
    assert server.following.following("carol") is None
    start_game(alice, bob)
    assert carol.raw_output() == b""  # following nobody: nothing observed


def test_following_a_player_in_a_game_observes_it_at_once(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    start_game(alice, bob)
    out = carol.command("follow bob")
    assert out.startswith("You will now be following bob's games.\n"
                          "You are now observing game 1.\n"
                          "Game 1: alice (----) bob (----) unrated blitz 5 0\n\n"
                          "Game 1 (alice vs. bob)\n"), out


def test_following_ends_when_either_logs_out(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    carol.command("follow alice")
    alice.send("quit")
    assert server.following.following("carol") is None
    bob.command("follow carol")
    carol.send("quit")
    assert server.following.following("bob") is None
    assert server.following.followers("carol") == []


def test_a_guest_follows_and_is_followed(server):
    one, two, three = guest(server), guest(server), guest(server)
    three.command(f"follow {one.handle}")
    start_game(two, one)
    assert three.raw_output().startswith(
        f"\r\n{one.handle}, whom you are following, has started a game with {two.handle}.\r\n"
        .encode())


# -- private games ------------------------------------------------------------------------------


def test_private_games_are_marked_and_cannot_be_observed_or_followed(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    assert alice.command("set private 1") == "Your games will be private.\n"
    carol.command("follow bob")
    start_game(alice, bob)
    assert carol.raw_output() == b""
    assert carol.command("observe 1") == "Sorry, game 1 is a private game.\n"
    assert carol.command("games").startswith(
        "\n  1 ---- alice       ---- bob        [pbu  5   0]   5:00 -  5:00 (39-39) W:  1\n")
    assert alice.command("set private 0") == "Your games may not be private.\n"


def test_gameinfo_line_says_p_1_for_a_private_game(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    carol.command("iset gameinfo 1")
    alice.command("set private")  # toggles it on
    start_game(alice, bob)
    game = server.directory.by_number(1)
    assert game.private
    from ficsfen.server.boards import game_info_line
    assert game_info_line(game, registered=(True, True), timeseal=(False, False),
                          ratings=("0P", "0P")).startswith(
        "<g1> 1 p=1 t=blitz r=0 ")


# -- primary -----------------------------------------------------------------------------------


def test_primary_chooses_the_observed_game_commands_use(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    one, two, watcher = guest(server), guest(server), guest(server)
    assert watcher.command("primary") == "You are not observing any games.\n"
    start_game(alice, bob)
    start_game(one, two)
    watcher.command("observe 1")
    watcher.command("observe 2")
    assert watcher.command("primary") == "Your primary game is game 2.\n"
    assert watcher.command("primary 2") == "Game 2 is already your primary game.\n"
    assert watcher.command("primary alice") == "Game 1 is now your primary game.\n"
    assert watcher.command("primary") == "Your primary game is game 1.\n"
    assert watcher.command("moves").startswith("Movelist for game 1:\n")
    assert watcher.command("primary 3") == "There is no game 3.\n"
    other = guest(server)
    other.command("observe 1")
    assert other.command("primary 2") == "You are not observing game 2.\n"
    assert watcher.command("primary x y") == "Usage: primary [GAME-NUMBER|HANDLE]\n"


# -- moretime ----------------------------------------------------------------------------------


def test_moretime_gives_the_opponent_time(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    start_game(alice, bob)
    game = server.directory.by_number(1)
    assert alice.command("moretime 30") == "30 seconds were added to your opponents clock\n"
    assert bob.raw_output() == b"\r\nYour opponent has added 30 seconds to your clock.\r\nfics% "
    assert game.clock.remaining(chess.BLACK) == 330
    assert game.clock.remaining(chess.WHITE) == 300
    assert bob.command("moretime 900") == ("Moretime has a maximum limit of 600 seconds.\n"
                                           "600 seconds were added to your opponents clock\n")
    assert game.clock.remaining(chess.WHITE) == 900


def test_moretime_on_a_running_clock_moves_its_fall_back(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    start_game(alice, bob, minutes=1)
    alice.command("e4")
    bob.command("e5")  # White's clock runs now
    server.clock.advance(50)
    bob.command("moretime 20")
    server.clock.advance(20)  # 70 s after: without the 20 s White would have flagged
    game = server.directory.by_number(1)
    assert game.result is None and game.clock.remaining(chess.WHITE) == pytest.approx(10)
    server.clock.advance(11)
    assert game.result is not None


def test_moretime_refusals(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    assert alice.command("moretime 10") == "You are not playing a game.\n"
    assert alice.command("moretime 0") == (
        "Moretime requires an integer value greater than zero.\n")
    assert alice.command("moretime ten") == "Usage: moretime SECONDS\n"
    bob.command("examine")
    assert bob.command("moretime 10") == "You cannot use moretime in an examined game.\n"


# -- ping, it --------------------------------------------------------------------------------


def test_ping_reports_the_timeseal_lag(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    assert alice.command("ping") == "Ping time not available; alice is not using timeseal.\n"
    bob.session.timeseal, bob.session.lag_ms = True, 42
    assert alice.command("ping bo") == "Average ping time for bob is 42ms.\n"
    assert alice.command("ping zed") == "No player named \"zed\" is logged in.\n"
    alice.command("set lang fr")
    assert alice.command("ping bob") == "Temps de ping moyen de bob\u202f: 42 ms.\n"
    alice.command("iset nowrap 1")  # an interface now: the line clients read, in English
    assert alice.command("ping bob") == "Average ping time for bob is 42ms.\n"


def test_it_shouts_with_the_handle_first(server):
    alice, bob, carol = (registered(server, n) for n in ("alice", "bob", "carol"))
    carol.command("set shout 0")
    visitor = guest(server)
    assert alice.command("it is happy") == "--> alice is happy\n(it-shouted to 2 players)\n"
    assert bob.raw_output() == b"\r\n--> alice is happy\r\nfics% "
    assert visitor.raw_output() == b"\r\n--> alice is happy\r\nfics% "
    assert carol.raw_output() == b""
    assert visitor.command("it waves") == "Only registered players can use the it command.\n"
    assert alice.command("it") == "Usage: it TEXT\n"


# -- uptime, limits ----------------------------------------------------------------------------


def test_uptime_in_fics_layout(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    server.stats.started_at = 1_700_000_000.0
    alice.command("set tzone UTC")
    start_game(alice, bob)
    bob.send("quit")
    server.clock.advance(90061)
    assert alice.command("uptime") == (
        "Server version : ficsfen 0.1.0\n"
        "The server has been up since Tue Nov 14, 22:13 UTC 2023.\n"
        "Up for 1 day 1 hour 1 minute 1 second.\n"
        "\n"
        "Player limit: 12000\n"
        "\n"
        "There is currently 1 player, with a high of 2 since last restart.\n"
        "There are currently 0 games, with a high of 1 since last restart.\n"
        "1 game has been played since last restart.\n")


def test_limits_lists_the_configuration(server):
    visitor = guest(server)
    assert visitor.command("limits") == (
        "\n"
        "Current hardcoded limits:\n"
        "  Max number of players: 12000\n"
        "  Max number of channels: 256\n"
        "  Max number of channels one can be in: 50\n"
        "  Max number of people on the censor list: 50\n"
        "  Max number of people on the noplay list: 50\n"
        "  Max number of aliases: 30\n"
        "\n"
        "Admin settable limits:\n"
        "  Connections from one address: 50\n"
        "  Logins from one address per minute: 60\n"
        "  Match and game offers per minute: 20\n"
        "  Tells and shouts per minute: 30\n"
        "  Longest tell or shout: 400 characters\n"
        "  Longest command line: 1024 bytes\n"
        "  Adjourned games per player: 10\n")
    small = make_server(list_size=5, max_connections=7)
    assert "  Max number of players: 7\n" in guest(small).command("limits")


# -- finger notes ------------------------------------------------------------------------------


def test_notes_end_the_finger_answer(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    assert alice.command("set 1 Blitz player from Lyon") == "Note 1 set: Blitz player from Lyon\n"
    assert alice.command("set 3 Ask me for a game!") == "Note 3 set: Ask me for a game!\n"
    assert bob.command("finger alice") == (
        "Finger of alice:\n\nOn for: 0 secs\n\nLanguage   : English\nTimeseal   : Off\n"
        "\n 1: Blitz player from Lyon\n 2:\n 3: Ask me for a game!\n")
    assert alice.command("set 3") == "Note 3 unset.\n"
    assert alice.command("set 1 ") == "Note 1 unset.\n"
    assert bob.command("finger alice").endswith("Timeseal   : Off\n")
    assert alice.command("set 11 x") == "No such variable \"11\".\n"
    assert alice.command("set 10 " + "x" * 201) == (
        "That note is too long: at most 200 characters.\n")


def test_a_guests_notes_last_the_session(server):
    visitor = guest(server)
    visitor.command("set 2 just visiting")
    assert visitor.command("finger").endswith("Timeseal   : Off\n\n 1:\n 2: just visiting\n")


# -- set tzone ---------------------------------------------------------------------------------


def test_tzone_is_used_by_date_and_checked(server):
    visitor = guest(server)
    server.clock.advance(1_700_000_000)
    assert visitor.command("set tz europe/paris") == "Time zone set to Europe/Paris.\n"
    lines = visitor.command("date").split("\n")
    assert lines[0] == "Local time     - Tue Nov 14, 23:13 CET 2023"
    assert lines[2] == "GMT            - Tue Nov 14, 22:13 GMT 2023"
    visitor.command("set tzone America/New_York")
    assert visitor.command("date").startswith("Local time     - Tue Nov 14, 17:13 EST 2023\n")
    assert visitor.command("set tzone Mars/Olympus") == (
        "Unknown time zone \"Mars/Olympus\": give a name such as Europe/Paris, "
        "America/New_York or UTC.\n")
    assert visitor.command("set tzone").startswith("Time zone set to the server's own (")
    assert visitor.session.tzone == ""
    visitor.command("set lang fr")
    assert visitor.command("set tz UTC") == "Fuseau horaire\u202f: UTC.\n"


def test_finger_dates_an_absent_player_in_the_callers_zone(server):
    server.clock.advance(1_700_000_000)
    alice, bob = registered(server, "alice"), registered(server, "bob")
    bob.send("quit")
    alice.command("set tzone Asia/Tokyo")
    assert alice.command("finger bob") == (
        "Finger of bob:\n\nLast disconnected: Wed Nov 15, 07:13 JST 2023\n")


# -- set open ----------------------------------------------------------------------------------


def test_set_open_0_refuses_match_requests(server):
    alice, bob = registered(server, "alice"), registered(server, "bob")
    assert bob.command("set open 0") == "You are no longer open to receive match requests.\n"
    assert alice.command("match bob 5 0") == "bob is not open to match requests.\n"
    assert bob.raw_output() == b""
    assert len(server.challenges) == 0
    # asking for a match opens the one who asks, as on FICS
    out = bob.command("match alice 5 0")
    assert out.startswith("You are now open to receive match requests.\nIssuing: bob")
    assert bob.session.variables["open"] is True
    assert bob.command("set open") == "You are no longer open to receive match requests.\n"
    assert bob.command("set open 1") == "You are now open to receive match requests.\n"


# -- block codes and help ----------------------------------------------------------------------


def test_new_commands_answer_with_their_fics_block_codes(server):
    visitor = guest(server)
    visitor.command("iset block 1")
    for number, (line, code) in enumerate((("follow", 41), ("primary", 91), ("uptime", 140),
                                           ("limits", 63), ("it hi", 57), ("moretime 5", 518),
                                           ("pstat", 518), ("handles a", 48),
                                           ("logons", 66), ("llogons", 65)), 1):
        visitor.send(f"{number} {line}")
        frame = visitor.raw_output()
        assert frame.startswith(f"{block.BLOCK_START}{number}{block.BLOCK_SEPARATOR}{code}"
                                f"{block.BLOCK_SEPARATOR}".encode()), (line, frame)
    assert block.code_for("ping") == 0  # FICS's table has no ping


@pytest.mark.parametrize("lang, start", [("en", "register\n\nUSAGE\n"),
                                         ("fr", "register\n\nUTILISATION\n")])
def test_help_register_says_how_accounts_are_made(server, lang, start):
    visitor = guest(server)
    visitor.command(f"set lang {lang}")
    page = visitor.command("help register")
    assert page.startswith(start)
    assert "ficsfen accounts add" in page and "guest" in page
