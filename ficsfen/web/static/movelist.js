// The move list beside the board: the game's moves in SAN, numbered, the last one
// marked, updated from every style 12 board (played or observed).  Each move's SAN is
// chessops' reading of the server's move in the position before it; a takeback
// shortens the list; a game joined midway starts at the first move seen.

import { positionOf, sanOf } from "/static/chessrules.js";

export class MoveList {
  /** `element`: the <ol> the moves go in. */
  constructor(element) {
    this.element = element;
    this.reset(null);
  }

  reset(game) {
    this.game = game;
    this.first = 0; // the ply of moves[0]
    this.moves = [];
    this.previous = null; // {plies, fen}
    this.render();
  }

  /** A new board of the shown game. */
  update(position) {
    if (position.game !== this.game) this.reset(position.game);
    const plies = position.ply;
    const before = this.previous;
    if (before !== null && plies === before.plies + 1 && position.pretty !== "") {
      const san = sanOf(positionOf(before.fen), position.pretty);
      this.moves.length = Math.max(0, plies - 1 - this.first);
      this.moves.push(san);
    } else if (plies < this.first + this.moves.length) {
      this.moves.length = Math.max(0, plies - this.first);
    } else if (before === null || plies !== before.plies) {
      this.first = plies;
      this.moves = [];
    }
    this.previous = { plies, fen: position.fen };
    this.render();
  }

  /** The last board's crazyhouse holdings changed (a <b1> line): its new FEN. */
  holdings(position) {
    if (position.game === this.game && this.previous?.plies === position.ply) this.previous.fen = position.fen;
  }

  render() {
    const rows = [];
    let row = null;
    this.moves.forEach((text, i) => {
      const ply = this.first + i;
      if (row === null || ply % 2 === 0) {
        row = document.createElement("li");
        row.value = Math.floor(ply / 2) + 1;
        if (ply % 2 === 1) row.append(cell("…", false));
        rows.push(row);
      }
      row.append(cell(text, i === this.moves.length - 1));
    });
    this.element.replaceChildren(...rows);
    this.element.scrollTop = this.element.scrollHeight;
  }

  /** The moves as text, "1. e4 e5 2. Nf3" (for tests and copying). */
  text() {
    return this.moves.map((m, i) => ((this.first + i) % 2 === 0 ? `${(this.first + i) / 2 + 1}. ` : "") + m).join(" ");
  }
}

function cell(text, last) {
  const span = document.createElement("span");
  span.className = last ? "move last" : "move";
  span.textContent = text;
  return span;
}
