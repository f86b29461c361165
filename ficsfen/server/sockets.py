"""TCP options of a client connection: no Nagle delay, keepalive timings, a bounded send buffer.

Everything here goes through ``ITCPTransport`` (``setTcpNoDelay``,
``setTcpKeepAlive``, ``getHandle``) and the public ``bufferSize`` of
Twisted's file descriptors, of the TCP connection under any protocol
wrappers (the PROXY protocol's, TLS's); a connection that is not TCP is
left alone.
"""

from __future__ import annotations

import socket
from typing import Any

from twisted.internet.interfaces import ITCPTransport
from twisted.logger import Logger
from twisted.protocols.policies import ProtocolWrapper

__all__ = ["tune"]

log = Logger()

#: Socket options for shorter TCP keepalive timings, where the platform has them.
_KEEPALIVE_OPTIONS = tuple(
    (getattr(socket, name), setting)
    for name, setting in (("TCP_KEEPIDLE", "keepalive_idle"), ("TCP_KEEPINTVL", "keepalive_interval"),
                          ("TCP_KEEPCNT", "keepalive_count"))
    if hasattr(socket, name))


def tune(connection: Any, config: Any, peer: str) -> None:
    """Set a new client connection's TCP options from ``config`` (``[limits]``).

    Answers and boards are small writes: they go at once, not after the
    client's delayed ACK (Nagle), which costs an ICS player ~40 ms.
    Keepalive notices a dead peer.  Never raises: an option the system
    refuses is logged at debug level.
    """
    # Under protocol wrappers (the PROXY protocol's, TLS's), the TCP connection itself:
    # its socket, and its buffer's high-water mark, not an attribute of a wrapper.
    while isinstance(connection, ProtocolWrapper) and connection.transport is not None:
        connection = connection.transport
    if not ITCPTransport.providedBy(connection):
        return
    try:
        connection.setTcpNoDelay(True)
        connection.setTcpKeepAlive(True)
    except OSError:  # pragma: no cover - not a TCP socket after all
        return
    _keepalive_timings(connection, config, peer)
    _send_buffer(connection, config, peer)


def _keepalive_timings(connection: Any, config: Any, peer: str) -> None:
    """Shorter keepalive timings than the system's (2 hours idle on Linux), where it has them."""
    if not config.keepalive_idle:
        return
    try:
        sock = connection.getHandle()
        for option, setting in _KEEPALIVE_OPTIONS:
            sock.setsockopt(socket.IPPROTO_TCP, option, int(getattr(config, setting)))
    except (AttributeError, OSError) as e:  # not a socket, or the system refuses
        log.debug("keepalive timings not set for {peer}: {reason}", peer=peer, reason=str(e))


def _send_buffer(connection: Any, config: Any, peer: str) -> None:
    """Bound what a client that does not read makes the server queue before its input waits.

    Why: Linux grows a socket's send buffer up to ``net.ipv4.tcp_wmem``
    (4 MiB), so a client that stops reading would have its commands run
    until megabytes of answers sat in the kernel; Twisted only pauses the
    connection (backpressure) once its own buffer passes its high-water
    mark.  Both are set to ``[limits] send_buffer`` bytes.
    """
    size = config.send_buffer
    if not size:
        return
    connection.bufferSize = size  # Twisted's high-water mark (and the size of one read)
    try:
        connection.getHandle().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
    except (AttributeError, OSError) as e:  # not a socket, or the system refuses
        log.debug("send buffer not set for {peer}: {reason}", peer=peer, reason=str(e))
