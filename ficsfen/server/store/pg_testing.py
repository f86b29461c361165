"""A throw-away PostgreSQL server on loopback, for tests and benchmarks.

:class:`TemporaryPostgres` runs the system's ``initdb`` and ``postgres``
(Debian's ``postgresql`` package: ``/usr/lib/postgresql/N/bin``, or on
``PATH``) in a temporary folder, listening on 127.0.0.1 only, on a free port,
with ``trust`` authentication (loopback and its own Unix socket in that
folder).  As root, the server runs as the ``postgres`` system user
(``initdb`` refuses root).  :meth:`~TemporaryPostgres.new_database` makes an
empty database and returns its URL.  :meth:`~TemporaryPostgres.stop` stops
the server and deletes the folder.  Nothing outside the folder is touched.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresMissing", "TemporaryPostgres", "find_binaries"]

_USER = "ficsfen"


class PostgresMissing(RuntimeError):
    """The PostgreSQL server programs are not installed."""


def find_binaries() -> Path:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres``.

    :raises PostgresMissing: none found.
    """
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if all(os.access(os.path.join(folder, p), os.X_OK) for p in ("initdb", "pg_ctl")):
            return Path(folder)
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    raise PostgresMissing("PostgreSQL's initdb and pg_ctl are not installed "
                          "(Debian: apt-get install postgresql)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TemporaryPostgres:
    """A PostgreSQL server in a temporary folder; :meth:`start` it, then :meth:`stop` it.

    ``durable=False`` (tests) turns ``fsync`` off: commits are acknowledged
    as the store expects, but not flushed to the disk; benchmarks keep it on.
    """

    def __init__(self, *, durable: bool = False) -> None:
        self.bin = find_binaries()
        self.durable = durable
        self.port = 0
        self.folder: Path | None = None
        self._databases = 0

    @property
    def data(self) -> Path:
        if self.folder is None:
            raise RuntimeError("the server is not started")
        return self.folder / "data"

    def _as_owner(self, argv: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *argv]
        return argv

    def start(self, *, timeout: float = 60.0) -> None:
        """initdb, then start the server and wait until it accepts connections.

        :raises RuntimeError: initdb or the server failed (their output in the message).
        """
        self.folder = Path(tempfile.mkdtemp(prefix="ficsfen-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        run = subprocess.run(self._as_owner([
            str(self.bin / "initdb"), "-D", str(self.data), "-U", _USER, "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync"]), capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"initdb failed: {run.stderr.strip() or run.stdout.strip()}")
        options = ["-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={self.folder}",
                   "-c max_connections=200", "-c shared_buffers=64MB"]
        if not self.durable:
            options += ["-c fsync=off", "-c full_page_writes=off"]
        for _ in range(5):  # a port taken between the probe and the bind: another one
            self.port = _free_port()
            run = subprocess.run(self._as_owner([
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                str(self.folder / "server.log"), "-w", "-t", str(int(timeout)),
                "-o", " ".join(options + [f"-p {self.port}"]), "start"]),
                capture_output=True, text=True)
            if run.returncode == 0:
                return
        log = (self.folder / "server.log")
        raise RuntimeError("the PostgreSQL server did not start: "
                           + (log.read_text()[-2000:] if log.exists() else run.stderr))

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database (a copy of ``template0``); its URL."""
        import psycopg

        self._databases += 1
        name = f"test_{os.getpid()}_{self._databases}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its folder."""
        if self.folder is None:
            return
        try:
            if self.data.exists():
                subprocess.run(self._as_owner([str(self.bin / "pg_ctl"), "-D", str(self.data),
                                               "-m", "fast", "-w", "stop"]),
                               capture_output=True, text=True)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
