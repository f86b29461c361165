"""What the two-node tests share: the nodes' configuration, starting two real
``ficsfen serve`` nodes on one Redis (and one PostgreSQL database), logging in,
and waiting for a condition with a generous deadline (nothing is timed)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from ficsfen.server.testing import ServerProcess, TelnetClient, accounts_config

PASSWORDS = {"alice": "apass", "bob": "bpass", "carol": "cpass", "dave": "dpass"}
DEADLINE = 60.0


def eventually(what: str, attempt: Callable[[], bool]) -> None:
    """Retry ``attempt()`` until it holds; fail after :data:`DEADLINE` seconds."""
    deadline = time.monotonic() + DEADLINE
    while not attempt():
        if time.monotonic() > deadline:
            pytest.fail(f"never: {what}")
        time.sleep(0.05)


def node_config(tmp_path: Path, name: str, ns: str,
                passwords: Mapping[str, str] = PASSWORDS, extra: str = "") -> Path:
    """A node's configuration: the accounts, its name, the cluster's namespace and a
    quick heartbeat (0.2 s, gone after 1.5 s); ``extra``: more TOML tables."""
    path = accounts_config(tmp_path / f"{name}.toml", dict(passwords))
    path.write_text(path.read_text() + f'[cluster]\nnode = "{name}"\nnamespace = "{ns}"\n'
                    "heartbeat_interval = 0.2\nheartbeat_timeout = 1.5\n" + extra)
    return path


@contextmanager
def two_nodes(tmp_path: Path, redis_url: str, ns: str, data: str | None = None,
              extra: str = "") -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Nodes ``one`` and ``two`` on the Redis at ``redis_url``; with ``data`` (a database
    URL) sharing it, the first one started alone so that it makes the schema and imports
    the accounts; ``extra``: more TOML tables of both nodes' configuration."""
    store = ("--data", data) if data is not None else ()
    one = ServerProcess("--config", str(node_config(tmp_path, "one", ns, extra=extra)),
                        "--cluster", redis_url, *store)
    with one:
        two = ServerProcess("--config", str(node_config(tmp_path, "two", ns, extra=extra)),
                            "--cluster", redis_url, *store)
        with two:
            yield one, two


def login(node: ServerProcess, name: str) -> TelnetClient:
    """``name`` logged in on ``node`` with its password."""
    client = node.connect()
    client.login(name, PASSWORDS[name])
    return client
