"""Talking, FICS-style: ``tell`` (``t``, ``.``, ``,``), ``xtell``, ``reply``, ``say``,
``kibitz``, ``whisper``, ``shout``, ``cshout``, ``it`` and ``inchannel``.

Every message goes out through :meth:`ficsfen.server.talk.Talk.fanout`:
the frame is FICS's English line ("alice tells you: hi"), translated for
recipients who read another language; the text is the sender's own,
cleaned of control characters.  Censoring players never receive anything
from the censored; a guest's tell does not reach a player with ``set tell
0``; shouts reach those with ``set shout 1`` (``set cshout 1``), channel
tells those in the channel without ``set chanoff 1``.  Joining and leaving
channels is the ``channel`` list (``+channel 5``, ``-channel 5``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.commands.online_player import online_player
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import (IExaminedGame, IPlayedGame, IServerCaller,
                                       IServerDirectory)
from ficsfen.server.talk import (SHOUT_FRAMES, Talk, TalkError, channel_frame, channel_number,
                                 say_frame,
                                 rating_text, tell_frame)

__all__ = ["COMMANDS", "commands"]


class _TalkCommand(Command):
    """A talk command: the server's :class:`Talk` and the cleaning/limits every one applies."""

    spec = "S"

    def __init__(self, talk: Talk) -> None:
        self.talk = talk

    def _text(self, caller: IServerCaller, text: str) -> str | None:
        """``text`` as it may be sent, or None (the caller was told why)."""
        try:
            text = self.talk.check(caller.handle, text)
        except TalkError as e:
            caller.send(e.message)
            return None
        if not text:
            self.send_usage(caller)
            return None
        return text


class TellCommand(_TalkCommand):
    """``tell HANDLE|CHANNEL TEXT``; ``.``/``,`` name the last player/channel told."""

    name = "tell"
    aliases: tuple[str, ...] = ("t",)
    spec = "wS"
    usage = msg("tell HANDLE|CHANNEL TEXT")
    #: ``xtell`` leaves the last player and channel told as they were.
    remember = True

    def run(self, caller: IServerCaller, word: str, text: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        talk, key = self.talk, fold(caller.handle)
        if word == ".":
            if key not in talk.last_told:
                caller.send(msg("No previous tell."))
                return None
            word = talk.last_told[key]
            if caller.players.session(word) is None and not _elsewhere(talk, word):
                caller.send(msg("{handle} is no longer online.", handle=word))
                return None
        elif word == ",":
            if key not in talk.last_channel:
                caller.send(msg("No previous channel."))
                return None
            word = str(talk.last_channel[key])
        channel = channel_number(word)
        if channel is not None:
            return self.tell_channel(caller, channel, text)
        return self.tell_player(caller, word, text, directory)

    def tell_channel(self, caller: IServerCaller, channel: int, text: str) -> Deferred[None] | None:
        talk = self.talk
        if channel < 0:
            caller.send(msg("The channel number must be from 0 to 255."))
            return None
        if not talk.channels.has(caller.handle, channel):
            caller.send(msg("(Not sent because you are not in channel {channel}.)", channel=channel))
            return None
        sent = self._text(caller, text)
        if sent is None:
            return None
        count = talk.fanout(caller.handle, list(talk.channels.members(channel)),
                            channel_frame(caller.display_name(), channel, sent),
                            needs=("chanoff", False))
        if self.remember:
            talk.last_channel[fold(caller.handle)] = channel

        def told(count: int) -> Message:
            return parsed(msgn("(told {count} player in channel {channel})",
                               "(told {count} players in channel {channel})", count,
                               channel=channel))

        if talk.elsewhere is None:
            caller.send(told(count))
            return None
        remote, published = talk.elsewhere.channel(caller, channel, sent)
        return _after(caller, remote, published, count, told)

    def tell_player(self, caller: IServerCaller, word: str, text: str,
                    directory: IServerDirectory) -> Deferred[None] | None:
        talk = self.talk
        try:
            target: Any = caller.players.anywhere(word)
        except NameResolutionError as e:
            caller.send(e.message)
            return None
        if talk.censors(fold(target.handle), caller.handle) or fold(caller.handle) in getattr(
                target, "censor", ()):  # a player of another node: the list their node gave
            caller.send(parsed(msg("{handle} is censoring you.", handle=target.handle)))
            return None
        if not caller.registered and not target.variables.get("tell", True):
            caller.send(msg("Player \"{handle}\" isn't listening to unregistered users' tells.",
                            handle=target.handle))
            return None
        sent = self._text(caller, text)
        if sent is None:
            return None
        if self.remember:
            talk.last_told[fold(caller.handle)] = target.handle
        game = directory.game_of(target.handle)
        mark = getattr(target, "game_mark", "")  # a player of another node: their node's mark
        answer = talk.told(target, IPlayedGame.providedBy(game) or mark == "^",
                           IExaminedGame.providedBy(game) or mark == "#")
        key = fold(target.handle)
        if talk.session_of(key) is not target:  # a player of another node
            d = talk.elsewhere.tell(caller, target, sent)
            return d.addCallbacks(lambda _: caller.send(answer), lambda f: _bus_error(caller, f))
        talk.fanout(caller.handle, [key], tell_frame(caller.display_name(), sent))
        talk.last_teller[key] = caller.handle
        caller.send(answer)
        return None


class XtellCommand(TellCommand):
    name = "xtell"
    topic = "tell"
    aliases = ()
    usage = msg("xtell HANDLE|CHANNEL TEXT")
    remember = False


class _ShortTell(_TalkCommand):
    """``. TEXT`` (the last player told), ``, TEXT`` (the last channel), ``reply TEXT``."""

    word = "."
    topic = "tell"

    def __init__(self, talk: Talk, tell: TellCommand) -> None:
        super().__init__(talk)
        self.tell = tell

    def run(self, caller: IServerCaller, text: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        return self.tell.run(caller, self.word, text, directory=directory)


class DotCommand(_ShortTell):
    name = "."
    usage = msg(". TEXT")


class CommaCommand(_ShortTell):
    name = ","
    word = ","
    usage = msg(", TEXT")


class ReplyCommand(_ShortTell):
    name = "reply"
    usage = msg("reply TEXT")

    def run(self, caller: IServerCaller, text: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        teller = self.talk.last_teller.get(fold(caller.handle))
        if teller is None:
            caller.send(msg("No one has told you anything."))
            return None
        return self.tell.tell_player(caller, teller, text, directory)


class SayCommand(_TalkCommand):
    """``say TEXT``: to the opponent, during the game or after it."""

    name = "say"
    usage = msg("say TEXT")

    def run(self, caller: IServerCaller, text: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        talk = self.talk
        game = directory.game_of(caller.handle)
        played = game if IPlayedGame.providedBy(game) else None
        other = played.opponent_of(caller.handle) if played is not None else talk.last_opponent.get(
            fold(caller.handle))
        if other is None:
            caller.send(msg("I don't know whom to say that to."))
            return None
        target = caller.players.session(other)
        remote = None if target is not None or talk.elsewhere is None else (
            talk.elsewhere.presence.get(fold(other)))  # on another node of a cluster
        if target is None and remote is None:
            caller.send(msg("{handle} is no longer online.", handle=other))
            return None
        whom: Any = target if target is not None else remote
        if talk.censors(fold(whom.handle), caller.handle) or fold(caller.handle) in getattr(
                whom, "censor", ()):
            caller.send(parsed(msg("{handle} is censoring you.", handle=whom.handle)))
            return None
        sent = self._text(caller, text)
        if sent is None:
            return None
        number = played.number if played is not None else None
        game = directory.game_of(whom.handle)
        mark = getattr(whom, "game_mark", "")
        answer = talk.told(whom, IPlayedGame.providedBy(game) or mark == "^",
                           IExaminedGame.providedBy(game) or mark == "#")
        if target is None:
            d = talk.elsewhere.say(caller, remote, number, sent)
            return d.addCallbacks(lambda _: caller.send(answer), lambda f: _bus_error(caller, f))
        talk.fanout(caller.handle, [fold(target.handle)], say_frame(caller.display_name(), number,
                                                                    sent))
        caller.send(answer)
        return None


class KibitzCommand(_TalkCommand):
    """``kibitz TEXT``: to the players and observers of your game (or the one you observe)."""

    name = "kibitz"
    usage = msg("kibitz TEXT")
    #: Whispers reach observers only.
    observers_only = False

    def run(self, caller: IServerCaller, text: str, *, directory: IServerDirectory) -> None:
        game = directory.game_of(caller.handle) or directory.observed_by(caller.handle)
        if game is None:
            caller.send(msg("You are not playing, examining, or observing a game."))
            return
        sent = self._text(caller, text)
        if sent is None:
            return
        keys = [fold(h) for h in directory.observers(game)]
        if not self.observers_only:
            keys = [fold(h) for h in game.players()] + keys
        count = self.talk.fanout(caller.handle, list(dict.fromkeys(keys)),
                                 self.frame(caller, game.number, sent))
        caller.send(self.sent(count))

    def frame(self, caller: IServerCaller, number: int, text: str) -> Message:
        return parsed(msg("{handle}({rating})[{number}] kibitzes: {text}", handle=caller.display_name(),
                   rating=rating_text(caller), number=number, text=text))

    def sent(self, count: int) -> Message:
        return parsed(msgn("(kibitzed to {count} player)", "(kibitzed to {count} players)", count))


class WhisperCommand(KibitzCommand):
    name = "whisper"
    topic = "kibitz"
    usage = msg("whisper TEXT")
    observers_only = True

    def frame(self, caller: IServerCaller, number: int, text: str) -> Message:
        return parsed(msg("{handle}({rating})[{number}] whispers: {text}", handle=caller.display_name(),
                   rating=rating_text(caller), number=number, text=text))

    def sent(self, count: int) -> Message:
        return parsed(msgn("(whispered to {count} player)", "(whispered to {count} players)", count))


class ShoutCommand(_TalkCommand):
    """``shout TEXT``: to everyone with ``set shout 1`` (registered players only, as on FICS);
    a muzzled player (``muzzle``) is refused, for this command and those built on it."""

    name = "shout"
    usage = msg("shout TEXT")
    variable = "shout"

    def __init__(self, talk: Talk, everyone: Callable[[], Iterable[str]]) -> None:
        super().__init__(talk)
        self.everyone = everyone

    def run(self, caller: IServerCaller, text: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if not caller.registered:
            caller.send(msg("Only registered players can use the {command} command.",
                            command=self.name))
            return None
        if caller.muzzled:  # an operator's "muzzle" (FICS's answer)
            caller.send(msg("You are muzzled."))
            return None
        sent = self._text(caller, text)
        if sent is None:
            return None
        talk = self.talk
        count = talk.fanout(caller.handle, list(self.everyone()),
                            self.frame(caller, sent), needs=(self.variable, True))
        if talk.elsewhere is None:
            caller.send(self.sent(count))
            return None
        remote, published = talk.elsewhere.shout(caller, self.name, sent)
        return _after(caller, remote, published, count, self.sent)

    def frame(self, caller: IServerCaller, text: str) -> Message:
        return SHOUT_FRAMES[self.name][1](caller.display_name(), text)

    def sent(self, count: int) -> Message:
        return parsed(msgn("(shouted to {count} player)", "(shouted to {count} players)", count))


class CshoutCommand(ShoutCommand):
    """``cshout TEXT``: a shout about chess, to those with ``set cshout 1``."""

    name = "cshout"
    topic = "cshout"
    usage = msg("cshout TEXT")
    variable = "cshout"

    def sent(self, count: int) -> Message:
        return parsed(msgn("(c-shouted to {count} player)", "(c-shouted to {count} players)", count))


class ItCommand(ShoutCommand):
    """``it TEXT``: a shout that starts with the sender's handle, ``--> alice is happy``."""

    name = "it"
    topic = "it"
    usage = msg("it TEXT")
    variable = "shout"

    def sent(self, count: int) -> Message:
        return msgn("(it-shouted to {count} player)", "(it-shouted to {count} players)", count)


class InchannelCommand(_TalkCommand):
    """``inchannel [N|HANDLE]``: who is in a channel, or a player's channels.

    FICS's lines, which pychess reads: FICS's English for an interface, the
    player's language for a person.
    """

    name = "inchannel"
    spec = "o"
    usage = msg("inchannel [CHANNEL|HANDLE]")

    def run(self, caller: IServerCaller, word: str | None, *,
            directory: IServerDirectory) -> None:
        channels = self.talk.channels
        channel = channel_number(word) if word is not None else None
        if channel is not None:
            if channel < 0:
                caller.send(msg("The channel number must be from 0 to 255."))
                return
            names = [s.display_name() for s in map(caller.players.session, channels.members(channel))
                     if s is not None]
            if self.talk.elsewhere is not None:  # the members on the other nodes of a cluster
                names += [p.display_name() for p in self.talk.elsewhere.presence.players()
                          if channel in p.channels and caller.players.session(p.handle) is None]
            if not names:
                caller.send(parsed(msg("Channel {channel} is empty.", channel=channel)))
                return
            caller.send(parsed(msgn("Channel {channel}: {names}\n{count} player is in channel "
                                    "{channel}.",
                                    "Channel {channel}: {names}\n{count} players are in channel "
                                    "{channel}.", len(names), channel=channel,
                                    names=" ".join(names))))
            return
        target = online_player(caller, word)
        if target is None:
            return
        numbers = channels.of(target.handle)
        if not numbers:
            caller.send(parsed(msg("{handle} is in no channels.", handle=target.handle)))
            return
        caller.send(parsed(msg("{handle} is in the following channels:\n{channels}",
                               handle=target.handle, channels=" ".join(str(n) for n in numbers))))


def _elsewhere(talk: Talk, handle: str) -> bool:
    """Whether ``handle`` is logged in on another node of the cluster."""
    return talk.elsewhere is not None and talk.elsewhere.presence.get(fold(handle)) is not None


def _bus_error(caller: IServerCaller, failure: Any) -> None:
    """The bus refused a message (it is down): the sender reads why."""
    from ficsfen.server.cluster.bus import BusDown  # only ever reached in a cluster

    failure.trap(BusDown)
    caller.send(failure.value.message)


def _after(caller: IServerCaller, remote: int, sent: Deferred[Any], local: int,
           answer: Callable[[int], Message]) -> Deferred[None]:
    """The sender's count (``local`` here and ``remote`` on the other nodes) once the bus
    accepted the message; the local count and the bus-down error if it did not."""

    def failed(failure: Any) -> None:
        caller.send(answer(local))
        _bus_error(caller, failure)

    return sent.addCallbacks(lambda _: caller.send(answer(local + remote)), failed)


def commands(talk: Talk, everyone: Callable[[], Iterable[str]]) -> list[Command]:
    """The talk commands sharing ``talk``; ``everyone()`` lists every folded handle."""
    tell = TellCommand(talk)
    return [tell, XtellCommand(talk), DotCommand(talk, tell), CommaCommand(talk, tell),
            ReplyCommand(talk, tell), SayCommand(talk), KibitzCommand(talk), WhisperCommand(talk),
            ShoutCommand(talk, everyone), CshoutCommand(talk, everyone), ItCommand(talk, everyone),
            InchannelCommand(talk)]


COMMANDS = (TellCommand, XtellCommand, DotCommand, CommaCommand, ReplyCommand, SayCommand,
            KibitzCommand, WhisperCommand, ShoutCommand, CshoutCommand, ItCommand,
            InchannelCommand)
