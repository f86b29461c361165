"""A real PostgreSQL server for the tests: a pytest plugin (registered in conftest.py).

- ``pg_server`` (session): a :class:`~ficsfen.server.store.pg_testing.TemporaryPostgres`
  started once per test process (initdb in a temporary folder, loopback
  only, a free port, ``trust`` authentication) and stopped at the end;
- ``pg_url`` (function): the URL of a new empty database for one test,
  dropped after it;
- ``data_location`` (function, two params): an SQLite file, then a
  PostgreSQL database, for tests that hold for both stores, with
  :func:`open_store` to open either.

PostgreSQL's programs or psycopg missing: the tests that use them skip, or
fail under CI (``conftest.missing``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import missing
from ficsfen.server.store.pg_testing import PostgresMissing, TemporaryPostgres


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TemporaryPostgres]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg 3 is not installed (pip install '.[cluster]')")
    try:
        server = TemporaryPostgres()
    except PostgresMissing as e:
        missing(str(e))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: TemporaryPostgres) -> Iterator[str]:
    url = pg_server.new_database()
    yield url
    pg_server.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def data_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a store keeps its data, once per store: an SQLite file in ``tmp_path``, then a
    new PostgreSQL database's URL (:func:`pg_url`)."""
    if request.param == "sqlite":
        return tmp_path / "data.sqlite3"
    return str(request.getfixturevalue("pg_url"))


def open_store(location: Path | str, *, reactor: Any, **options: Any) -> Any:
    """The store on ``location`` (see :func:`data_location`), opened with ``options``."""
    if isinstance(location, str):
        from ficsfen.server.store.postgres import PostgresStore

        return PostgresStore.open(location, reactor=reactor, **options)
    from ficsfen.server.store import SQLiteStore

    return SQLiteStore.open(location, reactor=reactor, **options)


def run_sql(location: Path | str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run ``sql`` (SQLite's dialect, ``?`` placeholders) through a connection of the test's
    own on either store, committed at once; the rows it returns."""
    if isinstance(location, str):
        import psycopg

        from ficsfen.server.store.pg_dialect import translate

        with psycopg.connect(location, autocommit=True,
                             cursor_factory=psycopg.RawCursor) as conn:
            cursor = conn.execute(translate(sql)[0], params)
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
    import sqlite3

    conn = sqlite3.connect(location)
    try:
        with conn:
            return conn.execute(sql, params).fetchall()
    finally:
        conn.close()
