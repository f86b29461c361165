"""The server's memory allocator: ``ficsfen serve`` restarts itself once under
``PYTHONMALLOC=malloc`` (``[limits] allocator``), same process id, unless the
operator chose an allocator in the environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ficsfen import cli
from ficsfen.server.allocator import restart_with
from ficsfen.server.config import ConfigError, load
from ficsfen.server.testing import ServerProcess

ARGV = ["/venv/bin/python", "-m", "ficsfen", "serve", "--listen", "tcp:5000"]


def environ_of(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode().split("=", 1) for p in pairs if b"=" in p)


def without_allocator() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}


def test_malloc_restarts_the_same_command_line_with_the_variable_set():
    calls = []
    assert restart_with("malloc", argv=ARGV, environ={"HOME": "/h"}, executable="/venv/bin/python",
                        execve=lambda *call: calls.append(call))
    assert calls == [("/venv/bin/python", ARGV, {"HOME": "/h", "PYTHONMALLOC": "malloc"})]


@pytest.mark.parametrize("allocator, environ", [
    ("python", {}),
    ("malloc", {"PYTHONMALLOC": "malloc"}),  # the restarted process: once only
    ("malloc", {"PYTHONMALLOC": "pymalloc"}),  # the operator's choice wins
])
def test_no_restart_when_the_allocator_is_chosen_already(allocator, environ):
    def execve(*call):
        raise AssertionError(f"restarted: {call}")

    assert not restart_with(allocator, argv=ARGV, environ=environ, execve=execve)


def test_the_config_key_takes_malloc_or_python(tmp_path):
    assert load(None).allocator == "malloc"
    path = tmp_path / "ficsfen.toml"
    path.write_text('[limits]\nallocator = "python"\n', encoding="utf-8")
    assert load(path).allocator == "python"
    path.write_text('[limits]\nallocator = "jemalloc"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load(path)
    assert "allocator" in info.value.render("en") and "malloc, python" in info.value.render("en")


def test_a_command_line_run_inside_another_program_never_restarts_it(monkeypatch, tmp_path,
                                                                      capsys):
    """``cli.main(argv)`` is a host's (or a test's) call: its process is not the server's."""
    def execve(*call):
        raise AssertionError(f"restarted the host: {call}")

    monkeypatch.setattr(os, "execve", execve)
    monkeypatch.delenv("PYTHONMALLOC", raising=False)
    assert cli.main(["serve", "--data", "none", "--listen", "nonsense:1"]) != 0


def test_a_real_server_runs_under_malloc_in_the_process_it_was_started_as():
    with ServerProcess(env=without_allocator()) as server, server.connect() as client:
        assert environ_of(server.process.pid)["PYTHONMALLOC"] == "malloc"
        client.login()
        assert "rnbqkbnr" not in client.command("fen")  # it answers: not playing
        assert server.process.poll() is None


def test_the_operators_variable_or_the_config_key_keep_cpythons_allocator(tmp_path):
    with ServerProcess(env={**without_allocator(), "PYTHONMALLOC": "pymalloc"}) as server:
        assert environ_of(server.process.pid)["PYTHONMALLOC"] == "pymalloc"
    config = tmp_path / "ficsfen.toml"
    config.write_text('[limits]\nallocator = "python"\n', encoding="utf-8")
    with ServerProcess("--config", str(config), env=without_allocator()) as server:
        assert "PYTHONMALLOC" not in environ_of(server.process.pid)
