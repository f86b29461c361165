"""Played games kept in the store: the journal of their changes, and their restoration.

:class:`StoreJournal` is the :class:`ficsfen.server.games.IGameJournal` of
every game a server with a store hosts: it turns each change of a
:class:`~ficsfen.server.games.PlayedGame` into one write of the
:class:`~ficsfen.server.store.IStore` (``start_game``, ``add_move``,
``take_back``, ``adjourn_game``, ``resume_game``, ``end_game``) and returns
its Deferred, so that the game announces the change only once it is
committed.  It remembers, per game, what has been committed (the moves and
the clocks), which is where a game goes back to when a write fails.

:func:`restore_game` rebuilds an adjourned :class:`PlayedGame` from a
:class:`~ficsfen.server.store.StoredGame` at start; :func:`reload_game` brings
a kept one to what the store has at its resumption.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import chess
from twisted.internet.defer import Deferred
from zope.interface import implementer

from ficsfen.server.clock import TimeControl
from ficsfen.server.games import (DurableState, GameResult, IGameJournal, PlayedGame,
                                  UNFINISHED)
from ficsfen.server.game_values import EndCode
from ficsfen.server.store import Adjournment, GameEnd, GameStart, MoveRecord, StoredGame
from ficsfen.server.ratings import category_of
from ficsfen.server.variant_games import fics_type, stored_name, stored_variant
from ficsfen.tracker import Ply

__all__ = ["StoreJournal", "reload_game", "restore_game"]


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


@dataclass
class _Kept:
    """What the store has committed of one game."""

    initial_ms: int
    moves: list[MoveRecord] = field(default_factory=list)
    #: The clocks of the last committed adjournment and the length then.
    adjourned: tuple[int, int, int] | None = None
    started: bool = False

    def state(self) -> DurableState:
        moves = self.moves
        ply = moves[-1].ply if moves else 0
        if self.adjourned is not None and self.adjourned[2] >= ply:
            white, black = self.adjourned[0], self.adjourned[1]
        elif moves:
            white, black = moves[-1].white_ms, moves[-1].black_ms
        else:
            white = black = self.initial_ms
        return DurableState(tuple(m.san for m in moves), tuple(m.took_ms / 1000 for m in moves),
                            white / 1000, black / 1000)


def _kept_move(result: Any, kept: _Kept, record: MoveRecord) -> Any:
    """``record`` is committed: the game comes back to it if a later write fails."""
    del kept.moves[record.ply - 1:]
    kept.moves.append(record)
    return result


@implementer(IGameJournal)
class StoreJournal:
    """Each change of a game as one write of ``store`` (an ``IStore``).

    ``wall`` gives Unix time (start, adjournment and end times the store
    keeps across restarts); the game clocks are the games' own.
    """

    def __init__(self, store: Any, *, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.wall = wall
        self._kept: dict[int, _Kept] = {}
        #: ``rate(game, result, when)``: the rating changes of a rated end at ``when`` (a
        #: :class:`~ficsfen.server.rated_games.RatedEnd`), written with the end; ``None``:
        #: games are not rated.
        self.rate: Callable[[PlayedGame, GameResult, float], Any] | None = None
        #: ``start_values(game)``: both players' ratings the store keeps with its start.
        self.start_values: Callable[[PlayedGame], tuple[int | None, int | None]] | None = None

    def _write(self, d: Deferred[Any], then: Callable[[], object]) -> Deferred[Any]:
        """``d``, noting what it committed before the game hears of it."""
        def committed(result: Any) -> Any:
            then()
            return result
        return d.addCallback(committed)

    # -- IGameJournal --------------------------------------------------------

    def started(self, game: PlayedGame) -> Deferred[Any]:
        tc = game.time_control
        white_rating, black_rating = (self.start_values(game) if self.start_values is not None
                                      else (None, None))
        game_id, d = self.store.start_game(GameStart(
            game.white, game.black, tc.minutes * 60, tc.increment, self.wall(),
            game.tracker.initial_fen, rated=game.rated, variant=stored_name(game.tracker.variant),
            white_rating=white_rating, black_rating=black_rating))
        game.record_id = game_id
        kept = self._kept[game_id] = _Kept(tc.minutes * 60_000)
        return self._write(d, lambda: setattr(kept, "started", True))

    def moved(self, game: PlayedGame, ply: Ply) -> Deferred[Any]:
        """One ``add_move`` write (hot path: ``bench/games_store.py``)."""
        white, black = game.move_clocks
        record = MoveRecord(game.tracker.ply, ply.san, ply.uci, _ms(white), _ms(black),
                            _ms(game.move_times[-1]))
        # A bound callback with arguments, not closures: this runs for every move.
        record_id = _record(game)
        return self.store.add_move(record_id, record).addCallback(_kept_move, self._kept[record_id], record)

    def took_back(self, game: PlayedGame) -> Deferred[Any]:
        ply = game.tracker.ply
        record_id = _record(game)
        kept = self._kept[record_id]
        return self._write(self.store.take_back(record_id, ply),
                           lambda: kept.moves.__delitem__(slice(ply, None)))

    def adjourned(self, game: PlayedGame, result: GameResult) -> Deferred[Any]:
        white, black = (_ms(game.clock.remaining(c)) for c in (chess.WHITE, chess.BLACK))
        ply = game.tracker.ply
        game.adjourned_at = at = self.wall()
        record_id = _record(game)
        kept = self._kept[record_id]
        return self._write(self.store.adjourn_game(record_id, Adjournment(
            result.reason.render("en"), at, white, black, ply)),
            lambda: setattr(kept, "adjourned", (white, black, ply)))

    def resumed(self, game: PlayedGame) -> Deferred[Any]:
        return self.store.resume_game(_record(game))

    def ended(self, game: PlayedGame, result: GameResult) -> Deferred[Any]:
        """The end, and for a rated game both new ratings, in one write: the game's
        :attr:`~PlayedGame.rated_end` is set before it, announced after its commit."""
        game_id = _record(game)
        at = self.wall()  # the end's time, and the rated game's (its ratings' last_played)
        rated = game.rated_end = self.rate(game, result, at) if self.rate is not None else None
        changes = (None, None) if rated is None else (rated.white.change, rated.black.change)
        end = GameEnd(result.score, result.reason.render("en"), EndCode(result.code or EndCode.ABORTED),
                      at, *changes)
        return self._write(self.store.end_game(game_id, end, rated.rows if rated is not None else ()),
                           lambda: self._kept.pop(game_id, None))

    def expired(self, game: PlayedGame, result: GameResult, before: float) -> Deferred[Any]:
        """An adjourned game's end for not being resumed since ``before`` (Unix time),
        written only if the store still has it adjourned since before then (fails with
        ``NoSuchGameError`` otherwise: another server sharing the store resumed or
        expired it, or resumed and adjourned it again)."""
        game_id = _record(game)
        end = GameEnd(result.score, result.reason.render("en"), EndCode.ABORTED, self.wall())
        return self._write(self.store.end_game(game_id, end, adjourned_only=True,
                                               adjourned_before=before),
                           lambda: self._kept.pop(game_id, None))

    def durable(self, game: PlayedGame) -> DurableState | None:
        kept = self._kept.get(game.record_id) if game.record_id is not None else None
        if kept is None or not kept.started:
            return None
        return kept.state()

    # -- restored games ------------------------------------------------------

    def keep(self, stored: StoredGame) -> None:
        """Remember what the store has of a game read back at start."""
        kept = self._kept[stored.id] = _Kept(stored.start.initial_seconds * 1000,
                                             list(stored.moves), started=True)
        white, black = stored.clocks_ms
        kept.adjourned = (white, black, stored.ply)


def restore_game(stored: StoredGame, *, reactor: Any, reason: Any, listener: Any = None,
                 journal: StoreJournal | None = None) -> PlayedGame:
    """The adjourned :class:`PlayedGame` ``stored`` describes, clocks as at its last move.

    ``reason`` (a :class:`ficsfen.i18n.Message`) is why it is adjourned.
    """
    start = stored.start
    tc = TimeControl(minutes=start.initial_seconds // 60, increment=start.increment_seconds)
    game = PlayedGame(start.white, start.black, reactor=reactor, time_control=tc,
                      listener=listener, fen=start.fen, journal=journal,
                      variant=stored_variant(start.variant))
    game.record_id = stored.id
    game.rating_category = category_of(tc, fics_type(game.tracker.variant))
    game.rated = start.rated and game.rating_category is not None
    reload_game(game, stored, journal)
    game.result = GameResult(UNFINISHED, reason, adjourned=True)
    adjournment = stored.adjournment
    game.adjourned_at = adjournment.at if adjournment is not None else start.started
    return game


def reload_game(game: PlayedGame, stored: StoredGame, journal: StoreJournal | None) -> None:
    """Bring the paused ``game`` to the moves and clocks ``stored`` has of it (read back at
    a start, or at a resumption: another server sharing the store may have played it
    since this one kept it); ``journal`` remembers them as committed."""
    white, black = stored.clocks_ms
    game.load(DurableState(tuple(m.san for m in stored.moves),
                           tuple(m.took_ms / 1000 for m in stored.moves),
                           white / 1000, black / 1000))
    game.clock.pause()
    if journal is not None:
        journal.keep(stored)


def _record(game: PlayedGame) -> int:
    """The game's row in the store, which it has from its start (:meth:`StoreJournal.started`)."""
    record = game.record_id
    if record is None:  # never: a game is journaled from its start
        raise KeyError(f"game {game.number} has no stored record")
    return record
