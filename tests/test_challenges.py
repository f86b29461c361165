"""Match offers: parsing, validation, accept/decline/withdraw, pending, wording."""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.server.challenges import (
    AmbiguousOfferError,
    BadMatchArgumentsError,
    Challenge,
    Challenges,
    DEFAULT_TIME_CONTROL,
    DuplicateChallengeError,
    NoSuchOfferError,
    PlayerBusyError,
    SelfChallengeError,
    UnknownPlayerError,
    parse_match,
)
from ficsfen.server.clock import TimeControl
from ficsfen.server.parsed import ParsedMessage

ONLINE = ["alice", "bob", "carol", "dave"]


def registry(busy=()):
    return Challenges(handles=lambda: ONLINE, is_busy=lambda h: h in busy, rng=random.Random(1))


def said(notices, handle, lang="en"):
    """What ``handle`` reads (the pendinfo lines, for clients that ask, left out)."""
    return [n.message.render(lang) for n in notices if n.handle == handle and n.ivar is None]


@pytest.mark.parametrize("args, tc, colour", [
    ("bob", DEFAULT_TIME_CONTROL, None),
    ("bob 5", TimeControl(5, 0), None),
    ("bob 5 3", TimeControl(5, 3), None),
    ("bob 5 3 white", TimeControl(5, 3), chess.WHITE),
    ("bob black 1 0", TimeControl(1, 0), chess.BLACK),
    ("bob 0 0 u", TimeControl(0, 0), None),
    ("bob W", DEFAULT_TIME_CONTROL, chess.WHITE),
])
def test_parse_match(args, tc, colour):
    request = parse_match(args)
    assert request.opponent == "bob"
    assert request.time_control == tc
    assert request.colour == colour


@pytest.mark.parametrize("args", ["", "bob 1 2 3", "bob white black", "bob rated", "bob fast",
                                  "bob 0 5", "bob 1000 0", "bob ５",
                                  "bob blac\u212a"])  # the Kelvin sign is no k (casefold's is)
def test_parse_match_errors(args):
    with pytest.raises(BadMatchArgumentsError) as err:
        parse_match(args)
    assert err.value.render("fr") != err.value.render("en")


@pytest.mark.slow
@given(st.text(max_size=40))
def test_parse_match_never_crashes(text):
    try:
        request = parse_match(text)
    except BadMatchArgumentsError as exc:
        assert exc.render("en")
    else:
        assert request.opponent == text.split()[0]


def test_fics_wording_and_categories():
    c = Challenge("alice", "bob", TimeControl(5, 0))
    assert c.describe().render("en") == "alice (----) bob (----) unrated blitz 5 0"
    assert Challenge("alice", "bob", TimeControl(1, 0), chess.WHITE).describe().render("en") == \
        "alice (----) [white] bob (----) unrated lightning 1 0"
    assert Challenge("alice", "bob", TimeControl(0, 0)).describe().render("en").endswith("untimed 0 0")


def test_offer_notices_both_players():
    ch = registry()
    challenge, notices = ch.offer("alice", parse_match("bo 5 0"))
    assert challenge.receiver == "bob"
    assert said(notices, "alice") == ["Issuing: alice (----) bob (----) unrated blitz 5 0."]
    assert said(notices, "bob") == [
        "Challenge: alice (----) bob (----) unrated blitz 5 0.\n"
        'You can "accept" or "decline", or propose different parameters.']
    # a person reading French reads it in French; an interface, in English (parsed texts)
    assert said(notices, "bob", "fr")[0].startswith(
        "Défi\u202f: alice (----) bob (----) non classée blitz 5 0.\nVous")
    assert all(isinstance(n.message, ParsedMessage) for n in notices if n.ivar is None)
    assert ch.to("bob") == [challenge] and ch.by("alice") == [challenge]


def test_validation_errors():
    ch = registry(busy={"dave"})
    with pytest.raises(SelfChallengeError):
        ch.offer("alice", parse_match("alice"))
    with pytest.raises(UnknownPlayerError) as err:
        ch.offer("alice", parse_match("zed"))
    assert "zed" in err.value.render("fr")
    with pytest.raises(PlayerBusyError):
        ch.offer("alice", parse_match("dave"))
    with pytest.raises(PlayerBusyError):
        ch.offer("dave", parse_match("alice"))
    ch.offer("alice", parse_match("bob 5 0"))
    with pytest.raises(DuplicateChallengeError):
        ch.offer("alice", parse_match("bob 5 0"))
    _, notices = ch.offer("alice", parse_match("bob 3 0"))
    assert said(notices, "alice")[0] == "Updating the offer already made to bob."
    assert len(ch) == 1 and ch.to("bob")[0].time_control == TimeControl(3, 0)


def test_accept_removes_other_offers_of_both_players():
    ch = registry()
    ch.offer("alice", parse_match("bob 5 0 black"))
    ch.offer("carol", parse_match("bob 2 12"))
    ch.offer("alice", parse_match("dave"))
    with pytest.raises(AmbiguousOfferError):
        ch.accept("bob")
    challenge, notices = ch.accept("bob", "al")
    assert challenge.colours(random.Random(0)) == ("bob", "alice")
    assert said(notices, "alice")[0] == "bob accepts the match offer."
    assert "The match offer between carol and bob has been removed." in said(notices, "carol")
    assert "The match offer between alice and dave has been removed." in said(notices, "dave")
    assert len(ch) == 0


def test_decline_withdraw_and_pending():
    ch = registry()
    with pytest.raises(NoSuchOfferError):
        ch.decline("bob")
    ch.offer("alice", parse_match("bob"))
    ch.offer("carol", parse_match("alice 1 0"))
    lines = [m.render("en") for m in ch.pending("alice")]
    assert lines == ["Offers to other players:", "  alice (----) bob (----) unrated blitz 2 12.",
                     "Offers from other players:", "  carol (----) alice (----) unrated lightning 1 0."]
    notices = ch.decline("bob")
    assert said(notices, "alice") == ["bob declines the match offer."]
    with pytest.raises(NoSuchOfferError):
        ch.withdraw("alice")
    notices = ch.withdraw("carol", "alice")
    assert said(notices, "alice") == ["carol withdraws the match offer."]
    assert [m.render("en") for m in ch.pending("alice")] == [
        "There are no offers pending to other players.", "There are no offers pending from other players."]


def test_random_colours_without_a_request():
    c = Challenge("alice", "bob")
    seen = {c.colours(random.Random(seed)) for seed in range(20)}
    assert seen == {("alice", "bob"), ("bob", "alice")}
