"""``bench/store_writes.py`` runs and its figures are consistent (nothing here measures speed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_store_writes_bench_reports_every_move_and_grouped_commits():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "store_writes.py"), "--games", "4",
                           "--moves", "6", "--json"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    runs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["synchronous"] for r in runs] == ["full", "normal"]
    for r in runs:
        assert r["moves"] == 24
        # each game waits for its move's acknowledgement, so at most 6 rounds of 4 moves
        # could be split, never more commits than moves
        assert 1 <= r["commits"] <= 24
        assert r["moves_per_commit"] == r["moves"] / r["commits"]
        assert r["ack_p50_ms"] <= r["ack_p99_ms"]


def test_store_writes_bench_help():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "store_writes.py"), "--help"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage:")
