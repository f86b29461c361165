"""Match offers: ``match``, ``accept``, ``decline``, ``withdraw``, ``pending``.

:func:`parse_match` reads ``HANDLE [TIME [INC]] [white|black] [rated|unrated]``
(any order after the handle; ``r`` and ``u`` for short).  Defaults are FICS's default ``time`` and
``inc`` variables, 2 minutes and 12 seconds; a lone number is the time with
no increment.  ``0 0`` is an untimed game.

:class:`Challenges` keeps the pending offers.  It never writes to anyone:
every action returns the :class:`Notice` values the host delivers, and bad
requests raise a :class:`ChallengeError` whose :attr:`~ChallengeError.message`
is the localized text for the person who asked.
"""

from __future__ import annotations

import itertools
import math
import random
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable

import chess

from twisted.logger import Logger

from ficsfen.i18n import LocalizedError, Message, msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.names import NameResolutionError, fold, resolve_handle
from ficsfen.server.clock import TimeControl
from ficsfen.server.limits import compact, expire, seconds_left, times
from ficsfen.server.rates import AddressRate
from ficsfen.server.variant_games import variant_word

__all__ = [
    "AmbiguousOfferError",
    "BadMatchArgumentsError",
    "Challenge",
    "ChallengeError",
    "Challenges",
    "DEFAULT_TIME_CONTROL",
    "DuplicateChallengeError",
    "MatchRequest",
    "NoSuchOfferError",
    "Notice",
    "OfferLimiter",
    "OfferRateError",
    "PlayerBusyError",
    "RefusedChallengeError",
    "SelfChallengeError",
    "UnknownPlayerError",
    "next_offer_id",
    "offer_notices",
    "parse_match",
    "removal_notices",
    "time_control",
]

DEFAULT_TIME_CONTROL = TimeControl(minutes=2, increment=12)
MAX_MINUTES = 999
MAX_INCREMENT = 999

_COLOURS = {"white": chess.WHITE, "w": chess.WHITE, "black": chess.BLACK, "b": chess.BLACK}


class ChallengeError(LocalizedError):
    """A refused match request; :attr:`message` says why, for the requester."""


class BadMatchArgumentsError(ChallengeError):
    """The words after ``match`` do not read as a handle and a time control."""


class SelfChallengeError(ChallengeError):
    """Challenging oneself."""


class UnknownPlayerError(ChallengeError):
    """Nobody by that name is logged in."""


class PlayerBusyError(ChallengeError):
    """One of the two is already playing."""


class DuplicateChallengeError(ChallengeError):
    """The same offer is already pending."""


class NoSuchOfferError(ChallengeError):
    """``accept``/``decline``/``withdraw`` with nothing matching pending."""


class AmbiguousOfferError(ChallengeError):
    """Several offers pending and no handle given."""


class RefusedChallengeError(ChallengeError):
    """The receiver refuses the challenger (``noplay`` or ``censor`` list)."""


class OfferRateError(ChallengeError):
    """The sender made more offers in the last minute than the server allows."""


class OfferLimiter:
    """At most ``per_minute`` offers (match requests and in-game offers) per sender
    in any 60 seconds of ``now()`` (0: no limit), and, with ``per_address``, at
    most what that :class:`~ficsfen.server.rates.AddressRate` allows from the
    address ``address(sender)`` names ("": none, not limited).

    A refused offer is not counted, so a sender who keeps trying gets in
    again as soon as their oldest counted offer is a minute old.  The
    operator's log gets one line each time a sender starts being refused,
    and one a minute at most per refused address.
    """

    WINDOW = 60.0
    log = Logger()

    def __init__(self, now: Callable[[], float], *, per_minute: int = 0,
                 per_address: AddressRate | None = None,
                 address: Callable[[str], str] = lambda sender: "") -> None:
        self.now = now
        self.per_minute = per_minute
        self.per_address = per_address
        self.address = address
        self._sent: dict[str, array] = {}  # limits.times(): see there why not a deque
        self._refusing: set[str] = set()

    def __len__(self) -> int:
        return len(self._sent)

    def check(self, sender: str) -> None:
        """Count one offer by ``sender``, or raise :class:`OfferRateError`."""
        now = self.now()
        sent = None
        if self.per_minute > 0:
            key = fold(sender)
            sent = self._sent.get(key)
            if sent is None:
                sent = self._sent[key] = times()
            expire(sent, self.WINDOW, now)
            if len(sent) >= self.per_minute:
                if key not in self._refusing:
                    self._refusing.add(key)
                    self.log.warn("{what} rate limit: {handle} made {count} {what}s within {window:.0f} s;"
                                  " further {what}s refused for now", what=self.what, handle=sender,
                                  count=len(sent), window=self.WINDOW)
                raise self.refusal(max(1, math.ceil(sent[0] + self.WINDOW - now)))
            self._refusing.discard(key)
        if self.per_address is not None:
            host = self.address(sender)
            over = self.per_address.take(host)
            if over is not None:
                if over.report:
                    self.log.warn("{what} rate limit: more than {count} {what}s a minute from address "
                                  "{host} (limits.{setting}; last from {handle}); more refusals for "
                                  "this address within a minute are not logged", what=self.what,
                                  count=over.count, host=host, setting=self.setting, handle=sender)
                raise self.address_refusal(seconds_left(over.until, now))
        if sent is not None:
            sent.append(now)

    #: What is counted, for the operator's log, and the setting of its per-address rate.
    what = "offer"
    setting = "address_offers_per_minute"

    def refusal(self, wait: int) -> OfferRateError:
        """The error for a sender refused for ``wait`` more seconds (subclasses reword it)."""
        return OfferRateError(msgn(
            "You are making offers too quickly. Wait {count} second before making another.",
            "You are making offers too quickly. Wait {count} seconds before making another.",
            wait))

    def address_refusal(self, wait: int) -> OfferRateError:
        """The error for a sender whose address is refused for ``wait`` more seconds."""
        return OfferRateError(msgn(
            "Too many offers are being made from your address. Wait {count} second before "
            "making another.",
            "Too many offers are being made from your address. Wait {count} seconds before "
            "making another.", wait))

    def sweep(self) -> None:
        """Drop the senders with no counted offer in the last minute (logged out or not):
        a spammer's count outlives its logout by a minute, not for ever; and the
        addresses :attr:`per_address` no longer needs."""
        since = self.now() - self.WINDOW
        for key in [k for k, sent in self._sent.items() if not sent or sent[-1] <= since]:
            del self._sent[key]
            self._refusing.discard(key)
        compact(self._sent)
        if self.per_address is not None:
            self.per_address.sweep()

    def forget(self, sender: str) -> None:
        """Drop what is known of ``sender`` once a minute has passed (logout)."""
        key = fold(sender)
        sent = self._sent.get(key)
        if sent is None or (sent and sent[-1] > self.now() - self.WINDOW):
            return
        del self._sent[key]
        self._refusing.discard(key)


@dataclass(frozen=True)
class MatchRequest:
    """What ``match`` asked for: opponent as typed, time control, wanted colour."""

    opponent: str
    time_control: TimeControl = DEFAULT_TIME_CONTROL
    colour: chess.Color | None = None
    #: FICS's type name of the variant asked for (``crazyhouse``, ``wild/fr``), ``None``: chess.
    variant: str | None = None
    #: ``rated``/``unrated`` as typed; ``None``: the player's ``rated`` variable decides.
    rated: bool | None = None


@dataclass(frozen=True)
class Notice:
    """One message for one person, produced by an action for the host to send.

    ``ivar`` names an interface variable the person must have set to get it
    (``pendinfo`` for the ``<pt>``/``<pf>``/``<pr>`` lines clients track
    offers by); ``None`` for what everyone gets.
    """

    handle: str
    message: Message
    ivar: str | None = None


# One numbering for every offer, match or in-game: clients answer
# ``accept 12``/``decline 12`` by it, and FICS never reuses a number soon.
_offer_ids = itertools.count(1)


def no_rating(handle: str, kind: str) -> str:
    """The rating of a server without ratings: FICS's ``----``."""
    return "----"


def next_offer_id() -> int:
    """A fresh offer number (FICS's pendinfo index)."""
    return next(_offer_ids)


def offer_notices(offer_id: int, by: str, to: str, kind: str, params: str) -> list[Notice]:
    """FICS's ``<pt>`` (to the one who offers) and ``<pf>`` (to the one offered) lines.

    Kept in English: clients (pychess, Jin) parse them.
    """
    return [Notice(by, _verbatim(f"<pt> {offer_id} w={to} t={kind} p={params}"), "pendinfo"),
            Notice(to, _verbatim(f"<pf> {offer_id} w={by} t={kind} p={params}"), "pendinfo")]


def removal_notices(offer_id: int, *handles: str) -> list[Notice]:
    """FICS's ``<pr>`` line: the offer was accepted, declined, withdrawn or removed."""
    return [Notice(handle, _verbatim(f"<pr> {offer_id}"), "pendinfo") for handle in handles]


def _verbatim(text: str) -> Message:
    """``text`` as a message no catalog translates (a line clients parse)."""
    return Message(text)


def _number(word: str) -> int | None:
    return int(word) if word.isascii() and word.isdigit() else None


def parse_match(args: str, *, default: TimeControl = DEFAULT_TIME_CONTROL) -> MatchRequest:
    """Read the arguments of ``match``; raises :class:`BadMatchArgumentsError`."""
    words = args.split()
    if not words:
        raise BadMatchArgumentsError(msg("Whom do you want to challenge? Usage: match HANDLE [TIME INC] [white|black]"))
    opponent, rest = words[0], words[1:]
    numbers: list[int] = []
    colour: chess.Color | None = None
    variant: str | None = None
    rated: bool | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        low = fold(word)
        value = _number(word)
        if value is not None:
            if len(numbers) == 2:
                raise BadMatchArgumentsError(msg("Too many numbers: give at most a time and an increment."))
            numbers.append(value)
        elif low in _COLOURS:
            if colour is not None:
                raise BadMatchArgumentsError(msg("Give at most one colour (white or black)."))
            colour = _COLOURS[low]
        elif low in ("u", "unrated", "r", "rated"):
            wanted = low in ("r", "rated")
            if rated is not None and rated != wanted:
                raise BadMatchArgumentsError(msg("Give rated or unrated, not both."))
            rated = wanted
        else:
            name, i = variant_word(low, rest, i)
            if name is None:
                raise BadMatchArgumentsError(msg("\"{word}\" is not a time, an increment or a colour.",
                                                 word=word))
            if variant is not None:
                raise BadMatchArgumentsError(msg("Give at most one variant."))
            variant = name
    return MatchRequest(opponent, time_control(numbers, default), colour, variant, rated)


def time_control(numbers: list[int], default: TimeControl = DEFAULT_TIME_CONTROL, *,
                 error: type[ChallengeError] = BadMatchArgumentsError) -> TimeControl:
    """The time control ``TIME [INC]`` typed as ``numbers`` (``match``, ``seek``), or
    ``default`` when none was; a bad one raises ``error``."""
    if not numbers:
        return default
    minutes = numbers[0]
    increment = numbers[1] if len(numbers) > 1 else 0
    if minutes > MAX_MINUTES or increment > MAX_INCREMENT:
        raise error(msg("Time and increment must be at most {limit}.", limit=MAX_MINUTES))
    if minutes == 0 and increment != 0:
        raise error(msg("A game with an increment needs at least one minute of time."))
    return TimeControl(minutes=minutes, increment=increment)


@dataclass(frozen=True)
class Challenge:
    """A pending offer from ``challenger`` to ``receiver``."""

    challenger: str
    receiver: str
    time_control: TimeControl = DEFAULT_TIME_CONTROL
    colour: chess.Color | None = None  # the colour the challenger asked for
    #: The offer's number, for ``accept N`` and the pendinfo lines.
    id: int = field(default_factory=next_offer_id, compare=False)
    #: An offer to resume the two players' adjourned game (FICS's ``(adjourned)``).
    adjourned: bool = False
    #: FICS's type name of the variant (``crazyhouse``, ``wild/fr``), ``None`` for chess.
    variant: str | None = None
    #: A rated game (both registered, agreed): decided before the offer is made.
    rated: bool = False

    @property
    def type_name(self) -> str:
        """FICS's one word for the game: the variant, else the speed category."""
        return self.variant or self.time_control.category

    def describe(self, rating: Callable[[str, str], str] = no_rating) -> Message:
        """FICS wording body: ``alice (1500) [white] bob (----) rated blitz 5 0``
        (``unrated crazyhouse 3 0`` for a variant); ``rating(handle, type)`` gives
        each player's four characters for the game's type."""
        colour = "" if self.colour is None else (" [white]" if self.colour else " [black]")
        kind = self.type_name
        terms = parsed(msg("{challenger} ({challenger_rating}){colour} {receiver} "
                           "({receiver_rating}) {rated} {category} {minutes} {increment}",
                           challenger=self.challenger,
                           challenger_rating=rating(self.challenger, kind), colour=colour,
                           receiver=self.receiver, receiver_rating=rating(self.receiver, kind),
                           rated=msg("rated") if self.rated else msg("unrated"),
                           category=kind, minutes=self.time_control.minutes,
                           increment=self.time_control.increment))
        return parsed(msg("{terms} (adjourned)", terms=terms)) if self.adjourned else terms

    def same_terms(self, other: Challenge) -> bool:
        return (self.time_control == other.time_control and self.colour == other.colour
                and self.adjourned == other.adjourned and self.variant == other.variant
                and self.rated == other.rated)

    def colours(self, rng: random.Random) -> tuple[str, str]:
        """(white, black) handles: the asked colour, else drawn at random."""
        colour = self.colour if self.colour is not None else rng.random() < 0.5
        if colour == chess.WHITE:
            return self.challenger, self.receiver
        return self.receiver, self.challenger


def _challenger(challenge: Challenge) -> str:
    return challenge.challenger


def _receiver(challenge: Challenge) -> str:
    return challenge.receiver


class Challenges:
    """The pending match offers of a server.

    ``handles()`` lists the logged-in handles, among which typed names are
    resolved (:func:`ficsfen.names.resolve_handle`); without it, names are
    taken as typed.  ``is_busy(handle)`` says whether they are playing (or
    examining: ``is_examining(handle)`` tells which, as FICS's refusals do).
    """

    def __init__(
        self,
        *,
        handles: Callable[[], Iterable[str]] | None = None,
        is_busy: Callable[[str], bool] = lambda handle: False,
        is_examining: Callable[[str], bool] = lambda handle: False,
        rng: random.Random | None = None,
        refusal: Callable[[str, str], Message | None] = lambda receiver, sender: None,
        limiter: OfferLimiter | None = None,
        rating: Callable[[str, str], str] | None = None,
    ) -> None:
        self._handles = handles
        #: ``rating(handle, type)``: a player's four rating characters for a game's type.
        self.rating = rating if rating is not None else no_rating
        self._is_busy = is_busy
        self._is_examining = is_examining
        #: Why a receiver refuses a sender (their noplay or censor list), or ``None``.
        self._refusal = refusal
        #: Offers per sender and minute (shared with the games' in-game offers).
        self.limiter = limiter
        self.rng = rng if rng is not None else random.Random()
        self._offers: dict[tuple[str, str], Challenge] = {}

    def __len__(self) -> int:
        return len(self._offers)

    def to(self, handle: str) -> list[Challenge]:
        """Offers received by ``handle``, oldest first."""
        return [c for c in self._offers.values() if c.receiver == handle]

    def by(self, handle: str) -> list[Challenge]:
        """Offers made by ``handle``, oldest first."""
        return [c for c in self._offers.values() if c.challenger == handle]

    def _handle(self, name: str) -> str:
        """The logged-in handle ``name`` names; :class:`UnknownPlayerError` says why there is none."""
        if self._handles is None:
            return name
        try:
            return resolve_handle(name, self._handles())
        except NameResolutionError as e:
            raise UnknownPlayerError(e.message) from None

    def _busy(self, handle: str) -> Message:
        """Why ``handle`` (busy) cannot be challenged, in FICS's words."""
        if self._is_examining(handle):
            return msg("{handle} is examining a game.", handle=handle)
        return msg("{handle} is playing a game.", handle=handle)

    # -- actions -----------------------------------------------------------

    def offer(self, challenger: str, request: MatchRequest, *,
              adjourned: bool = False, rated: bool = False) -> tuple[Challenge, list[Notice]]:
        """Record ``challenger``'s match request; notices for both players.

        ``adjourned``: a request to resume their adjourned game (its terms);
        ``rated``: whether the game will be rated (the host decided it,
        :func:`ficsfen.server.rated_games.rated_offer`).
        """
        receiver = self._handle(request.opponent)
        if receiver == challenger:
            raise SelfChallengeError(msg("You cannot challenge yourself."))
        refused = self._refusal(receiver, challenger)
        if refused is not None:  # the receiver never hears of it
            raise RefusedChallengeError(refused)
        if self._is_busy(challenger):
            raise PlayerBusyError(msg("You are already playing a game."))
        if self._is_busy(receiver):
            raise PlayerBusyError(self._busy(receiver))
        challenge = Challenge(challenger, receiver, request.time_control, request.colour,
                              adjourned=adjourned, variant=request.variant, rated=rated)
        key = (challenger, receiver)
        previous = self._offers.get(key)
        if previous is not None and previous.same_terms(challenge):
            raise DuplicateChallengeError(msg("You are already offering {handle} a match on these terms.",
                                         handle=receiver))
        if self.limiter is not None:
            self.limiter.check(challenger)
        # Re-inserting keeps offers in the order they were last made.
        self._offers.pop(key, None)
        self._offers[key] = challenge
        notices = []
        if previous is not None:
            notices.append(Notice(challenger, parsed(msg("Updating the offer already made to {handle}.",
                                                  handle=receiver))))
            notices.append(Notice(receiver, parsed(msg("{handle} updates the match offer.", handle=challenger))))
            notices += removal_notices(previous.id, challenger, receiver)
        notices.append(Notice(challenger, parsed(msg("Issuing: {terms}.", terms=challenge.describe(self.rating)))))
        notices.append(Notice(receiver, parsed(msg(
            "Challenge: {terms}.\nYou can \"accept\" or \"decline\", or propose different parameters.",
            terms=challenge.describe(self.rating)))))
        notices += offer_notices(challenge.id, challenger, receiver, "match",
                                 challenge.describe(self.rating).render("en"))
        return challenge, notices

    def _pick(self, offers: list[Challenge], name: str | None, *, none: Message,
              role: Callable[[Challenge], str]) -> Challenge:
        if name and name.isascii() and name.isdigit():  # an offer number (pendinfo's index)
            for challenge in offers:
                if challenge.id == int(name):
                    return challenge
            raise NoSuchOfferError(msg("There is no offer {number} for you.", number=int(name)))
        if name:
            try:
                handle = self._handle(name)
            except UnknownPlayerError:
                handle = name  # nobody logged in by that name: no offer with them either
            found = [c for c in offers if role(c) == handle]
            if not found:
                raise NoSuchOfferError(msg("There is no offer pending with {name}.", name=name))
            return found[0]
        if not offers:
            raise NoSuchOfferError(none)
        if len(offers) > 1:
            names = ", ".join(role(c) for c in offers)
            raise AmbiguousOfferError(msg("Several offers are pending ({names}): name the player.",
                                     names=names))
        return offers[0]

    def accept(self, receiver: str, name: str | None = None) -> tuple[Challenge, list[Notice]]:
        """``receiver`` accepts an offer; the host then starts the game.

        All other offers made by or to either player are withdrawn (their
        notices are included), as FICS does when a game starts.
        """
        challenge = self._pick(self.to(receiver), name,
                               none=msg("You have no match offers to accept."), role=_challenger)
        if self._is_busy(challenge.challenger):
            raise PlayerBusyError(self._busy(challenge.challenger))
        del self._offers[(challenge.challenger, challenge.receiver)]
        notices = [Notice(receiver, parsed(msg("You accept the match offer from {handle}.",
                                        handle=challenge.challenger))),
                   Notice(challenge.challenger, parsed(msg("{handle} accepts the match offer.", handle=receiver))),
                   *removal_notices(challenge.id, receiver, challenge.challenger)]
        for handle in (challenge.challenger, receiver):
            notices += self.drop(handle)
        return challenge, notices

    def decline(self, receiver: str, name: str | None = None) -> list[Notice]:
        """Refuse an offer to ``receiver`` (from ``name``, or the only one); notices for both."""
        challenge = self._pick(self.to(receiver), name,
                               none=msg("You have no match offers to decline."), role=_challenger)
        del self._offers[(challenge.challenger, challenge.receiver)]
        return [
            Notice(receiver, parsed(msg("You decline the match offer from {handle}.", handle=challenge.challenger))),
            Notice(challenge.challenger, parsed(msg("{handle} declines the match offer.", handle=receiver))),
            *removal_notices(challenge.id, receiver, challenge.challenger),
        ]

    def withdraw(self, challenger: str, name: str | None = None) -> list[Notice]:
        """Take back an offer by ``challenger`` (to ``name``, or the only one); notices for both."""
        challenge = self._pick(self.by(challenger), name,
                               none=msg("You have no match offers to withdraw."), role=_receiver)
        del self._offers[(challenge.challenger, challenge.receiver)]
        return [
            Notice(challenger, parsed(msg("You withdraw the match offer to {handle}.", handle=challenge.receiver))),
            Notice(challenge.receiver, parsed(msg("{handle} withdraws the match offer.", handle=challenger))),
            *removal_notices(challenge.id, challenger, challenge.receiver),
        ]

    def drop(self, handle: str) -> list[Notice]:
        """Remove every offer by or to ``handle`` (logout, game start); notices for the others."""
        notices = []
        for key, c in list(self._offers.items()):
            if handle in key:
                del self._offers[key]
                other = c.receiver if c.challenger == handle else c.challenger
                notices.append(Notice(other, parsed(msg("The match offer between {challenger} and {receiver} "
                                                 "has been removed.",
                                                 challenger=c.challenger, receiver=c.receiver))))
                notices += removal_notices(c.id, c.challenger, c.receiver)
        return notices

    def pending(self, handle: str) -> list[Message]:
        """The ``pending`` listing for ``handle`` as lines of messages."""
        lines: list[Message] = []
        sent = self.by(handle)
        received = self.to(handle)
        if sent:
            lines.append(parsed(msg("Offers to other players:")))
            lines += [parsed(msg("  {terms}.", terms=c.describe(self.rating))) for c in sent]
        else:
            lines.append(parsed(msg("There are no offers pending to other players.")))
        if received:
            lines.append(parsed(msg("Offers from other players:")))
            lines += [parsed(msg("  {terms}.", terms=c.describe(self.rating))) for c in received]
        else:
            lines.append(parsed(msg("There are no offers pending from other players.")))
        return lines
