"""What a node tells the others of a seek and of a player's ratings, and how another node's
seeks are numbered here (no Redis needed: the pure parts of the cluster's seeks)."""

from __future__ import annotations

import chess
import pytest

pytest.importorskip("txredisapi")

from ficsfen.server.clock import TimeControl  # noqa: E402
from ficsfen.server.cluster.presence import RemotePlayer, ratings_from_json, ratings_to_json  # noqa: E402
from ficsfen.server.cluster.seeks import seek_from_json, seek_to_json  # noqa: E402
from ficsfen.server.glicko import Category, Rating  # noqa: E402
from ficsfen.server.rating_view import Shown  # noqa: E402
from ficsfen.server.seeks import SeekRequest, Seeks  # noqa: E402


def test_a_seek_reads_back_as_posted() -> None:
    request = SeekRequest(TimeControl(15, 5), chess.BLACK, "crazyhouse", True, True, 1400, 1800,
                          True)
    seek = Seeks().add("alice", request, registered=True, rating=Shown("1623", 1623, " "))
    number, owner, registered, back, rating = seek_from_json(seek_to_json(seek))
    assert (number, owner, registered, back, rating) == (1, "alice", True, request,
                                                         Shown("1623", 1623, " "))
    guest = Seeks().add("GuestABCD", SeekRequest(), registered=False)
    assert seek_from_json(seek_to_json(guest))[2:] == (False, SeekRequest(rated=False), None)


def test_a_malformed_seek_raises() -> None:
    with pytest.raises((KeyError, TypeError, ValueError)):
        seek_from_json({"id": 1, "owner": "x"})


def test_other_nodes_seeks_take_local_numbers_and_never_pair_at_once() -> None:
    seeks = Seeks()
    mine = seeks.add("alice", SeekRequest(TimeControl(5, 0), rated=False), registered=True)
    theirs = seeks.add_remote("two", 7, "bob", SeekRequest(TimeControl(5, 0), rated=False),
                              registered=True, rating=None)
    assert (mine.id, theirs.id, theirs.node, theirs.remote_id) == (1, 2, "two", 7)
    assert mine.matches(theirs)  # the same terms...
    assert seeks.matching(mine, lambda a, b: False) is None  # ...but another node's: not paired
    assert theirs.info_line().startswith("<s> 2 w=bob ")


def test_ratings_travel_whole_in_an_entry() -> None:
    played = {Category.BLITZ: Rating(1720.5, 95.0, 3, 1, 0, 1731.0, 1.7e9, 1.7e9)}
    assert ratings_from_json(ratings_to_json(played)) == played
    assert ratings_from_json({"blitz": {"rating": "x"}, "nosuch": {}}) == {}
    player = RemotePlayer("two", {"handle": "bob", "registered": True, "game": "^",
                                  "ratings": ratings_to_json(played)})
    assert (player.game_mark, player.ratings) == ("^", played)
    assert RemotePlayer("two", {"handle": "bob", "game": "?"}).game_mark == ""


def test_who_free_filters_leave_out_a_player_in_a_game_on_another_node() -> None:
    from ficsfen.server.commands.session_cmds import _KEEPS

    playing = RemotePlayer("two", {"handle": "bob", "registered": True, "game": "^"})
    examining = RemotePlayer("two", {"handle": "carol", "registered": True, "game": "#"})
    idle = RemotePlayer("two", {"handle": "dave", "registered": True})
    assert [_KEEPS["f"](p, None) for p in (playing, examining, idle)] == [False, False, True]
    assert not _KEEPS["a"](playing, None)
