// The console panel: the lines the server sends outside command replies (tells,
// shouts, notices, game ends; not the boards the page draws) and a command line
// whose Enter sends the text as a command (block mode) and shows its reply.
// Every line is put in the page with textContent: a tell holding markup shows as text.

import { format } from "/static/i18n.js";

/** How many lines the panel keeps; older ones are dropped. */
const KEEP = 400;
/** Lines the page reads for itself (style 12 boards, crazyhouse holdings). */
const BOARD_DATA = /^<(12|b1)> /;

export class Console {
  /**
   * log: the element lines are appended to; input: the command's text field;
   * send(line): a promise of the command's {code, text} (rejected when not connected);
   * labels(): the current label catalog.
   */
  constructor(log, input, send, labels) {
    this.log = log;
    this.input = input;
    this.send = send;
    this.labels = labels;
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      this.submit(input.value);
    });
  }

  /** A line the server sent outside a reply. */
  line(text) {
    if (!BOARD_DATA.test(text)) this.append(text, "server");
  }

  append(text, kind) {
    const row = document.createElement("div");
    row.className = `console-${kind}`;
    row.textContent = text;
    const follow = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    this.log.append(row);
    while (this.log.childElementCount > KEEP) this.log.firstElementChild.remove();
    if (follow) this.log.scrollTop = this.log.scrollHeight;
  }

  async submit(value) {
    const line = value.trim();
    if (line === "") return;
    this.input.value = "";
    this.append(`> ${line}`, "command");
    try {
      const reply = await this.send(line);
      for (const text of reply.text.replace(/\n+$/, "").split("\n")) this.append(text, "reply");
    } catch {
      const catalog = this.labels();
      this.append(format(catalog, "console_not_connected"), "note");
    }
  }
}
