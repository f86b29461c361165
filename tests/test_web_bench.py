"""``bench/web_observers.py`` and ``bench/page_weight.py`` run against a real server and
report consistent figures.  Nothing here measures speed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def run(script: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, str(REPO / "bench" / script), *args, "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_web_observers_quick_run_measures_both_doors_in_one_server(shared_pgn):
    result = run("web_observers.py", "--quick", "--observers", "20", "--pgn",
                 str(shared_pgn / "kasparov-deep-blue-1997.pgn"))
    kinds = result["kinds"]
    assert set(kinds) == {"none", "telnet", "ws", "both"}
    assert kinds["telnet"]["observers"] == kinds["ws"]["observers"] == 20 and kinds["both"]["observers"] == 40
    assert kinds["telnet"]["moves"] == kinds["ws"]["moves"] == 2 * 4  # 2 rounds of 4 plies a door
    for kind in ("telnet", "ws", "both"):
        row = kinds[kind]
        assert row["cpu_per_move_ms"]["mean"] > 0
        assert row["cpu_per_board_us"] == pytest.approx(row["cpu_per_move_ms"]["mean"] * 1e3 / row["observers"])
        lat = row["last_observer_ms"]
        assert 0 < lat["p50"] <= lat["p99"] <= lat["max"]
    ratio = result["ratio_ws_telnet"]
    assert len(ratio["pairs"]) == 2 and ratio["min"] <= ratio["median"] <= ratio["max"]


def test_page_weight_served_equals_the_package():
    served = run("page_weight.py")
    package = run("page_weight.py", "--package")
    assert served["files"] == package["files"] and served["gzip"] == package["gzip"] < served["raw"]
    assert served["files"][0]["path"] == "/"
