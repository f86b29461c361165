"""Password hashes in a thread pool of their own, below the reactor's CPU priority."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from ficsfen.server.background import lower_thread_priority
from ficsfen.server.config import ConfigError, from_mapping, hash_password
from ficsfen.server.testing import ServerProcess

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a thread's own priority is a Linux notion")


def _nice_of(pid: int, tid: int) -> int:
    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_bytes()
    return int(stat[stat.rindex(b")") + 2:].split()[16])  # field 19: nice


@linux_only
def test_lowering_a_threads_priority_leaves_the_others_alone():
    seen: list[int] = []

    def work() -> None:
        lower_thread_priority(5)
        lower_thread_priority(5)  # once per thread: not 10
        seen.append(_nice_of(os.getpid(), threading.get_native_id()))

    before = _nice_of(os.getpid(), threading.get_native_id())
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [min(19, before + 5)]
    assert _nice_of(os.getpid(), threading.get_native_id()) == before


def test_the_pool_settings_are_checked():
    assert from_mapping({"limits": {"password_threads": 1, "password_nice": 0}}).password_nice == 0
    with pytest.raises(ConfigError):
        from_mapping({"limits": {"password_threads": 0}})
    with pytest.raises(ConfigError):
        from_mapping({"limits": {"password_nice": -1}})


@pytest.mark.slow
@linux_only
def test_a_real_server_checks_passwords_in_threads_of_lower_priority(tmp_path):
    config = tmp_path / "ficsfen.toml"
    config.write_text(f'[limits]\npassword_nice = 7\n[accounts]\n'
                      f'alice = "{hash_password("secret", iterations=1000)}"\n')
    with ServerProcess("--config", str(config)) as server:
        pid = server.process.pid
        base = _nice_of(pid, pid)
        with server.connect() as client:
            assert client.login("alice", "secret") == "alice"
        niceness = {_nice_of(pid, int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}
        assert _nice_of(pid, pid) == base  # the reactor's thread keeps its priority
        assert min(19, base + 7) in niceness  # the thread that checked the password
        with server.connect() as client:  # a wrong password is still refused
            client.send("alice")
            client.read_until("password: ")
            client.send("wrong")
            assert "Invalid password" in client.read_until("login: ")


@pytest.mark.slow
@linux_only
def test_the_pool_threads_are_started_with_the_server_lowered_already(tmp_path):
    """Started lazily, during a crowd of logins, the pool's threads and their locks
    were born among the crowd's objects and kept its memory (docs/benchmarks/memory.md)."""
    config = tmp_path / "ficsfen.toml"
    config.write_text("[limits]\npassword_threads = 3\npassword_nice = 7\n")
    with ServerProcess("--config", str(config)) as server:  # listening: no connection yet
        pid = server.process.pid
        base = _nice_of(pid, pid)
        niceness = [_nice_of(pid, int(tid)) for tid in os.listdir(f"/proc/{pid}/task")]
        assert niceness.count(min(19, base + 7)) == 3
