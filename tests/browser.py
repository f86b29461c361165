"""Real-browser test kit: headless Debian chromium driven by Selenium 4.

Registered as a pytest plugin by ``tests/conftest.py``, so every test can take
the fixture :func:`chrome`; the helpers are imported from this module::

    from browser import page_url, text, attribute, wait_until

    def test_x(chrome, server):
        chrome.get(page_url(server, "/game/1"))
        fen = wait_until(chrome, lambda d: attribute(d, "board", "data-fen"), what="a board")

The browser is the system's (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``,
Debian's ``chromium`` and ``chromium-driver``, which ``.ci/run`` installs; the
``CHROMIUM`` and ``CHROMEDRIVER`` environment variables name others).  The driver
is given by path, so Selenium Manager never looks for or downloads one.  A missing
browser, driver or ``selenium`` package skips the test, or fails it under CI
(``CI=true``; see ``conftest.missing``).

The page's console is recorded (``goog:loggingPrefs``): a test fails if the page
logs an error (level SEVERE: an uncaught exception or rejection, a resource that
failed to load, a Content-Security-Policy violation), unless the test declared it
expected with :func:`allow_console_errors`.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import pytest
from conftest import missing

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
#: The browser window, fixed so that layouts (and screenshots) do not depend on a screen.
WINDOW = (1000, 800)
#: How long a wait polls before it fails: generous, a loaded 2-core machine is slow.
DEADLINE = 60.0
#: Between two polls of a condition.
POLL = 0.05

T = TypeVar("T")


def _selenium() -> Any:
    try:
        import selenium.webdriver as webdriver
    except ImportError:
        missing("selenium is not installed (pip install '.[test]')")
    return webdriver


def start_chrome() -> Any:
    """A new headless chromium under chromedriver, its console recorded.

    :raises pytest.skip.Exception / pytest.fail.Exception: chromium, chromedriver
        or selenium is missing (see ``conftest.missing``).
    """
    webdriver = _selenium()
    lacking = [f"{path} ({package})" for path, package in
               ((CHROMIUM, "Debian package chromium"), (CHROMEDRIVER, "Debian package chromium-driver"))
               if not os.access(path, os.X_OK)]
    if lacking:
        missing("no real browser: missing " + ", ".join(lacking))
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                     "--no-sandbox",  # root in a container has no user namespace for the sandbox
                     "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_window_size(*WINDOW)
    driver.ficsfen_console = []
    driver.ficsfen_allowed = []
    return driver


@pytest.fixture
def chrome() -> Iterator[Any]:
    """A headless selenium ``webdriver.Chrome`` on the system chromium, quit at teardown.

    At teardown the test fails if the page logged an error that was not declared
    with :func:`allow_console_errors`.
    """
    driver = start_chrome()
    try:
        yield driver
        errors = console_errors(driver)
    finally:
        driver.quit()
    if errors:
        pytest.fail("the page logged errors in the browser console:\n" + "\n".join(errors), pytrace=False)


def page_url(server: Any, path: str = "/") -> str:
    """The address of ``path`` on a ``ServerProcess(web=True)``'s web side."""
    return f"http://127.0.0.1:{server.web_port}{path}"


def console(driver: Any) -> list[dict[str, Any]]:
    """Every console entry the page logged so far (``level``, ``message``, ``timestamp``)."""
    driver.ficsfen_console.extend(driver.get_log("browser"))
    return list(driver.ficsfen_console)


def allow_console_errors(driver: Any, pattern: str) -> None:
    """Errors whose message matches the regular expression ``pattern`` are expected
    (e.g. the WebSocket refused while the server restarts) and fail no test."""
    driver.ficsfen_allowed.append(re.compile(pattern))


def console_errors(driver: Any) -> list[str]:
    """The SEVERE console messages not matched by an :func:`allow_console_errors` pattern."""
    return [entry["message"] for entry in console(driver)
            if entry.get("level") == "SEVERE"
            and not any(p.search(entry["message"]) for p in driver.ficsfen_allowed)]


def element(driver: Any, element_id: str) -> Any:
    """The element with id ``element_id``.  :raises NoSuchElementException: none."""
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def attribute(driver: Any, element_id: str, name: str) -> str | None:
    """The DOM attribute ``name`` of element ``#element_id`` as the page set it
    (``None`` if absent).  :raises NoSuchElementException: no such element."""
    return element(driver, element_id).get_dom_attribute(name)


def text(driver: Any, element_id: str) -> str:
    """The text content of ``#element_id`` (hidden parts included, as the DOM holds it).
    :raises NoSuchElementException: no such element."""
    return element(driver, element_id).get_property("textContent") or ""


def wait_until(driver: Any, predicate: Callable[[Any], T], *, timeout: float = DEADLINE,
               what: str = "the condition") -> T:
    """Poll ``predicate(driver)`` until it returns a true value, and return that value.

    An element not found yet or replaced between two reads counts as false.
    :raises AssertionError: still false after ``timeout`` seconds; the message says
        ``what`` was awaited, the last value or exception, and the page's console errors.
    """
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            value = predicate(driver)
        except (NoSuchElementException, StaleElementReferenceException) as exc:
            value, last = None, exc  # type: ignore[assignment]
        else:
            if value:
                return value
            last = value
        if time.monotonic() >= deadline:
            errors = console_errors(driver)
            raise AssertionError(f"waited {timeout:g} s for {what}; last: {last!r}"
                                 + ("; console errors: " + " | ".join(errors) if errors else ""))
        time.sleep(POLL)


def wait_text(driver: Any, element_id: str, expected: str | Callable[[str], bool], *,
              timeout: float = DEADLINE) -> str:
    """Wait until ``#element_id``'s text equals ``expected`` (or satisfies it, a
    predicate on the text); return the text.  :raises AssertionError: see :func:`wait_until`."""
    def check(d: Any) -> str | None:
        value = text(d, element_id)
        ok = expected(value) if callable(expected) else value == expected
        return value if ok else None
    return wait_until(driver, check, timeout=timeout, what=f"#{element_id}'s text to be {expected!r}")


def wait_attribute(driver: Any, element_id: str, name: str, expected: str, *,
                   timeout: float = DEADLINE) -> str:
    """Wait until ``#element_id``'s attribute ``name`` equals ``expected``; return it.
    :raises AssertionError: see :func:`wait_until`."""
    wait_until(driver, lambda d: attribute(d, element_id, name) == expected,
               timeout=timeout, what=f"#{element_id}[{name}] == {expected!r}")
    return expected


def run_in_page(driver: Any, server: Any, script: str) -> Any:
    """Open the page of ``server``, wait for its session, then run ``script`` (an
    asynchronous script: its last argument is the callback it calls with a result) and
    return what it gave; a result holding ``"error"`` fails the test."""
    driver.get(page_url(server, "/"))
    wait_until(driver, lambda d: text(d, "status") == "Connected.", what="the page")
    driver.set_script_timeout(60)
    got = driver.execute_async_script(script)
    assert "error" not in got, got
    return got
