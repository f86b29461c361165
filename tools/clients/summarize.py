#!/usr/bin/env python3
"""Summarize a run.py results folder: what each client sent, what came back, what failed.

    python3 summarize.py OUT            # writes OUT/SUMMARY.md and prints it

For every scenario: the exact client lines (timeseal lines decoded, shown
with ``[ts]``), each followed by the first line of the server's reply, then
the server lines that signal a failure (unknown command, unknown variable,
usage errors, block-mode error codes).  Stdlib only.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

TIMESEAL_KEY = b"Timestamp (FICS) v1.0 - programmed by Henrik Gram."
FAILURE = re.compile(r"Command not found|No such variable|Usage|Ambiguous command|Bad |Invalid|"
                     r"not a valid|unknown|not allowed|\x15\d+\x16(51\d|520)\x16")


def read_log(path: Path) -> list[tuple[str, bytes]]:
    """(direction, bytes) chunks of a proxy log, 'C' for what reached the server."""
    chunks = []
    for line in path.read_text(errors="replace").splitlines():
        parts = line.strip().split(" ", 2)
        if len(parts) == 3 and parts[1] in ("C>", "S<", "C=") and parts[2].startswith("b"):
            data = ast.literal_eval(parts[2].removesuffix("  (rewritten)"))
            chunks.append((parts[1], data))
    return chunks


def timeseal_decode(line: bytes) -> bytes | None:
    """The text of one timeseal-v1 encoded line (without its newline), or None if it is not one."""
    if len(line) < 13 or (len(line) - 1) % 12 or not line[-1] & 0x80:
        return None
    offset = line[-1] & 0x7F
    body = bytearray(((b + 32) ^ TIMESEAL_KEY[(offset + i) % len(TIMESEAL_KEY)]) & 0x7F
                     for i, b in enumerate(line[:-1]))
    for start in range(0, len(body), 12):
        for a, b in ((0, 11), (2, 9), (4, 7)):
            body[start + a], body[start + b] = body[start + b], body[start + a]
    text, sep, stamp = bytes(body).partition(b"\x18")
    if not sep:
        return None
    return text + b"  [ts " + stamp.split(b"\x19")[0] + b"]"


def dialogue(chunks: list[tuple[str, bytes]]) -> list[tuple[list[bytes], bytes]]:
    """Client writes (as forwarded, split in lines) with the server bytes that followed each.

    A client that sends several lines in one write gets the server's reply to all
    of them together: replies cannot be told apart without block mode.
    """
    pairs: list[tuple[list[bytes], bytes]] = []
    pending = b""
    rewritten = any(d == "C=" for d, _ in chunks)
    for i, (direction, data) in enumerate(chunks):
        if direction == "C>" and rewritten and i + 1 < len(chunks) and chunks[i + 1][0] == "C=":
            continue                      # the proxy forwarded the rewritten chunk instead
        if direction in ("C>", "C="):
            pending += data
            *lines, pending = re.split(rb"(?<=\n)", pending)
            if lines:
                pairs.append(([line for line in lines if line], b""))
        elif pairs:
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + data)
    if pending:
        pairs.append(([pending + b"   (no newline yet)"], b""))
    return pairs


def reply_lines(reply: bytes, most: int = 3) -> list[str]:
    text = reply.decode("latin-1").replace("fics% ", "")
    lines = [line for line in re.split(r"\r?\n", text) if line.strip()]
    shown = [repr(line)[:150] for line in lines[:most]]
    if len(lines) > most:
        shown.append(f"... {len(lines) - most} more lines")
    return shown or ["(nothing)"]


def summarize_log(path: Path, limit: int = 60) -> list[str]:
    chunks = read_log(path)
    out = [f"#### {path.relative_to(path.parents[2])}", "", "```"]
    pairs = dialogue(chunks)
    for lines, reply in pairs[:limit]:
        for line in lines:
            decoded = timeseal_decode(line.rstrip(b"\n"))
            out.append(f"C> [timeseal] {decoded!r}" if decoded else f"C> {line!r}")
        out += [f"      S< {text}" for text in reply_lines(reply)]
    if len(pairs) > limit:
        out.append(f"... {len(pairs) - limit} more client writes")
    out.append("```")
    server = b"".join(d for dr, d in chunks if dr == "S<").decode("latin-1")
    failures = sorted({line.strip() for line in server.split("\n") if FAILURE.search(line)})
    if failures:
        out += ["", "Server lines signalling a failure (distinct):", "```"]
        out += [repr(f)[:160] for f in failures[:40]]
        out.append("```")
    return out + [""]


def main() -> None:
    out = Path(sys.argv[1])
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else {}
    doc = [f"# ICS clients against ficsfen: {out}", ""]
    for name, result in results.items():
        doc += [f"## {name}", "", "```json", json.dumps(result, indent=1), "```", ""]
        for log in sorted((out / name / "traffic").glob("*.log")):
            doc += summarize_log(log)
    (out / "SUMMARY.md").write_text("\n".join(doc))
    print("\n".join(doc))


if __name__ == "__main__":
    main()
