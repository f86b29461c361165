"""Operators in process: the (*) mark, refusals, announce, muzzle, nuke, ban, shutdown, news.

A server on a fake clock with the configuration's accounts (no data file):
alice is an operator by ``[server] admins``, bob and carol are registered
players.  The shutdown countdown runs on the fake clock, step by step.
"""

from __future__ import annotations

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.testing import connect, make_server

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}
ACCOUNTS = {name: hash_password(word, iterations=1000) for name, word in PASSWORDS.items()}
PROMPT = "fics% "


@pytest.fixture
def server():
    return make_server(accounts=ACCOUNTS, admins=("alice",))


def login(server, name: str | None = None, host: str | None = None):
    client = connect(server, host=host)
    if name in PASSWORDS:
        client.login(name, PASSWORDS[name])
    else:
        client.login(name)
    client.output()
    return client


def test_an_operator_carries_the_star_mark_in_login_who_finger_and_tells(server) -> None:
    alice = connect(server)
    alice.login("alice", PASSWORDS["alice"])
    assert "**** Starting FICS session as alice(*) ****" in alice.login_text
    bob = login(server, "bob")
    guest = login(server)
    who = bob.command("who")
    assert "alice(*)" in who and "bob(*)" not in who and f"{guest.handle}(U)" in who
    assert bob.command("finger alice").startswith("Finger of alice(*):")
    assert bob.command("finger bob").startswith("Finger of bob:")
    alice.command("tell bob hi")
    assert "alice(*) tells you: hi" in bob.output()


@pytest.mark.parametrize("line", ["announce hi", "muzzle bob", "nuke bob", "ban bob",
                                  "unban bob", "shutdown 5", "cnewsi Title", "cnewsf 1 x",
                                  "cnewse 1"])
def test_others_are_refused_with_insufficient_rights(server, line) -> None:
    bob = login(server, "bob")
    guest = login(server)
    word = line.split()[0]
    assert bob.command(line) == f"{word}: Insufficient rights.\n"
    assert guest.command(line) == f"{word}: Insufficient rights.\n"
    guest.command("set lang fr")
    assert guest.command(line) == f"{word}\u202f: droits insuffisants.\n"


def test_a_refusal_is_block_code_515(server) -> None:
    bob = login(server, "bob")
    bob.command("iset block 1")
    bob.send("7 announce hello")
    assert bob.raw_output() == b"\x157\x16515\x16announce: Insufficient rights.\r\n\x17\r\n"


def test_operator_commands_take_no_prefix(server) -> None:
    alice, bob = login(server, "alice"), login(server, "bob")
    assert "Insufficient rights" not in bob.command("annou hi")
    assert "ANNOUNCEMENT" not in alice.command("annou hi")
    assert "You are not examining a game." in bob.command("ba")  # still backward, beside ban
    assert "You are not examining a game." in alice.command("ba")


def test_announce_reaches_everyone_in_fics_form(server) -> None:
    alice, bob, carol, guest = (login(server, n) for n in ("alice", "bob", "carol", None))
    carol.command("set lang fr")
    assert alice.command("announce Server restarts at 22:00.") == (
        "(3) **ANNOUNCEMENT** from alice: Server restarts at 22:00.\n")
    assert bob.raw_output() == (b"\r\n\r\n    **ANNOUNCEMENT** from alice: Server restarts at "
                                b"22:00.\r\n\r\nfics% ")
    assert guest.output() == "\n\n    **ANNOUNCEMENT** from alice: Server restarts at 22:00.\n\n" + PROMPT
    assert "    **ANNONCE** de alice\u202f: Server restarts at 22:00." in carol.output()
    carol.command("set interface pychess")  # a client parses it: FICS's English
    alice.command("announce again")
    assert "    **ANNOUNCEMENT** from alice: again" in carol.output()
    assert alice.command("announce") == "Usage: announce TEXT\n"


def test_muzzle_stops_shouts_until_unmuzzled(server) -> None:
    alice, bob = login(server, "alice"), login(server, "bob")
    assert alice.command("muzzle bob") == "bob muzzled.\n"
    assert "You have been muzzled by alice." in bob.output()
    assert bob.command("shout hello") == "You are muzzled.\n"
    assert bob.command("cshout hello") == "You are muzzled.\n"
    assert "tells you" not in alice.output()
    assert bob.command("tell alice still here").startswith("(told alice")
    assert alice.command("muzzle BOB") == "bob unmuzzled.\n"
    assert "You have been unmuzzled by alice." in bob.output()
    assert bob.command("shout hello").endswith("(shouted to 1 player)\n")
    assert alice.command("muzzle zed") == "zed is not logged in.\n"


def test_a_guest_is_muzzled_for_the_session_only(server) -> None:
    alice, guest = login(server, "alice"), login(server)
    assert alice.command(f"muzzle {guest.handle}") == f"{guest.handle} muzzled.\n"
    assert server.sessions.get(guest.handle).muzzled
    assert guest.command("shout hi") == "Only registered players can use the shout command.\n"
    host = guest.session.host
    guest.command("quit")
    again = login(server, None, host=host)  # the same person, back as a new guest
    assert not server.sessions.get(again.handle).muzzled


def test_nuke_disconnects_with_fics_notice_and_adjourns_the_game(server) -> None:
    alice, bob, carol = (login(server, n) for n in ("alice", "bob", "carol"))
    bob.command("match carol 5 0 white")
    carol.command("accept")
    bob.output(), carol.output()
    assert alice.command("nuke Bob") == "Nuked: bob\n"
    assert "**** You have been kicked out by alice! ****" in bob.output()
    assert not bob.connected and server.sessions.get("bob") is None
    assert "adjourned" in carol.output()
    assert alice.command("nuke bob") == "bob is not logged in.\n"
    assert alice.command("nuke alice") == "You cannot nuke yourself; use \"quit\".\n"


def test_a_banned_handle_is_refused_before_its_password(server) -> None:
    alice = login(server, "alice")
    assert alice.command("ban bob spam") == "bob is banned: its logins are refused.\n"
    bob = connect(server)
    bob.output()
    bob.send("bob")
    out = bob.output()
    assert 'Player "bob" is banned on this server.' in out and "password" not in out
    assert not bob.connected
    assert login(server, "carol").handle == "carol"  # the others still log in
    assert alice.command("ban bob again") == (
        "bob was banned already; the ban now has your reason.\n")
    listed = alice.command("ban")
    assert listed.startswith("1 ban:\nbob ") and listed.rstrip().endswith("again")
    assert alice.command("unban bob") == "bob is no longer banned.\n"
    assert alice.command("unban bob") == "bob is not banned.\n"
    assert login(server, "bob").handle == "bob"
    assert alice.command("ban") == "Nobody is banned.\n"


def test_an_address_ban_refuses_guests_and_players_from_it(server) -> None:
    alice = login(server, "alice", host="10.9.9.9")
    assert alice.command("ban 192.0.2.0/24") == "192.0.2.0/24 is banned: its logins are refused.\n"
    for name in ("guest", "carol", "zed"):
        client = connect(server, host="192.0.2.77")
        client.output()
        client.send(name)
        assert "Logins from your address are banned on this server." in client.output()
        assert not client.connected
    assert login(server, None, host="192.0.3.1").handle.startswith("Guest")
    assert alice.command("ban 198.51.100.7") == "198.51.100.7/32 is banned: its logins are refused.\n"
    assert alice.command("unban 192.0.2.0/24") == "192.0.2.0/24 is no longer banned.\n"
    assert login(server, None, host="192.0.2.77").handle.startswith("Guest")


@pytest.mark.parametrize("word, answer", [
    ("al", "al: a handle is 3 to 17 letters."),
    ("GuestABCD", "GuestABCD: guests change names at each login; ban their address instead."),
    ("10.0.0.300", "10.0.0.300: neither a handle nor an address or network"),
    ("alice", "You cannot ban yourself."),
])
def test_bad_ban_targets_are_explained(server, word, answer) -> None:
    alice = login(server, "alice")
    assert alice.command(f"ban {word}").startswith(answer)
    assert alice.command("ban") == "Nobody is banned.\n"


def test_the_ban_of_a_logged_in_player_says_how_to_disconnect_them(server) -> None:
    alice, _ = login(server, "alice"), login(server, "bob")
    assert alice.command("ban bob") == ('bob is banned: its logins are refused.\n'
                                        'bob is logged in: "nuke bob" disconnects them.\n')


def test_shutdown_counts_down_on_fics_marks_then_adjourns_and_logs_everyone_out(server) -> None:
    alice, bob, carol = (login(server, n) for n in ("alice", "bob", "carol"))
    bob.command("match carol 5 0 white")
    carol.command("accept")
    bob.output(), carol.output()
    assert alice.command("shutdown 3 new version") == (  # part of the answer, for alice
        "    **** Server shutdown ordered by alice. ****\n"
        "    **** Server going down in 3 minutes and 0 seconds. ****\n"
        "    **** We are going down because: new version. ****\n")
    told = bob.output()
    assert told == ("\n    **** Server shutdown ordered by alice. ****\n"
                    "    **** Server going down in 3 minutes and 0 seconds. ****\n"
                    "    **** We are going down because: new version. ****\n" + PROMPT)
    assert bob.command("whenshut") == ("    **** Server going down in 3 minutes and 0 seconds. "
                                       "****\n    **** We are going down because: new version. "
                                       "****\n")
    seen = []
    for step in (59, 1, 59, 1, 49, 1, 9, 1):  # to 2:01, 2:00, 1:01, 1:00, 0:11, 0:10, 0:01, 0:00
        server.clock.advance(step)
        server.clock.advance(0)  # at 0:00 the server stops in the next turn
        seen.append(bob.output())
    notices = [text for text in seen if text]
    assert [n.split("\n")[1] for n in notices[:3]] == [
        "    **** Server going down in 2 minutes and 0 seconds. ****",
        "    **** Server going down in 1 minutes and 0 seconds. ****",
        "    **** Server going down in 0 minutes and 10 seconds. ****"]
    assert [bool(text) for text in seen] == [False, True, False, True, False, True, False, True]
    last = seen[-1]
    assert "    **** Server shutdown ordered by alice. ****" in last
    assert "Game adjourned by server shutdown" in last
    assert "The server is shutting down. Goodbye." in last
    assert not bob.connected and not alice.connected and len(server.sessions) == 0
    assert server.stopping


def test_shutdown_cancel_now_and_bad_delays(server) -> None:
    alice, bob = login(server, "alice"), login(server, "bob")
    assert bob.command("whenshut") == "No shutdown currently in progress\n"
    assert alice.command("shutdown cancel") == "No shutdown currently in progress\n"
    alice.command("shutdown 0:30")
    assert "Server going down in 0 minutes and 30 seconds" in bob.output()
    alice.command("shutdown cancel")
    assert bob.output() == "\n    **** Server shutdown canceled by alice. ****\n" + PROMPT
    server.clock.advance(600)
    assert bob.connected and bob.output() == ""
    for bad in ("0", "1441", "soon", "1:75"):
        assert alice.command(f"shutdown {bad}").startswith("Give the minutes before the shutdown")
    assert alice.command("shutdown now") == "    **** Server shutdown ordered by alice. ****\n"
    assert "Server shutdown ordered by alice." in bob.output()
    server.clock.advance(0)  # the server stops in the next turn, as the reactor would
    assert "The server is shutting down. Goodbye." in bob.output()
    assert not bob.connected


def test_news_without_a_data_file(server) -> None:
    alice, bob = login(server, "alice"), login(server, "bob")
    assert bob.command("news") == "There is no news.\n"
    assert bob.command("news 3") == "News item 3 not found.\n"
    assert bob.command("news soon") == "Usage: news [NUMBER|all]\n"
    assert alice.command("cnewsi Hello") == (
        "This server keeps no data file: news cannot be written.\n")
