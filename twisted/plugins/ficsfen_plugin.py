"""``twist ficsfen``: the ficsfen telnet server as a Twisted application plugin.

    twist ficsfen --listen tcp:5000 --config config/ficsfen.toml [--feed tcp:5001]
    twistd -n ficsfen ...

Runs the same server as ``ficsfen serve`` (same configuration file, same
``--listen`` endpoints, same shutdown), with ``twist``'s own logging and
reactor selection.  Twisted imports every plugin file whenever it looks
for plugins, so this module imports ficsfen's server only in
:meth:`FicsfenServiceMaker.makeService`.

This file ships in the wheel as ``twisted/plugins/ficsfen_plugin.py``; there
is deliberately no ``__init__.py`` in ``twisted/`` or ``twisted/plugins/``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from twisted.application.service import IServiceMaker, MultiService
from twisted.plugin import IPlugin
from twisted.python import usage
from zope.interface import implementer


def _operator_language() -> str:
    from ficsfen.i18n import language_from_locale

    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(name):
            return language_from_locale(os.environ[name])
    return language_from_locale(None)


def _text(msgid: str) -> str:
    """An option's help in the operator's language (msgids shared with ``ficsfen serve``)."""
    from ficsfen.i18n import msg

    return msg(msgid).render(_operator_language())


def _feed_help() -> str:
    from ficsfen.feed import FEED_OPTION_HELP

    return FEED_OPTION_HELP.render(_operator_language())


class Options(usage.Options):
    """The options of ``ficsfen serve``, for ``twist``/``twistd``."""

    synopsis = "[--config FILE] [--listen ENDPOINT]... [--feed ENDPOINT]"

    optParameters = [
        ["config", "c", None,
         _text("configuration file (default: the one shipped with ficsfen)")],
        ["feed", None, None, _feed_help()],
    ]

    def __init__(self) -> None:
        super().__init__()
        self["listen"] = []

    def opt_listen(self, endpoint: str) -> None:
        self["listen"].append(endpoint)

    opt_listen.__doc__ = _text(
        "Twisted endpoint to listen on, e.g. tcp:5000:interface=127.0.0.1; "
        "repeat for several (replaces the configuration's list)")
    opt_l = opt_listen

    def postOptions(self) -> None:
        from ficsfen.config import ConfigError, load

        try:
            config = load(self["config"])
        except ConfigError as e:
            raise usage.UsageError(e.render(_operator_language())) from None
        if self["listen"]:
            config = config.with_listen(self["listen"])
        self["configuration"] = config


class FicsService(MultiService):
    """The telnet server on its endpoints (and the feed, if any), as a Twisted service.

    Listening starts with the service; stopping it says goodbye to every
    session, closes the feed's readers and the listening ports.  A port
    that cannot be opened stops the reactor, as ``ficsfen serve`` does.
    """

    def __init__(self, server: Any, factory: Any, endpoints: list[tuple[str, Any]], *,
                 reactor: Any, feed: Any = None, feed_endpoint: tuple[str, Any] | None = None) -> None:
        super().__init__()
        self.server = server
        self.factory = factory
        self.endpoints = endpoints
        self.reactor = reactor
        self.feed = feed
        self.feed_endpoint = feed_endpoint
        self.ports: list[Any] = []

    def startService(self) -> None:
        from twisted.logger import Logger

        super().startService()
        log = Logger(namespace="ficsfen.serve")
        listeners = [(d, e, self.factory) for d, e in self.endpoints]
        if self.feed is not None and self.feed_endpoint is not None:
            listeners.append((*self.feed_endpoint, self.feed.factory()))

        def listening(port: Any, description: str) -> None:
            self.ports.append(port)
            host = port.getHost()
            log.info("Listening on {where} ({endpoint})",
                     where=f"{getattr(host, 'host', host)}:{getattr(host, 'port', '')}",
                     endpoint=description)

        def failed(failure: Any, description: str) -> None:
            log.error("Cannot listen on {endpoint}: {reason}", endpoint=description,
                      reason=failure.getErrorMessage())
            if self.reactor.running:
                self.reactor.stop()

        for description, endpoint, factory in listeners:
            d = endpoint.listen(factory)
            d.addCallbacks(listening, failed, callbackArgs=(description,),
                           errbackArgs=(description,))

    def stopService(self) -> Any:
        from twisted.internet.defer import gatherResults
        from twisted.internet.task import deferLater
        from twisted.logger import Logger

        from ficsfen import serve

        grace = getattr(serve, "SHUTDOWN_GRACE", 2.0)
        Logger(namespace="ficsfen.serve").info("Shutting down")
        self.server.shutdown()
        if self.feed is not None:
            self.feed.disconnect_all()
        ports, self.ports = self.ports, []
        super().stopService()
        stopped = gatherResults([p.stopListening() for p in ports], consumeErrors=True)

        def drained(waited: float = 0.0) -> Any:
            # Let the goodbyes reach the players before the reactor drops the sockets.
            if getattr(self.server, "connections", 0) == 0 or waited >= grace:
                return None
            return deferLater(self.reactor, 0.05, drained, waited + 0.05)

        return stopped.addCallback(lambda _: drained())


def make_service(config: Any, *, reactor: Any, feed: str | None = None) -> FicsService:
    """The server for ``config`` as a service; ``feed`` is the feed's endpoint or ``None``.

    :raises ValueError: an endpoint string Twisted cannot parse.
    """
    from twisted.internet.endpoints import serverFromString

    from ficsfen.feed import GameFeed
    from ficsfen.server import FicsServer
    from ficsfen.telnet import FicsFactory

    def endpoint(description: str) -> tuple[str, Any]:
        try:
            return description, serverFromString(reactor, description)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(description, str(e) or type(e).__name__) from None

    endpoints = [endpoint(d) for d in config.listen]
    feed_endpoint = endpoint(feed) if feed else None
    server = FicsServer(config, clock=reactor)
    game_feed = None
    if feed_endpoint is not None:
        game_feed = GameFeed()
        hooks = getattr(server, "game_hooks", None)
        if hooks is not None:
            hooks.append(game_feed)
    return FicsService(server, FicsFactory(server), endpoints, reactor=reactor,
                       feed=game_feed, feed_endpoint=feed_endpoint)


@implementer(IServiceMaker, IPlugin)
class FicsfenServiceMaker:
    """What ``twist`` and ``twistd`` find under the name ``ficsfen``."""

    tapname = "ficsfen"
    description = "FICS-style chess telnet server with FEN and localized help (ficsfen)."
    options = Options

    def makeService(self, options: Options) -> Any:
        from twisted.internet import reactor

        from ficsfen import serve
        from ficsfen.i18n import msg

        # serve.make_service is the shared builder once the server provides it.
        make = getattr(serve, "make_service", None) or make_service
        try:
            return make(options["configuration"], reactor=reactor, feed=options["feed"])
        except ValueError as e:
            description, reason = e.args if len(e.args) == 2 else (e.args[0], "")
            print(msg("Bad endpoint \"{endpoint}\": {reason}", endpoint=description,
                      reason=reason).render(_operator_language()), file=sys.stderr)
            raise SystemExit(2) from None


ficsfen = FicsfenServiceMaker()
