"""``ficsfen --version`` and ``ficsfen serve --print-config``."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ficsfen
from ficsfen.cli import main, version
from ficsfen.server.config import DEFAULT_CONFIG, Config, from_mapping

REPO = Path(__file__).resolve().parents[1]
PYPROJECT_VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_version_is_the_installed_distributions_and_pyprojects(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"ficsfen {PYPROJECT_VERSION}\n"
    assert version() == importlib.metadata.version("ficsfen") == PYPROJECT_VERSION
    # what `finger`-style server texts show (ficsfen.__version__) is the same number
    assert ficsfen.__version__ == PYPROJECT_VERSION


@pytest.mark.slow
def test_version_from_the_command_line_in_french():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "ficsfen", "--lang", "fr", "--version"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"ficsfen {PYPROJECT_VERSION}\n", "")
    help_text = subprocess.run([sys.executable, "-m", "ficsfen", "--lang", "fr", "--help"],
                               capture_output=True, text=True, timeout=60, env=env).stdout
    assert "afficher la version de ficsfen et quitter" in help_text


def test_print_config_prints_the_shipped_file_which_parses_to_the_defaults(capsys):
    assert main(["serve", "--print-config"]) == 0
    printed = capsys.readouterr().out
    assert printed == DEFAULT_CONFIG.read_text(encoding="utf-8")
    assert printed == (REPO / "config" / "ficsfen.toml").read_text(encoding="utf-8")
    assert printed.startswith("# ficsfen server configuration.")
    assert from_mapping(tomllib.loads(printed)) == Config()


def test_print_config_copy_is_a_working_configuration(tmp_path, capsys):
    assert main(["serve", "--print-config"]) == 0
    copy = tmp_path / "mine.toml"
    copy.write_text(capsys.readouterr().out.replace('level = "info"', 'level = "warn"'), encoding="utf-8")
    from ficsfen.server.config import load

    assert load(copy).log_level == "warn"


def test_print_config_is_package_data_in_the_wheel():
    # the file --print-config reads is inside the package, so a pip install has it
    assert DEFAULT_CONFIG.is_relative_to(Path(ficsfen.__file__).parent)
    assert not DEFAULT_CONFIG.is_symlink()
