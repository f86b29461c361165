"""The command line of the server: ``$`` prefixes, aliases, ivariables and block mode.

Replies are parsed the way ICS clients parse them: block frames by a parser
written here from FICS's documented framing (``help iv_block``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ficsfen.server import block
from ficsfen.server.commands.interface import MAX_ALIAS_DEPTH, MAX_ALIASES, expand_alias
from ficsfen.server.ivars import IVARS
from ficsfen.server.testing import connect, make_server

START, SEP, END = "\x15", "\x16", "\x17"
_FRAME = re.compile(f"{START}([0-9]+){SEP}([0-9]+){SEP}(.*?){END}\n", re.DOTALL)


def frames(text: str) -> tuple[list[tuple[int, int, str]], str]:
    """The block frames in ``text`` (id, code, output) and what is left outside them."""
    found = [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in _FRAME.finditer(text)]
    return found, _FRAME.sub("", text)


def one_frame(text: str) -> tuple[int, int, str]:
    found, outside = frames(text)
    assert len(found) == 1 and outside == "", (found, outside)
    return found[0]


@pytest.fixture
def server():
    return make_server(input_rate=0)  # 10,000 commands at one instant of the test clock


@pytest.fixture
def alice(server):
    client = connect(server)
    client.login("alice")
    return client


@pytest.fixture
def bob(server):
    client = connect(server)
    client.login("bob")
    return client


def blocked(client) -> None:
    assert client.command("iset block 1") == "block set.\n"


# -- $ prefixes and aliases ---------------------------------------------------------


def test_dollar_prefixes_run_the_command(alice):
    who = alice.command("who")
    assert "alice" in who
    assert alice.command("$who") == who
    assert alice.command("$$who") == who
    assert alice.command("$ who") == who
    assert alice.command("$$ style 12") == "Style 12 set.\n"
    assert alice.command("$") == ""


def test_dollar_skips_aliases(alice):
    alice.command("alias who games")
    assert "no games" in alice.command("who")
    assert "alice" in alice.command("$who")
    assert "alice" in alice.command("$$who")


def test_alias_set_show_list_replace_remove(alice):
    assert alice.command("alias") == "You have no aliases.\n"
    assert alice.command("alias w who") == 'Alias "w" set.\n'
    assert alice.command("alias w") == "w -> who\n"
    assert alice.command("alias o observe $1") == 'Alias "o" set.\n'
    assert alice.command("alias") == "w -> who\no -> observe $1\n"
    assert alice.command("alias w who") == 'Alias "w" replaced.\n'
    assert alice.command("unalias w") == 'Alias "w" removed.\n'
    assert alice.command("unalias w") == 'You have no alias named "w".\n'
    assert alice.command("alias nope") == 'You have no alias named "nope".\n'


def test_alias_parameters_fics_style(alice):
    alice.command("alias s style $1")
    assert alice.command("s 12") == "Style 12 set.\n"
    alice.command("alias v set $@")
    assert alice.command("v style 1") == "Style 1 set.\n"
    # no implicit $@: the words after an alias without parameters are dropped
    alice.command("alias w who")
    assert "alice" in alice.command("w junk words")


def test_expand_alias_rules():
    table = {"a": ("a", "tell $1 x $2- y $-2 z $m $$ $@ $9 $q")}
    assert (expand_alias("a one two three", table, "me")
            == "tell one x two three y one two z me $ one two three  $q")
    punct = {"+": ("+", "observe $@")}
    assert expand_alias("+12", punct, "me") == "observe 12"
    assert expand_alias("+ 12", punct, "me") == "observe 12"
    itself = {"who": ("who", "who $@ a")}
    assert expand_alias("who x", itself, "me") == "who x a"
    chain = {"a": ("a", "b $@"), "b": ("b", "games $@")}
    assert expand_alias("a 3", chain, "me") == "games 3"


def test_alias_loop_is_refused_and_the_session_goes_on(alice):
    alice.command("alias a b")
    alice.command("alias b a")
    assert alice.command("a") == "Alias loop: a -> b -> a.\n"
    assert "alice" in alice.command("who")


def test_alias_depth_and_length_limits(alice):
    for n in range(MAX_ALIAS_DEPTH + 1):
        alice.command(f"alias x{n} x{n + 1}")
    out = alice.command("x0")
    assert out.startswith(f"Aliases nested more than {MAX_ALIAS_DEPTH} deep: x0 -> x1")
    alice.command("alias big " + "$@ " * 100)
    out = alice.command("big " + "y" * 100)
    assert out == "Alias big makes a line longer than 2048 characters.\n"


@pytest.mark.slow
def test_ten_thousand_aliases_in_a_loop_do_not_hang(alice):
    """Creating a 10,000-entry loop stops at the limit; what was made is refused."""
    replies = [alice.command(f"alias l{n} l{(n + 1) % 10000}") for n in range(10000)]
    assert replies[MAX_ALIASES - 1] == f'Alias "l{MAX_ALIASES - 1}" set.\n'
    assert set(replies[MAX_ALIASES:]) == {
        f"You have your maximum number of aliases ({MAX_ALIASES}).\n"}
    assert len(alice.session.aliases) == MAX_ALIASES
    assert alice.command("l0").startswith("Aliases nested more than")
    assert alice.command("$unalias l0") == 'Alias "l0" removed.\n'


def test_quit_and_unalias_cannot_be_aliased(alice):
    assert alice.command("alias quit who") == "You can't alias this command.\n"
    assert alice.command("alias unalias who") == "You can't alias this command.\n"
    assert alice.command("alias") == "You have no aliases.\n"


def test_alias_refusals_are_localized(alice):
    alice.command("set lang fr")
    assert alice.command("alias") == "Vous n\u2019avez aucun alias.\n"
    assert alice.command("alias quit x") == "Cette commande ne peut pas recevoir d\u2019alias.\n"


def test_xboard_alias_dollar_is_harmless(alice):
    """xboard sends ``alias $ @`` first, then ``$``-prefixed commands."""
    assert alice.command("alias $ @") == 'Alias "$" set.\n'
    assert alice.command("$style 12") == "Style 12 set.\n"
    assert alice.command("$iset ms 1") == "ms set.\n"
    assert "alice" in alice.command("who")


def test_builtin_command_aliases_still_work(alice):
    alice.command("alias w who")
    assert "Logging you out." in alice.command("bye")


def test_an_alias_never_hides_a_move(server, alice, bob):
    alice.command("match bob 5 0 white")
    bob.command("accept")
    alice.command("style 12")
    alice.command("alias e4 who")
    out = alice.command("e4")
    assert out.startswith("<12> ") and "players displayed" not in out


# -- iset / ivariables --------------------------------------------------------------


def test_iset_answers_like_fics(alice):
    assert alice.command("iset ms 1") == "ms set.\n"
    assert alice.command("iset ms 0") == "ms unset.\n"
    assert alice.command("iset startp on") == "startpos set.\n"  # a unique prefix
    assert alice.command("iset nowrap true") == "nowrap set.\n"
    assert alice.session.ivars["startpos"] and alice.session.ivars["nowrap"]


def test_iset_bad_input(alice):
    assert alice.command("iset foo 1") == 'No such ivariable "foo".\n'
    assert alice.command("iset s 1").startswith('Ambiguous ivariable "s". Matches: ')
    assert alice.command("iset ms 2") == 'Bad value "2" given for ivariable "ms".\n'
    assert alice.command("iset ms") == "Usage: iset ivariable 0|1\n"
    alice.command("set lang fr")
    assert alice.command("iset foo 1") == "Pas de variable d\u2019interface \u00ab\u202ffoo\u202f\u00bb.\n"
    assert alice.command("iset ms 1") == "ms set.\n"  # FICS's line, whatever the language


def test_iset_lock(alice):
    assert alice.command("iset lock 1") == "lock set.\n"
    assert alice.command("iset ms 1") == "Cannot alter: Interface setting locked.\n"
    assert alice.command("iset lock 0") == "Cannot alter: Interface setting locked.\n"
    assert not alice.session.ivars["ms"] and alice.session.ivars["lock"]


def test_every_ivar_is_accepted_stored_and_listed(alice, bob):
    for name in IVARS:
        if name == "seekinfo":  # then the seeks: <sc> (none here)
            assert alice.command(f"iset {name} 1") == f"{name} set.\n<sc>\n"
        elif name not in ("lock", "block"):
            assert alice.command(f"iset {name} 1") == f"{name} set.\n"
    listing = alice.command("ivariables")
    assert listing.startswith("Interface variable settings of alice:\n\n")
    cells = re.findall(r"(\w+)=([01])", listing)
    assert sorted(name for name, _ in cells) == sorted(IVARS)
    assert {name: value for name, value in cells} == {
        name: "0" if name in ("lock", "block") else "1" for name in IVARS}
    assert bob.command("ivars ali") == listing
    assert "No player named" in bob.command("ivariables zed")


def test_ivariables_layout_is_fics(bob):
    lines = bob.command("ivariables").split("\n")
    assert lines[2] == "compressmove=0     defprompt=0        lock=0             ms=0"
    assert lines[7] == "seekca=0           showownseek=1      premove=0          smartmove=0"


def test_defprompt_forces_the_fics_prompt():
    server = make_server(prompt="chess> ")
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    alice.send("who")
    assert alice.output().endswith("chess> ")
    alice.send("iset defprompt 1")
    assert alice.output() == "defprompt set.\nfics% "
    bob.command("examine")
    alice.command("observe bob")
    bob.command("e4")
    assert alice.output().endswith("\nfics% ")  # a board for an observer
    alice.send("iset defprompt 0")
    assert alice.output() == "defprompt unset.\nchess> "


def test_pin_announces_arrivals_and_departures(server, alice):
    alice.command("iset pin 1")
    carol = connect(server)
    carol.login("carol")
    assert alice.output() == "\n<wa> carol 010P0P0P0P0P0P0P0P0P\nfics% "
    carol.send("quit")
    assert alice.output() == "\n<wd> carol\nfics% "
    watcher = connect(server)
    watcher.login("dave")
    assert "<wa>" not in watcher.output()  # pin off: nothing
    line = server.sessions.pin_arrival(alice.session)
    assert re.fullmatch(r"<wa> ([A-Za-z]+)([\^~:\#. &])(\d{2})" + r"(\d{1,4})([P E])" * 8
                        + r"(\d{1,4})([PE]?)", line)


def test_allresults_sends_every_game_end(server, alice, bob):
    carol, dave = connect(server), connect(server)
    carol.login("carol")
    dave.login("dave")
    carol.command("iset allresults 1")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    carol.output()
    dave.output()
    alice.command("resign")
    assert carol.output() == "\n{Game 1 (alice vs. bob) alice resigns} 0-1\nfics% "
    assert dave.output() == ""


# -- block mode ---------------------------------------------------------------------


def test_iset_block_reply_is_not_blocked_then_frames_without_prompt(alice):
    alice.send("iset block 1")
    assert alice.output() == "block set.\nfics% "
    alice.send("2 iset defprompt 1")
    raw = alice.output()
    assert one_frame(raw) == (2, 56, "defprompt set.\n")
    assert not raw.endswith("fics% ")


def test_block_success_codes(alice):
    blocked(alice)
    alice.send("7 games")
    assert one_frame(alice.output()) == (7, 43, "There are no games in progress.\n")
    alice.send("8 who")
    ident, code, out = one_frame(alice.output())
    assert (ident, code) == (8, 146) and "alice" in out
    alice.send("9 fen")
    assert one_frame(alice.output())[:2] == (9, 0)  # not a FICS command: null
    alice.send("10")
    assert one_frame(alice.output()) == (10, 0, "")
    alice.send("11 $style 12")
    assert one_frame(alice.output()) == (11, 128, "Style 12 set.\n")


@pytest.mark.parametrize("line, code", [
    ("1 frobnicate", block.BAD_COMMAND),
    ("1 set", block.BAD_PARAMS),
    ("1 observe a b c", block.BAD_PARAMS),
    ("1 un", block.AMBIGUOUS),
    ("1 e4", block.NOT_PLAYING),
    ("1 resign", block.NOT_PLAYING),
])
def test_block_error_codes(alice, line, code):
    blocked(alice)
    alice.send(line)
    assert one_frame(alice.output())[:2] == (1, code)


@pytest.mark.parametrize("line", ["games", "", "x1 games", "1games", "١ games",
                                  "1234567890 games", "-1 games"])
def test_a_line_without_an_id_is_code_519(alice, line):
    blocked(alice)
    alice.send(line)
    ident, code, out = one_frame(alice.output())
    assert (ident, code) == (0, block.NO_SEQUENCE)
    assert "start each command with its number" in out


def test_line_too_long_hook(server, alice):
    server.dispatcher.line_too_long(alice.session)
    assert alice.output() == (f"Your line was longer than {server.config.max_line} bytes "
                              "and has been ignored.\nfics% ")
    blocked(alice)
    server.dispatcher.line_too_long(alice.session)
    assert one_frame(alice.output())[:2] == (0, block.LINE_TOO_LONG)


def test_alias_errors_in_block_mode(alice):
    alice.command("alias a b")
    alice.command("alias b a")
    blocked(alice)
    alice.send("3 a")
    assert one_frame(alice.output()) == (3, block.BAD_COMMAND, "Alias loop: a -> b -> a.\n")


def test_a_move_in_block_mode_is_code_1_and_its_board_inside(server, alice, bob):
    alice.command("style 12")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    blocked(alice)
    alice.send("4 e4")
    ident, code, out = one_frame(alice.output())
    assert (ident, code) == (4, block.GAME_MOVE)
    assert out.startswith("<12> ")
    alice.send("5 e5")  # not her turn: still a move's answer
    assert one_frame(alice.output())[:2] == (5, block.GAME_MOVE)


def test_asynchronous_output_stays_outside_blocks(server, alice, bob):
    blocked(alice)
    alice.send("1 style 12")
    alice.output()
    bob.command("examine")
    alice.send("2 observe bob")
    found, outside = frames(alice.output())
    assert [f[:2] for f in found] == [(2, 80)] and outside == ""
    bob.command("e4")  # a board for an observer, then bob's game ends
    text = alice.output()
    found, outside = frames(text)
    assert found == [] and "\n<12> " in outside and outside.endswith("fics% ")
    # a challenge to alice arrives while she is in block mode
    carol = connect(server)
    carol.login("carol")
    carol.command("match alice 5 0")
    found, outside = frames(alice.output())
    assert found == [] and "Challenge:" in outside


def test_quit_in_block_mode_sends_its_frame_before_closing(alice):
    blocked(alice)
    alice.send("12 quit")
    ident, code, out = one_frame(alice.output())
    assert (ident, code) == (12, 97) and "Logging you out." in out
    assert not alice.connected


def test_turning_block_mode_off_is_answered_in_a_block(alice):
    blocked(alice)
    alice.send("5 iset block 0")
    raw = alice.output()
    assert one_frame(raw) == (5, 56, "block unset.\n")
    alice.send("who")
    assert alice.output().endswith("fics% ")


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
       | st.builds(lambda n, s: f"{n} {s}", st.integers(min_value=-10, max_value=10 ** 30),
                   st.text(max_size=20)))
def test_no_line_crashes_block_mode(line):
    line = line.replace("\n", " ").replace("\r", " ")
    server = make_server()
    client = connect(server)
    client.login("alice")
    client.command("iset block 1")
    client.send(line)
    text = client.output()
    assert "internal error" not in text
    found, outside = frames(text)
    assert len(found) == 1, (line, text)
    ident, code, _ = found[0]
    if line.isprintable():  # the telnet side drops control bytes before the server sees them
        try:
            expected = block.split_id(line)[0]
        except block.BlockIdError:
            assert (ident, code) == (0, block.NO_SEQUENCE)
        else:
            assert ident == int(expected)
    assert client.connected or "Logging you out." in text


def test_pin_set_before_login_is_honoured(server, alice):
    """``%b`` at the login prompt sets ivars directly; arrival picks them up."""
    alice.session.preset_ivars({"pin": True})
    server.sessions.arrived(alice.session)
    alice.output()
    carol = connect(server)
    carol.login("carol")
    assert "<wa> carol " in alice.output()


def test_the_block_code_table_is_ficss():
    assert len(block.BLOCK_CODES) == 178
    assert sorted(block.BLOCK_CODES.values()) == list(range(10, 188))
    assert (block.code_for("games"), block.code_for("observe"), block.code_for("iset"),
            block.code_for("alias"), block.code_for("fen")) == (43, 80, 56, 159, 0)
    assert block.frame("12", 43, b"x\r\n") == b"\x1512\x1643\x16x\r\n\x17\r\n"
    assert block.split_id(" 12\tgames  now") == ("12", "games  now")
    assert block.split_id("7") == ("7", "")


def test_a_bare_at_sign_is_the_rest_of_the_line_as_in_older_fics_aliases():
    # Our reading of FICS "help alias", and what xboard's "alias $ @" relies on.
    server = make_server()
    alice = connect(server)
    alice.login()
    alice.command("alias ob observe @")
    assert "observe 7" in expand_alias("ob 7", alice.session.aliases, alice.session.handle)


def test_an_overlong_line_typed_in_block_mode_is_answered_with_code_520(server, alice):
    blocked(alice)
    alice.send("1 " + "x" * (server.config.max_line + 10))
    assert one_frame(alice.output())[:2] == (0, block.LINE_TOO_LONG)
    alice.send("2 fen")  # the session goes on
    assert one_frame(alice.output())[0] == 2
