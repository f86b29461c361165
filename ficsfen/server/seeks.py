"""The seek table: ``seek``, ``unseek``, ``sought``, ``play``, FICS-style.

A seek is an advertisement for a game: ``seek 5 0`` posts one, others read
it in ``sought`` (and clients draw it on a seek graph from ``<s>`` lines),
``play 12`` answers it.  :func:`parse_seek` reads FICS's words,
:class:`Seeks` numbers and keeps the seeks, and :class:`SeekBoard` tells
the players: announcements for those with ``set seek 1``, the ``<s>``,
``<sr>`` and ``<sc>`` lines for those with the ``seekinfo`` ivar.

The lines clients parse (``<s>``, the announcement, the ``sought`` table)
are FICS's, in English; the rest is localized.  Each seek keeps its owner's
rating for its type (:class:`~ficsfen.server.rating_view.Shown`); ranges
check the rating of whoever would answer, for the seek's type.  A player
with no rated game in that category, and a guest, count as 0 (FICS's rule):
outside ``1400-1800``, inside the default ``0-9999``.

Which variants can be played is decided in one place,
:func:`check_playable`: a variant word is accepted and kept in the seek,
and a game in a variant the server cannot play yet is refused there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import chess
from twisted.logger import Logger

from ficsfen.i18n import Message, msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.names import fold
from ficsfen.server.challenges import ChallengeError, DEFAULT_TIME_CONTROL, time_control
from ficsfen.server.clock import TimeControl
from ficsfen.server.limits import seconds_left
from ficsfen.server.rates import AddressRate
from ficsfen.server.rated_games import RatedRefusedError, rated_offer
from ficsfen.server.rating_view import Shown
from ficsfen.server.variant_games import FICS_TYPES, variant_word

__all__ = [
    "BadSeekArgumentsError",
    "MAX_RATING",
    "MAX_SEEKS",
    "NoSuchSeekError",
    "OutOfRangeError",
    "PLAYABLE_VARIANTS",
    "Seek",
    "SeekBoard",
    "SeekError",
    "SeekLimitError",
    "SeekRateError",
    "SeekRequest",
    "Seeks",
    "UnplayableVariantError",
    "check_playable",
    "opposite",
    "parse_seek",
    "sought_text",
]

#: FICS lets one player post at most this many seeks.
MAX_SEEKS = 3
MAX_RATING = 9999


class SeekError(ChallengeError):
    """A refused seek command; :attr:`message` says why, for the one who typed it."""


class BadSeekArgumentsError(SeekError):
    """The words after ``seek`` do not read as a seek."""


class SeekLimitError(SeekError):
    """The player already has :data:`MAX_SEEKS` seeks, or the same one."""


class SeekRateError(SeekError):
    """More seeks came from the poster's address lately than ``[limits]
    address_seeks_per_minute`` allows."""


class NoSuchSeekError(SeekError):
    """``play``/``unseek`` names no seek available to the caller."""


class OutOfRangeError(SeekError):
    """The caller's rating is outside the seek's range."""


class UnplayableVariantError(SeekError):
    """The seek asks for a variant this server cannot play (yet)."""


_COLOURS = {"white": chess.WHITE, "w": chess.WHITE, "black": chess.BLACK, "b": chess.BLACK}

#: Variants this server can start a game in (standard chess is ``None``, always playable).
PLAYABLE_VARIANTS: frozenset[str] = frozenset(FICS_TYPES)


def check_playable(variant: str | None) -> None:
    """The one check of whether a game in ``variant`` can start here.

    :raises UnplayableVariantError: not yet (the seek itself is kept).
    """
    if variant is not None and variant not in PLAYABLE_VARIANTS:
        raise UnplayableVariantError(msg(
            "Sorry, {variant} games cannot be played on this server yet.", variant=variant))


@dataclass(frozen=True)
class SeekRequest:
    """What ``seek`` asked for."""

    time_control: TimeControl = DEFAULT_TIME_CONTROL
    colour: chess.Color | None = None
    #: FICS's type name of the variant (``crazyhouse``, ``wild/fr``), ``None`` for chess.
    variant: str | None = None
    manual: bool = False
    formula: bool = False
    low: int = 0
    high: int = MAX_RATING
    #: ``rated``/``unrated`` as typed (``None``: the ``rated`` variable decides); once
    #: posted, whether the game will be rated.
    rated: bool | None = None

    @property
    def type_name(self) -> str:
        """FICS's ``tp=``: the variant, else the speed category."""
        return self.variant or self.time_control.category

    def fits(self, rating: int) -> bool:
        return self.low <= rating <= self.high


def _number(word: str) -> int | None:
    return int(word) if word.isascii() and word.isdigit() else None


def _range(word: str) -> tuple[int, int] | None:
    low, dash, high = word.partition("-")
    if not dash:
        return None
    a, b = _number(low), _number(high)
    if a is None or b is None:
        return None
    return a, b


def parse_seek(args: str, *, default: TimeControl = DEFAULT_TIME_CONTROL) -> SeekRequest:
    """Read the arguments of ``seek``; raises :class:`BadSeekArgumentsError`.

    ``[TIME [INC]] [rated|unrated] [white|black] [VARIANT] [auto|manual]
    [formula] [MIN-MAX]`` in any order; a variant is ``zh``/``crazyhouse``,
    ``suicide``, ``losers``, ``atomic``, ``fr``, ``wild N`` or ``wN``.
    """
    words = args.split()
    numbers: list[int] = []
    colour: chess.Color | None = None
    variant: str | None = None
    manual = formula = False
    rated: bool | None = None
    low, high = 0, MAX_RATING
    i = 0
    while i < len(words):
        word = words[i]
        low_word = fold(word)
        value = _number(word)
        span = _range(word)
        i += 1
        if value is not None:
            if len(numbers) == 2:
                raise BadSeekArgumentsError(msg("Too many numbers: give at most a time and an increment."))
            numbers.append(value)
        elif span is not None:
            low, high = span
            if not low <= high <= MAX_RATING:
                raise BadSeekArgumentsError(msg(
                    "A rating range is MIN-MAX with MIN at most MAX and MAX at most {limit}.",
                    limit=MAX_RATING))
        elif low_word in _COLOURS:
            if colour is not None:
                raise BadSeekArgumentsError(msg("Give at most one colour (white or black)."))
            colour = _COLOURS[low_word]
        elif low_word in ("u", "unrated", "r", "rated"):
            wanted = low_word in ("r", "rated")
            if rated is not None and rated != wanted:
                raise BadSeekArgumentsError(msg("Give rated or unrated, not both."))
            rated = wanted
        elif low_word in ("a", "auto", "m", "manual"):
            manual = low_word[0] == "m"
        elif low_word in ("f", "formula"):
            formula = True
        else:
            name, i = variant_word(low_word, words, i)
            if name is None:
                raise BadSeekArgumentsError(msg(
                    "\"{word}\" is not a time, an increment, a colour, a variant or a rating range.",
                    word=word))
            if variant is not None:
                raise BadSeekArgumentsError(msg("Give at most one variant."))
            variant = name
    tc = time_control(numbers, default, error=BadSeekArgumentsError)
    return SeekRequest(tc, colour, variant, manual, formula, low, high, rated)


@dataclass(frozen=True)
class Seek:
    """A posted seek: its number, owner and terms."""

    id: int
    owner: str
    registered: bool
    request: SeekRequest
    #: The owner's rating for the seek's type as it was posted (``None``: no rating).
    shown: Shown | None = None
    #: A seek of another node of a cluster: that node's name and its number there
    #: (``id`` is this node's number for it); ``None`` for a seek posted here.
    node: str | None = None
    remote_id: int = 0

    @property
    def rating(self) -> int:
        """The owner's rating as ranges count it (0: none)."""
        return self.shown.value if self.shown is not None else 0

    @property
    def rating_text(self) -> str:
        """As FICS prints the owner's rating: ``1500``, ``----`` none (registered), ``++++``
        guest."""
        if self.shown is not None:
            return self.shown.text
        return "----" if self.registered else "++++"

    @property
    def rating_marked(self) -> str:
        """The ``<s>`` line's ``rt=`` field: the rating and its provshow mark (``1500P``)."""
        return self.shown.marked if self.shown is not None else "0P"

    def matches(self, other: Seek) -> bool:
        """Whether ``self`` and ``other`` pair at once (same terms, colours that fit)."""
        a, b = self.request, other.request
        if fold(self.owner) == fold(other.owner) or a.manual or b.manual:
            return False
        if (a.time_control, a.variant, bool(a.rated)) != (b.time_control, b.variant, bool(b.rated)):
            return False
        if (a.colour is None) != (b.colour is None) or (a.colour is not None and a.colour == b.colour):
            return False
        return a.fits(other.rating) and b.fits(self.rating)

    def _flags(self) -> str:
        r = self.request
        return ("m" if r.manual else "") + ("f" if r.formula else "")

    def _colour(self) -> str:
        c = self.request.colour
        return "" if c is None else ("[white]" if c == chess.WHITE else "[black]")

    def announcement(self) -> Message:
        """FICS's line to players with ``set seek 1`` (clients read it: FICS's English
        for an interface, the player's language for a person)."""
        r, tc = self.request, self.request.time_control
        kind = " ".join(w for w in (r.type_name, self._colour(), self._flags()) if w)
        return parsed(msg("{handle} ({rating}) seeking {minutes} {increment} {rated} {kind} "
                          "(\"play {number}\" to respond)", handle=self.owner,
                          rating=self.rating_text, minutes=tc.minutes, increment=tc.increment,
                          rated=msg("rated") if r.rated else msg("unrated"), kind=kind,
                          number=self.id))

    def info_line(self) -> str:
        """FICS's ``<s>`` line (``iset seekinfo 1``)."""
        r, tc = self.request, self.request.time_control
        colour = "?" if r.colour is None else ("W" if r.colour == chess.WHITE else "B")
        titles = 0 if self.registered else 1
        return (f"<s> {self.id} w={self.owner} ti={titles:02x} rt={self.rating_marked} t={tc.minutes} "
                f"i={tc.increment} r={'r' if r.rated else 'u'} tp={r.type_name} c={colour} rr={r.low}-{r.high} "
                f"a={'f' if r.manual else 't'} f={'t' if r.formula else 'f'}")

    def sought_line(self) -> str:
        """The seek's line in ``sought``, in FICS's columns."""
        r, tc = self.request, self.request.time_control
        line = (f"{self.id:3d} {self.rating_text:>4} {self.owner:<17} {tc.minutes:3d} "
                f"{tc.increment:3d} {'rated' if r.rated else 'unrated':<7} {r.type_name:<10} {self._colour():<7} "
                f"{r.low:4d}-{r.high:<4d} {self._flags()}")
        return line.rstrip()


@dataclass
class Seeks:
    """The posted seeks by number; a number freed is given again (FICS's lowest free)."""

    max_per_player: int = MAX_SEEKS
    _by_id: dict[int, Seek] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self):
        return iter(sorted(self._by_id.values(), key=lambda s: s.id))

    def get(self, number: int) -> Seek | None:
        return self._by_id.get(number)

    def by(self, handle: str) -> list[Seek]:
        key = fold(handle)
        return [s for s in self if fold(s.owner) == key]

    def _free_id(self) -> int:
        n = 1
        while n in self._by_id:
            n += 1
        return n

    def check(self, owner: str, request: SeekRequest) -> None:
        """:class:`SeekLimitError` if ``owner`` may not post ``request`` now: beyond the
        limit, or the same terms again."""
        mine = self.by(owner)
        if any(s.request == request for s in mine):
            raise SeekLimitError(msg("You already have an active seek with the same parameters."))
        if len(mine) >= self.max_per_player:
            raise SeekLimitError(msg("You can only have {count} active seeks.",
                                     count=self.max_per_player))

    def add(self, owner: str, request: SeekRequest, *, registered: bool,
            rating: Shown | None = None) -> Seek:
        """Post a seek, ``rating`` its owner's for its type (:class:`SeekLimitError` beyond
        the limit or for the same terms again)."""
        self.check(owner, request)
        seek = Seek(self._free_id(), owner, registered, request, rating)
        self._by_id[seek.id] = seek
        return seek

    def add_remote(self, node: str, remote_id: int, owner: str, request: SeekRequest, *,
                   registered: bool, rating: Shown | None) -> Seek:
        """List a seek of another node under a number of this node's (no limit applies:
        its node checked them)."""
        seek = Seek(self._free_id(), owner, registered, request, rating, node, remote_id)
        self._by_id[seek.id] = seek
        return seek

    def remove(self, number: int) -> Seek | None:
        return self._by_id.pop(number, None)

    def matching(self, seek: Seek, refuses: Callable[[str, str], bool]) -> Seek | None:
        """The oldest other seek ``seek`` pairs with (neither owner refusing the other)."""
        for other in self:
            if (other.id != seek.id and other.node is None and seek.matches(other)
                    and not refuses(other.owner, seek.owner) and not refuses(seek.owner, other.owner)):
                return other
        return None


class SeekBoard:
    """The seeks of a server and who hears of them.

    ``sessions()`` lists the logged-in sessions; ``is_busy(handle)`` says
    whether they play or examine (FICS shows seeks only to the free);
    ``refuses(receiver, sender)`` whether a censor/noplay list stops it;
    ``tell(handle, text)`` writes to one player.  ``limiter`` bounds the
    seeks posted from each address (the poster's ``host``), so that posting
    and removing seeks in a loop announces no more than it allows.
    """

    log = Logger()

    def __init__(self, *, sessions: Callable[[], Iterable[Any]], is_busy: Callable[[str], bool],
                 refuses: Callable[[str, str], bool], tell: Callable[[str, Message | str], None],
                 rating: Callable[[str, str], Shown] | None = None,
                 max_per_player: int = MAX_SEEKS, limiter: AddressRate | None = None) -> None:
        self.seeks = Seeks(max_per_player)
        self.limiter = limiter
        self._sessions = sessions
        self._is_busy = is_busy
        self._refuses = refuses
        self._tell = tell
        #: ``rating(handle, type)``: a player's rating for a seek's type (none by default).
        self.rating: Callable[[str, str], Shown] = rating if rating is not None else _no_rating
        #: The other nodes of a cluster (``ficsfen.server.cluster.seeks.ClusterSeeks``): told
        #: of the seeks posted and removed here; None when the server is alone.
        self.elsewhere: Any = None

    def _fits(self, seek: Seek, handle: str) -> bool:
        """Whether ``handle``'s rating for the seek's type is in its range."""
        return seek.request.fits(self.rating(handle, seek.request.type_name).value)

    def visible_to(self, seek: Seek, handle: str) -> bool:
        """Whether ``handle`` may answer ``seek``: in its range, not refused either way."""
        return (fold(handle) != fold(seek.owner) and self._fits(seek, handle)
                and not self._refuses(seek.owner, handle) and not self._refuses(handle, seek.owner))

    def post(self, owner: Any, request: SeekRequest) -> tuple[Seek, Seek | None]:
        """Post ``owner``'s seek; the seek it pairs with at once, or ``None``.

        A seek that pairs is not announced (the game starts instead).

        :raises SeekLimitError: the poster's own limit; :raises SeekRateError:
            their address's (nothing is posted nor counted).
        """
        try:
            rated = rated_offer(request.rated, default=bool(owner.variables.get("rated", False)),
                                registered=owner.registered, opponent_registered=None,
                                time_control=request.time_control, variant=request.variant)
        except RatedRefusedError as e:
            raise BadSeekArgumentsError(e.message) from None
        request = replace(request, rated=rated)
        self.seeks.check(owner.handle, request)
        if self.limiter is not None:
            host = owner.host
            over = self.limiter.take(host)
            if over is not None:
                if over.report:
                    self.log.warn("seek rate limit: more than {count} seeks a minute from address "
                                  "{host} (limits.address_seeks_per_minute; last from {handle}); "
                                  "more refusals for this address within a minute are not logged",
                                  count=over.count, host=host, handle=owner.handle)
                wait = seconds_left(over.until, self.limiter.clock.seconds())
                raise SeekRateError(msgn(
                    "Too many seeks are being posted from your address. Wait {count} second "
                    "before posting another.",
                    "Too many seeks are being posted from your address. Wait {count} seconds "
                    "before posting another.", wait))
        seek = self.seeks.add(owner.handle, request, registered=owner.registered,
                              rating=self.rating(owner.handle, request.type_name))
        partner = self.seeks.matching(seek, self._refuses)
        return seek, partner

    def announce(self, seek: Seek) -> int:
        """Tell everyone free of a new ``seek``; how many read its announcement."""
        info, line, count = seek.info_line(), seek.announcement(), 0
        owner = fold(seek.owner)
        for session in list(self._sessions()):
            handle = session.handle
            own = fold(handle) == owner
            if self._is_busy(handle) or (own and not session.ivars["showownseek"]):
                continue
            if session.ivars["seekinfo"]:
                self._tell(handle, info)
            if (not own and session.variables.get("seek", True)
                    and self.visible_to(seek, handle)):
                self._tell(handle, line)
                count += 1
        if seek.node is None and self.elsewhere is not None:
            self.elsewhere.posted(seek)
        return count

    def remove(self, seeks: Iterable[Seek]) -> None:
        """Take ``seeks`` away; ``<sr>`` to the ``seekinfo`` sessions."""
        gone = [s for s in seeks if self.seeks.remove(s.id) is not None]
        ids = [s.id for s in gone]
        if not ids:
            return
        if self.elsewhere is not None:
            self.elsewhere.removed([s for s in gone if s.node is None])
        line = "<sr> " + " ".join(map(str, ids))
        for session in list(self._sessions()):
            if session.ivars["seekinfo"]:
                self._tell(session.handle, line)

    def drop(self, handle: str) -> None:
        """``handle`` starts a game or leaves: their seeks vanish."""
        self.remove(self.seeks.by(handle))

    def listing(self, handle: str | None) -> list[Seek]:
        """The seeks ``sought`` lists: those ``handle`` may answer (and their own), or all."""
        if handle is None:
            return list(self.seeks)
        return [s for s in self.seeks
                if fold(s.owner) == fold(handle) or self.visible_to(s, handle)]

    def refresh(self, session: Any) -> None:
        """``iset seekinfo 1``: ``<sc>`` then every current seek's ``<s>`` line."""
        lines = ["<sc>"] + [s.info_line() for s in self.seeks
                            if fold(s.owner) != fold(session.handle) or session.ivars["showownseek"]]
        self._tell(session.handle, "\n".join(lines))

    def find(self, caller: str, word: str, owners: Callable[[str], str]) -> Seek:
        """The seek ``play WORD`` means: a number, or the one seek of a player.

        ``owners(word)`` resolves a handle (raising the name resolver's error).
        """
        number = _number(word)
        if number is not None:
            seek = self.seeks.get(number)
            if seek is None:
                raise NoSuchSeekError(msg("That seek is not available."))
        else:
            handle = owners(word)
            theirs = self.seeks.by(handle)
            if not theirs:
                raise NoSuchSeekError(msg("{handle} isn't seeking any games.", handle=handle))
            if len(theirs) > 1:
                raise NoSuchSeekError(msg("{handle} is seeking several games; give the number.",
                                          handle=handle))
            seek = theirs[0]
        if fold(seek.owner) == fold(caller):
            raise NoSuchSeekError(msg("You cannot respond to your own seek."))
        if not self._fits(seek, caller):
            raise OutOfRangeError(msg("You do not fit the rating range of that seek ({low}-{high}).",
                                      low=seek.request.low, high=seek.request.high))
        return seek


def _no_rating(handle: str, kind: str) -> Shown:
    """A server without ratings: nobody has one (``----``, counted as 0)."""
    return Shown("----")


def opposite(colour: chess.Color | None) -> chess.Color | None:
    return None if colour is None else not colour


def sought_text(seeks: list[Seek]) -> list[Message | str]:
    """``sought``'s lines: one per seek, then FICS's count line."""
    return [s.sought_line() for s in seeks] + [
        parsed(msgn("{count} ad displayed.", "{count} ads displayed.", len(seeks)))]
