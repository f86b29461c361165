"""``bench/store_postgres.py`` runs on both stores and its figures are consistent
(nothing here measures speed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, missing
from ficsfen.server.store.pg_testing import PostgresMissing, find_binaries

pytestmark = pytest.mark.slow


def test_store_postgres_bench_reports_both_stores_and_grouped_commits():
    try:
        find_binaries()
    except PostgresMissing as e:
        missing(str(e))
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "store_postgres.py"), "--games",
                           "4", "--moves", "6", "--synchronous", "full", "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    runs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["store"] for r in runs] == ["sqlite", "postgresql"]
    for r in runs:
        assert r["moves"] == 24 and 1 <= r["commits"] <= 24
        assert r["ack_p50_ms"] <= r["ack_p99_ms"]
    assert runs[1]["database_cpu_us_per_move"] >= 0
