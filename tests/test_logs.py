"""The server's log: levels, text and JSON lines, and the options that choose them."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from twisted.logger import Logger, LogLevel
from twisted.python.failure import Failure

from ficsfen.server.config import ConfigError, from_mapping, load
from ficsfen.server.healthcheck import check
from ficsfen.server.logs import LOG_LEVELS, log_observer

REPO = Path(__file__).resolve().parents[1]


def emit_all(observer, namespace="ficsfen.test"):
    log = Logger(namespace=namespace, observer=observer)
    log.debug("debug {n}", n=1)
    log.info("connection from {peer}", peer="192.0.2.7:5000")
    log.warn("warn {n}", n=3)
    log.error("error {n}", n=4)
    log.critical("critical {n}", n=5)


def test_level_filter_drops_debug_at_info_and_keeps_the_rest():
    out = io.StringIO()
    emit_all(log_observer(out, level="info", fmt="text"))
    lines = out.getvalue().splitlines()
    assert [re.search(r"#(\w+)\]", line).group(1) for line in lines] == ["info", "warn", "error", "critical"]
    assert lines[0].endswith("[ficsfen.test#info] connection from 192.0.2.7:5000")


@pytest.mark.parametrize("level", LOG_LEVELS)
def test_each_level_keeps_itself_and_what_is_above(level):
    out = io.StringIO()
    emit_all(log_observer(out, level=level, fmt="text"))
    shown = [re.search(r"#(\w+)\]", line).group(1) for line in out.getvalue().splitlines()]
    assert shown == list(LOG_LEVELS[LOG_LEVELS.index(level):])


def test_json_lines_parse_and_carry_level_namespace_and_text():
    out = io.StringIO()
    emit_all(log_observer(out, level="debug", fmt="json"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    events = [json.loads(line) for line in lines]  # one object per line, no record separator
    assert [e["log_level"]["name"] for e in events] == list(LOG_LEVELS)
    assert {e["log_namespace"] for e in events} == {"ficsfen.test"}
    assert events[1]["log_text"] == "connection from 192.0.2.7:5000"
    assert events[1]["peer"] == "192.0.2.7:5000"
    assert events[1]["log_format"] == "connection from {peer}"
    assert isinstance(events[1]["log_time"], float)


def test_json_failure_carries_its_traceback_and_the_event_is_left_alone():
    out = io.StringIO()
    seen = []
    observer = log_observer(out, fmt="json", level="error")
    log = Logger(namespace="ficsfen.test", observer=lambda e: (seen.append(e), observer(e)))
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError:
        log.failure("command {line!r} failed", Failure(), LogLevel.error, line="who")
    [event] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert event["log_level"]["name"] == "error"
    assert event["log_text"] == "command 'who' failed"
    assert "ZeroDivisionError" in event["log_traceback"]
    assert "log_text" not in seen[0]  # other observers see the event as emitted


def test_bad_level_or_format_is_a_value_error():
    with pytest.raises(ValueError):
        log_observer(io.StringIO(), level="verbose")
    with pytest.raises(ValueError):
        log_observer(io.StringIO(), fmt="xml")


def test_log_section_of_the_configuration():
    config = from_mapping({"log": {"level": "warn", "format": "json"}})
    assert (config.log_level, config.log_format) == ("warn", "json")
    assert config.with_log(None, None) == config
    assert config.with_log("debug", None).log_level == "debug"
    assert load().log_level == "info" and load().log_format == "text"
    with pytest.raises(ConfigError, match="setting log.level: expected one of: debug, info, warn, error, "
                                          "critical, got 'verbose'"):
        from_mapping({"log": {"level": "verbose"}})
    with pytest.raises(ConfigError, match="log.format: expected one of: text, json"):
        from_mapping({"log": {"format": "xml"}})


def test_bad_log_option_is_a_usage_error(capfd):
    from ficsfen.cli import main

    assert main(["serve", "--log-level", "loud"]) == 2
    assert "--log-level: invalid choice: 'loud'" in capfd.readouterr().err


class JsonServer:
    """``ficsfen serve --log-format json`` on a free loopback port, its log read line by line."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ficsfen", "serve", "--listen", "tcp:0:interface=127.0.0.1",
             "--data", "none", "--web", "none", "--log-format", "json", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        self.lines: list[str] = []
        self.port: int | None = None
        self.listening = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            m = re.search(r'"log_text": "Listening on 127\.0\.0\.1:(\d+) ', line)
            if m:
                self.port = int(m.group(1))
                self.listening.set()
        self.listening.set()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        self.reader.join(60)
        return code


@pytest.mark.slow
def test_serve_logs_json_lines_a_guest_login_at_info():
    server = JsonServer()
    try:
        assert server.listening.wait(60) and server.port is not None, "".join(server.lines)
        check("127.0.0.1", server.port, timeout=30)
    finally:
        assert server.stop() == 0
    events = [json.loads(line) for line in server.lines]  # every line is one JSON object
    assert all("log_level" in e and "log_namespace" in e for e in events)
    by_text = {e["log_text"].split(" ")[0]: e for e in events}
    connection = by_text["connection"]
    assert connection["log_namespace"] == "ficsfen.server.telnet.TelnetConnection"
    assert connection["log_level"]["name"] == "info"
    assert re.fullmatch(r"127\.0\.0\.1:\d+", connection["peer"])
    assert by_text["login"]["log_level"]["name"] == "info"
    assert "Shutting down" in [e["log_text"] for e in events]


@pytest.mark.slow
def test_serve_log_level_warn_drops_the_info_lines():
    from ficsfen.server.testing import ServerProcess

    # the text log at warn: no "Listening on" line to find the port by, so a
    # taken port makes the one line (an error) that must still show
    with ServerProcess("--data", "none") as free:
        taken = f"tcp:{free.port}:interface=127.0.0.1"
        env = dict(os.environ, PYTHONPATH=str(REPO))
        done = subprocess.run([sys.executable, "-m", "ficsfen", "serve", "--lang", "en", "--listen", taken,
                               "--data", "none", "--web", "none", "--log-level", "warn"],
                              capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines and all("#info]" not in line for line in lines), lines
    assert any("#error] Cannot listen on " + taken in line for line in lines), lines
