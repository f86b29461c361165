"""``bench/rated_end.py`` runs and its figures agree with each other (nothing here measures speed).

Two pairs for a few short windows: rated and unrated windows alternate in
ABBA order, every window plays games, and each ratio is the rated window's
CPU per game over the unrated one's of the same round.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_rated_end_bench_alternates_rated_and_unrated_windows(tmp_path):
    out = tmp_path / "rated.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "rated_end.py"), "--pairs", "2", "--rounds", "2",
         "--seconds", "0.5", "--warmup", "0.2", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    windows = result["windows"]
    assert [w["rated"] for w in windows] == [True, False, False, True]
    assert all(w["games"] > 0 for w in windows)
    pairs = [(windows[0], windows[1]), (windows[3], windows[2])]
    assert result["ratios"] == [pytest.approx(r["cpu_ms_per_game"] / u["cpu_ms_per_game"])
                                for r, u in pairs]
    assert "server CPU per game, rated / unrated: median" in proc.stdout
