// A FICS style 12 board line ("<12> ...", `style 12`) read into what the page shows:
// the FEN record of the position (PGN section 16.1, the en passant square after every
// two-square pawn push, as the server's `fen` command writes it), the players, the
// clocks, the last move.  Pure functions: no DOM, no network.

const FILES = "abcdefgh";

/**
 * The placement field of FEN from style 12's eight ranks ("rnbqkbnr" ... "-" empty),
 * with "~" after the pieces on the squares of `promoted` (crazyhouse: once pawns).
 */
export function placement(ranks, promoted = new Set()) {
  return ranks
    .map((rank, row) =>
      [...rank].map((c, file) => (c !== "-" && promoted.has(FILES[file] + (8 - row)) ? c + "~" : c)).join(""))
    .map((rank) => rank.replace(/-+/g, (run) => String(run.length)))
    .join("/");
}

const CASTLING = ["K", "Q", "k", "q"];

/** The files (0-7) of the rooks that could castle for `letter` (K, Q, k, q) and the outermost. */
function rooksFor(ranks, letter) {
  const white = letter === "K" || letter === "Q";
  const kingside = letter === "K" || letter === "k";
  const rank = ranks[white ? 7 : 0];
  const king = rank.indexOf(white ? "K" : "k");
  const rook = white ? "R" : "r";
  const files = king < 0 ? [] : [...rank].flatMap((c, f) => (c === rook && (kingside ? f > king : f < king) ? [f] : []));
  const outer = files.length === 0 ? -1 : kingside ? Math.max(...files) : Math.min(...files);
  return { white, files, outer };
}

/**
 * The castling field as X-FEN writes it, from style 12's four flags (K, Q, k, q):
 * the letter when the castling rook is the outermost rook of its colour on that
 * side of the king, else the rook's file letter (Chess960).  `rooks` gives the
 * castling rook's file (0-7) by letter when known; otherwise it is the outermost.
 */
export function castlingField(ranks, flags, rooks = {}) {
  let field = "";
  CASTLING.forEach((letter, i) => {
    if (!flags[i]) return;
    const { white, files, outer } = rooksFor(ranks, letter);
    const file = files.includes(rooks[letter]) ? rooks[letter] : outer;
    field += file === outer ? letter : white ? FILES[file].toUpperCase() : FILES[file];
  });
  return field || "-";
}

/** The castling rooks' files as first seen: the outermost rook for each flag set. */
export function castlingRooks(ranks, flags) {
  const rooks = {};
  CASTLING.forEach((letter, i) => {
    const { outer } = rooksFor(ranks, letter);
    if (flags[i] && outer >= 0) rooks[letter] = outer;
  });
  return rooks;
}

/** The squares of a verbose move ("P/e2-e4", "o-o", "P/@@-e4", "none") for a side that moved. */
export function moveSquares(verbose, mover) {
  const rank = mover === "white" ? "1" : "8";
  if (verbose === "o-o") return ["e" + rank, "g" + rank];
  if (verbose === "o-o-o") return ["e" + rank, "c" + rank];
  const m = /^[A-Za-z]\/(@@|[a-h][1-8])-([a-h][1-8])/.exec(verbose);
  if (m === null) return [];
  return m[1] === "@@" ? [m[2]] : [m[1], m[2]];
}

/**
 * Parse one style 12 line.  Returns null when the line is not a well-formed board.
 * Fields (FICS `help style12`): 8 ranks, side to move, en passant file, 4 castling
 * flags, halfmove clock, game number, names, relation, base and increment, strengths,
 * remaining times, move number, verbose move, time taken, pretty move, flip, ...
 */
export function parseStyle12(line) {
  const f = line.trim().split(/\s+/);
  if (f[0] !== "<12>" || f.length < 31) return null;
  const ranks = f.slice(1, 9);
  if (!ranks.every((r) => /^[-pnbrqkPNBRQK]{8}$/.test(r))) return null;
  const side = f[9] === "W" ? "w" : f[9] === "B" ? "b" : null;
  if (side === null) return null;
  const epFile = Number(f[10]);
  const flags = [0, 1, 2, 3].map((i) => f[11 + i] === "1");
  const castling = castlingField(ranks, flags);
  const ep = epFile >= 0 && epFile <= 7 ? FILES[epFile] + (side === "b" ? "3" : "6") : "-";
  const halfmoves = Number(f[15]);
  const fullmove = Number(f[26]);
  const fen = [placement(ranks), side, castling, ep, String(halfmoves), String(fullmove)].join(" ");
  const mover = side === "w" ? "black" : "white";
  const pretty = f[29];
  return {
    fen,
    ranks,
    flags,
    fields: [side, castling, ep, String(halfmoves), String(fullmove)],
    ply: (fullmove - 1) * 2 + (side === "b" ? 1 : 0),
    verbose: f[27],
    turn: side === "w" ? "white" : "black",
    game: Number(f[16]),
    white: f[17],
    black: f[18],
    relation: Number(f[19]),
    whiteTime: Number(f[24]),
    blackTime: Number(f[25]),
    lastMove: f[27] === "none" ? [] : moveSquares(f[27], mover),
    pretty: pretty === "none" ? "" : pretty,
    check: /[+#]$/.test(pretty),
    flip: f[30] === "1",
    ticking: f[31] === "1",
  };
}

/** A clock's seconds as the page shows them: "m:ss" (or "h:mm:ss"), "-" for negative. */
export function clockText(seconds) {
  const neg = seconds < 0;
  let s = Math.abs(Math.trunc(seconds));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const pad = (n) => String(n).padStart(2, "0");
  return (neg ? "-" : "") + (h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`);
}
