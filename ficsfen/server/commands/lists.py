"""Personal lists, FICS-style: ``addlist``/``+``, ``sublist``/``-``, ``showlist``/``=``.

Two lists refuse players: ``noplay`` (their match requests are refused,
"You are on alice's noplay list.") and ``censor`` (the same for matches,
"alice is censoring you."; and every tell, say, kibitz, shout and channel
message from them is kept from the one censoring).  The ``channel`` list
holds channel numbers: ``+channel 5`` joins channel 5 (:mod:`.talk`).  The one refused is told;
the one refusing never sees the request.  ``notify`` and ``gnotify`` hold the
registered players whose arrivals and departures, or games, one hears of
(:mod:`ficsfen.server.notify`); only registered players keep them.

:class:`PersonalLists` holds the lists of everyone logged in, by handle.  A
registered player's lists are kept with their saved settings (``"lists"``)
and come back at the next login; a guest's last for the session.  The
layout of ``showlist`` is FICS's (pychess reads ``Lists:`` and the
``-- noplay list: 1 names --`` header): FICS's English for an interface,
the player's language for a person (:mod:`ficsfen.server.parsed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from twisted.internet.defer import Deferred, fail, succeed

from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, msg, msgn
from ficsfen.names import NameKind, NameResolutionError, fold, resolve, resolve_handle
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.parsed import parsed
from ficsfen.server.talk import CHANNELS

__all__ = ["COMMANDS", "LIST_NAMES", "WATCH_LISTS", "ListError", "ListFullError", "NoSuchListError",
           "PersonalLists", "PlayerLists", "commands"]

#: The personal lists, in the order ``showlist`` gives them.
LIST_NAMES = ("censor", "channel", "gnotify", "noplay", "notify")
#: The lists of registered players only, naming registered players only; who is on
#: them is indexed both ways (:meth:`PersonalLists.watching`).
WATCH_LISTS = ("notify", "gnotify")
#: FICS keeps at most this many names on one personal list.
DEFAULT_LIST_SIZE = 50


class ListError(LocalizedError):
    """A list command that cannot be done; :attr:`message` says why."""


class NoSuchListError(ListError):
    """The name matches no list."""


class ListFullError(ListError):
    """The list already holds as many names as allowed."""


_LIST = NameKind(
    "list",
    no_match=lambda word: msg("\"{word}\" does not match any list name.", word=word),
    ambiguous=lambda word, matches: msg("Ambiguous list \"{word}\". Matches: {matches}",
                                        word=word, matches=" ".join(matches)),
)


def list_name(word: str) -> str:
    """The list ``word`` names (a unique prefix will do, as on FICS)."""
    try:
        return resolve(word, LIST_NAMES, _LIST)
    except NameResolutionError as e:
        raise NoSuchListError(e.message) from None


@dataclass
class PlayerLists:
    """One player's lists: handles by list name, in the order they were added."""

    names: dict[str, list[str]] = field(default_factory=dict)

    def members(self, name: str) -> list[str]:
        return list(self.names.get(name, ()))

    def has(self, name: str, handle: str) -> bool:
        key = fold(handle)
        return any(fold(h) == key for h in self.names.get(name, ()))

    def add(self, name: str, handle: str, *, size: int) -> Message:
        if self.has(name, handle):
            raise ListError(msg("[{handle}] is already on your {list} list.", handle=handle,
                                list=name))
        members = self.names.setdefault(name, [])
        if len(members) >= size:
            raise ListFullError(msg("Sorry, your {list} list is full ({count} names).",
                                    list=name, count=size))
        members.append(handle)
        return msg("[{handle}] added to your {list} list.", handle=handle, list=name)

    def remove(self, name: str, handle: str) -> Message:
        members = self.names.get(name, [])
        key = fold(handle)
        for i, member in enumerate(members):
            if fold(member) == key:
                del members[i]
                return msg("[{handle}] removed from your {list} list.", handle=member, list=name)
        raise ListError(msg("[{handle}] is not in your {list} list.", handle=handle, list=name))

    def to_json(self) -> dict[str, list[str]]:
        return {name: list(members) for name, members in self.names.items() if members}

    @classmethod
    def from_json(cls, data: Any, *, size: int = DEFAULT_LIST_SIZE) -> PlayerLists:
        """Lists read back from saved settings; anything malformed is skipped."""
        lists = cls()
        if not isinstance(data, dict):
            return lists
        for name in LIST_NAMES:
            members = data.get(name)
            if isinstance(members, list):
                kept: list[str] = []
                for handle in members:
                    if (isinstance(handle, str) and _well_formed(name, handle)
                            and fold(handle) not in {fold(h) for h in kept}):
                        kept.append(handle)
                lists.names[name] = kept[:size]
        return lists


def _well_formed(name: str, item: str) -> bool:
    """A handle, or for the channel list a channel number (0-255)."""
    if name == "channel":
        return item.isascii() and item.isdigit() and int(item) in CHANNELS and item == str(int(item))
    return item.isascii() and item.isalpha()


class PersonalLists:
    """The lists of every logged-in player, by handle; ``size``: most names per list."""

    def __init__(self, *, size: int = DEFAULT_LIST_SIZE) -> None:
        self.size = size
        self._lists: dict[str, PlayerLists] = {}
        # For each of WATCH_LISTS: folded member -> folded handles of the players
        # logged in with that member on that list (an arrival asks who watches it).
        self._watchers: dict[str, dict[str, set[str]]] = {name: {} for name in WATCH_LISTS}

    def of(self, handle: str) -> PlayerLists:
        return self._lists.setdefault(fold(handle), PlayerLists())

    def load(self, handle: str, data: Any) -> None:
        """Start ``handle``'s session with the lists saved for them (``data``)."""
        self.forget(handle)
        lists = self._lists[fold(handle)] = PlayerLists.from_json(data, size=self.size)
        for name in WATCH_LISTS:
            for member in lists.names.get(name, ()):
                self._watch(name, handle, member, True)

    def forget(self, handle: str) -> None:
        lists = self._lists.pop(fold(handle), None)
        if lists is not None:
            for name in WATCH_LISTS:
                for member in lists.names.get(name, ()):
                    self._watch(name, handle, member, False)

    def add(self, handle: str, name: str, item: str) -> Message:
        """Put ``item`` on ``handle``'s list ``name``; the confirmation.

        :raises ListError: it is there already, or the list is full.
        """
        done = self.of(handle).add(name, item, size=self.size)
        if name in self._watchers:
            self._watch(name, handle, item, True)
        return done

    def remove(self, handle: str, name: str, item: str) -> Message:
        """Take ``item`` off ``handle``'s list ``name``; the confirmation.

        :raises ListError: it is not there.
        """
        done = self.of(handle).remove(name, item)
        if name in self._watchers:
            self._watch(name, handle, item, False)
        return done

    def _watch(self, name: str, owner: str, member: str, on: bool) -> None:
        watchers = self._watchers[name]
        key = fold(member)
        if on:
            watchers.setdefault(key, set()).add(fold(owner))
            return
        owners = watchers.get(key)
        if owners is not None:
            owners.discard(fold(owner))
            if not owners:
                del watchers[key]

    def watching(self, name: str, handle: str) -> set[str]:
        """The folded handles of the players logged in with ``handle`` on their list
        ``name`` (one of :data:`WATCH_LISTS`): one dict access."""
        return set(self._watchers[name].get(fold(handle), ()))

    def censors(self, receiver_key: str, sender: str) -> bool:
        """Whether ``receiver_key`` (a folded handle) censors ``sender``: one dict
        access for the many who keep no lists (a channel tell asks everyone)."""
        lists = self._lists.get(receiver_key)
        return lists is not None and "censor" in lists.names and lists.has("censor", sender)

    def censoring(self, sender: str) -> set[str]:
        """The folded handles of everyone censoring ``sender`` (one pass for a fan-out)."""
        return {key for key, lists in self._lists.items()
                if "censor" in lists.names and lists.has("censor", sender)}

    def refusal(self, receiver: str, sender: str) -> Message | None:
        """Why ``receiver`` refuses a match request from ``sender`` (FICS's text), or ``None``."""
        lists = self._lists.get(fold(receiver))
        if lists is None:
            return None
        if lists.has("censor", sender):
            return parsed(msg("{handle} is censoring you.", handle=receiver))
        if lists.has("noplay", sender):
            return parsed(msg("You are on {handle}'s noplay list.", handle=receiver))
        return None


def _registered_only(caller: IServerCaller, name: str) -> None:
    """:raises ListError: a guest asks for a list only registered players keep."""
    if name in WATCH_LISTS and not caller.registered:
        raise ListError(msg("Only registered players can have {list} lists.", list=name))


def _watch_refusal(caller: IServerCaller, name: str, handle: str) -> Message | None:
    """Why ``handle`` cannot go on ``caller``'s notify or gnotify list, or ``None``.

    ``handle`` is someone logged in or an account (:meth:`_ListCommand._player`).
    """
    if fold(handle) == fold(caller.handle):
        return msg("You cannot {list} yourself.", list=name)
    online = caller.players.session(handle)
    if online is not None and not online.registered:
        return msg("You cannot add an unregistered user to your {list} list.", list=name)
    return None


def showlist_text(lists: PlayerLists, name: str, lang: str = "en") -> str:
    """FICS's listing of one list: the header clients read (in ``lang``, the reader's
    language of parsed texts), then the names on one line."""
    members = lists.members(name)
    # FICS says "names" even for one (pychess matches the plural).
    header = parsed(msgn("-- {list} list: {count} names --", "-- {list} list: {count} names --",
                         len(members), list=name))
    return header.render(lang) + ("\n" + " ".join(members) if members else "")


def showlist_index(lang: str = "en") -> str:
    """FICS's ``showlist`` without arguments: every list and whether it is personal
    (in ``lang``, the reader's language of parsed texts)."""
    personal = parsed(msg("is PERSONAL")).render(lang)
    return parsed(msg("Lists:")).render(lang) + "\n\n" + "\n".join(
        f"{name:<20} {personal}" for name in LIST_NAMES)


class _ListCommand(Command):
    """What the three list commands share: the server's lists and who may be named."""

    def __init__(self, lists: PersonalLists, *,
                 registered: Callable[[str], Deferred[bool]] = lambda name: succeed(False),
                 changed: Callable[[str, str, str, bool], None] = lambda *change: None,
                 save: Callable[[IServerCaller], None] = lambda caller: None) -> None:
        self.lists = lists
        #: Whether a name has an account, read off the reactor thread.
        self.registered = registered
        #: Told (handle, list, item, added) after each change (channels follow it).
        self.changed = changed
        #: Told of every change: keeps a registered player's lists (with their settings) for
        #: their next login and tells the server's listeners (``save_settings``).
        self.save = save

    def _player(self, word: str, directory: IServerDirectory, chosen: str = "") -> Deferred[str]:
        """The handle ``word`` names: someone logged in, else a registered account
        (then read off the reactor thread); fails with :class:`ListError`.

        On the channel list, the channel number ``word`` gives.
        """
        if chosen == "channel":
            if _well_formed("channel", word):
                return succeed(word)
            return fail(ListError(msg("The channel number must be from 0 to 255.")))
        try:
            return succeed(resolve_handle(word, directory.handles()))
        except NameResolutionError as e:
            error = ListError(e.message)
        if not (word.isascii() and word.isalpha()):
            return fail(error)

        def account(registered: bool) -> str:
            if not registered:
                raise error
            return word

        return self.registered(word).addCallback(account)

    def _saved(self, caller: IServerCaller) -> None:
        # Also for a guest: nothing is kept for them, but the server tells its
        # listeners (the other nodes of a cluster learn the guest's channels and censor list).
        self.save(caller)


class AddlistCommand(_ListCommand):
    name = "addlist"
    aliases = ("+",)
    spec = "ww"
    usage = msg("addlist LIST HANDLE  (or +LIST HANDLE)")

    def run(self, caller: IServerCaller, name: str, word: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        """A Deferred: the answer may wait for an account to be looked up."""
        try:
            chosen = list_name(name)
            _registered_only(caller, chosen)
        except ListError as e:
            caller.send(e.message)
            return None
        found = self._player(word, directory, chosen) if fold(word) != fold(caller.handle) else (
            succeed(caller.handle))

        def add(handle: str) -> None:
            if caller.players.session(caller.handle) is not caller:
                return  # left during the read
            if chosen in WATCH_LISTS:
                refusal = _watch_refusal(caller, chosen, handle)
                if refusal is not None:
                    caller.send(refusal)
                    return
            caller.send(self.lists.add(caller.handle, chosen, handle))
            self.changed(caller.handle, chosen, handle, True)
            self._saved(caller)

        def refused(failure: Any) -> None:
            failure.trap(ListError)
            caller.send(failure.value.message)

        return found.addCallback(add).addErrback(refused)


class SublistCommand(_ListCommand):
    name = "sublist"
    aliases = ("-",)
    spec = "ww"
    usage = msg("sublist LIST HANDLE  (or -LIST HANDLE)")

    def run(self, caller: IServerCaller, name: str, word: str, *,
            directory: IServerDirectory) -> None:
        try:
            chosen = list_name(name)
            _registered_only(caller, chosen)
            mine = self.lists.of(caller.handle)
            # A name on the list is removed as written there, whoever is logged in.
            if not mine.has(chosen, word):
                word = self._listed(mine.members(chosen), word)
            caller.send(self.lists.remove(caller.handle, chosen, word))
        except ListError as e:
            caller.send(e.message)
            return
        self.changed(caller.handle, chosen, word, False)
        self._saved(caller)

    @staticmethod
    def _listed(members: list[str], word: str) -> str:
        """The member ``word`` abbreviates, or ``word`` (then "is not in your list")."""
        try:
            return resolve_handle(word, members)
        except NameResolutionError:
            return word


class ShowlistCommand(_ListCommand):
    name = "showlist"
    aliases = ("=",)
    spec = "o"
    usage = msg("showlist [LIST]  (or =LIST)")

    def run(self, caller: IServerCaller, name: str | None, *,
            directory: IServerDirectory) -> None:
        if name is None:
            caller.send(showlist_index(caller.parsed_lang))
            return
        try:
            chosen = list_name(name)
            _registered_only(caller, chosen)
        except ListError as e:
            caller.send(e.message)
            return
        caller.send(showlist_text(self.lists.of(caller.handle), chosen, caller.parsed_lang))


def commands(lists: PersonalLists, *, registered: Callable[[str], Deferred[bool]],
             changed: Callable[[str, str, str, bool], None] = lambda *change: None,
             save: Callable[[IServerCaller], None] = lambda caller: None) -> list[Command]:
    """The list commands sharing ``lists``; ``changed`` hears of each change (read off
    the reactor thread: ``registered``), ``save`` keeps a registered player's lists."""
    return [cls(lists, registered=registered, changed=changed, save=save)
            for cls in (AddlistCommand, SublistCommand, ShowlistCommand)]


COMMANDS = (AddlistCommand, SublistCommand, ShowlistCommand)
