"""The page's move rules (chessrules.js over the vendored chessops) run in the browser
itself, imported from the page's origin as the page loads them: legal destinations with
castling as chessground moves it (standard and Chess960, the king onto its rook), the
move text the server is sent (castling as O-O/O-O-O, promotions as e7e8=q, drops as
N@f3), typed moves in SAN and coordinates, and SAN for the move list."""

from __future__ import annotations

import pytest
from browser import run_in_page

from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

RUN = """
const done = arguments[arguments.length - 1];
import("/static/chessrules.js").then((r) => {
  const standard = r.positionOf("r3k2r/pPpppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
  // Chess960 (X-FEN): king on b1 between rooks on a1 and g1, castling both ways
  const fr = r.positionOf("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w KQkq - 0 1");
  const zh = r.positionOf("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[Np] w KQkq - 0 3");
  const typed = (pos, words) => Object.fromEntries(words.map((w) => {
    const move = r.typedMove(pos, w);
    return [w, move === undefined ? null : r.serverText(pos, move)];
  }));
  done({
    kingDests: r.destsOf(standard).get("e1"),
    frKingDests: r.destsOf(fr, "wild/fr").get("b1"),
    castles: [["e1", "g1"], ["e1", "h1"], ["e1", "c1"], ["e1", "a1"]].map(([o, d]) =>
      r.serverText(standard, r.boardMove(standard, o, d))),
    frCastles: [["b1", "g1"], ["b1", "a1"]].map(([o, d]) => r.serverText(fr, r.boardMove(fr, o, d))),
    promotion: [r.isPromotion(standard, "b7", "a8"), r.isPromotion(standard, "e2", "e4")],
    promoted: r.serverText(standard, r.boardMove(standard, "b7", "a8", r.promotionRole("n"))),
    typed: typed(standard, ["O-O", "0-0-0", "bxa8=Q", "b8=N", "b7b8q", "b7-b8=r", "e4", "e2e4", "Ke2", "e5", "xx"]),
    typedZh: typed(zh, ["N@f3", "n@f3", "P@e4", "Nf3"]),
    san: [r.sanOf(standard, "o-o"), r.sanOf(standard, "bxa8=Q"), r.sanOf(zh, "N@f3"), r.sanOf(zh, "Nf3"),
          r.sanOf(r.positionOf("rnbqkbnr/pppp1ppp/8/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1"), "Qxf7"),
          r.sanOf(standard, "Zz9")],
  });
}, (error) => done({ error: String(error) }));
"""


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


def test_move_rules_in_the_page(chrome, server):
    got = run_in_page(chrome, server, RUN)
    # chessground castles by the king two squares or onto its rook
    assert set(got["kingDests"]) == {"d1", "f1", "g1", "h1", "c1", "a1"}
    assert {"a1", "g1"} <= set(got["frKingDests"])
    assert got["castles"] == ["O-O", "O-O", "O-O-O", "O-O-O"]
    assert got["frCastles"] == ["O-O", "O-O-O"]
    assert got["promotion"] == [True, False]
    assert got["promoted"] == "b7a8=n"
    assert got["typed"] == {"O-O": "O-O", "0-0-0": "O-O-O", "bxa8=Q": "b7a8=q", "b8=N": "b7b8=n",
                            "b7b8q": "b7b8=q", "b7-b8=r": "b7b8=r", "e4": "e2e4", "e2e4": "e2e4",
                            "Ke2": None, "e5": None, "xx": None}
    assert got["typedZh"] == {"N@f3": "N@f3", "n@f3": "N@f3", "P@e4": None, "Nf3": "g1f3"}
    assert got["san"] == ["O-O", "bxa8=Q#", "N@f3", "Nf3", "Qxf7#", "Zz9"]
