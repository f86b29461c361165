"""The project's coverage settings keep the data of child processes.

``docs/coverage.md`` counts the code that runs only in child processes
(``ficsfen serve`` under ``ServerProcess``, the CLI).  Each test here runs a
child under ``coverage run`` with the settings of ``pyproject.toml`` and
checks which data files it leaves: one per process (``parallel``), also
after a SIGTERM (``sigterm``), never after a SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, missing

pytestmark = pytest.mark.slow

try:
    import coverage
except ImportError:
    missing("coverage is not installed: pip install '.[test]'")

#: Imports a module of the package, says so, then waits to be stopped.
CHILD = "import time\nimport ficsfen.fen\nprint('ready', flush=True)\ntime.sleep(120)\n"


def _run_child(tmp_path: Path, sig: int) -> list[Path]:
    """Start CHILD under coverage, send it ``sig``, return the data files it left."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["COVERAGE_FILE"] = str(tmp_path / ".coverage")
    env["PYTHONPATH"] = str(REPO)  # this checkout's package, however ficsfen is installed
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-m", "coverage", "run", "--rcfile", str(REPO / "pyproject.toml"),
         str(script)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n", child.stderr.read()
        child.send_signal(sig)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -sig
    return sorted(tmp_path.glob(".coverage.*"))


def test_a_child_stopped_with_sigterm_saves_its_data(tmp_path):
    (data_file,) = _run_child(tmp_path, signal.SIGTERM)
    data = coverage.CoverageData(str(data_file))
    data.read()
    measured = {Path(f).relative_to(REPO).as_posix() for f in data.measured_files()}
    assert "ficsfen/fen.py" in measured
    assert data.lines(str(REPO / "ficsfen" / "fen.py"))


def test_a_child_killed_with_sigkill_leaves_nothing(tmp_path):
    """What docs/coverage.md warns about: SIGKILL cannot be caught, the data is lost."""
    assert _run_child(tmp_path, signal.SIGKILL) == []
