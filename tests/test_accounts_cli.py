"""``ficsfen accounts``: the operator's accounts, end to end through real subprocesses."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO
from ficsfen.server.admin import AdminError, check_account_name, read_password
from ficsfen.server.config import hash_password, verify_password
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess

TIMEOUT = 120


def accounts(*args: str, stdin: str = "", lang: str = "C") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL=lang)
    return subprocess.run([sys.executable, "-m", "ficsfen", "accounts", *args], cwd=REPO,
                          env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def stored_hash(path, name):
    reactor = private_reactor()
    store = SQLiteStore.open(path, reactor=reactor, exclusive=False)
    try:
        account = store.get_account(name)
        return None if account is None else account.password_hash
    finally:
        wait_for(reactor, store.close())


@pytest.mark.slow
def test_add_list_passwd_remove(tmp_path):
    data = str(tmp_path / "folder" / "data.sqlite3")  # the folder is created too
    done = accounts("add", "Alice", "--data", data, stdin="s3cret\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Account Alice added to {data}."
    assert verify_password("s3cret", stored_hash(data, "alice"))
    assert accounts("add", "bob", "--data", data, stdin="other\n").returncode == 0

    listed = accounts("list", "--data", data)
    assert listed.returncode == 0
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names == ["Alice", "bob"]
    assert all(len(line.split()) == 3 for line in listed.stdout.splitlines())  # name, date, time

    again = accounts("add", "ALICE", "--data", data, stdin="x\n")
    assert (again.returncode, again.stderr.strip()) == (1, "There is already an account named Alice.")

    changed = accounts("--data", data, "passwd", "alice", stdin="n3wer\r\n")
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.strip() == f"Password of Alice changed in {data}."
    assert verify_password("n3wer", stored_hash(data, "alice"))

    removed = accounts("remove", "alice", "--data", data)
    assert removed.returncode == 0 and removed.stdout.strip() == f"Account Alice removed from {data}."
    assert stored_hash(data, "alice") is None
    gone = accounts("remove", "alice", "--data", data)
    assert (gone.returncode, gone.stderr.strip()) == (1, "There is no account named alice.")
    nobody = accounts("passwd", "carol", "--data", data, stdin="x\n")
    assert (nobody.returncode, nobody.stderr.strip()) == (1, "There is no account named carol.")


@pytest.mark.slow
@pytest.mark.parametrize("name, english, french", [
    ("Al", "Al: a handle is 3 to 17 letters (A-Z, a-z).",
     "Al\u202f: un pseudonyme compte de 3 à 17 lettres (A-Z, a-z)."),
    ("al1ce", "al1ce: a handle is 3 to 17 letters (A-Z, a-z).", None),
    ("élise", "élise: a handle is 3 to 17 letters (A-Z, a-z).", None),
    ("a" * 18, f"{'a' * 18}: a handle is 3 to 17 letters (A-Z, a-z).", None),
    ("GuestABCD", 'GuestABCD: handles starting with "Guest" are given to guests.',
     "GuestABCD\u202f: les pseudonymes commençant par «\u202fGuest\u202f» sont réservés aux invités."),
])
def test_bad_names_are_refused_like_logins(tmp_path, name, english, french):
    data = str(tmp_path / "data.sqlite3")
    done = accounts("add", name, "--data", data, stdin="s3cret\n")
    assert (done.returncode, done.stderr.strip()) == (1, english)
    assert not os.path.exists(data)  # refused before the file is touched
    if french is not None:
        fr = accounts("--lang", "fr", "add", name, "--data", data, stdin="s3cret\n")
        assert (fr.returncode, fr.stderr.strip()) == (1, french)


@pytest.mark.slow
@pytest.mark.parametrize("stdin, english", [
    ("", "No password on standard input; nothing was changed."),
    ("\n", "The password is empty; nothing was changed."),
    ("two words\n", "A password is one word, without blanks; nothing was changed."),
])
def test_bad_passwords_change_nothing(tmp_path, stdin, english):
    data = str(tmp_path / "data.sqlite3")
    done = accounts("add", "alice", "--data", data, stdin=stdin)
    assert (done.returncode, done.stderr.strip()) == (1, english)
    assert stored_hash(data, "alice") is None


def test_a_terminal_is_asked_twice_without_echo():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    answers = iter(["s3cret", "s3cret", "one", "two"])
    prompts = []

    def ask(prompt):
        prompts.append(prompt)
        return next(answers)

    assert read_password(stdin=Terminal(), ask=ask) == "s3cret"
    with pytest.raises(AdminError) as info:
        read_password(stdin=Terminal(), ask=ask, lang="fr")
    assert info.value.render("fr") == "Les deux mots de passe diffèrent\u202f; rien n’a été changé."
    assert prompts == ["New password: ", "Again: ",
                       "Nouveau mot de passe\u202f: ", "Encore une fois\u202f: "]


def test_names_follow_the_login_rule():
    assert check_account_name("alice") is None
    assert check_account_name("A" * 17) is None
    assert check_account_name("guesthouse") is not None


@pytest.mark.slow
def test_usage_errors_and_missing_files(tmp_path):
    data = str(tmp_path / "data.sqlite3")
    assert accounts("--data", data).returncode == 2
    assert accounts("add", "--data", data).returncode == 2
    assert accounts("frob", "--data", data).returncode == 2
    listed = accounts("list", "--data", data)
    assert listed.returncode == 1 and "there is no data file here yet" in listed.stderr
    assert accounts("list", "--data", "none").returncode == 1
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"garbage" * 500)
    corrupt = accounts("list", "--data", str(bad))
    assert corrupt.returncode == 1 and "not a ficsfen data file" in corrupt.stderr
    assert "Traceback" not in corrupt.stderr


@pytest.mark.slow
def test_the_configuration_names_the_data_file_and_its_accounts(tmp_path):
    conf = tmp_path / "ficsfen.toml"
    conf.write_text(textwrap.dedent(f"""\
        [storage]
        path = "kept.sqlite3"

        [accounts]
        alice = "{hash_password('s3cret', iterations=1000)}"
        """))
    added = accounts("add", "bob", "--config", str(conf), stdin="pw\n")
    assert added.returncode == 0, added.stderr
    assert stored_hash(tmp_path / "kept.sqlite3", "bob") is not None
    assert accounts("add", "alice", "--config", str(conf), stdin="pw\n").returncode == 0
    removed = accounts("remove", "alice", "--config", str(conf))
    assert removed.returncode == 0
    assert "also in the configuration's [accounts]" in removed.stdout
    conf.write_text('[storage]\npath = ""\n')
    nowhere = accounts("list", "--config", str(conf))
    assert nowhere.returncode == 1 and "No data file" in nowhere.stderr


@pytest.mark.slow
def test_accounts_change_beside_a_running_server(tmp_path):
    data = str(tmp_path / "data.sqlite3")
    with ServerProcess("--data", data) as server:
        added = accounts("add", "carol", "--data", data, stdin="s3cret\n")
        assert added.returncode == 0, added.stderr
        assert "carol" in accounts("list", "--data", data).stdout
        assert server.process.poll() is None  # still serving
        with server.connect() as client:  # and still answering
            client.login("guest")
    assert verify_password("s3cret", stored_hash(data, "carol"))
