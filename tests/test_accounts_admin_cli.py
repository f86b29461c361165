"""``ficsfen accounts admin NAME on|off`` and the flags ``ficsfen accounts list`` shows."""

from __future__ import annotations

import io

import pytest

from ficsfen.server.admin import EXIT_FAILED, EXIT_OK, accounts_main
from ficsfen.server.config import hash_password
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for


def run(*args: str, lang: str = "en") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = accounts_main(list(args), lang=lang, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.sqlite3"
    reactor = private_reactor()
    store = SQLiteStore.open(path, reactor=reactor)
    wait_for(reactor, store.import_accounts({"alice": hash_password("a", iterations=1000),
                                             "bob": hash_password("b", iterations=1000)}))
    wait_for(reactor, store.set_muzzled("bob", True))
    wait_for(reactor, store.close())
    return str(path)


def test_admin_on_off_and_list(data) -> None:
    status, out, err = run("admin", "ALICE", "on", "--data", data)
    assert (status, err) == (EXIT_OK, "")
    assert out == f"alice is now an operator in {data}.\n"
    status, out, _ = run("list", "--data", data)
    rows = [line.split() for line in out.splitlines()]
    assert [(r[0], r[3:]) for r in rows] == [("alice", ["admin"]), ("bob", ["muzzled"])]
    status, out, _ = run("admin", "alice", "off", "--data", data, lang="fr")
    assert out == f"alice n’est plus opérateur dans {data}.\n"
    assert [line.split()[3:] for line in run("list", "--data", data)[1].splitlines()] == [
        [], ["muzzled"]]


def test_admin_of_an_unknown_account_or_a_bad_state(data) -> None:
    status, out, err = run("admin", "carol", "on", "--data", data)
    assert (status, out) == (EXIT_FAILED, "") and "carol" in err
    with pytest.raises(SystemExit) as info:
        run("admin", "alice", "maybe", "--data", data)
    assert info.value.code == 2


def test_the_configurations_admins_are_listed_and_named_when_turned_off(tmp_path, data) -> None:
    config = tmp_path / "ficsfen.toml"
    config.write_text(f'[server]\nadmins = ["bob"]\n[storage]\npath = "{data}"\n')
    rows = [line.split() for line in run("list", "--config", str(config))[1].splitlines()]
    assert [r[3:] for r in rows] == [[], ["admin", "muzzled"]]
    status, out, _ = run("admin", "bob", "off", "--config", str(config))
    assert status == EXIT_OK
    assert "bob is also in the configuration's [server] admins" in out
