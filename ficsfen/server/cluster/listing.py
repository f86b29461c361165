"""A game of another node as ``games`` lists it, and as the Redis hash ``games`` keeps it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["RemoteListing", "listings_of"]


@dataclass(frozen=True)
class RemoteListing:
    """A game of another node as ``games`` lists it: its number, owner, line, players and
    the ``games /FLAGS`` letter that selects it."""

    number: int
    node: str
    line: str
    handles: tuple[str, str]
    kind: str

    def players(self) -> tuple[str, str]:
        return self.handles

    #: The store's id of the game (None: not stored, or not yet).
    record: int | None = None

    def to_json(self) -> str:
        return json.dumps({"number": self.number, "line": self.line,
                           "players": list(self.handles), "kind": self.kind,
                           "record": self.record}, separators=(",", ":"))

    @staticmethod
    def of(node: str, body: Any) -> RemoteListing:
        """From a ``cgame.up`` body or a ``games`` hash value.

        :raises KeyError, TypeError, ValueError: not such a listing.
        """
        white, black = body["players"]
        record = body.get("record")
        return RemoteListing(int(body["number"]), node, str(body["line"]),
                             (str(white), str(black)), str(body.get("kind", "")),
                             record if isinstance(record, int) else None)


def listings_of(flat: list[str]) -> list[RemoteListing]:
    """The listings of an ``HGETALL`` of the ``games`` hash (malformed values skipped)."""
    found = []
    for value in flat[1::2]:
        try:
            body = json.loads(value)
            found.append(RemoteListing.of(str(body["node"]), body))
        except (KeyError, TypeError, ValueError):
            continue
    return found
