"""The real server: `ficsfen serve` in a child process, raw sockets on loopback."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

import pytest
from twisted.conch.telnet import AYT, DO, ECHO, IAC, NAWS, SB, SE, WILL, WONT

from ficsfen.server.config import hash_password
from ficsfen.server.testing import ServerProcess

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
AFTER_C5 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
AFTER_NF3 = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@pytest.fixture(scope="module")
def served():
    with ServerProcess() as process:
        yield process


def fen_line(client, args=""):
    lines = client.command(f"fen {args}".strip()).strip("\n").split("\n")
    assert len(lines) == 2, lines
    return lines[1]


@pytest.mark.slow
def test_guest_login_help_and_language(served):
    with served.connect() as c:
        handle = c.login()
        assert handle.startswith("Guest")
        english = c.command("help fen")
        assert "Forsyth" in english and "fen" in english
        assert c.command("he fen") == english
        assert c.command("set lang fr").strip() == "Langue\u202f: Français."
        french = c.command("help fen")
        assert "Forsyth" in french and french != english
        assert c.command("xyz").strip() == "xyz\u202f: commande introuvable."
        c.send("quit")
        assert "Déconnexion." in c.read_until("Au revoir\u202f!")


def test_examine_moves_and_fen_from_a_second_session(served):
    with served.connect() as a, served.connect() as b:
        alice = a.login("Xavier")
        b.login()
        assert "examine (scratch) mode" in a.command("ex")
        for move, expected in (("e4", AFTER_E4), ("c5", AFTER_C5), ("Nf3", AFTER_NF3)):
            a.command(move)
            assert fen_line(a) == expected
        assert fen_line(b, alice) == AFTER_NF3
        assert fen_line(b, "xav") == AFTER_NF3  # a unique prefix, any case
        number = a.command("fen").split()[1]
        assert fen_line(b, number) == AFTER_NF3


def test_bsetup_round_trip_and_errors(served):
    with served.connect() as c:
        c.login()
        c.command("examine")
        record = "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"
        c.command(f"bsetup fen {record}")
        c.command("bsetup done")
        assert fen_line(c) == record
        bad = c.command("bsetup fen 4k3/8/8/8/8/8/4P3/4K3 w KQ - 5 39")
        assert "field 3 (castling)" in bad
        assert fen_line(c) == record
        c.command("set lang fr")
        assert "champ 3 (roques)" in c.command("bsetup fen 4k3/8/8/8/8/8/4P3/4K3 w KQ - 5 39")


def test_garbage_iac_noise_and_a_100_kb_line_leave_everything_working(served):
    with served.connect() as noisy, served.connect() as other:
        noisy.login()
        other.login()
        noisy.send_bytes(bytes(range(256)) * 4 + b"\r\n")
        noisy.send_bytes(IAC + b"\x02" + IAC + AYT + IAC + WILL + NAWS + IAC + SB + NAWS
                         + b"\x00\x50\x00\x18" + IAC + SE + IAC + DO + b"\x99" + b"\xc3(\xe9\r\n")
        noisy.send_bytes(b"A" * 100_000 + b"\r\n")
        noisy.send("fen")
        seen = noisy.read_until("observing a game.")
        assert "longer than 1024 bytes and has been ignored" in seen
        noisy.read_until("fics% ")
        assert "You are not playing" in noisy.command("fen")
        assert "You are not playing" in other.command("fen")


@pytest.mark.slow
def test_bad_config_is_reported_in_the_operators_language(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[limits]\nline_length = -3\n")
    code = ("import sys; from ficsfen.server.serve import main; sys.exit(main(sys.argv[1:]))")
    for lang, expected in (("C", "setting limits.line_length: expected a positive integer"),
                           ("fr_FR.UTF-8", "réglage limits.line_length\u202f: un entier positif attendu")):
        done = subprocess.run([sys.executable, "-c", code, "--config", str(bad)],
                              capture_output=True, text=True, timeout=60,
                              env={"LC_ALL": lang, "PATH": ""})
        assert done.returncode == 2
        assert expected in done.stderr


@pytest.mark.slow
def test_sigint_and_sigterm_shut_down_cleanly():
    # A runner started in the background by a shell ignores SIGINT, and a child
    # inherits that (Twisted then leaves SIGINT alone, as it should): start the
    # servers with SIGINT caught, as from a terminal.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _shut_down_by_each_signal()
    finally:
        signal.signal(signal.SIGINT, previous)


def _shut_down_by_each_signal():
    for sig in (signal.SIGINT, signal.SIGTERM):
        process = ServerProcess()
        process.start()
        try:
            with process.connect() as c:
                c.login()
                process.process.send_signal(sig)
                assert "shutting down" in c.read_until("Goodbye.")
            assert process.wait(30) == 0
            assert any("Shutting down" in line for line in process.log_lines)
        finally:
            process.stop()


@pytest.mark.slow
def test_bad_endpoint_exits_2():
    code = "import sys; from ficsfen.server.serve import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "--listen", "nonsense:1"],
                          capture_output=True, text=True, timeout=60, env={"LC_ALL": "C", "PATH": ""})
    assert done.returncode == 2
    assert 'Bad endpoint "nonsense:1"' in done.stderr


@pytest.mark.slow
def test_feed_reports_the_moves_of_an_examined_game():
    feed = "tcp:interface=127.0.0.1:port=0"
    with ServerProcess("--feed", feed, listeners=2) as process:
        reader = socket.create_connection(("127.0.0.1", process.ports[feed]), timeout=20)
        stream = reader.makefile("rb")
        assert json.loads(stream.readline())["type"] == "hello"
        with process.connect() as c:
            c.login("Yolanda")
            c.command("examine")
            c.command("e4")
        start = json.loads(stream.readline())
        move = json.loads(stream.readline())
        reader.close()
    assert start["type"] == "start" and start["examined"] and start["white"] == "Yolanda"
    assert (move["type"], move["san"], move["fen"]) == ("move", "e4", AFTER_E4)


@pytest.mark.slow
def test_registered_account_logs_in_with_a_hidden_password(tmp_path):
    config = tmp_path / "accounts.toml"
    config.write_text(f'[accounts]\nalice = "{hash_password("s3cret", iterations=2000)}"\n')
    with ServerProcess("--config", str(config)) as process, process.connect() as c:
        c.read_until("login: ")
        c.send("alice")
        assert c.read_bytes_until("password: ").endswith(IAC + WILL + ECHO + b"password: ")
        c.send_bytes(IAC + DO + ECHO)
        c.send("nope")
        assert IAC + WONT + ECHO in c.read_bytes_until("login: ")
        c.send("alice")
        c.read_until("password: ")
        c.send_bytes(IAC + DO + ECHO)
        c.send("s3cret")
        assert "**** Starting FICS session as alice ****" in c.read_until("fics% ")


def test_full_collections_are_spaced_and_young_ones_kept():
    """The server makes full collector passes rarer (they pause the reactor), nothing else."""
    import gc

    from ficsfen.server.serve import FULL_COLLECTION_EVERY, space_full_collections

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        space_full_collections()
        assert gc.get_threshold() == (700, 10, FULL_COLLECTION_EVERY) == (700, 10, 100)
    finally:
        gc.set_threshold(*before)
