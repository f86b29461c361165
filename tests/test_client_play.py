"""Playing a game as pychess, eboard and xboard do: the game's start, the moves they send, the end.

pychess starts a game it plays only on four consecutive lines, as FICS sends
them: ``Creating: ...``, ``{Game N (...) Creating ...}``, a blank line, the
``<12>`` board (its prompt-stripped, block-framed lines; a ``fics% `` line
counts as blank).  The lines are cut here the way pychess cuts them.  Moves
are sent the way pychess's ``toAN`` writes them (``e2e4``, ``O-O``,
``b7a8=Q``) and xboard's (``e2e4``, ``b7a8q``).  ``unobserve N`` after the
game has ended gets FICS's answer.
"""

from __future__ import annotations

import re

import chess
import pytest

from ficsfen.server.testing import ServerProcess, connect, make_server

BLOCK_START, BLOCK_SEP, BLOCK_END = "\x15", "\x16", "\x17"
NAME = r"(\w+)"
RATING = r"\(\s*([0-9 +-]{1,4}[P E]?|UNR)\)"
CREATING = re.compile(rf"Creating: {NAME} {RATING} {NAME} {RATING} (rated|unrated) (\S+) (\d+) (\d+)")
HEADER = re.compile(rf"{{Game (\d+) \({NAME} vs\. {NAME}\) (?:Creating|Continuing) (rated|unrated) (\S+) match\.")
# pychess's third pattern is "" matched with re.match: any line passes, the blank
# line FICS sends or anything else; the fourth must then be the board.
START_PATTERNS = (CREATING, HEADER, re.compile(""), re.compile(r"<12> (.+)"))
END = re.compile(r"\{Game (\d+) \((\w+) vs\. (\w+)\) ([A-Za-z']+ .+)\} (\*|1/2-1/2|1-0|0-1)$")

# pychess's toAN forms: coordinates, SAN castling, "=Q" promotions.
PYCHESS_GAME = ["e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "g1f3", "e7e6", "f1e2", "f8e7",
                "O-O", "O-O", "c6b7", "b8d7", "b7a8=Q"]


def client_lines(data: str) -> list[str]:
    """``data`` cut into lines as pychess's TelnetLines does: CR and bell dropped, the
    ``fics%`` prompt stripped from line starts, block framing removed."""
    out = []
    for line in data.replace("\r", "").replace("\x07", "").split("\n"):
        if line.startswith("fics%"):
            line = line[len("fics% "):]
        if line.startswith(BLOCK_START):
            line = line[1:].split(BLOCK_SEP)[-1]
        out.append(line.replace(BLOCK_END, ""))
    return out


def game_start(lines: list[str]) -> list[re.Match] | None:
    """The four matches of pychess's game-start pattern, wherever it occurs in ``lines``
    (None if it occurs nowhere); the line between header and board must be blank, as on FICS."""
    for i in range(len(lines) - 3):
        matches = [p.match(line) for p, line in zip(START_PATTERNS, lines[i:i + 4])]
        if all(matches):
            assert matches[2].string == "", lines[i:i + 4]
            return matches
    return None


def test_both_players_get_fics_four_line_game_start():
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    for client in (alice, bob):
        client.command("style 12")
    bob.command("iset pendinfo 1")
    bob.command("iset block 1")
    alice.command("match bob 5 0 white")
    offer = re.search(r"<pf> (\d+) ", bob.output()).group(1)
    bob.send(f"5 accept {offer}")  # pychess's block-mode line for "accept N"
    accepter = bob.output()
    assert accepter.startswith(f"{BLOCK_START}5{BLOCK_SEP}")
    challenger = alice.output()
    for text, relation in ((accepter, "-1"), (challenger, "1")):
        matches = game_start(client_lines(text))
        assert matches is not None, text
        creating, header, _, board = matches
        assert creating.groups() == ("alice", "++++", "bob", "++++", "unrated", "blitz", "5", "0")
        assert header.groups() == ("1", "alice", "bob", "unrated", "blitz")
        assert board.group(1).split()[18] == relation
        assert "You play" not in text


def test_game_start_with_gameinfo_keeps_the_board_after_a_blank_line():
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    bob.command("style 12")
    bob.command("iset gameinfo 1")
    alice.command("match bob 5 0")
    out = bob.command("accept")
    lines = client_lines(out)
    header = next(i for i, line in enumerate(lines) if HEADER.match(line))
    assert lines[header + 1].startswith("<g1> 1 ")
    assert lines[header + 2:header + 4][0] == "" and lines[header + 3].startswith("<12> ")


def test_unobserve_an_ended_game_is_answered_as_on_fics():
    server = make_server()
    alice, bob, carol = (connect(server) for _ in range(3))
    for client, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        client.login(name)
    alice.command("match bob 5 0 white")
    bob.command("accept")
    carol.command("observe 1")
    for client, move in ((alice, "f3"), (bob, "e5"), (alice, "g4"), (bob, "Qh4#")):
        client.command(move)
    assert "{Game 1 (alice vs. bob) alice checkmated} 0-1" in carol.output()
    # pychess closes the board of the ended game with "unobserve 1".
    assert carol.command("unobserve 1").strip() == "You are not observing game 1."
    assert carol.command("unobserve 7").strip() == "You are not observing game 7."
    assert carol.command("unobserve").strip() == "You are not observing any games."


@pytest.mark.parametrize("promotion", ["b7a8=Q", "b7a8q", "bxa8=Q"])
def test_castling_and_promotion_in_the_forms_clients_send(promotion):
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    game = server.directory.game_of("alice")
    board = chess.Board()
    for move in PYCHESS_GAME[:-1] + [promotion]:
        mover = alice if board.turn else bob
        out = mover.command(move)
        board.push(_parse(board, move))
        assert game.tracker.fen.split()[:3] == board.fen().split()[:3], out
    assert board.piece_at(chess.A8) == chess.Piece(chess.QUEEN, chess.WHITE)


def _parse(board: chess.Board, move: str) -> chess.Move:
    """A client's move read by python-chess: coordinates (``b7a8=Q`` too) or SAN."""
    if re.fullmatch(r"[a-h][1-8][a-h][1-8](=?[QRBNqrbn])?", move):
        return chess.Move.from_uci(move.replace("=", "").lower())
    return board.parse_san(move)


@pytest.fixture(scope="module")
def server_process():
    with ServerProcess() as process:
        yield process


@pytest.mark.slow
def test_a_pychess_session_plays_to_mate_over_loopback(server_process):
    """pychess's main connection (block mode, numbered commands) accepts a match from a
    plain session and mates it; its lines hold the four-line start and the result."""
    pychess, other = server_process.connect(), server_process.connect()
    try:
        me = pychess.login()
        them = other.login()
        pychess.command("iset block 1")
        for n, line in enumerate(["style 12", "iset ms 1", "iset pendinfo 1", "set unobserve 3"],
                                 start=2):
            pychess.send(f"{n} {line}")
            pychess.read_until(BLOCK_END)
        other.command("style 12")
        other.send(f"match {me} 5 0 black")
        offer = re.search(r"<pf> (\d+) ", pychess.read_until("<pf>") + pychess.read_until("\n")).group(1)
        pychess.send(f"9 accept {offer}")
        seen = pychess.read_until("<12> ")
        seen += pychess.read_until(BLOCK_END)
        matches = game_start(client_lines(seen))
        assert matches is not None, seen
        assert matches[0].group(1) == me and matches[0].group(3) == them
        number = 10
        # Scholar's mate, pychess's moves as toAN writes them.
        for mine, reply in (("e2e4", "e5"), ("f1c4", "Nc6"), ("d1h5", "Nf6"), ("h5f7", None)):
            pychess.send(f"{number} {mine}")
            number += 1
            last = pychess.read_until(BLOCK_END)
            if reply:
                other.read_until("<12> ")
                other.send(reply)
                pychess.read_until(f" {reply} ")
        ends = [m for line in client_lines(last) if (m := END.match(line))]
        assert ends and ends[0].groups()[1:] == (me, them, f"{them} checkmated", "1-0"), last
    finally:
        pychess.close()
        other.close()
