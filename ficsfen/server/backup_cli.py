"""``ficsfen backup FILE``: copy the data file while the server runs.

    ficsfen backup FILE [--force] [--data DATAFILE] [--config FILE] [--lang LANG]

The data file is the server's (``[storage] path`` of the configuration, or
``--data``).  The copy is :func:`ficsfen.server.store.backup.backup`'s: a
consistent copy of the moment it began, taken beside a running server
without its lock and without holding it up, checked, then renamed to FILE
(an existing FILE is replaced only with ``--force``).  A summary follows
(the file's accounts and games, those in play).  Exit status: 0 copied, 1
refused (FILE exists, the data file cannot be read, the copy failed its
check), 2 usage error.  Every message is localized.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ficsfen.argparse_i18n import LocalizedArgumentParser
from ficsfen.i18n import msg, msgn
from ficsfen.server.admin import EXIT_OK, _common, _data_file, _language, _run

__all__ = ["backup_main"]


def _parser(lang: str) -> LocalizedArgumentParser:
    parser = LocalizedArgumentParser(
        lang=lang, prog="ficsfen backup", parents=[_common(lang)],
        description=msg("Copy the server's data file to FILE while the server runs (SQLite's "
                        "online backup): a consistent copy of the moment the copy began, "
                        "checked before it is written. To restore it, start a server on it "
                        "(ficsfen serve --data FILE), or copy it over the data file while the "
                        "server is stopped.").render(lang))
    parser.add_argument("file", metavar="FILE", help=msg(
        "the copy to write (refused if it exists, unless --force)").render(lang))
    parser.add_argument("--force", action="store_true", help=msg(
        "replace FILE if it exists").render(lang))
    return parser


def backup_main(argv: list[str] | None = None, *, lang: str | None = None,
                out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``ficsfen backup``; returns the exit status."""
    from ficsfen.server.store.backup import backup

    argv = sys.argv[1:] if argv is None else argv
    out, err = out or sys.stdout, err or sys.stderr
    lang = _language(argv, lang)
    args = _parser(lang).parse_args(argv)  # SystemExit(2): a usage error

    def action() -> int:
        source, _configured = _data_file(args)
        done = backup(source, args.file, force=args.force)
        lines = [
            msg("Copied {data} to {file} ({pages} pages, schema version {version}).",
                data=str(done.source), file=str(done.target), pages=done.pages,
                version=done.schema_version),
            msgn("{count} account,", "{count} accounts,", done.accounts),
            msgn("{count} game: {playing} in play (adjourned in a server started on the copy), "
                 "{adjourned} adjourned.",
                 "{count} games: {playing} in play (adjourned in a server started on the copy), "
                 "{adjourned} adjourned.", done.games, playing=done.in_play,
                 adjourned=done.adjourned),
        ]
        out.write(lines[0].render(lang) + "\n" + lines[1].render(lang) + " "
                  + lines[2].render(lang) + "\n")
        return EXIT_OK

    return _run(action, lang, err)
