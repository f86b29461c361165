"""The session registry on its own: lookups, logins and logouts, hooks, listening ivars."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from twisted.internet.task import Clock

from ficsfen.names import AmbiguousNameError, NameResolutionError
from ficsfen.server.broadcaster import Broadcaster
from ficsfen.server.config import Config
from ficsfen.server.directory import GameDirectory
from ficsfen.server.game_service import GameService
from ficsfen.server.session import Services, Session
from ficsfen.server.sessions import Sessions


class Line:
    """One player's end of the wire: each write, and whether it was closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def text(self) -> str:
        """What was written since the last look, CR LF read as LF."""
        data = b"".join(self.writes).decode("utf-8").replace("\r\n", "\n")
        self.writes.clear()
        return data


@dataclass
class Parts:
    sessions: Sessions
    directory: GameDirectory
    broadcaster: Broadcaster
    games: GameService


def parts(clock: Clock | None = None) -> Parts:
    """A registry bound to real game and board services, as the composition root binds it."""
    clock = clock if clock is not None else Clock()
    sessions = Sessions(clock=clock, language="en")
    directory = GameDirectory(sessions.handles)
    broadcaster = Broadcaster(session=sessions.get, directory=directory,
                              allresults=lambda: sessions.listening("allresults"))
    games = GameService(directory=directory, broadcaster=broadcaster, clock=clock,
                        session=sessions.get, is_registered=lambda name: False, config=Config())
    sessions.bind(Services(players=sessions, boards=broadcaster, games=games,
                           ivars_changed=sessions.ivars_changed, prompt="fics% "),
                  game_of=directory.game_of, announce=broadcaster.announce)
    return Parts(sessions, directory, broadcaster, games)


def registry(clock: Clock | None = None) -> Sessions:
    return parts(clock).sessions


def log_in(sessions: Sessions, handle: str, *, registered: bool = False) -> tuple[Session, Line]:
    line = Line()
    session = sessions.enter(handle, write=line.write, close=line.close,
                             registered=registered, peer="192.0.2.1")
    sessions.arrived(session)
    return session, line


def test_sessions_are_found_by_any_case_and_by_unique_prefix():
    sessions = registry()
    alice, _ = log_in(sessions, "Alice")
    albert, _ = log_in(sessions, "albert")
    bob, _ = log_in(sessions, "bob")
    assert sessions.get("ALICE") is alice and sessions.get("carol") is None
    assert sessions.named("b") is bob and sessions.named("ALIC") is alice
    with pytest.raises(AmbiguousNameError):
        sessions.named("al")
    with pytest.raises(NameResolutionError):
        sessions.named("zed")
    assert [s.handle for s in sessions.sorted()] == ["albert", "Alice", "bob"]
    assert len(sessions) == 3 and set(sessions.keys()) == {"alice", "albert", "bob"}
    assert set(sessions.handles()) == {"albert", "Alice", "bob"}


def test_each_login_and_logout_changes_the_listing_version():
    sessions = registry()
    before = sessions.listing_changes
    alice, _ = log_in(sessions, "alice")
    sessions.logout(alice, reason="test")
    assert sessions.listing_changes == before + 2
    sessions.listing_changed()  # "open", say
    assert sessions.listing_changes == before + 3


def test_a_logout_runs_the_departure_hooks_unlisted_then_closes():
    clock = Clock()
    sessions = registry(clock)
    seen: list[tuple[str, bool, bool]] = []
    sessions.departures.append(
        lambda s: seen.append((s.handle, sessions.get(s.handle) is None, s.closed)))
    alice, line = log_in(sessions, "alice", registered=True)
    guest, _ = log_in(sessions, "GuestABCD")
    clock.advance(30)
    sessions.logout(alice, reason="quit")
    sessions.logout(guest, reason="quit")
    assert seen == [("alice", True, False), ("GuestABCD", True, False)]
    assert line.closed and alice.closed
    assert sessions.last_seen == {"alice": 30.0}  # only registered players are fingered
    sessions.logout(alice, reason="again")  # not listed: nothing happens
    assert seen[-1][0] == "GuestABCD"


def test_a_registered_player_logging_in_again_replaces_the_old_session():
    sessions = registry()
    entered: list[tuple[Session, Session | None, object]] = []
    sessions.entering.append(lambda new, old, saved: entered.append((new, old, saved)))
    old, old_line = log_in(sessions, "Alice", registered=True)
    new_line = Line()
    new = sessions.enter("alice", write=new_line.write, close=new_line.close,
                         registered=True, saved={"style": 12})
    assert new.handle == "Alice"  # the spelling its games know
    assert entered == [(old, None, None), (new, old, {"style": 12})]
    assert sessions.get("alice") is new and old.closed and old_line.closed
    assert "Alice has arrived - you can't both be logged in" in old_line.text()
    assert "Alice is already logged in - kicking them out" in new_line.text()
    assert len(sessions) == 1


def test_pin_sessions_hear_arrivals_and_departures_of_others():
    sessions = registry()
    watcher, line = log_in(sessions, "watcher")
    watcher.set_ivar("pin", True)
    carol, carol_line = log_in(sessions, "carol")
    assert line.text() == "\n<wa> carol 010P0P0P0P0P0P0P0P0P\nfics% "
    sessions.logout(carol)
    assert line.text() == "\n<wd> carol\nfics% "
    assert "<wa>" not in carol_line.text()
    watcher.set_ivar("pin", False)
    log_in(sessions, "dave")
    assert line.text() == ""
    assert sessions.listening("pin") == set()


def test_the_arrival_line_shows_a_player_who_is_not_open():
    sessions = registry()
    dave, _ = log_in(sessions, "dave")
    dave.variables["open"] = False
    assert sessions.pin_arrival(dave) == "<wa> dave:010P0P0P0P0P0P0P0P0P"


def test_turning_an_ivar_on_calls_its_listeners_once():
    sessions = registry()
    told: list[str] = []
    sessions.on_listening("seekinfo", lambda s: told.append(s.handle))
    alice, _ = log_in(sessions, "alice")
    alice.set_ivar("seekinfo", True)
    alice.set_ivar("seekinfo", True)  # already on: not again
    alice.set_ivar("seekinfo", False)
    alice.set_ivar("seekinfo", True)
    assert told == ["alice", "alice"]
    assert alice in sessions.listening("seekinfo")


def test_arrival_hooks_run_after_the_pin_line():
    sessions = registry()
    order: list[str] = []
    watcher, line = log_in(sessions, "watcher")
    watcher.set_ivar("pin", True)
    sessions.arrivals.append(lambda s: order.append(f"arrived {s.handle}: {line.text()!r}"))
    log_in(sessions, "erin")
    assert order == ["arrived erin: '\\n<wa> erin 010P0P0P0P0P0P0P0P0P\\nfics% '"]


def test_a_login_before_binding_is_refused():
    sessions = Sessions(clock=Clock(), language="en")
    with pytest.raises(RuntimeError, match="bind"):
        sessions.enter("alice", write=lambda data: None, close=lambda: None)
