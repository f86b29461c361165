"""The command table: names, aliases, unique prefixes, argument specs, help coverage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.commands.base import UsageError, parse_args
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.i18n import LocalizedError
from ficsfen.names import COMMAND, AmbiguousNameError, NameResolutionError, NoMatchError
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands.settings import VARIABLES
from ficsfen.server.testing import make_server


@pytest.fixture(scope="module")
def table() -> CommandTable:
    return make_server().table


def test_exact_names_and_unique_prefixes(table):
    assert table.resolve("help").name == "help"
    assert table.resolve("he").name == "help"
    assert table.resolve("HE").name == "help"
    assert table.resolve("ex").name == "examine"
    assert table.resolve("unex").name == "unexamine"
    assert table.resolve("bs").name == "bsetup"


@pytest.mark.parametrize("alias, name", [("exit", "quit"), ("bye", "quit"), ("re", "refresh")])
def test_fics_aliases_beat_prefixes(table, alias, name):
    assert table.resolve(alias).name == name


def test_ambiguous_prefix_lists_the_matches(table):
    with pytest.raises(AmbiguousNameError) as info:
        table.resolve("b")
    assert info.value.kind is COMMAND
    assert info.value.matches == ("backward", "best", "bsetup")
    assert info.value.render("en") == 'Ambiguous command "b". Matches: backward best bsetup'
    assert "Correspondances\u202f: backward best bsetup" in info.value.render("fr")


def test_unknown_word_is_localized(table):
    with pytest.raises(NoMatchError) as info:
        table.resolve("xyz")
    assert info.value.render("en") == "xyz: Command not found."
    assert info.value.render("fr") == "xyz\u202f: commande introuvable."


def test_exact_lookup_ignores_case_and_finds_aliases(table):
    assert table.exact("FEN") is table.exact("fen") is table.resolve("Fen")
    assert table.exact("BYE") is table.exact("quit")
    assert table.exact("he") is None  # a prefix is not an exact name
    assert "fen" in table and "FEN" in table and "bye" not in table  # aliases are not names


def test_a_name_wins_over_an_alias_whatever_the_order():
    from ficsfen.commands.base import Command

    class Alpha(Command):
        name = "alpha"
        aliases = ("beta", "go")

    class Beta(Command):
        name = "beta"

    for order in ((Alpha(), Beta()), (Beta(), Alpha())):
        t = CommandTable(order)
        assert t.resolve("beta").name == "beta" and t.resolve("go").name == "alpha"
        t.alias("beta", "alpha")  # a host alias never hides a name either
        assert t.resolve("beta").name == "beta"
        assert t.names() == ["alpha", "beta"] and len(t) == 2
        assert [c.name for c in t] == ["alpha", "beta"]
    with pytest.raises(KeyError):
        t.alias("x", "nosuchcommand")


def test_resolution_errors_are_localized_errors(table):
    with pytest.raises(LocalizedError) as info:
        table.resolve("zz")
    assert isinstance(info.value, NoMatchError) and isinstance(info.value, LookupError)
    assert isinstance(info.value, NameResolutionError)
    assert info.value.message.render("fr") == info.value.render("fr") == "zz\u202f: commande introuvable."
    assert str(info.value) == "zz: Command not found."


@pytest.mark.parametrize("word", ["ſ", "ſet", "\u212aibitz", "ﬁnger", "HELP\u017f"])
def test_non_ascii_letters_never_reach_an_ascii_command(table, word):
    """casefold() turns ſ into s and the Kelvin sign into k: not a command name for that."""
    assert table.exact(word) is None
    with pytest.raises(NoMatchError):
        table.resolve(word)


def test_a_command_name_that_reads_as_a_move_is_refused():
    from ficsfen.commands.base import Command
    from ficsfen.server import server

    class Castle(Command):
        name = "castle"
        aliases = ("O-O",)

    with pytest.raises(ValueError, match="reads as a move"):
        server.check_command_names(Castle())
    server.check_command_names(server.FenCommand())  # our names are fine


def test_register_refuses_objects_without_ICommand():
    with pytest.raises(TypeError):
        CommandTable().register(object())


@pytest.mark.parametrize("spec, line, expected", [
    ("", "", []),
    ("o", "", [None]),
    ("o", " alice ", ["alice"]),
    ("w", "fen", ["fen"]),
    ("p", "3", [3]),
    ("p", "", [None]),
    ("wo", "lang fr", ["lang", "fr"]),
    ("wS", "fen  a b  c ", ["fen", "a b  c"]),
    ("s", "", [None]),
    ("s", "fen 8/8 w - - 0 1", ["fen 8/8 w - - 0 1"]),
])
def test_parse_args(spec, line, expected):
    assert parse_args(spec, line) == expected


@pytest.mark.parametrize("spec, line", [
    ("", "extra"), ("w", ""), ("o", "a b"), ("i", "x"), ("p", "٣"), ("p", "1 2"), ("S", "  "),
    ("p", "--1"), ("i", "-"), ("i", "1-"), ("p", "+1"), ("i", "1.5"),
])
def test_parse_args_refuses(spec, line):
    with pytest.raises(UsageError):
        parse_args(spec, line)


@given(st.text(max_size=12))
def test_parse_args_integer_is_an_int_or_a_usage_error(word):
    """Whatever a player types where a count is wanted, no other exception escapes."""
    try:
        parsed = parse_args("p", word)
    except UsageError:
        return
    assert parsed == [None] or isinstance(parsed[0], int)


def test_every_command_and_variable_has_a_help_page_in_english_and_french(table):
    catalog = HelpCatalog()
    topics = {cmd.topic for cmd in table} | {v.topic for v in VARIABLES.values()}
    for lang in ("en", "fr"):
        missing = sorted(topics - set(catalog.translated(lang)))
        assert not missing, f"no help page in help/{lang} for: {missing}"
