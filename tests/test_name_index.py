"""NameIndex: the one resolver's answers among names kept sorted by their folded form."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.names import HANDLE, NameIndex, NameResolutionError, resolve, resolve_handle
from ficsfen.server.testing import connect, make_server

# Letters whose case rules trip folding: the Kelvin sign, long s, dotted I, sharp s.
_LETTERS = st.sampled_from(list("abAB\u212aks\u017fS\u0130i\u00df\u00c7\u00e7"))
_NAMES = st.text(_LETTERS, min_size=1, max_size=4)


def _answer(word: str, names) -> object:
    """What the resolver says: the name, or the failure's class and matches."""
    try:
        return resolve(word, names, HANDLE)
    except NameResolutionError as e:
        return type(e), getattr(e, "matches", ())


@pytest.mark.slow
@given(st.lists(_NAMES, max_size=12), _NAMES)
@settings(max_examples=400)
def test_resolving_in_an_index_is_resolving_in_the_list(names, word):
    assert _answer(word, NameIndex(names)) == _answer(word, names)


@pytest.mark.slow
@given(st.lists(st.tuples(st.booleans(), _NAMES), max_size=30), _NAMES)
@settings(max_examples=300)
def test_an_index_kept_up_to_date_answers_as_its_names_do(changes, word):
    index, names = NameIndex(), []
    for adding, name in changes:
        if adding:
            index.add(name)
            if name not in names:
                names.append(name)
        else:
            index.discard(name)
            if name in names:
                names.remove(name)
    assert sorted(index) == sorted(names) and len(index) == len(names)
    assert all(name in index for name in names)
    assert _answer(word, index) == _answer(word, names)


def test_prefixes_and_exact_names_in_an_index():
    index = NameIndex(["alice", "Alfred", "bob", "sam", "Sam"])
    assert resolve_handle("bo", index) == "bob"
    assert resolve_handle("ALIC", index) == "alice"
    assert resolve_handle("Sam", index) == "Sam"
    assert _answer("al", index)[1] == ("Alfred", "alice")
    assert _answer("SAM", index)[1] == ("Sam", "sam")
    index.discard("Sam")
    assert resolve_handle("SAM", index) == "sam"
    assert _answer("z", index)[1] == ()


def test_the_servers_handles_follow_logins_and_logouts():
    server = make_server()
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bobby")
    assert sorted(server.sessions.handles()) == ["alice", "bobby"]
    assert server.sessions.named("BOB").handle == "bobby"
    alice.send("match bo")
    assert "Issuing: alice" in alice.output()
    bob.disconnect()
    assert list(server.sessions.handles()) == ["alice"]
    alice.send("match bo")
    assert 'No player named "bo" is logged in.' in alice.output()
