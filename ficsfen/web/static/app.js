// The web page: the list of live games at /, one game observed at /game/N.
// Server text is only ever put in the page with textContent (never as HTML).

import { Chessground } from "/static/vendor/chessground/chessground.js";
import { Connection } from "/static/connection.js";
import { Console } from "/static/console.js";
import { FenBox } from "/static/fenbox.js";
import { HelpViewer } from "/static/help.js";
import { applyCatalog, format, loadCatalog, preferredLanguage, rememberLanguage } from "/static/i18n.js";
import { GameFen } from "/static/gamefen.js";
import { setServerLanguage } from "/static/sessionlang.js";
import { clockText } from "/static/style12.js";
import { Login } from "/static/login.js";
import { MoveList } from "/static/movelist.js";
import { Offers } from "/static/offers.js";
import { Play } from "/static/play.js";
import { Seeks } from "/static/seeks.js";

const GAMES_EVERY_MS = 10000;
const $ = (id) => document.getElementById(id);

const route = /^\/game\/(\d+)$/.exec(location.pathname);
// the game on the board: the address's, or the one the reader plays
let gameNumber = route === null ? null : Number(route[1]);

let catalog = {};
let lang = "en";
let status = { key: "connecting", values: {} };
let board = null;
// the clocks as of the last board: seconds left and when that board arrived
let clocks = null;
let gamesTimer = null;
// the observed game's FEN, followed from board to board
let gameFen = new GameFen();
let play = null;
let moves = null;
// the session and the parts that follow the language of the server's texts
let tools = null;

function showStatus(key, values = {}) {
  status = { key, values };
  $("status").textContent = format(catalog, key, values);
}

async function setLanguage(next) {
  lang = next;
  catalog = await loadCatalog(lang);
  document.documentElement.lang = lang;
  $("lang").value = lang;
  applyCatalog(document, catalog);
  showStatus(status.key, status.values);
  if (gameNumber !== null) $("game-title").textContent = format(catalog, "game_title", { number: gameNumber });
  if (tools === null) return;
  tools.seeks.render(); // their rows' labels
  tools.offers.render();
  serverLanguage();
}

/** The server's texts in the page's language, then what shows them read again. */
async function serverLanguage() {
  await setServerLanguage(tools.connection, lang);
  tools.help.refresh();
  tools.fenBox.refresh();
}

// -- the list of live games ------------------------------------------------------------

// "  1 ++++ GuestABCD   ++++ GuestEFGH  [ bu  5   0]   5:00 -  5:00 (39-39) B:  1"
const GAME_LINE = /^\s*(\d+)\s+(.*\[.*\].*\S)\s*$/;

function showGames(text) {
  const list = $("games");
  const items = [];
  for (const line of text.split("\n")) {
    const m = GAME_LINE.exec(line);
    if (m === null) continue;
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/game/${m[1]}`;
    link.textContent = `${m[1].padStart(3)} ${m[2]}`;
    item.append(link);
    items.push(item);
  }
  list.replaceChildren(...items);
  $("no-games").hidden = items.length > 0;
}

async function refreshGames(connection) {
  if (!connection.ready) return;
  try {
    const reply = await connection.command("games");
    showGames(reply.text);
  } catch {
    // closed meanwhile: the next session asks again
  }
}

// -- one observed game -----------------------------------------------------------------

function showBoard(position) {
  const element = $("board");
  const config = {
    fen: position.fen.split(" ")[0],
    turnColor: position.turn,
    lastMove: position.lastMove.length ? position.lastMove : undefined,
    check: position.check,
  };
  if (board === null) {
    board = Chessground(element, { ...config, movable: { color: undefined }, premovable: { enabled: false },
      drawable: { enabled: false }, coordinates: true, orientation: position.flip ? "black" : "white" });
  } else {
    board.set(config);
  }
  showFen(position.fen);
  play.update(board, position);
  moves.update(position);
  clocks = { position, since: performance.now() };
  showClocks();
}

function showFen(fen) {
  $("board").dataset.fen = fen;
  $("fen").textContent = fen;
}

/** The players and their clocks, the side to move's running down while the clock ticks. */
function showClocks() {
  if (clocks === null) return;
  const { position, since } = clocks;
  const spent = position.ticking ? (performance.now() - since) / 1000 : 0;
  const white = position.whiteTime - (position.turn === "white" ? spent : 0);
  const black = position.blackTime - (position.turn === "black" ? spent : 0);
  $("white").textContent = `${position.white}  ${clockText(white)}`;
  $("black").textContent = `${position.black}  ${clockText(black)}`;
}

function gameLine(line) {
  if (line.startsWith("<12> ")) {
    const position = gameFen.board(line);
    if (position !== null && play.mine(position)) watch(position.game);
    if (position !== null && position.game === gameNumber) {
      showBoard(position);
      if (position.seed) seedFen(position.game);
    }
  } else if (line.startsWith("<b1> ")) {
    const position = gameFen.holdings(line);
    if (position !== null && position.game === gameNumber) showRecord(position);
  } else if (line.startsWith("{Game ") || line.startsWith("Removing game")) {
    if (line.startsWith("{Game ")) $("game-note").textContent = line; // the result stays shown
    if (clocks !== null) clocks = { position: { ...clocks.position, ticking: false }, since: 0 };
  }
}

/** The last board's FEN written again (its pieces in hand, promoted pieces, castling rooks). */
function showRecord(position) {
  showFen(position.fen);
  play.holdings(position);
  moves.holdings(position);
}

/** What the boards cannot tell (a game joined midway, a takeback) from the server's `fen N`. */
async function seedFen(number) {
  const following = gameFen;
  let reply;
  try {
    reply = await tools.connection.command(`fen ${number}`);
  } catch {
    return; // closed meanwhile: the next session's first board asks again
  }
  const position = following === gameFen && following.game === number ? following.seed(reply.text) : null;
  if (position !== null && position.game === gameNumber) showRecord(position);
}

/** Show game `number` (one the reader plays) instead of the list or another game. */
function watch(number) {
  if (number === gameNumber) return;
  gameNumber = number;
  clocks = null;
  showGameView();
  $("game-title").textContent = format(catalog, "game_title", { number });
}

/** The game's section instead of the list, the offers (a draw, a challenge) beside its board. */
function showGameView() {
  $("games-view").hidden = true;
  $("game-view").hidden = false;
  $("play-note").after($("offers"));
}

async function observe(connection) {
  $("game-note").textContent = format(catalog, "waiting_board");
  gameFen = new GameFen();
  try {
    await connection.command("style 12");
    const reply = await connection.command(`observe ${gameNumber}`);
    const lines = reply.text.split("\n");
    for (const line of lines) gameLine(line);
    const said = lines.filter((l) => l.trim() !== "" && !l.startsWith("<12> ")).join("\n");
    $("game-note").textContent = said;
  } catch {
    // closed meanwhile: observed again once logged in again
  }
}

async function copyFen() {
  const fen = $("board").dataset.fen;
  if (!fen) return;
  try {
    await navigator.clipboard.writeText(fen);
    $("copy").textContent = format(catalog, "copied");
    setTimeout(() => ($("copy").textContent = format(catalog, "copy")), 1500);
  } catch {
    getSelection().selectAllChildren($("fen"));
  }
}

// -- start -------------------------------------------------------------------------------

async function main() {
  await setLanguage(preferredLanguage());
  $("lang").addEventListener("change", (event) => {
    rememberLanguage(event.target.value);
    setLanguage(event.target.value);
  });
  $("copy").addEventListener("click", copyFen);
  $("flip").addEventListener("click", () => board?.toggleOrientation());
  setInterval(showClocks, 200);
  if (gameNumber === null) $("games-view").hidden = false;
  else showGameView();
  // every line the server sends, in a reply or between replies, to whom it concerns
  const dispatch = (line) => {
    if (!seeks.line(line) && !offers.line(line)) gameLine(line);
    play.line(line);
  };
  const run = async (command) => {
    const reply = await connection.command(command);
    for (const line of reply.text.split("\n")) if (line.trim() !== "") dispatch(line);
    return reply;
  };
  const panel = new Console($("console-log"), $("console-input"),
    (line) => (connection.ready ? run(line) : Promise.reject(new Error("closed"))), () => catalog);
  const connection = new Connection({
    onStatus: (key) => showStatus(key),
    onRefused: (text) => login.refused(text),
    onReady: (name, registered) => {
      showStatus("connected"); // the name is in #user
      serverLanguage();
      login.ready(name);
      seeks.ready(registered);
      offers.ready();
      $("lobby").hidden = false;
      for (const setting of ["style 12", "iset showownseek 1", "iset seekinfo 1", "iset pendinfo 1"]) run(setting).catch(() => {});
      if (gameNumber === null) {
        refreshGames(connection);
        clearInterval(gamesTimer);
        gamesTimer = setInterval(() => refreshGames(connection), GAMES_EVERY_MS);
      } else {
        observe(connection);
      }
    },
    onLine: (line) => {
      panel.line(line);
      dispatch(line);
    },
    onClosed: (seconds) => showStatus("disconnected", { seconds }),
  });
  const login = new Login(connection);
  const seeks = new Seeks({ send: run, me: () => connection.name, catalog: () => catalog });
  const offers = new Offers({ send: run, catalog: () => catalog, note: (text) => ($("lobby-note").textContent = text) });
  tools = { connection, fenBox: new FenBox(connection, () => catalog), help: new HelpViewer(connection, "fen"), seeks, offers };
  play = new Play({ send: run, catalog: () => catalog, shown: () => gameNumber });
  moves = new MoveList($("moves"));
  connection.open();
}

main();
