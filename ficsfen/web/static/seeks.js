// The seek list, live: the server's <sc> (clear), <s> (a seek) and <sr> (seeks
// removed) lines (`iset seekinfo 1`), each seek a row with a button that answers it
// (`play N`), the reader's own with one that takes it back (`unseek N`); and the
// form that posts a seek (`seek TIME INC rated|unrated [zh|fr]`).

import { format } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
// the labels of the FICS game types a seek may have (others are shown as the server names them)
const TYPES = { lightning: "lightning", blitz: "blitz", standard: "standard", untimed: "untimed",
  crazyhouse: "crazyhouse", "wild/fr": "chess960" };

/** The fields of an <s> line ("<s> 7 w=alice ti=00 rt=1500 t=5 i=0 r=r tp=blitz ..."), or null. */
export function parseSeek(line) {
  const words = line.trim().split(/\s+/);
  if (words[0] !== "<s>" || !/^\d+$/.test(words[1] ?? "")) return null;
  const fields = { id: Number(words[1]) };
  for (const word of words.slice(2)) {
    const eq = word.indexOf("=");
    if (eq > 0) fields[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return fields;
}

export class Seeks {
  /** send(command) runs a command; me() is the reader's name; catalog() the labels. */
  constructor({ send, me, catalog }) {
    this.send = send;
    this.me = me;
    this.catalog = catalog;
    this.seeks = new Map();
    $("seek-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.post();
    });
  }

  /** One line from the server; true if it was a seek line. */
  line(line) {
    if (line.startsWith("<sc>")) {
      this.seeks.clear();
    } else if (line.startsWith("<s> ")) {
      const seek = parseSeek(line);
      if (seek !== null) this.seeks.set(seek.id, seek);
    } else if (line.startsWith("<sr> ")) {
      for (const id of line.slice(5).trim().split(/\s+/)) this.seeks.delete(Number(id));
    } else {
      return false;
    }
    this.render();
    return true;
  }

  /** A new session: rated seeks only for a registered player. */
  ready(registered) {
    this.seeks.clear();
    this.render();
    $("seek-rated").disabled = !registered;
    if (!registered) $("seek-rated").checked = false;
  }

  async post() {
    const minutes = Number($("seek-time").value) || 0;
    const increment = Number($("seek-inc").value) || 0;
    const rated = $("seek-rated").checked ? "rated" : "unrated";
    const variant = $("seek-variant").value;
    let reply;
    try {
      reply = await this.send(`seek ${minutes} ${increment} ${rated}${variant ? " " + variant : ""}`);
    } catch {
      return; // the session closed: the seek went with it
    }
    $("lobby-note").textContent = reply.text.split("\n").filter((l) => l && !l.startsWith("<")).join("\n");
  }

  render() {
    const t = this.catalog();
    const rows = [...this.seeks.values()].sort((a, b) => a.id - b.id).map((seek) => {
      const row = document.createElement("tr");
      row.id = `seek-${seek.id}`;
      const own = seek.w === this.me();
      const rated = seek.r === "r" ? format(t, "rated") : format(t, "unrated");
      const type = seek.tp in TYPES ? format(t, TYPES[seek.tp]) : seek.tp;
      const colour = seek.c === "W" ? format(t, "white") : seek.c === "B" ? format(t, "black") : "";
      for (const text of [String(seek.id), seek.w, (seek.rt ?? "").replace(/^0P$/, ""), `${seek.t} ${seek.i}`, rated, type, colour]) {
        const cell = document.createElement("td");
        cell.textContent = text ?? "";
        row.append(cell);
      }
      const button = document.createElement("button");
      button.type = "button";
      button.id = own ? `unseek-${seek.id}` : `play-${seek.id}`;
      button.textContent = format(t, own ? "withdraw" : "play");
      button.addEventListener("click", () => this.send(own ? `unseek ${seek.id}` : `play ${seek.id}`).catch(() => {}));
      const cell = document.createElement("td");
      cell.append(button);
      row.append(cell);
      return row;
    });
    $("seek-rows").replaceChildren(...rows);
    $("no-seeks").hidden = rows.length > 0;
  }
}
