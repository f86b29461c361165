"""A data file on a read-only file system: named as such, and still readable by the tools.

The file system is a read-only bind mount made in a private user and mount
namespace (``unshare -rm``), so the test needs no privileges; the commands
are real ``ficsfen`` processes run inside it.
"""

from __future__ import annotations

import os
import sqlite3
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, missing
from ficsfen.server.config import hash_password
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for

TIMEOUT = 60


def read_only_mount(folder, commands: list[list[str]], lang: str = "C") -> list[tuple[int, str, str]]:
    """Run each command with ``folder`` mounted read-only; (status, stdout, stderr) of each.

    The outputs lose their trailing line ends (the shell's ``$(...)``).
    """
    if shutil.which("unshare") is None:
        missing("unshare (util-linux) is needed to mount a folder read-only without privileges")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        missing(f"cannot make a user and mount namespace: {probe.stderr.strip()}")
    marker = "\x1e"
    script = [f"mount --bind {shlex.quote(str(folder))} {shlex.quote(str(folder))}",
              f"mount -o remount,ro,bind {shlex.quote(str(folder))} {shlex.quote(str(folder))}"]
    for command in commands:
        script.append(f"{shlex.join(command)} >out 2>err; "
                      f"printf '%s{marker}' $? \"$(cat out)\" \"$(cat err)\"; rm -f out err")
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL=lang)
    work = folder.parent / "work"
    work.mkdir(exist_ok=True)
    done = subprocess.run(["unshare", "-rm", "sh", "-c", " && ".join(script[:2]) + " || exit 9; "
                           + "; ".join(script[2:])], cwd=work, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    fields = done.stdout.split(marker)[:-1]
    return [(int(fields[i]), fields[i + 1], fields[i + 2]) for i in range(0, len(fields), 3)]


def ficsfen(*args: str) -> list[str]:
    return [sys.executable, "-m", "ficsfen", *args]


@pytest.mark.slow
def test_serve_names_a_read_only_file_system_and_the_tools_still_read(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    data = folder / "data.sqlite3"
    reactor = private_reactor()
    store = SQLiteStore.open(data, reactor=reactor)
    wait_for(reactor, store.add_account("Alice", hash_password("pw", iterations=1000)))
    wait_for(reactor, store.close())  # closed: no -wal, no -shm left
    serve = ficsfen("serve", "--listen", "tcp:0:interface=127.0.0.1", "--web", "none", "--data", str(data))
    new = ficsfen("serve", "--listen", "tcp:0:interface=127.0.0.1", "--web", "none", "--data",
                  str(folder / "sub" / "new.sqlite3"))
    listing = ficsfen("accounts", "list", "--data", str(data))
    export = ficsfen("games", "export", "--data", str(data))
    add = ficsfen("accounts", "add", "bob", "--data", str(data))

    (code, _, err), (new_code, _, new_err), (list_code, out, list_err), (export_code, _, _), \
        (add_code, _, add_err) = read_only_mount(folder, [serve, new, listing, export, add])
    assert code == 1 and err == (
        f"{folder}: the data file's folder is on a read-only file system; the server needs to "
        "create its data, journal and lock files there (mount it read-write, or choose another "
        "file with --data).")
    assert "Permission denied" not in err
    assert new_code == 1 and new_err.startswith(f"{folder / 'sub'}: the data file's folder is on "
                                                "a read-only file system"), new_err
    assert list_code == 0 and out.split()[0] == "Alice", list_err
    assert export_code == 0
    assert add_code == 1 and "read-only file system" in add_err, add_err

    [(fr_code, _, fr_err)] = read_only_mount(folder, [serve], lang="fr_FR.UTF-8")
    assert fr_code == 1 and fr_err.startswith(
        f"{folder}\u202f: le dossier du fichier de données est sur un système de fichiers en "
        "lecture seule\u202f;"), fr_err
    assert sorted(p.name for p in folder.iterdir()) == ["data.sqlite3", "data.sqlite3.lock"]



def test_a_read_only_opening_reads_writes_nothing_and_leaves_no_journal(tmp_path):
    from ficsfen.server.store import StoreOpenError, StoreWriteError

    reactor = private_reactor()
    data = tmp_path / "data.sqlite3"
    store = SQLiteStore.open(data, reactor=reactor)
    wait_for(reactor, store.add_account("Alice", "hash"))
    wait_for(reactor, store.close())
    reader = SQLiteStore.open(data, reactor=reactor, read_only=True)
    try:
        assert [a.name for a in reader.accounts()] == ["Alice"] and not reader.exclusive
        with pytest.raises(StoreWriteError) as info:
            wait_for(reactor, reader.add_account("Bob", "hash"))
        assert "readonly database" in info.value.reason
    finally:
        wait_for(reactor, reader.close())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.sqlite3", "data.sqlite3.lock"]

    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    older = tmp_path / "older.sqlite3"
    conn = sqlite3.connect(older)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("CREATE TABLE accounts (key TEXT PRIMARY KEY)")
    conn.close()
    for path, english, french in (
            (empty, f"{empty}: the data file is empty (no server has started on it yet).",
             f"{empty}\u202f: le fichier de données est vide"),
            (older, f"{older}: written by an older ficsfen (data schema version 1); start the "
                    "server on it once to bring it up to date, then read it again.",
             f"{older}\u202f: écrit par une version plus ancienne de ficsfen"),
            (tmp_path / "absent.sqlite3", f"{tmp_path / 'absent.sqlite3'}: cannot open the data "
                                          "file: No such file or directory", "")):
        with pytest.raises(StoreOpenError) as info:
            SQLiteStore.open(path, reactor=reactor, read_only=True)
        assert info.value.render("en") == english
        assert info.value.render("fr").startswith(french)
    assert empty.stat().st_size == 0  # not made a store of
