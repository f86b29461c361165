"""``znotify``: who of your notify list is logged in, and who has you on theirs.

The lists are changed with ``+notify``/``-notify`` and shown with
``=notify`` (:mod:`.lists`); the notices themselves are
:mod:`ficsfen.server.notify`'s.
"""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.i18n import msg
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.notify import Notifier

__all__ = ["ZnotifyCommand"]


class ZnotifyCommand(Command):
    """``znotify``: the two halves of notification, as FICS lists them."""

    name = "znotify"
    spec = ""
    usage = msg("znotify")

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        present = [s.handle for s in self.notifier.present(caller.handle)]
        if present:
            caller.send(msg("Present company on your notify list:"))
            caller.send("   " + " ".join(present) + ".")
        else:
            caller.send(msg("No one from your notify list is logged on."))
        watchers = [s.handle for s in self.notifier.watchers(caller.handle)
                    if s.handle != caller.handle]
        if watchers:
            caller.send(msg("The following players have you on their notify list:"))
            caller.send("   " + " ".join(watchers) + ".")
        else:
            caller.send(msg("No one logged in has you on their notify list."))
