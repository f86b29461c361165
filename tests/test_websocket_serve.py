"""The WebSocket door end to end: a real ``ficsfen serve`` with its web side on a free
loopback port, a wsproto client over a plain socket beside telnet clients.

A guest's ``fen`` of an examined game is the same text over WebSocket as over
telnet; a registered player logs in; a telnet guest and a WebSocket guest tell
each other.  A port another process holds stops ``serve`` with one line naming it,
the web side's as the telnet side's, in the operator's language.  Two servers here never want the default web port 8080 (the web
side listens on a free port), so tests started in parallel cannot clash.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Message, RejectConnection, Request, TextMessage

from ficsfen.server.testing import ServerProcess, accounts_config

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
PASSWORDS = {"alice": "ecila"}
PROMPT = "fics% "
GUEST = re.compile(r'Logging you in as "(Guest[A-Z]{4})"')


class SocketWsClient:
    """A wsproto WebSocket client over a blocking loopback socket, read with timeouts."""

    def __init__(self, port: int, *, timeout: float = 60.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.timeout = timeout
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.text = ""
        self.accepted = False
        self.closed: CloseConnection | None = None
        self._parts: list[str] = []
        self.sock.sendall(self.ws.send(Request(host=f"127.0.0.1:{port}", target="/ws")))
        deadline = time.monotonic() + timeout
        while not self.accepted:
            self._receive(deadline)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> SocketWsClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _receive(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"nothing more in time; got {self.text[-500:]!r}")
        self.sock.settimeout(left)
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError(f"closed by the server; got {self.text[-500:]!r}")
        self.ws.receive_data(data)
        for event in self.ws.events():
            if isinstance(event, AcceptConnection):
                self.accepted = True
            elif isinstance(event, RejectConnection):
                raise ConnectionError(f"upgrade refused: {event.status_code}")
            elif isinstance(event, CloseConnection):
                self.closed = event
                raise ConnectionError(f"closed: {event.code} {event.reason}")
            elif isinstance(event, Message):
                assert isinstance(event.data, str), "the server sends text messages only"
                self._parts.append(event.data)
                if event.message_finished:
                    self.text += "".join(self._parts)
                    self._parts.clear()

    def send(self, line: str) -> None:
        self.sock.sendall(self.ws.send(TextMessage(line)))

    def read_until(self, marker: str) -> str:
        """Text (CR LF read as LF) up to and including ``marker``."""
        deadline = time.monotonic() + self.timeout
        while marker not in self.text.replace("\r\n", "\n"):
            self._receive(deadline)
        text = self.text.replace("\r\n", "\n")
        k = text.index(marker) + len(marker)
        self.text = text[k:]
        return text[:k]

    def command(self, line: str) -> str:
        self.send(line)
        return self.read_until(PROMPT)[: -len(PROMPT)]

    def login(self, name: str = "guest", password: str | None = None) -> str:
        self.read_until("login: ")
        self.send(name)
        if password is not None:
            self.read_until("password: ")
            self.send(password)
            m = re.search(r"Starting FICS session as (\w+)", self.read_until(PROMPT))
            assert m is not None
            return m.group(1)
        m = GUEST.search(self.read_until('":'))
        assert m is not None
        self.send("")
        self.read_until(PROMPT)
        return m.group(1)


@pytest.fixture
def server(tmp_path):
    config = accounts_config(tmp_path / "ficsfen.toml", PASSWORDS)
    with ServerProcess("--config", str(config), "--lang", "en", web=True) as running:
        assert running.web_port != running.port != 8080
        yield running


def test_examined_fen_over_websocket_is_telnets(server):
    with SocketWsClient(server.web_port) as web, server.connect() as telnet:
        handle = web.login()
        assert "Starting a game in examine (scratch) mode." in web.command("examine")
        web.command("forward")
        web.command("e4")
        web.command("e5")
        telnet.login()
        assert "You are now observing game" in telnet.command(f"observe {handle}")
        over_web, over_telnet = web.command("fen"), telnet.command("fen 1")
        fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
        assert fen in over_web.splitlines()
        assert over_web == over_telnet


def test_registered_login_over_websocket(server):
    with SocketWsClient(server.web_port) as web, server.connect() as telnet:
        assert web.login("alice", PASSWORDS["alice"]) == "alice"
        telnet.login()
        assert "alice" in telnet.command("who").split()
        assert "Finger of alice:" in web.command("finger")


def test_telnet_and_websocket_guests_tell_each_other(server):
    with SocketWsClient(server.web_port) as web, server.connect() as telnet:
        on_web, on_telnet = web.login(), telnet.login()
        assert f"(told {on_telnet})" in web.command(f"tell {on_telnet} hello from a browser")
        assert f"{on_web}(U) tells you: hello from a browser" in telnet.read_until("browser")
        telnet.read_until(PROMPT)  # the prompt after the tell
        assert f"(told {on_web})" in telnet.command(f"tell {on_web} hello over telnet")
        assert f"{on_telnet}(U) tells you: hello over telnet" in web.read_until("telnet")


@pytest.mark.parametrize(("lang", "because"), [
    ("en", "the address is already in use (another server runs there?)"),
    ("fr", "l’adresse est déjà utilisée (un autre serveur y tourne\u202f?)")])
@pytest.mark.parametrize("option", ["--web", "--listen"])
def test_a_taken_port_stops_serve_with_one_line_saying_so(option, lang, because):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        endpoint = f"tcp:{taken.getsockname()[1]}:interface=127.0.0.1"
        cannot = {"en": f"Cannot listen on {endpoint}: ",
                  "fr": f"Impossible d’écouter sur {endpoint}\u202f: "}[lang]
        env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
        env["PYTHONPATH"] = str(REPO)
        done = subprocess.run([sys.executable, "-m", "ficsfen", "serve", "--lang", lang,
                               "--data", "none", "--web", "none", option, endpoint],
                              capture_output=True, text=True, timeout=60, env=env, cwd=REPO)
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if "#error]" in line]
    assert line.endswith(cannot + because)


def test_a_script_plays_a_game_over_websocket_as_over_telnet(server):
    """A WebSocket guest plays white against a telnet guest to mate, with the same
    commands, answers and boards as telnet; both sides read the same ``fen``."""
    with SocketWsClient(server.web_port) as web, server.connect() as telnet:
        white, black = web.login(), telnet.login()
        web.command("style 12")
        telnet.command("style 12")
        assert f"Issuing: {white} (++++) [white] {black} (++++) unrated blitz 5 0." in (
            web.command(f"match {black} 5 0 white"))
        telnet.read_until("accept")
        telnet.read_until(PROMPT)
        assert f"Creating: {white} (++++) {black} (++++) unrated blitz 5 0" in telnet.command("accept")
        web.read_until("<12> ")
        web.read_until(PROMPT)
        moves = [("e4", web), ("e5", telnet), ("Bc4", web), ("Nc6", telnet),
                 ("Qh5", web), ("Nf6", telnet)]
        for move, player in moves:
            board = player.command(move)
            assert "<12> " in board, board
            other = telnet if player is web else web
            other.read_until("<12> ")
            other.read_until(PROMPT)
            assert web.command("fen 1") == telnet.command("fen 1")
        ending = web.command("Qxf7#")
        assert f"{{Game 1 ({white} vs. {black}) {black} checkmated}} 1-0" in ending
        assert f"{{Game 1 ({white} vs. {black}) {black} checkmated}} 1-0" in (
            telnet.read_until("1-0"))
