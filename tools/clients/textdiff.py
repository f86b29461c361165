#!/usr/bin/env python3
"""What the server said differently in two runs of the same scenarios.

    python3 textdiff.py OUT-ONE-NODE OUT-CLUSTER      # e.g. run.py --one-node, then --cluster

For each scenario folder found in both runs: the server-to-client text of its
traffic logs, line by line, with guest handles written ``GuestX``, every number
``#`` and the ``<12>``/``<s>`` lines left out (their clocks and numbers differ
from run to run; the boards are checked by the scenarios themselves), counted;
then each line whose count differs, with both counts.  Stdlib only.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from summarize import read_log


def lines(folder: Path) -> Counter[str]:
    """The normalized lines the server sent in one scenario folder, counted."""
    out: Counter[str] = Counter()
    for log in sorted((folder / "traffic").glob("*.log")):
        text = b"".join(data for way, data in read_log(log) if way == "S<").decode("latin-1")
        for line in re.split(r"\r?\n", text):
            line = re.sub(r"\d+", "#", re.sub(r"Guest[A-Z]{4}", "GuestX", line))
            line = line.replace("\x07", "").strip()
            if line and not line.startswith(("<12>", "<s>", "fics% <12>")):
                out[line] += 1
    return out


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    one, two = Path(sys.argv[1]), Path(sys.argv[2])
    for folder in sorted(p for p in one.iterdir() if (p / "traffic").is_dir()):
        if not (two / folder.name / "traffic").is_dir():
            continue
        a, b = lines(folder), lines(two / folder.name)
        diff = [(a[k], b[k], k) for k in sorted(set(a) | set(b)) if a[k] != b[k]]
        print(f"## {folder.name}: {len(diff)} lines differ")
        for x, y, k in diff:
            print(f"{x:4d} {y:4d}  {k[:150]!r}")


if __name__ == "__main__":
    main()
