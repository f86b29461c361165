"""The one seam through which game events, boards, results and talk reach sessions.

:class:`Broadcaster` turns what happened (a move committed, a game
created, continued or over, a notice for someone, a tell to a channel)
into bytes on the sessions concerned, each in its own style, language and
charset.  Nothing else in the server writes to a session that did not
type the command being run; a message bus can be put behind this class
without touching the games.

It finds sessions through ``session(key)`` (a folded handle to the
logged-in :class:`~ficsfen.server.session.Session`, or ``None``).  A session
whose own command is running (it has an open
:class:`~ficsfen.server.reply.Reply`: the mover, when the move is announced
at once) reads its copy within that command's answer (the command's prompt
follows); everyone else as a notification with a prompt of its own.

A board goes to a thousand observers as a thousand writes of the same
bytes: :meth:`Broadcaster.show_position` builds one text per distinct view
(:class:`~ficsfen.server.renderer.BoardRenderer`, cached per game version)
and one byte string per group of observers (:meth:`observer_groups`).
``bench/observers.py`` measures it against ``bench/fanout_floor.py``.

The lines that open a game for its players (``Creating:``, ``Continuing``,
``<g1>``) are in :mod:`ficsfen.server.start_announcements`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Iterable, Mapping

from ficsfen.i18n import Message, msg
from ficsfen.names import fold
from ficsfen.server import boards
from ficsfen.server.interfaces import IBoards, IPlayedGame, IServerGame
from ficsfen.server.glicko import GlickoConstants
from ficsfen.server.parsed import ParsedMessage, language_of, parsed
from ficsfen.server.rating_view import RatingView, Shown
from ficsfen.server.ratings import Ratings
from ficsfen.server.renderer import BoardRenderer
from ficsfen.server.session import Session
from ficsfen.server.start_announcements import GameStartAnnouncements
from zope.interface import implementer

if TYPE_CHECKING:
    from ficsfen.server.directory import GameDirectory

__all__ = ["Broadcaster"]


@implementer(IBoards)
class Broadcaster(GameStartAnnouncements):
    """Delivers to sessions; see the module's documentation.

    ``directory`` (the :class:`~ficsfen.server.directory.GameDirectory`)
    names each game's observers; ``allresults()`` the sessions with the
    ``allresults`` ivar on (told of every game's end).  ``ratings`` is what
    every line showing a rating asks (by default, ratings of nobody: ``----``
    for the registered players online, ``++++`` for the others).
    """

    def __init__(self, *, session: Callable[[str], Session | None], directory: GameDirectory,
                 allresults: Callable[[], Iterable[Session]] = tuple,
                 renderer: BoardRenderer | None = None,
                 ratings: RatingView | None = None) -> None:
        self._session = session
        self.directory = directory
        self._allresults = allresults
        #: Told each game end here (its announcement, the folded handles who watched it): the
        #: ``allresults`` sessions of the other nodes of a cluster; None: this server is alone.
        self.results_elsewhere: Callable[[Message, frozenset[str]], None] | None = None
        #: The players' ratings as lines show them (also for commands: ``caller.boards``).
        self.ratings = ratings if ratings is not None else RatingView(Ratings(
            GlickoConstants(), registered=self._registered))
        #: Builds the boards, caching them per game version.
        self.renderer = renderer if renderer is not None else BoardRenderer()

    def find_sessions(self, session: Callable[[str], Session | None]) -> None:
        """Find sessions with ``session(key)`` from now on (a cluster adds the seats of the
        players of other nodes in the games this node hosts)."""
        self._session = session

    def _registered(self, handle: str) -> bool:
        session = self._session(fold(handle))
        return session is not None and session.registered

    def game_ratings(self, game: Any) -> tuple[Shown, Shown]:
        """Both players' ratings (White's first) for ``game``'s type."""
        kind = boards.category(game)
        return (self.ratings.shown(game.white, kind), self.ratings.shown(game.black, kind))

    def game_rating_texts(self, game: Any) -> tuple[str, str]:
        """Both players' four characters (White's first) for ``game``'s type."""
        white, black = self.game_ratings(game)
        return white.text, black.text

    # -- messages to people ----------------------------------------------

    def tell(self, handle: str, message: Message | str) -> None:
        """``message`` for ``handle``: in the answer to their command if it is running,
        else a notification (:meth:`Session.inform`)."""
        session = self._session(fold(handle))
        if session is not None:
            session.inform(message)

    def notify(self, session: Session, message: Message | str) -> None:
        """``message`` to ``session`` as a notification (on a fresh line, with its prompt)."""
        session.notify(message)

    def deliver(self, notices: Iterable[Any]) -> None:
        """Send :class:`ficsfen.server.challenges.Notice` values, one message per person.

        A notice naming an interface variable (``pendinfo``) reaches only
        those who set it.
        """
        grouped: dict[str, list[Any]] = {}
        for notice in notices:
            grouped.setdefault(notice.handle, []).append(notice)
        for handle, wanted in grouped.items():
            session = self._session(fold(handle))
            if session is None:
                continue
            messages = [n.message for n in wanted if n.ivar is None or session.ivars.get(n.ivar)]
            if messages:
                self.tell(handle, "\n".join(session.render(m) for m in messages))

    def talk(self, sessions: Iterable[Session], message: Message) -> None:
        """``message`` (a tell, a channel or shout line) to each of ``sessions``.

        A session whose command is running (the sender) reads it in that
        command's answer; the others get it rendered once per language and
        encoded once per (language, charset, prompt), the same bytes written
        to every member of a group.
        """
        groups: dict[tuple[str, str, str], list[Session]] = {}
        for session in sessions:
            if session.answering:  # their command's answer
                session.send(message)
                continue
            groups.setdefault((language_of(session, message), session.charset,
                               session.prompt_text), []).append(session)
        texts: dict[str, str] = {}
        for (lang, charset, prompt), members in groups.items():
            text = texts.get(lang)
            if text is None:
                text = texts[lang] = message.render(lang)
            Session.emit_all(members, Session.notification(text, charset, prompt))

    # -- boards ----------------------------------------------------------

    def watchers(self, game: IServerGame) -> list[str]:
        """Handles who see every board of ``game``: its players, then observers."""
        return list(dict.fromkeys([*game.players(), *self.directory.observers(game)]))

    def mover_lag(self, game: IServerGame) -> int:
        """The lag (ms) of the player who made ``game``'s last move: style 12's last field."""
        if not IPlayedGame.providedBy(game) or game.tracker.last_ply is None:
            return 0
        session = self._session(fold(game.handle_of(game.tracker.last_ply.color)))
        return session.lag_ms if session is not None else 0

    def board_text(self, session: Session, game: IServerGame, *, fresh: bool = False,
                   lag: int | None = None, relation: int | None = None,
                   received: bool = False) -> str:
        """The board as ``session`` wants it: :meth:`BoardRenderer.board_text`, the
        mover's lag looked up when not given."""
        return self.renderer.board_text(session, game, fresh=fresh,
                                        lag=self.mover_lag(game) if lag is None else lag,
                                        relation=relation, received=received)

    def send_board(self, session: Session, game: IServerGame) -> None:
        """The board of ``game`` for ``session`` alone, clocks read now (``refresh``)."""
        session.write_text(self.board_text(session, game, fresh=True))

    def show_position(self, game: IServerGame, *, note: Message | None = None,
                      note_to_caller: bool = True, received: bool = False) -> None:
        """Send the board to everyone watching ``game`` (fast path: ``bench/observers.py``).

        A session whose command is running gets it in that command's answer;
        everyone else as an asynchronous message with a prompt.  A text is built once per
        distinct (style, relation, orientation, language, showfen, ms) and
        its bytes once per group of observers (:meth:`observer_groups`), so
        a thousand observers cost a thousand writes of the same bytes, not a
        thousand formattings.  ``note`` goes above the board (not to the
        caller unless ``note_to_caller``); ``received``: the board announces
        a move.
        """
        texts: dict[tuple, str] = {}
        session_of = self._session
        players = game.players()
        lag = self.mover_lag(game)

        def text_for(session: Session, key: tuple, noted: bool) -> str:
            text = texts.get(key)
            if text is None:
                text = self.board_text(session, game, lag=lag, relation=key[1], received=received)
                if noted and note is not None:
                    text = f"{session.render(note)}\n{text}"
                texts[key] = text
            return text

        for handle in dict.fromkeys(players):
            session = session_of(fold(handle))
            if session is None:
                continue
            is_caller = session.answering  # the board is its command's answer
            noted = note is not None and (note_to_caller or not is_caller)
            key = (session.style, boards.relation_for(game, handle), boards.flip_for(game, handle),
                   session.parsed_lang if session.style == 1 else "",
                   language_of(session, note) if noted and note is not None else "",
                   session.showfen, session.ivars["ms"])
            text = text_for(session, key, noted)
            if is_caller:
                session.write_text(text)
            else:
                session.notify(text)
        # Observers all see the same relation and orientation: what differs
        # between them is style, language, showfen and charset only, so each
        # group's bytes are built once and written to every member.
        observer_keys = self.directory.observer_keys(game)
        if not observer_keys:
            self.ping_to_move(game)
            return
        relation = boards.relation_for(game, "")
        noted = note is not None
        for (style, lang, parsed_lang, showfen, ms, charset, prompt), members in (
                self.observer_groups(game, players)):
            key = (style, relation, False, parsed_lang if style == 1 else "",
                   (parsed_lang if isinstance(note, ParsedMessage) else lang) if noted else "",
                   showfen, ms)
            text = text_for(members[0], key, noted)
            answered = [m for m in members if m.answering]
            if answered:  # an observer's own command: its answer, without the prompt
                for member in answered:
                    member.write_text(text)
                members = [m for m in members if not m.answering]
            Session.emit_all(members, Session.notification(text, charset, prompt))
        self.ping_to_move(game)

    def observer_groups(self, game: IServerGame, players: Iterable[str]) -> list[tuple[tuple, list[Session]]]:
        """``game``'s observers (not its players) by what they receive (part of the
        fan-out's fast path: ``bench/observers.py``).

        The key is (style, language, language of parsed texts, showfen, ms ivar,
        charset, prompt).
        """
        session_of = self._session
        folded_players = {fold(h) for h in players}
        groups: dict[tuple, list[Session]] = {}
        for key in self.directory.observer_keys(game):
            session = session_of(key)
            if session is None or key in folded_players:
                continue
            groups.setdefault((session.style, session.lang, session.parsed_lang, session.showfen,
                               session.ivars["ms"], session.charset, session.prompt_text),
                              []).append(session)
        return list(groups.items())

    def ping_to_move(self, game: IServerGame) -> None:
        """A timeseal player to move asks their client when the board arrived (FICS's [G])."""
        if IPlayedGame.providedBy(game) and game.result is None:
            session = self._session(fold(game.handle_of(game.tracker.turn)))
            if session is not None and session.move_timer is not None:
                session.move_timer.ping()

    # -- game events (starts: :class:`GameStartAnnouncements`) ------------

    def game_over(self, game: IServerGame, result: Any, *, audience: list[str],
                  observers: list[str], players: Mapping[str, Message] | None = None) -> None:
        """Announce ``result`` to ``audience`` (players and observers), deliver its
        notices, and tell the ``allresults`` sessions who did not watch.  ``players``:
        the line each player reads under the result (their rating adjustment).

        A player with a line of the result's preface (who accepted the request
        that ended the game) reads it just above the announcement, in the same
        message.

        As FICS, observers also read that the game left their list, under the
        result and before one prompt (pychess frees its state for the game on
        that line).
        """
        announcement = result.announcement(game)
        removed = parsed(msg("Removing game {number} from observation list.", number=game.number))
        observing = {fold(h) for h in observers}
        prefaces: dict[str, list[Message]] = {}
        for notice in result.preface:
            prefaces.setdefault(fold(notice.handle), []).append(notice.message)
        under = {fold(h): line for h, line in (players or {}).items()}
        for handle in audience:
            key = fold(handle)
            before = prefaces.pop(key, None)
            line = under.pop(key, None)
            session = (self._session(key) if key in observing or before or line is not None
                       else None)
            if session is None:
                self.tell(handle, announcement)
                continue
            lines = [session.render(m) for m in before or ()]
            lines.append(session.render(announcement))
            if key in observing:
                lines.append(session.render(removed))
            if line is not None:
                lines.append(session.render(line))
            self.tell(handle, "\n".join(lines))
        self.deliver(n for n in result.preface if fold(n.handle) in prefaces)
        for handle, line in under.items():  # a player who no longer watches (gone)
            self.tell(handle, line)
        self.deliver(result.notices)
        watching = frozenset(fold(h) for h in audience)
        self.tell_allresults(announcement, watching)
        if self.results_elsewhere is not None:
            self.results_elsewhere(announcement, watching)

    def tell_allresults(self, announcement: Message | str, watching: AbstractSet[str]) -> None:
        """A game's end ``announcement`` to the ``allresults`` sessions not ``watching`` it
        (folded handles)."""
        for other in list(self._allresults()):
            if fold(other.handle) not in watching:
                self.tell(other.handle, announcement)

    def notify_all(self, handles: Iterable[str], message: Message, *,
                   but: Session | None = None) -> None:
        """``message`` as a notification to each of ``handles`` logged in, ``but`` one."""
        for handle in handles:
            session = self._session(fold(handle))
            if session is not None and session is not but:
                session.notify(message)

    def announce(self, sessions: Iterable[Session], line: str, *,
                 but: Session | None = None) -> None:
        """``line``, already rendered (``<wa>``/``<wd>``: not localized), as a notification
        to each of ``sessions`` but one."""
        for session in list(sessions):
            if session is not but:
                session.notify(line)
