"""Observing across two real ``ficsfen serve`` nodes: ``kibitz``, ``whisper``,
``unobserve``, ``allobservers``, ``primary`` and ``follow`` read as on one server.

Each scenario is written once, with the exact texts of a single server, and run
twice: every player on one ``ficsfen serve`` (no cluster), then the players, the
observers and the games split over two nodes sharing a real Redis.  Waits poll
with a generous deadline; nothing is timed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterator

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, node_config

from ficsfen.server.testing import ServerProcess, TelnetClient, accounts_config

pytestmark = pytest.mark.slow

PASSWORDS = {name: name[0] + "pass" for name in ("alice", "bob", "carol", "dave", "erin",
                                                  "frank")}
#: Where each player logs in when the nodes are two (one: "one", two: "two").
NODES = {"alice": "one", "bob": "two", "carol": "one", "dave": "two", "erin": "one",
         "frank": "two"}

Place = Callable[[str], ServerProcess]


@pytest.fixture
def single(tmp_path: Path) -> Iterator[Place]:
    """Every player on one server, alone."""
    with ServerProcess("--config", str(accounts_config(tmp_path / "alone.toml",
                                                       PASSWORDS))) as server:
        yield lambda name: server


@pytest.fixture
def split(redis: RedisServer, tmp_path: Path) -> Iterator[Place]:
    """The players on two nodes sharing one Redis, as :data:`NODES` says."""
    ns = namespace("watch")
    nodes = {name: ServerProcess("--config", str(node_config(tmp_path, name, ns, PASSWORDS)),
                                 "--cluster", redis.url) for name in ("one", "two")}
    with nodes["one"], nodes["two"]:
        yield lambda name: nodes[NODES[name]]


@pytest.fixture(params=["single", "split"])
def place(request: pytest.FixtureRequest) -> Place:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


def login(place: Place, name: str) -> TelnetClient:
    client = place(name).connect()
    client.login(name, PASSWORDS[name])
    client.ask("set style 12", "Style 12 set.")
    return client


def lists(client: TelnetClient, name: str) -> bool:
    """Whether ``who`` lists ``name`` (notices read before it count as nothing)."""
    answer = client.ask("who", "players displayed").split("fics% ")[-2]  # notices end with one
    return re.search(rf"\b{name}\b", answer) is not None


def everyone(place: Place, *names: str) -> dict[str, TelnetClient]:
    """``names`` logged in, once each of them sees all the others in ``who``."""
    clients = {name: login(place, name) for name in names}
    for name, client in clients.items():
        eventually(f"{name} sees everyone", lambda c=client: all(
            re.search(rf"\b{n}\b", c.command("who")) for n in names))
    return clients


def start(challenger: TelnetClient, receiver: TelnetClient, names: str) -> int:
    """A game ``names`` ("alice bob"), offered by ``challenger``; its number."""
    white, black = names.split()
    challenger.ask(f"match {black} 5 0 white", "Issuing:")
    receiver.read_until("Challenge:")
    receiver.read_until("fics% ")
    started = receiver.ask("accept", "Creating unrated blitz match.}")
    number = int(re.search(rf"\{{Game (\d+) \({white} vs\. {black}\) Creating", started).group(1))
    challenger.read_until("Creating unrated blitz match.}")
    challenger.read_until("fics% ")
    return number


def observe(client: TelnetClient, number: int) -> None:
    client.ask(f"observe {number}", f"You are now observing game {number}.")


def heard(client: TelnetClient, end: str) -> str:
    """The line ending with ``end`` that ``client`` reads next (its prompt read too)."""
    line = client.read_until(end).splitlines()[-1]
    client.read_until("fics% ")
    return line


def answer(client: TelnetClient, line: str, marker: str) -> list[str]:
    """The lines of the answer to ``line`` that hold ``marker`` (notices left out)."""
    return [ln for ln in client.ask(line, marker).splitlines() if marker in ln
            or ln.startswith("(")]


def test_kibitz_and_whisper_reach_players_and_observers_on_every_node(place) -> None:
    c = everyone(place, "alice", "bob", "carol", "dave")
    try:
        n = start(c["alice"], c["bob"], "alice bob")  # split: hosted by bob's node, two
        observe(c["carol"], n)  # split: an observer on each node
        observe(c["dave"], n)
        # a player of another node than the game's
        line = f"alice(----)[{n}] kibitzes: hello"
        assert answer(c["alice"], "kibitz hello", "kibitz") == [line, "(kibitzed to 3 players)"]
        for name in ("bob", "carol", "dave"):
            assert heard(c[name], "kibitzes: hello") == line
        # a player of the game's node: an observer on the other node hears it
        line = f"bob(----)[{n}] kibitzes: hi all"
        assert answer(c["bob"], "kibitz hi all", "kibitz") == [line, "(kibitzed to 3 players)"]
        for name in ("alice", "carol", "dave"):
            assert heard(c[name], "kibitzes: hi all") == line
        # an observer of another node whispers: observers only
        line = f"carol(----)[{n}] whispers: psst"
        assert answer(c["carol"], "#psst", "whisper") == [line, "(whispered to 1 player)"]
        assert heard(c["dave"], "whispers: psst") == line
        # an observer of the game's node kibitzes; the players never heard the whisper
        line = f"dave(----)[{n}] kibitzes: done"
        assert answer(c["dave"], "kibitz done", "kibitz") == [line, "(kibitzed to 3 players)"]
        for name in ("alice", "bob", "carol"):
            assert "psst" not in c[name].read_until("kibitzes: done")
        # a player of another node who censors the sender does not hear it
        c["carol"].ask("+censor bob", "[bob] added to your censor list.")
        eventually("bob's node knows", lambda: c["bob"].command("tell carol x").startswith(
            "carol is censoring you."))  # split: her presence entry, a message late at most
        assert answer(c["bob"], "kibitz again", "kibitz")[-1] == "(kibitzed to 2 players)"
        answer(c["dave"], "kibitz last", "kibitz")
        assert "kibitzes: again" not in c["carol"].read_until("kibitzes: last")
    finally:
        for client in c.values():
            client.close()


def test_unobserve_allobservers_and_primary_cover_every_node(place) -> None:
    c = everyone(place, "alice", "bob", "carol", "dave", "erin", "frank")
    try:
        a = start(c["alice"], c["bob"], "alice bob")  # split: hosted by node two
        b = start(c["dave"], c["carol"], "dave carol")  # split: hosted by node one
        erin, frank = c["erin"], c["frank"]  # split: erin on node one, frank on two
        observe(erin, b)
        observe(erin, a)
        observe(frank, a)
        assert erin.command("primary") == f"Your primary game is game {a}.\n"
        assert erin.command(f"primary {b}") == f"Game {b} is now your primary game.\n"
        assert erin.command("primary") == f"Your primary game is game {b}.\n"
        assert erin.command(f"primary {a}") == f"Game {a} is now your primary game.\n"
        assert erin.command(f"primary {a}") == f"Game {a} is already your primary game.\n"
        # her kibitz goes to her primary game
        assert answer(erin, "kibitz mine", "kibitz")[-1] == "(kibitzed to 3 players)"
        for name in ("alice", "bob", "frank"):
            assert heard(c[name], "kibitzes: mine") == f"erin(----)[{a}] kibitzes: mine"
        lines = {a: f"Observing {a} [alice vs. bob]: erin frank (2 users)",
                 b: f"Observing {b} [dave vs. carol]: erin (1 user)"}
        for client in (erin, frank, c["alice"], c["carol"]):
            assert client.command("allobservers") == "".join(
                lines[number] + "\n" for number in sorted(lines))
        assert erin.command(f"allobservers {a}") == lines[a] + "\n"
        assert erin.command("unobserve") == (f"Removing game {b} from observation list.\n"
                                             f"Removing game {a} from observation list.\n")
        assert frank.command("allobservers") == f"Observing {a} [alice vs. bob]: frank (1 user)\n"
        assert erin.command("unobserve") == "You are not observing any games.\n"
        assert erin.command("primary") == "You are not observing any games.\n"
        assert frank.command("unobserve") == f"Removing game {a} from observation list.\n"
        assert c["bob"].command("allobservers") == "No games are being observed.\n"
    finally:
        for client in c.values():
            client.close()


def test_follow_observes_the_games_a_player_starts_on_any_node(place) -> None:
    c = everyone(place, "alice", "bob", "carol", "dave", "erin", "frank")
    try:
        erin = c["erin"]  # split: node one, following bob of node two
        assert erin.command("follow bob") == "You will now be following bob's games.\n"
        n = start(c["alice"], c["bob"], "alice bob")  # split: hosted by bob's node
        text = erin.read_until("<12> ")
        assert text.endswith(f"bob, whom you are following, has started a game with alice.\n"
                             f"You are now observing game {n}.\n"
                             f"Game {n}: alice (----) bob (----) unrated blitz 5 0\n\n<12> ")
        erin.read_until("fics% ")
        assert answer(c["bob"], "kibitz seen", "kibitz")[-1] == "(kibitzed to 2 players)"
        assert heard(erin, "kibitzes: seen") == f"bob(----)[{n}] kibitzes: seen"
        assert erin.command("follow") == "You will not follow any player's games.\n"
        assert erin.command("follow") == "You are not following any player's games.\n"
        # following a player during a game of another node observes it at once
        m = start(c["dave"], c["carol"], "dave carol")  # split: hosted by node one
        frank = c["frank"]  # split: node two, following dave, who plays on node one
        text = frank.ask("follow dave", "<12> ")  # split: the lines of observe, then
        assert text.startswith("You will now be following dave's games.\n")
        assert (f"You are now observing game {m}.\n"
                f"Game {m}: dave (----) carol (----) unrated blitz 5 0\n\n<12> ") in text
        eventually("frank observes the game", lambda: f"Observing {m} [dave vs. carol]: frank "
                   "(1 user)" in erin.command("allobservers"))
        # following ends when the player followed logs out (split: of the other node)
        assert erin.command("follow frank") == "You will now be following frank's games.\n"
        frank.close()
        eventually("frank is gone for erin", lambda: not lists(erin, "frank"))
        c["frank"] = login(place, "frank")
        eventually("frank is back for erin", lambda: lists(erin, "frank"))
        assert erin.command("follow frank") == "You will now be following frank's games.\n"
    finally:
        for client in c.values():
            client.close()
