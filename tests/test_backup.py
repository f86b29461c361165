"""``ficsfen backup``: SQLite's online backup beside a server holding the data file.

The copy is one snapshot: commits made between its steps (here, one after every step,
by another connection) neither restart it nor reach it."""

from __future__ import annotations

import io
import sqlite3

import pytest

from ficsfen.server.backup_cli import backup_main
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.backup import BackupError, backup
from ficsfen.server.store.errors import StoreOpenError
from ficsfen.server.store.schema import SCHEMA_VERSION
from ficsfen.server.store.testing import private_reactor, wait_for


@pytest.fixture
def served(tmp_path):
    """A data file held by a server's store (its lock taken), with 300 accounts."""
    reactor = private_reactor()
    path = tmp_path / "data.sqlite3"
    store = SQLiteStore.open(path, reactor=reactor)  # exclusive: the server's lock
    with sqlite3.connect(path) as db:  # as `ficsfen accounts add` does beside a server, at once
        db.executemany("INSERT INTO accounts (key, name, password, created) VALUES (?, ?, ?, 0)",
                       [(f"player{i}", f"player{i}", "h" * 200) for i in range(300)])
    yield path
    wait_for(reactor, store.close())


def _insert_account(path, n: int) -> None:
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO accounts (key, name, password, created) VALUES (?, ?, 'h', 0)",
                   (f"late{n}", f"late{n}"))


def test_commits_between_steps_neither_restart_the_copy_nor_reach_it(served, tmp_path) -> None:
    target = tmp_path / "copy.sqlite3"
    seen: list[tuple[int, int]] = []

    def step(remaining: int, total: int) -> None:
        seen.append((remaining, total))
        _insert_account(served, len(seen))  # the server commits between two steps

    done = backup(served, target, pages_per_step=1, progress=step)
    remaining = [r for r, _t in seen]
    assert remaining == sorted(remaining, reverse=True) and remaining[-1] == 0  # never restarted
    assert done.steps == len(seen) == seen[0][1] == done.pages > 10
    assert (done.accounts, done.games, done.schema_version) == (300, 0, SCHEMA_VERSION)
    with sqlite3.connect(served) as db:
        assert db.execute("SELECT count(*) FROM accounts").fetchone()[0] == 300 + len(seen)
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT count(*) FROM accounts").fetchone()[0] == 300
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("copy", ".copy"))) == [
        "copy.sqlite3"]


def test_an_existing_copy_is_replaced_only_with_force(served, tmp_path) -> None:
    target = tmp_path / "copy.sqlite3"
    target.write_bytes(b"an older copy")
    with pytest.raises(BackupError) as refused:
        backup(served, target)
    assert "exists already; give --force" in refused.value.render("en")
    assert target.read_bytes() == b"an older copy"
    assert backup(served, target, force=True).accounts == 300
    with pytest.raises(BackupError) as itself:
        backup(served, served, force=True)  # never over the data file itself
    assert "is the data file itself" in itself.value.render("en")
    with pytest.raises(BackupError):
        backup(served, tmp_path, force=True)  # a folder


def test_what_is_not_a_data_file_is_refused_and_nothing_written(tmp_path) -> None:
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    target = tmp_path / "copy.sqlite3"
    with pytest.raises(StoreOpenError):
        backup(other, target)
    with pytest.raises(StoreOpenError):
        backup(tmp_path / "missing.sqlite3", target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite3"]


@pytest.mark.parametrize("lang, summary, exists", [
    ("en", "300 accounts, 0 games: 0 in play", "exists already; give --force to replace it."),
    ("fr", "300 comptes, 0 partie\u202f: 0 en cours", "existe déjà\u202f; ajoutez --force pour le remplacer."),
])
def test_the_command_line_summary_and_refusal_in_each_language(served, tmp_path, lang, summary,
                                                                exists) -> None:
    target = tmp_path / "copy.sqlite3"
    out, err = io.StringIO(), io.StringIO()
    argv = [str(target), "--data", str(served), "--lang", lang]
    assert backup_main(argv, out=out, err=err) == 0
    assert summary in out.getvalue() and err.getvalue() == ""
    out, err = io.StringIO(), io.StringIO()
    assert backup_main(argv, out=out, err=err) == 1
    assert err.getvalue().strip().endswith(exists)
    assert backup_main(argv + ["--force"], out=io.StringIO(), err=io.StringIO()) == 0
