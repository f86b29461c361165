"""Seeks and talk over real sockets: ``ficsfen serve`` on a loopback port.

Two guests meet through seek/sought/play and play a game; <s> lines are read
the way pychess reads them; tells, says, kibitzes and channel messages
reach exactly the right people, each in their own language; a flood is
rate-limited while everyone else goes on talking.
"""

from __future__ import annotations

import re

import pytest

from ficsfen.server.testing import ServerProcess

# pychess (SeekManager): the line, then key=value words.
SEEK_LINE = re.compile(r"<s(?:n?)> (.+)")
SEEK_REMOVED = re.compile(r"<sr> ([\d ]+)")
# pychess (ChatManager): tells and says, channel tells.
NAMES = r"([A-Za-z]+)(?:\([A-Z*]+\))*"
PRIVATE = re.compile(NAMES + r"(\*)?(?:\[(\d+)\])? (?:tells you|says): (.*)")
CHANNEL = re.compile(NAMES + r"(\*)?\((\d+)\): (.*)")
DATE_END = "GMT            - "


def pychess_seek(line: str) -> dict:
    """A ``<s>`` line as pychess turns it into a seek (its own steps, in our words)."""
    m = SEEK_LINE.search(line)
    assert m is not None, line
    parts = m.group(1).split(" ")
    fields = dict(p.split("=") for p in parts[1:] if p)
    rating = fields["rt"]
    if rating[-1] in (" ", "P", "E"):
        rating = rating[:-1]
    low, high = (int(r) for r in fields["rr"].split("-"))
    return {"index": int(parts[0]), "player": fields["w"], "titles": int(fields["ti"], 16),
            "rating": int(rating), "minutes": int(fields["t"]), "increment": int(fields["i"]),
            "rated": fields["r"] == "r", "type": fields["tp"],
            "colour": {"W": "white", "B": "black"}.get(fields["c"]), "range": (low, high),
            "automatic": fields["a"] == "t"}


def heard(client, marker: str) -> str:
    """A notification up to ``marker``, and the prompt after it (read and dropped)."""
    text = client.read_until(marker)
    client.read_until(client.prompt)
    return text


def _drain(client) -> str:
    """Everything the client has been sent so far (a ``date`` marks the end)."""
    client.send("date")
    return client.read_until(DATE_END) + client.read_until(client.prompt)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    conf = tmp_path_factory.mktemp("talk") / "talk.toml"
    conf.write_text("[limits]\ntalk_per_minute = 10\n")
    with ServerProcess("--config", str(conf)) as process:
        yield process


@pytest.mark.slow
def test_two_guests_meet_through_seek_sought_play_and_play(server):
    with server.connect() as a, server.connect() as b, server.connect() as graph:
        alice, bob = a.login(), b.login()
        graph.login()
        assert graph.command("iset seekinfo 1") == "seekinfo set.\n<sc>\n"
        out = a.command("seek 2 1 white")
        index = int(re.search(r"posted with index (\d+)\.", out).group(1))
        graph.read_until("\n<s> ")
        seek = pychess_seek("<s> " + heard(graph, "\n"))
        assert seek == {"index": index, "player": alice, "titles": 1, "rating": 0, "minutes": 2,
                        "increment": 1, "rated": False, "type": "lightning", "colour": "white",
                        "range": (0, 9999), "automatic": True}
        heard(b, "to respond)")  # the announcement (set seek 1)
        listing = b.command("sought")
        assert re.search(rf"^\s*{index} \+\+\+\+ {alice}\s+2\s+1 unrated lightning\s+\[white\]",
                         listing, re.M), listing
        out = b.command(f"play {index}")
        assert f"Creating: {alice} (++++) {bob} (++++) unrated lightning 2 1" in out
        a.read_until("Creating:")
        a.read_until(a.prompt)
        graph.read_until("<sr>")
        removed = SEEK_REMOVED.search("<sr>" + heard(graph, "\n"))
        assert index in [int(n) for n in removed.group(1).split()]
        said = ""
        for mover, other, san in ((a, b, "f3"), (b, a, "e5"), (a, b, "g4"), (b, a, "Qh4#")):
            said += mover.command(san)
            other.read_until(other.prompt)
        assert "{Game" in said and "checkmated} 0-1" in said + _drain(b)
        assert "0 ads displayed." in graph.command("sought all")


def test_messages_reach_exactly_the_right_people_in_their_language(server):
    with server.connect() as a, server.connect() as b, server.connect() as c, \
            server.connect() as d:
        alice, bob, carol, dave = a.login(), b.login(), c.login(), d.login()
        c.command("set language fr")
        d.command(f"+censor {alice}")
        # a tell: only bob hears it, in English; carol in French.
        assert a.command(f"tell {bob} hello") == f"(told {bob})\n"
        assert PRIVATE.search(heard(b, "hello")).groups()[3] == "hello"
        a.command(f"tell {carol} salut")
        assert f"{alice}(U) vous dit\u202f: salut" in heard(c, "salut")
        assert a.command(f"tell {dave} hi") == f"{dave} is censoring you.\n"
        # channel 7: everyone joins; dave censors alice.
        for client in (a, b, c, d):
            client.command("+channel 7")
        out = a.command("tell 7 to-seven")
        assert "(told 2 players in channel 7)" in out
        assert CHANNEL.search(heard(b, "to-seven")).groups()[2:] == ("7", "to-seven")
        assert f"{alice}(U)(7)\u202f: to-seven" in heard(c, "to-seven")
        # a game: say reaches the opponent, kibitz players and observers.
        a.command(f"match {bob} 1 0")
        heard(b, "Challenge:")
        b.command("accept")
        a.read_until("Creating:")
        a.read_until(a.prompt)
        c.command(f"observe {alice}")
        d.command(f"observe {alice}")
        assert a.command("say good luck") == f"(told {bob}, who is playing)\n"
        groups = PRIVATE.search(heard(b, "good luck")).groups()
        assert (groups[0], groups[3]) == (alice, "good luck")
        out = c.command("kibitz bien")
        assert "(commentaire envoyé à 3 joueurs)" in out  # alice, bob and dave

        assert f"{carol}(U)(++++)" in heard(a, "kibitzes: bien")
        assert f"{carol}(U)(++++)" in heard(b, "kibitzes: bien")
        assert "kibitzes: bien" in heard(d, "kibitzes: bien")
        a.command("kibitz from alice")
        seen = {name: _drain(client) for name, client in
                (("bob", b), ("carol", c), ("dave", d))}
        assert "kibitzes: from alice" in seen["bob"]
        assert "commente\u202f: from alice" in seen["carol"]
        assert "from alice" not in seen["dave"]  # censoring
        assert "tells you: hi" not in seen["dave"] and "to-seven" not in seen["dave"]


def test_a_flood_is_rate_limited_without_harming_anyone_else(server):
    with server.connect() as spammer, server.connect() as victim, server.connect() as friend:
        spam = spammer.login()
        name = victim.login()
        friend.login()
        spammer.send(f"tell {name} spam\r\n" * 200 + "date")
        text = spammer.read_until(DATE_END) + spammer.read_until(spammer.prompt)
        assert text.count(f"(told {name})") == 10
        assert text.count("You are sending messages too quickly.") == 190
        assert friend.command(f"tell {name} hello") == f"(told {name})\n"
        seen = _drain(victim)
        assert seen.count(f"{spam}(U) tells you: spam") == 10
        assert "tells you: hello" in seen
