"""The page's FEN rules run in the browser itself (the modules imported by the page's
origin, as the page loads them): X-FEN castling letters when the castling rook is not
the outermost (Chess960), the pieces in hand and promoted pieces of crazyhouse, from
boards and "<b1>" lines as the server sends them."""

from __future__ import annotations

import pytest
from browser import run_in_page

from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

RUN = """
const done = arguments[arguments.length - 1];
Promise.all([import("/static/style12.js"), import("/static/gamefen.js")]).then(([s, g]) => {
  const ranks = (rank8, rank1) => [rank8, "pppppppp", "--------", "--------", "--------", "--------", "PPPPPPPP", rank1];
  const all = [true, true, true, true];
  const game = new g.GameFen();
  const board = (ranks8to1, side, verbose, move) =>
    `<12> ${ranks8to1.join(" ")} ${side} -1 0 0 0 0 0 7 a b 0 3 0 39 39 180 180 ${move} ${verbose} (0:00) x 0 1 0`;
  const zhStart = ["rnbqkbnr", "pPpppppp", "--------", "--------", "--------", "--------", "P-PPPPPP", "RNBQKBNR"];
  const afterPromotion = ["Qnbqkbnr", "p-pppppp", "--------", "--------", "--------", "--------", "P-PPPPPP", "RNBQKBNR"];
  const afterMove = ["-nbqkbnr", "Q-pppppp", "--------", "--------", "--------", "--------", "P-PPPPPP", "RNBQKBNR"];
  const fens = [
    game.board(board(zhStart, "W", "none", 5)).fen,
    (game.holdings("<b1> game 7 white [P] black [P]"), game.last && game.withFen(game.last).fen),
    game.board(board(afterPromotion, "B", "P/b7-a8=Q", 5)).fen,
    game.holdings("<b1> game 7 white [RP] black [P] <- WR").fen,
    game.board(board(afterMove, "W", "Q/a8-a7", 6)).fen,
  ];
  // Chess960 joined midway: the castling rook g1 stands inside the rook h1; the
  // server's record says so, the first board cannot
  const chess960 = new g.GameFen();
  const joined = ["rk----r-", "pppppppp", "--------", "--------", "--------", "--------", "PPPPPPPP", "RK----RR"];
  const board960 = (side, move) =>
    `<12> ${joined.join(" ")} ${side} -1 1 1 1 1 0 9 a b 0 3 0 39 39 180 180 ${move} none (0:00) none 0 1 0`;
  const first = chess960.board(board960("W", 20));
  const stale = chess960.seed("Game 9 (a vs. b):\\nrk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4RR w GQkq - 0 19");
  const seeded = chess960.seed("Game 9 (a vs. b):\\nrk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4RR w GQkq - 0 20");
  const again = chess960.board(board960("W", 20));
  done({
    seed960: [first.seed, first.fen, stale, seeded.fen, again.seed, again.fen],
    record: ((r) => ({ ...r, promoted: [...r.promoted] }))(g.parseRecord("Game 3 (a vs. b):\\nQ~nbqk2r/p4ppp/3b1n2/4p3/2P5/8/PP1P1PPP/RNBQKBNR[RPPPp] b KQk - 0 6")),
    noRecord: g.parseRecord("There is no such game."),
    usual: s.castlingField(ranks("rnbqkbnr", "RNBQKBNR"), all),
    innerWhiteQueenside: s.castlingField(ranks("rk----r-", "RR--K--R"), all, { K: 7, Q: 1, k: 6, q: 0 }),
    innerBlackKingside: s.castlingField(ranks("r---k-rr", "R---K--R"), all, { K: 7, Q: 0, k: 6, q: 0 }),
    firstSeen: s.castlingRooks(ranks("rk----r-", "R--K---R"), all),
    none: s.castlingField(ranks("rnbqkbnr", "RNBQKBNR"), [false, false, false, false]),
    hand: g.handField("PNQ", "pbr"),
    holdings: g.parseHoldings("<b1> game 12 white [PPN] black [] <- WN"),
    fens,
  });
}, (error) => done({ error: String(error) }));
"""


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


def test_x_fen_castling_and_crazyhouse_holdings_in_the_page(chrome, server):
    got = run_in_page(chrome, server, RUN)
    assert got["usual"] == "KQkq"
    # a rook inside the outermost one is written by its file (X-FEN)
    assert got["innerWhiteQueenside"] == "KBkq"
    assert got["innerBlackKingside"] == "KQgq"
    assert got["firstSeen"] == {"K": 7, "Q": 0, "k": 6, "q": 0}
    assert got["none"] == "-"
    assert got["hand"] == "QNPrbp"
    assert got["holdings"] == {"game": 12, "white": "PPN", "black": ""}
    start, held, promoted, captured, moved = got["fens"]
    assert start == "rnbqkbnr/pPpppppp/8/8/8/8/P1PPPPPP/RNBQKBNR w - - 0 5"
    assert held == "rnbqkbnr/pPpppppp/8/8/8/8/P1PPPPPP/RNBQKBNR[Pp] w - - 0 5"
    assert promoted == "Q~nbqkbnr/p1pppppp/8/8/8/8/P1PPPPPP/RNBQKBNR[Pp] b - - 0 5"
    assert captured == "Q~nbqkbnr/p1pppppp/8/8/8/8/P1PPPPPP/RNBQKBNR[RPp] b - - 0 5"
    assert moved == "1nbqkbnr/Q~1pppppp/8/8/8/8/P1PPPPPP/RNBQKBNR[RPp] w - - 0 6"
    # the server's record (fen N) read: the promoted squares, the hand, the castling rooks
    record = got["record"]
    assert record["promoted"] == ["a8"] and record["hand"] == {"white": "RPPP", "black": "P"}
    assert record["ranks"][0] == "Qnbqk--r" and (record["side"], record["castling"]) == ("b", "KQk")
    assert got["noRecord"] is None
    first, first_fen, stale, seeded, again, again_fen = got["seed960"]
    assert first is True and first_fen.split()[2] == "KQkq"  # the outermost rook, as guessed
    assert stale is None  # a record of another position changes nothing
    assert seeded == "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4RR w GQkq - 0 20"
    assert again is False and again_fen == seeded  # the same position again: kept, nothing asked
