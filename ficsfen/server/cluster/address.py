"""Where a cluster's Redis server is: ``[cluster] url`` / ``--cluster URL`` read.

Kept apart from :mod:`.bus` so that the configuration can check a URL
without loading the Redis client.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

__all__ = ["RedisAddress", "parse_url"]


@dataclass(frozen=True)
class RedisAddress:
    """Where the Redis server is and how to log in to it (:func:`parse_url`)."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a Unix socket instead of host and port
    db: int | None = None
    username: str | None = None
    password: str | None = None


def parse_url(url: str) -> RedisAddress:
    """``redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`` or ``unix:///PATH[?db=DB]``.

    :raises ValueError: not such a URL (the message names what is wrong).
    """
    parts = urlsplit(url)
    if parts.scheme == "unix":
        if not parts.path:
            raise ValueError(f"{url!r}: a unix:// URL needs the socket's path")
        db = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p).get("db")
        if db is not None and not db.isdigit():
            raise ValueError(f"{url!r}: db must be a number")
        return RedisAddress(path=parts.path, db=int(db) if db is not None else None)
    if parts.scheme != "redis":
        raise ValueError(f"{url!r}: expected redis://HOST[:PORT][/DB] or unix:///PATH")
    try:
        port = parts.port or 6379
    except ValueError:
        raise ValueError(f"{url!r}: the port must be a number from 1 to 65535") from None
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise ValueError(f"{url!r}: the path must be a database number (/0)")
    return RedisAddress(host=parts.hostname or "127.0.0.1", port=port,
                        db=int(path) if path else None,
                        username=unquote(parts.username) if parts.username else None,
                        password=unquote(parts.password) if parts.password is not None else None)
