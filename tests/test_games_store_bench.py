"""``bench/games_store.py`` runs and its figures agree with each other (nothing here measures speed).

A handful of games for a few seconds on both servers: the windows alternate
store off / store on in ABBA order, each side's moves are counted from the
round trips it measured, and every move acknowledged by the store-on server
is in its data file once it has stopped.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_games_store_bench_alternates_windows_and_stores_every_acknowledged_move(shared_pgn, tmp_path):
    out = tmp_path / "games.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "games_store.py"), "--games", "3", "--rounds", "2",
         "--seconds", "0.5", "--warmup", "0.2", "--pgn", str(shared_pgn / "kasparov-deep-blue-1997.pgn"),
         "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    windows = result["windows"]
    assert [(w["round"], w["side"]) for w in windows] == [
        (1, "store off"), (1, "store on"), (2, "store on"), (2, "store off")]
    for w in windows:
        assert w["moves"] > 0 and w["refusals"] == 0
        assert w["p50_ms"] <= w["p99_ms"] <= w["max_ms"]
        assert w["moves_per_second"] == pytest.approx(w["moves"] / w["seconds"], rel=0.01)
        assert w["reactor_us_per_move"] <= w["server_cpu_us_per_move"] + 1e6 / w["moves"]
    summary = result["summary"]
    assert len(summary["cpu_ratios"]) == 2
    low, high = sorted(summary["cpu_ratios"])
    assert low <= summary["cpu_ratio"]["median"] <= high
    for side in ("store off", "store on"):
        assert summary[side]["moves"] == sum(w["moves"] for w in windows if w["side"] == side)
        assert result["acknowledged"][side] >= summary[side]["moves"]
    assert result["stored"]["moves"] == result["acknowledged"]["store on"]
    assert result["stored"]["games"] >= 3
    assert "--data none" in result["servers"]["store off"]
    assert "ficsfen.sqlite3" in result["servers"]["store on"]
    assert "server CPU per move, store on / store off: median" in proc.stdout


def test_games_store_bench_help():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "games_store.py"), "--help"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage:")
