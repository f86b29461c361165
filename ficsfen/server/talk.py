"""Talking: channels, who hears what, and one fan-out for every kind of message.

``tell``, ``say``, ``kibitz``, ``whisper``, ``shout``, ``cshout`` and
channel tells all end in :meth:`Talk.fanout`, which picks who hears a
message and hands them to the server's
:class:`~ficsfen.server.broadcaster.Broadcaster`: the frame around the
text ("alice tells you: ...") is a :class:`~ficsfen.i18n.Message`
rendered in each recipient's language, the text itself is never
translated, and the bytes are built once per (language, charset, prompt)
and written to every member of that group at once, so a tell to a channel
of a thousand costs a thousand writes of the same bytes.

Before anything is sent the text is cleaned (:func:`clean_text`): control
characters never reach another user's terminal.  A sender is held to
``[limits] talk_per_minute`` messages and ``talk_max_length`` characters,
and their address to ``address_talk_per_minute`` (:class:`TalkLimiter`,
the offer limiter's window and per-address rate with its own wording).
"""

from __future__ import annotations

import unicodedata
from typing import Any, Callable, Container, Iterable

from ficsfen.i18n import LocalizedError, Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server.challenges import OfferLimiter, OfferRateError
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import IServerCaller
from ficsfen.server.session import Session

__all__ = ["CHANNELS", "SHOUT_FRAMES", "Channels", "Talk", "TalkError", "TalkLimiter", "TalkRateError",
           "TextTooLongError", "channel_frame", "channel_number", "clean_text", "rating_text",
           "tell_frame"]

#: FICS's channel numbers.
CHANNELS = range(256)


class TalkError(LocalizedError):
    """A message that is not sent; :attr:`message` says why, for the sender."""


class TalkRateError(TalkError, OfferRateError):
    """The sender sent more messages in the last minute than the server allows."""


class TextTooLongError(TalkError):
    """The text is longer than ``[limits] talk_max_length``."""


class TalkLimiter(OfferLimiter):
    """At most ``per_minute`` messages per sender in any 60 seconds (0: no limit), and
    what ``per_address`` allows from each address (see :class:`OfferLimiter`)."""

    what = "message"
    setting = "address_talk_per_minute"

    def refusal(self, wait: int) -> OfferRateError:
        return TalkRateError(msgn(
            "You are sending messages too quickly. Wait {count} second before sending another.",
            "You are sending messages too quickly. Wait {count} seconds before sending another.",
            wait))

    def address_refusal(self, wait: int) -> OfferRateError:
        return TalkRateError(msgn(
            "Too many messages are being sent from your address. Wait {count} second before "
            "sending another.",
            "Too many messages are being sent from your address. Wait {count} seconds before "
            "sending another.", wait))


# Everything Unicode calls a control or format character (C0, DEL, C1, bidi
# overrides...) goes; a tab becomes a blank.
_DROPPED = {"Cc", "Cf", "Cs", "Co", "Cn"}


def clean_text(text: str) -> str:
    """``text`` without the characters that could act on a terminal (escapes, bells,
    bidi overrides); tabs become blanks, and the ends are stripped."""
    if text.isascii() and text.isprintable():
        return text.strip()
    text = text.replace("\t", " ")
    return "".join(c for c in text if unicodedata.category(c) not in _DROPPED).strip()


def rating_text(session: IServerCaller) -> str:
    """How FICS shows a player with no rating: ``----`` registered, ``++++`` guest."""
    return "----" if session.registered else "++++"


def tell_frame(name: str, text: str) -> Message:
    """The line of a tell: ``alice tells you: hi``."""
    return parsed(msg("{handle} tells you: {text}", handle=name, text=text))


def say_frame(name: str, number: int | None, text: str) -> Message:
    """The line of a ``say``: ``alice[12] says: hi`` during game 12, ``alice says: hi`` after."""
    if number is not None:
        return parsed(msg("{handle}[{number}] says: {text}", handle=name, number=number,
                          text=text))
    return parsed(msg("{handle} says: {text}", handle=name, text=text))


def channel_frame(name: str, channel: int, text: str) -> Message:
    """The line of a channel tell: ``alice(50): hi``."""
    return parsed(msg("{handle}({channel}): {text}", handle=name, channel=channel, text=text))


#: The lines of the shouts, by command: what reads them (the variable) and the frame.
SHOUT_FRAMES: dict[str, tuple[str, Callable[[str, str], Message]]] = {
    "shout": ("shout", lambda name, text: parsed(msg("{handle} shouts: {text}", handle=name,
                                                     text=text))),
    "cshout": ("cshout", lambda name, text: parsed(msg("{handle} c-shouts: {text}", handle=name,
                                                       text=text))),
    "it": ("shout", lambda name, text: msg("--> {handle} {text}", handle=name, text=text)),
}


class Channels:
    """Who is in which channel (0-255), both ways round."""

    def __init__(self) -> None:
        self._members: dict[int, dict[str, None]] = {}
        self._of: dict[str, set[int]] = {}

    def join(self, handle: str, channel: int) -> None:
        key = fold(handle)
        self._members.setdefault(channel, {})[key] = None
        self._of.setdefault(key, set()).add(channel)

    def leave(self, handle: str, channel: int) -> None:
        key = fold(handle)
        members = self._members.get(channel)
        if members is not None:
            members.pop(key, None)
            if not members:
                del self._members[channel]
        self._of.get(key, set()).discard(channel)

    def forget(self, handle: str) -> None:
        for channel in list(self._of.get(fold(handle), ())):
            self.leave(handle, channel)
        self._of.pop(fold(handle), None)

    def members(self, channel: int) -> Iterable[str]:
        """Folded handles in ``channel``, in the order they joined."""
        return self._members.get(channel, {}).keys()

    def of(self, handle: str) -> list[int]:
        return sorted(self._of.get(fold(handle), ()))

    def has(self, handle: str, channel: int) -> bool:
        return fold(handle) in self._members.get(channel, {})


class Talk:
    """What talking needs to remember and the one way out for every message.

    ``session(key)`` is the logged-in session of a folded handle (or None);
    ``censors(receiver, sender)`` whether the receiver's censor list holds
    the sender, ``censoring(sender)`` the folded handles of all who censor
    them (one look for a fan-out); ``deliver(sessions, message)`` sends a
    message to the sessions chosen
    (:meth:`ficsfen.server.broadcaster.Broadcaster.talk`: a recipient whose own
    command is running, the sender reading their copy, gets it within that
    command's answer, everyone else as a notification).
    """

    def __init__(self, *, session: Callable[[str], Session | None],
                 censors: Callable[[str, str], bool],
                 censoring: Callable[[str], Container[str]],
                 deliver: Callable[[list[Session], Message], None],
                 limiter: TalkLimiter, max_length: int) -> None:
        self.channels = Channels()
        self._session = session
        self.censors = censors
        self.censoring = censoring
        self._deliver = deliver
        self.limiter = limiter
        self.max_length = max_length
        #: Per folded handle: whom they last told (``.``), the channel (``,``),
        #: who last told them (``reply``), their last opponent (``say`` after a game).
        self.last_told: dict[str, str] = {}
        self.last_channel: dict[str, int] = {}
        self.last_teller: dict[str, str] = {}
        self.last_opponent: dict[str, str] = {}
        #: The other nodes of a cluster (:class:`ficsfen.server.cluster.talk.ClusterTalk`:
        #: ``tell``, ``channel``, ``shout``), or None: this server is alone.
        self.elsewhere: Any = None

    def session_of(self, key: str) -> Session | None:
        """The session logged in here as the folded handle ``key``, or None."""
        return self._session(key)

    def find_sessions(self, lookup: Callable[[str], Session | None]) -> None:
        """Find recipients by folded handle with ``lookup`` from now on (a cluster's: the
        seats of the players of other nodes in this node's games too)."""
        self._session = lookup

    def forget(self, handle: str) -> None:
        key = fold(handle)
        self.channels.forget(handle)
        for memory in (self.last_told, self.last_channel, self.last_teller, self.last_opponent):
            memory.pop(key, None)
        self.limiter.forget(handle)

    def game_over(self, white: str, black: str) -> None:
        """Remember the opponents: ``say`` reaches them after the game."""
        self.last_opponent[fold(white)] = black
        self.last_opponent[fold(black)] = white

    def check(self, sender: str, text: str) -> str:
        """``text`` cleaned, once the sender may send it; else :class:`TalkError`."""
        text = clean_text(text)
        if len(text) > self.max_length > 0:
            raise TextTooLongError(msg(
                "Your message is too long: at most {limit} characters are sent.",
                limit=self.max_length))
        self.limiter.check(sender)  # raises TalkRateError (TalkLimiter.refusal)
        return text

    def fanout(self, sender: str, keys: Iterable[str], message: Message, *,
               needs: tuple[str, bool] | None = None) -> int:
        """Send ``message`` to the sessions of the folded handles ``keys``.

        Left out: who is gone, who censors ``sender``, and with ``needs``
        (a ``set`` variable and the value it must have, which is also its
        default: ``("shout", True)``, ``("chanoff", False)``) who set it
        otherwise.  Returns how many received it, the sender (who reads
        their own copy as command output) not counted.
        """
        sender_key = fold(sender)
        session_of = self._session
        censoring = self.censoring(sender)
        chosen: list[Session] = []
        count = 0
        for key in keys:
            session = session_of(key)
            if session is None or key in censoring:
                continue
            if needs is not None and session.variables.get(needs[0], needs[1]) != needs[1]:
                continue
            if key != sender_key:
                count += 1
            chosen.append(session)
        self._deliver(chosen, message)
        return count

    def told(self, session: Session, playing: bool, examining: bool) -> Message:
        """FICS's answer to the sender of a tell: ``(told alice)``, and what they are doing."""
        if playing:
            return parsed(msg("(told {handle}, who is playing)", handle=session.handle))
        if examining:
            return parsed(msg("(told {handle}, who is examining a game)", handle=session.handle))
        return parsed(msg("(told {handle})", handle=session.handle))


def channel_number(word: str) -> int | None:
    """``word`` as a channel number (0-255), or None when it is not one."""
    if word.isascii() and word.isdigit():
        number = int(word)
        return number if number in CHANNELS else -1
    return None

