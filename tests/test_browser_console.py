"""The page's console and its reconnection, in a real browser against a real
``ficsfen serve``: a tell holding HTML shows as text and runs nothing; a command
typed in ``#console-input`` is sent and its reply shown; the WebSocket closed by
the server (an operator's ``nuke``, the server restarted on the same ports) and
the page logging in again by itself, observing its game again."""

from __future__ import annotations

import pytest
from browser import allow_console_errors, element, page_url, text, wait_until
from test_browser_observe import TelnetGame, check_board

from ficsfen.server.testing import ServerProcess, accounts_config

pytestmark = pytest.mark.slow

TELL = "<script>window.pwned=1</script><b>x</b>"
PASSWORDS = {"alice": "ecila"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    config = accounts_config(tmp_path_factory.mktemp("config") / "ficsfen.toml", PASSWORDS)
    config.write_text('[server]\nadmins = ["alice"]\n' + config.read_text())
    with ServerProcess("--config", str(config), web=True) as srv:
        yield srv


def logged_in(driver, other_than: str | None = None) -> str:
    """Wait for the page's guest login; its handle (another than ``other_than``)."""
    def name(d):
        name = text(d, "user")
        return text(d, "status") == "Connected." and name != other_than and name
    return wait_until(driver, name, what="the page's guest login" + (f" after {other_than}" if other_than else ""))


def console_lines(driver) -> list[str]:
    return driver.execute_script(
        "return [...document.getElementById('console-log').children].map((row) => row.textContent)")


def test_a_tell_with_html_shows_as_text_and_runs_nothing(chrome, server):
    chrome.get(page_url(server, "/"))
    guest = logged_in(chrome)
    scripts = chrome.execute_script("return document.scripts.length")
    with server.connect() as teller:
        name = teller.login()
        assert f"(told {guest})" in teller.command(f"tell {guest} {TELL}")
    expected = f"{name}(U) tells you: {TELL}"  # (U): an unregistered teller
    wait_until(chrome, lambda d: expected in console_lines(d), what="the tell in the console")
    assert chrome.execute_script("return document.querySelectorAll('#console-log *').length") == len(console_lines(chrome))
    assert chrome.execute_script("return document.scripts.length") == scripts
    assert chrome.execute_script("return document.getElementsByTagName('b').length") == 0
    assert chrome.execute_script("return typeof window.pwned") == "undefined"


def test_a_command_typed_in_the_console_and_its_reply(chrome, server):
    chrome.get(page_url(server, "/"))
    guest = logged_in(chrome)
    with server.connect() as friend:
        name = friend.login()
        box = element(chrome, "console-input")
        box.send_keys(f"tell {name} hello from the page\n")
        assert f"{guest}(U) tells you: hello from the page" in friend.read_until("hello from the page")
        wait_until(chrome, lambda d: f"(told {name})" in console_lines(d), what="the reply in the console")
        assert f"> tell {name} hello from the page" in console_lines(chrome)
        assert box.get_property("value") == ""
        box.send_keys("nosuchcommand\n")
        wait_until(chrome, lambda d: any("nosuchcommand" in line and "Command not found" in line
                                         for line in console_lines(d)), what="the unknown command's reply")


def test_nuked_the_page_logs_in_again_and_observes_again(chrome, server):
    game = TelnetGame(server)
    try:
        game.move("e4")
        chrome.get(page_url(server, f"/game/{game.number}"))
        check_board(chrome, game, "after e4")
        guest = logged_in(chrome)
        with server.connect() as alice:
            alice.login("alice", PASSWORDS["alice"])
            alice.command(f"nuke {guest}")
        wait_until(chrome, lambda d: text(d, "status").startswith("Disconnected; reconnecting in"),
                   what="the page saying it is disconnected")
        wait_until(chrome, lambda d: any("kicked out by alice" in line for line in console_lines(d)),
                   what="the nuke notice in the console")
        again = logged_in(chrome, other_than=guest)
        assert again != guest
        for move in ("e5", "Nf3"):
            game.move(move)
            check_board(chrome, game, f"after {move}, observed again")
    finally:
        game.close()


def test_the_server_restarted_the_page_logs_in_again(chrome, tmp_path):
    with ServerProcess(web=True) as first:
        chrome.get(page_url(first, "/"))
        guest = logged_in(chrome)
        port, web_port = first.port, first.web_port
    # the page tries again while the server is down: its refused WebSocket is expected
    allow_console_errors(chrome, r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws' failed")
    wait_until(chrome, lambda d: text(d, "status").startswith("Disconnected; reconnecting in"),
               what="the page saying it is disconnected")
    with ServerProcess("--listen", f"tcp:{port}:interface=127.0.0.1",
                       "--web", f"tcp:{web_port}:interface=127.0.0.1", listeners=3) as second:
        assert second.ports[f"tcp:{web_port}:interface=127.0.0.1"] == web_port
        again = logged_in(chrome, other_than=guest)
        with second.connect() as teller:
            name = teller.login()
            teller.command(f"tell {again} back")
        wait_until(chrome, lambda d: f"{name}(U) tells you: back" in console_lines(d), what="a tell after the restart")
