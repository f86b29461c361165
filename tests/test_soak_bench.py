"""The soak benchmark runs end to end with tiny numbers, and the server survives it.

No timing threshold: the figures depend on the machine.  What is checked is
that every phase ran, the hostile kinds did what they do (the crowd from one
address was partly refused by the per-address limit, guessers got wrong
passwords answered), RSS was sampled, and the server was still up at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


def test_soak_runs_with_tiny_numbers_and_the_server_survives(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "soak.py"), "--honest", "3", "--settle", "1",
         "--baseline", "1", "--attack", "3", "--after", "1", "--timeout", "10",
         "--non-readers", "4", "--floods", "3", "--guessers", "3", "--half-open", "4",
         "--spammers", "3", "--crowd", "55", "--account", "alice", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    assert result["server_alive"] is True
    assert "server alive at the end: True" in proc.stdout
    for phase in ("baseline", "attack", "after"):
        assert result["honest"][phase]["commands"] > 0, phase
        assert result["honest"][phase]["errors"] == 0, phase
    tally = result["attack"]["tally"]
    assert result["attack"]["hostile"] == 4 + 3 + 3 + 4 + 3 + 55
    # the shipped limit is 50 connections from one address: the crowd's 5 others are told so
    assert tally["refused_per_address"] == 5
    assert tally["bad_passwords"] > 0
    assert tally["flood_bytes"] > 0 and tally["spam_rounds"] > 0
    assert result["rss_samples"] and result["rss_mb"]["peak"] >= result["rss_mb"]["start"]
