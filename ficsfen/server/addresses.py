"""The client's address of a connection, as every part of the server names it.

A connection's address is read from its transport's ``getPeer()``, and
only here (:class:`ficsfen.server.telnet.TelnetConnection`'s ``peer`` and
``host`` call these functions; logins, bans, throttling, the per-address
limits, ``finger`` and ``logons`` read those).  Behind a proxy speaking the
PROXY protocol (:mod:`ficsfen.server.proxied`) the transport's peer is the
client named by the proxy's header, never the proxy.

An IP address is written as :mod:`ipaddress` writes it (an IPv6 address
compressed, ``2001:db8::7``, however the header spelt it; an IPv4 address
mapped into IPv6, ``::ffff:192.0.2.7``, as the IPv4 one), so that one
client is one string in the logs, the counters and the stored logins.
"""

from __future__ import annotations

import ipaddress
from typing import Any

__all__ = ["peer_host", "peer_text"]


def _host(address: Any) -> str:
    host = str(address.host)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP address (a UNIX socket's peer): as the transport says
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def peer_host(transport: Any) -> str:
    """The client's address without its port ("?" when the transport has none)."""
    try:
        return _host(transport.getPeer())
    except Exception:
        return "?"


def peer_text(transport: Any) -> str:
    """``host:port`` of the client, for log lines ("?" when the transport has none)."""
    try:
        address = transport.getPeer()
        return f"{_host(address)}:{address.port}"
    except Exception:
        return "?"
