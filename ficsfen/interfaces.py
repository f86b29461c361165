"""The seams between ficsfen's core and whatever server hosts it.

A host chess server (ours, or someone else's) provides an :class:`ICaller`
for whoever typed a command and an :class:`IGameDirectory` that finds games;
games offer :class:`IGame`.  Commands (:class:`ICommand`) only ever see these
interfaces, so the same ``fen`` and ``help`` objects run inside our telnet
server and inside a host's own command loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from zope.interface import Attribute, Interface

if TYPE_CHECKING:  # for annotations only: the interfaces import nothing of the core
    from ficsfen.i18n import Message
    from ficsfen.tracker import Ply

__all__ = ["ICaller", "IClockedGame", "ICommand", "IGame", "IGameDirectory", "IMoveEvents"]


class ICaller(Interface):
    """Whoever typed the command, as the host knows them."""

    handle = Attribute("str: the caller's handle (login name).")
    lang = Attribute("str: language code the caller reads, e.g. 'en' or 'fr'.")

    def send(message: Message | str) -> None:
        """Send one message to the caller.

        ``message`` is a :class:`ficsfen.i18n.Message` (rendered in the
        caller's language by the host) or an already rendered ``str``.  It
        may hold several lines separated by ``\\n``; the host writes each as
        one line in its own line-ending convention.
        """


class IGame(Interface):
    """A game a player is playing or examining, as commands see it."""

    number = Attribute("int: the game's number, unique among current games.")
    white = Attribute("str: White's handle.")
    black = Attribute("str: Black's handle.")
    examined = Attribute("bool: True for an examined (scratch) game.")
    tracker = Attribute("ficsfen.tracker.Tracker: the game's position and history.")

    def players() -> Iterable[str]:
        """Handles of the people playing or examining the game."""


class IClockedGame(IGame):
    """A game with a chess clock (optional: boards and the feed then show clocks)."""

    clock = Attribute("The clock: ``remaining(color)`` seconds left (negative once "
                      "flagged) and ``running``, the colour whose clock ticks or None.")
    time_control = Attribute("The time control: ``minutes``, ``increment`` (seconds), "
                             "``initial_seconds`` and ``untimed``.")
    move_times = Attribute("list[float]: seconds each ply took, in order.")


class IMoveEvents(IGame):
    """A game that reports each move once it is complete (optional).

    The tracker's subscribers hear a move while it is being made, before a
    played game has stopped the mover's clock; these callbacks come after,
    and also for moves replayed by ``forward`` in an examined game.
    """

    def subscribe_moves(callback: Callable[[Ply], object]) -> Callable[[], None]:
        """Call ``callback(ply)`` after each move; returns a function that unsubscribes."""


class IGameDirectory(Interface):
    """How a command finds games: by caller, by number, by handle."""

    def by_number(number: int) -> IGame | None:
        """The :class:`IGame` numbered ``number``, or ``None``."""

    def game_of(handle: str) -> IGame | None:
        """The game ``handle`` is playing or examining, or ``None``."""

    def observed_by(handle: str) -> IGame | None:
        """The game ``handle`` observes (the most recent one), or ``None``."""

    def handles() -> Iterable[str]:
        """Iterable of the handles currently known (logged in), any order."""


class ICommand(Interface):
    """One command a host can put in its command table."""

    name = Attribute("str: the full command name, lowercase.")
    aliases = Attribute("tuple[str, ...]: extra exact names that run it.")
    topic = Attribute("str: the help topic documenting it.")
    usage = Attribute("ficsfen.i18n.Message: the one-line usage text.")

    def __call__(caller: ICaller, args: str, directory: IGameDirectory) -> object:
        """Run with ``args`` (the rest of the line, stripped) for ``caller``.

        ``directory`` provides :class:`IGameDirectory`.  Errors the user
        should see are sent to ``caller``; the command never raises for bad
        user input.  Returns ``None``, or for a host that allows it an object
        saying the answer is not complete yet.
        """
