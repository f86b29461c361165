"""Server instructions per command in two client modes, counted by callgrind.

CPU time per command on a shared machine moves with everything else that
runs; the instructions the server executes do not.  This starts ``ficsfen
serve --data none`` under ``valgrind --tool=callgrind``, logs in one
session of each mode (as ``load.py`` does, same setup commands), and after
a warm-up has each session run ``--commands`` commands in turn, asking
callgrind for a dump (``callgrind_control -d``) around each batch.  Printed:
user-space instructions per command for each mode and batch (system calls
are not counted: strace shows the same ones in both modes).

    python bench/callgrind_modes.py --modes plain,timeseal --commands 300 --rounds 2

Inspect a dump with ``callgrind_annotate OUT/callgrind.PID.N``.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402


async def _dump(pid: int, out: str, name: str) -> None:
    """Ask for a dump and wait until it is written (it waits for the server's next wake-up)."""
    before = len(glob.glob(f"{out}/callgrind.{pid}.*"))
    subprocess.run(["callgrind_control", "-d", name, str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for _ in range(400):
        await asyncio.sleep(0.05)
        if len(glob.glob(f"{out}/callgrind.{pid}.*")) > before:
            await asyncio.sleep(0.2)
            return
    raise load.BenchError(f"callgrind wrote no dump {name!r}")


async def _measure(args: argparse.Namespace, pid: int, out: str) -> list[tuple[str, int, str]]:
    for _ in range(600):
        try:
            socket.create_connection((args.host, args.port), 1).close()
            break
        except OSError:
            await asyncio.sleep(0.2)
    sessions = {}
    for mode in args.modes:
        session = await load.login_guest(args.host, args.port, 120, mode)
        for line in [*args.setup, *[args.command] * args.warmup]:
            await session.command(line, 60)
        sessions[mode] = session
    batches = []
    for r in range(args.rounds):
        for mode in args.modes:
            await _dump(pid, out, f"before-{mode}-{r}")
            for _ in range(args.commands):
                await sessions[mode].command(args.command, 60)
            await _dump(pid, out, f"{mode}-{r}")
            batches.append((mode, r, f"{mode}-{r}"))
    for session in sessions.values():
        session.close()
    return batches


def _instructions(out: str, pid: int, trigger: str) -> int:
    for path in glob.glob(f"{out}/callgrind.{pid}.*"):
        text = Path(path).read_text(errors="replace")
        if f"Trigger: dump {trigger}\n" in text:
            return int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    raise load.BenchError(f"no dump {trigger!r}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", default="plain,timeseal", type=lambda s: s.split(","),
                   help=f"client modes, from {', '.join(load.MODES)}")
    p.add_argument("--command", default="fen")
    p.add_argument("--setup", action="append", default=None,
                   help="commands each session runs once first (default: examine, e4, c5, Nf3)")
    p.add_argument("--commands", type=int, default=300, help="commands per batch")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--warmup", type=int, default=300, help="unmeasured commands per session first")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5799)
    p.add_argument("--out", help="folder for the dumps (default: a temporary one)")
    args = p.parse_args()
    args.setup = args.setup or ["examine", "e4", "c5", "Nf3"]
    out = args.out or tempfile.mkdtemp(prefix="callgrind-")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.%p", sys.executable, "-m",
         "ficsfen", "serve", "--listen", f"tcp:{args.port}:interface={args.host}", "--data", "none", "--web", "none"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        batches = asyncio.run(_measure(args, server.pid, out))
    finally:
        server.terminate()
        server.wait()
    first = args.modes[0]
    per: dict[str, list[float]] = {}
    for mode, r, trigger in batches:
        per.setdefault(mode, []).append(_instructions(out, server.pid, trigger) / args.commands)
    for mode, values in per.items():
        ratio = min(values) / min(per[first])
        print(f"{mode:16} instructions per {args.command!r}: " + ", ".join(f"{v:,.0f}" for v in values)
              + f"   (/ {first}: {ratio:.3f})")
    print(f"dumps in {out}")


if __name__ == "__main__":
    main()
