// Offers, live: the server's <pf> (an offer to the reader), <pt> (the reader's own)
// and <pr> (an offer gone) lines (`iset pendinfo 1`).  Challenges and, during a game,
// draw, abort, adjourn and takeback offers: those to the reader with Accept and
// Decline (`accept N`, `decline N`), the reader's own with Withdraw (`withdraw N`).
// Also the form that challenges a player (`match NAME TIME INC`).

import { format } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const KINDS = ["match", "draw", "abort", "adjourn", "takeback"];

/** The fields of a <pf>/<pt> line ("<pf> 3 w=alice t=match p=alice (1500) ..."), or null. */
export function parseOffer(line) {
  const m = /^<(pf|pt)> (\d+) w=(\S+) t=(\S+) p=(.*)$/.exec(line.trim());
  if (m === null) return null;
  return { to: m[1] === "pf", id: Number(m[2]), name: m[3], kind: m[4], params: m[5] === "#" ? "" : m[5] };
}

export class Offers {
  /** send(command) runs a command; catalog() the labels; note(text) shows a reply. */
  constructor({ send, catalog, note }) {
    this.send = send;
    this.catalog = catalog;
    this.note = note;
    this.offers = new Map();
    $("match-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.match();
    });
  }

  /** One line from the server; true if it was an offer line. */
  line(line) {
    if (line.startsWith("<pf> ") || line.startsWith("<pt> ")) {
      const offer = parseOffer(line);
      if (offer !== null) this.offers.set(offer.id, offer);
    } else if (line.startsWith("<pr> ")) {
      this.offers.delete(Number(line.slice(5).trim()));
    } else {
      return false;
    }
    this.render();
    return true;
  }

  ready() {
    this.offers.clear();
    this.render();
  }

  async match() {
    const name = $("match-name").value.trim();
    if (name === "" || /\s/.test(name)) return;
    const minutes = Number($("match-time").value) || 0;
    const increment = Number($("match-inc").value) || 0;
    await this.answer(`match ${name} ${minutes} ${increment}`);
  }

  async answer(command) {
    let reply;
    try {
      reply = await this.send(command);
    } catch {
      return; // the session closed: its offers went with it
    }
    this.note(reply.text.split("\n").filter((l) => l && !l.startsWith("<")).join("\n"));
  }

  render() {
    const t = this.catalog();
    const mine = [];
    const theirs = [];
    for (const offer of [...this.offers.values()].sort((a, b) => a.id - b.id)) {
      const item = document.createElement("li");
      item.id = `offer-${offer.id}`;
      const kind = KINDS.includes(offer.kind) ? format(t, `offer_${offer.kind}`) : offer.kind;
      const text = document.createElement("span");
      const said = format(t, offer.to ? "offer_from" : "offer_to", { kind, name: offer.name });
      text.textContent = offer.params ? format(t, "offer_terms", { offer: said, terms: offer.params }) : said;
      item.append(text);
      const buttons = offer.to ? [["accept", "accept"], ["decline", "decline"]] : [["withdraw", "withdraw"]];
      for (const [command, label] of buttons) {
        const button = document.createElement("button");
        button.type = "button";
        button.id = `${command}-${offer.id}`;
        button.textContent = format(t, label);
        button.addEventListener("click", () => this.answer(`${command} ${offer.id}`));
        item.append(button);
      }
      (offer.to ? theirs : mine).push(item);
    }
    $("offers-in").replaceChildren(...theirs);
    $("offers-out").replaceChildren(...mine);
    $("offers").hidden = theirs.length + mine.length === 0;
  }
}
