// The help viewer: the server's help pages (`help TOPIC`; `help` alone for the list
// of topics) in the session's language, shown as preformatted text built with
// textContent only.  Topic names open their page: those under SEE ALSO (VOIR AUSSI),
// every name in the list of topics, and each "help TOPIC" the text mentions.

// The server's pager line ("Type [next] ..."), in each language it speaks
// (tests/test_page_fenhelp.py checks them against the server's catalogues): a
// long page is read to its end with `next`.
export const MORE_LINES = new Set(["Type [next] to see the next page.", "Tapez [next] pour voir la page suivante."]);
const SEE_ALSO = new Set(["SEE ALSO", "VOIR AUSSI"]);
const TOPIC = /^[a-z0-9_-]+$/;
const MENTION = /\bhelp ([a-z0-9_-]+)/g;
const MAX_PAGES = 50;
const $ = (id) => document.getElementById(id);

/** The reply's lines (its last line end left out: a blank line before it is the page's). */
function replyLines(text) {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body === "" ? [] : body.split("\n");
}

export class HelpViewer {
  /** connection: the page's Connection; topic: the page shown once the session is ready. */
  constructor(connection, topic = null) {
    this.connection = connection;
    this.topic = topic; // shown, or being fetched ("" is the list of topics)
    this.requests = 0;
    $("help-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.show($("help-topic").value);
    });
    $("help-index").addEventListener("click", () => this.show(""));
  }

  /** Show the page of `topic` ("" for the list of topics). */
  async show(topic) {
    const wanted = topic.replace(/[\r\n]+/g, " ").trim();
    this.topic = wanted;
    $("help-topic").value = wanted;
    if (!this.connection.ready) return; // shown once the session is ready (refresh)
    const request = ++this.requests;
    let lines;
    try {
      lines = await this.read(wanted);
    } catch {
      return; // closed meanwhile: shown again once logged in again
    }
    if (request === this.requests) this.render(lines, wanted === "");
  }

  /** Show the current topic again (after a new login or a change of language). */
  refresh() {
    if (this.topic !== null) this.show(this.topic);
  }

  /** The whole page: its first screenful, then `next` while the pager says there is more. */
  async read(topic) {
    const reply = await this.connection.command(topic === "" ? "help" : `help ${topic}`);
    const lines = replyLines(reply.text);
    for (let pages = 1; pages < MAX_PAGES && lines.length && MORE_LINES.has(lines.at(-1).trim()); pages++) {
      lines.pop();
      lines.push(...replyLines((await this.connection.command("next")).text));
    }
    return lines;
  }

  render(lines, isIndex) {
    const nodes = [];
    let seeAlso = false;
    lines.forEach((line, i) => {
      if (isIndex && i > 0 && i < lines.length - 1) {
        nodes.push(...this.linked(line, /(\s+)/));
      } else if (seeAlso && line.trim() !== "") {
        nodes.push(...this.linked(line, /(,\s*|\s+)/));
      } else {
        nodes.push(...this.mentions(line));
      }
      nodes.push(document.createTextNode("\n"));
      if (SEE_ALSO.has(line.trim())) seeAlso = true;
      else if (line.trim() === "") seeAlso = false;
    });
    $("help-text").replaceChildren(...nodes);
  }

  /** `line` cut by `separator` (a capturing pattern), each topic name a link. */
  linked(line, separator) {
    return line.split(separator).map((part) => (TOPIC.test(part) ? this.link(part, part) : document.createTextNode(part)));
  }

  /** `line` with the topic of each "help TOPIC" in it a link. */
  mentions(line) {
    const nodes = [];
    let at = 0;
    for (const m of line.matchAll(MENTION)) {
      const start = m.index + m[0].length - m[1].length;
      nodes.push(document.createTextNode(line.slice(at, start)), this.link(m[1], m[1]));
      at = start + m[1].length;
    }
    nodes.push(document.createTextNode(line.slice(at)));
    return nodes;
  }

  link(text, topic) {
    const a = document.createElement("a");
    a.href = "#help";
    a.className = "help-link";
    a.dataset.topic = topic;
    a.textContent = text;
    a.addEventListener("click", (event) => {
      event.preventDefault();
      this.show(topic);
    });
    return a;
  }
}
