"""One server per data file, whatever path leads to it: the lock is the file's own.

End to end: a real ``ficsfen serve`` with a game in play, and second servers
given a symbolic link, a hard link and a relative path to its file; operator
tools beside it.  In-process: the kernel's lock table as the source of the
holder's process id, the lock file held by another program, the notes about
empty and hard-linked files.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO
from ficsfen.server.config import hash_password
from ficsfen.server.store import (
    SQLiteStore,
    StoreLockedError,
    StoreOtherNameError,
    lock_path,
)
from ficsfen.server.store import lock as store_lock
from ficsfen.server.store.lock import holder
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess

TIMEOUT = 60
PASSWORDS = {"alice": "ecila", "bob": "bob!"}
MOVES = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4"]


@pytest.fixture
def reactor():
    return private_reactor()


def run_ficsfen(*args: str, lang: str = "C", cwd=REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL=lang)
    return subprocess.run([sys.executable, "-m", "ficsfen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


def second_server(path, *, lang: str = "C", cwd=REPO) -> subprocess.CompletedProcess:
    return run_ficsfen("serve", "--listen", "tcp:0:interface=127.0.0.1", "--web", "none", "--data", str(path),
                       lang=lang, cwd=cwd)


def _login(server, name):
    client = server.connect()
    client.login(name, PASSWORDS[name])
    client.ask("style 12", "Style 12 set.")
    return client


def _board(client):
    client.read_until("<12> ")
    return ("<12> " + client.read_until("\n")).split()


def _move(alice, bob, ply):
    """Ply ``ply`` (from 1) of MOVES, answered by its board: it is stored then."""
    mover, other = (alice, bob) if ply % 2 == 1 else (bob, alice)
    mover.send(MOVES[ply - 1])
    _board(mover)
    _board(other)


def _sans(data):
    with sqlite3.connect(data) as db:
        return [san for san, in db.execute("SELECT san FROM moves ORDER BY ply")]


@pytest.mark.slow
def test_a_second_server_by_a_link_or_a_relative_path_is_refused_and_the_game_goes_on(tmp_path):
    config = tmp_path / "accounts.toml"
    config.write_text("[accounts]\n" + "".join(
        f'{name} = "{hash_password(word, iterations=1000)}"\n' for name, word in PASSWORDS.items()))
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    data = home / "data.sqlite3"
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        alice, bob = _login(server, "alice"), _login(server, "bob")
        alice.ask("match bob 3 0 white", "Issuing:")
        bob.read_until("Challenge:")
        bob.send("accept")
        _board(alice), _board(bob)
        for ply in range(1, 5):
            _move(alice, bob, ply)
        symlink, hardlink = elsewhere / "sym.sqlite3", elsewhere / "hard.sqlite3"
        symlink.symlink_to(data)
        os.link(data, hardlink)
        relative = os.path.relpath(data, tmp_path)
        pid = server.process.pid
        for given, cwd in ((symlink, REPO), (hardlink, REPO), (relative, tmp_path)):
            named = os.path.abspath(os.path.join(cwd, given))
            for lang, expected in (
                    ("C", f"{named}: the data file is in use by another running server "
                          f"(process {pid}); stop it first"),
                    ("fr_FR.UTF-8", f"{named}\u202f: le fichier de données est utilisé par un "
                                    f"autre serveur en marche (processus {pid})\u202f; arrêtez-le")):
                done = second_server(given, lang=lang, cwd=cwd)
                assert done.returncode == 1, done.stderr
                assert done.stderr.startswith(expected), done.stderr
                assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        # the refused servers made no journal, shared memory or lock file of their own
        assert sorted(p.name for p in elsewhere.iterdir()) == ["hard.sqlite3", "sym.sqlite3"]
        assert sorted(p.name for p in home.iterdir()) == [
            "data.sqlite3", "data.sqlite3-shm", "data.sqlite3-wal", "data.sqlite3.lock"]
        # the tools beside it: by the server's path or a symbolic link, not by a hard link
        listed = run_ficsfen("accounts", "list", "--data", str(symlink))
        assert listed.returncode == 0, listed.stderr
        assert [line.split()[0] for line in listed.stdout.splitlines()] == ["alice", "bob"]
        exported = run_ficsfen("games", "export", "--data", str(data))
        assert exported.returncode == 0 and exported.stdout == "", exported.stderr
        for lang, expected in (
                ("C", f"{hardlink}: a server (process {pid}) runs on this data file by another "
                      "name (a hard link"),
                ("fr_FR.UTF-8", f"{hardlink}\u202f: un serveur (processus {pid}) tourne sur ce "
                                "fichier de données sous un autre nom")):
            refused = run_ficsfen("accounts", "list", "--data", str(hardlink), lang=lang)
            assert refused.returncode == 1 and refused.stderr.startswith(expected), refused.stderr
        assert sorted(p.name for p in elsewhere.iterdir()) == ["hard.sqlite3", "sym.sqlite3"]
        # the first server's game goes on, every move acknowledged is kept
        for ply in range(5, 8):
            _move(alice, bob, ply)
        assert _sans(data) == MOVES
        server.stop(signal.SIGKILL)
        alice.close()
        bob.close()
    reactor = private_reactor()
    store = SQLiteStore.open(data, reactor=reactor)
    try:
        [game] = store.unfinished_games()
        assert [m.san for m in game.moves] == MOVES
        assert store.notices[0].render("en") == (
            f"{data}: the data file has 2 names (hard links); open it by this one only. SQLite "
            "names its journal after the name used, so moves committed just before a crash are "
            "only found again through the same name.")
    finally:
        wait_for(reactor, store.close())


def test_a_hard_link_is_refused_in_the_same_process_too(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        link = tmp_path / "link.sqlite3"
        os.link(path, link)
        with pytest.raises(StoreLockedError) as info:
            SQLiteStore.open(link, reactor=reactor)
        assert info.value.pid == os.getpid() and info.value.lock_file is None
        assert info.value.path == link
        with pytest.raises(StoreOtherNameError) as other:
            SQLiteStore.open(link, reactor=reactor, exclusive=False)
        assert other.value.pid == os.getpid()
    finally:
        wait_for(reactor, store.close())
    # free again, by either name
    wait_for(reactor, SQLiteStore.open(link, reactor=reactor).close())


def test_without_a_lock_on_the_file_itself_a_symlink_still_meets_the_lock_file(
        reactor, tmp_path, monkeypatch):
    # Where flock and SQLite's record locks are not separate (BSD, macOS), only the
    # lock file beside the real path guards the file.
    monkeypatch.setattr(store_lock, "FLOCK_APART", False)
    path = tmp_path / "data.sqlite3"
    link = tmp_path / "link.sqlite3"
    link.symlink_to(path)
    store = SQLiteStore.open(path, reactor=reactor)
    try:
        with pytest.raises(StoreLockedError) as info:
            SQLiteStore.open(link, reactor=reactor)
        assert info.value.pid == os.getpid()
        assert info.value.lock_file == lock_path(path) == lock_path(link)
    finally:
        wait_for(reactor, store.close())


LOCK_FILE_HOLDER = """
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_lock_file_held_by_another_program_names_that_program_not_a_stale_pid(reactor, tmp_path):
    path = tmp_path / "data.sqlite3"
    wait_for(reactor, SQLiteStore.open(path, reactor=reactor).close())
    where = lock_path(path)
    where.write_text("999999999\n")  # what a server long gone left
    other = subprocess.Popen([sys.executable, "-c", textwrap.dedent(LOCK_FILE_HOLDER), str(where)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline() == "held\n"
        with pytest.raises(StoreLockedError) as info:
            SQLiteStore.open(path, reactor=reactor)
        assert info.value.pid == other.pid and info.value.lock_file == where
        assert info.value.render("en") == (
            f"{path}: its lock file {where} is held by another program (process {other.pid}); "
            "stop it first, or give this server another file with --data.")
        assert info.value.render("fr").startswith(
            f"{path}\u202f: son fichier de verrou {where} est tenu par un autre programme "
            f"(processus {other.pid})\u202f;")
        assert "999999999" not in info.value.render("en")
    finally:
        other.communicate("\n", timeout=TIMEOUT)
    # the refused open let the data file's lock go: the file opens now
    wait_for(reactor, SQLiteStore.open(path, reactor=reactor).close())
    assert where.read_text() == f"{os.getpid()}\n"


def test_the_holder_comes_from_the_kernels_lock_table(tmp_path):
    table = tmp_path / "locks"
    dev = os.makedev(0xfe, 0x01)
    table.write_text(
        "1: POSIX  ADVISORY  WRITE 11 fe:01:77 1073741824 1073741824\n"  # SQLite's, not ours
        "2: FLOCK  ADVISORY  WRITE 22 fe:01:77 0 EOF\n"
        "2: -> FLOCK  ADVISORY  WRITE 33 fe:01:77 0 EOF\n"  # a waiter
        "3: FLOCK  ADVISORY  READ  44 fe:01:88 0 EOF\n"
        "4: OFDLCK ADVISORY  WRITE -1 fe:01:99 0 EOF\n"
        "5: FLOCK  ADVISORY  WRITE 55 00:2f:123 0 EOF\n")
    assert holder(dev, 77, table=table) == 22
    assert holder(dev, 88, table=table) is None  # shared, not a server's
    assert holder(dev, 99, table=table) is None  # no process named
    # a device number the table shows differently (btrfs): the inode alone, if one holder
    assert holder(os.makedev(0, 0x30), 123, table=table) == 55
    table.write_text(table.read_text() + "6: FLOCK  ADVISORY  WRITE 66 00:31:123 0 EOF\n")
    assert holder(os.makedev(0, 0x30), 123, table=table) is None  # two: say nothing
    assert holder(dev, 77, table=tmp_path / "absent") is None
    # the real table, on Linux
    if store_lock.PROC_LOCKS.exists():
        path = tmp_path / "data"
        fd = os.open(path, os.O_RDWR | os.O_CREAT)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            assert holder(st.st_dev, st.st_ino) == os.getpid()
        finally:
            os.close(fd)


def test_an_empty_data_file_is_noted_a_new_one_is_not(reactor, tmp_path):
    fresh = tmp_path / "fresh.sqlite3"
    store = SQLiteStore.open(fresh, reactor=reactor)
    assert store.notices == []
    wait_for(reactor, store.close())
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    store = SQLiteStore.open(empty, reactor=reactor)
    try:
        [notice] = store.notices
        assert notice.render("en") == f"{empty}: the data file is empty: starting a new store in it."
        assert notice.render("fr") == (f"{empty}\u202f: le fichier de données est vide\u202f: "
                                       "un nouveau stockage y commence.")
    finally:
        wait_for(reactor, store.close())


@pytest.mark.slow
def test_serve_logs_an_empty_data_file(tmp_path):
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    with ServerProcess("--data", str(empty)) as server:
        pass
    assert any(f"[ficsfen.server.serve#warn] {empty}: the data file is empty: starting a new "
               "store in it." in line for line in server.log_lines), server.log_lines
