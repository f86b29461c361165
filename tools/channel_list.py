"""Write the ``help channel_list`` pages from the server's table of channel topics.

    python tools/channel_list.py          # rewrite ficsfen/help/{en,fr}/channel_list
    python tools/channel_list.py --check  # exit 1 if a page differs from the table

The table is :data:`ficsfen.server.channel_topics.CHANNEL_TOPICS`; edit it
(and the French catalog, ``channels.po``), then run this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ficsfen.server.channel_topics import channel_list_page  # noqa: E402

LANGS = ("en", "fr")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for lang in LANGS:
        path = ROOT / "ficsfen" / "help" / lang / "channel_list"
        text = channel_list_page(lang)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    for path in stale:
        print(f"{path} differs from the channel table: run python tools/channel_list.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
