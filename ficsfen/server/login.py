"""The login dialogue: from ``login:`` to a session, as an explicit state machine.

States of :class:`LoginDialogue` (:attr:`LoginDialogue.state`), and what a line does in each:

``login``
    a name: ``guest`` gets a fresh ``GuestXXXX`` (-> ``confirm``), a
    registered name asks for its password (-> ``password``), any other valid
    name is reserved (-> ``confirm``); ``%b0101...`` presets interface
    variables; an empty line asks again.
``password``
    the password, checked off the reactor (-> ``checking``); an empty line
    goes back to ``login``.  A throttled attempt is refused before the hash.
``checking``, ``delayed``
    lines typed meanwhile are kept (at most :data:`MAX_TYPE_AHEAD`) and run
    in order once the check, or the delay after a wrong password, is over.
``confirm``
    any line enters the server (-> ``done``).
``done``, ``closed``
    the dialogue is over: lines are the session's, or nobody's.

Every question the dialogue asks of the server goes through :class:`Desk`,
one method per question.  FICS's prompts (``login:``, ``password:``) and
texts that clients wait for are never translated; the others come from the
catalogs.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Protocol

from twisted.logger import LogLevel, Logger
from twisted.python import failure as tw_failure

from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server.accounts import BadPassword, LoginRefused, PasswordAttempt
from ficsfen.server.ivars import IVARS
from ficsfen.server.limits import Failure, Refusal, duration, seconds_left
from ficsfen.server.session import encode_text

if TYPE_CHECKING:  # pragma: no cover
    from ficsfen.server.session import Session
    from ficsfen.server.timeseal import MoveTimer

__all__ = ["Desk", "LoginConnection", "LoginDialogue", "MAX_TYPE_AHEAD", "PasswordCheck", "duration",
           "refusal_text"]

#: Most lines kept while a password is being checked (typed ahead by a
#: script or a client); later ones are dropped, and the player is told how
#: many once logged in.  Each line is at most ``max_line`` bytes.
MAX_TYPE_AHEAD = 50

# What the login dialogue asks for, by state (FICS's own words: clients and
# scripts wait for them, so they are never translated).
_PROMPTS = {"login": b"login: ", "password": b"password: "}


class Desk:
    """What the telnet side asks of the server, each question in one method.

    One per server.  Each method looks the server's method up when called
    (tests and plugins may replace them on the server).
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.config = server.config
        self.clock = server.clock
        #: Delays and lockouts after wrong passwords (a LoginThrottle).
        self.throttle = server.accounts.throttle
        #: Connections and login attempts per address (an AddressLimits).
        self.address_limits = server.address_limits
        #: Refused passwords logged once, then counted, per address (a RefusalLog).
        self.password_refusals = server.accounts.password_refusals
        #: Runs the command lines of logged-in sessions (a Dispatcher): called directly
        #: on the path of every command (``bench/load.py --compare``, the ``fen`` ratio).
        self.dispatcher = server.dispatcher

    @property
    def stopping(self) -> bool:
        """Whether the server is stopping (logins under way are refused)."""
        return self.server.stopping

    # -- connections
    def full(self) -> bool:
        return self.server.connections >= self.config.max_connections

    def opened(self) -> None:
        self.server.connections += 1

    def closed(self) -> None:
        self.server.connections -= 1

    # -- names and passwords
    def allocate_guest(self) -> str:
        return self.server.accounts.allocate_guest()

    def registered(self, name: str) -> Any:
        """Whether ``name`` has an account, as a Deferred (read off the reactor thread)."""
        return self.server.accounts.registered(name)

    def saved_settings(self, name: str) -> Any:
        """A registered player's saved settings, as a Deferred (read off the reactor thread)."""
        return self.server.accounts.saved_settings(name)

    def check_name(self, name: str) -> Message | None:
        return self.server.accounts.check_name(name)

    def banned(self, name: str | None, host: str) -> Message | None:
        """Why a ban refuses a login of ``name`` (``None``: a guest) from ``host``, or ``None``."""
        return self.server.operators.refusal(name, host)

    def reserve(self, name: str) -> None:
        self.server.accounts.reserve(name)

    def release(self, name: str) -> None:
        self.server.accounts.release(name)

    def check_password(self, name: str, password: str, host: str) -> Any:
        """A Deferred: fires once the password is right; fails with LoginRefused (throttled,
        never hashed), BadPassword (wrong, counted) or the error of a broken check."""
        return self.server.accounts.requestAvatarId(PasswordAttempt(name, password, host))

    # -- sessions
    def enter(self, handle: str, *, write: Any, close: Any, registered: bool, peer: str, host: str,
              saved: Any = None) -> Session:
        return self.server.sessions.enter(handle, write=write, close=close, registered=registered,
                                          peer=peer, host=host, saved=saved)

    def arrived(self, session: Session) -> None:
        self.server.sessions.arrived(session)

    def logout(self, session: Session, reason: str) -> None:
        self.server.sessions.logout(session, reason=reason)

    def line_too_long(self, session: Session) -> None:
        self.server.dispatcher.line_too_long(session)


class LoginConnection(Protocol):
    """The connection a :class:`LoginDialogue` talks through."""

    @property
    def peer(self) -> str: ...  # noqa: D102,E704

    @property
    def host(self) -> str: ...  # noqa: D102,E704

    #: A timeseal client's timing, or None; its ``digits`` are those of the line being read.
    seal: MoveTimer | None

    def say(self, message: Message | str) -> None:
        """A line (or lines) in the server's language."""

    def write(self, data: bytes) -> None:
        """Bytes as they are."""

    def echo(self, on: bool) -> None:
        """Ask the client to echo what it types again (``on``) or to stop."""

    def close(self) -> None:
        """End the connection."""

    def text_line(self, line: str) -> None:
        """Run a decoded line as if it came now (a line typed ahead)."""

    def start_session(self, session: Session) -> None:
        """Attach the connection to the session just entered."""


class PasswordCheck:
    """The password steps of a :class:`LoginDialogue`: ``password``, ``checking``, ``delayed``.

    The password is checked off the reactor (:meth:`Desk.check_password`),
    after the throttle (:attr:`Desk.throttle`) let it be tried; a wrong one
    is counted and waits out its delay, a right one reads the player's
    saved settings, then enters.
    """

    __slots__ = ("conn", "desk", "state", "pending_name", "delay", "echo_off")
    log = Logger()
    conn: LoginConnection
    desk: Desk
    #: The dialogue's state (see the module's docstring).
    state: str
    #: The name being logged in (set from the name line to the entry).
    pending_name: str
    delay: Any  # the wait after a wrong password (an IDelayedCall)
    #: Whether we asked the client not to echo (the password prompt).
    echo_off: bool
    # LoginDialogue's methods this class calls.
    prompt: Callable[..., None]
    _refuse_unavailable: Callable[[], None]
    _refuse_stopping: Callable[[], None]
    _lookup_failed: Callable[[Any, str], None]
    _enter: Callable[..., None]
    _replay_type_ahead: Callable[[], None]

    def _password(self, line: str) -> None:
        conn = self.conn
        self._echo_on()
        conn.write(b"\r\n")
        if not line:  # "If not, just hit return to try another name."
            self.pending_name = ""
            self.state = "login"
            self.prompt()
            return
        name = self.pending_name
        self.state = "checking"  # lines typed meanwhile wait in self.type_ahead
        self.desk.check_password(name, line, conn.host).addCallbacks(
            lambda _: self._password_checked(name, None), self._password_failed,
            errbackArgs=(name,))

    def _password_failed(self, reason: tw_failure.Failure, name: str) -> None:
        """The password was refused: throttled (never hashed), wrong, or the check
        broke (the store read or the hash)."""
        error = reason.value
        if isinstance(error, LoginRefused):
            if self.state == "checking":
                self._refuse(name, error.refusal)
            return
        if isinstance(error, BadPassword):  # counted even if the connection went away meanwhile
            counted = error.failure
            self._log_failure(name, counted)
            self._password_checked(name, counted)
            return
        if self.state != "checking":
            return
        if self.desk.stopping:  # the store may be closed already
            self._refuse_stopping()
            return
        self.log.failure("password check failed", reason, LogLevel.error)
        self._refuse_unavailable()

    def _echo_on(self) -> None:
        if self.echo_off:
            self.echo_off = False
            self.conn.echo(True)

    def _refuse(self, name: str, refusal: Refusal) -> None:
        """A password login refused by the throttle, back at ``login:``."""
        wait = seconds_left(refusal.until, self.desk.clock.seconds())
        if self.desk.password_refusals.refused(self.conn.host):  # then counted, a line a minute
            self.log.info("refused a password for {name} from {peer}: {kind} by {scope} "
                          "({seconds} s left); more refusals from this address are counted",
                          name=name, peer=self.conn.peer, kind=refusal.kind, scope=refusal.scope,
                          seconds=wait)
        self.pending_name = ""
        self.state = "login"
        self.conn.say(refusal_text(name, refusal.kind, refusal.scope, wait))
        self.prompt(fresh_line=True)

    def _password_checked(self, name: str, failure: Failure | None) -> None:
        """The password was right (``failure`` is ``None``) or wrong, as counted."""
        if self.state != "checking":  # the connection went away meanwhile
            return
        if failure is None:
            if self.desk.stopping:
                self._refuse_stopping()
                return
            # Settings read off the reactor thread, too; the state stays "checking".
            self.desk.saved_settings(name).addCallbacks(
                self._settings_read, self._lookup_failed, errbackArgs=(name,))
            return
        self.pending_name = ""
        self.conn.say(msg("**** Invalid password! ****"))
        if failure.locked:
            wait = seconds_left(failure.until, self.desk.clock.seconds())
            self.conn.say(refusal_text(name, "locked", failure.locked[0], wait))
        if failure.locked or not failure.delay:
            self.state = "login"
            self.prompt(fresh_line=True)
        else:  # the next "login:" after the delay; lines typed meanwhile wait
            self.state = "delayed"
            self.delay = self.desk.clock.callLater(failure.delay, self._delay_over)
        self._replay_type_ahead()

    def _settings_read(self, saved: dict[str, Any]) -> None:
        if self.state != "checking":  # the connection went away meanwhile
            return
        if self.desk.stopping:
            self._refuse_stopping()
            return
        self._enter(registered=True, saved=saved)
        self._replay_type_ahead()

    def _log_failure(self, name: str, failure: Failure) -> None:
        config, peer = self.desk.config, self.conn.peer
        self.log.info("bad password for {name} from {peer} (failure {account} for the account, "
                      "{address} for the address; next attempt in {delay:g} s)", name=name,
                      peer=peer, account=failure.account_failures,
                      address=failure.address_failures, delay=failure.delay)
        for scope in failure.locked:
            self.log.warn("locked out {what} for {seconds:g} s after {count} bad passwords "
                          "(last: {name} from {peer})",
                          what=f"account {name}" if scope == "account" else f"address {self.conn.host}",
                          seconds=config.password_lockout, name=name, peer=peer,
                          count=config.password_failures)

    def _delay_over(self) -> None:
        self.delay = None
        if self.state != "delayed":
            return
        self.state = "login"
        self.prompt(fresh_line=True)
        self._replay_type_ahead()


class LoginDialogue(PasswordCheck):
    """One connection's login, from the first ``login:`` to :meth:`Desk.enter`."""

    __slots__ = ("held", "type_ahead", "ivars", "dropped")

    log = Logger()

    def __init__(self, conn: LoginConnection, desk: Desk) -> None:
        self.conn = conn
        self.desk = desk
        self.state = "login"
        self.pending_name = ""
        #: The unregistered or guest name reserved by this login (released if it goes).
        self.held = ""
        self.delay = None
        #: Lines typed while the password is checked, with their timeseal stamps' digits
        #: (made on first use: most logins type nothing ahead).
        self.type_ahead: deque[tuple[str, bytes | None]] | None = None
        self.ivars: dict[str, bool] | None = None  # set by %b at the login prompt
        self.dropped = 0  # type-ahead lines beyond MAX_TYPE_AHEAD
        self.echo_off = False

    # -- the machine ---------------------------------------------------------------

    def line(self, line: str) -> None:
        """A decoded line typed while logging in."""
        handler = _LINE_HANDLERS.get(self.state)
        if handler is not None:
            if self.desk.stopping:
                self._refuse_stopping()
                return
            handler(self, line)

    def prompt(self, *, fresh_line: bool = False) -> None:
        """The prompt of the current state, if it has one."""
        prompt = _PROMPTS.get(self.state)
        if prompt is not None:
            self.conn.write(b"\r\n" + prompt if fresh_line else prompt)

    def stop(self) -> None:
        """The connection is closing: lines mean nothing more, the wait after a wrong password ends."""
        self.state = "closed"
        if self.delay is not None and self.delay.active():
            self.delay.cancel()
        self.delay = None

    def gone(self) -> None:
        """The connection is gone: :meth:`stop`, and the reserved name is given back."""
        self.stop()
        if self.held:
            self.desk.release(self.held)
            self.held = ""
        self.pending_name = ""

    def _login(self, line: str) -> None:
        name = line.strip()
        if not name:
            self.prompt()
            return
        if name.startswith("%b"):
            self._set_ivars(name[2:])
            return
        name = name.split()[0]
        desk, conn = self.desk, self.conn
        over = desk.address_limits.login_attempt(conn.host)
        if over is not None:
            wait = seconds_left(over.until, desk.clock.seconds())
            if over.report:
                self.log.warn("refused logins from {host}: more than {count} a minute "
                              "(limits.logins_per_minute), for {seconds} s; more refusals for "
                              "this address within a minute are not logged",
                              host=conn.host, count=over.count, seconds=wait)
            conn.say(msg("Sorry, too many logins from your address: this server allows {count} a "
                         "minute. Try again in {wait}.", count=over.count, wait=duration(wait)))
            conn.close()
            return
        guest = fold(name) == fold(desk.config.guest_login)
        banned = desk.banned(None if guest else name, conn.host)
        if banned is not None:  # before any password is asked (``ban``)
            self.log.info("refused the login of {name} from {peer}: banned", name=name,
                          peer=conn.peer)
            conn.say(banned)
            conn.close()
            return
        if guest:
            handle = desk.allocate_guest()
            self.pending_name = self.held = handle
            conn.say(msg("Logging you in as \"{handle}\"; you may use this name to play "
                         "unrated games.", handle=handle))
            self._ask_return(handle)
            return
        # Read off the reactor thread (a stalled disk must not stall everyone);
        # lines typed meanwhile wait in self.type_ahead.
        self.state = "checking"
        desk.registered(name).addCallbacks(self._looked_up, self._lookup_failed,
                                           callbackArgs=(name,), errbackArgs=(name,))

    def _looked_up(self, registered: bool, name: str) -> None:
        """The rest of ``login:`` once the store said whether ``name`` has an account."""
        if self.state != "checking":  # the connection went away meanwhile
            return
        if self.desk.stopping:
            self._refuse_stopping()
            return
        self.state = "login"
        self._named(registered, name)
        self._replay_type_ahead()

    def _lookup_failed(self, failure: Any, name: str) -> None:
        """A read of the login (account, settings) failed: refused, and closed."""
        if self.state != "checking":
            return
        if self.desk.stopping:  # the store may be closed already
            self._refuse_stopping()
            return
        self.log.failure("store read for the login of {name} failed", failure, LogLevel.error,
                         name=name)
        self._refuse_unavailable()

    def _refuse_stopping(self) -> None:
        """A login not finished when the server began to stop: told, and closed."""
        self.log.info("login of {peer} refused: the server is shutting down", peer=self.conn.peer)
        self.conn.say(msg("The server is shutting down. Goodbye."))
        self.conn.close()

    def _refuse_unavailable(self) -> None:
        self.conn.say(msg("Sorry, your login could not be completed; please try again later."))
        self.conn.close()

    def _named(self, registered: bool, name: str) -> None:
        """``name`` typed at ``login:``, now that it is known whether it has an account."""
        desk, conn = self.desk, self.conn
        if registered:
            # Asked even when the player is logged in, and the name is not
            # held meanwhile: the right password, typed here or at another
            # connection's prompt, gets in and closes the other session
            # (FicsServer.enter).  A locked-out account is not even asked.
            refusal = desk.throttle.refusal(name, conn.host)
            if refusal is not None and refusal.kind == "locked":
                self._refuse(name, refusal)
                return
            self.pending_name = name
            self.state = "password"
            conn.say(msg("\"{name}\" is a registered name.  If it is yours, type the password.\n"
                         "If not, just hit return to try another name.", name=name))
            conn.write(b"\r\n")
            self.echo_off = True
            conn.echo(False)
            self.prompt()
            return
        reason = desk.check_name(name)
        if reason is not None:
            conn.say(reason)
            self.prompt()
            return
        desk.reserve(name)
        self.pending_name = self.held = name
        conn.say(msg("\"{name}\" is not a registered name.  You may play unrated games as a "
                     "guest.", name=name))
        self._ask_return(name)

    def _set_ivars(self, digits: str) -> None:
        """``%b0101...`` at the login prompt: interface variables by position, for the session."""
        say = self.conn.say
        if digits.strip("01"):
            say(msg("Sorry, \"%b\" must be followed by the digits 0 and 1 only, one per "
                    "interface variable. Try again."))
        elif len(digits) > len(IVARS):
            say(msg("Sorry, \"%b\" sets at most {count} interface variables; you gave "
                    "{given} digits. Try again.", count=len(IVARS), given=len(digits)))
        else:
            if self.ivars is None:
                self.ivars = {}
            self.ivars.update((name, digit == "1") for name, digit in zip(IVARS, digits))
            say(msg("#Ivars set."))
        self.prompt()

    def _ask_return(self, handle: str) -> None:
        self.state = "confirm"
        text = msg("Press return to enter the server as \"{handle}\":", handle=handle)
        self.conn.write(encode_text("\r\n" + text.render(self.desk.config.language) + " ", "utf8"))

    def _type_ahead(self, line: str) -> None:
        """A line typed while the password is checked: kept, to run in order afterwards."""
        if self.type_ahead is None:
            self.type_ahead = deque()
        if len(self.type_ahead) < MAX_TYPE_AHEAD:
            seal = self.conn.seal
            self.type_ahead.append((line, seal.digits if seal is not None else None))
        else:
            self.dropped += 1

    def _replay_type_ahead(self) -> None:
        """Run the lines typed during the check, as if they came now (until another check or wait)."""
        queue = self.type_ahead
        conn = self.conn
        while queue and self.state not in ("checking", "delayed", "closed"):
            line, digits = queue.popleft()
            seal = conn.seal
            if seal is not None:
                seal.digits = digits
            conn.text_line(line)

    def _confirm(self, line: str) -> None:
        self._enter(registered=False)

    def _enter(self, *, registered: bool, saved: dict[str, Any] | None = None) -> None:
        conn, desk = self.conn, self.desk
        handle = self.pending_name
        self.pending_name = self.held = ""
        self.state = "done"
        session = desk.enter(handle, write=conn.write, close=conn.close, registered=registered,
                             peer=conn.peer, host=conn.host, saved=saved)
        if self.ivars is not None:
            session.preset_ivars(self.ivars)
        conn.start_session(session)
        session.send(msg("**** Starting FICS session as {name} ****", name=session.display_name()))
        session.write_text("")
        session.prompt()
        if self.dropped:
            session.notify(msgn("{count} line typed before your login was complete was ignored.",
                                "{count} lines typed before your login was complete were ignored.",
                                self.dropped))
            self.dropped = 0
        desk.arrived(session)  # a game going on, adjourned games: tell both players


def refusal_text(name: str, kind: str, scope: str, seconds: int) -> Message:
    """What a throttled password login is told, by (kind, scope) of the refusal."""
    return _REFUSALS[kind, scope](name=name, wait=duration(seconds))


_REFUSALS = {
    ("locked", "account"): lambda **p: msg(
        "Too many wrong passwords for {name}: its password logins are refused for {wait}. "
        "Try again then, or log in as a guest.", **p),
    ("locked", "address"): lambda **p: msg(
        "Too many wrong passwords from your address: password logins from it are refused for "
        "{wait}. Try again then, or log in as a guest.", **p),
    ("wait", "account"): lambda **p: msg(
        "A wrong password for {name} was typed a moment ago: wait {wait}, then log in again.", **p),
    ("wait", "address"): lambda **p: msg(
        "A wrong password came from your address a moment ago: wait {wait}, then log in again.",
        **p),
    ("busy", "account"): lambda **p: msg(
        "A password for {name} is being checked already: log in again in a moment.", **p),
    ("busy", "address"): lambda **p: msg(
        "A password from your address is being checked already: log in again in a moment.", **p),
}

#: What a line does in each state (none once done or closed): one table for
#: every dialogue, rather than bound methods made for each.
_LINE_HANDLERS = {
    "login": LoginDialogue._login,
    "password": LoginDialogue._password,
    "checking": LoginDialogue._type_ahead,
    "delayed": LoginDialogue._type_ahead,
    "confirm": LoginDialogue._confirm,
}
