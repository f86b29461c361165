"""What interfaces send on their own, answered as FICS regulars' clients expect.

``help channel_list`` (pychess fills its channel list from it at login),
``gameend`` (xboard's zippy sends it after each game) and the refusal of
``match`` to a player who examines a game.  The page is read the way
pychess 1.0.3 reads it (``ChatManager.onChannelList``): from a line that
begins ``channels only for their designated topics.`` to one that begins
``SPECIAL NOTE``, each line between that begins with channel numbers.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO
from ficsfen.server.channel_topics import CHANNEL_TOPICS, channel_list_page
from ficsfen.server.config import Config
from ficsfen.server.testing import ServerProcess

from test_play import Table

# pychess 1.0.3's patterns (re.match: from the start of a line, ignoring case).
START = re.compile("channels only for their designated topics.", re.I)
END = re.compile("SPECIAL NOTE", re.I)
ITEM = re.compile(r"((?:\d+,?)+)\s*(.*)", re.I)


def pychess_channels(text: str) -> dict[int, str]:
    """The channels pychess lists from ``text``; fails where pychess would stall or crash."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if START.match(line))
    end = next(i for i, line in enumerate(lines) if i > start and END.match(line))
    numbers = set(range(256))
    found = {}
    for line in lines[start + 1:end]:
        match = ITEM.match(line)
        if match:
            ids, topic = match.groups()
            for number in ids.split(","):
                numbers.remove(int(number))  # pychess: a number twice or over 255 raises
                found[int(number)] = topic
    return found


def test_the_channel_list_page_is_the_table_pychess_reads():
    table = Table()
    page = table.alice.command("help channel_list")
    assert pychess_channels(page) == {n: t.render("en") for n, t in CHANNEL_TOPICS}
    assert pychess_channels(page)[50] == "General chat"
    assert "Type [next]" not in page  # one page: pychess needs its closing line
    assert len(channel_list_page("en").splitlines()) <= Config().help_page_lines


def test_a_french_person_reads_the_french_page_an_interface_the_english_one():
    table = Table()
    table.alice.command("set lang fr")
    page = table.alice.command("help channel_list")
    assert "50    Discussion générale\n" in page and "SPECIAL NOTE" not in page
    table.bob.command("set lang fr")
    table.bob.command("iset block 1")
    table.bob.send("3 help channel_list")
    frame = table.bob.raw_output().decode("utf-8")
    assert frame.startswith("\x153\x1650\x16channel_list\r\n")  # 50: FICS's code for help
    assert pychess_channels(frame.replace("\r\n", "\n"))[50] == "General chat"


def test_the_help_pages_are_made_from_the_table():
    done = subprocess.run([sys.executable, "tools/channel_list.py", "--check"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_gameend_answers_nothing_unless_aliased():
    table = Table()
    assert table.alice.command("gameend") == ""
    table.alice.command("iset block 1")
    table.alice.send("4 gameend")
    assert table.alice.raw_output() == b"\x154\x160\x16\x17\r\n"  # code 0, not 512
    table.bob.command("alias gameend tell alice Thanks for the game!")
    table.start()
    table.bob.command("resign")
    assert table.bob.command("gameend") == "(told alice)\n"
    assert "bob(U) tells you: Thanks for the game!" in table.alice.output()


def test_match_to_a_player_who_examines_says_so():
    table = Table(registered=True)
    table.carol.command("examine")
    assert table.alice.command("match carol") == "carol is examining a game.\n"
    table.carol.command("set lang fr")
    assert table.carol.command("match alice") == (
        "Vous examinez une partie\u202f; tapez d’abord «\u202funexamine\u202f».\n")
    table.start()
    assert table.carol.command("unexamine") != ""
    assert table.carol.command("match bob") == "bob joue une partie.\n"
    table.alice.command("resign")
    table.alice.command("set lang fr")
    table.carol.command("examine")
    assert table.alice.command("match carol") == "carol examine une partie.\n"


@pytest.mark.slow
def test_on_a_real_server_zippy_gameend_and_the_channel_list(tmp_path):
    with ServerProcess() as server:
        client = server.connect()
        client.login()
        assert client.command("gameend") == ""
        page = client.command("help channel_list")
        assert pychess_channels(page)[1] == "Help for newcomers"
