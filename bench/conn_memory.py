"""Memory of one connection, in-process: what each of a crowd of connections keeps.

Why: after an attack, CPython keeps every 1 MiB arena of its small-object
allocator in which a single object lives on (docs/benchmarks/memory.md).  Fewer and smaller objects per hostile connection make
fewer arenas at the peak, so fewer that can be kept.  This opens
``--connections`` connections to a server made in-process (on a fake clock,
over ``StringTransport``s), either logged in as guests (``--mode guest``,
every tenth running ``who``) or left at the login prompt (``--mode half``),
and reports what they added, per connection, from ``tracemalloc``:

* blocks of at most 512 bytes (CPython's small-object allocator: the arenas)
  and larger ones (the C library's heap), the test transports' own excluded;
* the source lines that allocated most, and the kinds of objects added.

Nothing is timed.  Run it from the repository root::

    python bench/conn_memory.py --connections 1000 --mode guest
"""

from __future__ import annotations

import argparse
import collections
import gc
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ficsfen.server.testing import connect, make_server  # noqa: E402

#: What belongs to the test's stand-in for a socket, not to the server.
FIXTURES = ("*/ficsfen/server/testing.py", "*/twisted/internet/testing.py", tracemalloc.__file__)
SMALL = 512  # the largest block CPython's small-object allocator serves


def object_kinds() -> collections.Counter:
    return collections.Counter(type(o).__name__ for o in gc.get_objects())


def where(frame: tracemalloc.Frame) -> str:
    name = frame.filename
    for cut in ("site-packages/", "/ficsfen/"):
        if cut in name:
            name = ("ficsfen/" if cut == "/ficsfen/" else "") + name.split(cut, 1)[1]
            break
    return f"{name}:{frame.lineno}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--connections", type=int, default=1000)
    p.add_argument("--mode", choices=("guest", "half"), default="guest",
                   help="log each in as a guest, or leave it at the login prompt")
    p.add_argument("--top", type=int, default=12, help="source lines and kinds to list")
    args = p.parse_args(argv)
    n = args.connections

    server = make_server()
    for _ in range(5):  # the first connections make what every later one shares
        client = connect(server)
        if args.mode == "guest":
            client.login()
            client.command("who")
    gc.collect()
    kinds_before = object_kinds()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    clients = []
    for i in range(n):
        client = connect(server)
        if args.mode == "guest":
            client.login()
            if i % 10 == 0:
                client.command("who")
        clients.append(client)
    gc.collect()
    exclude = [tracemalloc.Filter(False, pattern) for pattern in FIXTURES]
    after = tracemalloc.take_snapshot().filter_traces(exclude)
    before = before.filter_traces(exclude)
    tracemalloc.stop()
    kinds = object_kinds() - kinds_before

    def blocks(snapshot: tracemalloc.Snapshot) -> collections.Counter:
        return collections.Counter((where(t.traceback[0]), t.size) for t in snapshot.traces)

    added = blocks(after) - blocks(before)
    small = [(size, count) for (_, size), count in added.items() if size <= SMALL]
    large = [(size, count) for (_, size), count in added.items() if size > SMALL]
    print(f"{n} connections ({args.mode}), per connection:")
    for label, part in (("small blocks (CPython's arenas)", small), ("large blocks (C heap)", large)):
        print(f"  {label}: {sum(s * c for s, c in part) / n:.0f} bytes in "
              f"{sum(c for _, c in part) / n:.1f} blocks")
    print("  by source line (bytes, blocks):")
    for stat in after.compare_to(before, "lineno")[:args.top]:
        print(f"    {stat.size_diff / n:7.0f} {stat.count_diff / n:5.1f}  {where(stat.traceback[0])}")
    print(f"  objects (gc-tracked): {sum(kinds.values()) / n:.1f}")
    for kind, count in kinds.most_common(args.top):
        print(f"    {count / n:5.2f} {kind}")
    del clients
    return 0


if __name__ == "__main__":
    sys.exit(main())
