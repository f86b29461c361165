"""The benchmark scripts still run, and report medians of paired rounds.

Nothing here measures speed: the scripts are run on a small game file for
their output's shape and their own consistency checks.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REPO

BENCH = REPO / "bench"


@functools.cache
def load(name: str) -> ModuleType:
    """A script of ``bench/`` as a module (registered, as dataclasses need)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script", ["load", "soak", "observers", "floor_server", "fanout_floor",
                                    "bench_fens", "bench_parse"])
def test_every_bench_script_starts(script):
    """Imports survive layout moves: ``--help`` runs from the repository root."""
    proc = subprocess.run([sys.executable, str(BENCH / f"{script}.py"), "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage:")


seconds = st.floats(min_value=1e-6, max_value=1e3, allow_nan=False, allow_infinity=False)


@given(seconds, seconds, seconds, seconds)
def test_pooled_ratio_is_a_weighted_mean_of_the_class_ratios(tv, ov, ti, oi):
    bench_parse = load("bench_parse")
    r = bench_parse.Round(theirs_valid=tv, ours_valid=ov, theirs_invalid=ti, ours_invalid=oi)
    w = r.valid_weight
    assert r.pooled == pytest.approx(w * r.valid + (1 - w) * r.invalid, rel=1e-6)  # 1 - w cancels
    low, high = sorted((r.valid, r.invalid))
    assert low * (1 - 1e-9) <= r.pooled <= high * (1 + 1e-9)


def test_bench_parse_reports_medians_and_a_pooled_row_between_the_classes(shared_pgn, capsys):
    bench_parse = load("bench_parse")
    code = bench_parse.main([str(shared_pgn / "kasparov-deep-blue-1997.pgn"), "--rounds", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 disagreement(s); ficsfen refused 0 of the valid" in out
    assert len(re.findall(r"^[123] +[\d.]+x +[\d.]+x +[\d.]+x +[\d.]+$", out, re.M)) == 3
    rows = {m[1]: [float(m[2]), float(m[3]), float(m[4]), float(m[5])]
            for m in re.finditer(r"^(valid|invalid|all) +\d+ +[\d.]+ +[\d.]+ +([\d.]+)x +([\d.]+)x +([\d.]+)x +(\d+)%$",
                                 out, re.M)}
    assert set(rows) == {"valid", "invalid", "all"}
    for median, low, high, _ in rows.values():
        assert low <= median <= high
    assert "between the two in every round: True" in out


def test_bench_fens_reports_the_median_ratio_of_paired_rounds(shared_pgn, capsys):
    bench_fens = load("bench_fens")
    code = bench_fens.main([str(shared_pgn / "kasparov-deep-blue-1997.pgn"), "--rounds", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "identical output: True" in out
    assert len(re.findall(r"^[123] +[\d.]+ +[\d.]+ +[\d.]+x$", out, re.M)) == 3
    ratio = re.search(r"^ratio \(per round\) +: ([\d.]+) \(min ([\d.]+), max ([\d.]+), spread \d+%\)", out, re.M)
    assert ratio and float(ratio[2]) <= float(ratio[1]) <= float(ratio[3])


def test_bench_scripts_refuse_a_missing_file(tmp_path, capsys):
    for name in ("bench_fens", "bench_parse"):
        assert load(name).main([str(tmp_path / "absent.pgn")]) == 2
    assert "no such file" in capsys.readouterr().err
