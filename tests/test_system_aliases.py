"""FICS's system aliases (``f``, ``w``, ``!hello``...) and ``quit`` taken only in full,
over the in-process client with the exact bytes."""

from __future__ import annotations

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.system_aliases import SYSTEM_ALIASES, SystemAliases
from ficsfen.server.testing import connect, make_server

ACCOUNTS = {"alice": hash_password("pw1", iterations=1000),
            "dora": hash_password("pw2", iterations=1000)}
PASSWORDS = {"alice": "pw1", "dora": "pw2"}


@pytest.fixture
def server():
    return make_server(accounts=ACCOUNTS)


def _client(server, name=None):
    client = connect(server)
    client.login(name, PASSWORDS.get(name or ""))
    client.output()
    return client


@pytest.mark.parametrize("alias, command", [
    ("f", "finger"), ("fi", "finger"), ("w", "who"), ("p", "who a"), ("players", "who a"),
    ("vars", "variables"), ("more", "next"), ("?", "help"), ("h fen", "help fen"),
    ("?fen", "help fen"), ("r", "refresh"), ("b", "backward"), ("a", "accept"),
    ("d", "decline"), ("g", "games"), ("in", "inchannel"), ("m nobody", "match nobody"),
    ("F", "finger"), ("o 1", "observe 1"), ("res", "resign"), ("e", "examine"),
])
def test_an_alias_answers_as_its_command(server, alias, command):
    a = _client(server)
    _client(server)
    expected = a.command(command)
    a.command("unexamine")
    assert a.command(alias) == expected


def test_punctuation_aliases_glue_to_their_text(server):
    alice, dora = _client(server, "alice"), _client(server, "dora")
    assert alice.command("!hello there") == (
        "alice shouts: hello there\n(shouted to 1 player)\n")
    assert dora.output() == "\nalice shouts: hello there\nfics% "
    assert alice.command("! spaced") == "alice shouts: spaced\n(shouted to 1 player)\n"
    dora.output()
    assert alice.command("^e4!") == "alice c-shouts: e4!\n(c-shouted to 1 player)\n"
    assert dora.output() == "\nalice c-shouts: e4!\nfics% "
    assert alice.command("*nice") == "You are not playing, examining, or observing a game.\n"
    assert alice.command("#psst") == "You are not playing, examining, or observing a game.\n"
    alice.command("tell dora hi")
    dora.output()
    assert alice.command("`again") == alice.command(". again")
    assert dora.output().count("alice tells you: again") == 2


def test_a_guest_is_refused_by_the_alias_as_by_the_command(server):
    guest = _client(server)
    assert guest.command("!hi") == "Only registered players can use the shout command.\n"


def test_a_players_own_alias_overrides_the_system_one(server):
    a = _client(server)
    a.command("alias f games")
    assert a.command("f") == a.command("games")
    a.command("unalias f")
    assert a.command("f") == a.command("finger")
    a.command("alias z f")  # one's own alias may lead to a system one
    assert a.command("z") == a.command("finger")


def test_dollar_skips_system_aliases_too(server):
    a = _client(server)
    assert a.command("$w") == 'Ambiguous command "w". Matches: whenshut whisper who withdraw\n'
    assert a.command("$who") == a.command("who")


def test_quit_is_never_abbreviated(server):
    a = _client(server)
    for word in ("q", "qu", "qui", "Q", "QUI"):
        assert a.command(word) == "The command 'quit' cannot be abbreviated.\n"
        assert a.connected
    a.command("set lang fr")
    assert a.command("q") == "La commande «\u202fquit\u202f» ne peut pas être abrégée.\n"
    assert a.connected
    assert "Thank you for using ficsfen" not in a.command("qu")
    a.send("quit")
    assert not a.connected


def test_logout_bye_and_exit_quit(server):
    for word in ("logout", "bye", "exit"):
        a = _client(server)
        a.send(word)
        assert not a.connected


def test_in_block_mode_an_abbreviated_quit_is_a_bad_command(server):
    a = _client(server)
    a.command("iset block 1")
    a.output()
    a.send("7 q")
    assert a.raw_output() == (b"\x157\x16512\x16The command 'quit' cannot be abbreviated.\r\n\x17\r\n")
    assert a.connected


def test_an_alias_of_a_missing_command_is_left_alone():
    aliases = SystemAliases(lambda name: name != "it")
    assert aliases.expand("i hi", "i") == "i hi"  # the word goes on as typed
    assert aliases.expand(":hi", ":") == ":hi"
    assert aliases.expand("f bob", "f") == "finger bob"
    assert aliases.expand("  p R", "p") == "who aR"
    assert aliases.expand("logout now", "logout") == "quit now"
    assert "i" not in aliases.words() and "f" in aliases.words()
    with_it = SystemAliases(lambda name: True)
    assert with_it.expand("i thinks so", "i") == "it thinks so"
    assert with_it.expand(":thinks so", ":") == "it thinks so"


def test_no_alias_reads_as_a_move():
    SystemAliases(lambda name: True)  # raises if one did
    with pytest.raises(ValueError):
        SystemAliases(lambda name: True, {"e4": "examine $@"})
    assert {"f", "w", "m", "a", "b", "r", "!", "*", "#", "i", "vars", "more", "?"} <= set(
        SYSTEM_ALIASES)


def test_a_move_is_still_a_move_and_b_steps_back(server):
    a = _client(server)
    a.command("examine")
    a.command("set style 12")
    assert "P/e2-e4" in a.command("e4")
    back = a.command("b")
    assert back.startswith(f"Game 1: {a.handle} backs up 1 move.\n<12> ")
    assert a.command("b") == a.command("backward") == "You're at the beginning of the game.\n"


def test_no_system_alias_is_named_like_a_command(server):
    # The dispatcher runs an exact command name without looking at the system aliases.
    assert [word for word in server.dispatcher.system_aliases.words()
            if server.table.exact(word) is not None] == []
