"""The open-file limit: raised at start, and weighed against ``[limits] connections``.

Every connection is a file descriptor.  Many systems start a process with a
soft ``RLIMIT_NOFILE`` of 1,024 and a much higher hard limit; at 1,024 a
server configured for 12,000 connections could accept about a thousand, and
the next ones failed without a word.  At start (:func:`raise_limit`) the
server raises its soft limit to its hard limit (a process may do so without
privileges), and when the limit still leaves too few descriptors for
``connections`` it lowers its own connection limit to what fits (those past
it are told the server is full) and says so in the log
(:func:`limit_notices`).
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from typing import Callable

from twisted.logger import LogLevel

from ficsfen.i18n import Message, msg

__all__ = ["SPARE_FILES", "OpenFilesLimit", "connections_allowed", "limit_notices", "raise_limit"]

#: Descriptors kept for what is not a connection: the standard streams, the
#: reactor's own, the listening ports, the store (its three SQLite
#: connections, each with the data file, ``-wal`` and ``-shm``, and the two
#: lock files), the log, the feed's listener.  A server with its store and
#: one port uses 20 (counted in ``/proc/PID/fd``).
SPARE_FILES = 64


@dataclass(frozen=True)
class OpenFilesLimit:
    """The soft limit found at start, the soft limit now, the hard limit, and why raising failed."""

    before: int
    soft: int
    hard: int
    error: str | None = None

    @property
    def raised(self) -> bool:
        return self.soft > self.before


def raise_limit(wanted: int, *,
                getrlimit: Callable[[int], tuple[int, int]] = resource.getrlimit,
                setrlimit: Callable[[int, tuple[int, int]], None] = resource.setrlimit,
                ) -> OpenFilesLimit:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit; report what was done.

    ``wanted`` (descriptors for the configured connections and the spare
    ones) is the target when the hard limit is unlimited, where no finite
    value is "the hard limit".  A soft limit already as high is left alone.
    A refusal of the system (``ValueError``, ``OSError``) is not raised:
    it is in :attr:`OpenFilesLimit.error`, and the soft limit stays.
    ``RLIM_INFINITY`` is reported as-is (a large number).
    """
    kind = resource.RLIMIT_NOFILE
    soft, hard = getrlimit(kind)
    target = wanted if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return OpenFilesLimit(soft, soft, hard)
    try:
        setrlimit(kind, (target, hard))
    except (ValueError, OSError) as e:
        return OpenFilesLimit(soft, soft, hard, str(e) or type(e).__name__)
    return OpenFilesLimit(soft, target, hard)


def connections_allowed(limit: OpenFilesLimit, connections: int) -> int:
    """The connections ``limit`` leaves room for, at most ``connections`` (at least 1)."""
    if limit.soft == resource.RLIM_INFINITY:
        return connections
    return max(1, min(connections, limit.soft - SPARE_FILES))


def limit_notices(limit: OpenFilesLimit, connections: int) -> list[tuple[LogLevel, Message]]:
    """The log lines about ``limit`` for ``[limits] connections = connections``."""
    notices: list[tuple[LogLevel, Message]] = []
    if limit.raised:
        notices.append((LogLevel.info, msg(
            "Open-file limit raised from {before} to {soft} (hard limit {hard}).",
            before=limit.before, soft=limit.soft, hard=_number(limit.hard))))
    elif limit.error is not None:
        notices.append((LogLevel.warn, msg(
            "Cannot raise the open-file limit from {before} (hard limit {hard}): {reason}",
            before=limit.before, hard=_number(limit.hard), reason=limit.error)))
    allowed = connections_allowed(limit, connections)
    if allowed < connections:
        notices.append((LogLevel.warn, msg(
            "[limits] connections = {connections} cannot be reached: the open-file limit is "
            "{soft} (hard limit {hard}), room for {allowed} connections; further ones are told "
            "the server is full. Raise the hard limit (ulimit -Hn, LimitNOFILE= in a systemd "
            "unit) or lower connections.", connections=connections, soft=limit.soft,
            hard=_number(limit.hard), allowed=allowed)))
    return notices


def _number(value: int) -> Message | int:
    return msg("unlimited") if value == resource.RLIM_INFINITY else value
