"""argparse's own texts in the user's language, without patching argparse."""

from __future__ import annotations

import argparse

import pytest

from ficsfen.argparse_i18n import LocalizedArgumentParser, argparse_texts

NNBSP = "\u202f"


def parser(lang: str) -> LocalizedArgumentParser:
    p = LocalizedArgumentParser(prog="prog", lang=lang)
    p.add_argument("name")
    p.add_argument("--count", type=int)
    p.add_argument("--colour", choices=["red", "blue"])
    p.add_argument("--pair", nargs=2)
    return p


def failure(p: argparse.ArgumentParser, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        p.parse_args(argv)
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize(("argv", "french"), [
    ([], f"ces arguments sont obligatoires{NNBSP}: name"),
    (["x", "--count", "ten"], f"argument --count{NNBSP}: valeur de type int invalide{NNBSP}: 'ten'"),
    (["x", "--colour", "green"],
     f"argument --colour{NNBSP}: choix invalide{NNBSP}: 'green' (choisissez parmi 'red', 'blue')"),
    (["x", "--count"], f"argument --count{NNBSP}: un argument est attendu"),
    (["x", "--pair", "a"], f"argument --pair{NNBSP}: 2 arguments sont attendus"),
    (["x", "y"], f"arguments non reconnus{NNBSP}: y"),
])
def test_errors_in_french_and_in_english(argv, french, capsys):
    err = failure(parser("fr"), argv, capsys)
    assert err.startswith(f"utilisation{NNBSP}: prog [-h]")
    assert err.endswith(f"prog{NNBSP}: erreur{NNBSP}: {french}\n")
    english = failure(parser("en"), argv, capsys)
    assert english.startswith("usage: prog [-h]") and "prog: error: " in english
    # and plain argparse says exactly what the English parser says
    assert failure(argparse.ArgumentParser(prog="prog", parents=[parser("en")], add_help=False),
                   argv, capsys) == english


def test_help_headings_and_the_help_option(capsys):
    with pytest.raises(SystemExit) as exit_:
        parser("fr").parse_args(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"utilisation{NNBSP}: prog")
    assert f"\narguments positionnels{NNBSP}:\n" in out and f"\noptions{NNBSP}:\n" in out
    assert "afficher ce message d’aide et quitter" in out and "show this help" not in out


def test_sub_parsers_need_and_keep_the_language(capsys):
    p = LocalizedArgumentParser(prog="prog", lang="fr")
    sub = p.add_subparsers(dest="command", required=True)
    one = sub.add_parser("one", lang="fr")
    one.add_argument("value")
    err = failure(p, ["one"], capsys)
    assert f"prog one{NNBSP}: erreur{NNBSP}: ces arguments sont obligatoires{NNBSP}: value" in err
    err = failure(p, ["two"], capsys)
    assert f"choix invalide{NNBSP}: 'two' (choisissez parmi 'one')" in err
    with pytest.raises(TypeError):
        sub.add_parser("three")  # no language: refused at once, not English later


def test_argparse_itself_is_untouched(capsys):
    parser("fr").format_help()
    assert argparse.ArgumentParser(prog="p").format_usage() == "usage: p [-h]\n"


def test_unknown_messages_and_languages_stay_english():
    texts = argparse_texts("fr")
    assert texts.translate_error("something argparse says in a later release") == \
        "something argparse says in a later release"
    assert argparse_texts("xx").translate_error("expected one argument") == "expected one argument"
    assert texts.translate_error("expected one argument") == "un argument est attendu"
    # a count of 1 takes the singular form
    assert texts.translate_error("expected 1 argument") == "1 argument est attendu"
