"""The server's log: Twisted's text lines or JSON lines, filtered by level.

``ficsfen serve`` writes its log to standard error through one observer,
built by :func:`log_observer` from ``--log-level`` / ``--log-format`` (or
``[log] level`` / ``[log] format``):

- ``text``: Twisted's classic lines, ``TIME [NAMESPACE#LEVEL] TEXT``, timed by
  :func:`log_time`;
- ``json``: one JSON object per line, Twisted's own serialization
  (:func:`twisted.logger.jsonFileLogObserver`, without its record separator)
  plus two fields for readers that do not format events themselves:
  ``log_text`` (the formatted text) and, for an event carrying a failure,
  ``log_traceback``.  ``log_level`` is Twisted's serialized constant,
  ``{"name": "info", ...}``; ``log_namespace`` and ``log_time`` (seconds
  since the epoch) are plain values.

Events below the level are dropped (:class:`twisted.logger.LogLevelFilterPredicate`).
"""

from __future__ import annotations

import time
from typing import IO, Any

from twisted.logger import (
    FileLogObserver,
    FilteringLogObserver,
    ILogObserver,
    LogEvent,
    LogLevel,
    LogLevelFilterPredicate,
    formatEvent,
    formatEventAsClassicLogText,
    jsonFileLogObserver,
)
from zope.interface import implementer

__all__ = ["DEFAULT_LOG_FORMAT", "DEFAULT_LOG_LEVEL", "LOG_FORMATS", "LOG_LEVELS", "log_observer", "log_time"]

#: Level names, most verbose first: Twisted's :class:`LogLevel` names.
LOG_LEVELS = ("debug", "info", "warn", "error", "critical")
LOG_FORMATS = ("text", "json")
DEFAULT_LOG_LEVEL = "info"
DEFAULT_LOG_FORMAT = "text"


def log_time(when: float | None) -> str:
    """A log line's time as Twisted's ``textFileLogObserver`` writes it (RFC 3339, local time).

    Why not Twisted's ``formatTime``: it makes a time zone object for every
    line, whose ``utcoffset`` CPython looks up under a new name string each
    time, and its type cache keeps the last of those strings.  During an
    attack's thousands of log lines they land in the attack's arenas and
    then keep them after it (docs/benchmarks/memory.md).  The C
    library's ``strftime`` reads the offset from the ``struct tm``.
    """
    if when is None:
        return "-"
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(when))


@implementer(ILogObserver)
class _ReadableJSON:
    """Hands a copy of each event, with ``log_text`` (and ``log_traceback``), to ``observer``."""

    def __init__(self, observer: ILogObserver) -> None:
        self.observer = observer

    def __call__(self, event: LogEvent) -> None:
        extra: dict[str, Any] = {"log_text": formatEvent(event)}
        failure = event.get("log_failure")
        if failure is not None and hasattr(failure, "getTraceback"):
            extra["log_traceback"] = failure.getTraceback()
        self.observer(dict(event, **extra))


def log_observer(out: IO[Any], *, level: str = DEFAULT_LOG_LEVEL,
                 fmt: str = DEFAULT_LOG_FORMAT) -> ILogObserver:
    """The server's observer writing to ``out``: events at ``level`` or above, as ``fmt``.

    :raises ValueError: a level not in :data:`LOG_LEVELS` or a format not in
        :data:`LOG_FORMATS` (the command line and the configuration check both first).
    """
    if level not in LOG_LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LOG_LEVELS)}")
    inner: ILogObserver
    if fmt == "text":
        inner = FileLogObserver(out, lambda event: formatEventAsClassicLogText(event, formatTime=log_time))
    elif fmt == "json":
        inner = _ReadableJSON(jsonFileLogObserver(out, recordSeparator=""))
    else:
        raise ValueError(f"log format {fmt!r} is not one of {', '.join(LOG_FORMATS)}")
    predicate = LogLevelFilterPredicate(defaultLogLevel=LogLevel.levelWithName(level))
    return FilteringLogObserver(inner, [predicate])
