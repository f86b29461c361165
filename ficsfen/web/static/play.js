// Playing from the page: when a style 12 board says the reader plays it (relation 1,
// their move, or -1), the board turns to their colour and becomes movable for it,
// with chessops' legal moves.  A drag or click move, or a move typed in #move-input
// (SAN or coordinates), is sent as the server reads it ("e2e4", "e7e8=q", "O-O",
// "N@f3"), a promotion after the reader picks the piece; a move the server refuses
// puts the board back to its last position.  The game's buttons send draw, resign,
// abort, takeback and adjourn.  The end of a game ("{Game N (a vs. b) reason} result")
// freezes the board and shows the result and the reason.

import { boardMove, destsOf, isPromotion, positionOf, promotionRole, serverText, typedMove } from "/static/chessrules.js";
import { format } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const ACTIONS = ["draw", "resign", "abort", "takeback", "adjourn"];
const GAME_END = /^\{Game (\d+) \((\S+) vs\. (\S+)\) ([^}]*)\} (1-0|0-1|1\/2-1\/2|\*)/;
const GAME_START = /^\{Game (\d+) \(\S+ vs\. \S+\) (?:Creating|Continuing) \S+ (\S+) match\.\}/;

/** The game number, players, reason and result of a game end line, or null. */
export function parseGameEnd(line) {
  const m = GAME_END.exec(line);
  return m === null ? null : { game: Number(m[1]), white: m[2], black: m[3], reason: m[4], result: m[5] };
}

export class Play {
  /** send(command) runs a command; catalog() the labels; shown() the game on the board. */
  constructor({ send, catalog, shown }) {
    this.send = send;
    this.catalog = catalog;
    this.shown = shown;
    this.board = null;
    this.game = null; // {number, colour} while the reader plays it
    this.last = null; // the last style 12 board of that game
    this.boards = 0;
    this.kinds = new Map(); // game number -> FICS type ("blitz", "crazyhouse", "wild/fr")
    this.pending = null; // a promotion waiting for its piece
    for (const action of ACTIONS) $(action).addEventListener("click", () => this.act(action));
    for (const letter of "qrbn") $(`promote-${letter}`).addEventListener("click", () => this.promote(letter));
    $("promote-cancel").addEventListener("click", () => this.promote(null));
    $("move-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.typed($("move-input").value);
    });
  }

  kind(game) {
    return this.kinds.get(game) ?? "";
  }

  /** The shown board's crazyhouse holdings changed (a <b1> line): its new position. */
  holdings(position) {
    if (this.game?.number !== position.game || this.last === null || position.ply !== this.last.ply) return;
    this.last = position;
    this.refresh();
  }

  /** Whether a board is of a game the reader plays. */
  mine(position) {
    return Math.abs(position.relation) === 1;
  }

  /** One line from the server (the start and end of games). */
  line(line) {
    const start = GAME_START.exec(line);
    if (start !== null) this.kinds.set(Number(start[1]), start[2]);
    const end = parseGameEnd(line);
    if (end === null) return;
    if (end.game === this.shown()) $("result").textContent = format(this.catalog(), "result", end);
    if (this.game?.number === end.game) {
      this.game = null; // the number may be given to the reader's next game
      this.freeze();
    }
  }

  /** A board of the shown game, just drawn on `board` (chessground). */
  update(board, position) {
    this.board = board;
    if (!this.mine(position)) {
      if (this.game?.number !== position.game) this.freeze();
      return;
    }
    const colour = position.relation === 1 ? position.turn : position.turn === "white" ? "black" : "white";
    if (this.game?.number !== position.game) {
      this.game = { number: position.game, colour };
      board.set({ orientation: colour });
      $("result").textContent = "";
      $("play-note").textContent = "";
    }
    $("play-controls").hidden = false;
    $("seek-form").hidden = true; // no seeking while playing
    this.boards += 1;
    this.last = position;
    this.refresh();
  }

  /** The board movable for the reader's colour, with the legal moves when it is their turn. */
  refresh() {
    const number = this.game.number;
    this.position = positionOf(this.last.fen);
    const turn = this.last.relation === 1;
    this.board.set({
      turnColor: this.last.turn,
      movable: {
        free: false,
        color: this.game.colour,
        dests: turn ? destsOf(this.position, this.kind(number)) : new Map(),
        showDests: true,
        events: { after: (orig, dest) => this.moved(orig, dest) },
      },
    });
  }

  freeze() {
    $("play-controls").hidden = true;
    $("seek-form").hidden = false;
    $("promotion").hidden = true;
    this.pending = null;
    this.board?.cancelMove();
    this.board?.set({ movable: { color: undefined, dests: new Map() } });
  }

  moved(orig, dest) {
    if (isPromotion(this.position, orig, dest)) {
      this.pending = { orig, dest };
      $("promotion").hidden = false;
      $("promote-q").focus();
      return;
    }
    this.play(serverText(this.position, boardMove(this.position, orig, dest)));
  }

  promote(letter) {
    const pending = this.pending;
    this.pending = null;
    $("promotion").hidden = true;
    if (pending === null) return;
    if (letter === null) {
      this.reset();
      return;
    }
    this.play(serverText(this.position, boardMove(this.position, pending.orig, pending.dest, promotionRole(letter))));
  }

  typed(text) {
    if (text.trim() === "" || this.game === null) return;
    const move = typedMove(this.position, text);
    $("move-input").value = "";
    this.play(move === undefined ? text.trim() : serverText(this.position, move));
  }

  /** Send a move; if no new board came with the reply, the server refused it. */
  async play(text) {
    const before = this.boards;
    let reply;
    try {
      reply = await this.send(text);
    } catch {
      return; // the session closed: the next one shows the game again
    }
    if (this.boards === before) {
      $("play-note").textContent = reply.text.trim();
      this.reset();
    } else {
      $("play-note").textContent = "";
    }
  }

  /** The board back to the server's last position. */
  reset() {
    if (this.last === null || this.board === null) return;
    this.board.set({
      fen: this.last.fen.split(" ")[0],
      turnColor: this.last.turn,
      lastMove: this.last.lastMove.length ? this.last.lastMove : undefined,
      check: this.last.check,
    });
    if (this.game !== null) this.refresh();
  }

  async act(action) {
    let reply;
    try {
      reply = await this.send(action);
    } catch {
      return; // the session closed
    }
    $("play-note").textContent = reply.text.split("\n").filter((l) => l && !l.startsWith("<")).join("\n");
  }
}
