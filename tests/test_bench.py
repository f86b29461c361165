"""The benchmark scripts still run, and report medians of paired rounds.

Nothing here measures speed: the scripts are run on a small game file for
their output's shape and their own consistency checks.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
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


@pytest.mark.slow
@pytest.mark.parametrize("script", ["load", "soak", "observers", "floor_server", "fanout_floor",
                                    "fanout_tell", "bench_fens", "bench_parse", "conn_memory",
                                    "web_observers", "page_weight", "cluster_observers",
                                    "cluster_tell", "store_postgres"])
def test_every_bench_script_starts(script):
    """Imports survive layout moves: ``--help`` runs from the repository root."""
    proc = subprocess.run([sys.executable, str(BENCH / f"{script}.py"), "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage:")


seconds = st.floats(min_value=1e-6, max_value=1e3, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(deadline=None)  # the first example loads the script: no time limit on a pure computation
@given(seconds, seconds, seconds, seconds)
def test_pooled_ratio_is_a_weighted_mean_of_the_class_ratios(tv, ov, ti, oi):
    bench_parse = load("bench_parse")
    r = bench_parse.Round(theirs_valid=tv, ours_valid=ov, theirs_invalid=ti, ours_invalid=oi)
    w = r.valid_weight
    assert r.pooled == pytest.approx(w * r.valid + (1 - w) * r.invalid, rel=1e-6)  # 1 - w cancels
    low, high = sorted((r.valid, r.invalid))
    assert low * (1 - 1e-9) <= r.pooled <= high * (1 + 1e-9)


@pytest.mark.slow
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


@pytest.mark.slow
def test_bench_fens_reports_the_median_ratio_of_paired_rounds(shared_pgn, capsys):
    bench_fens = load("bench_fens")
    code = bench_fens.main([str(shared_pgn / "kasparov-deep-blue-1997.pgn"), "--rounds", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "identical output: True" in out
    assert len(re.findall(r"^[123] +[\d.]+ +[\d.]+ +[\d.]+x$", out, re.M)) == 3
    ratio = re.search(r"^ratio \(per round\) +: ([\d.]+) \(min ([\d.]+), max ([\d.]+), spread \d+%\)", out, re.M)
    assert ratio and float(ratio[2]) <= float(ratio[1]) <= float(ratio[3])


def test_bench_fens_commands_times_whole_commands_beside_the_peers(shared_pgn, capsys):
    bench_fens = load("bench_fens")
    code = bench_fens.main(["--commands", str(shared_pgn / "kasparov-deep-blue-1997.pgn"), "--rounds", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "identical output: True" in out and "525 positions" in out
    for side in ("ficsfen fens ", "ficsfen fens -j 2", "python-chess"):
        assert re.search(rf"^{side} +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$", out, re.M), side
    assert re.search(r"^python-chess / ficsfen fens \(wall\) +: [\d.]+x$", out, re.M)
    if bench_fens.pgn_extract() is None:
        assert "pgn-extract: not installed" in out
    else:
        assert re.search(r"^ficsfen fens -j 2 / pgn-extract \(wall\) : [\d.]+x$", out, re.M)


def test_bench_scripts_refuse_a_missing_file(tmp_path, capsys):
    for name in ("bench_fens", "bench_parse"):
        assert load(name).main([str(tmp_path / "absent.pgn")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.slow
@given(text=st.binary(max_size=200).map(lambda b: bytes(c & 0x7F for c in b if c & 0x7F != 10)),
       stamp=st.integers(min_value=0, max_value=10**7 - 1),
       offset=st.integers(min_value=0, max_value=49))
def test_load_timeseal_encoder_is_what_the_server_decodes(text, stamp, offset):
    """bench/load.py's encoder (written from the format) against the server's decoder.

    The format carries 7-bit text (each byte is ORed with 0x80).
    """
    from ficsfen.server import timeseal

    line = load("load").seal(text, stamp, offset)
    assert line.endswith(b"\n") and (len(line) - 2) % 12 == 0
    assert not set(line[:-1]) & {0x0A, 0x0D, 0xFF}  # no line end, no telnet IAC inside
    assert timeseal.decode(line[:-1]) == (text, stamp)


@pytest.mark.slow
def test_load_compares_client_modes_against_one_server(tmp_path):
    """Each client mode logs in, runs ``fen`` in a closed loop and gets the FEN (no timing asserted)."""
    out = tmp_path / "modes.json"
    modes = ["plain", "block", "timeseal", "block+timeseal"]
    proc = subprocess.run(
        [sys.executable, str(BENCH / "load.py"), "--compare-modes", ",".join(modes),
         "--sessions", "2", "--rounds", "2", "--seconds", "0.3", "--warmup", "0",
         "--setup", "examine", "--setup", "e4", "--setup", "c5", "--setup", "Nf3",
         "--command", "fen", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    results = report["results"]
    assert set(results) == set(modes)
    assert len({r["pid"] for r in results.values()}) == 1  # one server for every mode
    fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2\r\n"
    for mode, result in results.items():
        assert result["mode"] == mode and result["server_alive_at_end"]
        first = result["first_reply"]
        if "block" in mode:  # one frame: start, id 5 (4 set-up commands before), code 0 (fen)
            assert re.search("\x155\x160\x16[^\x15\x17]*" + re.escape(fen) + "\x17\r\n$", first), first
        else:
            assert first.endswith(fen + "fics% "), first
        assert len(result["windows"]) == 2
        for window in result["windows"]:
            assert window["commands"] > 0 and window["errors"] == 0
    assert set(report["ratios"]) == set(modes[1:])
    for mode in modes[1:]:
        assert re.search(rf"^   MEDIAN {re.escape(mode)} / plain, 2 active: server CPU/op ratio [\d.]+ over 2 pairs",
                         proc.stdout, re.M)


def test_load_refuses_modes_the_floor_cannot_speak():
    load_py = load("load")
    for argv in (["--compare", "--mode", "block"], ["--mode", "timeseal"],
                 ["--compare-modes", "plain"], ["--compare-modes", "plain,telnet"],
                 ["--compare-modes", "plain,block", "--compare"],
                 ["--compare-modes", "plain,block", "--target", "floor"]):
        with pytest.raises(SystemExit) as e:
            load_py.parse_args(argv)
        assert e.value.code == 2
    assert load_py.parse_args(["--compare-modes", "plain, block"]).compare_modes == ["plain", "block"]


@pytest.mark.slow
def test_load_compare_still_runs_floor_and_ficsfen_side_by_side(tmp_path):
    out = tmp_path / "compare.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "load.py"), "--compare", "--sessions", "1", "--rounds", "2",
         "--seconds", "0.3", "--warmup", "0", "--setup", "examine", "--setup", "e4", "--setup", "c5",
         "--setup", "Nf3", "--command", "fen", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    floor, ours = report["results"]["floor"], report["results"]["ficsfen"]
    assert floor["pid"] != ours["pid"]
    # both servers answer the same FEN, so the ratio compares like with like
    assert floor["first_reply"].split("\r\n")[-2] == ours["first_reply"].split("\r\n")[-2]
    assert [w["extra"]["round"] for w in ours["windows"]] == [1, 2]
    assert re.search(r"^   MEDIAN ficsfen / floor, 1 active: server CPU/op ratio [\d.]+ over 2 pairs",
                     proc.stdout, re.M)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["starting", "listening"])
def test_load_stops_the_server_it_started_when_terminated(moment):
    """SIGTERM to load.py (a timeout, a job control) leaves no server behind, whether it
    comes while the server starts or once it listens (the run measuring)."""
    proc = subprocess.Popen([sys.executable, str(BENCH / "load.py"), "--target", "floor", "--seconds", "60",
                             "--warmup", "0"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    server = None
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        server = _wait_until(lambda: int(children.read_text().split()[0]))
        assert server is not None, "load.py started no server"
        if moment == "listening":
            def port() -> int:  # once the child has exec'd the floor server
                argv = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
                return int(argv[argv.index(b"--port") + 1])

            listening = _wait_until(lambda: socket.create_connection(("127.0.0.1", port()), timeout=30))
            assert listening is not None, "the server never listened"
            listening.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(120) == 130, proc.stderr.read()
        # load.py waited for its server, so it is gone (or a zombie not reaped yet)
        assert not Path(f"/proc/{server}").exists() or "zombie" in Path(f"/proc/{server}/status").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if server is not None and Path(f"/proc/{server}").exists():
            try:  # left behind (the failure this test is about): do not leak it
                os.kill(server, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _wait_until(probe, ceiling: float = 120.0):
    """``probe()``'s first result that raises nothing, polled until ``ceiling`` seconds
    have passed (a guard against a hang, not a measure); ``None`` then."""
    deadline = time.monotonic() + ceiling
    while time.monotonic() < deadline:
        try:
            return probe()
        except (OSError, IndexError, ValueError):
            time.sleep(0.05)
    return None


@pytest.mark.slow
def test_fanout_tell_delivers_every_tell_to_every_member_of_each_server(capsys):
    """A small run: each server (ficsfen, both floors) reaches every member every time."""
    fanout_tell = load("fanout_tell")
    assert fanout_tell.main(["--members", "5", "--tells", "3", "--warmup", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["target"] for r in report["runs"]] == ["ficsfen", "floor", "floor-direct"]
    assert all(r["tells"] == 3 and r["members"] == 5 for r in report["runs"])
    assert set(report["ratio_vs_floor"]) == {"floor", "floor-direct"}
