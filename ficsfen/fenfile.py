"""``.fen`` files: a game's positions, one FEN record per line, initial first.

Reading checks every line with the strict codec and reports each bad line by
its number together with the field error, so a user can fix a file in one go.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TextIO, TypeVar, overload

from ficsfen.fen import FenError, Position, parse
from ficsfen.i18n import DEFAULT_LANGUAGE, msg, msgn

if TYPE_CHECKING:
    from ficsfen.tracker import Tracker

__all__ = ["FenFileError", "LineError", "dumps", "iter_records", "loads", "read", "tracker_fens", "write"]


@dataclass(frozen=True)
class LineError:
    """One bad line of a ``.fen`` file: its 1-based number and the codec's error."""

    line: int
    text: str
    error: FenError

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return msg("line {line}: {error}", line=self.line, error=self.error.render(lang)).render(lang)

    def __str__(self) -> str:
        return self.render()


class FenFileError(ValueError):
    """A ``.fen`` file with bad lines; ``errors`` lists every one of them."""

    def __init__(self, errors: Iterable[LineError], *, name: str = "") -> None:
        self.errors = tuple(errors)
        self.name = name
        super().__init__(self.render(DEFAULT_LANGUAGE))

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        count = len(self.errors)
        head = msgn("{name}: {count} bad line", "{name}: {count} bad lines", count, name=self.name or "-")
        return "\n".join([head.render(lang)] + [e.render(lang) for e in self.errors])


def tracker_fens(tracker: Tracker) -> list[str]:
    """The initial FEN then the FEN after every ply of ``tracker``'s game."""
    return [tracker.initial_fen] + [ply.fen for ply in tracker.history]


def dumps(records: Tracker | Iterable[str]) -> str:
    """The text of a ``.fen`` file for a tracker's game or a list of records."""
    fens = tracker_fens(records) if hasattr(records, "history") else list(records)  # type: ignore[arg-type]
    return "".join(f + "\n" for f in fens)


def write(path: str | os.PathLike[str] | TextIO, records: Tracker | Iterable[str]) -> None:
    """Write a ``.fen`` file (to a path or an open text stream)."""
    text = dumps(records)
    if hasattr(path, "write"):
        path.write(text)
        return
    Path(path).write_text(text, encoding="utf-8")


_Parsed = TypeVar("_Parsed")


@overload
def iter_records(text: str | Iterable[str]) -> Iterator[tuple[int, str, Position | FenError]]: ...


@overload
def iter_records(
    text: str | Iterable[str], *, parser: Callable[[str], _Parsed]
) -> Iterator[tuple[int, str, _Parsed | FenError]]: ...


def iter_records(
    text: str | Iterable[str], *, parser: Callable[[str], object] = parse
) -> Iterator[tuple[int, str, object]]:
    """``(line number, line, Position or FenError)`` for every line that is not blank.

    ``text`` is a file's whole text, or its lines (an open stream is then
    checked as it is read, e.g. standard input).  Lines end at ``\\n``,
    ``\\r\\n`` or a lone ``\\r``, as in Python's universal newlines mode and
    nowhere else, so line numbers are those an editor shows; a leading
    byte-order mark is dropped; lines of blanks only are skipped.  ``parser``
    reads each record (e.g. a variant's, ``lambda t: parse_variant(t, "zh")``).
    """
    for number, line in enumerate(_lines(text), 1):
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line or line.isspace():
            continue
        try:
            yield number, line, parser(line)
        except FenError as exc:
            yield number, line, exc


_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(text: str | Iterable[str]) -> Iterator[str]:
    # str.splitlines() would also split at \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029.
    if isinstance(text, str):
        yield from _LINE_END.split(text)
        return
    for chunk in text:
        parts = _LINE_END.split(chunk)
        if len(parts) > 1 and not parts[-1]:
            parts.pop()  # the chunk's own line end
        yield from parts


def loads(text: str, *, name: str = "") -> list[Position]:
    """The positions of a ``.fen`` file's text; :class:`FenFileError` lists bad lines."""
    positions: list[Position] = []
    errors: list[LineError] = []
    for number, line, result in iter_records(text):
        if isinstance(result, FenError):
            errors.append(LineError(number, line, result))
        else:
            positions.append(result)
    if errors:
        raise FenFileError(errors, name=name)
    return positions


def read(path: str | os.PathLike[str]) -> list[Position]:
    """The positions of a ``.fen`` file; :class:`FenFileError` lists bad lines."""
    path = Path(path)
    # undecodable bytes become U+FFFD, which the codec then reports by line
    return loads(path.read_bytes().decode("utf-8", errors="replace"), name=str(path))
