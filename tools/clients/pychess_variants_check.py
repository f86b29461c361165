#!/usr/bin/python3
"""pychess's own main connection observes ``ficsfen serve``'s crazyhouse and Chess960 games.

    /usr/bin/python3 tools/clients/pychess_variants_check.py --checkout /path/to/ficsfen

Run with the system Python that has Debian's pychess (1.0.3); no display is
needed.  It starts the checkout's ``ficsfen serve --data none`` and runs
pychess's real ``FICSMainConnection`` against it under asyncio (its own guest
login and set-up lines, among them ``set style 12``, ``iset startpos 1`` and
``iset movecase 1``).  Two raw telnet guests (``pychess_check.Guest``) play:

- a crazyhouse game (``match B 3 0 zh``) with captures and drops:
  1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 P@e4 5. Nxe4;
- a Chess960 game (``match B 3 0 fr``) from the position the server picks,
  with a line found offline with python-chess in which White castles.

pychess observes each game with its own ``BoardManager.observe`` (``observe
N``); on its ``obsGameCreated`` signal the tool does what pychess's lounge
does without the widgets: an ``ICGameModel`` with two ``ICPlayer``s, loaded
from the PGN pychess built out of ``moves N``.  Checked on pychess's own
objects: the game type it read (``FICSGame.game_type``), every ``<12>`` line
as its ``BoardManager.parseStyle12`` read it, and its game model's board
after every move (placement, side to move, crazyhouse holdings in its
``LBoard.holding``), against python-chess's variant boards.

pychess 1.0.3 has no parser for ``<b1>`` lines (nothing in it matches
``<b1>``; its ``iset gameinfo 1`` is commented out): its crazyhouse holdings
come from replaying the moves on its own ``CrazyhouseBoard``.  The tool
prints the ``<b1>`` lines the server sent pychess and checks that they agree
with python-chess and with pychess's holdings.  ``--transcript FILE`` keeps
every line pychess wrote and read.  Exits 1 if a check fails.  Not part of
the test suite.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pychess_check import Guest  # noqa: E402
from pychess_seeks_check import Checks, check_live, close, record, until  # noqa: E402

chess = None  # python-chess, from the checkout's virtual environment (main() imports it)

ZH_LINE = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@d4", "P@e4", "Nxe4"]
PIECE_LETTERS = "PNBRQK"


def castling_line(fen: str, seed: int = 960) -> list[str]:
    """A short legal line from ``fen`` (Chess960) in which White castles: SAN moves.

    Random playouts of quiet moves (back-rank pieces other than king and rooks, and
    pawns) until White can castle; the shortest of the first 300 playouts is kept.
    """
    rng = random.Random(seed)
    best: list[str] | None = None
    for tries in range(5000):
        if best is not None and tries >= 300:
            break
        board = chess.Board(fen, chess960=True)
        line: list[str] = []
        for _ply in range(30):
            legal = list(board.legal_moves)
            castles = [m for m in legal if board.is_castling(m)]
            if castles and board.turn == chess.WHITE:
                line.append(board.san(castles[0]))
                if best is None or len(line) < len(best):
                    best = line
                break
            home = 0 if board.turn == chess.WHITE else 7
            quiet = [m for m in legal if not board.is_castling(m) and not board.is_capture(m)
                     and not board.gives_check(m)
                     and board.piece_type_at(m.from_square) not in (chess.KING, chess.ROOK)]
            out = [m for m in quiet if chess.square_rank(m.from_square) == home
                   and board.piece_type_at(m.from_square) != chess.PAWN]
            pawns = [m for m in quiet if board.piece_type_at(m.from_square) == chess.PAWN]
            pool = out + pawns or quiet
            if not pool:
                break
            move = rng.choice(pool)
            line.append(board.san(move))
            board.push(move)
    if best is None:
        raise SystemExit(f"no castling line found from {fen}")
    return best


def style12_fen(line: str) -> str:
    """Placement and side to move of a ``<12>`` line, as a FEN prefix."""
    fields = line.split()
    ranks = [re.sub("-+", lambda m: str(len(m.group())), row) for row in fields[1:9]]
    return "/".join(ranks) + " " + fields[9].lower()


def pockets_of(board: chess.variant.CrazyhouseBoard) -> dict[str, dict[str, int]]:
    return {side: {chess.piece_symbol(pt).upper(): board.pockets[color].count(pt)
                   for pt in range(1, 6) if board.pockets[color].count(pt)}
            for side, color in (("white", chess.WHITE), ("black", chess.BLACK))}


def pychess_pockets(lboard) -> dict[str, dict[str, int]]:
    """The holdings of pychess's ``LBoard`` (``holding[color][piece]``), as letters."""
    from pychess.Utils.const import BLACK, WHITE, reprSign

    return {side: {reprSign[piece]: n for piece, n in lboard.holding[color].items() if n}
            for side, color in (("white", WHITE), ("black", BLACK))}


def b1_pockets(line: str) -> dict[str, dict[str, int]]:
    m = re.match(r"<b1> game \d+ white \[(\w*)\] black \[(\w*)\]", line)
    return {side: {p: text.upper().count(p) for p in PIECE_LETTERS if text.upper().count(p)}
            for side, text in (("white", m.group(1)), ("black", m.group(2)))}


class Observer:
    """What pychess's lounge does on ``obsGameCreated``, without its widgets."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.models: dict[int, object] = {}
        self.boards: dict[int, list] = {}
        self.created: list = []
        conn.bm.connect("obsGameCreated", self.on_created)

    def on_created(self, _bm, ficsgame) -> None:
        from pychess.ic.ICGameModel import ICGameModel
        from pychess.Players.ICPlayer import ICPlayer
        from pychess.Savers import pgn
        from pychess.Utils.TimeModel import TimeModel
        from pychess.Utils.const import BLACK, WHITE

        self.created.append(ficsgame)
        model = ICGameModel(self.conn, ficsgame, TimeModel(ficsgame.minutes * 60, ficsgame.inc))
        model.connect("game_started",
                      lambda _m: self.conn.bm.onGameModelStarted(ficsgame.gameno))
        model.connect("game_changed", lambda m, ply: self.boards[ficsgame.gameno].append(
            (ply, m.boards[-1])))
        model.setPlayers([ICPlayer(model, p.name, ficsgame.gameno, color, p.long_name(),
                                   p.getRatingForCurrentGame())
                          for p, color in ((ficsgame.wplayer, WHITE), (ficsgame.bplayer, BLACK))])
        self.models[ficsgame.gameno] = model
        self.boards[ficsgame.gameno] = []
        model.loadAndStart(StringIO(ficsgame.board.pgn), pgn, 0, -1)
        self.boards[ficsgame.gameno].append((model.ply, model.boards[-1]))


async def start_game(port: int, kind: str) -> tuple[Guest, Guest, int, str]:
    """Two guests; the first matches the second with ``kind``; (white, black, N, first <12>)."""
    loop = asyncio.get_running_loop()
    a, b = Guest(port), Guest(port)
    a_name = await loop.run_in_executor(None, a.login)
    b_name = await loop.run_in_executor(None, b.login)
    for g in (a, b):
        g.send("set style 12")
        await loop.run_in_executor(None, g.read_until, rb"fics% ")
    a.send(f"match {b_name} 3 0 white {kind}")
    await loop.run_in_executor(None, b.read_until, rb"Challenge: ")
    b.send("accept")
    text = (await loop.run_in_executor(None, a.read_until, rb"<12> [^\r\n]*\r\n")).decode()
    m = re.search(r"\{Game (\d+) \((\w+) vs\. (\w+)\) Creating ([^\}]*)\}", text)
    print(f"{kind}: {m.group(0)}", flush=True)
    assert (m.group(2), m.group(3)) == (a_name, b_name), text
    return a, b, int(m.group(1)), re.search(r"<12> [^\r\n]*", text).group(0)


async def observe_and_play(conn, obs: Observer, port: int, check: Checks, kind: str,
                           style12s: list, transcript: list[str]) -> tuple[Guest, Guest]:
    from pychess.ic.FICSObjects import FICSGame

    white, black, gameno, first = await start_game(port, kind)
    if kind == "zh":
        expected = chess.variant.CrazyhouseBoard()
        line, want_type, want_variant = ZH_LINE, "crazyhouse", "Crazyhouse"
    else:
        start = style12_fen(first).split()[0] + " w KQkq - 0 1"
        expected = chess.Board(start, chess960=True)
        line, want_type, want_variant = castling_line(expected.fen()), "wild/fr", "Fischerandom"
        print(f"     Chess960 start {expected.fen(shredder=True)}; line {' '.join(line)}")

    seen_before = len(obs.created)
    conn.bm.observe(FICSGame(conn.players.get(white_name(first)),
                             conn.players.get(black_name(first)), gameno=gameno))
    ok = await until(lambda: gameno in obs.models and obs.models[gameno].ply == 0, 15)
    game = obs.created[-1] if len(obs.created) > seen_before else None
    check(f"{kind}: obsGameCreated, FICSGame.game_type", ok and game.game_type.fics_name == want_type,
          game and (game.gameno, game.game_type.fics_name, game.game_type.variant_type,
                    game.game_type.variant.__name__, game.minutes, game.inc))
    model = obs.models.get(gameno)
    if model is None:
        return white, black
    check(f"{kind}: the game model's variant and PGN Variant tag", model.variant.__name__ ==
          f"{want_variant}Board" and f'[Variant "{want_variant}"]' in game.board.pgn,
          (model.variant.__name__, [t for t in game.board.pgn.splitlines() if "Variant" in t
                                    or "FEN" in t]))
    check(f"{kind}: start position", model.boards[-1].asFen().split()[0].split("/")[:8] ==
          expected.board_fen().split("/"), model.boards[-1].asFen())

    castled = False
    for n, san in enumerate(line, 1):
        mover = white if expected.turn == chess.WHITE else black
        castled = castled or expected.is_castling(expected.parse_san(san))
        expected.push_san(san)
        mark = len(style12s)
        mover.send(san)
        ok = await until(lambda: model.ply >= n, 10)
        board = model.boards[-1]
        got = board.asFen()
        placement = got.split()[0].split("/")[:8]
        turn = got.split()[1]
        want_turn = "w" if expected.turn == chess.WHITE else "b"
        parsed = [(g, ply, fen) for g, ply, fen in style12s[mark:] if g == gameno]
        seen = {"pychess board": got, "python-chess": expected.fen(shredder=kind != "zh"),
                "parseStyle12": parsed[-1:] if parsed else None}
        good = (ok and model.ply == n and placement == expected.board_fen().split("/")
                and turn == want_turn and bool(parsed)
                and parsed[-1][2].split()[0] == expected.board_fen() and parsed[-1][1] == n)
        if kind == "zh":
            seen["holdings"] = (pychess_pockets(board.board), pockets_of(expected))
            good = good and seen["holdings"][0] == seen["holdings"][1]
        else:
            seen["castling"] = (got.split()[2], parsed[-1][2].split()[2] if parsed else None,
                                expected.fen(shredder=True).split()[2])
        check(f"{kind}: ply {n} {san}", good, seen)
        await asyncio.sleep(0.2)

    if kind == "zh":
        b1 = [t[3:] for t in transcript if t.startswith("S< '<b1> game " + str(gameno) + " ")]
        print("     <b1> lines pychess read:")
        for t in b1:
            print("       ", t)
        last = [t.strip("'") for t in b1 if "<-" not in t]
        check(f"{kind}: last <b1> holdings == python-chess == pychess's LBoard.holding",
              bool(last) and b1_pockets(last[-1]) == pockets_of(expected)
              == pychess_pockets(model.boards[-1].board), last[-1:])
        takers = sorted({p.name for p in conn.predictions for rx in p.regexps[:1]
                         if any(rx.match(t.strip("'")) for t in b1)})
        print(f"     pychess predictions whose first pattern matches a <b1> line: {takers}")
    else:
        check(f"{kind}: the line castled", castled, line)

    return white, black


def white_name(style12: str) -> str:
    return style12.split()[17]


def black_name(style12: str) -> str:
    return style12.split()[18]


async def run(port: int, check: Checks, transcript: list[str]) -> None:
    from pychess.ic.FICSConnection import FICSMainConnection
    from pychess.ic.managers.BoardManager import BoardManager

    record(transcript)
    style12s: list[tuple[int, int, str]] = []
    parse = BoardManager.parseStyle12.__func__

    def logged_parse(cls, line, castleSigns=None):
        out = parse(cls, line, castleSigns)
        style12s.append((out[0], out[3], out[-1]))
        return out

    BoardManager.parseStyle12 = classmethod(logged_parse)

    # pychess connects once; a Guest waits for the server to listen
    (await asyncio.get_running_loop().run_in_executor(None, Guest, port)).sock.close()
    conn = FICSMainConnection("127.0.0.1", [port], False, "guest", "")
    task = asyncio.ensure_future(conn.start())
    if not await until(lambda: conn.isConnected(), 20):
        raise SystemExit("pychess did not log in")
    print("pychess logged in as", conn.getUsername(), flush=True)
    obs = Observer(conn)
    await until(lambda: False, 1)  # let its set-up lines be answered
    # Both games stay on until the end: ficsfen does not send observers FICS's "Removing game
    # N from observation list." when a game ends, and pychess frees its per-game state only
    # on that line, so a second game with the same number would not be observed.
    guests = []
    for kind in ("zh", "fr"):
        guests += await observe_and_play(conn, obs, port, check, kind, style12s, transcript)
    await close(conn, task, guests)


def main() -> int:
    global chess
    checkout = Path(sys.argv[sys.argv.index("--checkout") + 1]) if "--checkout" in sys.argv else None
    if checkout is not None:  # python-chess from the checkout's virtual environment
        sys.path.extend(str(d) for d in (checkout / ".venv/lib").glob("python3*/site-packages"))
    import chess.variant
    return check_live(__doc__.splitlines()[0], run, ("--data", "none"))


if __name__ == "__main__":
    sys.exit(main())
