"""Handles and addresses refused at login (``ban``), held in memory for the login's check.

The store keeps the bans (``bans`` table, :class:`~ficsfen.server.store.Ban`);
the server reads them once at start (:meth:`BanList.load`) and keeps
this list in step as operators ban and lift bans, so the check each login
makes (:meth:`BanList.refusal`) never waits for the disk.  A handle ban
refuses that name at ``login:``, before any password is asked; an address
ban (one address or a network, IPv4 or IPv6) refuses every login from it,
guests included.
"""

from __future__ import annotations

import ipaddress
from typing import Iterable, Iterator

from ficsfen.i18n import Message, msg
from ficsfen.names import fold
from ficsfen.server.store.records import Ban

__all__ = ["BanList", "BanTargetError", "ban_target"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class BanTargetError(ValueError):
    """A word that is neither a handle nor an address or network; :attr:`message` says so."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.msgid)
        self.message = message


def ban_target(word: str) -> tuple[str, str]:
    """``(kind, value)`` of what ``word`` names: ``("handle", folded)`` or ``("address",
    network)`` with the network as :mod:`ipaddress` prints it (``192.0.2.0/24``; one address
    is a ``/32`` or ``/128``).

    :raises BanTargetError: neither a handle (3 to 17 letters, not a guest's) nor an
        address or network.
    """
    if word.isascii() and word.isalpha():
        if not 3 <= len(word) <= 17:
            raise BanTargetError(msg("{word}: a handle is 3 to 17 letters.", word=word))
        if fold(word).startswith("guest"):
            raise BanTargetError(msg("{word}: guests change names at each login; ban their "
                                     "address instead.", word=word))
        return "handle", fold(word)
    try:
        return "address", str(ipaddress.ip_network(word, strict=False))
    except ValueError:
        raise BanTargetError(msg("{word}: neither a handle nor an address or network "
                                 "(\"192.0.2.7\", \"192.0.2.0/24\", \"2001:db8::/32\").",
                                 word=word)) from None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a UNIX socket's peer, or no address at all: no address ban applies
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # ::ffff:192.0.2.7 is 192.0.2.7
    return address


class BanList:
    """The bans in force, by kind and value."""

    def __init__(self, bans: Iterable[Ban] = ()) -> None:
        self._handles: dict[str, Ban] = {}
        self._networks: dict[str, tuple[Network, Ban]] = {}
        self.load(bans)

    def load(self, bans: Iterable[Ban]) -> None:
        """Replace the list with ``bans`` (the store's, read at start)."""
        self._handles.clear()
        self._networks.clear()
        for ban in bans:
            self.add(ban)

    def add(self, ban: Ban) -> None:
        """Put ``ban`` in force (replacing one of the same kind and value).

        :raises ValueError: an address ban whose value is not a network.
        """
        if ban.kind == "handle":
            self._handles[fold(ban.value)] = ban
        else:
            self._networks[ban.value] = (ipaddress.ip_network(ban.value, strict=False), ban)

    def remove(self, kind: str, value: str) -> Ban | None:
        """Lift the ban of ``kind`` and ``value`` (as :func:`ban_target` gives); the ban, or
        ``None`` if there was none."""
        if kind == "handle":
            return self._handles.pop(fold(value), None)
        entry = self._networks.pop(value, None)
        return None if entry is None else entry[1]

    def get(self, kind: str, value: str) -> Ban | None:
        if kind == "handle":
            return self._handles.get(fold(value))
        entry = self._networks.get(value)
        return None if entry is None else entry[1]

    def __iter__(self) -> Iterator[Ban]:
        yield from sorted(self._handles.values(), key=lambda b: b.value)
        yield from sorted((b for _, b in self._networks.values()), key=lambda b: b.value)

    def __len__(self) -> int:
        return len(self._handles) + len(self._networks)

    def handle_ban(self, name: str) -> Ban | None:
        """The ban of handle ``name`` (any case), or ``None``."""
        return self._handles.get(fold(name)) if self._handles else None

    def address_ban(self, host: str) -> Ban | None:
        """The ban whose network holds the address ``host``, or ``None`` (also for a host
        that is no IP address)."""
        if not self._networks:
            return None
        address = _address(host)
        if address is None:
            return None
        for network, ban in self._networks.values():
            if address.version == network.version and address in network:
                return ban
        return None

    def refusal(self, name: str | None, host: str) -> Message | None:
        """What a login of ``name`` (``None``: a guest's) from ``host`` is told if a ban
        refuses it, else ``None``."""
        if self.address_ban(host) is not None:
            return msg("Logins from your address are banned on this server.")
        if name is not None and self.handle_ban(name) is not None:
            return msg("Player \"{name}\" is banned on this server.", name=name)
        return None
