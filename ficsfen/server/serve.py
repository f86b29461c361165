"""``ficsfen serve``: run the telnet server on one or more Twisted endpoints.

    ficsfen serve [--config FILE] [--listen ENDPOINT]... [--feed ENDPOINT] [--data FILE|none]
                  [--web ENDPOINT|none] [--cluster URL|none] [--log-level LEVEL] [--log-format text|json]
                  [--hash-password] [--print-config]

Endpoints are Twisted endpoint strings (``tcp:5000:interface=127.0.0.1``,
``ssl:5001:privateKey=key.pem``, ``tcp:0`` for any free port); ``--listen``
replaces the configuration's list.  ``--web`` is the web side's endpoint
(:mod:`ficsfen.server.websocket`, ``[web] listen``; ``none``: no web side).  SIGINT and SIGTERM stop the reactor,
which adjourns the games in progress (written to the store, and told to
their players and observers), says goodbye to every session and closes the
listening ports, then commits what the store has queued and closes it.
The log goes to standard error, filtered by level, as text or JSON lines
(:mod:`ficsfen.server.logs`).

The store's data file (``[storage] path``, ``--data``) is opened before the
server listens, and the games it has unfinished come back adjourned
(:meth:`ficsfen.server.server.FicsServer.restore`); a file that cannot be used (locked by another server,
corrupt, read-only, from a newer ficsfen) is reported in one line and the
command exits with status 1.

:func:`make_service` builds the same server as a Twisted service; the
``twist ficsfen`` plugin uses it, so both commands run exactly one server.
"""

from __future__ import annotations

import argparse
import errno
import gc
import getpass
import logging
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from twisted.application.service import MultiService
from twisted.logger import Logger, LogLevel
from twisted.python.failure import Failure

from ficsfen.server.database_url import is_database_url
from ficsfen.argparse_i18n import LocalizedArgumentParser
from ficsfen.server.config import (DEFAULT_CONFIG, Config, ConfigError, cluster_url, hash_password, load,
                                   web_endpoint)
from ficsfen.server.logs import LOG_FORMATS, LOG_LEVELS, log_observer, log_time
from ficsfen.server.openfiles import SPARE_FILES, connections_allowed, limit_notices, raise_limit
from ficsfen.i18n import (
    LocalizedError,
    Message,
    available_languages,
    language_from_environ,
    msg,
    resolve_language,
)

__all__ = ["CLUSTER_OPTION_HELP", "CONFIG_OPTION_HELP", "DATA_OPTION_HELP", "LISTEN_OPTION_HELP", "SHUTDOWN_GRACE",
           "EndpointError", "FicsService", "TwistedLogHandler", "data_file_option",
           "forward_library_logging", "listen_error", "log_observer", "log_time", "main",
           "make_service", "open_store", "run", "with_backlog"]

# Seconds a stopping server waits for its connections to close after saying goodbye.
SHUTDOWN_GRACE = 2.0

# Option help shared with the ``twist ficsfen`` plugin's Options.
CONFIG_OPTION_HELP = msg("configuration file (default: the one shipped with ficsfen)")
LISTEN_OPTION_HELP = msg("Twisted endpoint to listen on, e.g. tcp:5000:interface=127.0.0.1; "
                         "repeat for several (replaces the configuration's list)")
WEB_OPTION_HELP = msg("Twisted endpoint of the web side (its WebSocket at /ws), e.g. "
                      "tcp:8080:interface=127.0.0.1; \"none\" turns it off (default: [web] listen)")
CLUSTER_OPTION_HELP = msg("Redis URL of the cluster this server joins as one of its nodes, e.g. "
                          "redis://127.0.0.1:6379; \"none\": alone (default: [cluster] url)")
DATA_OPTION_HELP = msg("data file of accounts, settings and games, or a postgresql:// URL "
                       "(default: [storage] url or path of the configuration); \"none\" keeps "
                       "nothing across restarts")


class EndpointError(LocalizedError, ValueError):
    """An endpoint string Twisted cannot parse; ``ficsfen serve`` and the plugin report it."""

    def __init__(self, endpoint: str, reason: str | Message) -> None:
        super().__init__(msg("Bad endpoint \"{endpoint}\": {reason}", endpoint=endpoint, reason=reason))
        self.endpoint = endpoint
        self.reason = reason


# stdlib level floor -> Twisted level, highest first
_LEVELS = (
    (logging.CRITICAL, LogLevel.critical),
    (logging.ERROR, LogLevel.error),
    (logging.WARNING, LogLevel.warn),
    (logging.INFO, LogLevel.info),
    (logging.NOTSET, LogLevel.debug),
)


class TwistedLogHandler(logging.Handler):
    """Hands standard ``logging`` records to ``twisted.logger``.

    The library logs with the standard module (it never imports Twisted),
    but the server's log is Twisted's: without this a tracker subscriber's
    failure would miss the server's log file and ``twist``'s observers.
    The namespace is the record's logger name (``ficsfen.tracker``); an
    exception travels as a :class:`Failure`, traceback included.
    """

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log = Logger(namespace=record.name)
            level = next(level for floor, level in _LEVELS if record.levelno >= floor)
            text = record.getMessage()
            exc_type, exc_value, tb = record.exc_info or (None, None, None)
            if exc_value is not None:
                log.failure("{message}", Failure(exc_value, exc_type, tb), level, message=text)
            else:
                log.emit(level, "{message}", message=text)
        except Exception:
            self.handleError(record)


def forward_library_logging(name: str = "ficsfen") -> Callable[[], None]:
    """Send the records of logger ``name`` (and its children) to Twisted's log.

    Returns the function that stops it.
    """
    logger = logging.getLogger(name)
    handler = TwistedLogHandler()
    logger.addHandler(handler)
    return lambda: logger.removeHandler(handler)


def _parser(lang: str) -> argparse.ArgumentParser:
    from ficsfen.server.feed import FEED_OPTION_HELP

    parser = LocalizedArgumentParser(
        lang=lang,
        prog="ficsfen serve",
        description=msg("Run the FICS-style telnet server.").render(lang))
    parser.add_argument("--lang", metavar="LANG", help=msg(
        "language of messages ({choices}); default from the locale",
        choices=", ".join(available_languages())).render(lang))
    parser.add_argument("--config", metavar="FILE", help=CONFIG_OPTION_HELP.render(lang))
    parser.add_argument("--listen", metavar="ENDPOINT", action="append", default=[],
                        help=LISTEN_OPTION_HELP.render(lang))
    parser.add_argument("--feed", metavar="ENDPOINT", help=FEED_OPTION_HELP.render(lang))
    parser.add_argument("--data", metavar="FILE", help=DATA_OPTION_HELP.render(lang))
    parser.add_argument("--web", metavar="ENDPOINT", help=WEB_OPTION_HELP.render(lang))
    parser.add_argument("--cluster", metavar="URL", help=CLUSTER_OPTION_HELP.render(lang))
    parser.add_argument("--hash-password", action="store_true",
                        help=msg("read a password and print the hash to put in [accounts]").render(lang))
    parser.add_argument("--print-config", action="store_true", help=msg(
        "print the shipped configuration file, every setting commented with its default, "
        "and exit").render(lang))
    parser.add_argument("--log-level", choices=LOG_LEVELS, help=msg(
        "least important events logged: {choices} (default: [log] level, info)",
        choices=", ".join(LOG_LEVELS)).render(lang))
    parser.add_argument("--log-format", choices=LOG_FORMATS, help=msg(
        "log on standard error as Twisted's text lines or as one JSON object per line "
        "(default: [log] format, text)").render(lang))
    return parser


def main(argv: list[str] | None = None, *, lang: str | None = None) -> int:
    """Entry point of ``ficsfen serve``; returns the exit status.

    ``lang`` is the operator's language (``ficsfen --lang``); by default the
    locale's.
    """
    argv = sys.argv[1:] if argv is None else argv
    # ``ficsfen serve --lang fr`` as well as ``ficsfen --lang fr serve``:
    # the language must be known before the parser's own messages are built.
    early = LocalizedArgumentParser(add_help=False, lang=lang or language_from_environ())
    early.add_argument("--lang")
    chosen = resolve_language(early.parse_known_args(argv)[0].lang or "")
    lang = chosen if isinstance(chosen, str) else lang or language_from_environ()
    args = _parser(lang).parse_args(argv)
    if args.hash_password:
        password = getpass.getpass() if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
        print(hash_password(password))
        return 0
    if args.print_config:
        sys.stdout.write(DEFAULT_CONFIG.read_text(encoding="utf-8"))
        return 0
    try:
        config = load(args.config)
    except ConfigError as e:
        print(e.render(lang), file=sys.stderr)
        return 2
    if args.listen:
        config = config.with_listen(args.listen)
    if args.data is not None:
        config = config.with_data_file(data_file_option(args.data))
    if args.web is not None:
        config = config.with_web(web_endpoint(args.web))
    if args.cluster is not None:
        try:
            config = config.with_cluster(cluster_url(args.cluster))
        except ValueError:
            print(msg("--cluster {value}: not a Redis URL (redis://HOST:PORT, unix:///PATH) nor "
                      "\"none\"", value=args.cluster).render(lang), file=sys.stderr)
            return 2
    config = config.with_log(args.log_level, args.log_format)
    from twisted.internet import reactor

    return run(config, reactor=reactor, lang=lang, feed=args.feed)


def data_file_option(value: str) -> Path | str | None:
    """What ``--data VALUE`` means: ``none`` (any case) for no store, a URL
    (``scheme://...``, kept as a ``str``: a PostgreSQL database), else a path
    (``~`` expanded)."""
    if value.strip().lower() == "none":
        return None
    if is_database_url(value):
        return value.strip()
    return Path(os.path.expanduser(value))


def open_store(config: Config, *, reactor: Any) -> Any:
    """The store of ``config`` (an ``IStore``), or ``None`` when it has no data file.

    A PostgreSQL store when ``config`` has a database URL (``[storage] url``,
    ``--data postgresql://...``), else an SQLite one on its data file.

    :raises ficsfen.server.store.StoreError: a file or database that cannot be used.
    """
    location = config.data_location
    if location is None:
        return None
    if isinstance(location, str):
        from ficsfen.server.store.postgres import PostgresStore

        return PostgresStore.open(location, reactor=reactor, synchronous=config.synchronous,
                                  commit_interval=config.commit_interval_ms / 1000)
    from ficsfen.server.store import SQLiteStore

    return SQLiteStore.open(location, reactor=reactor, synchronous=config.synchronous,
                            commit_interval=config.commit_interval_ms / 1000)


class FicsService(MultiService):
    """The telnet server on its endpoints (and the feed, if any), as a Twisted service.

    Listening starts with the service, once the configuration's
    ``[accounts]`` are in the store (if any); stopping it refuses the
    logins under way, says goodbye to every session, closes the feed's
    readers and the listening ports, waits (at most :data:`SHUTDOWN_GRACE`
    seconds) for the goodbyes to leave and for the store reads under way,
    then closes the store (committing what is queued).  A port that cannot be
    opened, or accounts that cannot be stored, stop the reactor with
    :attr:`status` 1.
    """

    def __init__(self, server: Any, factory: Any, endpoints: list[tuple[str, Any]], *,
                 reactor: Any, feed: Any = None, feed_endpoint: tuple[str, Any] | None = None,
                 web: tuple[str, Any, Any] | None = None, store: Any = None,
                 notices: list[tuple[LogLevel, Message]] | None = None, lang: str = "en") -> None:
        super().__init__()
        self.server = server
        #: Log lines found while building the service (the open-file limit), logged at
        #: start in ``lang`` with the store's own notices (``store.notices``).
        self.notices = list(notices or ())
        self.lang = lang
        #: The ``IStore`` (``ficsfen.server.store``), or ``None`` without a data file.
        self.store = store
        self.factory = factory
        self.endpoints = endpoints
        self.reactor = reactor
        self.feed = feed
        self.feed_endpoint = feed_endpoint
        #: The web side: (endpoint string, endpoint, factory), or None.
        self.web = web
        self.ports: list[Any] = []
        self.status = 0
        self._stop_forwarding: Callable[[], None] | None = None

    def startService(self) -> None:
        super().startService()
        if self._stop_forwarding is None:
            self._stop_forwarding = forward_library_logging()
        log = Logger(namespace="ficsfen.server.serve")
        for level, notice in self.notices:
            log.emit(level, "{message}", message=notice.render(self.lang))
        self.server.start_threads()  # before any connection: see FicsServer.start_threads
        if self.server.cluster is not None:
            self.server.cluster.start()
        listeners = [(d, e, self.factory) for d, e in self.endpoints]
        if self.feed is not None and self.feed_endpoint is not None:
            listeners.append((*self.feed_endpoint, self.feed.factory()))
        if self.web is not None:
            listeners.append(self.web)

        def listening(port: Any, description: str) -> None:
            self.ports.append(port)
            where = _address_text(port.getHost())
            log.info("Listening on {where} ({endpoint})", where=where, endpoint=description)
            self.factory.trimmer.settle()  # what starting up freed, given back

        def failed(failure: Any, description: str) -> None:
            log.error("{message}", message=listen_error(description, failure).render(self.lang))
            self.status = 1
            if self.reactor.running:
                self.reactor.stop()

        def listen(_: object = None) -> None:
            for description, endpoint, factory in listeners:
                d = endpoint.listen(factory)
                d.addCallbacks(listening, failed, callbackArgs=(description,),
                               errbackArgs=(description,))

        if self.store is None:
            log.info("No data file: nothing is kept across restarts")
            listen()
            return
        log.info("Data file: {file}", file=str(self.store.path))
        for notice in getattr(self.store, "notices", ()):
            log.warn("{message}", message=notice.render(self.lang))

        def imported(names: list[str]) -> None:
            if names:
                log.info("Accounts copied from the configuration into the data file: {names}",
                         names=", ".join(names))

        def not_imported(failure: Failure) -> None:
            log.failure("Cannot store the configuration's accounts", failure)
            self.status = 1
            if self.reactor.running:
                self.reactor.stop()

        def restored(_: object) -> Any:
            if self.status:
                return None
            d = self.server.restore()
            d.addCallback(lambda _: log.info("Adjourned games in the data file: {count}",
                                             count=len(self.server.adjourned)))
            return d.addErrback(not_restored)

        def not_restored(failure: Failure) -> None:
            log.failure("Cannot adjourn the games the data file had in progress", failure)
            self.status = 1
            if self.reactor.running:
                self.reactor.stop()

        # Logins must find the configuration's accounts, and players their adjourned
        # games: listen once both are in place.
        d = self.store.import_accounts(self.server.config.accounts)
        d.addCallbacks(imported, not_imported)
        d.addCallback(restored)
        d.addCallback(lambda _: None if self.status else listen())

    def stopService(self) -> Any:
        from twisted.internet.defer import gatherResults
        from twisted.internet.task import deferLater

        Logger(namespace="ficsfen.server.serve").info("Shutting down")
        # Games are adjourned and stored (and their players told) before the goodbyes.
        closing = self.server.shutdown()
        if self.feed is not None:
            self.feed.disconnect_all()
        ports, self.ports = self.ports, []
        super().stopService()
        stopped = gatherResults([closing, *(p.stopListening() for p in ports)],
                                consumeErrors=True)

        def drained(waited: float = 0.0) -> Any:
            # Let the goodbyes reach the players before the reactor drops the sockets.
            if self.server.connections == 0 or waited >= SHUTDOWN_GRACE:
                return None
            return deferLater(self.reactor, 0.05, drained, waited + 0.05)

        stopped.addCallback(lambda _: drained())
        if self.server.cluster is not None:  # after the goodbyes: the players' departures
            stopped.addBoth(lambda result: self.server.cluster.stop().addBoth(lambda _: result))
        # after the goodbyes, which may still write (games adjourned at shutdown)
        stopped.addBoth(self._close_store)
        return stopped.addBoth(self._stopped_forwarding)

    def _close_store(self, result: Any) -> Any:
        if self.store is None:
            return result
        # Every session is gone and no login completes (FicsServer.stopping); the
        # reads under way end before their connection is closed.
        store = self.store
        d = self.server.reads_done()
        d.addCallback(lambda _: store.close())
        return d.addCallback(lambda _: result)

    def _stopped_forwarding(self, result: Any) -> Any:
        # after the goodbyes: a failure while saying them still reaches the log
        if self._stop_forwarding is not None:
            self._stop_forwarding()
            self._stop_forwarding = None
        return result


def make_service(config: Config, *, reactor: Any, feed: str | None = None,
                 lang: str = "en") -> FicsService:
    """The server for ``config`` as a service; ``feed`` is the feed's endpoint or ``None``.

    Raises the process's open-file limit to its hard limit and, if that
    leaves too few descriptors for ``[limits] connections``, serves fewer
    (:mod:`ficsfen.server.openfiles`; the service logs both in ``lang``).
    Opens the store (:func:`open_store`) after the endpoints are parsed.

    :raises EndpointError: an endpoint string Twisted cannot parse.
    :raises ficsfen.server.store.StoreError: a data file that cannot be used.
    """
    from twisted.internet.endpoints import serverFromString

    from ficsfen.server.feed import GameFeed
    from ficsfen.server.listening import AcceptLimitedReactor
    from ficsfen.server.server import FicsServer
    from ficsfen.server.telnet import FicsFactory

    limited = AcceptLimitedReactor(reactor, config.accepts_per_turn)

    def endpoint(description: str, backlog: int | None = None) -> tuple[str, Any]:
        if _endpoint_kind(description) == "haproxy":
            # the PROXY protocol: the protocol starts once the header named the client
            from ficsfen.server.proxied import ProxiedEndpoint

            try:
                inner = endpoint((_UNESCAPED_COLON.split(description, 1) + [""])[1], backlog)[1]
            except EndpointError as e:
                raise EndpointError(description, e.reason) from None
            return description, ProxiedEndpoint(inner, clock=reactor, timeout=config.login_timeout)
        # tcp: and tcp6: ports accept [limits] accepts_per_turn connections a turn at most
        listener = limited if _endpoint_kind(description) in _TCP_ENDPOINTS else reactor
        try:
            made = serverFromString(listener, with_backlog(description, backlog))
        except (ValueError, TypeError, KeyError) as e:
            raise EndpointError(description, str(e) or type(e).__name__) from None
        except ImportError as e:  # ssl: without pyOpenSSL
            raise EndpointError(description, msg("{reason}; TLS needs the tls extra: pip install "
                                                 "\"ficsfen[tls]\"", reason=str(e))) from None
        except Exception as e:  # ssl: a key or certificate file missing or unreadable
            reason = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) else str(e)
            raise EndpointError(description, reason or type(e).__name__) from None
        if _endpoint_kind(description) == "ssl":
            # the protocol starts once the TLS handshake is over
            from ficsfen.server.tls_listening import HandshakeGatedEndpoint

            made = HandshakeGatedEndpoint(made, clock=reactor, timeout=config.login_timeout)
        return description, made

    endpoints = [endpoint(d, config.listen_backlog) for d in config.listen]
    feed_endpoint = endpoint(feed) if feed else None
    web_at = endpoint(config.web, config.listen_backlog) if config.web else None
    limit = raise_limit(config.max_connections + SPARE_FILES)
    notices = limit_notices(limit, config.max_connections)
    config = replace(config, max_connections=connections_allowed(limit, config.max_connections))
    store = open_store(config, reactor=reactor)
    # An operator's "shutdown" ends as SIGTERM does: the reactor stops, stopService follows.
    server = FicsServer(config, clock=reactor, store=store, stop=reactor.stop)
    if config.cluster_url:  # the Redis client is loaded only then
        from ficsfen.server.cluster.node import ClusterNode

        server.cluster = ClusterNode(server, reactor=reactor)
    game_feed = None
    if feed_endpoint is not None:
        game_feed = GameFeed()
        server.game_hooks.append(game_feed)
    web = None
    if web_at is not None:
        from ficsfen.server.websocket import WebFactory

        web = (*web_at, WebFactory(server))
    return FicsService(server, FicsFactory(server), endpoints, reactor=reactor,
                       feed=game_feed, feed_endpoint=feed_endpoint, web=web, store=store,
                       notices=notices, lang=lang)


def listen_error(description: str, failure: Failure) -> Message:
    """What to log when ``description``'s endpoint cannot listen (``failure``): one line,
    "the port is in use" when another process holds the address, else Twisted's reason."""
    error = failure.value
    socket_error = getattr(error, "socketError", None)
    if isinstance(socket_error, OSError) and socket_error.errno == errno.EADDRINUSE:
        reason: object = msg("the address is already in use (another server runs there?)")
    else:
        reason = failure.getErrorMessage()
    return msg("Cannot listen on {endpoint}: {reason}", endpoint=description, reason=reason)


# Endpoint types whose listening socket takes a "backlog=" argument.
_BACKLOG_ENDPOINTS = frozenset({"tcp", "tcp6", "ssl", "unix"})
_UNESCAPED_COLON = re.compile(r"(?<!\\):")
# Endpoint types that listen with the reactor's listenTCP.
_TCP_ENDPOINTS = frozenset({"tcp", "tcp6"})


def _endpoint_kind(description: str) -> str:
    """The type of an endpoint description (``tcp``, ``unix``...), lower-case."""
    return _UNESCAPED_COLON.split(description, 1)[0].strip().lower()


def with_backlog(description: str, backlog: int | None) -> str:
    """``description`` with ``:backlog=N`` added, unless it sets one or takes none.

    Twisted's own default (50) makes quick bursts of connections stall: the
    configuration's ``[limits] listen_backlog`` applies instead.
    """
    if backlog is None:
        return description
    if _endpoint_kind(description) not in _BACKLOG_ENDPOINTS:
        return description
    if any(part.strip().lower().startswith("backlog=")
           for part in _UNESCAPED_COLON.split(description)[1:]):
        return description
    return f"{description}:backlog={backlog}"


#: Collections of the middle generation between two full collections (CPython: 10).
FULL_COLLECTION_EVERY = 100


def space_full_collections(every: int = FULL_COLLECTION_EVERY) -> None:
    """Make the collector's full passes ten times rarer than CPython's default.

    Why: with 1,000 sessions and their games, a full (generation 2) pass
    over the heap stops the reactor for 60-240 ms, and at CPython's default
    it came every few seconds, so a move now and then waited that long
    (p99 windows of 87-230 ms with the store on at 2,000 moves/s:
    docs/benchmarks/store.md).  Young garbage is still collected as often
    as before; only cycles that survived two generations wait longer to be
    freed.
    """
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, every)


def run(config: Config, *, reactor: Any, lang: str = "en", feed: str | None = None,
        log_file: Any = None) -> int:
    """Serve ``config`` (and the feed) until the reactor stops; returns the exit status."""
    from twisted.logger import globalLogBeginner

    from ficsfen.server.store import StoreError

    try:
        service = make_service(config, reactor=reactor, feed=feed, lang=lang)
    except EndpointError as e:
        print(e.render(lang), file=sys.stderr)
        return 2
    except StoreError as e:
        print(e.render(lang), file=sys.stderr)
        return 1
    observer = log_observer(log_file or sys.stderr, level=config.log_level, fmt=config.log_format)
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    space_full_collections()
    reactor.callWhenRunning(service.startService)
    reactor.addSystemEventTrigger("before", "shutdown", service.stopService)
    reactor.run()
    return service.status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def _address_text(address: object) -> str:
    """``host:port`` for an IP endpoint, the path for a UNIX socket, else its repr."""
    from twisted.internet.address import IPv4Address, IPv6Address, UNIXAddress

    if isinstance(address, (IPv4Address, IPv6Address)):
        return f"{address.host}:{address.port}"
    if isinstance(address, UNIXAddress):
        return str(address.name)
    return repr(address)
