"""Operators (admin accounts) and what they act on: bans, muzzles, notices to everyone, shutdown.

An account is an operator when the store's ``admin`` flag is set (``ficsfen
accounts admin NAME on``) or its handle is in the configuration's ``[server]
admins``; only a registered login (with its password) ever is one.  The
login's read of a player's saved settings also brings the account's flags
(:data:`ficsfen.server.accounts.ACCOUNT_FLAGS` in ``saved``, see
:meth:`ficsfen.server.accounts.Accounts.saved_settings`), which
:meth:`Operators.entering` puts on the session before it is listed:
``who``, ``finger`` and tells then show FICS's ``(*)`` mark.

:class:`Operators` also holds the bans in force (:class:`~ficsfen.server.bans.BanList`,
read from the store at start: :meth:`Operators.load`), the pending shutdown
(:class:`~ficsfen.server.shutdown.ShutdownCountdown`) and the one way
operator notices reach everyone (:meth:`Operators.tell_all`).  Every
operator action is logged by :meth:`Operators.record`, one line each.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from ficsfen.i18n import Message
from ficsfen.names import fold
from ficsfen.server.accounts import ACCOUNT_FLAGS
from ficsfen.server.bans import BanList
from ficsfen.server.config import Config
from ficsfen.server.reads import Reader
from ficsfen.server.session import Session
from ficsfen.server.shutdown import ShutdownCountdown

__all__ = ["Operators", "notify_all"]


def notify_all(sessions: Iterable[Session], message: Message, *, parsed: bool = False,
               but: object = None) -> int:
    """``message`` as a notification to each of ``sessions`` but one; returns how many.

    A session whose command is running (the operator's own) reads it in that
    command's answer.
    Rendered once per language (``parsed``: the language of texts clients
    parse, :attr:`Session.parsed_lang`, else the person's) and encoded once
    per (language, charset, prompt), the same bytes written to each group.
    """
    groups: dict[tuple[str, str, str], list[Session]] = {}
    count = 0
    for session in sessions:
        if session is but or session.closed:
            continue
        if session.answering:  # their own command caused it: in its answer
            session.send(message.render(session.parsed_lang) if parsed else message)
            count += 1
            continue
        lang = session.parsed_lang if parsed else session.lang
        groups.setdefault((lang, session.charset, session.prompt_text), []).append(session)
    texts: dict[str, str] = {}
    for (lang, charset, prompt), members in groups.items():
        text = texts.get(lang)
        if text is None:
            text = texts[lang] = message.render(lang)
        Session.emit_all(members, Session.notification(text, charset, prompt))
        count += len(members)
    return count


class Operators:
    """Who is an operator, the bans, the pending shutdown, and the operators' log.

    ``sessions()`` lists everyone logged in; ``store`` is the ``IStore`` or
    ``None``; ``read`` runs a store read off the reactor thread; ``stop``
    stops the server as SIGTERM does (the countdown's end, ``shutdown now``).
    """

    log = Logger(namespace="ficsfen.server.operators")

    def __init__(self, config: Config, *, clock: IReactorTime, store: Any, read: Reader,
                 sessions: Callable[[], Iterable[Session]], stop: Callable[[], object]) -> None:
        self._admins = frozenset(config.admins)
        self.store = store
        self.read = read
        self.sessions = sessions
        self.bans = BanList()
        self.countdown = ShutdownCountdown(clock, tell_all=self.tell_all, stop=stop)

    def load(self) -> Deferred[None]:
        """Read the bans the store keeps (at start, before the server listens)."""
        if self.store is None:
            return succeed(None)
        return self.read(self.store.bans).addCallback(self.bans.load)

    def entering(self, session: Session, replaced: Session | None,
                 saved: Mapping[str, Any] | None) -> None:
        """A login enters: its operator and muzzled flags, from the account (read with its
        settings) and the configuration's ``[server] admins``."""
        if not session.registered:
            session.admin = session.muzzled = False
            return
        flags = (saved or {}).get(ACCOUNT_FLAGS)
        flags = flags if isinstance(flags, Mapping) else {}
        session.admin = bool(flags.get("admin")) or fold(session.handle) in self._admins
        session.muzzled = bool(flags.get("muzzled"))

    def refusal(self, name: str | None, host: str) -> Message | None:
        """Why a login of ``name`` (``None``: a guest) from ``host`` is refused by a ban, or
        ``None``."""
        return self.bans.refusal(name, host)

    def tell_all(self, message: Message, *, parsed: bool = False,
                 but: object = None) -> int:
        """``message`` to everyone logged in (``but`` one) as a notification; how many."""
        return notify_all(list(self.sessions()), message, parsed=parsed, but=but)

    def record(self, admin: str, action: str, **fields: object) -> None:
        """The operator log's line for one action of ``admin`` (``action`` a format string
        of ``fields``)."""
        self.log.info("operator {admin}: " + action, admin=admin, **fields)

    def stopping(self) -> None:
        """The server stops: a pending countdown ends silently."""
        self.countdown.stop()
