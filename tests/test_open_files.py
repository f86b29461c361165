"""The open-file limit: raised to the hard limit at start, connections kept within it."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import threading

import pytest
from twisted.logger import LogLevel

from conftest import REPO
from ficsfen.server.openfiles import (
    SPARE_FILES,
    OpenFilesLimit,
    connections_allowed,
    limit_notices,
    raise_limit,
)
from ficsfen.server.testing import TelnetClient

TIMEOUT = 60
NOFILE = resource.RLIMIT_NOFILE


class Limits:
    """A process's ``RLIMIT_NOFILE`` as ``getrlimit``/``setrlimit`` see it (nothing else)."""

    def __init__(self, soft: int, hard: int, refuse: Exception | None = None) -> None:
        self.soft, self.hard, self.refuse = soft, hard, refuse
        self.calls: list[tuple[int, int]] = []

    def getrlimit(self, kind: int) -> tuple[int, int]:
        assert kind == NOFILE
        return self.soft, self.hard

    def setrlimit(self, kind: int, limits: tuple[int, int]) -> None:
        assert kind == NOFILE
        self.calls.append(limits)
        if self.refuse is not None:
            raise self.refuse
        self.soft, self.hard = limits


def test_the_soft_limit_is_raised_to_the_hard_one():
    limits = Limits(1024, 524288)
    got = raise_limit(12000 + SPARE_FILES, getrlimit=limits.getrlimit, setrlimit=limits.setrlimit)
    assert got == OpenFilesLimit(1024, 524288, 524288) and got.raised
    assert limits.calls == [(524288, 524288)]
    [(level, notice)] = limit_notices(got, 12000)
    assert level == LogLevel.info
    assert notice.render("en") == "Open-file limit raised from 1024 to 524288 (hard limit 524288)."
    assert notice.render("fr") == ("Limite de fichiers ouverts relevée de 1024 à 524288 "
                                   "(limite stricte 524288).")
    assert connections_allowed(got, 12000) == 12000


def test_a_limit_already_high_enough_is_left_alone():
    limits = Limits(20000, 20000)
    got = raise_limit(12064, getrlimit=limits.getrlimit, setrlimit=limits.setrlimit)
    assert got == OpenFilesLimit(20000, 20000, 20000) and not got.raised
    assert limits.calls == [] and limit_notices(got, 12000) == []


def test_an_unlimited_hard_limit_raises_the_soft_one_to_what_is_wanted():
    limits = Limits(256, resource.RLIM_INFINITY)
    got = raise_limit(12064, getrlimit=limits.getrlimit, setrlimit=limits.setrlimit)
    assert limits.calls == [(12064, resource.RLIM_INFINITY)]
    assert got.soft == 12064 and connections_allowed(got, 12000) == 12000
    [(_, notice)] = limit_notices(got, 12000)
    assert notice.render("en") == "Open-file limit raised from 256 to 12064 (hard limit unlimited)."
    assert "(limite stricte illimitée)" in notice.render("fr")


def test_a_hard_limit_too_low_for_connections_is_warned_and_connections_lowered():
    limits = Limits(1024, 1024)
    got = raise_limit(12064, getrlimit=limits.getrlimit, setrlimit=limits.setrlimit)
    assert not got.raised and limits.calls == []
    assert connections_allowed(got, 12000) == 1024 - SPARE_FILES
    [(level, notice)] = limit_notices(got, 12000)
    assert level == LogLevel.warn
    assert notice.render("en") == (
        f"[limits] connections = 12000 cannot be reached: the open-file limit is 1024 (hard "
        f"limit 1024), room for {1024 - SPARE_FILES} connections; further ones are told the "
        "server is full. Raise the hard limit (ulimit -Hn, LimitNOFILE= in a systemd unit) or "
        "lower connections.")
    assert notice.render("fr").startswith(
        "[limits] connections = 12000 ne peut pas être atteint\u202f: la limite de fichiers "
        f"ouverts est 1024 (limite stricte 1024), de quoi tenir {1024 - SPARE_FILES} connexions")
    assert connections_allowed(OpenFilesLimit(10, 10, 10), 100) == 1  # never none


def test_a_refusal_to_raise_is_reported_not_raised():
    limits = Limits(1024, 4096, refuse=ValueError("not allowed to raise the current limit"))
    got = raise_limit(12064, getrlimit=limits.getrlimit, setrlimit=limits.setrlimit)
    assert got == OpenFilesLimit(1024, 1024, 4096, "not allowed to raise the current limit")
    (level, notice), (_, short) = limit_notices(got, 12000)
    assert level == LogLevel.warn
    assert notice.render("en") == ("Cannot raise the open-file limit from 1024 (hard limit "
                                   "4096): not allowed to raise the current limit")
    assert f"room for {1024 - SPARE_FILES} connections" in short.render("en")


@pytest.mark.slow
def test_serve_raises_its_limit_and_tells_the_connection_past_it_that_it_is_full():
    soft, hard = 50, 100
    allowed = hard - SPARE_FILES
    env = dict(os.environ, PYTHONPATH=str(REPO), LC_ALL="C")
    server = subprocess.Popen(
        [sys.executable, "-m", "ficsfen", "serve", "--listen", "tcp:0:interface=127.0.0.1",
         "--data", "none", "--web", "none"], env=env, cwd=REPO, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: resource.setrlimit(NOFILE, (soft, hard)))
    lines: list[str] = []
    listening = threading.Event()

    def drain() -> None:
        for line in server.stderr:
            lines.append(line.rstrip("\n"))
            if "Listening on" in line:
                listening.set()
        listening.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    clients = []
    try:
        assert listening.wait(TIMEOUT), lines
        port = int(re.search(r"Listening on [^ ]*:(\d+) ", next(
            line for line in lines if "Listening on" in line)).group(1))
        with open(f"/proc/{server.pid}/limits") as f:
            assert re.search(rf"Max open files\s+{hard}\s+{hard}", f.read())
        assert any(f"Open-file limit raised from {soft} to {hard} (hard limit {hard})." in line
                   for line in lines), lines
        assert any(f"[limits] connections = 12000 cannot be reached: the open-file limit is "
                   f"{hard} (hard limit {hard}), room for {allowed} connections" in line
                   for line in lines), lines
        for _ in range(allowed):
            client = TelnetClient("127.0.0.1", port, timeout=TIMEOUT)
            clients.append(client)
            client.read_until("login: ")
        with TelnetClient("127.0.0.1", port, timeout=TIMEOUT) as extra:
            assert "Sorry, the server is full" in extra.read_until("full")
    finally:
        for client in clients:
            client.close()
        server.terminate()
        server.wait(TIMEOUT)
        reader.join(TIMEOUT)
    assert server.returncode == 0
