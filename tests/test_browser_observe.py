"""A game played over telnet by two guests, watched in a real browser at ``/game/N``:
after every move the board's ``data-fen`` (and the FEN line under it) must equal what
``fen N`` answers over telnet.  A chess game with two-square pushes, en passant, both
castlings, a promotion and checks; a Chess960 game (X-FEN castling) and a crazyhouse
game (pieces in hand, drops, a promoted piece) the same way."""

from __future__ import annotations

import random
import re

import chess
import pytest
from browser import attribute, page_url, text, wait_until

from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

#: 1. e4 d5 2. e5 f5 3. exf6 e.p. ... 5. gxh8=Q ... 6... O-O-O ... 8. O-O ... 10. Qxd8+ ...
CHESS = ("e4 d5 e5 f5 exf6 Nc6 fxg7 Qd6 gxh8=Q Bf5 Nf3 O-O-O Be2 e5 O-O Qd7 Qxg8 Bd6 Qxd8+ Kxd8 "
         "d4 e4 Ng5 Qe7 Nf7+ Ke8 Nxd6+ cxd6 Bb5+").split()
#: captures into the hand, a promotion (bxa8=Q) whose queen moves then is taken back as a
#: pawn (Nxa7), drops giving check (P@d7+, P@d2+, R@b8+)
CRAZYHOUSE = ("e4 d5 exd5 Nf6 c4 c6 dxc6 e5 cxb7 Bd6 bxa8=Q Bb7 Qxa7 Nc6 Nf3 Nxa7 P@d7+ Qxd7 d4 P@d2+ "
              "Nbxd2 e4 R@b8+ Bc8 Nxe4 Nxe4 Bd3 O-O").split()


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


class TelnetGame:
    """Two telnet guests playing one game, and a third who asks ``fen N``."""

    def __init__(self, server: ServerProcess, variant: str = "") -> None:
        self.white, self.black, self.referee = (server.connect() for _ in range(3))
        self.names = [self.white.login(), self.black.login()]
        self.referee.login()
        self.white.command(f"match {self.names[1]} 30 0 white {variant}".strip())
        self.black.read_until(self.black.prompt)  # the challenge
        created = self.black.command("accept")
        m = re.search(r"\{Game (\d+) \(", created)
        assert m is not None, created
        self.number = int(m.group(1))
        self.white.read_until(self.white.prompt)
        self.ply = 0

    def fen(self) -> str:
        return self.referee.command(f"fen {self.number}").strip().splitlines()[-1]

    def move(self, move: str) -> None:
        mover, other = (self.white, self.black) if self.ply % 2 == 0 else (self.black, self.white)
        out = mover.command(move)
        assert "Illegal move" not in out and "not your move" not in out, (move, out)
        other.read_until(other.prompt)
        self.ply += 1

    def close(self) -> None:
        for client in (self.white, self.black, self.referee):
            client.close()


def page_fen(driver) -> str | None:
    return attribute(driver, "board", "data-fen")


def check_board(driver, game: TelnetGame, where: str) -> str:
    """Wait for the page's board to show the server's ``fen``; return it."""
    expected = game.fen()
    seen: list[str | None] = []

    def shown(d):
        seen.append(page_fen(d))
        return seen[-1] == expected
    try:
        wait_until(driver, shown, what=f"data-fen {expected!r} {where}")
    except AssertionError as exc:
        raise AssertionError(f"{where}: the page's FEN {seen[-1]!r} is not the server's {expected!r}") from exc
    assert text(driver, "fen") == expected
    return expected


def watch(chrome, server, game: TelnetGame) -> None:
    chrome.get(page_url(server, f"/game/{game.number}"))
    check_board(chrome, game, "at the start")


def test_a_game_watched_move_after_move(chrome, server):
    game = TelnetGame(server)
    try:
        watch(chrome, server, game)
        fens = []
        for move in CHESS:
            game.move(move)
            fens.append(check_board(chrome, game, f"after {move}"))
        # the en passant square after each two-square push, the capture, both castlings, the promotion
        assert fens[3].split()[3] == "f6" and fens[4].startswith("rnbqkbnr/ppp1p1pp/5P2/3p4/")
        assert fens[11].split()[2] == "KQ" and fens[14].split()[2] == "-"
        assert fens[8].startswith("r1b1kbnQ/")
        game.white.command("resign")
        wait_until(chrome, lambda d: "resigns" in text(d, "game-note"), what="the game's end")
    finally:
        game.close()


def test_a_crazyhouse_game_watched_move_after_move(chrome, server):
    game = TelnetGame(server, "zh")
    try:
        watch(chrome, server, game)
        fens = {}
        for move in CRAZYHOUSE:
            game.move(move)
            fens[move] = check_board(chrome, game, f"after {move}")
        assert fens["bxa8=Q"].startswith("Q~") and "[RPPP]" in fens["bxa8=Q"]
        assert "/Q~b3ppp/" in fens["Qxa7"]
        assert fens["O-O"].split()[0].endswith("[PPPPPnp]") and fens["O-O"].split()[2] == "KQ"
        game.white.command("resign")
    finally:
        game.close()


def _chess960_move(board: chess.Board, castled: dict[bool, bool], rng: random.Random) -> chess.Move:
    """A move towards castling: castle when allowed, else bring a back-rank knight,
    bishop or queen out, else a pawn; once castled, a quiet move."""
    color = board.turn
    moves = list(board.legal_moves)
    if not castled[color]:
        castles = [m for m in moves if board.is_castling(m)]
        if castles:
            return castles[0]
        back = chess.BB_RANK_1 if color == chess.WHITE else chess.BB_RANK_8
        develop = [m for m in moves if chess.BB_SQUARES[m.from_square] & back
                   and not chess.BB_SQUARES[m.to_square] & back
                   and board.piece_type_at(m.from_square) in (chess.KNIGHT, chess.BISHOP, chess.QUEEN)]
        safe = [m for m in develop if not board.is_attacked_by(not color, m.to_square)]
        if safe or develop:
            return rng.choice(safe or develop)
        pawns = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN
                 and not board.is_attacked_by(not color, m.to_square) and not board.gives_check(m)]
        if pawns:
            return rng.choice(pawns)
    quiet = [m for m in moves if not board.is_castling(m)
             and board.piece_type_at(m.from_square) not in (chess.KING, chess.ROOK)
             and not board.is_attacked_by(not color, m.to_square) and not board.gives_check(m)]
    return rng.choice(quiet or moves)


def test_a_chess960_game_watched_move_after_move(chrome, server):
    game = TelnetGame(server, "fr")
    try:
        watch(chrome, server, game)
        board = chess.Board(game.fen(), chess960=True)
        rng = random.Random(960)
        castled = {chess.WHITE: False, chess.BLACK: False}
        while not all(castled.values()) and board.ply() < 80 and not board.is_game_over():
            move = _chess960_move(board, castled, rng)
            san = board.san(move)
            if board.is_castling(move):
                castled[board.turn] = True
            board.push(move)
            game.move(san)
            fen = check_board(chrome, game, f"after {san}")
            assert fen == board.fen(en_passant="fen"), san  # python-chess's X-FEN
        assert any(castled.values()), board.fen()
        game.white.command("resign")
    finally:
        game.close()
