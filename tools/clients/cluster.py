#!/usr/bin/env python3
"""Two ``ficsfen serve`` nodes sharing a real Redis and a real PostgreSQL, for ``run.py --cluster``.

:func:`start` (called by ``run.py``, any Python) starts Debian's
``redis-server`` on a free loopback port with nothing saved, a throw-away
PostgreSQL server with one empty database (this file run as a script by the
checkout's ``.venv/bin/python``: ficsfen's own
``ficsfen.server.store.pg_testing.TemporaryPostgres``, which prints the
database's URL and stops the server and deletes its folder on SIGTERM), then
node ``A`` alone (it makes the schema and imports the accounts) and node
``B``, both with ``--cluster redis://...`` and ``--data postgresql://...``
and a ``[cluster]`` table (node name, a namespace, heartbeat 0.5 s, gone
after 3 s).  Every process goes through the run's ``Procs``, so it is
stopped at the end like the clients.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
NODES = ("A", "B")


def wait_line(log: Path, pattern: str, proc: subprocess.Popen, timeout: float = 90) -> re.Match:
    """The first match of ``pattern`` in the log a process writes; raise if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if m := re.search(pattern, text):
            return m
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"no {pattern!r} in {log}: {text[-1500:]}")


def start(run, free_port: Callable[[], int], config_text: Callable[[str, str], str]) -> dict[str, int]:
    """Redis, PostgreSQL and nodes A and B of ``run`` (a ``run.Run``); the nodes' ports.

    ``config_text(node, namespace)`` is a node's configuration file.
    """
    out = run.out
    redis_port = free_port()
    redis_log = out / "redis.log"
    redis = run.procs.start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(out)], redis_log)
    wait_line(redis_log, r"Ready to accept connections", redis, 30)
    pg_log = out / "postgres.out"
    pg = run.procs.start([str(run.python), str(HERE / "cluster.py"), "postgres"], pg_log)
    database = wait_line(pg_log, r"url (postgresql://\S+)", pg).group(1)
    namespace = f"clients{int(time.time())}"
    ports = {}
    for node in NODES:     # A first: it makes the schema and imports the accounts
        ports[node] = free_port()
        config = out / f"ficsfen-{node}.toml"
        config.write_text(config_text(node, namespace))
        log = out / f"server-{node}.log"
        proc = run.procs.start([str(run.ficsfen), "serve", "--config", str(config), "--lang", "en",
                                "--web", "none", "--listen", f"tcp:{ports[node]}:interface=127.0.0.1",
                                "--cluster", f"redis://127.0.0.1:{redis_port}", "--data", database],
                               log)
        wait_line(log, r"Listening on", proc, 60)
    run.cluster = {"redis": f"redis://127.0.0.1:{redis_port}", "data": database,
                   "namespace": namespace, "ports": ports}
    return ports


def postgres() -> None:
    """Run by the checkout's Python: a TemporaryPostgres with one database until SIGTERM."""
    from ficsfen.server.store.pg_testing import TemporaryPostgres

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = TemporaryPostgres()
    try:
        server.start()
        print(f"url {server.new_database()}", flush=True)
        while True:
            time.sleep(3600)
    finally:
        server.stop()


if __name__ == "__main__":
    if sys.argv[1:] == ["postgres"]:
        postgres()
    else:
        sys.exit(__doc__)
