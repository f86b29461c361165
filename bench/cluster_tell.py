"""Cross-node tells and the bus's cost per message, on loopback with a real Redis.

Two parts, in one run:

1. **Tells across nodes.**  A ``redis-server`` (Debian's, on a free loopback
   port, nothing saved) and two ``ficsfen serve`` nodes sharing it
   (``--cluster``); guest A on node one tells guest B on node two, again and
   again, each tell sent once the previous one was answered.  Per tell: the
   time from sending ``tell B TEXT`` until B has the line (p50, p99, max).
   The same run measures, as the peer, the same tells between two guests of
   one node.  Server CPU per tell (``/proc/PID/task/*/schedstat`` over the
   whole series) for the sending node, the receiving node and Redis, and for
   the single node.

2. **The bus alone, in process.**  One :class:`~ficsfen.server.cluster.bus.Bus`
   on a private reactor: the CPU of this thread per message *published*
   (``Bus.publish`` of a tell-sized JSON body, Redis's reply read), and per
   message *received* (published by a second thread writing raw commands to
   Redis, so only the receiving thread's CPU is counted: the read, the JSON
   decoding, the handler's dispatch).

    python bench/cluster_tell.py --tells 2000 --messages 20000

Run it on a quiet machine (other work shifts the figures).  Nothing here
asserts a time; ``docs/scaling.md`` keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import LOOPBACK_CONFIG, cpu_sched_seconds, percentile  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PROMPT = b"fics% "


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    """A throwaway redis-server on loopback."""

    def __init__(self, binary: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--dir", str(self.folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("redis-server did not start")
            time.sleep(0.02)
        self.url = f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class Node:
    """``ficsfen serve`` on a free loopback port, in the cluster of ``url`` (or alone)."""

    def __init__(self, name: str, url: str | None, namespace: str) -> None:
        text = Path(LOOPBACK_CONFIG).read_text().replace(
            "[limits]\n", "[limits]\ntalk_per_minute = 0\naddress_talk_per_minute = 0\n", 1)
        if url:
            text += f'\n[cluster]\nnode = "{name}"\nnamespace = "{namespace}"\n'
        handle = tempfile.NamedTemporaryFile("w", prefix=f"bench-{name}-", suffix=".toml",
                                             delete=False)
        with handle:
            handle.write(text)
        self.config = handle.name
        self.port = free_port()
        cmd = [sys.executable, "-m", "ficsfen", "serve", "--listen",
               f"tcp:{self.port}:interface=127.0.0.1", "--web", "none", "--data", "none",
               "--config", self.config, "--log-level", "warn"]
        if url:
            cmd += ["--cluster", url]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"node {name} did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        os.unlink(self.config)


class Client:
    """A guest on a node, read with a blocking socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.until(b"login: ")
        self.sock.sendall(b"guest\r\n")
        text = self.until(b'":')
        self.handle = re.search(rb'"(Guest[A-Z]+)"', text).group(1).decode()  # type: ignore[union-attr]
        self.sock.sendall(b"\r\n")
        self.until(PROMPT)

    def until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("connection closed")
            self.buffer += chunk
        k = self.buffer.index(marker) + len(marker)
        data, self.buffer = self.buffer[:k], self.buffer[k:]
        return data

    def command(self, line: str) -> bytes:
        self.sock.sendall(line.encode() + b"\r\n")
        return self.until(PROMPT)


def tells(sender: Client, receiver: Client, count: int, pids: dict[str, int]) -> dict:
    """``count`` tells from ``sender`` to ``receiver``: latencies and CPU per tell."""
    for i in range(50):  # warm-up
        sender.command(f"tell {receiver.handle} warm {i}")
        receiver.until(f"warm {i}".encode())
    before = {name: cpu_sched_seconds(pid) for name, pid in pids.items()}
    latencies = []
    for i in range(count):
        text = f"message {i:06d} across the cluster"
        start = time.perf_counter()
        sender.sock.sendall(f"tell {receiver.handle} {text}\r\n".encode())
        receiver.until(text.encode())
        latencies.append(time.perf_counter() - start)
        sender.until(PROMPT)
    after = {name: cpu_sched_seconds(pid) for name, pid in pids.items()}
    latencies.sort()
    return {"tells": count,
            "p50_ms": round(percentile(latencies, 50) * 1000, 3),
            "p99_ms": round(percentile(latencies, 99) * 1000, 3),
            "max_ms": round(latencies[-1] * 1000, 3),
            "cpu_us_per_tell": {name: round((after[name] - before[name]) / count * 1e6, 1)
                                for name in pids}}


def nodes_part(args: argparse.Namespace, redis: Redis) -> dict:
    one = Node("one", redis.url, "bench")
    two = Node("two", redis.url, "bench")
    alone = Node("alone", None, "")
    try:
        a, b = Client(one.port), Client(two.port)
        deadline = time.monotonic() + 60
        while b.handle.encode() not in a.command("who"):
            if time.monotonic() > deadline:
                raise SystemExit("node one never saw node two's guest")
            time.sleep(0.1)
        across = tells(a, b, args.tells, {"sender": one.proc.pid, "receiver": two.proc.pid,
                                          "redis": redis.proc.pid})
        c, d = Client(alone.port), Client(alone.port)
        single = tells(c, d, args.tells, {"node": alone.proc.pid})
        return {"across_nodes": across, "one_node": single}
    finally:
        for node in (one, two, alone):
            node.stop()


def bus_part(args: argparse.Namespace, redis: Redis) -> dict:
    from ficsfen.server.cluster.bus import Bus
    from ficsfen.server.store.testing import private_reactor, wait_for

    reactor = private_reactor()
    bus = Bus(redis.url, "bench", reactor=reactor, namespace="busbench")
    bus.start()
    deadline = time.monotonic() + 30
    while not bus.up:
        reactor.runUntilCurrent()
        reactor.doIteration(0.01)
        if time.monotonic() > deadline:
            raise SystemExit("the bus did not connect")
    body = {"to": "guestabcd", "from": "GuestWXYZ", "name": "GuestWXYZ(U)", "registered": False,
            "text": "message 000123 across the cluster"}
    n = args.messages
    # publish: the cost of Bus.publish and of reading Redis's reply, in batches of 100
    start = time.thread_time()
    for _ in range(0, n, 100):
        last = None
        for _j in range(100):
            last = bus.publish("nobody", "talk.tell", body)
        wait_for(reactor, last)
    publish_us = (time.thread_time() - start) / n * 1e6
    # receive: another thread publishes raw commands; this thread's CPU reads and dispatches
    got = [0]
    bus.on("talk.tell", lambda message: got.__setitem__(0, got[0] + 1))
    data = json.dumps({"k": "talk.tell", "n": "other", "b": body}, separators=(",", ":"))
    channel = "busbench:all"
    command = (f"*3\r\n$7\r\nPUBLISH\r\n${len(channel)}\r\n{channel}\r\n"
               f"${len(data.encode())}\r\n{data}\r\n").encode()

    def publisher() -> None:
        with socket.create_connection(("127.0.0.1", redis.port)) as s:
            s.sendall(command * n)
            replies = b""
            while replies.count(b"\r\n") < n:
                replies += s.recv(1 << 20)

    thread = threading.Thread(target=publisher)
    start = time.thread_time()
    thread.start()
    while got[0] < n:
        reactor.runUntilCurrent()
        reactor.doIteration(0.01)
    receive_us = (time.thread_time() - start) / n * 1e6
    thread.join()
    wait_for(reactor, bus.stop())
    return {"messages": n, "publish_cpu_us": round(publish_us, 1),
            "receive_cpu_us": round(receive_us, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tells", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--redis-server", default="/usr/bin/redis-server")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = parser.parse_args()
    redis = Redis(args.redis_server)
    try:
        report = {"bus": bus_part(args, redis), **nodes_part(args, redis)}
    finally:
        redis.stop()
    if args.json:
        print(json.dumps(report))
        return 0
    bus, across, single = report["bus"], report["across_nodes"], report["one_node"]
    print(f"bus, {bus['messages']} messages: publish {bus['publish_cpu_us']} us CPU each, "
          f"receive {bus['receive_cpu_us']} us CPU each")
    for name, part in (("across nodes", across), ("one node", single)):
        cpu = ", ".join(f"{k} {v} us" for k, v in part["cpu_us_per_tell"].items())
        print(f"{name}: {part['tells']} tells, p50 {part['p50_ms']} ms, p99 {part['p99_ms']} ms, "
              f"max {part['max_ms']} ms; CPU per tell: {cpu}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
