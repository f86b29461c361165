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
import json
import re

import pytest
from browser import attribute, element, page_url, text, wait_text, wait_until

from ficsfen.cli import main as cli_main
from ficsfen.helpcatalog import HELP_DIR
from ficsfen.i18n import msg
from ficsfen.server.testing import ServerProcess
from ficsfen.server.webpage import STATIC_DIR

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


def open_page(driver, server) -> None:
    """The page at / (a new browser: English, the browser's language), logged in."""
    driver.get(page_url(server))
    wait_text(driver, "help-text", lambda t: t.startswith("fen\n"))


def switch_language(driver, lang: str) -> None:
    from selenium.webdriver.support.select import Select
    Select(element(driver, "lang")).select_by_value(lang)


def paste(driver, record: str) -> None:
    box = element(driver, "fen-paste-input")
    box.clear()
    box.send_keys(record)
    element(driver, "fen-paste-button").click()


def help_links(driver) -> list[str]:
    from selenium.webdriver.common.by import By
    return [a.get_dom_attribute("data-topic")
            for a in driver.find_elements(By.CSS_SELECTOR, "#help-text a.help-link")]


def open_topic(driver, topic: str) -> None:
    from selenium.webdriver.common.by import By
    driver.find_element(By.CSS_SELECTOR, f'#help-text a.help-link[data-topic="{topic}"]').click()


def pieces(driver, element_id: str) -> int:
    from selenium.webdriver.common.by import By
    return len(element(driver, element_id).find_elements(By.CSS_SELECTOR, "piece:not(.ghost)"))


@pytest.mark.slow
def test_help_fen_whole_in_english_then_in_french(server, chrome):
    open_page(chrome, server)
    # the whole page, though the server sends 40 lines at a time
    wait_text(chrome, "help-text", help_page("en", "fen"))
    switch_language(chrome, "fr")
    french = help_page("fr", "fen")
    assert "FEN, abréviation de Forsyth-Edwards Notation, est la façon normalisée de" in french
    wait_text(chrome, "help-text", french)


@pytest.mark.slow
def test_see_also_and_the_list_of_topics_open_pages(server, chrome):
    open_page(chrome, server)
    switch_language(chrome, "fr")
    wait_text(chrome, "help-text", help_page("fr", "fen"))
    see_also = help_page("fr", "fen").rstrip("\n").split("\n")[-1]
    assert help_links(chrome) == see_also.strip().split(", ")
    open_topic(chrome, "checkfen")
    wait_text(chrome, "help-text", help_page("fr", "checkfen"))
    element(chrome, "help-index").click()
    heading = msg("Help is available on the following topics:").render("fr")
    wait_text(chrome, "help-text", lambda t: t.startswith(heading))
    assert sorted(help_links(chrome)) == sorted(p.name for p in (HELP_DIR / "fr").iterdir())
    open_topic(chrome, "block_codes")
    wait_text(chrome, "help-text", help_page("fr", "block_codes"))


@pytest.mark.slow
def test_a_bad_fen_shows_ficsfen_checks_error_in_the_pages_language(server, chrome):
    open_page(chrome, server)
    paste(chrome, BAD_CASTLING)
    english = cli_check(BAD_CASTLING, lang="en")
    assert english == 'Invalid FEN: field 3 (castling): "QK" is out of order; write "KQ"'
    wait_text(chrome, "fen-paste-error", english)
    assert attribute(chrome, "fen-paste-board", "data-fen") == ""
    assert not element(chrome, "fen-paste-board").is_displayed()
    # switched to French, the same record is checked again: its error in French
    switch_language(chrome, "fr")
    french = cli_check(BAD_CASTLING, lang="fr")
    assert french.startswith("FEN invalide\u202f: champ 3 (roques)\u202f: ")
    wait_text(chrome, "fen-paste-error", french)
    record = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -  0 1"  # a doubled space
    paste(chrome, record)
    wait_text(chrome, "fen-paste-error", cli_check(record, lang="fr"))


@pytest.mark.slow
def test_a_good_fen_shows_a_board_with_the_servers_strict_record(server, chrome):
    open_page(chrome, server)
    assert cli_check(E4, lang="en") == E4
    paste(chrome, E4)
    wait_until(chrome, lambda d: attribute(d, "fen-paste-board", "data-fen") == E4,
               what="the board of the record pasted")
    assert text(chrome, "fen-paste-error") == ""
    assert element(chrome, "fen-paste-board").is_displayed()
    assert pieces(chrome, "fen-paste-board") == 32
    # a crazyhouse record, its holdings written lichess's way: they come back in brackets
    strict = cli_check("r3k2r/8/8/8/8/8/8/R2Q~K2R/P w KQkq - 0 1", lang="en", variant="crazyhouse")
    assert strict == "r3k2r/8/8/8/8/8/8/R2Q~K2R[P] w KQkq - 0 1"
    paste(chrome, "zh r3k2r/8/8/8/8/8/8/R2Q~K2R/P w KQkq - 0 1")
    wait_until(chrome, lambda d: attribute(d, "fen-paste-board", "data-fen") == strict,
               what="the crazyhouse board")
    assert pieces(chrome, "fen-paste-board") == 7


@pytest.mark.slow
def test_text_too_long_for_a_record_is_not_sent_and_the_session_goes_on(server, chrome):
    open_page(chrome, server)
    status = text(chrome, "status")
    limit = int(re.search(r"MAX_RECORD_BYTES = (\d+);", (STATIC_DIR / "fenbox.js").read_text()).group(1))
    assert limit < 1024  # the server's default line limit: a longer message closes the WebSocket
    labels = json.loads((STATIC_DIR / "i18n" / "en.json").read_text(encoding="utf-8"))
    paste(chrome, "8/" * 300)
    wait_text(chrome, "fen-paste-error", labels["fen_paste_too_long"].replace("{limit}", str(limit)))
    paste(chrome, E4)
    wait_until(chrome, lambda d: attribute(d, "fen-paste-board", "data-fen") == E4,
               what="the board of the record pasted next")
    assert text(chrome, "status") == status  # the same session: no reconnection
