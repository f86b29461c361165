"""Every login and logout written to the store's ``logons`` table (``llogons``, ``logons``).

:class:`LogonLog` is told of arrivals and departures (the ``Sessions`` hooks)
and hands each to the store's writer, which writes it in its own thread:
nothing waits for the disk on the reactor thread.  Guests are recorded too,
as on FICS.  A failed write is logged and forgotten (a login never fails
for it).
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.logger import LogLevel, Logger

from ficsfen.server.session import Session

__all__ = ["LogonLog"]


class LogonLog:
    """Writes logins and logouts to ``store()`` (an ``IStore``, or ``None``: nothing is
    kept), dated with ``wall()`` (Unix time)."""

    log = Logger()

    def __init__(self, store: Callable[[], Any], *, wall: Callable[[], float]) -> None:
        self._store = store
        self._wall = wall

    def arrived(self, session: Session) -> None:
        """A login (a ``Sessions.arrivals`` hook)."""
        self._record(session, "on")

    def departed(self, session: Session) -> None:
        """A logout (a ``Sessions.departures`` hook)."""
        self._record(session, "off")

    def _record(self, session: Session, event: str) -> None:
        store = self._store()
        if store is None:
            return
        d = store.record_logon(session.handle, event, self._wall(), session.host)
        d.addErrback(lambda reason: self.log.failure(
            "could not record the {event} of {handle}", reason, LogLevel.error, event=event,
            handle=session.handle))
