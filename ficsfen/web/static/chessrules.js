// The rules the page knows, from the vendored chessops (lichess's chess rules): the
// legal moves of a position for chessground, whether a move promotes, a move typed
// as SAN or coordinates, SAN for the move list, and the text the server is sent for
// a move ("e2e4", "e7e8=q", "O-O", "N@f3").  The server stays the judge: these only
// spare the reader moves it would refuse.  Pure functions: no DOM, no network.

import { Chess, compat, fen as fenText, makeSquare, parseSquare, parseUci, san, variant } from "/static/vendor/chessops/chessops.js";

/**
 * The position of a FEN record as the page builds it (gamefen.js: X-FEN castling for
 * Chess960, "[...]" pieces in hand and "~" promoted pieces for crazyhouse), or null if
 * chessops cannot read it.  With pieces in hand it is played by crazyhouse rules, else
 * by standard rules (Chess960's castling read from the rooks).
 */
export function positionOf(fen) {
  const setup = fenText.parseFen(fen);
  if (!setup.isOk) return null;
  const made = (fen.split(" ")[0].includes("[") ? variant.Crazyhouse : Chess).fromSetup(setup.value);
  return made.isOk ? made.value : null;
}

/** Whether a FICS type is Chess960 (castling: the king onto its rook). */
export function isChess960(kind) {
  return kind === "wild/fr";
}

/** chessground's movable.dests: every legal move's origin to its destinations. */
export function destsOf(position, kind = "") {
  return position === null ? new Map() : compat.chessgroundDests(position, { chess960: isChess960(kind) });
}

/** Whether moving from `orig` to `dest` (square names) is a pawn reaching its last rank. */
export function isPromotion(position, orig, dest) {
  const piece = position?.board.get(parseSquare(orig));
  return piece?.role === "pawn" && (dest[1] === "8" || dest[1] === "1");
}

/** The chessops move of a board move (castling: the king two squares or onto its rook). */
export function boardMove(position, orig, dest, promotion) {
  return variant.normalizeMove(position, { from: parseSquare(orig), to: parseSquare(dest), promotion });
}

const PROMOTION_LETTERS = { q: "queen", r: "rook", b: "bishop", n: "knight" };

/** The role a promotion letter (q r b n) names. */
export function promotionRole(letter) {
  return PROMOTION_LETTERS[letter.toLowerCase()];
}

/**
 * The legal move `text` means in `position`: SAN ("e4", "Nf3", "O-O", "e8=Q", "N@f3")
 * or coordinates ("e2e4", "e2-e4", "e7e8q", "e7e8=q").  Undefined when it is none.
 */
export function typedMove(position, text) {
  if (position === null) return undefined;
  const word = text.trim().replace(/^0-0(-0)?/, (m) => m.replace(/0/g, "O")).replace(/[+#!?]+$/, "");
  const bySan = san.parseSan(position, word) ?? san.parseSan(position, word.replace(/=?([qrbn])$/, (m, l) => "=" + l.toUpperCase()));
  if (bySan !== undefined) return bySan;
  const uci = parseUci(word.replace(/^([a-h][1-8])[-x]?([a-h][1-8])=?([qrbnQRBN])?$/, (m, a, b, p) => a + b + (p ?? "").toLowerCase()));
  if (uci === undefined) return undefined;
  const move = variant.normalizeMove(position, uci);
  return position.isLegal(move) ? move : undefined;
}

/** The move as the server is sent it: "e2e4", "e7e8=q", "O-O"/"O-O-O", "N@f3". */
export function serverText(position, move) {
  if (move.from === undefined) return `${move.role === "pawn" ? "P" : san.makeSan(position, move)[0]}@${makeSquare(move.to)}`;
  const piece = position.board.get(move.from);
  const target = position.board.get(move.to);
  if (piece?.role === "king" && target?.role === "rook" && target.color === piece.color) {
    return move.to > move.from ? "O-O" : "O-O-O";
  }
  const letter = move.promotion === undefined ? "" : "=" + Object.keys(PROMOTION_LETTERS).find((k) => PROMOTION_LETTERS[k] === move.promotion);
  return makeSquare(move.from) + makeSquare(move.to) + letter;
}

/** The SAN of the server's move text (style 12's pretty move) in `position`, else that text
 * (a pawn's drop "P@e6", as FICS writes it, where chessops writes "@e6"). */
export function sanOf(position, pretty) {
  if (position === null || pretty === "") return pretty;
  const word = pretty.replace(/^o-o(-o)?/i, (m) => m.toUpperCase()).replace(/[+#]$/, "");
  const move = san.parseSan(position, word);
  if (move === undefined) return pretty;
  const text = san.makeSan(position, move);
  return text.startsWith("@") ? "P" + text : text; // a pawn's drop as FICS writes it
}
