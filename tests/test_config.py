"""The server configuration: shipped defaults, validation, localized errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ficsfen.server import config
from ficsfen.server.config import Config, ConfigError, from_mapping, hash_password, load, verify_password

REPO = Path(__file__).resolve().parents[1]


def test_shipped_file_documents_exactly_the_dataclass_defaults():
    shipped = load()
    assert shipped == Config(source=config.DEFAULT_CONFIG)
    assert shipped.help_dir == config.PACKAGE_HELP_DIR
    text = config.DEFAULT_CONFIG.read_text()
    for (table, key) in config._SETTINGS:
        assert f"\n{key} = " in text, f"{table}.{key} is not in the shipped file"
        before = text.split(f"\n{key} = ")[0].rstrip().split("\n")[-1]
        assert before.startswith("#"), f"{table}.{key} has no comment above it"


def test_repository_config_is_the_shipped_file():
    link = REPO / "config" / "ficsfen.toml"
    assert link.resolve() == config.DEFAULT_CONFIG.resolve()


def test_partial_file_keeps_other_defaults(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[server]\nlisten = "tcp:6000"\nlanguage = "fr"\nhelp = "pages"\n'
                    '[limits]\nidle_timeout = 0\n')
    (tmp_path / "pages").mkdir()
    cfg = load(path)
    assert cfg.listen == ("tcp:6000",)
    assert cfg.language == "fr"
    assert cfg.help_dir == tmp_path / "pages"  # relative to the file
    assert cfg.idle_timeout == 0.0
    assert cfg.prompt == "fics% "
    assert cfg.with_listen(["tcp:0"]).listen == ("tcp:0",)


@pytest.mark.parametrize("data, english, french", [
    ({"limits": {"line_length": 0}}, "setting limits.line_length: expected a positive integer, got 0",
     "réglage limits.line_length\u202f: un entier positif attendu, reçu 0"),
    ({"limits": {"login_timeout": "soon"}}, "expected a number of seconds (0 or more), got 'soon'",
     "un nombre de secondes (0 ou plus) attendu"),
    ({"server": {"language": "de"}}, "expected one of: en, fr, got 'de'", "l’une des valeurs\u202f: en, fr"),
    ({"server": {"colour": 1}}, "unknown setting server.colour", "réglage server.colour inconnu"),
    ({"network": {}}, "unknown section [network]", "section [network] inconnue"),
    ({"server": {"help": "/nonexistent/help"}}, "no such folder", "dossier introuvable"),
    ({"accounts": {"al": "x"}}, "a handle is 3 to 17 letters", "de 3 à 17 lettres"),
    ({"accounts": {"alice": "plain"}}, "ficsfen serve --hash-password", "ficsfen serve --hash-password"),
    ({"server": {"admins": ["al"]}}, "expected a list of handles (3 to 17 letters each)",
     "une liste de pseudos (de 3 à 17 lettres chacun) attendu"),
    ({"server": {"listen": []}}, "expected a non-empty list of endpoint strings",
     "une liste non vide de points d’écoute"),
])
def test_bad_settings_are_named_in_both_languages(data, english, french):
    with pytest.raises(ConfigError) as info:
        from_mapping(data)
    assert english in info.value.render("en")
    assert french in info.value.render("fr")


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[server\n")
    with pytest.raises(ConfigError) as info:
        load(bad)
    assert "not valid TOML" in info.value.render("en")
    assert "TOML invalide" in info.value.render("fr")


def test_admins_are_folded_handles():
    assert from_mapping({"server": {"admins": ["Alice", "bob", "ALICE"]}}).admins == ("alice", "bob")
    assert Config().admins == ()


def test_password_hashes():
    stored = hash_password("s3cret", iterations=1000)
    assert stored.startswith("pbkdf2_sha256$1000$")
    assert verify_password("s3cret", stored)
    assert not verify_password("S3cret", stored)
    assert not verify_password("s3cret", "garbage")
    assert from_mapping({"accounts": {"Alice": stored}}).accounts == {"alice": stored}
