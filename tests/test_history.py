"""history, smoves, examine HANDLE N and password, on a real store filled through its API.

The store is a real SQLite file in tmp_path; the games are written into it
with ``start_game``/``add_move``/``end_game`` as the server's game flow does,
their FENs and SAN made by the tracker.  Commands run in-process through the
telnet protocol (``ficsfen.server.testing``).
"""

from __future__ import annotations

import re
import time

import chess
import pytest

from ficsfen.fen import STARTING_FEN
from ficsfen.server.boards import fen_from_style12
from ficsfen.server.commands.info import fics_date
from ficsfen.server.config import hash_password, verify_password
from ficsfen.server.store import EndCode, GameEnd, GameStart, MoveRecord, SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect, make_server
from ficsfen.tracker import Tracker

PASSWORD = "s3cret"
T0 = 1_700_000_000.0  # a fixed start time: dates in the output are checked exactly
FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]
SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


class Games:
    """A store in tmp_path and a way to record finished games into it."""

    def __init__(self, path, accounts=("alice", "bob", "carol")):
        self.reactor = private_reactor()
        self.store = SQLiteStore.open(path, reactor=self.reactor, synchronous="normal")
        self.hash = hash_password(PASSWORD, iterations=1000)
        for name in accounts:
            self.wait(self.store.add_account(name, self.hash))
        self.clock = T0

    def wait(self, d):
        return wait_for(self.reactor, d)

    def record(self, white, black, sans, *, result, reason, code, fen=STARTING_FEN,
               minutes=5, increment=0, wait=True):
        """Play ``sans`` from ``fen`` through the tracker and store the game; returns its id."""
        tracker = Tracker(fen)
        started = self.clock
        game_id, d = self.store.start_game(GameStart(white, black, minutes * 60, increment,
                                                     started, fen))
        clocks = [minutes * 60_000, minutes * 60_000]
        for i, san in enumerate(sans, 1):
            ply = tracker.push(san)
            took = 1000 * i + 250
            side = 0 if ply.color else 1
            clocks[side] -= took - increment * 1000
            d = self.store.add_move(game_id, MoveRecord(i, ply.san, ply.uci, clocks[0],
                                                        clocks[1], took))
        self.clock += 600
        d = self.store.end_game(game_id, GameEnd(result, reason, code, self.clock))
        if wait:
            self.wait(d)
        return game_id

    def close(self):
        self.wait(self.store.close())


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3")
    yield g
    g.close()


def server_on(games, **settings):
    return make_server(accounts={name: games.hash for name in ("alice", "bob", "carol")},
                       store=games.store, **settings)


def login(server, name=None, password=None):
    client = connect(server)
    client.output()
    if password is None:
        client.login(name)
        return client
    client.send(name)
    client.send(password)
    out = client.output()
    assert "Starting FICS session as" in out, out
    client.handle = name
    return client


# -- history --------------------------------------------------------------------------------

_LINE = re.compile(r"^(?P<num>[ \d]\d): (?P<res>[-+=]) +0 (?P<col>[WB]) +0 (?P<opp>\S+) +"
                   r"\[ (?P<type>[blsu][ru])(?P<min>[ \d]{3})(?P<inc>[ \d]{4})\] (?P<eco>---|[A-E]\d\d) "
                   r"(?P<end>[ \w]{3}) (?P<date>.+)$")


def test_history_lists_the_games_in_the_fics_layout(games):
    games.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
                 code=EndCode.MATE)
    games.record("bob", "alice", ["e4", "e5"], result="1-0", reason="alice resigns",
                 code=EndCode.RESIGNATION, minutes=1, increment=0)
    games.record("alice", "bob", ["d4"], result="1/2-1/2", reason="Game drawn by mutual agreement",
                 code=EndCode.AGREED, minutes=15)
    server = server_on(games)
    bob = login(server, "bob", PASSWORD)
    lines = bob.command("history alice").strip("\n").split("\n")
    assert lines[0] == "History for alice:"
    assert lines[1] == "                  Opponent      Type         ECO End Date"
    rows = [_LINE.match(line) for line in lines[2:]]
    assert all(rows), lines
    got = [(r["num"].strip(), r["res"], r["col"], r["opp"], r["type"], r["min"].strip(),
            r["inc"].strip(), r["eco"], r["end"].strip(), r["date"]) for r in rows]
    assert got == [  # ECO: the last position of each game that the opening table knows
        ("0", "+", "W", "bob", "bu", "5", "0", "C23", "Mat", fics_date(T0 + 600)),
        ("1", "-", "B", "bob", "lu", "1", "0", "C20", "Res", fics_date(T0 + 1200)),
        ("2", "=", "W", "bob", "su", "15", "0", "A40", "Agr", fics_date(T0 + 1800)),
    ]
    # bob's own history, without an argument: the same games from his side
    mine = bob.command("history").strip("\n").split("\n")
    assert mine[0] == "History for bob:"
    assert [_LINE.match(line)["res"] for line in mine[2:]] == ["-", "+", "="]


def test_history_of_a_player_who_is_not_logged_in_and_errors(games):
    games.record("Alice", "bob", FOOLS_MATE, result="0-1", reason="Alice checkmated",
                 code=EndCode.MATE)
    server = server_on(games)
    guest = login(server)
    out = guest.command("history ALICE")  # any case: the handle as the account spells it
    assert out.startswith("History for alice:")
    assert guest.command("history").strip() == f"{guest.handle} has no history games."
    assert guest.command("history carol").strip() == "carol has no history games."
    assert guest.command("history nobody").strip() == 'No player named "nobody" is logged in.'
    assert guest.command("history a b").strip() == "Usage: history [HANDLE]"


def test_history_shows_the_last_ten_numbered_modulo_100(games):
    for _ in range(103):
        games.record("alice", "bob", FOOLS_MATE, result="0-1", reason="alice checkmated",
                     code=EndCode.MATE, wait=False)
    games.wait(games.store.import_accounts({}))  # writes commit in order: all are in
    server = server_on(games)
    out = login(server).command("history alice").strip("\n").split("\n")
    numbers = [int(_LINE.match(line)["num"]) for line in out[2:]]
    assert numbers == [93, 94, 95, 96, 97, 98, 99, 0, 1, 2]


def test_history_without_a_data_file(games):
    server = make_server()
    server.store = None
    guest = login(server)
    assert guest.command("history").strip() == f"{guest.handle} has no history games."
    assert guest.command("smoves alice 0").strip() == 'No player named "alice" is logged in.'


# -- smoves -----------------------------------------------------------------------------------


def test_smoves_shows_the_stored_game_as_moves_does(games):
    games.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
                 code=EndCode.MATE)
    server = server_on(games)
    guest = login(server)
    lines = guest.command("smoves alice 0").split("\n")
    assert lines[:8] == [
        "",
        f"alice (UNR) vs. bob (UNR) --- {fics_date(T0)}",
        "Unrated blitz match, initial time: 5 minutes, increment: 0 seconds.",
        "",
        "Move  alice                   bob",
        "----  ---------------------   ---------------------",
        "  1.  e4      (0:01)          e5      (0:02)",
        "  2.  Bc4     (0:03)          Nc6     (0:04)",
    ]
    assert lines[8:11] == ["  3.  Qh5     (0:05)          Nf6     (0:06)",
                           "  4.  Qxf7#   (0:07)",
                           "      {Black checkmated} 1-0"]
    assert guest.command("smoves alice -1").split("\n") == lines  # -1: the last game


def test_smoves_of_a_game_begun_from_a_set_up_position(games):
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 12"
    games.record("bob", "alice", ["Kd7", "e4", "Ke6"], fen=fen, result="1/2-1/2",
                 reason="Game drawn by mutual agreement", code=EndCode.AGREED)
    guest = login(server_on(games))
    lines = guest.command("smoves bob 0").split("\n")
    assert f"Initial position: {fen}" in lines
    assert " 12.  ...                     Kd7     (0:01)" in lines
    assert " 13.  e4      (0:02)          Ke6     (0:03)" in lines


@pytest.mark.parametrize("lang, args, expected", [
    ("en", "alice 7", "There is no history game 7 for alice."),
    ("fr", "alice 7", "Il n’y a pas de partie 7 dans l’historique de alice."),
    ("en", "alice -5", "There is no history game -5 for alice."),
    ("en", "carol 0", "carol has no history games."),
    ("en", "alice x", "alice has no adjourned game with x."),
    ("fr", "alice x", "alice n’a pas de partie ajournée avec x."),
    ("en", "alice", "Usage: smoves HANDLE NUMBER|%SLOT|OPPONENT"),
    ("fr", "alice", "Usage : smoves PSEUDO NUMÉRO|%CASE|ADVERSAIRE"),
])
def test_smoves_errors(games, lang, args, expected):
    games.record("alice", "bob", FOOLS_MATE, result="0-1", reason="alice checkmated",
                 code=EndCode.MATE)
    guest = login(server_on(games))
    guest.command(f"set lang {lang}")
    assert guest.command(f"smoves {args}").strip() == expected.replace(" :", "\u202f:")


def test_a_damaged_stored_game_is_refused_not_shown(games, tmp_path):
    game_id = games.record("alice", "bob", FOOLS_MATE, result="0-1", reason="alice checkmated",
                           code=EndCode.MATE)
    import sqlite3
    with sqlite3.connect(tmp_path / "data.sqlite3") as conn:  # a move that cannot be played
        conn.execute("UPDATE game_moves SET uci = 'e2e5' WHERE game = ? AND ply = 2", (game_id,))
    guest = login(server_on(games))
    assert guest.command("smoves alice 0").strip() == "History game 0 not available for alice."
    assert guest.command("examine alice 0").strip() == "History game 0 not available for alice."
    assert guest.command("fen").strip() == "You are not playing, examining or observing a game."


# -- examine HANDLE N ---------------------------------------------------------------------------


def fens_after(sans, fen=STARTING_FEN):
    """python-chess's FEN after each of ``sans`` (e.p. square after every double step)."""
    board = chess.Board(fen)
    out = []
    for san in sans:
        board.push_san(san)
        out.append(board.fen(en_passant="fen"))
    return out


def fen_of(client):
    lines = client.command("fen").strip("\n").split("\n")
    return lines[-1]


def test_examine_steps_through_a_stored_game(games):
    games.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
                 code=EndCode.MATE)
    fens = fens_after(SCHOLARS_MATE)
    server = server_on(games)
    carol = login(server, "carol", PASSWORD)
    carol.command("set style 12")
    out = carol.command("examine alice 0")
    board = next(line for line in out.split("\n") if line.startswith("<12> "))
    fields = board.split()
    assert (fields[17], fields[18], fields[19]) == ("alice", "bob", "2")  # names, examiner
    assert fen_from_style12(board) == STARTING_FEN == fen_of(carol)
    carol.command("forward 3")
    assert fen_of(carol) == fens[2]
    carol.command("forward 10")
    assert fen_of(carol) == fens[-1]
    assert carol.command("forward").strip() == "You're at the end of the game."
    carol.command("backward 2")
    assert fen_of(carol) == fens[-3]
    carol.command("revert")
    assert fen_of(carol) == STARTING_FEN
    # another player finds it, and a second examine is refused
    guest = login(server)
    assert guest.command("fen carol").strip().endswith(STARTING_FEN)
    assert carol.command("examine alice 0").strip() == "You are already examining game 1."
    carol.command("unexamine")
    assert carol.command("fen").strip() == "You are not playing, examining or observing a game."


def test_examine_a_set_up_game_and_its_usage(games):
    fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    games.record("bob", "alice", ["exd6", "Nf6", "dxc7"], fen=fen, result="1-0",
                 reason="alice resigns", code=EndCode.RESIGNATION)
    guest = login(server_on(games))
    guest.command("examine bob -1")
    assert fen_of(guest) == fen
    guest.command("forward")
    assert fen_of(guest) == fens_after(["exd6"], fen)[0] == \
        "rnbqkbnr/ppp1pppp/3P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    guest.command("unexamine")
    assert guest.command("examine bob").strip() == "Usage: examine [HANDLE NUMBER|%SLOT]"
    assert guest.command("examine bob x").strip() == "Usage: examine [HANDLE NUMBER|%SLOT]"
    assert guest.command("examine bob 5").strip() == "There is no history game 5 for bob."
    assert "Starting a game in examine (scratch) mode." in guest.command("examine")


# -- password -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_password_changes_the_stored_hash(games):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    alice.command("password s3cret n3wer")
    games.wait(games.store.import_accounts({}))  # a later write: the change is committed
    assert alice.output().strip().startswith("Password changed.")
    stored = games.store.get_account("alice").password_hash
    assert verify_password("n3wer", stored) and not verify_password(PASSWORD, stored)


@pytest.mark.parametrize("lang, expected", [
    ("en", "Incorrect password, password not changed!"),
    ("fr", "Mot de passe incorrect, mot de passe inchangé\u202f!"),
])
def test_password_with_a_wrong_old_one_changes_nothing(games, lang, expected):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    alice.command(f"set lang {lang}")
    assert alice.command("password wrong n3wer").strip() == expected
    assert verify_password(PASSWORD, games.store.get_account("alice").password_hash)


@pytest.mark.parametrize("lang, expected", [
    ("en", "Setting a password is only for registered players."),
    ("fr", "Seuls les joueurs enregistrés ont un mot de passe."),
])
def test_password_is_refused_to_guests(games, lang, expected):
    guest = login(server_on(games))
    guest.command(f"set lang {lang}")
    assert guest.command("password a b").strip() == expected
    named = login(server_on(games), "dave")  # an unregistered name is no account either
    assert named.command("password a b").strip() == "Setting a password is only for registered players."


def test_password_usage_and_without_a_data_file(games):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    assert alice.command("password onlyone").strip() == "Usage: password OLD NEW"
    server.store = None
    assert alice.command("password s3cret n3wer").strip() == (
        "This server keeps no data file: passwords cannot be changed here.")


def test_password_check_runs_in_the_password_pool(games):
    """On a real reactor the slow check and hash leave the reactor thread: they run in
    the server's password pool, as login checks do."""
    import threading

    from ficsfen.server.background import BackgroundPool
    from ficsfen.server.commands import history

    seen = []
    original = history._new_hash

    def spy(*args):
        seen.append(threading.current_thread().name)
        return original(*args)

    reactor = games.reactor
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    # The server's own clock is a test Clock (hashes inline): give it a real pool.
    pool = server.accounts._password_pool = BackgroundPool(reactor, threads=1, nice=0,
                                                           name="test-passwords")
    history._new_hash = spy
    try:
        alice.command("password s3cret n3wer")
        deadline = time.monotonic() + 30
        while "Password changed." not in alice.transport.value().decode() and \
                time.monotonic() < deadline:
            reactor.runUntilCurrent()
            reactor.doIteration(0.05)
    finally:
        history._new_hash = original
        pool.stop()
    assert len(seen) == 1 and "test-passwords" in seen[0]
    assert "Password changed." in alice.output()


def test_a_failing_password_command_keeps_the_passwords_out_of_the_log(monkeypatch):
    from twisted.logger import formatEvent, globalLogPublisher

    from ficsfen.server.commands.history import PasswordCommand
    from ficsfen.server.testing import connect, make_server

    def broken(self, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(PasswordCommand, "run", broken)
    server = make_server()
    alice = connect(server)
    alice.login()
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        out = alice.command("passw hunter2 swordfish")
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert "internal error" in out
    text = " ".join(formatEvent(e) for e in events)
    assert "passw [hidden]" in text
    assert "hunter2" not in text and "swordfish" not in text


# -- password: throttled like a login ------------------------------------------------------


def _counting_hashes(monkeypatch):
    from ficsfen.server.commands import history

    calls: list[str] = []
    real = history._new_hash

    def counted(old, new, stored):
        calls.append(old)
        return real(old, new, stored)

    monkeypatch.setattr(history, "_new_hash", counted)
    return calls


def _login_text(server, name, password):
    client = connect(server)
    client.output()
    client.send(name)
    text = client.output()
    if "password: " in text:
        client.send(password)
        text += client.output()
    return text


def test_a_wrong_old_password_makes_the_next_wait_as_a_failed_login_does(games, monkeypatch):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    hashes = _counting_hashes(monkeypatch)
    assert alice.command("password guess1 n3wer").strip() == "Incorrect password, password not changed!"
    for guess in ("guess2", PASSWORD):  # refused before the hash, the right one too
        assert alice.command(f"password {guess} n3wer").strip() == (
            "A wrong password was typed a moment ago: wait 1 second, then try again. Password "
            "not changed.")
    assert hashes == ["guess1"]
    # The same throttle as logins: alice's account waits at the login prompt too.
    assert "A wrong password for alice was typed a moment ago" in _login_text(server, "alice",
                                                                             PASSWORD)
    server.clock.advance(1)
    alice.command(f"password {PASSWORD} n3wer")
    games.wait(games.store.import_accounts({}))  # a later write: the change is committed
    assert alice.output().strip().startswith("Password changed.")
    assert hashes == ["guess1", PASSWORD]
    assert "Starting FICS session as alice" in _login_text(server, "alice", "n3wer")  # cleared


def test_password_guesses_lock_the_account_out_and_are_logged(games, monkeypatch):
    from twisted.logger import formatEvent, globalLogPublisher

    server = server_on(games, password_failures=3, password_lockout=600)
    alice = login(server, "alice", PASSWORD)
    hashes = _counting_hashes(monkeypatch)
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        for n in range(3):
            assert "Incorrect password" in alice.command(f"password guess{n} x")
            server.clock.advance(30)
        for _ in range(50):
            assert alice.command("password again x").strip() == (
                "Too many wrong passwords: none is checked for 10 minutes. Password not changed.")
        alice.command("set language fr")
        assert alice.command("password again x").strip() == (
            "Trop de mots de passe erronés\u202f: aucun n’est vérifié pendant 10 minutes. Mot de "
            "passe inchangé.")
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert len(hashes) == 3
    assert "its password logins are refused for 10 minutes" in _login_text(server, "alice",
                                                                           PASSWORD)
    lines = [formatEvent(e) for e in events]
    host = alice.session.host
    bad = [line for line in lines if line.startswith("bad password in the password command")]
    assert len(bad) == 3 and f"of alice from {host} (failure 3" in bad[-1]
    assert any(line.startswith("locked out account alice for 600 s after 3 bad passwords")
               for line in lines)
    refused = [line for line in lines if "refused a password command" in line]
    assert refused == [f"refused a password command of alice from {host}: locked by account "
                       "(570 s left); more refusals from this address are counted"]
