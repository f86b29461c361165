"""A missing prerequisite skips on a developer's machine and fails under CI.

Each case runs pytest in a child process on a copy of the real
``conftest.py`` (and, for the wheel, of the real ``test_plugin.py``) laid
out in a scratch folder where the prerequisite is absent, once with
``CI=true`` and once without ``CI``.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent

USES_SHARED = '''
def test_reads_a_real_game(shared_pgn):
    assert shared_pgn.is_dir()
'''

#: A project hatchling refuses to build: the required version is missing.
UNBUILDABLE = '''
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "ficsfen"
'''


def _conftest_plugins() -> list[str]:
    """The modules ``tests/conftest.py`` names in ``pytest_plugins`` (test kits beside it)."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "pytest_plugins"):
            return list(ast.literal_eval(node.value))
    return []


def _checkout(tmp_path: Path) -> Path:
    """``tmp_path/repo`` with ``tests/conftest.py`` and the plugins it names copied, and
    no ``../shared``."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    shutil.copy(TESTS / "conftest.py", repo / "tests" / "conftest.py")
    for plugin in _conftest_plugins():
        shutil.copy(TESTS / f"{plugin}.py", repo / "tests" / f"{plugin}.py")
    (repo / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return repo


def _pytest(repo: Path, *args: str, ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a quicker start: no plugin is needed
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "--rootdir",
         str(repo), *args],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ci", [True, False], ids=["ci", "developer"])
def test_missing_shared_folder(tmp_path, ci):
    repo = _checkout(tmp_path)
    (repo / "tests" / "test_shared.py").write_text(USES_SHARED, encoding="utf-8")
    result = _pytest(repo, "tests/test_shared.py", ci=ci)
    output = result.stdout + result.stderr
    assert "shared" in output  # the reason names what is missing
    if ci:
        assert result.returncode == 1, output
        assert "CI=true" in output and "1 error" in output
    else:
        assert result.returncode == 0, output
        assert "1 skipped" in output


def test_present_shared_folder_passes_under_ci(tmp_path):
    repo = _checkout(tmp_path)
    (tmp_path / "shared" / "data" / "pgn").mkdir(parents=True)
    (repo / "tests" / "test_shared.py").write_text(USES_SHARED, encoding="utf-8")
    result = _pytest(repo, "tests/test_shared.py", ci=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_wheel_that_will_not_build_fails_under_ci(tmp_path):
    """The skip outside CI takes the same path as the shared folder's (``missing``)."""
    repo = _checkout(tmp_path)
    shutil.copy(TESTS / "test_plugin.py", repo / "tests" / "test_plugin.py")
    (repo / "pyproject.toml").write_text(UNBUILDABLE, encoding="utf-8")
    result = _pytest(repo, "tests/test_plugin.py", "-k", "discovered", ci=True)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "cannot build the wheel" in output
    assert "CI=true" in output and "1 error" in output
