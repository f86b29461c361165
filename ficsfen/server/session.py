"""A logged-in player: handle, language, output charset and board settings.

A :class:`Session` is what commands see as the caller (it provides
:class:`ficsfen.server.interfaces.IServerCaller`, an
:class:`ficsfen.interfaces.ICaller`).  It renders every message in its own
language and encodes it in its own charset, so one server talks French
UTF-8 to one player and plain ASCII English to another.  Commands reach the
server only through the narrow services it carries (``players``,
``boards``, ``games``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from zope.interface import implementer

from ficsfen.i18n import Message, render
from ficsfen.server.ivars import SHARED_DEFAULTS, default_ivars
from ficsfen.server.parsed import ParsedMessage
from ficsfen.server.interfaces import IBoards, IGameService, ILineConnection, IPlayers, IServerCaller

if TYPE_CHECKING:  # pragma: no cover
    from ficsfen.server.reply import Reply
    from ficsfen.server.timeseal import MoveTimer

__all__ = ["CHARSETS", "DEFAULT_PROMPT", "Services", "Session", "encode_text", "transliterate"]

#: FICS's prompt, which the ``defprompt`` ivar forces whatever the server's
#: configured prompt (clients find the end of each answer by it).
DEFAULT_PROMPT = "fics% "

CHARSETS = ("utf8", "latin1", "ascii")

# Characters NFKD does not reduce to ASCII but that have a usual spelling.
_ASCII_EXTRA = str.maketrans({
    "œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss", "ø": "o", "Ø": "O",
    "«": '"', "»": '"', "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'",
    "–": "-", "—": "-", "…": "...", "\u00a0": " ", "\u202f": " ", "€": "EUR",
})


# French guillemets hold a (no-break) space on their inner side: « X »
# becomes "X", not " X ".
_GUILLEMETS = re.compile("\u00ab[\u00a0\u202f ]|[\u00a0\u202f ]\u00bb")


def transliterate(text: str) -> str:
    """ASCII spelling of ``text``: accents dropped (é -> e), ligatures spelled out."""
    if text.isascii():
        return text
    if "\u00ab" in text or "\u00bb" in text:
        text = _GUILLEMETS.sub('"', text)
    text = text.translate(_ASCII_EXTRA)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).encode(
        "ascii", "replace").decode("ascii")


# Latin-1 has no U+202F (French spacing before : ; ! ? and inside « »), but
# it has U+00A0: a wider no-break space that still keeps "Coup" and ":" together.
_LATIN1_EXTRA = str.maketrans({"\u202f": "\u00a0"})


def encode_text(text: str, charset: str) -> bytes:
    """``text`` as bytes for a client reading ``charset`` (never raises)."""
    if charset == "utf8":
        return text.encode("utf-8")
    if charset == "latin1":
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            text = text.translate(_LATIN1_EXTRA)
            return "".join(c if ord(c) < 256 else transliterate(c) for c in text).encode(
                "latin-1", "replace")
    return transliterate(text).encode("ascii", "replace")


@dataclass(frozen=True, slots=True)
class Services:
    """What every session of a server carries for its commands (one shared instance).

    ``players`` provides :class:`IPlayers`, ``boards`` :class:`IBoards`,
    ``games`` :class:`IGameService`; ``ivars_changed(session)`` is told when
    a session's interface variables change; ``prompt`` is the server's prompt.

    :raises TypeError: a service does not provide its interface.
    """

    players: object
    boards: object
    games: object
    ivars_changed: Callable[[Session], None]
    prompt: str

    def __post_init__(self) -> None:
        for interface, service in ((IPlayers, self.players), (IBoards, self.boards),
                                   (IGameService, self.games)):
            if not interface.providedBy(service):
                raise TypeError(f"{service!r} does not provide {interface.__name__}")


@implementer(IServerCaller)
class Session:
    """One player's session; ``write`` puts bytes on their connection.

    ``services`` are the server's services commands use, each under its own
    narrow interface, and the server's prompt.
    """

    def __init__(self, services: Services, handle: str, *, write: Callable[[bytes], None],
                 close: Callable[[], None], lang: str, registered: bool = False,
                 peer: str = "", host: str = "") -> None:
        #: Who is logged in, and how to reach them (:class:`IPlayers`).
        self.players = services.players
        #: Showing games (:class:`IBoards`).
        self.boards = services.boards
        #: Starting and ending games, match offers, adjourned games (:class:`IGameService`).
        self.games = services.games
        self._ivars_changed = services.ivars_changed
        #: The server's prompt, which ``set prompt`` with no text goes back to.
        self.default_prompt = services.prompt
        #: The prompt this session would have without ``defprompt``.
        self.chosen_prompt = services.prompt
        self.handle = handle
        self.lang = lang
        self.registered = registered
        #: An operator (a registered account the store or ``[server] admins`` names):
        #: FICS's ``(*)`` after the handle, and the operator commands.
        self.admin = False
        #: May not shout, c-shout or it-shout (``muzzle``).
        self.muzzled = False
        self.peer = peer
        #: The address per-address limits count (the connection's ``host``; "" for
        #: a session with no connection, which they leave alone).
        self.host = host
        self.charset = "utf8"
        self.style = 1
        self.showfen = False
        #: Interface variables the client set (``iset``, ``%b``): see :mod:`.ivars`;
        #: the shared defaults until the first is set (read-only: change them
        #: with :meth:`set_ivar` or :meth:`preset_ivars`).
        self.ivars: Mapping[str, bool] = SHARED_DEFAULTS
        #: Whether the client speaks timeseal, and its last measured lag in
        #: milliseconds (set by the telnet side; style 12 and finger show it).
        self.timeseal = False
        self.lag_ms = 0
        #: A timeseal client's move timing (:class:`ficsfen.server.timeseal.MoveTimer`),
        #: or ``None``: moves are charged by the server's clock.
        self.move_timer: MoveTimer | None = None
        #: What ``set interface`` said (clients name themselves; finger shows it).
        self.interface = ""
        #: The time zone dates are shown in (``set tzone``; "": the server's own).
        self.tzone = ""
        #: Finger notes 1-10 (``set 1 TEXT``), "" for an unset one.
        self.notes: list[str] = []
        #: The player's own aliases (``alias``): folded name -> (name, text).
        self.aliases: dict[str, tuple[str, str]] = {}
        #: The answer to the command this session is running (:class:`ficsfen.server.reply.Reply`,
        #: opened and closed by the dispatcher): command output goes in it.
        self.reply: Reply | None = None
        #: Whether the session has been disconnected.
        self.closed = False
        #: When the session logged in (the server's clock), for ``finger``.
        self.login_time = 0.0
        #: Values of the ``set`` variables clients set that change nothing here
        #: (width, open, seek...), by name; ``variables`` lists them.
        self.variables: dict[str, int | bool] = {}
        #: A registered player's journal (``jsave``): slot (1-26) -> stored game id.
        self.journal: dict[int, int] = {}
        self._write = write
        self._close = close
        self._held: list[bytes] | None = None
        #: Optionally, the session's connection (an
        #: :class:`ficsfen.server.interfaces.ILineConnection`), whose class has a
        #: static ``write_all(connections, data)`` writing the same bytes to many at
        #: once; used by :meth:`emit_all`.  ``None``: :meth:`emit_all` calls ``write``.
        self.sink: ILineConnection | None = None

    def __repr__(self) -> str:
        return f"<Session {self.handle!r} lang={self.lang!r}>"

    def display_name(self) -> str:
        """The handle as FICS lists it: ``(*)`` marks an operator, ``(U)`` an unregistered
        player."""
        if self.admin:
            return f"{self.handle}(*)"
        return self.handle if self.registered else f"{self.handle}(U)"

    @property
    def is_interface(self) -> bool:
        """Whether a program reads this session, not a person: it speaks timeseal, or
        named itself (``set interface``), or set an interface variable (``iset``, ``%b``,
        block mode among them)."""
        return self.timeseal or bool(self.interface) or self.ivars is not SHARED_DEFAULTS

    @property
    def parsed_lang(self) -> str:
        """The language of texts ICS clients parse (``who`` lines, movelists, game
        ends...): exactly FICS's English while the session is an interface
        (:attr:`is_interface`), else the session's own language."""
        return "en" if self.is_interface else self.lang

    def render(self, message: Message | str) -> str:
        """``message`` in this session's language, or in :attr:`parsed_lang` when it is
        a text ICS clients parse (:func:`ficsfen.server.parsed.parsed`); a plain
        string passes through.  :func:`ficsfen.server.parsed.render_for`, inlined: every
        command's output comes here (``bench/load.py --compare``, the ``fen`` ratio)."""
        return render(message, self.parsed_lang if isinstance(message, ParsedMessage)
                      else self.lang)

    def send(self, message: Message | str) -> None:
        """Write ``message`` (possibly several lines) in the caller's language: command output.

        While a command runs it is part of its answer (:attr:`reply`).  The
        answer of a plain (not block-mode) command is written as it comes, as
        any output is, so only a block-mode frame goes through the reply: the
        path of every command's output, measured by ``bench/load.py --compare``
        (the ``fen`` CPU ratio to ``bench/floor_server.py``).
        """
        reply = self.reply
        if reply is not None and reply.frame is not None:
            reply.send(message)
            return
        text = self.render(message)
        if "\n" in text:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        self.emit(encode_text(text + "\r\n", self.charset))

    def write_text(self, text: str) -> None:
        """Write already rendered lines, each ended with CR LF: command output.

        While a command runs it goes into its answer (:attr:`reply`): in
        block mode into the frame being built, not on the wire.
        """
        reply = self.reply
        if reply is not None:
            reply.write_text(text)
            return
        if "\n" in text:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        self.emit(encode_text(text + "\r\n", self.charset))

    @property
    def answering(self) -> bool:
        """Whether what happens to this player now is part of the answer to their own
        command (it is running: they caused it), not a notification."""
        reply = self.reply
        return reply is not None and reply.answering

    def inform(self, message: Message | str) -> None:
        """Something that happened, for this player: part of the answer when their own
        command is running (they caused it), else a notification (:meth:`notify`)."""
        if self.answering:
            self.send(message)
        else:
            self.notify(message)

    def set_ivar(self, name: str, value: bool) -> None:
        """Set one interface variable and tell the server (it keeps who has ``pin`` on)."""
        self._own_ivars()[name] = value
        self._ivars_changed(self)

    def preset_ivars(self, values: Mapping[str, bool]) -> None:
        """Interface variables set before the session began (``%b`` at the login prompt)."""
        self._own_ivars().update(values)

    def _own_ivars(self) -> dict[str, bool]:
        """This session's own ivars, copied from the shared defaults at the first change."""
        if self.ivars is SHARED_DEFAULTS:
            self.ivars = default_ivars()
        return self.ivars  # type: ignore[return-value]  # a dict once owned

    @property
    def prompt_text(self) -> str:
        """The prompt written after each answer and asynchronous message.

        Read from the ivars each time: ``%b`` at login sets them directly.
        """
        return DEFAULT_PROMPT if self.ivars["defprompt"] else self.chosen_prompt

    def prompt(self) -> None:
        self.emit(encode_text(self.prompt_text, self.charset))

    def notify(self, message: Message | str) -> None:
        """An asynchronous message: on a fresh line, followed by the prompt.

        It is never part of a block-mode reply, even while one is being built.
        """
        self.emit(self.notification(self.render(message), self.charset, self.prompt_text))

    @staticmethod
    def notification(text: str, charset: str, prompt: str) -> bytes:
        """The bytes :meth:`notify` writes for rendered ``text``.

        A broadcast (a board for a thousand observers) builds them once per
        distinct text and charset and hands the same bytes to :meth:`emit`.
        """
        return encode_text("\r\n" + text.replace("\n", "\r\n") + "\r\n" + prompt, charset)

    def emit(self, data: bytes) -> None:
        """Write bytes already encoded for this session (see :meth:`notification`)."""
        if self._held is None:
            self._write(data)
        else:
            self._held.append(data)

    @staticmethod
    def emit_all(sessions: list[Session], data: bytes) -> None:
        """:meth:`emit` the same bytes to each of ``sessions`` (a board to its observers).

        Sessions with a :attr:`sink` are written in one call per kind of sink.
        """
        sinks: list[ILineConnection] = []
        for session in sessions:
            held = session._held
            if held is not None:
                held.append(data)
            elif session.sink is not None:
                sinks.append(session.sink)
            else:
                session._write(data)
        if sinks:
            kinds = {type(sink) for sink in sinks}
            for kind in kinds:
                group = sinks if len(kinds) == 1 else [s for s in sinks if type(s) is kind]
                kind.write_all(group, data)  # type: ignore[call-arg]  # static, as ILineConnection says

    def hold(self) -> None:
        """Collect output until :meth:`release`: a command's answer leaves in one write."""
        if self._held is None:
            self._held = []

    def release(self) -> None:
        held, self._held = self._held, None
        if held:
            self._write(b"".join(held))

    def disconnect(self) -> None:
        """Close the session: the answer in progress ends without a prompt ("quit" in
        block mode: its frame goes out first), held output is written, then the connection
        closes."""
        self.closed = True
        if self.reply is not None:
            self.reply.close(prompt=False)
        self.release()
        self._close()
