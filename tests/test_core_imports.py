"""The library core runs without Twisted; the server still hears what it logs.

The core (codec, tracker, PGN, help catalog, catalogs, interfaces, the
host-mountable commands and the ``check``/``fens`` command line) must import
nothing from Twisted nor from :mod:`ficsfen.server`: each check runs in a
fresh interpreter, since this test process has long loaded both.  The
tracker logs with the standard :mod:`logging` module, and the server
forwards those records into ``twisted.logger``.
"""

from __future__ import annotations

import json
import logging
import pkgutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.logger import LogLevel, globalLogPublisher
from zope.interface import implementer

import ficsfen
import ficsfen.commands
from ficsfen import GameFeed, IGame
from ficsfen.server.config import load
from ficsfen.server.serve import FicsService, TwistedLogHandler, forward_library_logging
from ficsfen.server.server import FicsServer
from ficsfen.tracker import Tracker

REPO = Path(__file__).resolve().parents[1]
FEN = "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"

# Names of loaded modules that the core must not pull in.
FORBIDDEN = ("import sys\n"
             "def forbidden():\n"
             "    return sorted(m for m in sys.modules if m == 'twisted' or m.startswith('twisted.')\n"
             "                  or m == 'ficsfen.server' or m.startswith('ficsfen.server.'))\n")


def core_modules() -> list[str]:
    """Every module of the library: the package's and its commands', not the server's."""
    top = [f"ficsfen.{m.name}" for m in pkgutil.iter_modules(ficsfen.__path__)
           if m.name not in ("server", "__main__")]
    commands = [f"ficsfen.commands.{m.name}" for m in pkgutil.iter_modules(ficsfen.commands.__path__)]
    return ["ficsfen", *top, *commands]


def _fresh(code: str, *args: str) -> dict:
    result = subprocess.run([sys.executable, "-c", FORBIDDEN + code, *args], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_core_modules_are_the_expected_ones():
    modules = core_modules()
    for name in ("ficsfen.cli", "ficsfen.tracker", "ficsfen.fen", "ficsfen.epd", "ficsfen.pgn",
                 "ficsfen.fenfile", "ficsfen.helpcatalog", "ficsfen.i18n", "ficsfen.interfaces",
                 "ficsfen.commands.fen", "ficsfen.commands.help", "ficsfen.commands.base"):
        assert name in modules
    assert not any(m.startswith("ficsfen.server") for m in modules)


@pytest.mark.slow
def test_importing_every_core_module_loads_neither_twisted_nor_the_server():
    out = _fresh("import importlib, json\n"
                 "import ficsfen.cli\n"
                 "for name in json.loads(sys.argv[1]): importlib.import_module(name)\n"
                 "print(json.dumps({'loaded': forbidden(), 'chess': 'chess' in sys.modules}))\n",
                 json.dumps(core_modules()))
    assert out == {"loaded": [], "chess": True}


def test_a_tracker_whose_subscriber_fails_loads_no_twisted():
    # the failure log was the one place the core reached for Twisted
    out = _fresh("import json, logging\n"
                 "logging.disable(logging.CRITICAL)\n"
                 "from ficsfen import Tracker\n"
                 "t = Tracker()\n"
                 "t.subscribe(lambda ply: 1 / 0)\n"
                 "t.push('e4')\n"
                 "print(json.dumps({'loaded': forbidden(), 'ply': t.ply}))\n")
    assert out == {"loaded": [], "ply": 1}


def test_python_m_ficsfen_check_and_fens_load_no_twisted(tmp_path):
    pgn = tmp_path / "game.pgn"
    pgn.write_text('[Event "x"]\n\n1. e4 e5 2. Nf3 *\n', encoding="utf-8")
    out = _fresh("import json, runpy\n"
                 "codes = []\n"
                 "for argv in json.loads(sys.argv[1]):\n"
                 "    sys.argv = ['ficsfen', *argv]\n"
                 "    try:\n"
                 "        runpy.run_module('ficsfen', run_name='__main__', alter_sys=True)\n"
                 "    except SystemExit as e:\n"
                 "        codes.append(e.code)\n"
                 "print(json.dumps({'loaded': forbidden(), 'codes': codes}))\n",
                 json.dumps([["check", FEN], ["fens", str(pgn), "-o", str(tmp_path / "out")]]))
    assert out == {"loaded": [], "codes": [0, 0]}
    assert (tmp_path / "out").exists()


def test_the_real_entry_point_imports_no_twisted():
    # -X importtime lists every module the interpreter imports, wrapper-free
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "ficsfen", "check", FEN],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")]
    assert "ficsfen.cli" in imported and "chess" in imported
    assert [m for m in imported if m == "twisted" or m.startswith(("twisted.", "ficsfen.server"))] == []


# -- the server's log hears the library's ------------------------------------------


@pytest.fixture
def twisted_events():
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def _broken(ply):
    raise RuntimeError("boom")


def _failing_push() -> None:
    t = Tracker()
    t.subscribe(_broken)
    t.push("e4")


def _tracker_events(events: list[dict]) -> list[dict]:
    return [e for e in events if e.get("log_namespace") == "ficsfen.tracker"]


def test_forwarded_tracker_failures_reach_twisted_logger(twisted_events):
    stop = forward_library_logging()
    try:
        _failing_push()
    finally:
        stop()
    [event] = _tracker_events(twisted_events)
    assert event["log_level"] == LogLevel.error
    assert event["log_failure"].check(RuntimeError)
    assert event["message"] == f"FEN subscriber {_broken!r} raised on ply 1"
    _failing_push()  # once stopped, nothing more is forwarded
    assert len(_tracker_events(twisted_events)) == 1


def test_records_without_an_exception_keep_their_level_and_braces(twisted_events):
    logger = logging.getLogger("ficsfen.test-bridge")
    handler = TwistedLogHandler()
    logger.addHandler(handler)
    try:
        logger.warning("odd {text} with %s", "args")
    finally:
        logger.removeHandler(handler)
    [event] = [e for e in twisted_events if e.get("log_namespace") == "ficsfen.test-bridge"]
    assert event["log_level"] == LogLevel.warn and "log_failure" not in event
    assert event["message"] == "odd {text} with args"


def test_the_running_service_forwards_the_library_log(twisted_events):
    clock = Clock()
    service = FicsService(FicsServer(load(), clock=clock), None, [], reactor=clock)
    service.startService()
    try:
        _failing_push()
    finally:
        done = []
        service.stopService().addBoth(done.append)
    assert done == [None]
    [event] = _tracker_events(twisted_events)
    assert event["log_failure"].check(RuntimeError)
    _failing_push()  # a stopped service no longer forwards
    assert len(_tracker_events(twisted_events)) == 1
    assert not any(isinstance(h, TwistedLogHandler) for h in logging.getLogger("ficsfen").handlers)


@implementer(IGame)
class _Board:
    examined = True
    number, white, black = 5, "alice", "bob"

    def __init__(self) -> None:
        self.tracker = Tracker("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")

    def players(self):
        return (self.white, self.black)


@pytest.mark.parametrize("lang, reason", [("en", "White wins by checkmate."),
                                          ("fr", "Les Blancs gagnent par échec et mat.")])
def test_the_feed_reports_a_tracker_outcome(lang, reason):
    # Tracker.outcome() is python-chess's Outcome, whose result() is a method
    feed = GameFeed(lang=lang)
    transport = StringTransport()
    feed.factory().buildProtocol(None).makeConnection(transport)
    game = _Board()
    feed.game_started(game)
    game.tracker.push("Qg7#")
    outcome = game.tracker.outcome()
    assert isinstance(outcome, chess.Outcome)
    feed.game_ended(game, outcome)
    end = json.loads(transport.value().decode("utf-8").splitlines()[-1])
    assert (end["type"], end["result"], end["reason"]) == ("end", "1-0", reason)
