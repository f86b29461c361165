#!/usr/bin/env python3
"""Screenshots of the web page for docs/web.md, taken in headless chromium.

Starts a real ``ficsfen serve`` with its web side on free loopback ports, has two
telnet players (unregistered names) play the opening of Anderssen-Kieseritzky,
London 1851, then opens the page in Debian's chromium (Selenium 4, through
``/usr/bin/chromedriver``) and writes PNG files into ``docs/images/``:

- ``web-games.png``: the top of ``/``, the list of live games;
- ``web-observe.png``: the top of ``/game/N``, the game watched;
- ``web-console.png``: the console panel of that page, a tell received and ``who``
  typed in it;
- ``web-play.png``: the page's guest playing a telnet player who challenged it, a
  few moves in: the board, the move list and the game's buttons;
- ``web-seeks.png``: the seek list of another guest, two telnet seeks in it, and a
  challenge from a third telnet player;
- ``web-fen.png``, ``web-fen-error.png``: the "paste a FEN" box, a valid record's
  board, then an invalid record's error;
- ``web-help-fr.png``: the help viewer showing ``help fen`` once the page is French.

Run from the checkout, with the test extras installed (selenium)::

    .venv/bin/python tools/web/screenshots.py [--out DIR]

The viewport is small (``--width``, ``--height``) and each picture is cut to the
panels it shows, so that the files stay small.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import Select

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from ficsfen.server.testing import ServerProcess  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WHITE, BLACK = "Anderssen", "Kieseritzky"
MOVES = "e4 e5 f4 exf4 Bc4 Qh4+ Kf1 b5 Bxb5 Nf6 Nf3 Qh6 d3 Nh5 Nh4 Qg5".split()
# the page's guest (White) against a telnet player: an Italian game's first moves
PLAYED = "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4".split()
GOOD_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
BAD_FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1"
NAMES = ("web-games.png", "web-observe.png", "web-console.png", "web-play.png", "web-seeks.png",
         "web-fen.png", "web-fen-error.png", "web-help-fr.png")


def wait(driver: Any, check: Callable[[Any], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll ``check(driver)`` until true; :raises TimeoutError: not within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check(driver)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(f"the page did not show {what}")


def browser(width: int, height: int) -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", f"--window-size={width},{height}", "--no-sandbox",
                     "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars", "--lang=en-US"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    viewport(driver, width, height)
    return driver


def viewport(driver: Any, width: int, height: int) -> None:
    """The window sized so that the page's viewport is ``width`` by ``height``."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])


def text(driver: Any, element_id: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('{element_id}').textContent"))


def fen(driver: Any, element_id: str = "board") -> str:
    return str(driver.execute_script(f"return document.getElementById('{element_id}').dataset.fen"))


def to_move(side: str, driver: Any) -> bool:
    """Whether the board's FEN says ``side`` (" w " or " b ") is to move."""
    return side in fen(driver)


def shot(driver: Any, path: Path, *selectors: str, max_height: int = 0, margin: int = 8) -> None:
    """A PNG of the page's area around the shown elements ``selectors`` (CSS; the
    top ``max_height`` pixels of it when given), whether in the viewport or not."""
    x, y, width, height = driver.execute_script(
        "const rs = arguments[0].map((s) => document.querySelector(s).getBoundingClientRect())"
        "  .filter((r) => r.width > 0 && r.height > 0);"
        "const left = Math.min(...rs.map((r) => r.left)), top = Math.min(...rs.map((r) => r.top));"
        "const right = Math.max(...rs.map((r) => r.right)), bottom = Math.max(...rs.map((r) => r.bottom));"
        "return [left + scrollX, top + scrollY, right - left, bottom - top];", list(selectors))
    if max_height:
        height = min(height, max_height)
    clip = {"x": max(0, x - margin), "y": max(0, y - margin), "width": width + 2 * margin,
            "height": height + 2 * margin, "scale": 1}
    data = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                              "captureBeyondViewport": True})
    path.write_bytes(base64.b64decode(data["data"]))


def logged_in(driver: Any, base: str, path: str = "/") -> str:
    """Open ``path``; the page's guest name once it is logged in."""
    driver.get(base + path)
    return str(wait(driver, lambda d: text(d, "status") == "Connected." and text(d, "user"), "the login"))


def button(driver: Any, selector: str) -> Any:
    """The id of the first element matching ``selector``, or None."""
    return driver.execute_script(f"const b = document.querySelector('{selector}'); return b ? b.id : null;")


def playing(driver: Any, base: str, server: ServerProcess, out: Path) -> None:
    """web-play.png: a telnet player challenges the page's guest, who accepts and plays White."""
    guest = logged_in(driver, base)
    with server.connect() as morphy:
        morphy.login("Morphy")
        morphy.command("style 12")
        morphy.command(f"match {guest} 10 5 black")
        accept = wait(driver, lambda d: button(d, "#offers-in button[id^=accept-]"), "the challenge")
        driver.find_element("id", accept).click()
        wait(driver, lambda d: d.find_element("id", "play-controls").is_displayed(), "the game's buttons")
        for i, move in enumerate(PLAYED):
            side = " b " if i % 2 == 0 else " w "
            if i % 2 == 0:
                driver.find_element("id", "move-input").send_keys(move + "\n")
            else:
                morphy.command(move)
            wait(driver, partial(to_move, side), f"the move {move}")
        morphy.command("draw")
        wait(driver, lambda d: button(d, "#offers-in button[id^=accept-]"), "the draw offer")
        shot(driver, out / "web-play.png", "#game-view", "#offers")
        morphy.command("resign")
        wait(driver, lambda d: text(d, "result"), "the result")


def lobby(driver: Any, base: str, server: ServerProcess, out: Path) -> None:
    """web-seeks.png: two telnet seeks and a telnet challenge to the page's guest."""
    guest = logged_in(driver, base)
    clients = [server.connect() for _ in range(3)]
    try:
        for client, name in zip(clients, ("Tal", "Petrosian", "Spassky")):
            client.login(name)
        clients[0].command("seek 5 0")
        clients[1].command("seek 15 10 zh")
        clients[2].command(f"match {guest} 3 2")
        wait(driver, lambda d: d.execute_script(
            "return document.querySelectorAll('#seek-rows tr').length === 2"
            " && document.querySelectorAll('#offers-in li').length === 1"), "the seeks and the challenge")
        shot(driver, out / "web-seeks.png", "#offers", "#lobby")
        clients[2].command("withdraw")
    finally:
        for client in clients:
            client.close()


def tools(driver: Any, base: str, out: Path) -> None:
    """web-fen.png, web-fen-error.png, then web-help-fr.png once the page is French."""
    logged_in(driver, base)
    box = driver.find_element("id", "fen-paste-input")
    box.send_keys(GOOD_FEN + "\n")
    wait(driver, lambda d: fen(d, "fen-paste-board") == GOOD_FEN, "the pasted record's board")
    shot(driver, out / "web-fen.png", "#fen-paste")
    box.clear()
    box.send_keys(BAD_FEN + "\n")
    wait(driver, lambda d: text(d, "fen-paste-error"), "the pasted record's error")
    shot(driver, out / "web-fen-error.png", "#fen-paste")
    Select(driver.find_element("id", "lang")).select_by_value("fr")
    wait(driver, lambda d: "VOIR AUSSI" in text(d, "help-text"),
         "help fen in French")
    shot(driver, out / "web-help-fr.png", "#help", max_height=560)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of the web page into docs/images/.")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--width", type=int, default=760)
    parser.add_argument("--height", type=int, default=762)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with ServerProcess(web=True) as server:
        white, black, kibitzer = server.connect(), server.connect(), server.connect()
        white.login(WHITE)
        black.login(BLACK)
        kibitzer.login("Staunton")
        white.command(f"match {BLACK} 15 0 white")
        black.read_until(black.prompt)
        black.command("accept")
        white.read_until(white.prompt)
        for i, move in enumerate(MOVES):
            mover, other = (white, black) if i % 2 == 0 else (black, white)
            mover.command(move)
            other.read_until(other.prompt)
        base = f"http://127.0.0.1:{server.web_port}"
        driver = browser(args.width, args.height)
        try:
            driver.get(base + "/")
            wait(driver, lambda d: WHITE in text(d, "games"), "the game in the list")
            shot(driver, args.out / "web-games.png", "header", "#games-view")
            driver.get(base + "/game/1")
            wait(driver, lambda d: d.execute_script(
                "return document.getElementById('board').dataset.fen") == kibitzer.command(
                "fen 1").strip().splitlines()[-1], "the board")
            guest = wait(driver, lambda d: text(d, "status") == "Connected." and text(d, "user"), "the login")
            kibitzer.command(f"tell {guest} Anderssen is a piece down and attacking: watch Nh4!")
            wait(driver, lambda d: "watch Nh4" in text(d, "console-log"), "the tell")
            driver.save_screenshot(str(args.out / "web-observe.png"))
            driver.find_element("id", "console-input").send_keys("who\n")
            wait(driver, lambda d: "players displayed" in text(d, "console-log"), "who's reply")
            driver.find_element("id", "console").screenshot(str(args.out / "web-console.png"))
            playing(driver, base, server, args.out)
            lobby(driver, base, server, args.out)
            tools(driver, base, args.out)
        finally:
            driver.quit()
            for client in (white, black, kibitzer):
                client.close()
    for name in NAMES:
        path = args.out / name
        print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
