"""Every error a user may see shares one base, ficsfen.i18n.LocalizedError."""

from __future__ import annotations

import pytest

from ficsfen.server.challenges import ChallengeError
from ficsfen.server.commands.settings import BadValueError
from ficsfen.server.config import ConfigError
from ficsfen.server.examined import GameStateError
from ficsfen.fen import FenError, FenSyntaxError
from ficsfen.server.games import GameError
from ficsfen.helpcatalog import HelpError
from ficsfen.i18n import LocalizedError, msg
from ficsfen.pgn import PgnError
from ficsfen.server.serve import EndpointError
from ficsfen.tracker import PlyRangeError, TrackerError


@pytest.mark.parametrize("cls, old_base", [
    (GameError, Exception), (ChallengeError, Exception), (GameStateError, ValueError),
    (BadValueError, ValueError), (ConfigError, ValueError), (HelpError, LookupError),
    (TrackerError, ValueError), (FenError, ValueError), (PgnError, ValueError),
    (EndpointError, ValueError),
])
def test_error_bases_are_localized_and_keep_their_old_base(cls, old_base):
    assert issubclass(cls, LocalizedError) and issubclass(cls, old_base)


@pytest.mark.parametrize("cls", [GameError, ChallengeError, GameStateError, BadValueError,
                                 ConfigError, HelpError, TrackerError])
def test_one_message_renders_per_language(cls):
    error = cls(msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                    value="x", what="style", choices="1 12"))
    assert str(error) == error.render("en") == 'Bad value "x" for style. Try one of: 1 12'
    assert error.render("fr") != error.render("en")
    assert error.message.params["value"] == "x"


def test_tracker_error_keeps_text_and_index_error():
    error = PlyRangeError(msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                              value="x", what="ply", choices="1"))
    assert isinstance(error, IndexError) and error.text == str(error)


def test_fen_error_render_keeps_the_field_prefix():
    error = FenSyntaxError(2, "turn", "x", msg("Bad value \"{value}\" for {what}. Try one of: {choices}",
                                               value="x", what="turn", choices="w b"))
    assert str(error).startswith('field 2 (active colour): Bad value "x"')
    assert error.render("fr").startswith("champ 2 (trait)\u202f: ")
