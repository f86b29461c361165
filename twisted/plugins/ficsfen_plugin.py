"""``twist ficsfen``: the ficsfen telnet server as a Twisted application plugin.

    twist ficsfen --listen tcp:5000 --config config/ficsfen.toml [--feed tcp:5001]
    twistd -n ficsfen ...

Runs the same server as ``ficsfen serve``: the service comes from
:func:`ficsfen.server.serve.make_service`, the builder ``ficsfen serve`` itself
runs (same configuration file, same ``--listen`` endpoints, same feed, same
shutdown), with ``twist``'s own logging and reactor selection.  Twisted
imports every plugin file whenever it looks for plugins, so this module
imports ficsfen's server only in :meth:`FicsfenServiceMaker.makeService`.

This file ships in the wheel as ``twisted/plugins/ficsfen_plugin.py``; there
is deliberately no ``__init__.py`` in ``twisted/`` or ``twisted/plugins/``.
"""

from __future__ import annotations

import sys
from typing import Any

from twisted.application.service import IServiceMaker
from twisted.plugin import IPlugin
from twisted.python import usage
from zope.interface import implementer

# The very option help texts of `ficsfen serve` (light modules: no server yet).
from ficsfen.server.feed import FEED_OPTION_HELP
from ficsfen.i18n import language_from_environ
from ficsfen.server.serve import CONFIG_OPTION_HELP, DATA_OPTION_HELP, LISTEN_OPTION_HELP, WEB_OPTION_HELP


def _help(message: Any) -> str:
    """An option's help in the operator's language."""
    return message.render(language_from_environ())


class Options(usage.Options):
    """The options of ``ficsfen serve``, for ``twist``/``twistd``."""

    synopsis = ("[--config FILE] [--listen ENDPOINT]... [--feed ENDPOINT] [--data FILE|none] "
                "[--web ENDPOINT|none]")

    optParameters = [
        ["config", "c", None, _help(CONFIG_OPTION_HELP)],
        ["feed", None, None, _help(FEED_OPTION_HELP)],
        ["data", None, None, _help(DATA_OPTION_HELP)],
        ["web", None, None, _help(WEB_OPTION_HELP)],
    ]

    def __init__(self) -> None:
        super().__init__()
        self["listen"] = []

    def opt_listen(self, endpoint: str) -> None:
        self["listen"].append(endpoint)

    opt_listen.__doc__ = _help(LISTEN_OPTION_HELP)
    opt_l = opt_listen

    def postOptions(self) -> None:
        from ficsfen.server.config import ConfigError, load, web_endpoint
        from ficsfen.server.serve import data_file_option

        try:
            config = load(self["config"])
        except ConfigError as e:
            raise usage.UsageError(e.render(language_from_environ())) from None
        if self["listen"]:
            config = config.with_listen(self["listen"])
        if self["data"] is not None:
            config = config.with_data_file(data_file_option(self["data"]))
        if self["web"] is not None:
            config = config.with_web(web_endpoint(self["web"]))
        self["configuration"] = config


@implementer(IServiceMaker, IPlugin)
class FicsfenServiceMaker:
    """What ``twist`` and ``twistd`` find under the name ``ficsfen``."""

    tapname = "ficsfen"
    description = "FICS-style chess telnet server with FEN and localized help (ficsfen)."
    options = Options

    def makeService(self, options: Options) -> Any:
        from twisted.internet import reactor

        from ficsfen.server import serve
        from ficsfen.server.store import StoreError

        # The very builder `ficsfen serve` runs: one server, two ways to start it.
        try:
            return serve.make_service(options["configuration"], reactor=reactor,
                                      feed=options["feed"], lang=language_from_environ())
        except serve.EndpointError as e:
            print(e.render(language_from_environ()), file=sys.stderr)
            raise SystemExit(2) from None
        except StoreError as e:  # the same exit status as `ficsfen serve`
            print(e.render(language_from_environ()), file=sys.stderr)
            raise SystemExit(1) from None


ficsfen = FicsfenServiceMaker()
