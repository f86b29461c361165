"""The one name resolver: FICS prefixes, the ASCII case rule, one failure family."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen import i18n
from ficsfen.i18n import LocalizedError
from ficsfen.names import (COMMAND, HANDLE, LANGUAGE, TOPIC, VARIABLE, AmbiguousNameError,
                           NameResolutionError, NoMatchError, fold, resolve, resolve_handle,
                           resolve_language, resolve_value)

KINDS = [COMMAND, VARIABLE, HANDLE, TOPIC, LANGUAGE]


# -- the rule --------------------------------------------------------------------

def test_exact_name_beats_a_prefix_of_longer_names():
    assert resolve("re", ["refresh", "revert", "re"], COMMAND) == "re"
    assert resolve("RE", ["refresh", "revert", "re"], COMMAND) == "re"
    assert resolve("fen", ["fens-file", "fen"], TOPIC) == "fen"


def test_unique_prefix_any_ascii_case():
    assert resolve_handle("AL", ["alice", "bob"]) == "alice"
    assert resolve_handle("Bo", ["alice", "bob"]) == "bob"


def test_a_name_spelt_exactly_wins_over_its_other_cases():
    assert resolve_handle("Sam", ["sam", "Sam"]) == "Sam"
    with pytest.raises(AmbiguousNameError) as info:
        resolve_handle("SAM", ["sam", "Sam"])
    assert info.value.matches == ("Sam", "sam")


def test_ambiguity_lists_the_matches_sorted_ignoring_case():
    with pytest.raises(AmbiguousNameError) as info:
        resolve_handle("s", ["sam", "bob", "Sally", "steve"])
    assert info.value.matches == ("Sally", "sam", "steve")
    assert info.value.render("en") == 'Ambiguous handle "s". Matches: Sally sam steve'
    french = info.value.render("fr")
    assert "ambigu" in french and french.endswith(": Sally sam steve")


def test_an_empty_word_names_nothing():
    with pytest.raises(NoMatchError):
        resolve("", ["alice"], HANDLE)


@pytest.mark.parametrize("word", ["ſam", "ſ", "SAſ", "\u212aate", "ﬁsh", "sam\u0307"])
def test_non_ascii_letters_never_match_ascii_names(word):
    """casefold() makes ſ an s, the Kelvin sign a k and ﬁ "fi": none of that here."""
    with pytest.raises(NoMatchError):
        resolve_handle(word, ["sam", "kate", "fish", "sally"])


def test_non_ascii_names_still_match_across_case():
    assert resolve_language("FRANÇAIS") == "fr"
    assert resolve_language("françAIS") == "fr"
    assert fold("FRANÇAIS") == "français"
    assert fold("\u212a") == "\u212a" and fold("İ") == "İ"  # would turn ASCII, or two letters


# -- every kind says what it looked up, in both languages --------------------------

@pytest.mark.parametrize("kind, names, en", [
    (COMMAND, ["help"], "ſ: Command not found."),
    (VARIABLE, ["showfen"], 'No such variable "ſ".'),
    (HANDLE, ["sam"], 'No player named "ſ" is logged in.'),
    (TOPIC, ["style"], 'No help available on "ſ".'),
    (LANGUAGE, None, 'Unknown language "ſ". Available: English (en), Français (fr)'),
])
def test_long_s_names_nothing_of_any_kind(kind, names, en):
    with pytest.raises(NoMatchError) as info:
        if names is None:
            resolve_language("ſ")
        else:
            resolve("ſ", names, kind)
    err = info.value
    assert err.kind is kind and err.word == "ſ"
    assert err.render("en") == en
    assert err.render("fr") != en and "ſ" in err.render("fr")


@pytest.mark.parametrize("kind, en", [
    (COMMAND, 'Ambiguous command "s". Matches: set showfen'),
    (VARIABLE, 'Ambiguous variable "s". Matches: set showfen'),
    (HANDLE, 'Ambiguous handle "s". Matches: set showfen'),
    (TOPIC, 'Ambiguous help topic "s". Matches: set showfen'),
])
def test_ambiguity_says_what_was_looked_up(kind, en):
    with pytest.raises(AmbiguousNameError) as info:
        resolve("s", ["showfen", "set"], kind)
    assert info.value.render("en") == en
    assert "set showfen" in info.value.render("fr")


def test_one_failure_family():
    for cls in (NoMatchError, AmbiguousNameError):
        assert issubclass(cls, NameResolutionError)
    assert issubclass(NameResolutionError, LocalizedError)
    assert issubclass(NameResolutionError, LookupError)


# -- values with several spellings ---------------------------------------------------

def test_spellings_of_one_value_are_not_ambiguous():
    charsets = {"utf8": "utf8", "utf-8": "utf8", "latin1": "latin1", "latin-1": "latin1"}
    assert resolve_value("utf", charsets, VARIABLE) == "utf8"
    assert resolve_value("LATIN", charsets, VARIABLE) == "latin1"
    with pytest.raises(AmbiguousNameError) as info:
        resolve_value("o", {"on": True, "off": False}, VARIABLE)
    assert info.value.matches == ("off", "on") and info.value.values == (False, True)


def test_languages_by_code_name_or_prefix():
    assert resolve_language("fr") == "fr"
    assert resolve_language(" French ") == "fr"
    assert resolve_language("Eng") == "en"
    assert resolve_language("anglais") == "en"
    with pytest.raises(NoMatchError):
        resolve_language("klingon")


def test_the_command_line_wrapper_keeps_its_shapes():
    assert i18n.resolve_language("FRANÇAIS") == "fr"
    assert i18n.resolve_language("klingon") is None
    assert i18n.resolve_language("ſ") is None
    assert not hasattr(i18n, "unique_prefix")  # moved here: one resolver


# -- the resolver agrees with a plain specification ----------------------------------

def _same_letter(a: str, b: str) -> bool:
    """The case rule, letter by letter: equal, or the same letter in another case
    on the same side of the ASCII boundary."""
    return a == b or (a.isascii() == b.isascii() and len(a.lower()) == len(b.lower()) == 1
                      and a.lower() == b.lower()
                      and a.lower().isascii() == a.isascii() and b.lower().isascii() == b.isascii())


def _starts(name: str, word: str) -> bool:
    return len(word) <= len(name) and all(_same_letter(w, n) for w, n in zip(word, name))


def _spec(word: str, names: list[str]) -> str | tuple[str, ...] | None:
    """What the word names: the name itself; else the one equal in another case;
    else the one it starts; else the sorted candidates, or None."""
    if not word:
        return None
    if word in names:
        return word
    equal = sorted({n for n in names if len(n) == len(word) and _starts(n, word)},
                   key=lambda n: (fold(n), n))
    starting = sorted({n for n in names if _starts(n, word)}, key=lambda n: (fold(n), n))
    found = equal or starting
    if len(found) == 1:
        return found[0]
    return tuple(found) or None


LETTERS = "abSsKkſ\u212aÇçİi"


@given(st.text(LETTERS, max_size=3), st.lists(st.text(LETTERS, min_size=1, max_size=4), max_size=6))
def test_resolve_agrees_with_the_specification(word, names):
    expected = _spec(word, names)
    try:
        got: object = resolve(word, names, HANDLE)
    except AmbiguousNameError as e:
        got = e.matches
    except NoMatchError:
        got = None
    assert got == expected


@given(st.text(LETTERS, min_size=1, max_size=4),
       st.lists(st.text("abcsk", min_size=1, max_size=4), max_size=6))
def test_a_word_with_non_ascii_letters_never_names_an_ascii_name(word, names):
    if word.isascii():
        return
    with pytest.raises(NoMatchError):
        resolve(word, names, COMMAND)
