"""The web side of the server: an HTTP site whose ``/ws`` is the WebSocket door.

:func:`make_site` builds the :class:`twisted.web.server.Site` each web
connection's HTTP channel belongs to (:mod:`ficsfen.server.websocket`):
``/ws`` upgrades to a WebSocket when the request's ``Origin`` is allowed
(:func:`origin_allowed`); ``/``, ``/game/N`` and ``/static/...`` are the web
page (:mod:`ficsfen.server.webpage`); every other path is 404.
"""

from __future__ import annotations

from typing import Any, Callable
from urllib.parse import urlsplit

from twisted.logger import Logger
from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource
from twisted.web.server import Site
from twisted.web.websocket import WebSocketResource, WebSocketServerFactory

from ficsfen.i18n import msg
from ficsfen.server.webpage import page_resources

__all__ = ["OriginCheckedResource", "make_site", "origin_allowed"]

log = Logger()


def _origin_key(text: str) -> tuple[str, str]:
    """(scheme, host[:port]) of an origin or URL, lower-case; the port left out when
    it is the scheme's default."""
    parts = urlsplit(text.strip().lower())
    netloc = parts.netloc
    default = {"http": ":80", "https": ":443", "ws": ":80", "wss": ":443"}.get(parts.scheme)
    if default is not None and netloc.endswith(default):
        netloc = netloc[:-len(default)]
    return parts.scheme, netloc


def origin_allowed(origin: str | None, host: str | None, origins: tuple[str, ...]) -> bool:
    """Whether a WebSocket request from ``origin`` (its ``Origin`` header) may open.

    No ``Origin`` (a script, not a browser): allowed.  With ``origins``
    configured (``[web] origins``), the origin must be one of them (scheme,
    host and port; ``"*"`` allows any).  Without, it must be the site's own:
    the host (and port) of the request's ``Host`` header, over http or https
    (a TLS proxy in front changes the scheme).
    """
    if origin is None:
        return True
    if origins:
        key = _origin_key(origin)
        return "*" in origins or any(_origin_key(o) == key for o in origins)
    if not host:
        return False
    scheme, netloc = _origin_key(origin)
    return scheme in ("http", "https") and netloc in (_origin_key(f"{scheme}://{host}")[1],)


class OriginCheckedResource(WebSocketResource):
    """Twisted's WebSocket resource, refusing (403) a browser from another site."""

    def __init__(self, factory: WebSocketServerFactory[Any], origins: tuple[str, ...],
                 language: Callable[[], str]) -> None:
        super().__init__(factory)
        self.origins = origins
        self._language = language

    def getChild(self, path: bytes, request: Any) -> IResource:  # noqa: N802 - Twisted's name
        return notFound()  # /ws/anything

    def render_GET(self, request: Any) -> bytes | int:  # noqa: N802 - Twisted's name
        origin = request.getHeader("origin")
        if not origin_allowed(origin, request.getHeader("host"), self.origins):
            log.info("refused a WebSocket from {peer}: origin {origin} not allowed (web.origins)",
                     peer=str(request.getClientAddress()), origin=origin)
            request.setResponseCode(403)
            request.setHeader("content-type", "text/plain; charset=utf-8")
            text = msg("This site does not accept WebSocket connections from {origin}.", origin=origin)
            return (text.render(self._language()) + "\n").encode("utf-8")
        return super().render_GET(request)


class _Root(Resource):
    """The site's root: ``/ws``, the page's resources; every other path is 404."""

    def getChild(self, path: bytes, request: Any) -> IResource:  # noqa: N802 - Twisted's name
        return notFound()


def make_site(door: WebSocketServerFactory[Any], *, origins: tuple[str, ...], timeout: float,
              clock: Any, language: Callable[[], str]) -> Site:
    """The site: ``/ws`` is the WebSocket door (``door`` builds its protocols), ``/``,
    ``/game/N`` and ``/static/`` the page, the rest 404.

    ``timeout``: seconds an HTTP connection may stay idle before the upgrade;
    ``clock``: the reactor its timeouts run on.
    """
    root = _Root()
    root.putChild(b"ws", OriginCheckedResource(door, origins, language))
    for name, child in page_resources().items():
        root.putChild(name, child)
    site = Site(root, timeout=timeout, reactor=clock, parsePOSTFormSubmission=False)
    site.noisy = False
    return site
