"""Handle uniqueness across nodes: where each handle logged in elsewhere is, and which login goes.

A handle may stand in several nodes' tables at once (a registered player
logging in again elsewhere, two logins while the bus was down).  This node
shows the newest of those logins (by login time, then node name), and when
one of them is newer than a login of the same handle here, closes the local
one as a second login on one node closes the first (``replaced``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from ficsfen.names import NameIndex
from ficsfen.server.cluster.remote_player import RemotePlayer

__all__ = ["UniqueHandles"]


class UniqueHandles:
    """The newest login elsewhere of each folded handle, and their handles' index.

    ``node`` is this node's name; ``local(key)`` the Unix time the folded
    handle ``key`` logged in here, or None; ``replaced(key)`` closes that local
    session; ``changed()`` is told of every change.
    """

    def __init__(self, node: str, *, local: Callable[[str], float | None],
                 replaced: Callable[[str], None], changed: Callable[[], None]) -> None:
        self.node = node
        self._local = local
        self._replaced = replaced
        self._changed = changed
        self._where: dict[str, RemotePlayer] = {}  # folded handle -> where it is (newest login)
        self._index = NameIndex()
        #: Told the folded handle of a player no longer logged in on any other node.
        self.left: list[Callable[[str], None]] = []
        #: Told the newest login of a folded handle not logged in on any other node until now.
        self.appeared: list[Callable[[RemotePlayer], None]] = []

    def get(self, key: str) -> RemotePlayer | None:
        """The newest login elsewhere of the folded handle ``key``, or None."""
        return self._where.get(key)

    def players(self) -> Iterable[RemotePlayer]:
        """Every player logged in on another node (a live view)."""
        return self._where.values()

    def handles(self) -> NameIndex:
        """Their handles, for resolving a typed name."""
        return self._index

    def __len__(self) -> int:
        return len(self._where)

    def place(self, key: str, logins: list[RemotePlayer], arrived: bool) -> None:
        """``logins`` are now the logins elsewhere of ``key`` (``arrived``: one is new on its
        node); the newest is where it is, and a local login older than it is closed."""
        newest = max(logins, key=lambda p: (p.login_time, p.node)) if logins else None
        current = self._where.get(key)
        if current is not None and (newest is None or current.handle != newest.handle):
            self._index.discard(current.handle)
        if newest is None:
            if self._where.pop(key, None) is not None:
                for listener in list(self.left):
                    listener(key)
        else:
            if current is None or current.handle != newest.handle:
                self._index.add(newest.handle)
            self._where[key] = newest
            if current is None:
                for heard in list(self.appeared):
                    heard(newest)
            if arrived and self._local(key) is not None:
                self._conflict(key, newest)
        self._changed()

    def _conflict(self, key: str, remote: RemotePlayer) -> None:
        """``key`` is logged in here and on ``remote.node``: the older login goes."""
        login = self._local(key)
        if login is not None and (login, self.node) < (remote.login_time, remote.node):
            self._replaced(key)

    def clear(self) -> None:
        """Forget every login elsewhere (the bus is down)."""
        self._where.clear()
        self._index = NameIndex()
        self._changed()
