"""``bench/cluster_observers.py`` still runs: one node and two on a real Redis, in pairs
alternately ordered (ABBA), the same games and observers, every board delivered (a
run, not a measure)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


def test_cluster_observers_bench_delivers_every_board_on_one_and_two_nodes(
        redis_server: object, shared_pgn: Path) -> None:
    # redis_server, shared_pgn: the prerequisite rule (fail under CI when missing)
    pgn = shared_pgn / "kasparov-deep-blue-1997.pgn"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "cluster_observers.py"), "--games", "2",
         "--observers", "20", "--plies", "4", "--repeat", "2", "--json", "--pgn", str(pgn)],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout)
    order = [run["mode"] for run in summary["runs"]]
    assert order == ["single", "cluster", "cluster", "single"]  # ABBA
    assert len(summary["ratios"]) == 2
    spread = summary["cpu_per_board_ratio_range"]
    assert spread["min"] <= summary["cpu_per_board_ratio"] <= spread["max"]
    for run in summary["runs"]:
        assert run["boards"] == 20 * 4  # each observer, each ply
        assert run["move_to_observer_ms"]["p50"] <= run["move_to_observer_ms"]["p99"]
        assert run["client_cpu_s"] > 0
    runs = {run["mode"]: run for run in summary["runs"]}
    assert runs["single"]["nodes"] == 1 and runs["cluster"]["nodes"] == 2
    assert runs["single"]["bus_messages_per_move"] == 0
    assert runs["cluster"]["bus_messages_per_move"] > 0  # observers on the other node
