"""PGN games replayed into FEN text, in this process or across several, in input order.

:func:`replayed` takes games as :func:`ficsfen.pgn.iter_games` reads them
and yields each with its FEN text (the initial FEN then one per ply, a line
each) or the :class:`~ficsfen.pgn.PgnError` that refused it.  With
``jobs`` above 1 the games are sent in chunks of about
:data:`CHUNK_PLIES` plies to a pool of worker processes (stdlib
:mod:`multiprocessing`); at most ``2 * jobs + 1`` chunks are out at once, so
a long input is read as it is replayed, never all at once, and results come
back in input order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ficsfen.pgn import PgnError, PgnGame

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

__all__ = ["CHUNK_PLIES", "fens_text", "replayed"]

#: plies sent to a worker at once: enough to make the cost of sending them small
CHUNK_PLIES = 3000


def fens_text(game: PgnGame) -> str:
    """The game's FENs, each followed by ``\\n``; :class:`~ficsfen.pgn.PgnError` if it cannot be replayed."""
    fens = game.fens()
    return "\n".join(fens) + "\n"


def _replay_chunk(games: list[PgnGame]) -> list[str | PgnError]:
    out: list[str | PgnError] = []
    for game in games:
        try:
            out.append(fens_text(game))
        except PgnError as exc:
            out.append(exc)
    return out


def _chunks(games: Iterable[PgnGame], plies: int) -> Iterator[list[PgnGame]]:
    chunk: list[PgnGame] = []
    size = 0
    for game in games:
        chunk.append(game)
        size += len(game.moves) + 1
        if size >= plies:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def replayed(games: Iterable[PgnGame], *, jobs: int = 1,
             chunk_plies: int = CHUNK_PLIES) -> Iterator[tuple[PgnGame, str | PgnError]]:
    """Each game of ``games`` with its FEN text or its error, in input order.

    ``jobs`` is the number of processes replaying (1: this one).  Reading
    errors of ``games`` itself (e.g. :class:`OSError`) propagate.
    """
    if jobs <= 1:
        for game in games:
            try:
                yield game, fens_text(game)
            except PgnError as exc:
                yield game, exc
        return
    import multiprocessing  # only here: it takes a while to import

    window = 2 * jobs + 1
    with multiprocessing.get_context().Pool(jobs) as pool:
        pending: deque[tuple[list[PgnGame], AsyncResult[list[str | PgnError]]]] = deque()
        for chunk in _chunks(games, chunk_plies):
            pending.append((chunk, pool.apply_async(_replay_chunk, (chunk,))))
            if len(pending) >= window:
                yield from _ready(*pending.popleft())
        while pending:
            yield from _ready(*pending.popleft())


def _ready(chunk: list[PgnGame],
           result: AsyncResult[list[str | PgnError]]) -> Iterator[tuple[PgnGame, str | PgnError]]:
    yield from zip(chunk, result.get())
