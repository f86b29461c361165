"""The page's help viewer and "paste a FEN" box in a real browser, against a real server.

Headless chromium (Selenium) on a ``ficsfen serve`` with its web side: the help
page the viewer shows is the server's page of the page's language, whole (read
on with ``next``); switching the page to French turns the server's texts
French; a bad FEN pasted shows exactly what ``ficsfen check`` prints, in the
page's language; a good one shows a board whose ``data-fen`` is the server's
strict record.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil

import pytest

from conftest import missing
from ficsfen.cli import main as cli_main
from ficsfen.helpcatalog import HELP_DIR
from ficsfen.i18n import msg
from ficsfen.server.testing import ServerProcess
from ficsfen.server.webpage import STATIC_DIR

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 60  # seconds: a deadline for conditions polled, never a pause

E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
BAD_CASTLING = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1"


def cli_check(record: str, *, lang: str, variant: str | None = None) -> str:
    """What ``ficsfen --lang LANG check RECORD`` prints (stdout or stderr), one line."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["--lang", lang, "check", *(["--variant", variant] if variant else []), record]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cli_main(argv)
    return (out.getvalue() + err.getvalue()).rstrip("\n")


def help_page(lang: str, topic: str) -> str:
    return (HELP_DIR / lang / topic).read_text(encoding="utf-8")


# -- quick: what the page's script knows of the server ----------------------------------


def test_the_help_viewer_knows_the_pagers_line_in_every_language():
    script = (STATIC_DIR / "help.js").read_text(encoding="utf-8")
    known = re.search(r"MORE_LINES = new Set\(\[(.*?)\]\)", script).group(1)
    lines = set(re.findall(r'"([^"]*)"', known))
    assert lines == {msg("Type [next] to see the next page.").render(lang) for lang in ("en", "fr")}


def test_the_fen_box_knows_checkfens_block_code():
    from ficsfen.server import block
    script = (STATIC_DIR / "fenbox.js").read_text(encoding="utf-8")
    assert f"CHECKFEN_CODE = {block.code_for('checkfen')};" in script


# -- the browser -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


@pytest.fixture(scope="module")
def chrome():
    """A headless chromium driven by Selenium; skipped when absent (failed under CI)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium is not installed (pip install -e '.[test]')")
    for path in (CHROMIUM, CHROMEDRIVER):
        if shutil.which(path) is None:
            missing(f"{path} is not installed (Debian: chromium, chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US",
                "--window-size=1200,1600"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, condition, message: str = ""):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(condition, message)


def text_of(driver, element_id: str) -> str:
    """The element's textContent (what the page put there, spaces as they are)."""
    from selenium.webdriver.common.by import By
    return driver.find_element(By.ID, element_id).get_property("textContent")


def open_page(driver, server) -> None:
    """The page at /, in English (no language kept from an earlier test), logged in."""
    driver.get(f"http://127.0.0.1:{server.web_port}/")
    driver.execute_script("localStorage.clear()")
    driver.get(f"http://127.0.0.1:{server.web_port}/")
    wait_for(driver, lambda d: text_of(d, "help-text").startswith("fen\n"), "help fen never shown")


def switch_language(driver, lang: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    Select(driver.find_element(By.ID, "lang")).select_by_value(lang)


def paste(driver, record: str) -> None:
    from selenium.webdriver.common.by import By
    box = driver.find_element(By.ID, "fen-paste-input")
    box.clear()
    box.send_keys(record)
    driver.find_element(By.ID, "fen-paste-button").click()


@pytest.mark.slow
def test_help_fen_whole_in_english_then_in_french(server, chrome):
    open_page(chrome, server)
    # the whole page, though the server sends 40 lines at a time
    wait_for(chrome, lambda d: text_of(d, "help-text") == help_page("en", "fen"))
    switch_language(chrome, "fr")
    french = help_page("fr", "fen")
    assert "FEN, abréviation de Forsyth-Edwards Notation, est la façon normalisée de" in french
    wait_for(chrome, lambda d: text_of(d, "help-text") == french, "help fen never shown in French")


@pytest.mark.slow
def test_see_also_and_the_list_of_topics_open_pages(server, chrome):
    from selenium.webdriver.common.by import By
    open_page(chrome, server)
    switch_language(chrome, "fr")
    wait_for(chrome, lambda d: "VOIR AUSSI" in text_of(d, "help-text"))
    links = chrome.find_elements(By.CSS_SELECTOR, "#help-text a.help-link")
    see_also = help_page("fr", "fen").rstrip("\n").split("\n")[-1]
    assert [a.get_attribute("data-topic") for a in links] == see_also.strip().split(", ")
    chrome.find_element(By.CSS_SELECTOR, '#help-text a.help-link[data-topic="checkfen"]').click()
    wait_for(chrome, lambda d: text_of(d, "help-text") == help_page("fr", "checkfen"))
    chrome.find_element(By.ID, "help-index").click()
    wait_for(chrome, lambda d: text_of(d, "help-text").startswith(
        msg("Help is available on the following topics:").render("fr")))
    topics = sorted(p.name for p in (HELP_DIR / "fr").iterdir())
    names = [a.get_attribute("data-topic") for a in
             chrome.find_elements(By.CSS_SELECTOR, "#help-text a.help-link")]
    assert sorted(names) == topics
    chrome.find_element(By.CSS_SELECTOR, '#help-text a.help-link[data-topic="block_codes"]').click()
    wait_for(chrome, lambda d: text_of(d, "help-text") == help_page("fr", "block_codes"))


@pytest.mark.slow
def test_a_bad_fen_shows_ficsfen_checks_error_in_the_pages_language(server, chrome):
    from selenium.webdriver.common.by import By
    open_page(chrome, server)
    paste(chrome, BAD_CASTLING)
    english = cli_check(BAD_CASTLING, lang="en")
    assert english == 'Invalid FEN: field 3 (castling): "QK" is out of order; write "KQ"'
    wait_for(chrome, lambda d: text_of(d, "fen-paste-error") == english)
    board = chrome.find_element(By.ID, "fen-paste-board")
    assert board.get_attribute("data-fen") == "" and not board.is_displayed()
    # switched to French, the same record's error is checked again, in French
    switch_language(chrome, "fr")
    french = cli_check(BAD_CASTLING, lang="fr")
    assert french.startswith("FEN invalide\u202f: champ 3 (roques)\u202f: ")
    wait_for(chrome, lambda d: text_of(d, "fen-paste-error") == french)
    record = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -  0 1"  # a doubled space
    paste(chrome, record)
    wait_for(chrome, lambda d: text_of(d, "fen-paste-error") == cli_check(record, lang="fr"))


@pytest.mark.slow
def test_a_good_fen_shows_a_board_with_the_servers_strict_record(server, chrome):
    from selenium.webdriver.common.by import By
    open_page(chrome, server)
    paste(chrome, E4)
    wait_for(chrome, lambda d: d.find_element(By.ID, "fen-paste-board").get_attribute("data-fen") == E4)
    assert cli_check(E4, lang="en") == E4
    assert text_of(chrome, "fen-paste-error") == ""
    board = chrome.find_element(By.ID, "fen-paste-board")
    assert board.is_displayed()
    assert len(board.find_elements(By.CSS_SELECTOR, "piece:not(.ghost)")) == 32
    # a crazyhouse record's holdings written lichess's way come back in brackets
    strict = cli_check("r3k2r/8/8/8/8/8/8/R2Q~K2R/P w KQkq - 0 1", lang="en", variant="crazyhouse")
    assert strict == "r3k2r/8/8/8/8/8/8/R2Q~K2R[P] w KQkq - 0 1"
    paste(chrome, "zh r3k2r/8/8/8/8/8/8/R2Q~K2R/P w KQkq - 0 1")
    wait_for(chrome, lambda d: d.find_element(By.ID, "fen-paste-board").get_attribute("data-fen") == strict)
    assert len(board.find_elements(By.CSS_SELECTOR, "piece:not(.ghost)")) == 7

