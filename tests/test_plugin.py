"""The ``twist ficsfen`` plugin, found from an installed wheel.

Builds the wheel as a user would (``pip wheel``, offline, with the hatchling
already installed), installs it with ``pip install --target`` into a fresh
folder, and runs Python from elsewhere with that folder first on the path:
Twisted's plugin discovery must find ``ficsfen`` there, ``twist ficsfen
--help`` must work, and ``twist ficsfen`` must run the telnet server and
the feed.  When the wheel cannot be built offline these tests skip with the
reason, or fail under CI (see ``conftest.missing``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from conftest import missing

REPO = Path(__file__).resolve().parents[1]
PLUGIN = "twisted/plugins/ficsfen_plugin.py"
TIMEOUT = 60.0  # guards against a hang only


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A folder holding ficsfen installed from its wheel (and nothing else)."""
    if importlib.util.find_spec("hatchling") is None:
        missing("hatchling is not installed: cannot build the wheel offline")
    tmp = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--quiet", "-w", str(tmp / "dist"), str(REPO)],
        capture_output=True, text=True, timeout=120)
    if build.returncode != 0:
        missing(f"cannot build the wheel offline: {build.stderr.strip()[-500:]}")
    (wheel,) = (tmp / "dist").glob("ficsfen-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert PLUGIN in names, "the wheel must ship the twist plugin (pyproject wheel packages)"
    # a twisted/__init__.py or twisted/plugins/__init__.py would shadow Twisted itself
    assert not {"twisted/__init__.py", "twisted/plugins/__init__.py"} & names
    assert not any(n.endswith("dropin.cache") or "__pycache__" in n for n in names)
    target = tmp / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    return target


def _env(site: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LANG", "LC_ALL",
                                                            "LC_MESSAGES")}
    env["PYTHONPATH"] = str(site)
    env.update(extra)
    return env


def _python(site: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=site.parent, env=_env(site, **extra),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_plugin_is_discovered_from_the_installed_wheel(installed):
    code = (
        "import ficsfen\n"
        "from twisted.application.service import IServiceMaker\n"
        "from twisted.plugin import getPlugins\n"
        "makers = {p.tapname: p for p in getPlugins(IServiceMaker)}\n"
        "print(ficsfen.__file__)\n"
        "print(makers['ficsfen'].description)\n"
        "print(type(makers['ficsfen'].options()).__name__)\n"
    )
    result = _python(installed, "-c", code)
    assert result.returncode == 0, result.stderr
    where, description, options = result.stdout.splitlines()
    assert Path(where).is_relative_to(installed)  # the installed copy, not the checkout
    assert "ficsfen" in description
    assert options == "Options"


@pytest.mark.slow
def test_the_wheel_ships_py_typed_and_its_license_and_bounds(installed):
    from email.parser import Parser

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    assert (installed / "ficsfen" / "py.typed").is_file()  # PEP 561: the hints are for users too
    (metadata,) = installed.glob("ficsfen-*.dist-info/METADATA")
    fields = Parser().parsestr(metadata.read_text(encoding="utf-8"))
    assert fields["License-Expression"] == "GPL-3.0-or-later"
    assert fields.get_all("License-File") == ["LICENSE"]
    requires = {r.name: r.specifier for r in map(Requirement, fields.get_all("Requires-Dist"))
                if r.marker is None}
    assert requires["chess"] == SpecifierSet(">=1.10,<2")  # we read python-chess's private tables


@pytest.mark.slow
def test_twist_ficsfen_help_in_english_and_french(installed):
    result = _python(installed, "-m", "twisted", "ficsfen", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--config", "--listen", "--feed", "--data", "--web"):
        assert option in result.stdout
    assert "configuration file" in result.stdout
    french = _python(installed, "-m", "twisted", "ficsfen", "--help", LANG="fr_FR.UTF-8")
    assert french.returncode == 0, french.stderr
    assert "fichier de configuration" in french.stdout
    bad = _python(installed, "-m", "twisted", "ficsfen", "--config", str(installed / "nope.toml"))
    assert bad.returncode != 0 and "nope.toml" in (bad.stdout + bad.stderr)
    bogus = _python(installed, "-m", "twisted", "ficsfen", "--listen", "bogus:1")
    assert bogus.returncode == 2 and "bogus:1" in bogus.stderr
    assert "Traceback" not in bogus.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _connect(port: int, process: subprocess.Popen) -> socket.socket:
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"twist ficsfen is not listening: {process.communicate()}") from None
            time.sleep(0.05)


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        assert chunk, f"connection closed before {marker!r}: {data!r}"
        data += chunk
    return data


@pytest.mark.slow
def test_twist_ficsfen_runs_the_telnet_server_and_the_feed(installed, tmp_path):
    port, feed_port = _free_port(), _free_port()
    # the store's default place, under a private $XDG_DATA_HOME
    data_home = tmp_path / "share"
    process = subprocess.Popen(
        [sys.executable, "-m", "twisted", "ficsfen", "--web", "none", "--listen",
         f"tcp:{port}:interface=127.0.0.1", "--feed", f"tcp:{feed_port}:interface=127.0.0.1"],
        cwd=installed.parent, env=_env(installed, XDG_DATA_HOME=str(data_home)),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        with _connect(port, process) as player:
            assert b"login:" in _read_until(player, b"login:")
            player.sendall(b"guest\r\n")
            _read_until(player, b"Press return")
            player.sendall(b"\r\n")
            _read_until(player, b"fics% ")
            player.sendall(b"fen\r\n")
            assert b"fics% " in _read_until(player, b"fics% ")
        with _connect(feed_port, process) as reader:
            hello = json.loads(_read_until(reader, b"\n").split(b"\n")[0])
            assert hello["type"] == "hello"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            output, _ = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    assert process.returncode is not None
    assert b"Traceback" not in output, output.decode("utf-8", "replace")
    assert (data_home / "ficsfen" / "ficsfen.sqlite3").is_file()


@pytest.mark.slow
def test_the_wheel_ships_the_web_page_chessground_and_chessops(installed):
    static = installed / "ficsfen" / "web" / "static"
    for name in ("index.html", "app.js", "i18n/en.json", "i18n/fr.json", "vendor/chessground/chessground.js",
                 "vendor/chessground/chessground.base.css", "vendor/chessground/chessground.brown.css",
                 "vendor/chessground/chessground.cburnett.css", "vendor/chessground/LICENSE",
                 "vendor/chessops/chessops.js", "vendor/chessops/LICENSE", "play.js"):
        assert (static / name).is_file(), name
