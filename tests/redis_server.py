"""A real Redis server for the cluster tests: the fixture :func:`redis_server`.

Registered as a pytest plugin by ``tests/conftest.py``.  One ``redis-server``
per test process (each pytest-xdist worker has its own), session-scoped, on a
free loopback port in a temporary folder, with nothing saved to disk
(``--save "" --appendonly no``); stopped at the end of the session.

The binary is Debian's ``redis-server`` (``/usr/bin/redis-server``, which
``.ci/run`` installs; the ``REDIS_SERVER`` environment variable names another).
A missing binary skips the test, or fails it under CI (``CI=true``; see
``conftest.missing``).

Tests keep apart by namespace (:func:`namespace`: a new one per call), not by
flushing: several tests share the server.  :meth:`RedisServer.kill` and
:meth:`RedisServer.restart` stop and bring back the same server on the same
port (the bus-down tests).
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from conftest import missing

REDIS_SERVER = os.environ.get("REDIS_SERVER", "/usr/bin/redis-server")
#: How long a start or a stop may take before the test fails (a loaded machine is slow).
DEADLINE = 30.0

_names = itertools.count(1)


def namespace(prefix: str = "t") -> str:
    """A namespace no other test in this run uses."""
    return f"{prefix}{os.getpid()}x{next(_names)}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisServer:
    """A ``redis-server`` child on 127.0.0.1:``port``, in ``folder``."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.binary = binary
        self.folder = folder
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it and wait until it answers PING.  :raises RuntimeError: it did not."""
        log = (self.folder / "redis.log").open("ab")
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--protected-mode", "yes"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=self.folder)
        log.close()
        deadline = time.monotonic() + DEADLINE
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("redis-server did not start:\n" + self.log())
            time.sleep(0.02)

    def ping(self) -> bool:
        """Whether the server answers PING now."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """One command in RESP, its raw reply (a test's look at what the nodes keep)."""
        data = f"*{len(args)}\r\n".encode() + b"".join(
            f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args)
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(data)
            return s.recv(1 << 16)

    def kill(self) -> None:
        """Stop it at once (SIGKILL) and wait for it to be gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(DEADLINE)
        self.process = None

    def restart(self) -> None:
        """Start it again on the same port (after :meth:`kill`); its data is gone."""
        self.kill()
        self.start()

    def log(self) -> str:
        path = self.folder / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A running Redis server for this test process; see the module's documentation."""
    binary = shutil.which(REDIS_SERVER) or (REDIS_SERVER if os.access(REDIS_SERVER, os.X_OK)
                                            else None)
    if binary is None:
        missing(f"{REDIS_SERVER} is missing: the cluster tests need Debian's redis-server "
                "(apt-get install redis-server)")
    folder = Path(tempfile.mkdtemp(prefix="ficsfen-redis-"))
    server = RedisServer(binary, folder)
    try:
        server.start()
        yield server
    finally:
        server.kill()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[RedisServer]:
    """:func:`redis_server`, running again at the end of a test that killed it."""
    yield redis_server
    if redis_server.process is None or redis_server.process.poll() is not None:
        redis_server.start()
