"""The command-line grammar and the reply object, without a server or a connection."""

from __future__ import annotations

import pytest
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.i18n import msg
from ficsfen.server import block
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands import interface, lists, session_cmds, settings
from ficsfen.server.dispatcher import Dispatcher, check_command_names
from ficsfen.server.reply import MAX_WAITING_LINES, Reply, resumed

from test_sessions import Line, log_in, parts

PROMPT = "fics% "


class World:
    """A session registry, real game and board services, and a dispatcher over a real table.

    The list commands look an absent player's account up through :meth:`registered`:
    the read stays pending (as in the read thread) until the test answers it.
    """

    def __init__(self) -> None:
        self.parts = parts(Clock())
        self.sessions = self.parts.sessions
        self.lists = lists.PersonalLists()
        #: Account reads asked for and not answered yet, by name.
        self.reads: dict[str, Deferred[bool]] = {}
        table = CommandTable()
        pager = Pager(20)
        for command in (FenCommand(), HelpCommand(pager=pager), NextCommand(pager),
                        settings.SetCommand(), session_cmds.QuitCommand(), *interface.COMMANDS,
                        *lists.commands(self.lists, registered=self.registered)):
            check_command_names(command)
            table.register(command)
        self.dispatcher = Dispatcher(table, self.parts.directory, move=self.parts.games.move,
                                     max_line=80)

    def registered(self, name: str) -> Deferred[bool]:
        return self.reads.setdefault(name, Deferred())

    def player(self, handle: str):
        session, line = log_in(self.sessions, handle)
        line.text()
        return session, line

    def run(self, session, line: Line, text: str) -> str:
        self.dispatcher.execute(session, text)
        return line.text()


def frames(text: str) -> list[tuple[str, int, str]]:
    """Each block-mode frame in ``text``: (id, code, output)."""
    found = []
    for part in text.split(block.BLOCK_START)[1:]:
        ident, code, rest = part.split(block.BLOCK_SEPARATOR, 2)
        found.append((ident, int(code), rest.split(block.BLOCK_END)[0]))
    return found


@pytest.fixture
def world() -> World:
    return World()


def test_a_command_answers_then_prompts_in_one_write(world):
    alice, line = world.player("alice")
    world.dispatcher.execute(alice, "help fen")
    assert len(line.writes) == 1
    text = line.text()
    assert text.startswith("fen\n\nUSAGE\n") and "Type [next] to see the next page." in text
    assert text.endswith("\n" + PROMPT) and text.count(PROMPT) == 1 and alice.reply is None


def test_an_empty_line_only_prompts(world):
    alice, line = world.player("alice")
    assert world.run(alice, line, "   ") == PROMPT


def test_unknown_and_ambiguous_commands_are_told(world):
    alice, line = world.player("alice")
    assert "xyzzy" in world.run(alice, line, "xyzzy")
    ambiguous = world.run(alice, line, "i")  # iset, ivariables
    assert "iset" in ambiguous and "ivariables" in ambiguous


def test_an_alias_expands_and_a_dollar_skips_it(world):
    alice, line = world.player("alice")
    world.run(alice, line, "alias fen help fen")
    assert world.run(alice, line, "fen").startswith("fen\n\nUSAGE\n")  # the alias: help fen
    command = "You are not playing, examining or observing a game.\n" + PROMPT
    assert world.run(alice, line, "$fen") == command  # the command itself
    assert world.run(alice, line, "$$fen") == command
    assert world.run(alice, line, "$") == PROMPT


def test_a_list_sign_glued_to_its_list_is_the_list_command(world):
    alice, line = world.player("alice")
    world.player("bob")
    assert world.lists.refusal("alice", "bob") is None
    world.run(alice, line, "+noplay bob")
    assert world.lists.refusal("alice", "bob").render("en") == "You are on alice's noplay list."
    assert "bob" in world.run(alice, line, "=noplay")
    world.run(alice, line, "-noplay bob")
    assert world.lists.refusal("alice", "bob") is None


def test_a_move_goes_to_the_game_service(world):
    alice, line = world.player("alice")
    assert world.run(alice, line, "e4") == "You are not playing or examining a game.\n" + PROMPT
    world.parts.games.examine("alice")
    line.text()
    board = world.run(alice, line, "e4")
    assert "e4" in board and board.endswith(PROMPT) and board.count(PROMPT) == 1


def test_block_mode_frames_each_answer_with_its_code(world):
    alice, line = world.player("alice")
    alice.set_ivar("block", True)
    assert frames(world.run(alice, line, "5 set style 12"))[0][:2] == ("5", 109)
    assert frames(world.run(alice, line, "6 set"))[0][:2] == ("6", block.BAD_PARAMS)
    assert frames(world.run(alice, line, "7 xyzzy"))[0][:2] == ("7", block.BAD_COMMAND)
    assert frames(world.run(alice, line, "8 i"))[0][:2] == ("8", block.AMBIGUOUS)
    assert frames(world.run(alice, line, "9 e4"))[0][:2] == ("9", block.NOT_PLAYING)
    assert frames(world.run(alice, line, "10"))[0][:2] == ("10", block.NULL)
    text = world.run(alice, line, "fen")  # no number
    assert frames(text)[0][:2] == ("0", block.NO_SEQUENCE) and PROMPT not in text
    world.dispatcher.line_too_long(alice)
    assert frames(line.text())[0][:2] == ("0", block.LINE_TOO_LONG)


def test_alias_errors_are_bad_commands_in_block_mode(world):
    alice, line = world.player("alice")
    world.run(alice, line, "alias a b")
    world.run(alice, line, "alias b a")
    alice.set_ivar("block", True)
    assert frames(world.run(alice, line, "3 a"))[0][:2] == ("3", block.BAD_COMMAND)


def test_quit_in_block_mode_sends_its_frame_then_closes(world):
    alice, line = world.player("alice")
    alice.set_ivar("block", True)
    text = world.run(alice, line, "4 quit")
    assert [f[:2] for f in frames(text)] == [("4", 97)] and PROMPT not in text
    assert line.closed and world.sessions.get("alice") is None


def test_quit_ends_without_a_prompt(world):
    alice, line = world.player("alice")
    text = world.run(alice, line, "quit")
    assert PROMPT not in text and line.closed


def test_a_line_too_long_is_told_with_a_prompt(world):
    alice, line = world.player("alice")
    world.dispatcher.line_too_long(alice)
    assert line.text() == ("Your line was longer than 80 bytes and has been ignored.\n"
                           + PROMPT)


# -- the reply object -------------------------------------------------------------


def test_a_reply_collects_the_answer_and_ends_with_the_prompt(world):
    alice, line = world.player("alice")
    reply = Reply.open(alice)
    assert alice.reply is reply and reply.is_open and not reply.block
    alice.send("one")
    alice.inform("two")  # something the command caused for its caller: in its answer
    reply.close()
    reply.close()  # once only
    assert line.text() == "one\ntwo\n" + PROMPT and alice.reply is None
    alice.inform("three")  # no command running: a notification
    assert line.text() == "\nthree\n" + PROMPT


def test_a_session_has_one_open_reply_at_a_time(world):
    alice, _ = world.player("alice")
    Reply.open(alice)
    with pytest.raises(RuntimeError):
        Reply.open(alice)


def test_a_deferred_prompt_is_written_once_when_called(world):
    alice, line = world.player("alice")
    reply = Reply.open(alice)
    later = reply.defer_prompt()
    reply.close()
    assert line.text() == ""
    later()
    later()
    assert line.text() == PROMPT


def test_a_deferred_prompt_is_not_written_to_a_closed_session(world):
    alice, line = world.player("alice")
    reply = Reply.open(alice)
    later = reply.defer_prompt()
    reply.close()
    world.sessions.logout(alice)
    line.text()
    later()
    assert line.text() == ""


def test_a_block_reply_is_one_frame_whose_first_usage_error_wins(world):
    alice, line = world.player("alice")
    reply = Reply.open(alice, "12")
    reply.code = 109
    assert reply.block and reply.code == 109
    alice.send(msg("Usage: {usage}", usage="set variable [value]"))
    alice.notify("outside the frame")
    assert line.text() == "\noutside the frame\n" + PROMPT  # nothing of the frame yet
    reply.close()
    [(ident, code, output)] = frames(line.text())
    assert (ident, code) == ("12", block.BAD_PARAMS)
    assert output == "Usage: set variable [value]\n"


# -- answers that wait for a store read ----------------------------------------------


def test_an_answer_waiting_for_a_read_holds_its_prompt_and_the_lines_typed_after(world):
    alice, line = world.player("alice")
    world.dispatcher.execute(alice, "+noplay zed")  # zed is not online: his account is read
    assert alice.reply is not None and alice.reply.waiting
    world.dispatcher.execute(alice, "=noplay")  # typed meanwhile: kept
    world.parts.broadcaster.tell("alice", "bob tells you: hi")  # someone else: a notification
    assert line.writes == []  # held: nothing before the answer is complete
    world.reads["zed"].callback(True)
    assert line.text() == ("\nbob tells you: hi\nfics% "
                           "[zed] added to your noplay list.\nfics% "
                           "-- noplay list: 1 names --\nzed\nfics% ")
    assert alice.reply is None


def test_a_waiting_answer_in_block_mode_is_one_frame_and_others_stay_outside(world):
    alice, line = world.player("alice")
    alice.set_ivar("block", True)
    world.dispatcher.execute(alice, "7 +noplay zed")
    world.parts.broadcaster.tell("alice", "bob tells you: hi")
    world.reads["zed"].callback(False)
    text = line.text()
    assert text.startswith("\nbob tells you: hi\nfics% ")
    assert frames(text) == [("7", 12, 'No player named "zed" is logged in.\n')]


def test_lines_beyond_the_limit_while_an_answer_waits_are_dropped_and_told(world):
    alice, line = world.player("alice")
    world.dispatcher.execute(alice, "+noplay zed")
    for _ in range(MAX_WAITING_LINES + 2):
        world.dispatcher.execute(alice, "$")
    assert len(alice.reply.queued) == MAX_WAITING_LINES and alice.reply.dropped == 2
    world.reads["zed"].callback(True)
    text = line.text()
    assert text.startswith("[zed] added to your noplay list.\nfics% \n"
                           "2 lines typed while your previous command waited for the data file "
                           "were ignored.\nfics% ")
    assert text.count(PROMPT) == 2 + MAX_WAITING_LINES


def test_a_session_leaving_while_its_answer_waits_gets_nothing_more(world):
    alice, line = world.player("alice")
    world.dispatcher.execute(alice, "+noplay zed")
    world.dispatcher.execute(alice, "=noplay")
    world.sessions.logout(alice)
    line.text()
    world.reads["zed"].callback(True)
    assert line.text() == "" and world.lists.refusal("alice", "zed") is None


def test_what_a_waited_read_causes_for_its_caller_is_the_answer_again(world):
    alice, line = world.player("alice")
    reply = Reply.open(alice)
    read: Deferred[str] = Deferred()
    waited = resumed(alice, read)
    waited.addCallback(lambda text: alice.inform(f"the board of {text}"))  # as a stored game's
    reply.wait(waited)
    alice.inform("a tell meanwhile")  # not the answer: a notification
    read.callback("game 3")
    assert reply.waiting  # until the dispatcher completes the answer
    reply.done_waiting()
    reply.close()
    assert line.text() == "\na tell meanwhile\nfics% the board of game 3\nfics% "
