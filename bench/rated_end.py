"""Rated against unrated games, side by side: the server's CPU per game.

    python bench/rated_end.py [--pairs 8] [--rounds 6] [--seconds 3]

One ``ficsfen serve --data FILE`` on loopback (a fresh file in a temporary
folder, ``[storage] synchronous = "full"`` as shipped), started and stopped
here, with ``2 x --pairs`` registered accounts.  Each pair, in a thread of
this client, plays short games over and over: ``match OPPONENT 1 0 white
rated`` (or ``unrated``), ``accept``, then White resigns at once; a game is
done when both players have read the line under the result (``Lightning
rating adjustment: ...`` or ``No ratings adjustment done.``).  A rated game
differs from an unrated one only at its start (both ratings read and kept
with it) and at its end (both new ratings computed with Glicko and written
in the end's transaction, then the online ratings replaced and each player
told): the difference of CPU per game is the cost of rating it.

Windows alternate between rated and unrated games (ABBA order, ``--rounds``
windows each); per window: games, games/s, the server's CPU per game
(utime+stime of every thread from ``/proc/PID/stat``, the writer thread
included; also ``schedstat``).  Each pair of windows gives a ratio, rated
over unrated; the result is the median of those ratios.

Everything stays on loopback, every wait has a timeout, and the run is
bounded by ``--rounds`` and ``--seconds``: the tool stops by itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from load import CpuSample, Server  # noqa: E402

from ficsfen.server.config import hash_password  # noqa: E402
from ficsfen.server.testing import TelnetClient  # noqa: E402

PASSWORD = "bench"
_UNDER = (b"rating adjustment: ", b"No ratings adjustment done.")


class Pair:
    """Two logged-in players who play game after game in their own thread."""

    def __init__(self, server: Server, number: int, timeout: float) -> None:
        self.white = self._login(server, f"white{chr(97 + number)}", timeout)
        self.black = self._login(server, f"black{chr(97 + number)}", timeout)
        self.games = 0
        self.error: BaseException | None = None

    @staticmethod
    def _login(server: Server, name: str, timeout: float) -> TelnetClient:
        client = TelnetClient(server.host, server.port, timeout=timeout)
        client.login(name, PASSWORD)
        return client

    def _under(self, client: TelnetClient) -> None:
        text = client.read_until(b"resigns}")
        while not any(marker in text.encode() for marker in _UNDER):
            text += client.read_until(b"\n")

    def play(self, rated: bool) -> None:
        """One game: offered, accepted, resigned, its result and rating line read by both."""
        self.white.send(f"match {self.black_name} 1 0 white {'rated' if rated else 'unrated'}")
        self.black.read_until(b'"accept" or "decline"')
        self.black.send("accept")
        self.white.read_until(b"Creating"), self.black.read_until(b"Creating")
        self.white.send("resign")
        self._under(self.white), self._under(self.black)
        self.games += 1

    @property
    def black_name(self) -> str:
        return self.black.login_name

    def run(self, rated: bool, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                self.play(rated)
        except BaseException as e:  # reported by the window
            self.error = e

    def close(self) -> None:
        self.white.close(), self.black.close()


def window(server: Server, pairs: list[Pair], rated: bool, args) -> dict:
    """Play ``--warmup`` then ``--seconds`` of rated (or unrated) games; the figures."""
    stop = threading.Event()
    threads = [threading.Thread(target=p.run, args=(rated, stop), daemon=True) for p in pairs]
    for t in threads:
        t.start()
    time.sleep(args.warmup)
    games0 = sum(p.games for p in pairs)
    start = CpuSample.take(server.pid)
    time.sleep(args.seconds)
    end = CpuSample.take(server.pid)
    games = sum(p.games for p in pairs) - games0
    stop.set()
    for t in threads:
        t.join(args.timeout)
    errors = [p.error for p in pairs if p.error is not None]
    if errors:
        raise RuntimeError(f"a pair failed: {errors[0]!r}")
    cpu = (end.utime + end.stime) - (start.utime + start.stime)
    sched = end.sched - start.sched
    wall = end.wall - start.wall
    return {"rated": rated, "games": games, "games_per_s": games / wall,
            "cpu_ms_per_game": 1000 * cpu / max(games, 1),
            "sched_ms_per_game": 1000 * sched / max(games, 1)}


def run(args) -> dict:
    tmp = Path(args.tmp)
    names = [f"{side}{chr(97 + i)}" for i in range(args.pairs) for side in ("white", "black")]
    secret = hash_password(PASSWORD, iterations=1000)
    config = tmp / "rated.toml"
    config.write_text((BENCH / "loopback.toml").read_text() + "\n[accounts]\n"
                      + "".join(f'{name} = "{secret}"\n' for name in names))
    options = SimpleNamespace(python=args.python, host=args.host,
                              server_arg=["--config", str(config), "--data",
                                          str(tmp / "rated.sqlite3")],
                              floor_arg=[], server_log=None, start_timeout=args.start_timeout,
                              server_cpu=None)
    server = Server.start("ficsfen", options)
    pairs: list[Pair] = []
    try:
        for i in range(args.pairs):
            pair = Pair(server, i, args.timeout)
            pair.black.login_name = names[2 * i + 1]
            pairs.append(pair)
        windows = []
        order = [rated for r in range(args.rounds)
                 for rated in ((True, False) if r % 2 == 0 else (False, True))]
        for rated in order:
            w = window(server, pairs, rated, args)
            windows.append(w)
            print(f"{'rated  ' if rated else 'unrated'}  {w['games']:6d} games  "
                  f"{w['games_per_s']:7.1f}/s  {w['cpu_ms_per_game']:6.3f} ms CPU/game  "
                  f"(schedstat {w['sched_ms_per_game']:6.3f})", flush=True)
    finally:
        for pair in pairs:
            pair.close()
        server.stop()
    ratios = []
    for a, b in zip(windows[::2], windows[1::2]):
        rated, unrated = (a, b) if a["rated"] else (b, a)
        ratios.append(rated["cpu_ms_per_game"] / unrated["cpu_ms_per_game"])
    result = {"windows": windows, "ratios": ratios, "ratio_median": statistics.median(ratios),
              "ratio_min": min(ratios), "ratio_max": max(ratios)}
    print(f"server CPU per game, rated / unrated: median {result['ratio_median']:.3f} "
          f"(range {result['ratio_min']:.3f}-{result['ratio_max']:.3f}, {len(ratios)} pairs "
          "of windows)")
    return result


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--pairs", type=int, default=8, help="pairs of players, each in a thread")
    p.add_argument("--rounds", type=int, default=6, help="windows per kind of game, alternating")
    p.add_argument("--seconds", type=float, default=3.0, help="length of a measuring window")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each window")
    p.add_argument("--host", default="127.0.0.1", help="loopback address")
    p.add_argument("--python", default=sys.executable, help="interpreter that runs the server")
    p.add_argument("--start-timeout", type=float, default=30.0, help="seconds for the server to listen")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for any reply")
    p.add_argument("--json", help="also write every figure to this file")
    args = p.parse_args(argv)
    if not 1 <= args.pairs <= 26:
        p.error("--pairs must be from 1 to 26")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rated-end-") as tmp:
        args.tmp = tmp
        result = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
