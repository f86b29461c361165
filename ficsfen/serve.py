"""``ficsfen serve``: run the telnet server on one or more Twisted endpoints.

    ficsfen serve [--config FILE] [--listen ENDPOINT]... [--hash-password]

Endpoints are Twisted endpoint strings (``tcp:5000:interface=127.0.0.1``,
``ssl:5001:privateKey=key.pem``, ``tcp:0`` for any free port); ``--listen``
replaces the configuration's list.  SIGINT and SIGTERM stop the reactor,
which says goodbye to every session and closes the listening ports.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any

from ficsfen.config import Config, ConfigError, hash_password, load
from ficsfen.i18n import language_from_locale, msg

__all__ = ["SHUTDOWN_GRACE", "main", "run"]

# Seconds a stopping server waits for its connections to close after saying goodbye.
SHUTDOWN_GRACE = 2.0


def _operator_language() -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(name):
            return language_from_locale(os.environ[name])
    return language_from_locale(None)


def _parser(lang: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ficsfen serve",
        description=msg("Run the FICS-style telnet server.").render(lang))
    parser.add_argument("--config", metavar="FILE",
                        help=msg("configuration file (default: the one shipped with ficsfen)").render(lang))
    parser.add_argument("--listen", metavar="ENDPOINT", action="append", default=[],
                        help=msg("Twisted endpoint to listen on, e.g. tcp:5000:interface=127.0.0.1; "
                                 "repeat for several (replaces the configuration's list)").render(lang))
    parser.add_argument("--hash-password", action="store_true",
                        help=msg("read a password and print the hash to put in [accounts]").render(lang))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ficsfen serve``; returns the exit status."""
    lang = _operator_language()
    args = _parser(lang).parse_args(sys.argv[1:] if argv is None else argv)
    if args.hash_password:
        password = getpass.getpass() if sys.stdin.isatty() else sys.stdin.readline().rstrip("\n")
        print(hash_password(password))
        return 0
    try:
        config = load(args.config)
    except ConfigError as e:
        print(e.render(lang), file=sys.stderr)
        return 2
    if args.listen:
        config = config.with_listen(args.listen)
    from twisted.internet import reactor

    return run(config, reactor=reactor, lang=lang)


def run(config: Config, *, reactor: Any, lang: str = "en", log_file: Any = None) -> int:
    """Listen on ``config.listen`` and run ``reactor`` until it is stopped."""
    from twisted.internet.endpoints import serverFromString
    from twisted.logger import Logger, globalLogBeginner, textFileLogObserver

    from ficsfen.server import FicsServer
    from ficsfen.telnet import FicsFactory

    log = Logger(namespace="ficsfen.serve")
    endpoints = []
    for description in config.listen:
        try:
            endpoints.append((description, serverFromString(reactor, description)))
        except (ValueError, TypeError, KeyError) as e:
            print(msg("Bad endpoint \"{endpoint}\": {reason}", endpoint=description,
                      reason=str(e) or type(e).__name__).render(lang), file=sys.stderr)
            return 2
    globalLogBeginner.beginLoggingTo([textFileLogObserver(log_file or sys.stderr)],
                                     redirectStandardIO=False)
    server = FicsServer(config, clock=reactor)
    factory = FicsFactory(server)
    ports: list[Any] = []
    status = {"code": 0}

    def listening(port: Any, description: str) -> None:
        ports.append(port)
        host = port.getHost()
        where = f"{getattr(host, 'host', host)}:{getattr(host, 'port', '')}"
        log.info("Listening on {where} ({endpoint})", where=where, endpoint=description)

    def failed(failure: Any, description: str) -> None:
        log.error("Cannot listen on {endpoint}: {reason}", endpoint=description,
                  reason=failure.getErrorMessage())
        status["code"] = 1
        if reactor.running:
            reactor.stop()

    def start() -> None:
        for description, endpoint in endpoints:
            d = endpoint.listen(factory)
            d.addCallbacks(listening, failed, callbackArgs=(description,), errbackArgs=(description,))

    def stop() -> Any:
        from twisted.internet.defer import gatherResults
        from twisted.internet.task import deferLater

        log.info("Shutting down")
        server.shutdown()
        stopped = gatherResults([p.stopListening() for p in ports], consumeErrors=True)

        def drained(waited: float = 0.0) -> Any:
            # Let the goodbyes reach the players before the reactor drops the sockets.
            if server.connections == 0 or waited >= SHUTDOWN_GRACE:
                return None
            return deferLater(reactor, 0.05, drained, waited + 0.05)

        return stopped.addCallback(lambda _: drained())

    reactor.callWhenRunning(start)
    reactor.addSystemEventTrigger("before", "shutdown", stop)
    reactor.run()
    return status["code"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
