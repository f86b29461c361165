"""Playing from the web page in a real browser (headless chromium driven by Selenium)
against telnet guests of a real ``ficsfen serve``: a whole game to mate with moves
clicked, dragged and typed, the page's ``data-fen`` equal to the telnet side's
``fen`` after every move; a promotion through the piece dialog; a seek posted from
the page and answered with ``play``; a telnet seek answered from the page's list; a
telnet ``match`` accepted with the page's button; a draw offered over telnet and
accepted in the page; resigning; a move the server refuses; a registered login.

The browser is the kit's (tests/browser.py): under CI=true a missing chromium or
chromedriver fails, otherwise these tests skip; an error in the page's console fails
the test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser import element, page_url, wait_until

from ficsfen.server.testing import ServerProcess, TelnetClient, accounts_config

pytestmark = pytest.mark.slow

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FEN_LINE = re.compile(r"^[1-8pnbrqkPNBRQK/~]+(\[[pnbrqPNBRQ]*\])? [wb] \S+ \S+ \d+ \d+$", re.M)
PASSWORDS = {"alice": "ecila"}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ServerProcess]:
    config = accounts_config(tmp_path_factory.mktemp("web") / "ficsfen.toml", PASSWORDS)
    with ServerProcess("--config", str(config), "--lang", "en", web=True) as running:
        yield running


class Page:
    """The page in the browser: its elements by id, waits, moves on the board."""

    def __init__(self, driver: Any, server: ServerProcess) -> None:
        self.driver = driver
        driver.get(page_url(server, "/"))
        self.name = self.wait(lambda: self.text("user") or None)

    def el(self, element_id: str) -> Any:
        return element(self.driver, element_id)

    def text(self, element_id: str) -> str:
        return str(self.driver.execute_script(
            "const e = document.getElementById(arguments[0]); return e ? e.textContent : '';", element_id))

    def shown(self, element_id: str) -> bool:
        return bool(self.driver.execute_script(
            "const e = document.getElementById(arguments[0]); return !!e && e.offsetParent !== null;",
            element_id))

    def fen(self) -> str:
        return str(self.driver.execute_script("return document.getElementById('board').dataset.fen || '';"))

    def wait(self, condition: Callable[[], Any], what: str = "the page") -> Any:
        try:
            return wait_until(self.driver, lambda _: condition(), what=what)
        except AssertionError as e:  # say what the page showed
            raise AssertionError(f"{e}; fen={self.fen()!r} note={self.text('play-note')!r} "
                                 f"lobby={self.text('lobby-note')!r} status={self.text('status')!r}") from e

    def click(self, element_id: str) -> None:
        self.wait(lambda: self.shown(element_id), f"#{element_id} shown")
        self.el(element_id).click()

    def type(self, element_id: str, text: str, *, enter: bool = False) -> None:
        from selenium.webdriver.common.keys import Keys
        field = self.el(element_id)
        field.clear()
        field.send_keys(text + (Keys.ENTER if enter else ""))

    def _offset(self, square: str) -> tuple[float, float]:
        """The offset of `square`'s centre from the board's centre, as the board is turned."""
        board = self.el("board")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", board)
        size = board.rect["width"] / 8
        white = bool(self.driver.execute_script(
            "return document.querySelector('#board .cg-wrap, #board.cg-wrap')"
            ".classList.contains('orientation-white');"))
        file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
        col, row = (file, 7 - rank) if white else (7 - file, rank)
        return (col + 0.5) * size - 4 * size, (row + 0.5) * size - 4 * size

    def click_move(self, orig: str, dest: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        board = self.el("board")
        for square in (orig, dest):
            x, y = self._offset(square)
            ActionChains(self.driver).move_to_element_with_offset(board, int(x), int(y)).click().perform()

    def drag_move(self, orig: str, dest: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        board = self.el("board")
        (x1, y1), (x2, y2) = self._offset(orig), self._offset(dest)
        (ActionChains(self.driver).move_to_element_with_offset(board, int(x1), int(y1)).click_and_hold()
         .move_by_offset(int((x2 - x1) / 2), int((y2 - y1) / 2)).move_by_offset(int((x2 - x1) / 2), int((y2 - y1) / 2))
         .release().perform())

    def moved_to(self, fen: str) -> None:
        self.wait(lambda: self.fen() == fen, f"the board at {fen}")


def telnet_guest(server: ServerProcess) -> tuple[TelnetClient, str]:
    client = server.connect()
    name = client.login()
    client.command("style 12")
    return client, name


def telnet_fen(client: TelnetClient) -> str | None:
    """The telnet side's ``fen`` of its game (boards arriving meanwhile skipped); None
    once the game is over."""
    client.send("fen")
    while True:
        text = client.read_until(client.prompt)
        m = FEN_LINE.search(text)
        if m is not None:
            return m.group(0)
        if "You are not playing, examining or observing a game." in text:
            return None


def page_moves(page: Page, client: TelnetClient, play: Callable[[], None], *, mate: str | None = None) -> str:
    """Play one move from the page; wait until the telnet side has it; the page's FEN
    must be telnet's (a mate ends the game: then the page's must be `mate`, and the
    telnet side must have no game left)."""
    before = telnet_fen(client)
    play()
    page.wait(lambda: page.fen() not in ("", before), "the page's move")
    if mate is not None:
        client.read_until("} 1-0")
        assert telnet_fen(client) is None
        page.moved_to(mate)
        return mate
    fen = telnet_fen(client)
    assert fen is not None and fen != before
    page.moved_to(fen)
    return fen


def telnet_moves(page: Page, client: TelnetClient, move: str) -> str:
    reply = client.command(move)
    assert "<12> " in reply, reply
    fen = telnet_fen(client)
    assert fen is not None
    page.moved_to(fen)
    return fen


def page_accepts_match(page: Page, client: TelnetClient, terms: str, start: str | None = START) -> str:
    """Telnet challenges the page; the page accepts with its button; the page's board
    must be at `start` (None: wherever the telnet side's ``fen`` says it starts)."""
    client.command(f"match {page.name} {terms}")
    offer = page.wait(lambda: page.driver.execute_script(
        "const b = document.querySelector('#offers-in button[id^=accept-]'); return b ? b.id : null;"),
        "the challenge shown")
    page.click(offer)
    page.wait(lambda: page.shown("play-controls"), "the game's controls")
    client.read_until("<12> ")
    client.read_until(client.prompt)
    if start is None:
        start = telnet_fen(client)
        assert start is not None
    page.moved_to(start)
    return start


def test_scholars_mate_clicked_dragged_and_typed(chrome, server):
    page = Page(chrome, server)
    with telnet_guest(server)[0] as black:
        page_accepts_match(page, black, "5 0 black")
        assert page.driver.execute_script(
            "return document.querySelector('#board .cg-wrap, #board.cg-wrap').classList.contains('orientation-white');")
        page_moves(page, black, lambda: page.click_move("e2", "e4"))
        telnet_moves(page, black, "e7e5")
        page_moves(page, black, lambda: page.type("move-input", "Bc4", enter=True))
        telnet_moves(page, black, "b8c6")
        page_moves(page, black, lambda: page.drag_move("d1", "h5"))
        telnet_moves(page, black, "g8f6")
        page_moves(page, black, lambda: page.click_move("h5", "f7"),
                   mate="r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
        page.wait(lambda: "1-0" in page.text("result"), "the result")
        assert "checkmated" in page.text("result")
        moves = page.driver.execute_script(
            "return [...document.querySelectorAll('#moves .move')].map((e) => e.textContent);")
        assert moves == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
        assert page.driver.execute_script("return document.querySelector('#moves .last').textContent;") == "Qxf7#"
        assert not page.shown("play-controls")


def test_promotion_through_the_dialog_then_resign(chrome, server):
    page = Page(chrome, server)
    with telnet_guest(server)[0] as black:
        page_accepts_match(page, black, "5 0 black")
        for mine, theirs in (("a2a4", "b7b5"), ("a4b5", "a7a6"), ("b5a6", "c8b7"), ("a6b7", "b8c6")):
            page_moves(page, black, lambda mine=mine: page.type("move-input", mine, enter=True))
            telnet_moves(page, black, theirs)
        page.drag_move("b7", "a8")
        page.wait(lambda: page.shown("promotion"), "the promotion dialog")
        before = telnet_fen(black)
        page.click("promote-n")
        page.wait(lambda: page.fen().startswith("N"), "the knight on a8")
        assert telnet_fen(black) == page.fen() != before
        telnet_moves(page, black, "e7e6")
        page.click("resign")
        page.wait(lambda: "0-1" in page.text("result"), "the result")
        assert "resigns" in page.text("result")
        assert "resigns}" in black.read_until("0-1")


def test_seek_from_the_page_answered_over_telnet_then_draw_then_another_game(chrome, server):
    page = Page(chrome, server)
    with telnet_guest(server)[0] as other:
        page.type("seek-time", "3")
        page.type("seek-inc", "2")
        page.click("seek-submit")
        number = page.wait(lambda: page.driver.execute_script(
            "const b = document.querySelector('#seek-rows button[id^=unseek-]'); return b ? b.id.slice(7) : null;"),
            "the page's own seek listed")
        seen = other.read_until(f'("play {number}" to respond)')
        assert f"{page.name} (++++) seeking 3 2 unrated blitz" in seen, seen
        other.read_until(other.prompt)
        other.command(f"play {number}")
        page.moved_to(START)
        page.wait(lambda: page.shown("play-controls"), "the game's controls")
        page.wait(lambda: not page.text("seek-rows"), "the seek gone")
        # no seeking while playing: the form is hidden, not removed
        assert page.el("seek-form").get_attribute("hidden") is not None and page.shown("lobby")
        other.command("draw")
        offer = page.wait(lambda: page.driver.execute_script(
            "const b = document.querySelector('#offers-in button[id^=accept-]'); return b ? b.id : null;"),
            "the draw offer shown")
        assert "Draw offer" in page.text("offers-in")
        page.click(offer)
        page.wait(lambda: "1/2-1/2" in page.text("result"), "the draw")
        page.wait(lambda: page.shown("seek-form"), "the seek form back after the game")
        assert "1/2-1/2" in other.read_until("1/2-1/2")
        other.read_until(other.prompt)
        # the next game (maybe under the same number) starts afresh, the page as White
        page_accepts_match(page, other, "2 0 black")
        assert page.text("result") == "" and page.text("moves") == ""
        page_moves(page, other, lambda: page.type("move-input", "Nf3", enter=True))


def test_telnet_seek_answered_from_the_list_and_a_refused_move(chrome, server):
    page = Page(chrome, server)
    black, name = telnet_guest(server)
    with black:
        black.command("seek 5 0 black")
        button = page.wait(lambda: page.driver.execute_script(
            "const b = document.querySelector('#seek-rows button[id^=play-]'); return b ? b.id : null;"),
            "the telnet seek listed")
        assert name in page.text("seek-rows")
        page.click(button)
        page.moved_to(START)
        page.wait(lambda: page.shown("play-controls"), "the game's controls")
        page.type("move-input", "e5", enter=True)
        page.wait(lambda: "Illegal move" in page.text("play-note"), "the server's refusal")
        assert page.fen() == START == telnet_fen(black)
        page_moves(page, black, lambda: page.type("move-input", "e2e4", enter=True))


def test_registered_login(chrome, server):
    page = Page(chrome, server)
    assert page.name.startswith("Guest")
    page.type("login-name", "alice")
    page.type("login-password", "wrong")
    page.click("login-submit")
    page.wait(lambda: "Invalid password" in page.text("login-error"), "the refusal")
    page.wait(lambda: page.text("user").startswith("Guest") and page.text("user") != page.name, "a new guest")
    assert page.el("seek-rated").get_attribute("disabled") is not None
    page.type("login-name", "alice")
    page.type("login-password", "ecila")
    page.click("login-submit")
    page.wait(lambda: page.text("user") == "alice", "alice logged in")
    assert page.el("seek-rated").get_attribute("disabled") is None
    assert page.text("login-error") == ""


def test_challenge_withdrawn_then_takeback_and_abort(chrome, server):
    page = Page(chrome, server)
    other, name = telnet_guest(server)
    with other:
        other.command("iset pendinfo 1")
        page.type("match-name", name)
        page.type("match-time", "4")
        page.click("match-submit")
        offer = page.wait(lambda: page.driver.execute_script(
            "const b = document.querySelector('#offers-out button[id^=withdraw-]'); return b ? b.id : null;"),
            "the challenge listed")
        number = offer.split("-")[1]
        assert f"<pf> {number} w={page.name} t=match" in other.read_until(f"<pf> {number} w={page.name} t=match")
        page.click(offer)
        other.read_until(f"<pr> {number}")
        page.wait(lambda: not page.shown("offers"), "the challenge gone")
        page.click("match-submit")
        page.wait(lambda: page.shown("offers"), "a new challenge")
        other.read_until("t=match")
        other.command("accept")
        page.moved_to(START)
        page.wait(lambda: page.shown("play-controls"), "the game's controls")
        white = "orientation-white" in page.driver.execute_script(
            "return document.querySelector('#board .cg-wrap, #board.cg-wrap').className;")
        # both sides move (an abort is then a request), the page's last move is taken back
        if not white:
            telnet_moves(page, other, "e2e4")
        page_moves(page, other, lambda: page.type("move-input", "d4" if white else "d5", enter=True))
        telnet_moves(page, other, "d7d5" if white else "d2d4")
        page_moves(page, other, lambda: page.type("move-input", "c4" if white else "e6", enter=True))
        after = page.fen()
        page.click("takeback")
        other.read_until("t=takeback")
        other.command("accept")
        page.wait(lambda: page.fen() != after, "the move taken back")
        assert page.fen() == telnet_fen(other)
        page.click("abort")
        other.read_until("t=abort")
        other.command("accept")
        page.wait(lambda: "aborted" in page.text("result"), "the game aborted")
        assert not page.shown("play-controls")


def test_crazyhouse_drop_typed(chrome, server):
    page = Page(chrome, server)
    with telnet_guest(server)[0] as black:
        page_accepts_match(page, black, "5 0 zh black", START.replace(" ", "[] ", 1))
        page_moves(page, black, lambda: page.type("move-input", "e4", enter=True))
        telnet_moves(page, black, "d7d5")
        page_moves(page, black, lambda: page.click_move("e4", "d5"))
        telnet_moves(page, black, "d8d5")
        fen = page_moves(page, black, lambda: page.type("move-input", "P@e6", enter=True))
        assert fen.startswith("rnb1kbnr/ppp1pppp/4P3/3q4/8/8/PPPP1PPP/RNBQKBNR[p] b ")
        moves = page.driver.execute_script(
            "return [...document.querySelectorAll('#moves .move')].map((e) => e.textContent);")
        assert moves == ["e4", "d5", "exd5", "Qxd5", "P@e6"]


def test_chess960_moves(chrome, server):
    page = Page(chrome, server)
    with telnet_guest(server)[0] as black:
        start = page_accepts_match(page, black, "5 0 fr black", None)
        assert start.split(" ")[1] == "w"
        page_moves(page, black, lambda: page.click_move("e2", "e4"))
        telnet_moves(page, black, "e7e5")
        page_moves(page, black, lambda: page.type("move-input", "d4", enter=True))
        moves = page.driver.execute_script(
            "return [...document.querySelectorAll('#moves .move')].map((e) => e.textContent);")
        assert moves == ["e4", "e5", "d4"]


def test_move_list_while_observing(chrome, server):
    white, black = server.connect(), server.connect()
    with white, black:
        white.login()
        black_name = black.login()
        white.command(f"match {black_name} 5 0 white")
        black.read_until("Challenge:")
        black.command("accept")
        white.read_until("Creating:")
        created = white.read_until(white.prompt)
        number = re.search(r"\{Game (\d+) \(", created)
        assert number is not None, created
        chrome.get(page_url(server, f"/game/{number.group(1)}"))
        page = Page.__new__(Page)
        page.driver = chrome
        page.wait(lambda: page.fen() == START, "the observed board")
        played = ""
        for client, move in ((white, "e4"), (black, "e5"), (white, "Nf3"), (black, "Nc6"), (white, "Bb5")):
            client.send(move)  # the next move once the page has this one: the players in turn
            played += move
            page.wait(lambda played=played: page.text("moves") == played, f"the move list up to {move}")
        assert page.driver.execute_script("return document.querySelector('#moves .last').textContent;") == "Bb5"
        assert not page.shown("play-controls")
