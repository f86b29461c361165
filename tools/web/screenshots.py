#!/usr/bin/env python3
"""Screenshots of the web page for docs/web.md, taken in headless chromium.

Starts a real ``ficsfen serve`` with its web side on free loopback ports, has two
telnet players (unregistered names) play the opening of Anderssen-Kieseritzky,
London 1851, then opens the page in Debian's chromium (Selenium 4, through
``/usr/bin/chromedriver``) and writes PNG files into ``docs/images/``:

- ``web-games.png``: the top of ``/``, the list of live games;
- ``web-observe.png``: the top of ``/game/N``, the game watched;
- ``web-console.png``: the console panel of that page, a tell received and ``who``
  typed in it.

Run from the checkout, with the test extras installed (selenium)::

    .venv/bin/python tools/web/screenshots.py [--out DIR]

The viewport is small (``--width``, ``--height``, ``--games-height``) so that the
files stay small.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from ficsfen.server.testing import ServerProcess  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WHITE, BLACK = "Anderssen", "Kieseritzky"
MOVES = "e4 e5 f4 exf4 Bc4 Qh4+ Kf1 b5 Bxb5 Nf6 Nf3 Qh6 d3 Nh5 Nh4 Qg5".split()


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
    return driver.execute_script(f"return document.getElementById('{element_id}').textContent")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of the web page into docs/images/.")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--width", type=int, default=760)
    parser.add_argument("--height", type=int, default=762)
    parser.add_argument("--games-height", type=int, default=210)
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
            viewport(driver, args.width, args.games_height)
            driver.save_screenshot(str(args.out / "web-games.png"))
            viewport(driver, args.width, args.height)
            driver.get(base + "/game/1")
            wait(driver, lambda d: d.execute_script(
                "return document.getElementById('board').dataset.fen") == kibitzer.command(
                "fen 1").strip().splitlines()[-1], "the board")
            guest = wait(driver, lambda d: text(d, "status").startswith("Connected as ")
                         and text(d, "status")[len("Connected as "):-1], "the login")
            kibitzer.command(f"tell {guest} Anderssen is a piece down and attacking: watch Nh4!")
            wait(driver, lambda d: "watch Nh4" in text(d, "console-log"), "the tell")
            driver.save_screenshot(str(args.out / "web-observe.png"))
            driver.find_element("id", "console-input").send_keys("who\n")
            wait(driver, lambda d: "players displayed" in text(d, "console-log"), "who's reply")
            driver.find_element("id", "console").screenshot(str(args.out / "web-console.png"))
        finally:
            driver.quit()
            for client in (white, black, kibitzer):
                client.close()
    for name in ("web-games.png", "web-observe.png", "web-console.png"):
        path = args.out / name
        print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
