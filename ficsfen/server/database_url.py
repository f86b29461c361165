"""PostgreSQL URLs as ``--data`` and ``[storage] url`` take them (no database driver needed).

``postgresql://[USER[:PASSWORD]@][HOST][:PORT]/DATABASE[?PARAMETERS]`` (or
``postgres://``), libpq's URI form: the parameters are libpq's
(``sslmode``, ``connect_timeout``, ``host=/run/postgresql`` for a Unix
socket...), and what the URL leaves out comes from libpq's environment
variables (``PGPASSWORD``, ``PGHOST``...) and ``~/.pgpass``.  A password is
never shown: :func:`display_url` masks it in every message and log line.
"""

from __future__ import annotations

import re
import urllib.parse

__all__ = ["SCHEMES", "display_url", "is_database_url", "url_problem"]

#: The URL schemes that name a PostgreSQL database.
SCHEMES = ("postgresql", "postgres")
_SCHEME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.-]*)://")


def is_database_url(text: str) -> bool:
    """Whether ``text`` is a URL (``scheme://...``) rather than a file name.

    Any scheme counts, so that ``mysql://...`` is refused with a clear
    message (:func:`url_problem`) instead of becoming a file of that name.
    """
    return _SCHEME.match(text) is not None


def url_problem(text: str) -> str | None:
    """What is wrong with ``text`` as a database URL (English, for the operator), or ``None``."""
    match = _SCHEME.match(text)
    if match is None or match.group(1).lower() not in SCHEMES:
        return "only postgresql:// URLs name a database (anything else is a file name)"
    try:
        parts = urllib.parse.urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as e:
        return str(e)
    if not parts.path.strip("/"):
        return "the URL names no database (postgresql://HOST/DATABASE)"
    return None


def display_url(text: str) -> str:
    """``text`` with its password (in the user part or a ``password=`` parameter) masked."""
    try:
        parts = urllib.parse.urlsplit(text.strip())
    except ValueError:
        return "postgresql://..."
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = re.sub(r"(?i)(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
