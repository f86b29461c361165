"""``ficsfen serve`` and its store: ``[storage]``, ``--data``, and bad data files at start."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO
from ficsfen.server import config
from ficsfen.server.config import ConfigError, from_mapping, hash_password, load
from ficsfen.server.serve import data_file_option
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess

TIMEOUT = 60


def serve(*args: str, lang: str = "C") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL=lang)
    return subprocess.run([sys.executable, "-m", "ficsfen", "serve", "--listen",
                           "tcp:0:interface=127.0.0.1", "--web", "none", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


# -- configuration ------------------------------------------------------------------------


def test_the_default_data_file_is_per_user_under_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert load().data_file == tmp_path / "share" / "ficsfen" / "ficsfen.sqlite3"
    for unusable in ("", "relative/share"):  # the XDG rule: then ~/.local/share
        monkeypatch.setenv("XDG_DATA_HOME", unusable)
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert config.default_data_file() == (tmp_path / "home" / ".local" / "share" / "ficsfen"
                                              / "ficsfen.sqlite3")
    assert load().synchronous == "full"


def test_storage_path_forms(tmp_path, monkeypatch):
    source = tmp_path / "conf" / "ficsfen.toml"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SRV", "/srv/chess")
    for text, expected in (("", None),
                           ("games.sqlite3", tmp_path / "conf" / "games.sqlite3"),
                           ("~/fics.db", tmp_path / "home" / "fics.db"),
                           ("$SRV/fics.db", "/srv/chess/fics.db"),
                           ("${XDG_DATA_HOME}/f.db", tmp_path / "home" / ".local" / "share" / "f.db")):
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        got = from_mapping({"storage": {"path": text}}, source=source).data_file
        assert got == (None if expected is None else Path(expected)), text
    cfg = from_mapping({"storage": {"synchronous": "normal"}})
    assert cfg.synchronous == "normal"
    assert cfg.with_data_file(None).data_file is None


def test_bad_storage_settings_are_named_in_both_languages():
    for data, english, french in (
            ({"storage": {"synchronous": "sometimes"}},
             "setting storage.synchronous: expected one of: full, normal",
             "réglage storage.synchronous\u202f: l’une des valeurs\u202f: full, normal"),
            ({"storage": {"path": 3}}, "setting storage.path: expected a string",
             "réglage storage.path\u202f: une chaîne de caractères attendu")):
        with pytest.raises(ConfigError) as info:
            from_mapping(data)
        assert english in info.value.render("en")
        assert french in info.value.render("fr")


def test_data_option_values():
    assert data_file_option("none") is None and data_file_option("NONE") is None
    assert str(data_file_option("./none")) == "none"
    assert data_file_option("~/x.db") == data_file_option(os.path.expanduser("~/x.db"))


# -- serving with a store -----------------------------------------------------------------


@pytest.mark.slow
def test_serve_keeps_its_data_file_and_imports_the_toml_accounts(tmp_path):
    path = tmp_path / "data" / "ficsfen.sqlite3"
    cfg = tmp_path / "ficsfen.toml"
    cfg.write_text(f'[accounts]\nAlice = "{hash_password("pw", iterations=1000)}"\n')
    with ServerProcess("--config", str(cfg), "--data", str(path)) as process:
        with process.connect() as c:
            c.login()
    assert process.process.returncode == 0  # SIGTERM: the store closed cleanly
    assert any(f"Data file: {path}" in line for line in process.log_lines)
    assert any("copied from the configuration into the data file: alice" in line
               for line in process.log_lines)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT key FROM accounts").fetchall() == [("alice",)]
    finally:
        conn.close()
    assert not path.with_name(path.name + "-wal").exists()  # closed, not killed


@pytest.mark.slow
def test_serve_without_a_data_file(tmp_path):
    with ServerProcess("--data", "none") as process:
        pass
    assert any("No data file" in line for line in process.log_lines)


HOLDER = """
    import sys
    from ficsfen.server.store import SQLiteStore
    from ficsfen.server.store.testing import private_reactor

    store = SQLiteStore.open(sys.argv[1], reactor=private_reactor())
    print("open", flush=True)
    sys.stdin.readline()
"""


@pytest.mark.slow
def test_serve_on_a_file_another_server_holds_exits_1_with_one_line(tmp_path):
    path = tmp_path / "data.sqlite3"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLDER), str(path)],
                              cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n"
        for lang, expected in (("C", f"{path}: the data file is in use by another running server "
                                     f"(process {holder.pid})"),
                               ("fr_FR.UTF-8", f"{path}\u202f: le fichier de données est utilisé "
                                               f"par un autre serveur en marche (processus {holder.pid})")):
            done = serve("--data", str(path), lang=lang)
            assert done.returncode == 1
            assert done.stderr.startswith(expected), done.stderr
            assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    finally:
        holder.communicate("\n", timeout=TIMEOUT)


@pytest.mark.slow
def test_serve_on_a_corrupt_or_newer_file_exits_1(tmp_path):
    noise = tmp_path / "noise.sqlite3"
    noise.write_bytes(b"\x00garbage" * 512)
    done = serve("--data", str(noise))
    assert done.returncode == 1 and "not a ficsfen data file, or a damaged one" in done.stderr
    assert "Traceback" not in done.stderr
    newer = tmp_path / "newer.sqlite3"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 50")
    conn.close()
    done = serve("--data", str(newer), lang="fr_FR.UTF-8")
    assert done.returncode == 1 and "écrit par une version plus récente de ficsfen" in done.stderr


@pytest.mark.slow
def test_a_store_left_by_a_killed_server_opens_again(tmp_path):
    path = tmp_path / "data.sqlite3"
    process = ServerProcess("--data", str(path))
    process.start()
    process.stop(signal.SIGKILL)  # no goodbye, no close
    reactor = private_reactor()
    store = SQLiteStore.open(path, reactor=reactor)  # the lock died with it
    wait_for(reactor, store.close())
