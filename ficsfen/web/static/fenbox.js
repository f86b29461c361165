// The "paste a FEN" box: the record is sent to the server (`checkfen RECORD`, the
// same check and the same messages as `ficsfen check`).  A valid record shows as a
// view-only board whose data-fen is the server's strict record; an invalid one
// shows the server's answer, in the session's language, as text.

import { Chessground } from "/static/vendor/chessground/chessground.js";
import { format } from "/static/i18n.js";

const CHECKFEN_CODE = 200; // checkfen's block code (help block_codes); 513 for an invalid record
// Longer text is no FEN record and is not sent: the server closes a WebSocket whose
// message is over its line limit ([limits] line_length, 1024 bytes by default).
export const MAX_RECORD_BYTES = 512;
const $ = (id) => document.getElementById(id);

/** The placement chessground draws: pieces in hand ([...]) and promoted marks (~) left out. */
export function boardPlacement(fen) {
  return fen.split(" ")[0].replace(/\[[^\]]*\]$/, "").replace(/~/g, "");
}

export class FenBox {
  /** connection: the page's Connection; labels(): the page's current label catalog. */
  constructor(connection, labels) {
    this.connection = connection;
    this.labels = labels;
    this.board = null;
    this.record = null; // the last record checked, checked again when the language changes
    $("fen-paste-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.check($("fen-paste-input").value);
    });
  }

  async check(text) {
    const record = text.replace(/[\r\n]+/g, " ").trim();
    if (record === "") return;
    this.record = record;
    const catalog = this.labels();
    if (new TextEncoder().encode(record).length > MAX_RECORD_BYTES) {
      this.showError(format(catalog, "fen_paste_too_long", { limit: MAX_RECORD_BYTES }));
      return;
    }
    if (!this.connection.ready) {
      this.showError(format(catalog, "fen_paste_offline"));
      return;
    }
    let reply;
    try {
      reply = await this.connection.command(`checkfen ${record}`);
    } catch {
      return; // closed meanwhile
    }
    if (record !== this.record) return; // another record was sent since
    const answer = reply.text.replace(/\s+$/, "");
    if (reply.code === CHECKFEN_CODE) this.showBoard(answer);
    else this.showError(answer);
  }

  /** Check the last record again: its error then reads in the session's new language. */
  refresh() {
    if (this.record !== null) this.check(this.record);
  }

  showBoard(fen) {
    const element = $("fen-paste-board");
    const config = { fen: boardPlacement(fen), turnColor: fen.split(" ")[1] === "b" ? "black" : "white" };
    $("fen-paste-error").textContent = "";
    element.hidden = false;
    if (this.board === null) {
      this.board = Chessground(element, { ...config, viewOnly: true, coordinates: true });
    } else {
      this.board.set(config);
      this.board.redrawAll(); // it may have been hidden: measure the board again
    }
    element.dataset.fen = fen;
  }

  showError(text) {
    const element = $("fen-paste-board");
    element.hidden = true;
    element.dataset.fen = "";
    $("fen-paste-error").textContent = text;
  }
}
