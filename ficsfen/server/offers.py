"""In-game offers: draw, abort, adjourn and takeback between a game's two players.

:class:`GameOffers` keeps one game's pending offers and says, as
:class:`~ficsfen.server.challenges.Notice` values, what each change tells
each player (FICS's words, and the ``pendinfo`` lines clients track offers
by): FICS calls the in-game ones requests (``bob declines the draw
request.``), and clients match those words.  Accepting an offer is the game's business
(:meth:`ficsfen.server.games.PlayedGame.accept`): it ends, adjourns or
takes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ficsfen.i18n import Message, msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.server.challenges import Notice, next_offer_id, offer_notices, removal_notices
from ficsfen.server.game_errors import NoOfferError, OfferPendingError

__all__ = ["OFFER_NAMES", "GameOffers", "Offer", "OfferActions"]


#: The word of each kind of offer, as FICS's lines name it.
OFFER_NAMES = {
    "draw": msg("draw"),
    "abort": msg("abort"),
    "adjourn": msg("adjourn"),
    "takeback": msg("takeback"),
}


@dataclass(frozen=True)
class Offer:
    """A pending in-game offer: ``kind`` from ``by``; ``plies`` for takebacks."""

    kind: str
    by: str
    plies: int = 0
    #: The offer's number (``accept N``, the pendinfo lines), shared with match offers.
    id: int = field(default_factory=next_offer_id, compare=False)

    @property
    def params(self) -> str:
        """The ``p=`` field of its pendinfo lines: the half-moves of a takeback, else ``#``."""
        return str(self.plies) if self.kind == "takeback" else "#"

    def describe(self) -> Message:
        if self.kind == "takeback":
            return parsed(msgn("{by} asks to take back {count} half-move",
                        "{by} asks to take back {count} half-moves", self.plies, by=self.by))
        return parsed(msg("{by} offers to {what}", by=self.by, what=OFFER_NAMES[self.kind]))


class GameOffers:
    """The pending offers of one game (:attr:`pending`, oldest first).

    Methods that change them return the notices for both players; they
    take the players' handles as they are now (a resumed game may spell
    them in another case).
    """

    def __init__(self) -> None:
        self.pending: list[Offer] = []

    def find(self, kind: str, by: str) -> Offer | None:
        """The offer of ``kind`` ``by`` made, if any."""
        for offer in self.pending:
            if offer.kind == kind and offer.by == by:
                return offer
        return None

    def to(self, handle: str) -> list[Offer]:
        return [o for o in self.pending if o.by != handle]

    def by(self, handle: str) -> list[Offer]:
        return [o for o in self.pending if o.by == handle]

    def numbered(self, offers: list[Offer], offer_id: int | None) -> list[Offer]:
        """``offers``, or only the one numbered ``offer_id`` (pendinfo's index).

        :raises NoOfferError: none of ``offers`` has that number.
        """
        if offer_id is None:
            return offers
        chosen = [o for o in offers if o.id == offer_id]
        if not chosen:
            raise NoOfferError(msg("There is no offer {number} for you.", number=offer_id))
        return chosen

    def drop(self, white: str, black: str) -> list[Notice]:
        """Clear every pending offer; the pendinfo removals for both players."""
        notices = [n for offer in self.pending for n in removal_notices(offer.id, white, black)]
        self.pending.clear()
        return notices

    def moved(self, mover: str, opponent: str, white: str, black: str) -> list[Notice]:
        """A move withdraws the mover's offers and declines those made to them."""
        notices = []
        for offer in self.pending:
            what = OFFER_NAMES[offer.kind]
            if offer.by == mover:
                notices.append(Notice(opponent, parsed(msg("{handle} withdraws the {what} request.",
                                                            handle=mover, what=what))))
            else:
                notices.append(Notice(offer.by, parsed(msg("{handle} declines the {what} request.",
                                                           handle=mover, what=what))))
        return notices + self.drop(white, black)

    def make(self, handle: str, opponent: str, kind: str, plies: int = 0, *,
             limiter: Any = None) -> list[Notice]:
        """``handle`` offers ``kind`` to ``opponent`` (a new takeback replaces the old one).

        :raises OfferPendingError: the same offer is pending.
        :raises ficsfen.server.challenges.OfferRateError: ``limiter`` refuses it.
        """
        existing = self.find(kind, handle)
        if existing is not None and existing.plies == plies:
            raise OfferPendingError(msg("You have already made that offer."))
        if limiter is not None:
            limiter.check(handle)
        removed: list[Notice] = []
        if existing is not None:
            self.pending.remove(existing)
            removed = removal_notices(existing.id, handle, opponent)
        offer = Offer(kind, handle, plies)
        self.pending.append(offer)
        told, sent = _offer_words(kind, handle, opponent, plies)
        hint = msg("Type \"{command}\" to accept or \"decline\" to refuse.",
                   command=kind if kind != "takeback" else "takeback " + str(plies))
        return [*removed, Notice(handle, sent), Notice(opponent, told), Notice(opponent, hint),
                *offer_notices(offer.id, handle, opponent, kind, offer.params)]

    def decline(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Decline every offer made to ``handle`` (or only offer ``offer_id``).

        :raises NoOfferError: there is none.
        """
        offers = self.numbered(self.to(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("There are no offers to decline."))
        notices = []
        for offer in offers:
            self.pending.remove(offer)
            notices += removal_notices(offer.id, offer.by, handle)
            what = OFFER_NAMES[offer.kind]
            notices.append(Notice(offer.by, parsed(msg("{handle} declines the {what} request.",
                                                       handle=handle, what=what))))
            notices.append(Notice(handle, parsed(msg("You decline the {what} request from {handle}.",
                                                     what=what, handle=offer.by))))
        return notices

    def withdraw(self, handle: str, opponent: str, offer_id: int | None = None) -> list[Notice]:
        """Withdraw every offer ``handle`` made (or only offer ``offer_id``).

        :raises NoOfferError: there is none.
        """
        offers = self.numbered(self.by(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("You have no offers to withdraw."))
        notices = []
        for offer in offers:
            self.pending.remove(offer)
            notices += removal_notices(offer.id, handle, opponent)
            what = OFFER_NAMES[offer.kind]
            notices.append(Notice(opponent, parsed(msg("{handle} withdraws the {what} request.",
                                                       handle=handle, what=what))))
            notices.append(Notice(handle, parsed(msg("You withdraw the {what} request to {handle}.",
                                                     what=what, handle=opponent))))
        return notices


class OfferActions:
    """The offer commands of a played game (a base of
    :class:`~ficsfen.server.games.PlayedGame`, whose ``_offers`` is a
    :class:`GameOffers`): ``accept`` runs the game's own ``draw``, ``abort``,
    ``adjourn`` or ``takeback``."""

    _offers: GameOffers
    white: str
    black: str
    limiter: Any

    if TYPE_CHECKING:  # pragma: no cover - PlayedGame's
        def _player(self, handle: str) -> Any: ...
        def opponent_of(self, handle: str) -> str: ...
        def draw(self, handle: str) -> list[Notice]: ...
        def abort(self, handle: str) -> list[Notice]: ...
        def adjourn(self, handle: str) -> list[Notice]: ...
        def takeback(self, handle: str, plies: int = 1) -> list[Notice]: ...

    @property
    def offers(self) -> list[Offer]:
        """The pending in-game offers, oldest first."""
        return self._offers.pending

    def offers_to(self, handle: str) -> list[Offer]:
        return self._offers.to(handle)

    def offers_by(self, handle: str) -> list[Offer]:
        return self._offers.by(handle)

    def _offer(self, handle: str, kind: str, plies: int = 0) -> list[Notice]:
        return self._offers.make(handle, self.opponent_of(handle), kind, plies,
                                 limiter=self.limiter)

    def _drop_offers(self) -> list[Notice]:
        return self._offers.drop(self.white, self.black)

    def _accepted(self, kind: str, handle: str) -> tuple[Notice, ...]:
        """What both players read when ``handle`` accepts the opponent's ``kind`` request:
        FICS's ``You accept the draw request from alice.`` and ``bob accepts the draw
        request.``"""
        offerer = self.opponent_of(handle)
        what = OFFER_NAMES[kind]
        return (Notice(handle, parsed(msg("You accept the {what} request from {handle}.",
                                          what=what, handle=offerer))),
                Notice(offerer, parsed(msg("{handle} accepts the {what} request.", handle=handle,
                                           what=what))))

    def accept(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Accept the single pending offer made to ``handle`` (FICS ``accept``), or offer ``offer_id``."""
        self._player(handle)
        offers = self._offers.numbered(self.offers_to(handle), offer_id)
        if not offers:
            raise NoOfferError(msg("There are no offers to accept."))
        if len(offers) > 1:
            raise NoOfferError(msg("Several offers are pending; use draw, abort, adjourn or takeback to accept one."))
        offer = offers[0]
        accepting = {
            "draw": self.draw,
            "abort": self.abort,
            "adjourn": self.adjourn,
            "takeback": lambda handle: self.takeback(handle, offer.plies),
        }
        return accepting[offer.kind](handle)

    def decline(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Decline every offer made to ``handle`` (or only offer ``offer_id``)."""
        self._player(handle)
        return self._offers.decline(handle, offer_id)

    def withdraw(self, handle: str, offer_id: int | None = None) -> list[Notice]:
        """Withdraw every offer ``handle`` made (or only offer ``offer_id``)."""
        self._player(handle)
        return self._offers.withdraw(handle, self.opponent_of(handle), offer_id)


def _offer_words(kind: str, handle: str, opponent: str, plies: int) -> tuple[Message, Message]:
    """What the opponent is told of an offer, and what its maker reads."""
    if kind == "takeback":
        return (parsed(msgn("{handle} would like to take back {count} half move.",
                     "{handle} would like to take back {count} half moves.", plies, handle=handle)),
                parsed(msgn("Takeback request for {count} half move sent to {handle}.",
                     "Takeback request for {count} half moves sent to {handle}.", plies,
                     handle=opponent)))
    if kind == "draw":
        return (parsed(msg("{handle} offers you a draw.", handle=handle)),
                parsed(msg("Draw offer sent to {handle}.", handle=opponent)))
    if kind == "abort":
        return (parsed(msg("{handle} would like to abort the game.", handle=handle)),
                parsed(msg("Abort request sent to {handle}.", handle=opponent)))
    return (parsed(msg("{handle} would like to adjourn the game.", handle=handle)),
            parsed(msg("Adjourn request sent to {handle}.", handle=opponent)))
