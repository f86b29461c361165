"""The login dialogue's states (:mod:`ficsfen.server.login`), driven through a whole connection."""

from __future__ import annotations

from twisted.internet.defer import Deferred

from ficsfen.server.config import hash_password
from ficsfen.server.testing import connect, make_server

ACCOUNTS = {"alice": hash_password("secret", iterations=1000)}


def _dialogue(client):
    return client.protocol.wrappedProtocol.dialogue


def test_a_guest_goes_from_login_to_confirm_to_a_session():
    server = make_server()
    client = connect(server)
    dialogue = _dialogue(client)
    assert dialogue.state == "login" and client.output().endswith("login: ")
    client.send("")  # an empty line asks again
    assert dialogue.state == "login" and client.output() == "login: "
    client.send("guest")
    assert dialogue.state == "confirm" and dialogue.held.startswith("Guest")
    guest = dialogue.held
    client.send("")
    assert dialogue.state == "done" and _dialogue(client) is None  # dropped once logged in
    assert client.session is not None and client.session.handle == guest
    assert dialogue.held == "" and server.sessions.session(guest) is client.session


def test_an_unregistered_name_is_reserved_until_confirmed_or_gone():
    server = make_server()
    client, other = connect(server), connect(server)
    client.send("Zed")
    assert _dialogue(client).state == "confirm" and _dialogue(client).held == "Zed"
    other.output()
    other.send("zed")  # held by the first login
    assert "already logged in" in other.output() and _dialogue(other).state == "login"
    client.disconnect()
    assert _dialogue(client).state == "closed" and _dialogue(client).held == ""
    other.send("zed")
    assert _dialogue(other).state == "confirm"


def test_ivars_at_the_prompt_keep_the_login_state():
    server = make_server()
    client = connect(server)
    client.send("%b011")
    dialogue = _dialogue(client)
    assert dialogue.state == "login" and dialogue.ivars is not None
    assert "#Ivars set." in client.output()
    client.send("%b2")
    assert "must be followed by the digits 0 and 1" in client.output() and dialogue.state == "login"


def test_a_registered_name_asks_for_its_password_and_an_empty_one_goes_back():
    server = make_server(accounts=ACCOUNTS)
    client = connect(server)
    client.send("alice")
    dialogue = _dialogue(client)
    assert dialogue.state == "password" and dialogue.echo_off
    assert client.output().endswith("password: ")
    client.send("")
    assert dialogue.state == "login" and not dialogue.echo_off and dialogue.pending_name == ""


def test_a_wrong_password_waits_in_delayed_then_login_again():
    server = make_server(accounts=ACCOUNTS, password_delay=2.0)
    client = connect(server)
    client.send("alice")
    client.send("wrong")
    dialogue = _dialogue(client)
    assert dialogue.state == "delayed" and "Invalid password" in client.output()
    client.send("guest")  # typed during the delay: kept, run once it is over
    assert dialogue.state == "delayed" and client.output() == ""
    server.clock.advance(2.0)
    assert dialogue.state == "confirm" and "Logging you in as" in client.output()


def test_lines_typed_while_the_password_is_checked_run_in_order_after_it():
    server = make_server(accounts=ACCOUNTS)
    pending: Deferred = Deferred()
    server.accounts.requestAvatarId = lambda attempt: pending  # the check takes a while
    client = connect(server)
    client.send("alice")
    client.send("secret")
    dialogue = _dialogue(client)
    assert dialogue.state == "checking"
    client.send("examine")
    client.send("fen")
    assert [line for line, _ in dialogue.type_ahead] == ["examine", "fen"]
    client.output()
    pending.callback(b"alice")
    assert dialogue.state == "done" and client.session.handle == "alice"
    text = client.output()
    assert text.index("Starting FICS session as alice") < text.index("rnbqkbnr/pppppppp")


def test_a_connection_closed_during_the_check_ends_the_dialogue():
    server = make_server(accounts=ACCOUNTS)
    pending: Deferred = Deferred()
    server.accounts.requestAvatarId = lambda attempt: pending
    client = connect(server)
    client.send("alice")
    client.send("secret")
    dialogue = _dialogue(client)
    client.disconnect()
    pending.callback(b"alice")  # too late: nobody enters
    assert dialogue.state == "closed" and server.sessions.session("alice") is None
