"""Accounts: which names may log in, how, and what a registered player keeps between logins.

:class:`Accounts` answers the login dialogue: whether a typed name is
acceptable (:meth:`~Accounts.check_name`), registered
(:meth:`~Accounts.is_registered`) or a guest's, hands out ``GuestXXXX``
names, holds names while their login is confirmed, and checks passwords.
The password check is a Twisted credentials checker
(:class:`twisted.cred.checkers.ICredentialsChecker`):
:meth:`~Accounts.requestAvatarId` takes a :class:`PasswordAttempt`
(:class:`IPasswordAttempt` credentials: name, password and the address they
came from), refuses it at once while the
:class:`~ficsfen.server.limits.LoginThrottle` makes the account or address
wait, else hashes in a background pool and counts the result.  It fires with
the account's name, or fails with :class:`LoginRefused` (throttled: the hash
was never computed) or :class:`BadPassword` (carrying the throttle's
:class:`~ficsfen.server.limits.Failure`: the next wait, any lockout).

Accounts live in the store when there is one (read at each call, so an
account an operator adds or removes counts at once; the login reads them off
the reactor thread: :meth:`~Accounts.registered`,
:meth:`~Accounts.saved_settings`), else in the configuration's ``[accounts]``.  Settings (``set``, ``style``, personal
lists) are saved to the store for registered players.
"""

from __future__ import annotations

import random
import string
import threading
from typing import Any, Callable, TypeVar

from twisted.cred.checkers import ICredentialsChecker
from twisted.cred.credentials import ICredentials
from twisted.cred.error import UnauthorizedLogin
from twisted.internet.defer import Deferred, fail, maybeDeferred, succeed
from twisted.internet.interfaces import IReactorThreads, IReactorTime
from twisted.logger import LogLevel, Logger
from twisted.python import failure
from zope.interface import Attribute, implementer

from ficsfen.i18n import Message, msg
from ficsfen.names import fold
from ficsfen.server.background import BackgroundPool
from ficsfen.server.config import Config, verify_password
from ficsfen.server.limits import Failure, LoginThrottle, Refusal
from ficsfen.server.reads import Reader
from ficsfen.server.refusal_log import RefusalLog
from ficsfen.server.interfaces import IServerCaller

__all__ = ["ACCOUNT_FLAGS", "ACCOUNT_RATINGS", "Accounts", "BadPassword", "IPasswordAttempt", "LoginRefused",
           "PasswordAttempt"]

T = TypeVar("T")

#: The key of what :meth:`Accounts.saved_settings` gives that holds the account's
#: flags, ``{"admin": bool, "muzzled": bool}`` (read with the settings, in one go);
#: never saved back (``settings.saved`` builds what it writes from the session).
ACCOUNT_FLAGS = "account"
#: The key of the same that holds the account's ratings (``Category`` -> ``Rating``,
#: the categories played), read in the same go and never saved back either.
ACCOUNT_RATINGS = "ratings"


class IPasswordAttempt(ICredentials):
    """A password typed for an account at a connection: the credentials :class:`Accounts`
    checks (the throttle counts attempts by account and by address)."""

    username = Attribute("str: the account's name, as typed.")
    password = Attribute("str: the password, as typed.")
    host = Attribute("str: the address the attempt came from.")


@implementer(IPasswordAttempt)
class PasswordAttempt:
    """A password typed for ``username`` at a connection from ``host``."""

    __slots__ = ("username", "password", "host")

    def __init__(self, username: str, password: str, host: str = "") -> None:
        self.username = username
        self.password = password
        self.host = host

    def __repr__(self) -> str:  # never the password
        return f"<PasswordAttempt {self.username!r} from {self.host!r}>"


class LoginRefused(UnauthorizedLogin):
    """The throttle refuses the attempt before any hashing; :attr:`refusal` says why."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.kind)
        self.refusal = refusal


class BadPassword(UnauthorizedLogin):
    """A wrong password, counted; :attr:`failure` holds the next wait and any lockout."""

    def __init__(self, failure: Failure) -> None:
        super().__init__("wrong password")
        self.failure = failure


@implementer(ICredentialsChecker)
class Accounts:
    """Names, guests, passwords and saved settings.

    ``online(name)`` says whether someone is logged in as ``name``; ``store``
    is the ``IStore`` or ``None``; ``rng`` draws guest names.  Passwords
    are hashed in a thread pool of their own when ``clock`` is a real
    reactor, inline with a test clock.
    """

    credentialInterfaces = (IPasswordAttempt,)
    log = Logger()

    def __init__(self, config: Config, *, clock: IReactorTime,
                 store: Any,  # an IStore provider (a zope interface: no static type), or None
                 rng: random.Random, online: Callable[[str], bool],
                 read: Reader = maybeDeferred) -> None:
        self._config = config
        self._store = store
        #: Runs a store read off the reactor thread (:class:`ficsfen.server.reads.StoreReads`).
        self._read = read
        self._rng = rng
        self._online = online
        self._reserved: set[str] = set()
        #: Where passwords are hashed with a real reactor (inline with a test clock):
        #: its threads start with :meth:`start_threads`, or else at the first check.
        self._password_pool: BackgroundPool | None = None
        if IReactorThreads.providedBy(clock):
            self._password_pool = BackgroundPool(
                clock, threads=config.password_threads, nice=config.password_nice,
                name="ficsfen-passwords")
        #: Growing delays and lockouts after wrong passwords (``[limits] password_*``).
        self.throttle = LoginThrottle(
            clock, delay=config.password_delay, max_delay=config.password_delay_max,
            failures=config.password_failures, window=config.password_window,
            lockout=config.password_lockout, exempt=config.exempt)
        #: Passwords the throttle refused: logged in full once per address, then counted.
        self.password_refusals = RefusalLog(clock)

    # -- names -------------------------------------------------------------------

    def in_use(self, name: str) -> bool:
        """Whether ``name`` is logged in or held by a login being confirmed."""
        return self._online(name) or fold(name) in self._reserved

    def check_name(self, name: str) -> Message | None:
        """Why ``name`` cannot be used as an unregistered login name now, or ``None``."""
        if not (name.isascii() and name.isalpha()):
            return msg("Sorry, names can only consist of lower and upper case letters. Try again.")
        if len(name) < 3:
            return msg("A name should be at least 3 characters long! Try again.")
        if len(name) > 17:
            return msg("Sorry, names may be at most 17 characters long. Try again.")
        if fold(name).startswith("guest"):
            return msg("Names starting with \"Guest\" are given to guests; type \"{word}\" to get one.",
                       word=self._config.guest_login)
        if self.in_use(name):
            return msg("Sorry, {name} is already logged in. Try another name.", name=name)
        return None

    def is_guest_name(self, name: str) -> bool:
        """Whether ``name`` was handed out by the guest login (nobody can choose it again)."""
        return fold(name).startswith("guest") and not self.is_registered(name)

    def is_registered(self, name: str) -> bool:
        """Whether ``name`` has an account: in the store when there is one (read at each
        call, in the calling thread), else in the configuration's ``[accounts]``."""
        if self._store is not None:
            return self._store.get_account(name) is not None
        return fold(name) in self._config.accounts

    def registered(self, name: str) -> Deferred[bool]:
        """:meth:`is_registered`, read off the reactor thread."""
        return self._read(self.is_registered, name)

    def saved_settings(self, name: str) -> Deferred[dict[str, Any]]:
        """The settings a registered ``name`` saved (``set``, ``style``, lists; empty without
        a store), with the account's flags under :data:`ACCOUNT_FLAGS` and its ratings under
        :data:`ACCOUNT_RATINGS`, read off the reactor thread: what a login hands to
        :meth:`ficsfen.server.sessions.Sessions.enter`."""
        if self._store is None:
            return succeed({})
        return self._read(self._login_settings, name)

    def _login_settings(self, name: str) -> dict[str, Any]:
        """The store's reads of a login (in the read thread): settings, flags, ratings."""
        saved = dict(self._store.load_settings(name))
        account = self._store.get_account(name)
        if account is not None:
            saved[ACCOUNT_FLAGS] = {"admin": account.admin, "muzzled": account.muzzled}
            saved[ACCOUNT_RATINGS] = self._store.player_ratings(name)
        return saved

    # -- guests and reservations -----------------------------------------------------

    def allocate_guest(self) -> str:
        """A fresh, unused ``GuestXXXX`` handle (reserved until entered or released)."""
        letters = string.ascii_uppercase
        while True:
            handle = "Guest" + "".join(self._rng.choice(letters) for _ in range(4))
            if not self.in_use(handle):
                self.reserve(handle)
                return handle

    def reserve(self, name: str) -> None:
        """Hold an unregistered or guest ``name`` while its login is confirmed.

        Registered names are never held: a password prompt does not keep
        the real player out (whoever gives the right password first gets in).
        """
        self._reserved.add(fold(name))

    def release(self, name: str) -> None:
        """Stop holding ``name`` (its login entered or was abandoned)."""
        self._reserved.discard(fold(name))

    # -- passwords ---------------------------------------------------------------------

    def _password_hash(self, name: str) -> str:
        if self._store is not None:
            account = self._store.get_account(name)
            return "" if account is None else account.password_hash
        return self._config.accounts.get(fold(name), "")

    def check_password(self, name: str, password: str) -> Deferred[bool]:
        """Whether ``password`` is ``name``'s, as a Deferred; no throttling (see
        :meth:`requestAvatarId`).

        The hash is read from the store at each call (never cached), off the
        reactor thread.  Hashing takes a good fraction of a second by design, so it runs in
        a thread pool of its own at a lower CPU priority when the clock is a
        real reactor (inline with a test clock), never blocking other
        players nor taking the reactor's CPU (:mod:`ficsfen.server.background`).
        """
        return self._read(self._password_hash, name).addCallback(
            lambda stored: self.run_hash(verify_password, password, stored))

    def run_hash(self, function: Callable[..., T], *args: object) -> Deferred[T]:
        """``function(*args)``, a slow password hash, in the password pool (inline with a
        test clock), its result as a Deferred: see :meth:`check_password`."""
        if self._password_pool is not None:
            return self._password_pool.run(function, *args)
        return succeed(function(*args))

    def requestAvatarId(self, credentials: IPasswordAttempt) -> Deferred[bytes | tuple[()]]:
        """:class:`ICredentialsChecker`: the account's name once the password is right
        (UTF-8 encoded: Twisted's avatar ids are bytes).

        A throttled attempt fails at once with :class:`LoginRefused` and is
        never hashed (the hash is what an attacker wants us to spend); a
        wrong password fails with :class:`BadPassword` once counted (even if
        whoever typed it has gone meanwhile); a right one clears the
        account's and the address's failures.  A check that breaks fails
        with its own error.
        """
        name, host = credentials.username, credentials.host
        throttle = self.throttle
        refusal = throttle.refusal(name, host)
        if refusal is not None:
            return fail(LoginRefused(refusal))
        throttle.begin(name, host)
        try:
            checking = self.check_password(name, credentials.password)
        except Exception:
            throttle.end(name, host)
            raise

        def checked(ok: bool) -> bytes | tuple[()]:
            throttle.end(name, host)
            if not ok:
                raise BadPassword(throttle.failed(name, host))
            throttle.succeeded(name, host)
            return name.encode("utf-8")

        def broken(reason: failure.Failure) -> failure.Failure:
            throttle.end(name, host)
            return reason

        return checking.addCallbacks(checked, broken)

    def start_threads(self) -> list[threading.Thread]:
        """Start the password pool's threads now (with a real reactor); returns them.

        Called as the server starts: threads started later, during a crowd of
        logins, are born among the crowd's objects and keep memory of it.
        """
        if self._password_pool is None:
            return []
        self._password_pool.start()
        return self._password_pool.threads

    # -- saved settings ------------------------------------------------------------------

    def save_settings(self, session: IServerCaller, data: dict[str, Any]) -> None:
        """Keep ``data`` (a registered player's settings) for their next login.

        Nothing without a store or for an unregistered player; a failed write
        is logged.
        """
        if self._store is None or not session.registered:
            return
        d = self._store.save_settings(session.handle, data)
        d.addErrback(lambda reason: self.log.failure(
            "could not save the settings of {handle}", reason, LogLevel.error, handle=session.handle))
