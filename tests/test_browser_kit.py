"""The real-browser kit itself (tests/browser.py) against a real ``ficsfen serve``:
the page loads and logs in with a clean console, and what the kit must catch (an
uncaught exception, an inline script the Content-Security-Policy blocks) is caught."""

from __future__ import annotations

import pytest
from browser import allow_console_errors, attribute, console_errors, page_url, text, wait_until

from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


def test_the_page_logs_in_with_a_clean_console(chrome, server):
    chrome.get(page_url(server, "/"))
    name = wait_until(chrome, lambda d: text(d, "status") == "Connected." and text(d, "user"), what="the guest login")
    assert name.startswith("Guest")
    assert name not in text(chrome, "status")  # the header names the player once, in #user
    assert attribute(chrome, "games-view", "hidden") is None
    assert console_errors(chrome) == []


def test_an_exception_and_a_blocked_inline_script_are_console_errors(chrome, server):
    chrome.get(page_url(server, "/"))
    wait_until(chrome, lambda d: text(d, "user").startswith("Guest"), what="the guest login")
    chrome.execute_script(
        "setTimeout(() => { throw new Error('kit-check'); }, 0);"
        "const s = document.createElement('script'); s.textContent = 'window.ran = 1'; document.body.append(s);")
    errors = wait_until(chrome, lambda d: len(console_errors(d)) >= 2 and console_errors(d),
                        what="two console errors")
    assert any("Uncaught Error: kit-check" in e for e in errors)
    assert any("Content Security Policy" in e and "inline" in e for e in errors)
    assert chrome.execute_script("return window.ran") is None  # the CSP blocked it
    # expected here: the fixture's teardown must not fail the test for them
    allow_console_errors(chrome, "kit-check|Content Security Policy")
    assert console_errors(chrome) == []
