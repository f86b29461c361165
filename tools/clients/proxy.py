#!/usr/bin/env python3
"""A logging TCP proxy: the exact bytes an ICS client and the server exchange.

Listens on LISTEN_PORT, forwards every connection to TARGET_PORT on 127.0.0.1,
and writes one log per connection (``conn-N.log``) with a line per chunk:
``SECONDS C> b'...'`` for client-to-server and ``SECONDS S< b'...'`` for
server-to-client bytes, and ``C=`` for what was forwarded when ``--strip-dollar``
rewrote a client chunk (Python ``repr``, so control and 8-bit bytes are exact).

    python3 proxy.py LISTEN_PORT TARGET_PORT LOG_DIR [--tag NAME] [--host 127.0.0.2]

Stdlib only (asyncio); runs until killed.  ``summarize.py`` reads the logs.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time
from pathlib import Path


class DollarStripper:
    """Drops ``$`` prefixes at line starts (to show what a server without them would do)."""

    def __init__(self) -> None:
        self.at_start = True

    def __call__(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            if byte == 0x24 and self.at_start:
                continue
            self.at_start = byte in (0x0A, 0x0D)
            out.append(byte)
        return bytes(out)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                log, arrow: str, start: float, rewrite=None) -> None:
    try:
        while data := await reader.read(65536):
            log.write(f"{time.monotonic() - start:9.3f} {arrow} {data!r}\n")
            if rewrite is not None and (new := rewrite(data)) != data:
                data = new
                log.write(f"{time.monotonic() - start:9.3f} C= {data!r}  (rewritten)\n")
            log.flush()
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        log.write(f"{time.monotonic() - start:9.3f} {arrow} <closed>\n")
        log.flush()
        try:
            writer.write_eof()
        except (OSError, RuntimeError):
            pass


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listen_port", type=int)
    parser.add_argument("target_port", type=int)
    parser.add_argument("log_dir", type=Path)
    parser.add_argument("--tag", default="conn")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (any 127.x.y.z works on Linux)")
    parser.add_argument("--strip-dollar", action="store_true",
                        help="remove $ / $$ command prefixes from what the client sends")
    args = parser.parse_args()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    counter = itertools.count(1)

    async def handle(c_reader, c_writer):
        n = next(counter)
        start = time.monotonic()
        path = args.log_dir / f"{args.tag}-{n}.log"
        with path.open("w", encoding="utf-8") as log:
            log.write(f"# {args.tag} connection {n} from {c_writer.get_extra_info('peername')}"
                      f" at {time.strftime('%H:%M:%S')}\n")
            try:
                s_reader, s_writer = await asyncio.open_connection("127.0.0.1", args.target_port)
            except OSError as exc:
                log.write(f"# cannot reach server: {exc}\n")
                c_writer.close()
                return
            rewrite = DollarStripper() if args.strip_dollar else None
            await asyncio.gather(_pump(c_reader, s_writer, log, "C>", start, rewrite),
                                 _pump(s_reader, c_writer, log, "S<", start))
            s_writer.close()
            c_writer.close()

    server = await asyncio.start_server(handle, args.host, args.listen_port)
    print(f"proxy {args.host}:{args.listen_port} -> 127.0.0.1:{args.target_port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
