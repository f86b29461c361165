"""``bsetup fr`` / ``bsetup zh``: set up a Chess960 or crazyhouse position and examine it.

Each position is set up through the server, then a drop or a castling is
played; ``fen``, ``fen shredder``, the ``<12>`` line and the ``<b1>``
holdings line must be python-chess's for its variant board.
"""

from __future__ import annotations

import chess
import chess.variant
import pytest
from twisted.internet.task import Clock

from ficsfen.server.testing import connect, make_server

from test_variant_server import check_style12, expected_holdings


def _last(text: str) -> str:
    return text.strip().splitlines()[-1]


def _line(text: str, prefix: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(prefix))


@pytest.fixture
def alice():
    client = connect(make_server(clock=Clock()))
    client.login("alice")
    client.command("style 12")
    client.command("examine")
    return client


def _set_up(client, words: str, fen: str, board: chess.Board | None = None) -> str:
    """``bsetup WORDS``, ``bsetup fen FEN`` (echoed as python-chess writes ``board``), done."""
    assert "Setup position:" in client.command(f"bsetup {words}")
    expected = fen if board is None else board.fen(en_passant="fen")
    assert _last(client.command(f"bsetup fen {fen}")) == f"Setup position: {expected}"
    return client.command("bsetup done")


@pytest.mark.parametrize("words", ["zh", "crazyhouse"])
def test_crazyhouse_position_with_holdings_then_a_drop(alice, words):
    fen = "r3k2r/ppp2ppp/2n5/8/8/5N2/PPP2PPP/R3K2R[NPPbq] w KQkq - 3 12"
    board = chess.variant.CrazyhouseBoard(fen)
    shown = _set_up(alice, words, fen, board)
    check_style12(_line(shown, "<12> "), board, None, None)
    assert _line(shown, "<b1> ") == expected_holdings(board, 1)
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")
    move = chess.Move.from_uci("N@e5")
    san = board.san(move)
    out = alice.command(san)
    board.push(move)
    check_style12(_line(out, "<12> "), board, move, san)
    assert _line(out, "<b1> ") == expected_holdings(board, 1)
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")
    assert alice.command("P@h1").startswith("Illegal move")  # no pawn on the first rank
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")


@pytest.mark.parametrize("words, rights, shredder", [("fr", "GBgb", True), ("wild fr", "GBg", False)])
def test_chess960_position_with_rook_file_castling_then_castles(alice, words, rights, shredder):
    board = chess.Board(f"rr3kr1/pppppppp/8/8/8/8/PPPPPPPP/RR3KR1 w {rights} - 0 1", chess960=True)
    typed = board.fen(shredder=shredder, en_passant="fen")  # X-FEN writes b-file rooks "B"/"b"
    shown = _set_up(alice, words, typed, board)
    check_style12(_line(shown, "<12> "), board, None, None)
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")
    assert _last(alice.command("fen shredder")) == board.fen(shredder=True, en_passant="fen")
    move = next(m for m in board.legal_moves if board.is_castling(m))  # O-O: king f1, rook g1
    san = board.san(move)
    out = alice.command(san)
    board.push(move)
    check_style12(_line(out, "<12> "), board, move, san)
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")
    assert _last(alice.command("fen shredder")) == board.fen(shredder=True, en_passant="fen")
    alice.command("backward")
    alice.command("forward")
    assert _last(alice.command("fen")) == board.fen(en_passant="fen")


@pytest.mark.parametrize("words, good, bad, english, french", [
    ("zh", "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "4k3/8/8/8/8/8/8/4K3[X] w - - 0 1",
     'field 1 (placement): "[X]": "X" is not a piece letter that can be in hand',
     "champ 1 (placement)\u202f: «\u202f[X]\u202f»\u202f: «\u202fX\u202f» n’est pas la lettre"),
    ("fr", "rr3kr1/pppppppp/8/8/8/8/PPPPPPPP/RR3KR1 w Gg - 0 1",
     "rr3kr1/pppppppp/8/8/8/8/PPPPPPPP/RR3KR1 w CGbg - 0 1",
     'field 3 (castling): "C" needs a White rook on c1',
     "champ 3 (roques)\u202f: «\u202fC\u202f»"),
])
def test_a_bad_variant_field_is_the_codecs_error_and_the_session_goes_on(alice, words, good, bad,
                                                                         english, french):
    alice.command(f"bsetup {words}")
    draft = _last(alice.command(f"bsetup fen {good}")).removeprefix("Setup position: ")
    assert english in alice.command(f"bsetup fen {bad}")
    assert _last(alice.command("bsetup tomove black")).startswith("Setup position:")
    alice.command("bsetup tomove white")
    alice.command("set language fr")
    assert french in alice.command(f"bsetup fen {bad}")
    assert "<12> " in alice.command("bsetup done")  # the last good draft is set up
    assert _last(alice.command("fen")) == draft


def test_a_variant_not_played_here_is_refused_and_setup_stays_chess(alice):
    out = alice.command("bsetup suicide")
    assert "Sorry, suicide games cannot be played on this server yet." in out
    assert "bsetup fr | wild fr | crazyhouse | zh" in out
    alice.command("bsetup fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    alice.command("bsetup done")
    assert _last(alice.command("fen")) == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_setup_from_an_examined_crazyhouse_position_keeps_its_rules(alice):
    _set_up(alice, "zh", "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1")
    alice.command("bsetup")
    alice.command("bsetup tomove black")
    alice.command("bsetup done")
    assert _last(alice.command("fen")) == "4k3/8/8/8/8/8/8/4K3[Q] b - - 0 1"
    alice.command("bsetup fen 3k4/8/8/8/8/8/8/4K3[Rq]")  # a placement alone may carry holdings
    out = alice.command("bsetup done")
    assert _line(out, "<b1> ") == "<b1> game 1 white [R] black [Q]"
    alice.command("Q@d1")
    assert _last(alice.command("fen")) == chess.variant.CrazyhouseBoard(
        "3k4/8/8/8/8/8/8/3qK3[R] w - - 1 2").fen()
