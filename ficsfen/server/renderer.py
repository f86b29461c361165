"""Boards as each viewer wants them, each distinct one built once per game version.

:class:`BoardRenderer` holds the frame caches: per game, the
:class:`~ficsfen.server.boards.Style12Frame` of each clock unit and the
style 1 diagram of each (orientation, language), valid while the game's
``version`` is the one they were built at.  Games keep no rendered text;
a game that ends is dropped from the caches with its last reference
(they are weak).  Games without a ``version`` (a host's own
:class:`ficsfen.interfaces.IGame`) are rendered afresh each time.

The fan-out (:class:`ficsfen.server.broadcaster.Broadcaster`) asks
:meth:`BoardRenderer.board_text` once per distinct view of a move, not once
per viewer: with 1,000 observers that is what ``bench/observers.py``
measures.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from ficsfen.server import boards
from ficsfen.server.boards import Style12Frame
from ficsfen.server.interfaces import IServerGame
from ficsfen.server.variant_games import holdings_line, received_line

if TYPE_CHECKING:
    from ficsfen.server.session import Session

__all__ = ["BoardRenderer", "with_holdings"]


class _Frames:
    """What was rendered of one game at one version."""

    __slots__ = ("version", "style12", "style1")

    def __init__(self, version: Hashable) -> None:
        self.version = version
        self.style12: dict[bool, Style12Frame] = {}
        self.style1: dict[tuple[bool, str], str] = {}


class BoardRenderer:
    """Style 12 frames and style 1 diagrams, cached per game and version."""

    def __init__(self) -> None:
        self._frames: WeakKeyDictionary[Any, _Frames] = WeakKeyDictionary()

    def _of(self, game: IServerGame) -> _Frames | None:
        version = getattr(game, "version", None)
        if version is None:
            return None
        frames = self._frames.get(game)
        if frames is None or frames.version != version:
            frames = self._frames[game] = _Frames(version)
        return frames

    def style12_frame(self, game: IServerGame, *, ms: bool = False) -> Style12Frame:
        """The ``<12>`` frame of ``game``'s current position, built once per version and
        clock unit (``ms``: clocks and move times in milliseconds, ivar ``ms``).

        Its clocks are as the game shows them for this version (a move's, read at
        the move's instant: ``shown_clocks()``), else as they read now.
        """
        frames = self._of(game)
        if frames is None:
            return boards.style12_frame(game, ms=ms)
        frame = frames.style12.get(ms)
        if frame is None:
            frame = frames.style12[ms] = boards.style12_frame(game, ms=ms)
        return frame

    def style1(self, game: IServerGame, *, flipped: bool, lang: str) -> str:
        """The style 1 diagram of ``game`` for one orientation and language, built once
        per version (clocks read when first built)."""
        frames = self._of(game)
        if frames is None:
            return boards.style1_diagram(game, flipped=flipped, lang=lang)
        key = (flipped, lang)
        text = frames.style1.get(key)
        if text is None:
            text = frames.style1[key] = boards.style1_diagram(game, flipped=flipped, lang=lang)
        return text

    def board_text(self, session: Session, game: IServerGame, *, fresh: bool = False, lag: int = 0,
                   relation: int | None = None, received: bool = False) -> str:
        """The board as ``session`` wants it (style 1 or 12), with the FEN if showfen.

        ``fresh`` reads the clocks now (``refresh``) instead of as of the last
        change.  Style 12 follows the session's ``ms`` ivar; ``lag`` is the
        mover's (its last field), ``relation`` the session's to ``game``
        (:func:`boards.relation_for`, when not given).  ``received``: the board
        announces a move (a crazyhouse capture then adds FICS's ``<b1> ... <- WP``
        line).
        """
        handle = session.handle
        if session.style == 12:
            ms = session.ivars["ms"]
            relation = boards.relation_for(game, handle) if relation is None else relation
            if fresh:
                frame = Style12Frame.for_game(game, ms=ms)
            else:
                frame = self.style12_frame(game, ms=ms)
            text = frame.line(relation, boards.flip_for(game, handle), lag)
            if game.tracker.variant is not None and game.tracker.variant.holdings:
                text = with_holdings(game, text, received)
        elif fresh:
            # a style 1 diagram in FICS's English for an interface (it may parse it)
            text = boards.style1(game, viewer=handle, lang=session.parsed_lang)
        else:
            text = self.style1(game, flipped=boards.flip_for(game, handle), lang=session.parsed_lang)
        if session.showfen:
            text = f"{text}\n{game.tracker.fen}"
        return text


def with_holdings(game: IServerGame, text: str, received: bool) -> str:
    """A crazyhouse ``<12>`` line as FICS sends it: the ``<b1>`` holdings line after it,
    and, for a move that put a piece in hand, the ``<b1> ... <- WP`` line before it."""
    text = f"{text}\n{holdings_line(game)}"
    line = received_line(game) if received else None
    return text if line is None else f"{line}\n{text}"
