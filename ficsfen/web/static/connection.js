// The page's FICS session over the server's WebSocket (/ws): the same dialogue as
// telnet, in text messages.  It logs in as a guest, or as the name and password the
// reader gave (answering the server's "login:", "password:" and "Press return"
// prompts), then turns block mode on (`iset block 1`): each
// command is sent numbered and its reply comes back framed, so a reply is told from
// the boards and notices that arrive between replies (docs/web.md).

const BLOCK_START = "\u0015";
const BLOCK_SEPARATOR = "\u0016";
const BLOCK_END = "\u0017";
const PROMPT = "fics% ";
const RECONNECT_SECONDS = [1, 2, 5, 10, 30];

export class Connection {
  /**
   * handlers: onReady(name, registered), onLine(line) for every line outside a reply,
   * onClosed(seconds before the next try), onStatus(key), onRefused(server text) when
   * a name or password is refused (the session then goes on as a guest).
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.ws = null;
    this.buffer = "";
    this.inBlock = false;
    this.ready = false;
    this.nextId = 1;
    this.pending = new Map();
    this.failures = 0;
    // {name, password} for a registered login, null for a guest
    this.credentials = null;
    this.reopening = false;
  }

  /** Log in again with `credentials` ({name, password}, or null: a guest). */
  relogin(credentials) {
    this.credentials = credentials;
    if (this.ws === null) return;
    this.reopening = true;
    this.ws.close();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  open() {
    this.buffer = "";
    this.inBlock = false;
    this.ready = false;
    this.stage = "login";
    const ws = (this.ws = new WebSocket(this.url()));
    ws.addEventListener("message", (event) => this.received(String(event.data)));
    ws.addEventListener("close", () => this.closed());
  }

  closed() {
    this.ws = null;
    this.ready = false;
    for (const reject of this.pending.values()) reject.reject(new Error("closed"));
    this.pending.clear();
    if (this.reopening) {
      this.reopening = false;
      this.open();
      return;
    }
    const seconds = RECONNECT_SECONDS[Math.min(this.failures, RECONNECT_SECONDS.length - 1)];
    this.failures += 1;
    this.handlers.onClosed(seconds);
    setTimeout(() => this.open(), seconds * 1000);
  }

  sendLine(line) {
    if (this.ws !== null && this.ws.readyState === WebSocket.OPEN) this.ws.send(line + "\n");
  }

  /** Send a command; resolves with {code, text} of its framed reply. */
  command(line) {
    const id = this.nextId;
    this.nextId = (this.nextId % 9999) + 1;
    return new Promise((resolve, reject) => {
      this.pending.set(String(id), { resolve, reject });
      this.sendLine(`${id} ${line}`);
    });
  }

  received(text) {
    this.buffer += text.replace(/\r\n/g, "\n");
    if (this.stage !== "session") {
      this.login();
      if (this.stage !== "session") return;
    }
    this.split();
  }

  login() {
    const buf = this.buffer;
    if (this.stage === "login" && buf.endsWith("login: ")) {
      this.handlers.onStatus("logging_in");
      this.buffer = "";
      this.stage = "enter";
      this.sendLine(this.credentials === null ? "guest" : this.credentials.name);
    } else if (this.stage === "enter" && buf.endsWith("login: ")) {
      // the name or the password was refused: say why, go on as a guest
      this.handlers.onRefused(buf.slice(0, -"login: ".length).trim());
      this.credentials = null;
      this.buffer = "";
      this.sendLine("guest");
    } else if (this.stage === "enter" && this.credentials !== null && /password: $/.test(buf)) {
      this.buffer = "";
      this.sendLine(this.credentials.password);
    } else if (this.stage === "enter" && /Press return[^\n]*: $/.test(buf)) {
      this.buffer = "";
      this.sendLine("");
    } else if (this.stage === "enter") {
      const m = /\*\*\*\* Starting FICS session as (\S+?)(\([^)]*\))? \*\*\*\*/.exec(buf);
      if (m !== null && buf.endsWith(PROMPT)) {
        this.buffer = "";
        this.name = m[1];
        this.registered = m[2] === undefined;
        this.stage = "block";
        this.sendLine("iset block 1");
      }
    } else if (this.stage === "block") {
      const end = buf.indexOf(PROMPT);
      if (end >= 0) {
        this.buffer = buf.slice(end + PROMPT.length);
        this.stage = "session";
        this.ready = true;
        this.failures = 0;
        this.handlers.onReady(this.name, this.registered);
      }
    }
  }

  split() {
    for (;;) {
      if (this.inBlock) {
        const end = this.buffer.indexOf(BLOCK_END);
        if (end < 0) return;
        this.reply(this.buffer.slice(0, end));
        this.buffer = this.buffer.slice(end + 1).replace(/^\n/, "");
        this.inBlock = false;
        continue;
      }
      const start = this.buffer.indexOf(BLOCK_START);
      const chunk = start < 0 ? this.buffer : this.buffer.slice(0, start);
      const cut = start < 0 ? chunk.lastIndexOf("\n") + 1 : chunk.length;
      for (const line of chunk.slice(0, cut).split("\n")) this.line(line);
      if (start < 0) {
        this.buffer = this.buffer.slice(cut);
        return;
      }
      this.buffer = this.buffer.slice(start + 1);
      this.inBlock = true;
    }
  }

  line(raw) {
    let line = raw;
    while (line.startsWith(PROMPT)) line = line.slice(PROMPT.length);
    if (line.trim() !== "") this.handlers.onLine(line);
  }

  reply(block) {
    const [id, code, ...rest] = block.split(BLOCK_SEPARATOR);
    const text = rest.join(BLOCK_SEPARATOR);
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    waiting.resolve({ code: Number(code), text });
  }
}
