"""What style 12 cannot say, taken from the server's ``fen N``: crazyhouse games
watched in a real browser at ``/game/N`` where the page could not follow every move
from a position without promoted pieces (opened after a promotion; a takeback past
one).  After every move and every takeback the board's ``data-fen`` equals what
``fen N`` answers over telnet, the promoted piece's ``~`` included."""

from __future__ import annotations

import re

import pytest
from browser import page_url, text, wait_until
from test_browser_observe import CRAZYHOUSE, TelnetGame, check_board

from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

PROMOTION = CRAZYHOUSE.index("bxa8=Q")
#: the promoted queen taken as a pawn (Nxa7)
CAPTURED = CRAZYHOUSE.index("Nxa7")


#: run before the page's own scripts: every message it sends on its WebSocket, kept
RECORD_SENDS = """
window.sent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) { window.sent.push(String(data)); return send.call(this, data); };
"""


def open_game(driver, server: ServerProcess, number: int) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SENDS})
    driver.get(page_url(server, f"/game/{number}"))


def fen_commands(driver) -> list[str]:
    """The ``fen`` commands the page sent (block mode: ``ID fen N``)."""
    sent = driver.execute_script("return window.sent")
    return [line.split(" ", 1)[1].strip() for line in sent if re.fullmatch(r"\d+ fen \d+\n", line)]


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


def settle(*clients) -> None:
    """Read what each client was sent so far: up to the answer to a word no command has."""
    for client in clients:
        client.send("settled")
        client.read_until("settled: Command not found.")
        client.read_until(client.prompt)


def take_back(game: TelnetGame, plies: int) -> None:
    """The side to move asks to take ``plies`` half moves back, the other accepts."""
    asker, other = (game.white, game.black) if game.ply % 2 == 0 else (game.black, game.white)
    settle(asker, other)
    asker.send(f"takeback {plies}")
    asker.read_until(f"Takeback request for {plies} half move")
    other.read_until("would like to take back")
    other.send(f"takeback {plies}")
    other.read_until("You accept the takeback request")
    asker.read_until("accepts the takeback request.")
    settle(asker, other)
    game.ply -= plies


def test_a_crazyhouse_game_opened_after_a_promotion(chrome, server):
    game = TelnetGame(server, "zh")
    try:
        for move in CRAZYHOUSE[: PROMOTION + 1]:
            game.move(move)
        open_game(chrome, server, game.number)
        opened = check_board(chrome, game, "opened after bxa8=Q")
        assert opened.startswith("Q~")  # the page was not there when it promoted
        fens = {}
        for move in CRAZYHOUSE[PROMOTION + 1:]:
            game.move(move)
            fens[move] = check_board(chrome, game, f"after {move}")
        assert "/Q~b3ppp/" in fens["Qxa7"]
        assert "~" not in fens["Nxa7"].split()[0]  # taken, it went into the hand as a pawn
        game.white.command("resign")
        wait_until(chrome, lambda d: "resigns" in text(d, "game-note"), what="the game's end")
        assert fen_commands(chrome) == [f"fen {game.number}"]  # once when opened, not per move
    finally:
        game.close()


def test_takebacks_past_a_promotion_while_watching(chrome, server):
    game = TelnetGame(server, "zh")
    try:
        open_game(chrome, server, game.number)
        check_board(chrome, game, "at the start")
        for move in CRAZYHOUSE[: CAPTURED + 1]:
            game.move(move)
            check_board(chrome, game, f"after {move}")
        # back to the promoted queen on a7: its "~" again, though the page saw it taken
        take_back(game, 2)
        back = check_board(chrome, game, "two half moves taken back")
        assert "/Q~b3ppp/" in back
        # back before the promotion: the rook on a8 again, no "~" left anywhere
        take_back(game, game.ply - PROMOTION)
        before = check_board(chrome, game, "taken back before bxa8=Q")
        assert before.startswith("rn") and "~" not in before.split()[0]
        for move in CRAZYHOUSE[PROMOTION:]:
            game.move(move)
            check_board(chrome, game, f"after {move}, played again")
        assert fen_commands(chrome) == [f"fen {game.number}"] * 3  # opened, then each takeback
        game.white.command("resign")
    finally:
        game.close()
