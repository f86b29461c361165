"""A real PostgreSQL server for the tests: a pytest plugin (registered in conftest.py).

- ``pg_server`` (session): a :class:`~ficsfen.server.store.pg_testing.TemporaryPostgres`
  started once per test process (initdb in a temporary folder, loopback
  only, a free port, ``trust`` authentication) and stopped at the end;
- ``pg_url`` (function): the URL of a new empty database for one test,
  dropped after it.

PostgreSQL's programs or psycopg missing: the tests that use them skip, or
fail under CI (``conftest.missing``).
"""

from __future__ import annotations

from collections.abc import Iterator

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
