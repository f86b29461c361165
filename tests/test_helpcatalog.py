"""The help catalog: resolution, safety, fallback with notice, caching."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen import helpcatalog
from ficsfen.helpcatalog import (
    AmbiguousTopicError,
    HelpCatalog,
    HelpError,
    HelpPage,
    InvalidTopicError,
    NoSuchTopicError,
)
from ficsfen.i18n import Message


def write(root: Path, lang: str, topic: str, text: str) -> Path:
    path = root / lang / topic
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A small catalog: ``beta`` and ``bravo`` exist only in English."""
    help_root = tmp_path / "help"
    for topic in ("alpha", "beta", "bravo", "fen", "fens-file"):
        write(help_root, "en", topic, f"{topic} in English\n")
    for topic in ("alpha", "fen", "fens-file"):
        write(help_root, "fr", topic, f"{topic} en français\n")
    (tmp_path / "secret").write_text("top secret\n", encoding="utf-8")
    return help_root


@pytest.fixture
def catalog(root: Path) -> HelpCatalog:
    return HelpCatalog(root)


# -- topics ---------------------------------------------------------------


def test_topics_reference_set_is_english(catalog: HelpCatalog) -> None:
    assert catalog.topics() == ["alpha", "beta", "bravo", "fen", "fens-file"]
    assert catalog.topics("en") == catalog.topics()


def test_topics_for_a_language_include_english_fallbacks(catalog: HelpCatalog) -> None:
    assert catalog.topics("fr") == catalog.topics()
    assert catalog.translated("fr") == ["alpha", "fen", "fens-file"]
    assert catalog.missing("fr") == ["beta", "bravo"]
    assert catalog.missing("en") == []


def test_files_with_unsafe_names_are_not_topics(root: Path) -> None:
    write(root, "en", "README.txt", "not a topic")
    write(root, "en", "Upper", "not a topic")
    (root / "en" / "sub").mkdir()
    assert "README.txt" not in HelpCatalog(root).topics()
    assert "Upper" not in HelpCatalog(root).topics()
    assert "sub" not in HelpCatalog(root).topics()


def test_languages_reference_first(catalog: HelpCatalog) -> None:
    assert catalog.languages() == ["en", "fr"]


def test_missing_root_gives_no_topics(tmp_path: Path) -> None:
    empty = HelpCatalog(tmp_path / "nowhere")
    assert empty.topics() == []
    with pytest.raises(NoSuchTopicError):
        empty.lookup("fen", "en")


# -- resolution -------------------------------------------------------------


def test_exact_name(catalog: HelpCatalog) -> None:
    page = catalog.lookup("fen", "en")
    assert page == HelpPage("fen", "en", "fen in English\n")
    assert page.fallback is False and page.notice is None


def test_exact_name_wins_over_longer_names(catalog: HelpCatalog) -> None:
    # "fen" is also a prefix of "fens-file": the exact name must win.
    assert catalog.lookup("fen", "fr").topic == "fen"


def test_unique_prefix(catalog: HelpCatalog) -> None:
    page = catalog.lookup("al", "fr")
    assert (page.topic, page.lang, page.text) == ("alpha", "fr", "alpha en français\n")
    assert catalog.lookup("fens", "en").topic == "fens-file"


def test_case_and_surrounding_blanks_are_ignored(catalog: HelpCatalog) -> None:
    assert catalog.lookup("  FEN ", "en").topic == "fen"


def test_ambiguous_prefix_lists_sorted_matches(catalog: HelpCatalog) -> None:
    with pytest.raises(AmbiguousTopicError) as info:
        catalog.lookup("b", "en")
    err = info.value
    assert err.topic == "b"
    assert err.matches == ("beta", "bravo")
    assert err.render("en") == 'Ambiguous help topic "b". Matches: beta bravo'
    assert "beta bravo" in err.render("fr")
    assert "ambigu" in err.render("fr")


def test_no_such_topic_names_it(catalog: HelpCatalog) -> None:
    with pytest.raises(NoSuchTopicError) as info:
        catalog.lookup("zebra", "en")
    assert info.value.topic == "zebra"
    assert info.value.render("en") == 'No help available on "zebra".'
    assert info.value.render("fr") == "Aucune aide n’existe sur «\u202fzebra\u202f»."
    assert isinstance(info.value, LookupError)
    assert isinstance(info.value.message, Message)


def test_errors_share_a_base_class() -> None:
    for cls in (NoSuchTopicError, InvalidTopicError, AmbiguousTopicError):
        assert issubclass(cls, HelpError)
    assert issubclass(InvalidTopicError, NoSuchTopicError)


@pytest.mark.parametrize(
    "name",
    [
        "..",
        "../secret",
        "../../etc/passwd",
        "/etc/passwd",
        "en/fen",
        "fen/",
        "..\\secret",
        "fen\x00",
        "\x00",
        "fe n",
        "f" * 33,
        "x" * 100_000,
        "",
        "   ",
        "fén",
        "échecs",
        "ＦＥＮ",  # fullwidth letters must not fold into ASCII
        "\u212aey",  # KELVIN SIGN, which lowercases to an ASCII "k"
        "fen;rm",
        "*",
        "fen?",
    ],
)
def test_invalid_names_are_refused(catalog: HelpCatalog, name: str) -> None:
    with pytest.raises(InvalidTopicError) as info:
        catalog.lookup(name, "en")
    shown = info.value.render("en")
    assert "secret" not in shown or name.endswith("secret")
    assert "\x00" not in shown
    assert len(shown) < 100


def test_invalid_names_are_refused_before_any_file_is_touched(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = HelpCatalog(root)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file system was touched")

    monkeypatch.setattr(helpcatalog.os, "scandir", forbidden)
    monkeypatch.setattr(Path, "read_text", forbidden)
    monkeypatch.setattr(Path, "open", forbidden)
    for name in ("../secret", "/etc/passwd", "fen\x00", "a" * 1000, "fé"):
        with pytest.raises(InvalidTopicError):
            catalog.lookup(name, "fr")


def test_bad_language_codes_never_reach_the_file_system(catalog: HelpCatalog) -> None:
    for lang in ("../..", "/etc", "fr/../..", "fr\x00", "", "FR"):
        page = catalog.lookup("alpha", lang)
        assert page.lang == "en"
        assert page.text == "alpha in English\n"


def test_longest_allowed_name(root: Path) -> None:
    name = "a" * helpcatalog.MAX_TOPIC_LENGTH
    write(root, "en", name, "long\n")
    assert HelpCatalog(root).lookup(name, "en").text == "long\n"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_resolves_or_raises_a_help_error(text: str) -> None:
    try:
        page = helpcatalog.lookup(text, "fr")
    except HelpError as err:
        assert err.render("fr")
        assert err.render("en")
    else:
        assert page.topic in helpcatalog.topics("fr")
        assert page.topic.startswith(text.strip().lower())


# -- fallback ---------------------------------------------------------------


def test_fallback_to_english_with_notice(catalog: HelpCatalog) -> None:
    page = catalog.lookup("beta", "fr")
    assert page.topic == "beta"
    assert page.lang == "en"
    assert page.text == "beta in English\n"
    assert page.fallback is True
    assert isinstance(page.notice, Message)
    notice_fr = page.notice.render("fr")
    assert "traduite" in notice_fr and "anglaise" in notice_fr
    assert "\n" not in notice_fr
    assert page.notice.render("en") == (
        "This help page has not been translated into your language yet; "
        "showing the English version."
    )


def test_prefix_of_an_untranslated_page_falls_back(catalog: HelpCatalog) -> None:
    page = catalog.lookup("br", "fr")
    assert (page.topic, page.fallback) == ("bravo", True)


def test_unknown_language_falls_back_with_notice(catalog: HelpCatalog) -> None:
    page = catalog.lookup("alpha", "de")
    assert page.fallback is True and page.lang == "en"
    assert page.notice is not None


def test_no_notice_for_english_readers(catalog: HelpCatalog) -> None:
    page = catalog.lookup("beta", "en")
    assert page.fallback is False and page.notice is None


# -- reading and caching ----------------------------------------------------


def test_pages_are_read_as_utf8(root: Path) -> None:
    write(root, "fr", "beta", "\ufeffÉchecs : « roque »\n")
    (root / "fr" / "bravo").write_bytes(b"caf\xe9\n")  # not UTF-8: no crash
    catalog = HelpCatalog(root)
    assert catalog.lookup("beta", "fr").text == "Échecs : « roque »\n"
    assert catalog.lookup("bravo", "fr").text == "caf\ufffd\n"


def test_second_lookup_does_not_reopen_the_file(root: Path) -> None:
    catalog = HelpCatalog(root)
    first = catalog.lookup("alpha", "fr")
    (root / "fr" / "alpha").unlink()
    (root / "en" / "alpha").unlink()
    again = catalog.lookup("alpha", "fr")
    assert again == first
    assert catalog.lookup("alp", "fr").text == "alpha en français\n"


def test_each_file_is_read_once(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = HelpCatalog(root)
    reads: list[Path] = []
    real_read_text = Path.read_text

    def counting(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(self)
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    for _ in range(50):
        catalog.lookup("fen", "fr")
        catalog.lookup("fen", "en")
        catalog.lookup("bet", "fr")
        catalog.lookup("beta", "en")
    assert sorted(map(str, reads)) == sorted(
        str(root / lang / topic) for lang, topic in [("fr", "fen"), ("en", "fen"), ("en", "beta")]
    )


def test_topic_list_is_built_once(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = HelpCatalog(root)
    scans: list[object] = []
    real_scandir = os.scandir

    def counting(path: object) -> object:
        scans.append(path)
        return real_scandir(path)

    monkeypatch.setattr(helpcatalog.os, "scandir", counting)
    for _ in range(20):
        catalog.topics("fr")
        catalog.lookup("al", "fr")
    assert len(scans) == 3  # the root, en and fr, once each
    catalog.topics("de")
    catalog.lookup("alpha", "de")
    catalog.lookup("alpha", "xyz")
    assert len(scans) == 3  # unknown languages touch nothing


def test_reload_sees_changes(root: Path) -> None:
    catalog = HelpCatalog(root)
    assert catalog.lookup("alpha", "fr").text == "alpha en français\n"
    write(root, "fr", "alpha", "alpha, deuxième version\n")
    write(root, "fr", "beta", "beta en français\n")
    write(root, "en", "gamma", "gamma\n")
    assert catalog.lookup("alpha", "fr").text == "alpha en français\n"
    catalog.reload()
    assert catalog.lookup("alpha", "fr").text == "alpha, deuxième version\n"
    assert catalog.lookup("beta", "fr").fallback is False
    assert "gamma" in catalog.topics()


# -- index ------------------------------------------------------------------


def test_index_lists_every_topic_in_columns(catalog: HelpCatalog) -> None:
    text = catalog.index("en")
    lines = text.splitlines()
    assert lines[0] == "Help is available on the following topics:"
    words = " ".join(lines[2:-2]).split()
    assert sorted(words) == catalog.topics()
    assert all(len(line) <= 79 for line in lines)


def test_index_is_localized(catalog: HelpCatalog) -> None:
    text = catalog.index("fr")
    assert text.startswith("De l’aide est disponible sur les sujets suivants\u202f:")
    assert "«\u202fhelp SUJET\u202f»" in text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_index_of_the_shipped_pages_fits_79_columns(lang: str) -> None:
    lines = helpcatalog.index(lang).splitlines()
    assert all(len(line) <= 79 for line in lines), max(lines, key=len)
    assert sorted(" ".join(lines[2:-2]).split()) == helpcatalog.topics(lang)


def test_columns_layout() -> None:
    words = [f"w{i:02d}" for i in range(10)]
    rows = helpcatalog.columns(words, width=20)
    assert rows == ["w00  w03  w06  w09", "w01  w04  w07", "w02  w05  w08"]
    assert helpcatalog.columns([], width=20) == []
    assert helpcatalog.columns(["x" * 50], width=20) == ["x" * 50]


# -- the shipped pages through the module-level API ------------------------


def test_default_catalog_module_functions() -> None:
    assert "fen" in helpcatalog.topics()
    assert helpcatalog.topics("fr") == helpcatalog.topics()
    page = helpcatalog.lookup("fen", "fr")
    assert (page.topic, page.lang, page.fallback) == ("fen", "fr", False)
    assert helpcatalog.lookup("bs", "en").topic == "bsetup"
    with pytest.raises(AmbiguousTopicError) as info:
        helpcatalog.lookup("sty", "en")
    assert info.value.matches == ("style", "style12")
    assert helpcatalog.lookup("style", "en").topic == "style"
    assert helpcatalog.index("fr").splitlines()[0].startswith("De l’aide")


def test_repr() -> None:
    catalog = HelpCatalog("/some/where")
    assert repr(catalog) == "HelpCatalog('/some/where', reference='en')"
    assert repr(AmbiguousTopicError("b", ["bravo", "beta"])) == "AmbiguousTopicError('b', ['beta', 'bravo'])"
    assert repr(NoSuchTopicError("zebra")) == "NoSuchTopicError('zebra')"
