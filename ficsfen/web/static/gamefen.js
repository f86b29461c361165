// The FEN of one observed game, as the server's `fen` writes it, from its style 12
// boards and FICS's "<b1>" holdings lines: what a single board does not say is
// followed from board to board.  Chess960: which rook may still castle (X-FEN
// writes its file when it is not the outermost).  Crazyhouse: the pieces in hand
// ("[...]" after the placement, White's then Black's, in QRBNP order) and the pieces
// that were pawns ("~"), known exactly when the game is watched move after move
// from a position without such pieces.  What the boards cannot tell (a game joined
// midway, a board that goes backwards) is taken from the server's own record, its
// `fen N` answer (`seed`).  No DOM, no network.

import { castlingField, castlingRooks, parseStyle12, placement } from "/static/style12.js";

const HAND_ORDER = "QRBNPqrbnp";
const FILES = "abcdefgh";
const RECORD = /^([1-8pnbrqkPNBRQK~]+(?:\/[1-8pnbrqkPNBRQK~]+){7})(?:\[([pnbrqPNBRQ]*)\])? ([wb]) (\S+) (\S+) (\d+) (\d+)$/;

/** "<b1> game 1 white [PN] black [Q]" (maybe "<- WP" after): {game, white, black}, or null. */
export function parseHoldings(line) {
  const m = /^<b1> game (\d+) white \[([PNBRQ]*)\] black \[([PNBRQ]*)\]/.exec(line.trim());
  return m === null ? null : { game: Number(m[1]), white: m[2], black: m[3] };
}

/** The pieces in hand as FEN writes them: "QRBNPqrbnp" order, White's in capitals. */
export function handField(white, black) {
  const pieces = [...white.toUpperCase(), ...black.toLowerCase()];
  return pieces.sort((a, b) => HAND_ORDER.indexOf(a) - HAND_ORDER.indexOf(b)).join("");
}

/** A castling's king move (Chess960: the king starts on any file), from the board before it. */
function castlingSquares(before, after) {
  const white = after.turn === "black";
  const row = white ? 7 : 0;
  const file = before.ranks[row].indexOf(white ? "K" : "k");
  if (file < 0) return after.lastMove;
  const rank = white ? "1" : "8";
  return ["abcdefgh"[file] + rank, (after.verbose === "o-o" ? "g" : "c") + rank];
}

/**
 * The server's FEN record (the last line of a `fen N` answer that reads as one):
 * {ranks (style 12's, "-" empty), promoted squares, hand ({white, black}, or null
 * without "[...]"), side ("w"/"b"), castling, fullmove}, or null when no line is one.
 */
export function parseRecord(text) {
  const lines = text.split("\n").map((l) => l.trim()).reverse();
  const m = lines.map((l) => RECORD.exec(l)).find((found) => found !== null);
  if (m === undefined) return null;
  const [, board, held, side, castling, , , fullmove] = m;
  const ranks = [];
  const promoted = new Set();
  for (const row of board.split("/")) {
    let rank = "";
    for (const c of row) {
      if (c === "~") {
        if (rank === "" || rank.endsWith("-")) return null;
        promoted.add(FILES[rank.length - 1] + (8 - ranks.length));
      } else rank += /[1-8]/.test(c) ? "-".repeat(Number(c)) : c;
    }
    if (rank.length !== 8) return null;
    ranks.push(rank);
  }
  const hand = held === undefined ? null
    : { white: held.replace(/[a-z]/g, ""), black: held.replace(/[A-Z]/g, "").toUpperCase() };
  return { ranks, promoted, hand, side, castling, fullmove: Number(fullmove) };
}

/** The castling rooks' files (0-7) by letter (K, Q, k, q) a castling field names (X-FEN or Shredder-FEN). */
export function rooksOfField(ranks, field) {
  const rooks = castlingRooks(ranks, ["K", "Q", "k", "q"].map((letter) => field.includes(letter)));
  for (const c of field) {
    const file = FILES.indexOf(c.toLowerCase());
    if (file < 0) continue;
    const white = c !== c.toLowerCase();
    const king = ranks[white ? 7 : 0].indexOf(white ? "K" : "k");
    if (king < 0) continue;
    const letter = file > king ? "K" : "Q";
    rooks[white ? letter : letter.toLowerCase()] = file;
  }
  return rooks;
}

export class GameFen {
  constructor() {
    this.game = null;
    this.last = null; // the last board's position
    this.rooks = {};
    this.hand = null; // {white, black} once a <b1> line said the game is crazyhouse
    this.promoted = new Set();
  }

  /**
   * A style 12 line: its position with `fen` as the server writes it, or null.  The
   * position's `seed` is true when the boards cannot tell what it holds (the game's
   * first board here, or one that is not the next move: a takeback, a jump): the
   * server's record should then be asked for and given to `seed`.
   */
  board(line) {
    const position = parseStyle12(line);
    if (position === null) return null;
    if (position.game !== this.game) {
      this.game = position.game;
      this.last = null;
      this.hand = null;
      this.promoted.clear();
    }
    let seed = this.last === null || position.ply !== this.last.ply;
    if (this.last === null) this.rooks = castlingRooks(position.ranks, position.flags);
    else if (position.ply === this.last.ply + 1) {
      seed = false;
      this.follow(position);
      if (position.verbose.startsWith("o-o")) position.lastMove = castlingSquares(this.last, position);
    }
    this.last = position;
    return { ...this.withFen(position), seed };
  }

  /**
   * The server's `fen N` answer (`text`) for the last board: takes from it the
   * promoted pieces, the castling rooks and the pieces in hand, and returns the last
   * board with its FEN written again.  Null (nothing changed) when the answer is no
   * record, or a record of another position than the last board's (a move or a
   * takeback came between).
   */
  seed(text) {
    const record = parseRecord(text);
    const last = this.last;
    if (record === null || last === null) return null;
    const [side, , , , fullmove] = last.fields;
    if (record.side !== side || record.fullmove !== Number(fullmove)
        || record.ranks.some((rank, i) => rank !== last.ranks[i])) return null;
    this.promoted = record.promoted;
    this.hand = record.hand;
    this.rooks = rooksOfField(record.ranks, record.castling);
    return this.withFen(last);
  }

  /** A "<b1>" line: the last board with these pieces in hand, or null (another game, no board). */
  holdings(line) {
    const held = parseHoldings(line);
    if (held === null || (this.game !== null && held.game !== this.game)) return null;
    this.game = held.game;
    this.hand = { white: held.white, black: held.black };
    return this.last === null ? null : this.withFen(this.last);
  }

  /** The move that led to `position` (one ply after the last board): moves the "~" marks, spends a dropped piece. */
  follow(position) {
    const m = /^([A-Za-z])\/(@@|[a-h][1-8])-([a-h][1-8])(=([A-Za-z]))?/.exec(position.verbose);
    if (m === null) return;
    const [, piece, from, to, , promotion] = m;
    const wasPromoted = this.promoted.has(from);
    this.promoted.delete(to);
    this.promoted.delete(from);
    if (wasPromoted || promotion !== undefined) this.promoted.add(to);
    if (from === "@@" && this.hand !== null) {
      const side = position.turn === "white" ? "black" : "white"; // who dropped
      this.hand = { ...this.hand, [side]: this.hand[side].replace(piece.toUpperCase(), "") };
    }
  }

  withFen(position) {
    const castling = castlingField(position.ranks, position.flags, this.rooks);
    let board = placement(position.ranks, this.hand === null ? new Set() : this.promoted);
    if (this.hand !== null) board += `[${handField(this.hand.white, this.hand.black)}]`;
    const [side, , ep, halfmoves, fullmove] = position.fields;
    return { ...position, fen: [board, side, castling, ep, halfmoves, fullmove].join(" ") };
  }
}
