"""Who is online: the sessions by handle, their arrivals and departures, and how to reach them.

:class:`Sessions` is the registry every other service asks "who is
``alice``?" (it provides :class:`ficsfen.server.interfaces.IPlayers` to
commands).  Handles are kept folded (``Alice`` and ``alice`` are one
player) and in a :class:`ficsfen.names.NameIndex`, so a typed prefix
resolves by bisection however many are online.

A login goes through :meth:`Sessions.enter` (the session is made and
listed; a registered player logged in already is replaced) then
:meth:`Sessions.arrived` (once the login's own lines are written); a logout
through :meth:`Sessions.logout`.  Other services hear of these through the
hook lists :attr:`~Sessions.entering`, :attr:`~Sessions.arrivals` and
:attr:`~Sessions.departures`, which the composition root
(:class:`ficsfen.server.server.FicsServer`) fills: the registry itself knows
nothing of games, lists or talk.  The ``pin`` lines (``<wa>``, ``<wd>``) and
who listens to arrivals and game ends (the ``pin``, ``allresults`` and
``seekinfo`` ivars) are kept here, so that a login does not look at every
session.
"""

from __future__ import annotations

from typing import AbstractSet, Any, Callable, Iterable, Iterator, KeysView, Mapping, Protocol

from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.i18n import msg
from ficsfen.names import NameIndex, fold, resolve_handle
from ficsfen.server import wholist
from ficsfen.server.interfaces import IPlayers, IServerCaller
from ficsfen.server.limits import compact
from ficsfen.server.session import Services, Session

__all__ = ["LISTENING_IVARS", "Announce", "Elsewhere", "Sessions"]

#: The interface variables whose sessions the registry keeps sets of.
LISTENING_IVARS = ("pin", "allresults", "seekinfo")

#: Told ``(session, replaced, saved)`` as a session enters, before it is listed:
#: ``replaced`` is the player's previous session (a registered player logging in again),
#: ``saved`` a registered player's saved settings (read beforehand), else ``None``.
Entering = Callable[[Session, "Session | None", "Mapping[str, Any] | None"], None]


class Announce(Protocol):
    """How a line reaches a group of sessions as notifications (``but`` one of them)."""

    def __call__(self, sessions: Iterable[Session], line: str, *,
                 but: Session | None = None) -> None: ...


class Elsewhere(Protocol):
    """Players logged in on other nodes of a cluster
    (:class:`ficsfen.server.cluster.presence.Presence`): each answers what ``who``,
    ``finger`` and ``tell`` ask a session (a ``RemotePlayer``)."""

    def get(self, key: str) -> Any:
        """The player logged in elsewhere as the folded handle ``key``, or None."""

    def players(self) -> Iterable[Any]:
        """Every player logged in elsewhere."""

    def handles(self) -> NameIndex:
        """Their handles."""


@implementer(IPlayers)
class Sessions:
    """The logged-in sessions, by folded handle, and what their comings and goings tell.

    ``clock`` dates logins and logouts (``finger``); ``language`` is the one
    a new session starts in.  :meth:`bind` gives, before the first login,
    the services every session carries and where a player's game is found
    (a ``<wa>`` line shows whether they play).
    """

    log = Logger()

    def __init__(self, *, clock: IReactorTime, language: str) -> None:
        self._clock = clock
        self._language = language
        self._sessions: dict[str, Session] = {}
        self._handles = NameIndex()  # the handles of _sessions
        self._services: Services | None = None
        self._game_of: Callable[[str], object | None] = lambda handle: None
        self._announce: Announce | None = None
        #: When each registered player who left logged out (reactor time), for ``finger``.
        self.last_seen: dict[str, float] = {}
        #: Logins, logouts and ``open`` changes so far: with the game directory's
        #: changes, the version of what ``who`` lists.
        self.listing_changes = 0
        self._listening: dict[str, set[Session]] = {name: set() for name in LISTENING_IVARS}
        self._turned_on: dict[str, list[Callable[[Session], None]]] = {}
        #: Told ``(session, replaced, saved)`` as a session enters, before it is listed
        #: (saved settings, personal lists, channels).
        self.entering: list[Entering] = []
        #: Told ``session`` once it has arrived (its game in progress, adjourned games).
        self.arrivals: list[Callable[[Session], None]] = []
        #: Told ``session`` as it leaves, once unlisted and before it closes (its
        #: games, offers, seeks, talk).
        self.departures: list[Callable[[Session], None]] = []
        #: The players of the other nodes of a cluster; None: this server is alone, and
        #: :meth:`anywhere` and :meth:`everyone_sorted` are :meth:`named` and :meth:`sorted`.
        self.elsewhere: Elsewhere | None = None
        #: A player's ratings as ``who I`` writes them (``1500P``), one per category of
        #: :data:`.wholist.RATING_CATEGORIES`: the server's ratings (``0P`` each by default).
        self.rating_columns: Callable[[str], list[str]] = (
            lambda handle: ["0P"] * len(wholist.RATING_CATEGORIES))

    def bind(self, services: Services, *, game_of: Callable[[str], object | None],
             announce: Announce) -> None:
        """The services sessions are made with; ``game_of(handle)``, the game a player
        plays or examines (the game directory's lookup); ``announce(sessions, line, but=)``,
        how the ``<wa>``/``<wd>`` lines reach the ``pin`` sessions (the broadcaster)."""
        self._services = services
        self._game_of = game_of
        self._announce = announce

    @property
    def services(self) -> Services | None:
        """The services sessions are made with (:meth:`bind`), or None before."""
        return self._services

    def __repr__(self) -> str:
        return f"<Sessions {len(self._sessions)} online>"

    # -- lookups ---------------------------------------------------------------

    def get(self, handle: str) -> Session | None:
        """The session of ``handle`` (any case), or ``None``."""
        return self._sessions.get(fold(handle))

    session = get  # IPlayers's name

    @property
    def by_key(self) -> Callable[[str], Session | None]:
        """The lookup of a session by its folded handle (a fan-out's fast path: the keys
        it holds are folded already, and this is the table's own ``get``)."""
        return self._sessions.get

    def host_of(self, handle: str) -> str:
        """The address ``handle``'s session is counted by for per-address limits ("": none)."""
        session = self._sessions.get(fold(handle))
        return session.host if session is not None else ""

    def named(self, word: str) -> Session:
        """The session whose handle ``word`` names, exactly or as a unique prefix.

        :raises ficsfen.names.NameResolutionError: nobody, or several players.
        """
        return self._sessions[fold(resolve_handle(word, self._handles))]

    def sorted(self) -> list[Session]:
        """Every session, by folded handle."""
        return sorted(self._sessions.values(), key=lambda s: fold(s.handle))

    sessions_sorted = sorted  # IPlayers's name

    def everyone_sorted(self) -> list[Any]:
        """Every player of every node (:attr:`elsewhere`), by folded handle: this node's
        sessions, and for the others what their nodes say (a handle logged in both here
        and elsewhere is this node's)."""
        if self.elsewhere is None:
            return self.sorted()
        local = self._sessions
        everyone = [*local.values(),
                    *(p for p in self.elsewhere.players() if fold(p.handle) not in local)]
        return sorted(everyone, key=lambda s: fold(s.handle))

    def anywhere(self, word: str) -> Any:
        """The player ``word`` names (exactly or as a unique prefix) on any node: a
        :class:`Session` here, else what :attr:`elsewhere` knows.

        :raises ficsfen.names.NameResolutionError: nobody, or several players.
        """
        if self.elsewhere is None:
            return self.named(word)
        key = fold(word)
        found = self._sessions.get(key) or self.elsewhere.get(key)
        if found is not None:
            return found
        names: list[str] = []
        for index in (self._handles, self.elsewhere.handles()):
            candidates = index.candidates(word) if word else []
            names.extend([candidates] if isinstance(candidates, str) else candidates)
        key = fold(resolve_handle(word, names))
        return self._sessions.get(key) or self.elsewhere.get(key)

    def taken(self, name: str) -> bool:
        """Whether someone is logged in as ``name`` (any case) on any node."""
        key = fold(name)
        return key in self._sessions or (self.elsewhere is not None
                                          and self.elsewhere.get(key) is not None)

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[Session]:
        return iter(self._sessions.values())

    def all(self) -> Iterable[Session]:
        """The sessions, any order (a live view: do not log in or out while iterating)."""
        return self._sessions.values()

    def keys(self) -> KeysView[str]:
        """The folded handles online (a live view)."""
        return self._sessions.keys()

    def handles(self) -> NameIndex:
        """The handles online, kept up to date: typed names resolve against it by bisection."""
        return self._handles

    def is_online(self, session: IServerCaller) -> bool:
        """Whether ``session`` is the one listed for its handle."""
        return self._sessions.get(fold(session.handle)) is session

    def has(self, name: str) -> bool:
        """Whether someone is logged in as ``name`` (any case)."""
        return fold(name) in self._sessions

    def listening(self, ivar: str) -> AbstractSet[Session]:
        """The sessions with ``ivar`` (one of :data:`LISTENING_IVARS`) on (a live view)."""
        return self._listening[ivar]

    def listing_changed(self) -> None:
        """Something ``who`` shows changed outside the game directory (``open``, for one)."""
        self.listing_changes += 1

    def tidy(self) -> None:
        """Resize the table a crowd of logins grew (after a burst of disconnections)."""
        compact(self._sessions)

    # -- arrivals and departures -----------------------------------------------------

    def enter(self, handle: str, *, write: Callable[[bytes], None], close: Callable[[], None],
              registered: bool = False, peer: str = "", host: str = "",
              saved: Mapping[str, Any] | None = None) -> Session:
        """Make and list the session of ``handle``, whose login the accounts accepted.

        ``peer`` names the connection in the log; ``host`` is the address the
        per-address limits count the player by; ``saved``, a registered
        player's settings, read beforehand off the reactor thread
        (:meth:`ficsfen.server.accounts.Accounts.saved_settings`): nothing is
        read here.

        A registered player who is logged in already is replaced, as on FICS:
        the old session is told and closed, and the new one takes over what
        is kept by handle (the game in progress, observed games, offers).

        :raises RuntimeError: :meth:`bind` was not called.
        """
        if self._services is None:
            raise RuntimeError("Sessions.bind() must give the services before any login")
        key = fold(handle)
        old = self._sessions.get(key)
        if old is not None:
            handle = old.handle  # the spelling its games know
        session = Session(self._services, handle, write=write, close=close, lang=self._language,
                          registered=registered, peer=peer, host=host)
        session.login_time = self._clock.seconds()
        for hook in self.entering:
            hook(session, old, saved if registered else None)
        self._sessions[key] = session
        self._handles.add(handle)
        self.listing_changed()
        if old is not None:
            old.write_text("\n" + old.render(msg(
                "**** {handle} has arrived - you can't both be logged in. ****", handle=handle)))
            old.disconnect()  # its connection's logout finds the new session and does nothing
            for listeners in self._listening.values():
                listeners.discard(old)
            session.send(msg("**** {handle} is already logged in - kicking them out. ****",
                             handle=handle))
            self.log.info("{handle} logged in again from {peer}; old session closed",
                          handle=handle, peer=peer)
        self.log.info("login {handle} from {peer}", handle=handle, peer=peer)
        return session

    def arrived(self, session: Session) -> None:
        """``session``'s login is complete: ``<wa>`` for ``pin`` sessions, then the
        :attr:`arrivals` hooks (a game going on, adjourned games)."""
        self.ivars_changed(session)  # %b at the login prompt may have set them
        self._tell_pin(self.pin_arrival(session), session)
        for hook in self.arrivals:
            hook(session)

    def pin_arrival(self, session: Session) -> str:
        """The ``<wa>`` line of ``session``'s arrival, as FICS's ``pin`` ivar shows it:
        ``who I``'s line for the nine rating categories (:mod:`.wholist`)."""
        status = wholist.status_char(self._game_of(session.handle),
                                     open_=bool(session.variables.get("open", True)))
        return "<wa> " + wholist.interface_entry(session.handle, status, session.registered,
                                                 self.rating_columns(session.handle))

    def logout(self, session: Session, *, reason: str = "") -> None:
        """Take ``session`` out (the :attr:`departures` hooks end its games, offers,
        seeks...), close it, and tell ``pin`` sessions.  Nothing if it is not listed."""
        key = fold(session.handle)
        if self._sessions.get(key) is not session:
            return
        del self._sessions[key]
        self._handles.discard(session.handle)
        self.listing_changed()
        if session.registered:  # only registered players are fingered offline
            self.last_seen[key] = self._clock.seconds()
        for hook in self.departures:
            hook(session)
        self.log.info("logout {handle} ({reason})", handle=session.handle, reason=reason)
        session.disconnect()
        for members in self._listening.values():
            members.discard(session)
        self._tell_pin(f"<wd> {session.handle}", session)

    def _tell_pin(self, line: str, about: Session) -> None:
        """``line`` to every other session with the ``pin`` ivar on (there are sessions,
        so :meth:`bind` gave ``announce``)."""
        if self._announce is not None:
            self._announce(self._listening["pin"], line, but=about)

    # -- who listens to what ---------------------------------------------------------

    def on_listening(self, ivar: str, callback: Callable[[Session], None]) -> None:
        """Call ``callback(session)`` when a listed session turns ``ivar`` on."""
        self._turned_on.setdefault(ivar, []).append(callback)

    def ivars_changed(self, session: Session) -> None:
        """Note whether ``session`` now listens to arrivals, game ends and seeks."""
        if not self.is_online(session):
            return
        for name, members in self._listening.items():
            was = session in members
            if session.ivars[name]:
                members.add(session)
                if not was:
                    for callback in self._turned_on.get(name, ()):
                        callback(session)
            else:
                members.discard(session)
