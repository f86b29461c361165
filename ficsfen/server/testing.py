"""Helpers for testing ficsfen and servers built on it (shipped for integrators).

In-process, no network: :func:`make_server` builds a :class:`FicsServer`
on a :class:`twisted.internet.task.Clock`, and :func:`connect` attaches a
:class:`FakeClient` through a ``StringTransport``::

    server = make_server()
    alice = connect(server)
    alice.login()                # -> "GuestABCD"
    print(alice.command("fen"))  # output up to the next prompt

Over a real socket: :class:`ServerProcess` runs ``ficsfen serve`` as a child
process on a free loopback port and :class:`TelnetClient` talks to it with
plain sockets and timeouts.
"""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.python.failure import Failure

from ficsfen.server.config import Config, hash_password
from ficsfen.server.server import FicsServer
from ficsfen.server.telnet import FicsFactory

__all__ = ["FakeClient", "ServerProcess", "TelnetClient", "accounts_config", "connect",
           "make_server"]

_GUEST = re.compile(r'Press return to enter the server as "(\w+)"')


def make_server(config: Config | None = None, *, clock: Clock | None = None, seed: int = 0,
                store: Any = None, **settings: Any) -> FicsServer:
    """A server on a fake clock with seeded guest names; ``settings`` override config fields.

    ``store`` (an ``IStore``, or ``None``: nothing kept) is given to the server's services
    as it is built (accounts and games read it from then on).

    Its input scheduler measures no CPU time (its timer always reads 0): on a
    fake clock, real time would decide which connection is heavy and when its
    input runs.  A test of heavy connections sets ``FicsFactory(server).scheduler.timer``.
    """
    config = config if config is not None else Config()
    if settings:
        config = replace(config, **settings)
    server = FicsServer(config, clock=clock if clock is not None else Clock(),
                        rng=random.Random(seed), store=store)
    FicsFactory(server).scheduler.timer = _no_cpu
    return server


def _no_cpu() -> float:
    return 0.0


class FakeClient:
    """A connection to ``server`` over a ``StringTransport``.

    Each client comes from an address of its own in 10.0.0.0/8 (as many
    people would), so that per-address limits see one connection each;
    give ``host`` to make several clients share an address.
    """

    _ports = iter(range(40000, 1 << 30))
    _hosts = iter(range(1, 1 << 24))

    def __init__(self, server: FicsServer, *, host: str | None = None) -> None:
        self.server = server
        if host is None:
            n = next(self._hosts)
            host = f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"
        addr = IPv4Address("TCP", host, next(self._ports))
        self.transport = StringTransport(peerAddress=addr)
        self.protocol = FicsFactory(server).buildProtocol(addr)
        self.protocol.makeConnection(self.transport)
        self.handle: str | None = None
        #: What a registered login printed (the session's start and its notices).
        self.login_text = ""

    @property
    def session(self) -> Any:
        return self.protocol.wrappedProtocol.session

    def send_bytes(self, data: bytes) -> None:
        """Deliver ``data`` as one read, then run the reactor turns it takes (input budget)."""
        self.protocol.dataReceived(data)
        clock = self.server.clock
        while self.protocol.input_waiting and isinstance(clock, Clock):
            clock.advance(0)

    def send(self, line: str, *, end: bytes = b"\r\n") -> None:
        self.send_bytes(line.encode("utf-8") + end)

    def raw_output(self) -> bytes:
        """Bytes written since the last read (and forget them)."""
        data = self.transport.value()
        self.transport.clear()
        return data

    def output(self, encoding: str = "utf-8") -> str:
        """Text written since the last read, with CR LF turned into LF."""
        return self.raw_output().decode(encoding, "replace").replace("\r\n", "\n")

    def command(self, line: str) -> str:
        """Send ``line`` and return the output, the final prompt removed."""
        self.output()
        self.send(line)
        text = self.output()
        prompt = self.server.config.prompt
        return text[: -len(prompt)] if text.endswith(prompt) else text

    def login(self, name: str | None = None, password: str | None = None) -> str:
        """Log in as a guest, as the unregistered ``name``, or with ``password`` as the
        registered ``name``; returns the handle."""
        if password is not None:
            self.send(name or "")
            if "password: " not in self.output():
                raise AssertionError(f"{name} is not a registered name")
            self.send(password)
            out = self.login_text = self.output()
            if "**** Starting FICS session as" not in out:
                raise AssertionError(f"login refused: {out!r}")
            self.handle = self.session.handle
            return self.handle
        self.send(name or self.server.config.guest_login)
        m = _GUEST.search(self.output())
        if m is None:
            raise AssertionError("login was refused")
        self.send("")
        self.output()
        self.handle = m.group(1)
        return self.handle

    @property
    def connected(self) -> bool:
        return not self.transport.disconnecting

    def disconnect(self) -> None:
        # A reason, as a real transport gives: pending telnet negotiations (the
        # password's WILL ECHO) fail with it.
        self.protocol.connectionLost(Failure(ConnectionDone()))


def connect(server: FicsServer, *, host: str | None = None) -> FakeClient:
    return FakeClient(server, host=host)


def accounts_config(path: Path, passwords: Mapping[str, str], *,
                    iterations: int = 1000) -> Path:
    """Write at ``path`` a configuration whose ``[accounts]`` are the handles of
    ``passwords`` with their passwords' hashes (``iterations`` rounds: few, quick to
    check); return ``path``."""
    path.write_text("[accounts]\n" + "".join(
        f'{name} = "{hash_password(word, iterations=iterations)}"\n'
        for name, word in passwords.items()))
    return path


def _serve_command() -> list[str]:
    package = Path(__file__).resolve().parents[1]
    if (package / "__main__.py").exists():
        return [sys.executable, "-m", "ficsfen", "serve"]
    return [sys.executable, "-c",
            "import sys; from ficsfen.server.serve import main; sys.exit(main(sys.argv[1:]))"]


class ServerProcess:
    """``ficsfen serve`` in a child process on a free loopback port.

    Use as a context manager; :attr:`port` is known once it has started.
    The child's log (stderr) is collected in :attr:`log_lines`.  It runs
    with ``--data none`` (no store) unless ``args`` give ``--data``.
    ``timeout`` bounds each wait (the start, a read, the stop) so that a
    broken test cannot hang; it is generous because a loaded machine is slow.

    It has no web side (``--web none``: never the default port 8080, which two
    servers started at once would both want) unless ``args`` give ``--web``
    or ``web`` is true: then the web side listens on a free loopback port too,
    :attr:`web_port`.
    """

    #: The web endpoint ``web=True`` asks for: a free loopback port, spelt unlike
    #: the telnet one so that :attr:`ports` tells them apart.
    WEB_ENDPOINT = "tcp:port=0:interface=127.0.0.1"

    def __init__(self, *args: str, timeout: float = 60.0, env: dict | None = None,
                 listeners: int = 1, web: bool = False) -> None:
        self.args = list(args)
        if web:
            self.args += ["--web", self.WEB_ENDPOINT]
            listeners += 1
        self.timeout = timeout
        self.env = env
        self.listeners = listeners
        self.port: int | None = None
        #: Port of every endpoint listened on, by endpoint string (e.g. the --feed's).
        self.ports: dict[str, int] = {}
        self.log_lines: list[str] = []
        self.process: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self._started = threading.Event()

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server (again, after :meth:`stop`: on a new port) and wait until it
        listens.  :raises RuntimeError: it did not start."""
        self._started.clear()
        self.port = None
        env = dict(os.environ if self.env is None else self.env)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        # Without --data a test server keeps nothing: no file in the home folder, and
        # no lock shared by servers of different tests.
        data = [] if "--data" in self.args else ["--data", "none"]
        web = [] if "--web" in self.args else ["--web", "none"]  # no web side unless asked
        cmd = _serve_command() + ["--listen", "tcp:0:interface=127.0.0.1", *data, *web, *self.args]
        self.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, env=env)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        if not self._started.wait(self.timeout) or self.port is None:
            self.stop()
            raise RuntimeError("ficsfen serve did not start:\n" + "\n".join(self.log_lines))

    def _running(self) -> subprocess.Popen:
        if self.process is None:
            raise RuntimeError("the server process was not started (call start() first)")
        return self.process

    def _drain(self) -> None:
        stderr = self._running().stderr
        if stderr is None:  # pragma: no cover - start() always pipes it
            raise RuntimeError("the server's standard error is not piped")
        for raw in stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.log_lines.append(line)
            m = re.search(r"Listening on [^ ]*:(\d+) \((.*)\)$", line)
            if m:
                self.ports[m.group(2)] = int(m.group(1))
                if self.port is None:
                    self.port = int(m.group(1))
                if len(self.ports) >= self.listeners:
                    self._started.set()
        self._started.set()

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the child to exit by itself; its whole log is then in :attr:`log_lines`."""
        code = self._running().wait(timeout if timeout is not None else self.timeout)
        if self._reader is not None:  # started with the child
            self._reader.join(timeout if timeout is not None else self.timeout)
        return code

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        """Stop the child with ``sig`` and return its exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(self.timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._reader is not None:
            self._reader.join(self.timeout)
        return self.process.returncode

    @property
    def web_port(self) -> int:
        """The web side's port (started with ``web=True``).  :raises RuntimeError: none."""
        port = self.ports.get(self.WEB_ENDPOINT)
        if port is None:
            raise RuntimeError("the server has no web side on a free port (give web=True)")
        return port

    def connect(self) -> TelnetClient:
        if self.port is None:
            raise RuntimeError("the server is not listening yet (call start() first)")
        return TelnetClient("127.0.0.1", self.port, timeout=self.timeout)


class TelnetClient:
    """A raw-socket client: send lines, read until some text arrives."""

    def __init__(self, host: str, port: int, *, timeout: float = 30.0, prompt: str = "fics% ") -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.prompt = prompt
        self.buffer = b""

    def __enter__(self) -> TelnetClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, line: str, *, end: bytes = b"\r\n") -> None:
        self.sock.sendall(line.encode("utf-8") + end)

    def read_until(self, marker: str | bytes, *, timeout: float | None = None) -> str:
        """Text up to and including ``marker``, CR LF read as LF (TimeoutError otherwise)."""
        data = self.read_bytes_until(marker, timeout=timeout)
        return data.decode("utf-8", "replace").replace("\r\n", "\n")

    def read_bytes_until(self, marker: str | bytes, *, timeout: float | None = None) -> bytes:
        """The raw bytes up to and including ``marker`` (telnet commands included)."""
        token = marker.encode("utf-8") if isinstance(marker, str) else marker
        deadline = time.monotonic() + (timeout or self.timeout)
        while token not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{marker!r} not received; got {self.buffer[-500:]!r}")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before {marker!r}; got {self.buffer[-500:]!r}")
            self.buffer += chunk
        k = self.buffer.index(token) + len(token)
        data, self.buffer = self.buffer[:k], self.buffer[k:]
        return data

    def command(self, line: str) -> str:
        """Send ``line``, return the output up to the next prompt (prompt removed)."""
        self.send(line)
        return self.read_until(self.prompt)[: -len(self.prompt)]

    def ask(self, line: str, answer: str) -> str:
        """Send ``line``; the text up to ``answer`` and then up to the next prompt
        (included; notices may come before the answer).  :raises TimeoutError: either
        is not received in time."""
        self.send(line)
        text = self.read_until(answer)
        return text + self.read_until(self.prompt)

    def login(self, name: str = "guest", password: str | None = None) -> str:
        """Log in as a guest, an unregistered ``name`` or, with ``password``, a registered one."""
        self.read_until("login: ")
        self.send(name)
        if password is not None:
            self.read_until("password: ")
            self.send(password)
            text = self.read_until(self.prompt)
            m = re.search(r"Starting FICS session as (\w+)", text)
            if m is None:
                raise AssertionError(f"login refused: {text!r}")
            return m.group(1)
        text = self.read_until('":')
        m = _GUEST.search(text)
        if m is None:
            raise AssertionError(f"login refused: {text!r}")
        self.send("")
        self.read_until(self.prompt)
        return m.group(1)
