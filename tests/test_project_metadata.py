"""What the package index shows: pyproject's URLs, classifiers and keywords, the README, the changelog."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import trove_classifiers

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
HOME = "https://github.com/ficsfen/ficsfen"


def test_project_urls_point_at_the_repository():
    urls = PROJECT["urls"]
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls)
    assert all(url == HOME or url.startswith(HOME + "/") for url in urls.values())
    assert urls["Changelog"].endswith("/CHANGELOG.md")


def test_classifiers_are_known_current_and_agree_with_the_other_fields():
    classifiers = PROJECT["classifiers"]
    unknown = [c for c in classifiers if c not in trove_classifiers.classifiers]
    assert not unknown
    assert not [c for c in classifiers if c in trove_classifiers.deprecated_classifiers]
    assert {"Framework :: Twisted", "Topic :: Games/Entertainment :: Board Games"} <= set(classifiers)
    # PEP 639: the license is the SPDX expression, and a "License ::" classifier beside it is refused
    assert PROJECT["license"] == "GPL-3.0-or-later"
    assert (REPO / "LICENSE").read_text().lstrip().startswith("GNU GENERAL PUBLIC LICENSE")
    assert not [c for c in classifiers if c.startswith("License ::")]
    floor = tuple(int(n) for n in re.fullmatch(r">=(\d+)\.(\d+)", PROJECT["requires-python"]).groups())
    versions = [tuple(int(n) for n in c.rsplit(" ", 1)[1].split("."))
                for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions and min(versions) == floor
    assert "Typing :: Typed" in classifiers and (REPO / "ficsfen" / "py.typed").exists()


def test_keywords():
    assert {"chess", "fen", "fics", "telnet", "twisted"} <= set(PROJECT["keywords"])


def test_readme_links_are_absolute_for_the_package_index():
    text = (REPO / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]
    assert not relative, relative
    for target in targets:
        if target.startswith(HOME + "/blob/main/") or target.startswith(HOME + "/tree/main/"):
            path = target.split("/main/", 1)[1].split("#", 1)[0]
            assert (REPO / path).exists(), f"{target}: no {path} in the repository"


def test_readme_quick_start_is_still_two_commands():
    text = (REPO / "README.md").read_text()
    block = text.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/ficsfen serve",
        "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest",
    ]


def test_changelog_keeps_a_changelog_with_the_current_version():
    text = (REPO / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "keepachangelog.com" in text
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.MULTILINE)
    assert headings[0] == ("Unreleased", "")
    assert (PROJECT["version"], headings[1][1]) == headings[1] and headings[1][1]
    sections = set(re.findall(r"^### (\w+)$", text, re.MULTILINE))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    for name, _ in headings:  # each version heading has its link reference
        assert re.search(rf"^\[{re.escape(name)}\]: {re.escape(HOME)}/", text, re.MULTILINE), name
