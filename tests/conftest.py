"""Shared fixtures: the real games in ../shared/data/pgn, skipped when absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_PGN = REPO.parent / "shared" / "data" / "pgn"


@pytest.fixture(scope="session")
def shared_pgn() -> Path:
    """The folder of real PGN files; skips the test when ../shared is missing."""
    if not SHARED_PGN.is_dir():
        pytest.skip("../shared/data/pgn is not present next to this checkout")
    return SHARED_PGN
