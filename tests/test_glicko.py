"""The Glicko update against Glickman's worked example and hand-computed single games."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.server.glicko import (
    Category, GameScore, GlickoConstants, Rating, aged_rd, expected, g, update, update_period,
)

PAPER = GlickoConstants()  # no K floor, no RD floor: the paper's formula


def test_the_papers_worked_example():
    # Glickman (1999), "Parameter estimation in large dynamic paired comparison
    # experiments", section 3.3's example: r = 1500, RD = 200, three games.
    games = [GameScore(1400, 30, 1), GameScore(1550, 100, 0), GameScore(1700, 300, 0)]
    assert [round(g(rd), 4) for rd in (30, 100, 300)] == [0.9955, 0.9531, 0.7242]
    assert [round(expected(1500, x.opponent, x.opponent_rd), 3) for x in games] == [
        0.639, 0.432, 0.303]
    rating, rd = update_period(1500, 200, games)
    assert round(rating, 1) == 1464.1
    assert round(rd, 1) == 151.4


def test_a_single_game_by_hand():
    # 1500/350 beats 1500/350: E = 0.5, g(350) = 1/sqrt(1 + 3 q^2 350^2 / pi^2).
    q = math.log(10) / 400
    g350 = 1 / math.sqrt(1 + 3 * q * q * 350 * 350 / math.pi ** 2)
    d2 = 1 / (q * q * g350 * g350 * 0.25)
    precision = 1 / 350 ** 2 + 1 / d2
    want_rating = 1500 + q / precision * g350 * 0.5
    want_rd = math.sqrt(1 / precision)
    new = update(Rating(1500, 350), Rating(1500, 350), 1.0, when=1000.0, constants=PAPER)
    assert new.rating == pytest.approx(want_rating)
    assert new.rd == pytest.approx(want_rd)
    assert round(new.rating) == 1662 and round(new.rd, 1) == 290.2
    assert (new.wins, new.losses, new.draws, new.total) == (1, 0, 0, 1)
    assert (new.best, new.best_at, new.last_played) == (new.rating, 1000.0, 1000.0)


def test_the_rd_grows_with_time_up_to_its_cap():
    constants = GlickoConstants(c=10.0)
    assert aged_rd(50.0, 0.0, 100 * 86400.0, constants) == pytest.approx(math.sqrt(50 ** 2 + 100 * 100))
    assert aged_rd(50.0, 0.0, 10 ** 9, constants) == 350.0
    assert aged_rd(50.0, None, 10 ** 9, constants) == 50.0  # never played: unchanged
    assert aged_rd(50.0, 100.0, 0.0, constants) == 50.0  # a clock that went back


def test_ficss_floor_on_k():
    # Two established players (RD 50): the paper's change is small; FICS's K floor of 16
    # makes a win against an equal opponent worth at least 8 points.
    established = Rating(1800, 50, wins=100, last_played=0.0)
    plain = update(established, established, 1.0, when=0.0, constants=PAPER)
    floored = update(established, established, 1.0, when=0.0, constants=GlickoConstants(min_k=16))
    assert plain.rating - 1800 < 8
    assert floored.rating - 1800 == pytest.approx(8.0)


def test_a_draw_between_equals_changes_no_rating_and_counts():
    equal = Rating(1600, 120, last_played=0.0)
    new = update(equal, equal, 0.5, when=0.0, constants=GlickoConstants(min_k=16))
    assert new.rating == pytest.approx(1600)
    assert new.rd < 120 and new.draws == 1


def test_bad_values_are_refused():
    with pytest.raises(ValueError):
        update(Rating(1500, 350), Rating(1500, 350), 0.7, when=0.0, constants=PAPER)
    with pytest.raises(ValueError):
        GlickoConstants(rd_min=400)
    with pytest.raises(ValueError):
        GlickoConstants(c=-1)
    assert {c.value for c in Category} == {"lightning", "blitz", "standard", "wild", "crazyhouse"}


@given(st.floats(100, 3000), st.floats(30, 350), st.floats(100, 3000), st.floats(30, 350),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_a_win_never_lowers_and_a_loss_never_raises(r1, rd1, r2, rd2, score):
    constants = GlickoConstants(min_k=16, rd_min=30)
    new = update(Rating(r1, rd1), Rating(r2, rd2), score, when=0.0, constants=constants)
    e = expected(r1, r2, rd2)
    assert (new.rating - r1) * (score - e) >= -1e-9
    assert constants.rd_min <= new.rd <= rd1 + 1e-9
