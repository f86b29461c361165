"""Where ``ficsfen fens`` writes: a stream, or one ``.fen`` file per game, with a progress bar.

:func:`write_fens` replays the games of one PGN input (in several processes
if asked) and writes each game's FENs, one per line, to a stream or to a
file of its own named by :func:`game_file_name`; :class:`FileNames` keeps
the names of one run apart; :class:`Progress` draws a terminal's bar.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TextIO

from ficsfen.pgn import PgnError, PgnGame, ScanCount, iter_games
from ficsfen.pgnfens import replayed
from ficsfen.pgnlex import Source

__all__ = ["FileNames", "Progress", "game_file_name", "write_fens"]


def write_fens(
    text: Source,
    sink: TextIO,
    *,
    source: str = "",
    errors: list[PgnError] | None = None,
    output: Path | None = None,
    progress: Progress | None = None,
    names: FileNames | None = None,
    jobs: int = 1,
) -> tuple[int, int]:
    """Replay every game of PGN ``text``; FENs to ``sink`` (or one file per game in ``output``).

    ``text`` is PGN text, bytes or a stream, read one game at a time.  Bad
    games are appended to ``errors`` and skipped.  ``names`` keeps the file
    names of several calls apart (one per input of a run).  ``jobs`` above 1
    replays games in that many processes, the output in input order.
    ``progress`` is told how much of the input was read (in characters).
    Returns ``(plies written, bad games)``; :class:`OSError` from reading or
    writing propagates.
    """
    count = ScanCount() if progress is not None else None
    # where each game goes: ``sink``, or a file of ``output`` (a name of ``files``)
    files = stem = None
    if output is not None:
        files = names or FileNames()
        stem = files.stem(source)
    plies = bad = 0
    for game, result in replayed(iter_games(text, count=count), jobs=jobs):
        if progress is not None and count is not None:  # both or neither
            progress.update(count.characters)
        if isinstance(result, PgnError):
            bad += 1
            if errors is not None:
                errors.append(result)
            continue
        plies += result.count("\n") - 1
        if output is None or files is None:
            sink.write(result)
        else:
            (output / files.claim(game_file_name(game, stem=stem))).write_text(result, encoding="utf-8")
    if progress is not None:
        progress.finish()
    return plies, bad


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# Each part is cut on its own, so that the game number always survives.
_STEM_LENGTH, _PLAYER_LENGTH = 80, 30


def _safe(text: str, length: int | None = None) -> str:
    return _UNSAFE.sub("_", text).strip("_.")[:length].rstrip("_.") or "_"


def _source_stem(source: str) -> str:
    return Path(source).stem if source and source != "-" else "stdin"


def game_file_name(game: PgnGame, source: str = "", *, stem: str | None = None) -> str:
    """``<source>-0003-White-Black.fen``: unique per game of one input, safe on any file system.

    ``stem`` replaces the name taken from ``source`` (see :class:`FileNames`).
    """
    parts = [
        _safe(stem) if stem is not None else _safe(_source_stem(source), _STEM_LENGTH),
        f"{game.number:04d}",
        _safe(game.headers.get("White", "?"), _PLAYER_LENGTH),
        _safe(game.headers.get("Black", "?"), _PLAYER_LENGTH),
    ]
    return "-".join(parts) + ".fen"


class FileNames:
    """The names one ``fens -o`` run writes, so that no file of it replaces another.

    Each input gets its own stem: ``x`` for the first ``x.pgn``, ``x-2`` for
    the next one (from another folder), compared without case as some file
    systems do.  Files of an earlier run under the same names are replaced.
    """

    def __init__(self) -> None:
        self._stems: set[str] = set()
        self._names: set[str] = set()

    def stem(self, source: str) -> str:
        base = _safe(_source_stem(source), _STEM_LENGTH)
        stem, n = base, 1
        while stem.casefold() in self._stems:
            n += 1
            stem = f"{base}-{n}"
        self._stems.add(stem.casefold())
        return stem

    def claim(self, name: str) -> str:
        # Distinct stems already keep names apart; this catches contrived
        # clashes such as an input named "x-0001.pgn" beside "x.pgn".
        base, n = name.removesuffix(".fen"), 1
        while name.casefold() in self._names:
            n += 1
            name = f"{base}-{n}.fen"
        self._names.add(name.casefold())
        return name


class Progress:
    """A one-line progress bar on a terminal (stderr), redrawn at most 10 times a second.

    It shows how much of the input was read (``total`` is about the file's
    size in characters); nothing is drawn for an input under ``minimum``
    characters or of unknown size.
    """

    def __init__(self, stream: TextIO, label: str, *, minimum: int = 1024) -> None:
        self.stream = stream
        self.label = label
        self.minimum = minimum
        self.total = 0
        self.last = 0.0
        self.shown = False

    def start(self, total: int) -> None:
        self.total = total

    def update(self, done: int) -> None:
        if self.total < self.minimum:
            return
        now = time.monotonic()
        if now - self.last < 0.1 and done < self.total:
            return
        self.last = now
        width = 30
        done = min(done, self.total)
        filled = width * done // self.total
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {100 * done // self.total}%")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
