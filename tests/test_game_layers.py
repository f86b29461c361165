"""The game domain depends on neither its presentation nor its storage.

Played games, their values, errors, offers and durability import no board
renderer and no store: those depend on the games (the store's ``EndCode``
and ``GameStatus`` are the domain's).  Each check runs in a fresh
interpreter, since this test process has long loaded everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DOMAIN = ["ficsfen.server.games", "ficsfen.server.game_values", "ficsfen.server.game_errors",
          "ficsfen.server.game_hooks", "ficsfen.server.offers", "ficsfen.server.commit_order",
          "ficsfen.server.game_durability", "ficsfen.server.adjourned",
          "ficsfen.server.examined"]
#: What the game domain must not load: the boards, their renderer, the fan-out, the store.
OUTSIDE = ("ficsfen.server.boards", "ficsfen.server.renderer", "ficsfen.server.broadcaster",
           "ficsfen.server.store", "ficsfen.server.journal", "ficsfen.server.server")


def test_the_game_modules_load_no_board_and_no_store():
    code = ("import importlib, json, sys\n"
            f"for name in {DOMAIN!r}:\n"
            "    importlib.import_module(name)\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({OUTSIDE!r}))))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_the_store_takes_its_game_values_from_the_game_domain():
    from ficsfen.server import game_values
    from ficsfen.server.store import records

    assert records.EndCode is game_values.EndCode
    assert records.GameStatus is game_values.GameStatus
