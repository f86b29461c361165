"""The web page's resources: ``/``, ``/game/N`` and ``/static/...``, from the package.

The page and its assets live in ``ficsfen/web/static`` (shipped in the
wheel; the vendored chessground under ``vendor/chessground`` is rebuilt by
``tools/web/build_chessground.sh``).  :func:`page_resources` gives the site
its children:

- ``/`` and ``/game/N`` (N a game number): ``index.html``, the same page
  (the script reads the address to know what to show);
- ``/static/<path>``: the files under ``ficsfen/web/static``, with the
  content types of :data:`CONTENT_TYPES`; no directory listings (404).

Every answer carries :data:`SECURITY_HEADERS`: a Content-Security-Policy
that allows scripts, styles and connections from the site itself only (no
inline script, no ``eval``), and ``X-Content-Type-Options: nosniff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource
from twisted.web.static import File

__all__ = ["CONTENT_TYPES", "CSP", "SECURITY_HEADERS", "STATIC_DIR", "PageFile", "page_resources"]

#: Where the page and its assets are: ``ficsfen/web/static`` in the package.
STATIC_DIR = Path(__file__).resolve().parents[1] / "web" / "static"

#: The page's Content-Security-Policy: its own scripts, styles and WebSocket
#: only; images also as ``data:`` URIs (chessground's board and pieces are
#: SVGs inlined in its CSS); no plug-ins, no framing, no <base>.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

#: Headers every answer of the page's resources carries.
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
)

#: Content types by file extension (anything else: application/octet-stream).
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}


def _secure(request: Any) -> None:
    for name, value in SECURITY_HEADERS:
        request.setHeader(name, value)


class PageFile(File):
    """Twisted's static :class:`~twisted.web.static.File` with the page's content types
    and security headers, and no directory listings or index files (a directory is 404)."""

    contentTypes = CONTENT_TYPES
    indexNames: list[str] = []

    def __init__(self, path: str | Path, defaultType: str = "application/octet-stream",  # noqa: N803
                 ignoredExts: tuple[str, ...] = (), registry: Any = None) -> None:  # noqa: N803
        # File's signature: createSimilarFile builds a directory's children with it
        super().__init__(str(path), defaultType, ignoredExts, registry)

    def directoryListing(self) -> IResource:  # noqa: N802 - Twisted's name
        return notFound()

    def render(self, request: Any) -> Any:
        if self.isdir():
            return notFound().render(request)
        _secure(request)
        return super().render(request)


class _Games(Resource):
    """``/game/N``: the page, for a game number N (digits); anything else 404."""

    def __init__(self, page: IResource) -> None:
        super().__init__()
        self._page = page

    def getChild(self, path: bytes, request: Any) -> IResource:  # noqa: N802 - Twisted's name
        if path.isdigit() and len(path) <= 9:
            return self._page
        return notFound()

    def render(self, request: Any) -> bytes:
        return notFound().render(request)  # /game itself


def page_resources(static_dir: Path = STATIC_DIR) -> dict[bytes, IResource]:
    """The site's children that make the page: ``b""`` (``/``), ``b"game"`` and ``b"static"``.

    :raises FileNotFoundError: ``static_dir`` has no ``index.html`` (a broken install).
    """
    index = static_dir / "index.html"
    if not index.is_file():
        raise FileNotFoundError(f"the web page is missing: {index}")
    page = PageFile(index)
    return {b"": page, b"game": _Games(page), b"static": PageFile(static_dir)}
