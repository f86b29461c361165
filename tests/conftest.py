"""Shared fixtures, and the rule for tests whose prerequisites are missing.

Some tests need things from outside the package: the real games in
``../shared/data/pgn`` beside the checkout, or a wheel built from it.  On a
developer's machine a missing prerequisite skips the test with the reason;
under CI (the ``CI`` environment variable set to ``true``) it fails it, so
that a broken CI set-up cannot pass by running fewer tests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]

# No timing in tests: how long an example takes on a loaded machine is no failure
# (hypothesis's default deadline is 200 ms an example, and too_slow is a time too).
settings.register_profile("ficsfen", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ficsfen")
SHARED_PGN = REPO.parent / "shared" / "data" / "pgn"

# The real-browser kit (tests/browser.py): its ``chrome`` fixture for every test; the real
# PostgreSQL server (tests/pg_server.py): ``pg_server`` and ``pg_url``; a real Redis server
# for the cluster tests (tests/redis_server.py).
pytest_plugins = ["browser", "pg_server", "redis_server"]

#: Values of ``CI`` that mean "this is a CI run" (CI services set ``true``).
_CI_VALUES = frozenset({"true", "1", "yes"})


def on_ci() -> bool:
    """True when the tests run under CI, where every prerequisite must be present."""
    return os.environ.get("CI", "").strip().lower() in _CI_VALUES


def missing(reason: str) -> NoReturn:
    """A prerequisite is missing: skip with ``reason``, or fail under CI."""
    if on_ci():
        pytest.fail(f"{reason} (CI=true: a missing prerequisite is a failure, not a skip)",
                    pytrace=False)
    pytest.skip(reason, allow_module_level=True)


@pytest.fixture(scope="session")
def shared_pgn() -> Path:
    """The folder of real PGN files (``../shared/data/pgn``); see :func:`missing`."""
    if not SHARED_PGN.is_dir():
        missing(f"{SHARED_PGN} is not present: the real games live in ../shared next to "
                "this checkout")
    return SHARED_PGN
