"""Adjourned games, kept by their pair of players until they ``resume``.

Current games are numbered and found by the host's game directory
(:class:`ficsfen.server.directory.GameDirectory`); an adjourned game leaves
it (its number is freed) and waits here with its history and clocks.
"""

from __future__ import annotations

from typing import Any, Iterator

from ficsfen.names import fold

__all__ = ["AdjournedGames"]


class AdjournedGames:
    """Adjourned :class:`~ficsfen.server.games.PlayedGame` values by their two players."""

    def __init__(self) -> None:
        self._games: dict[frozenset[str], Any] = {}

    def __len__(self) -> int:
        return len(self._games)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._games.values()))

    @staticmethod
    def _key(a: str, b: str) -> frozenset[str]:
        return frozenset((fold(a), fold(b)))

    def keep(self, game: Any) -> None:
        """Keep ``game`` until its players resume it.

        :raises ValueError: ``game`` is not adjourned.
        """
        if not game.adjourned:
            raise ValueError(f"{game!r} is not adjourned")
        self._games[self._key(game.white, game.black)] = game

    def between(self, a: str, b: str) -> Any:
        """The adjourned game of ``a`` and ``b`` (either colour), if any."""
        return self._games.get(self._key(a, b))

    def of(self, handle: str) -> list[Any]:
        key = fold(handle)
        return [g for k, g in self._games.items() if key in k]

    def take(self, a: str, b: str) -> Any:
        """Remove and return the adjourned game of ``a`` and ``b`` (then call ``resume``)."""
        return self._games.pop(self._key(a, b), None)

    def expire(self, before: float) -> list[Any]:
        """Remove and return the games adjourned before ``before`` (Unix time), oldest first."""
        old = sorted((g for g in self._games.values() if g.adjourned_at < before),
                     key=lambda g: g.adjourned_at)
        for game in old:
            del self._games[self._key(game.white, game.black)]
        return old
