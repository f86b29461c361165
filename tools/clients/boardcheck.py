#!/usr/bin/env python3
"""Read the position off an xboard screenshot and compare it with a FEN.

xboard is started by ``run.py`` with flat square colours (no textures, no
grid, no last-move highlight), so each square of the screenshot is either its
plain square colour or covered by a piece; a piece is white or black by which
of pure white / pure black dominates its pixels.  The result is an occupancy
map (``W``, ``B``, ``.``) per square, compared with the FEN's; squares hidden by
something else (xboard 4.9 draws a hint box over the centre of the board at
start-up) are ``?`` and left out of the comparison.

    boardcheck.py SHOT.png FEN        # prints the map and the mismatches

Stdlib only; uses ImageMagick's ``convert`` to turn the PNG into a PPM.
"""

from __future__ import annotations

import subprocess
import sys

LIGHT = (0x00, 0xC0, 0x00)   # -lightSquareColor given to xboard by run.py
DARK = (0x00, 0x00, 0xC0)    # -darkSquareColor
XBOARD_COLOURS = ["-liteBackTextureFile", "", "-darkBackTextureFile", "",
                  "-lightSquareColor", "#00C000", "-darkSquareColor", "#0000C0",
                  "-whitePieceColor", "#FFFFFF", "-blackPieceColor", "#000000",
                  "-overrideLineGap", "0", "-highlightLastMove", "false",
                  "-autoFlipView", "false", "-flipView", "false", "-size", "Medium"]


def read_image(path: str) -> tuple[int, int, bytes]:
    data = subprocess.run(["convert", path, "-depth", "8", "ppm:-"], check=True,
                          capture_output=True).stdout
    fields, pos = [], 0
    while len(fields) < 4:                       # P6 W H MAXVAL, whitespace separated
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[pos + 1:]


def read_board(path: str) -> list[str] | None:
    """Rank 8 first, file a first: 'W', 'B', '.' or '?' (hidden) per square; None if no board."""
    width, height, px = read_image(path)
    xs, ys = [], []
    for y in range(0, height, 2):
        row = px[3 * width * y: 3 * width * (y + 1)]
        for x in range(0, width, 2):
            rgb = tuple(row[3 * x: 3 * x + 3])
            if rgb == LIGHT or rgb == DARK:
                xs.append(x)
                ys.append(y)
    if len(xs) < 1000:
        return None
    x0, x1, y0, y1 = min(xs), max(xs) + 2, min(ys), max(ys) + 2
    sq_w, sq_h = (x1 - x0) / 8, (y1 - y0) / 8
    ranks = []
    for r in range(8):
        line = ""
        for f in range(8):
            other = white = black = foreign = total = 0
            for y in range(int(y0 + (r + 0.15) * sq_h), int(y0 + (r + 0.85) * sq_h)):
                for x in range(int(x0 + (f + 0.15) * sq_w), int(x0 + (f + 0.85) * sq_w)):
                    i = 3 * (width * y + x)
                    rgb = tuple(px[i: i + 3])
                    total += 1
                    if rgb in (LIGHT, DARK):
                        continue
                    other += 1
                    if min(rgb) > 200:
                        white += 1
                    elif max(rgb) < 60:
                        black += 1
                    else:
                        foreign += 1
            if foreign > 0.25 * total:          # covered by something else (xboard's hint box)
                line += "?"
            else:
                line += "." if other < 0.08 * total else ("W" if white > black else "B")
        ranks.append(line)
    return ranks


def board_geometry(path: str, light: tuple[int, int, int] = LIGHT,
                   dark: tuple[int, int, int] = DARK,
                   tolerance: int = 0) -> tuple[float, float, float, float] | None:
    """``(x0, y0, square_width, square_height)`` of the board in a screenshot.

    The board is the bounding box of the pixels in its two square colours
    (within ``tolerance`` per channel); None when there are too few of them.
    """
    width, height, px = read_image(path)

    def near(rgb: tuple[int, ...], want: tuple[int, int, int]) -> bool:
        return all(abs(a - b) <= tolerance for a, b in zip(rgb, want))

    xs, ys = [], []
    for y in range(0, height, 2):
        row = px[3 * width * y: 3 * width * (y + 1)]
        for x in range(0, width, 2):
            rgb = tuple(row[3 * x: 3 * x + 3])
            if near(rgb, light) or near(rgb, dark):
                xs.append(x)
                ys.append(y)
    if len(xs) < 1000:
        return None
    x0, x1, y0, y1 = min(xs), max(xs) + 2, min(ys), max(ys) + 2
    return x0, y0, (x1 - x0) / 8, (y1 - y0) / 8


def square_centre(geometry: tuple[float, float, float, float], square: str,
                  flipped: bool = False) -> tuple[int, int]:
    """Screen coordinates of ``square`` (``e2``) on a board of that geometry."""
    x0, y0, w, h = geometry
    f, r = "abcdefgh".index(square[0]), int(square[1]) - 1
    col, row = (7 - f, r) if flipped else (f, 7 - r)
    return int(x0 + (col + 0.5) * w), int(y0 + (row + 0.5) * h)


def fen_board(fen: str) -> list[str]:
    ranks = []
    for rank in fen.split()[0].split("/"):
        line = ""
        for ch in rank:
            line += "." * int(ch) if ch.isdigit() else ("W" if ch.isupper() else "B")
        ranks.append(line)
    return ranks


START = fen_board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")


def compare(path: str, fen: str) -> dict:
    seen = read_board(path)
    if seen is None:
        return {"board_found": False}
    want = fen_board(fen)
    files = "abcdefgh"
    squares = [(r, f) for r in range(8) for f in range(8) if seen[r][f] != "?"]
    wrong = [f"{files[f]}{8 - r}: saw {seen[r][f]} want {want[r][f]}"
             for r, f in squares if seen[r][f] != want[r][f]]
    return {"board_found": True, "squares_visible": len(squares), "matches_fen": not wrong,
            "is_start_position": all(seen[r][f] == START[r][f] for r, f in squares),
            "mismatches": wrong, "seen": seen, "want": want}


if __name__ == "__main__":
    result = compare(sys.argv[1], sys.argv[2])
    for key, value in result.items():
        print(f"{key}: {value}")
