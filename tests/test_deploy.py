"""The deployment kit: contrib/ficsfen.service and the Dockerfile.

No image is built and no systemd runs the unit here: the container's entry
command and the unit's ExecStart are run as plain processes (same
arguments; the data folder moved to a temporary one, the ports to free
loopback ones), and the image's HEALTHCHECK command is run against them.
``systemd-analyze verify`` checks the unit where it is installed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "Dockerfile"
UNIT = REPO / "contrib" / "ficsfen.service"
DATA_DIR = "/var/lib/ficsfen"


# -- reading the files ------------------------------------------------------------


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continued lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        word, _, rest = full.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends with a continued line"
    return out


def exec_form(arguments: str) -> list[str]:
    """A JSON-array (exec form) argument list; the shell form is refused (no shell runs it)."""
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def dockerfile() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for word, rest in dockerfile_instructions(DOCKERFILE.read_text()):
        found.setdefault(word, []).append(rest)
    return found


def unit_settings(text: str) -> dict[str, list[str]]:
    """``Key`` -> its values in the unit (every section), comments dropped."""
    settings: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


# -- running a command line as the server -----------------------------------------


def local_endpoint(endpoint: str, spelling: str) -> str:
    """``endpoint`` (tcp:PORT:interface=ADDRESS) on a free loopback port: ``spelling``
    is ``tcp:0`` or ``tcp:port=0``, so that the log tells two endpoints apart."""
    kind, port, *options = endpoint.split(":")
    assert kind == "tcp" and port.isdigit(), endpoint
    options = [o for o in options if not o.startswith("interface=")]
    return ":".join([spelling, *options, "interface=127.0.0.1"])


def localized(argv: list[str], data: Path) -> tuple[list[str], dict[str, str]]:
    """The serve command line ``argv`` with its data folder moved to ``data`` and its
    endpoints on free loopback ports; also which new endpoint stands for which old one."""
    out: list[str] = []
    moved: dict[str, str] = {}
    spellings = iter(["tcp:0", "tcp:port=0"])
    for i, arg in enumerate(argv):
        if i and argv[i - 1] in ("--listen", "--web"):
            new = local_endpoint(arg, next(spellings))
            moved[new] = arg
            out.append(new)
        elif arg.startswith(DATA_DIR + "/"):
            out.append(str(data / arg[len(DATA_DIR) + 1:]))
        else:
            out.append(arg)
    return out, moved


class Running:
    """A server command line run as a plain process; :attr:`ports` by endpoint once listening."""

    def __init__(self, argv: list[str], expected: int) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        for name in ("LANG", "LC_ALL", "LC_MESSAGES"):
            env.pop(name, None)  # the log in English
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, env=env)
        self.log: list[str] = []
        self.ports: dict[str, int] = {}
        self.expected = expected
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(60) or len(self.ports) < expected:
            self.stop()
            raise AssertionError("the server did not start:\n" + "".join(self.log))

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            m = re.search(r"Listening on 127\.0\.0\.1:(\d+) \((.*)\)$", line.rstrip("\n"))
            if m:
                self.ports[m.group(2)] = int(m.group(1))
                if len(self.ports) >= self.expected:
                    self.ready.set()
        self.ready.set()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(60)
        self.reader.join(60)
        return code


def as_python(argv: list[str]) -> list[str]:
    """``ficsfen ...`` or ``python ...`` run by this interpreter, from this checkout."""
    if argv[0] == "ficsfen" or argv[0].endswith("/ficsfen"):
        return [sys.executable, "-m", "ficsfen", *argv[1:]]
    if argv[0] in ("python", "python3"):
        return [sys.executable, *argv[1:]]
    raise AssertionError(f"unexpected program {argv[0]!r}")


def healthcheck(argv: list[str], telnet_port: int, port: int) -> subprocess.CompletedProcess[str]:
    """The HEALTHCHECK command, its ``--port`` (the telnet port) moved to ``port``."""
    argv = list(argv)
    at = argv.index("--port")
    assert argv[at + 1] == str(telnet_port)
    argv[at + 1] = str(port)
    env = dict(os.environ, PYTHONPATH=str(REPO), LANG="C")
    env.pop("LC_ALL", None)
    return subprocess.run(as_python(argv), capture_output=True, text=True, timeout=60, env=env)


# -- the Dockerfile ---------------------------------------------------------------


def test_dockerfile_base_user_volume_ports_and_commands():
    found = dockerfile()
    assert found["FROM"] == ["python:3.12-slim"]
    [user] = found["USER"]
    assert user not in ("root", "0") and not user.startswith(("root:", "0:"))
    assert exec_form(found["VOLUME"][0]) == [DATA_DIR]
    argv = exec_form(found["ENTRYPOINT"][0]) + exec_form(found["CMD"][0])
    assert argv[:2] == ["ficsfen", "serve"]
    data = argv[argv.index("--data") + 1]
    assert data.startswith(DATA_DIR + "/"), "the data file is in the volume"
    listen, web = argv[argv.index("--listen") + 1], argv[argv.index("--web") + 1]
    # every interface inside the container; the host decides what it publishes
    assert listen.endswith(":interface=0.0.0.0") and web.endswith(":interface=0.0.0.0")
    exposed = found["EXPOSE"][0].split()
    assert exposed == [listen.split(":")[1], web.split(":")[1]]
    [health] = found["HEALTHCHECK"]
    options, _, command = health.partition(" CMD ")
    probe = exec_form(command)
    assert probe[:3] == ["python", "-m", "ficsfen.server.healthcheck"]
    assert probe[probe.index("--port") + 1] == exposed[0]
    # the probe gives up before docker does
    docker_timeout = float(re.search(r"--timeout=(\d+)s", options).group(1))
    assert float(probe[probe.index("--timeout") + 1]) < docker_timeout
    assert found["STOPSIGNAL"] == ["SIGTERM"]


def test_dockerignore_keeps_the_checkouts_environment_out():
    ignored = (REPO / ".dockerignore").read_text().split()
    assert {".git", ".venv", "**/__pycache__"} <= set(ignored)


@pytest.mark.slow
def test_image_command_serves_and_its_healthcheck_passes_then_fails(tmp_path):
    found = dockerfile()
    argv = exec_form(found["ENTRYPOINT"][0]) + exec_form(found["CMD"][0])
    local, moved = localized(argv, tmp_path)
    probe = exec_form(found["HEALTHCHECK"][0].partition(" CMD ")[2])
    telnet_port = int(probe[probe.index("--port") + 1])
    server = Running(as_python(local), expected=2)
    try:
        telnet = next(local_port for endpoint, local_port in server.ports.items()
                      if moved[endpoint].split(":")[1] == str(telnet_port))
        done = healthcheck(probe, telnet_port, telnet)
        assert (done.returncode, done.stderr) == (0, ""), "".join(server.log)
        assert any("login Guest" in line for line in server.log)
        assert (tmp_path / "ficsfen.sqlite3").exists(), "the data file is created in the volume"
    finally:
        assert server.stop() == 0
    down = healthcheck(probe, telnet_port, telnet)
    assert down.returncode == 1
    assert down.stderr.startswith(f"ficsfen healthcheck: cannot connect to 127.0.0.1:{telnet}: ")


@pytest.mark.slow
def test_image_arguments_replace_cmd():
    # `docker run IMAGE --version`: the arguments after the image replace CMD
    entrypoint = exec_form(dockerfile()["ENTRYPOINT"][0])
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(as_python(entrypoint + ["--version"]), capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0 and done.stdout.startswith("ficsfen ")


def test_healthcheck_fails_on_a_server_that_never_prompts():
    import socket

    from ficsfen.server.healthcheck import HealthError, check

    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        with pytest.raises(HealthError) as caught:
            check("127.0.0.1", port, timeout=0.2)  # accepted by the backlog, never answered
    assert caught.value.message.render("en") == 'no "login:" prompt within 0.2 s'
    assert caught.value.message.render("fr") == "pas d’invite «\u202flogin:\u202f» en 0.2 s"


def test_healthcheck_fails_on_a_server_that_hangs_up():
    import socket

    from ficsfen.server.healthcheck import HealthError, check

    with socket.create_server(("127.0.0.1", 0)) as rude:
        port = rude.getsockname()[1]

        def hang_up() -> None:
            conn, _ = rude.accept()
            conn.sendall(b"Sorry, the server is full; please try again later.\r\n")
            conn.close()

        thread = threading.Thread(target=hang_up, daemon=True)
        thread.start()
        with pytest.raises(HealthError) as caught:
            check("127.0.0.1", port, timeout=30)
        thread.join(30)
    assert caught.value.message.render("en") == 'the server closed the connection before "login:"'


def test_healthcheck_usage_errors_exit_2(capsys):
    from ficsfen.server.healthcheck import main

    with pytest.raises(SystemExit) as caught:
        main(["--port", "70000"])
    assert caught.value.code == 2
    assert "--port" in capsys.readouterr().err


# -- the systemd unit -------------------------------------------------------------


def test_unit_runs_as_a_dynamic_user_with_its_state_directory_and_hardening():
    settings = unit_settings(UNIT.read_text())
    expected = {
        "DynamicUser": "yes", "StateDirectory": "ficsfen", "ProtectSystem": "strict",
        "Restart": "on-failure", "KillSignal": "SIGTERM", "NoNewPrivileges": "yes",
        "PrivateTmp": "yes", "ProtectHome": "yes",
        "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
    }
    for key, value in expected.items():
        assert settings.get(key) == [value], key
    [exec_start] = settings["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[1] == "serve"
    assert argv[argv.index("--data") + 1].startswith(DATA_DIR + "/")
    # SIGTERM adjourns and closes the store within a few seconds (SHUTDOWN_GRACE and
    # the last commit): the stop timeout leaves room for that
    from ficsfen.server.serve import SHUTDOWN_GRACE

    assert int(settings["TimeoutStopSec"][0]) >= 10 * SHUTDOWN_GRACE


@pytest.mark.slow
def test_unit_command_serves_and_stops_on_sigterm(tmp_path):
    argv = shlex.split(unit_settings(UNIT.read_text())["ExecStart"][0])
    local, moved = localized(argv, tmp_path)
    server = Running(as_python(local), expected=2)
    try:
        telnet = next(port for endpoint, port in server.ports.items() if moved[endpoint] == argv[3])
        probe = ["python", "-m", "ficsfen.server.healthcheck", "--port", "5000"]
        assert healthcheck(probe, 5000, telnet).returncode == 0
    finally:
        assert server.stop() == 0  # KillSignal=SIGTERM: a clean stop, status 0
    assert (tmp_path / "ficsfen.sqlite3").exists()
    assert any("Shutting down" in line for line in server.log)


def test_unit_passes_systemd_analyze_verify(tmp_path):
    # "where available": systemd-analyze is a system tool, not a Python dependency,
    # so this test skips without it even under CI=true.
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # verify checks that ExecStart's program exists: point it at this environment's ficsfen
    installed = Path(sys.executable).with_name("ficsfen")
    assert installed.exists(), "the ficsfen script of this environment"
    text = UNIT.read_text()
    assert "ExecStart=/usr/local/bin/ficsfen " in text
    unit = tmp_path / "ficsfen.service"
    unit.write_text(text.replace("ExecStart=/usr/local/bin/ficsfen ", f"ExecStart={installed} "))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert str(unit) not in output and "ficsfen.service" not in output, output
