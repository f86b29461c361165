"""Operator commands on the data file: ``ficsfen accounts`` and ``ficsfen games export``.

    ficsfen accounts add NAME | remove NAME | passwd NAME | admin NAME on|off | list
                     [--data FILE] [--config FILE] [--lang LANG]
    ficsfen games export [--player NAME] [-o FILE] [--site TEXT]
                         [--data FILE] [--config FILE] [--lang LANG]

The data file is the server's (``[storage] path`` of the configuration, or
``--data``), opened with ``exclusive=False``: these commands work while a
server runs on the same file.  ``list`` and ``export`` open it read-only:
they also read a file on a read-only file system.  An account added, removed, given a new
password or made an operator (``admin NAME on``) is seen by the running
server at the next login, since it reads accounts from the store then;
``list`` marks operators (the file's flag or the configuration's ``[server]
admins``) and muzzled players.

Passwords are read without echo from a terminal (asked twice), else as one
line of standard input; they are hashed (slowly, on purpose) before the
store is written.  Exit status: 0 done, 1 refused (a bad name, an account
that exists or does not, a data file that cannot be used), 2 usage error.
Every message is localized; no traceback reaches the operator.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from ficsfen.i18n import (LocalizedError, Message, available_languages, language_from_environ, msg,
                          msgn, resolve_language)
from ficsfen.argparse_i18n import LocalizedArgumentParser
from ficsfen.names import fold
from ficsfen.server.config import ConfigError, hash_password, load
from ficsfen.server.serve import CONFIG_OPTION_HELP, data_file_option

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "AdminError", "accounts_main",
           "check_account_name", "games_main", "read_password"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

# Seconds to wait for the store's writer; only keeps a wedged file from hanging the tool.
_WRITE_TIMEOUT = 120.0

DATA_HELP = msg("data file or postgresql:// URL (default: [storage] url or path of the "
                "configuration); works while the server runs")


class AdminError(LocalizedError):
    """Why an operator command was refused; printed as one line, exit status 1."""


def check_account_name(name: str) -> Message | None:
    """Why ``name`` cannot be an account's handle (the login rules), or ``None``."""
    if not (name.isascii() and name.isalpha() and 3 <= len(name) <= 17):
        return msg("{name}: a handle is 3 to 17 letters (A-Z, a-z).", name=name)
    if fold(name).startswith("guest"):
        return msg("{name}: handles starting with \"Guest\" are given to guests.", name=name)
    return None


def read_password(*, stdin: TextIO | None = None,
                  ask: Callable[[str], str] = getpass.getpass, lang: str = "en") -> str:
    """A new password: asked twice without echo on a terminal, else one line of ``stdin``.

    :raises AdminError: nothing read, the two differ, or a password with a
        blank (``password OLD NEW`` takes one word each).
    """
    stdin = stdin if stdin is not None else sys.stdin
    if stdin.isatty():
        password = ask(msg("New password: ").render(lang))
        if ask(msg("Again: ").render(lang)) != password:
            raise AdminError(msg("The two passwords differ; nothing was changed."))
    else:
        line = stdin.readline()
        if not line:
            raise AdminError(msg("No password on standard input; nothing was changed."))
        password = line.rstrip("\r\n")
    if not password:
        raise AdminError(msg("The password is empty; nothing was changed."))
    if any(c.isspace() for c in password):
        raise AdminError(msg("A password is one word, without blanks; nothing was changed."))
    return password


# -- shared ---------------------------------------------------------------------------------


def _language(argv: list[str], lang: str | None) -> str:
    early = LocalizedArgumentParser(add_help=False, lang=lang or language_from_environ())
    early.add_argument("--lang")
    chosen = resolve_language(early.parse_known_args(argv)[0].lang or "")
    return chosen if isinstance(chosen, str) else lang or language_from_environ()


def _common(lang: str, *, default: object = None) -> LocalizedArgumentParser:
    """The options every action takes, before or after its name.

    The actions' own copies default to ``argparse.SUPPRESS``: a default there
    would replace a value given before the action's name.
    """
    common = LocalizedArgumentParser(add_help=False, lang=lang)
    common.add_argument("--lang", metavar="LANG", default=default, help=msg(
        "language of messages ({choices}); default from the locale",
        choices=", ".join(available_languages())).render(lang))
    common.add_argument("--config", metavar="FILE", default=default,
                        help=CONFIG_OPTION_HELP.render(lang))
    common.add_argument("--data", metavar="FILE", default=default, help=DATA_HELP.render(lang))
    return common


def _data_file(args: argparse.Namespace) -> tuple[Path | str, dict[str, str]]:
    """The data file the options name, and the configuration's ``[accounts]``
    (the configuration's operators are kept in ``args.admins``).

    :raises AdminError: the configuration cannot be read, or there is no data file.
    """
    try:
        config = load(args.config)
    except ConfigError as e:
        raise AdminError(e.message) from None
    args.admins = config.admins
    path = config.data_location if args.data is None else data_file_option(args.data)
    if path is None:
        raise AdminError(msg("No data file: the configuration's [storage] path is empty, or "
                             "--data is none; give one with --data FILE."))
    return path, dict(config.accounts)


class _Store:
    """The data file opened beside a running server, on a private reactor."""

    def __init__(self, path: Path | str, *, must_exist: bool, read_only: bool = False) -> None:
        from ficsfen.server.store import SQLiteStore
        from ficsfen.server.store.testing import private_reactor

        if isinstance(path, str):  # a PostgreSQL database's URL
            from ficsfen.server.store.postgres import PostgresStore

            self.reactor = private_reactor()
            self.store: Any = PostgresStore.open(path, reactor=self.reactor, exclusive=False,
                                                 read_only=read_only)
            return
        if must_exist and not path.is_file():
            raise AdminError(msg("{file}: there is no data file here yet (the server creates "
                                 "it when it first starts).", file=str(path)))
        self.reactor = private_reactor()
        # readers open it read-only: they work on a read-only file system too
        self.store = SQLiteStore.open(path, reactor=self.reactor, exclusive=False,
                                      read_only=read_only)

    def wait(self, d: Any) -> Any:
        from ficsfen.server.store.testing import wait_for

        return wait_for(self.reactor, d, timeout=_WRITE_TIMEOUT)

    def close(self) -> None:
        self.wait(self.store.close())


def _run(action: Callable[[], int], lang: str, err: TextIO) -> int:
    """Run ``action``; a refusal or a store error is one localized line and status 1."""
    from ficsfen.server.store import StoreError

    try:
        return action()
    except (AdminError, StoreError) as e:
        err.write(e.render(lang) + "\n")
        return EXIT_FAILED
    except OSError as e:
        err.write(msg("cannot write {path}: {reason}", path=e.filename or "<stdout>",
                      reason=e.strerror or str(e)).render(lang) + "\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        err.write("\n")
        return 130


# -- accounts -----------------------------------------------------------------------------


def _accounts_parser(lang: str) -> argparse.ArgumentParser:
    common = _common(lang, default=argparse.SUPPRESS)
    parser = LocalizedArgumentParser(
        lang=lang, prog="ficsfen accounts", parents=[_common(lang)],
        description=msg("Manage registered accounts in the server's data file; this works "
                        "while the server runs (it reads accounts at each login).").render(lang))
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in (("add", msg("register NAME; its password is read without echo, or "
                                     "from standard input")),
                         ("remove", msg("delete NAME's account and settings (games stay)")),
                         ("passwd", msg("give NAME a new password, read as for add"))):
        one = sub.add_parser(action, lang=lang, parents=[common], help=text.render(lang),
                             description=text.render(lang))
        one.add_argument("name", metavar="NAME", help=msg("the handle").render(lang))
    text = msg("make NAME an operator (on) or not (off)")
    admin = sub.add_parser("admin", lang=lang, parents=[common], help=text.render(lang),
                           description=text.render(lang))
    admin.add_argument("name", metavar="NAME", help=msg("the handle").render(lang))
    admin.add_argument("state", choices=("on", "off"), help=msg("on or off").render(lang))
    sub.add_parser("list", lang=lang, parents=[common], help=msg("list the accounts").render(lang),
                   description=msg("List the accounts, with when each was created, and which are "
                                   "operators (admin) or muzzled.").render(lang))
    return parser


def accounts_main(argv: list[str] | None = None, *, lang: str | None = None,
                  out: TextIO | None = None, err: TextIO | None = None,
                  stdin: TextIO | None = None) -> int:
    """``ficsfen accounts``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    out, err = out or sys.stdout, err or sys.stderr
    lang = _language(argv, lang)
    args = _accounts_parser(lang).parse_args(argv)  # SystemExit(2): a usage error

    def action() -> int:
        path, configured = _data_file(args)
        if args.action in ("add", "passwd", "admin"):
            problem = check_account_name(args.name)
            if problem is not None:
                raise AdminError(problem)
        store = _Store(path, must_exist=args.action != "add", read_only=args.action == "list")
        try:
            return _ACCOUNT_ACTIONS[args.action](store, args, configured, lang, out, stdin)
        finally:
            store.close()

    return _run(action, lang, err)


def _add(store: _Store, args: argparse.Namespace, configured: dict[str, str], lang: str,
         out: TextIO, stdin: TextIO | None) -> int:
    from ficsfen.server.store import AccountExistsError

    existing = store.store.get_account(args.name)
    if existing is not None:
        raise AccountExistsError(existing.name)
    hashed = hash_password(read_password(stdin=stdin, lang=lang))  # before the write
    store.wait(store.store.add_account(args.name, hashed))
    out.write(msg("Account {name} added to {file}.", name=args.name,
                  file=str(store.store.path)).render(lang) + "\n")
    return EXIT_OK


def _remove(store: _Store, args: argparse.Namespace, configured: dict[str, str], lang: str,
            out: TextIO, stdin: TextIO | None) -> int:
    from ficsfen.server.store import NoSuchAccountError

    account = store.store.get_account(args.name)
    if account is None:
        raise NoSuchAccountError(args.name)
    store.wait(store.store.remove_account(account.name))
    out.write(msg("Account {name} removed from {file}.", name=account.name,
                  file=str(store.store.path)).render(lang) + "\n")
    if fold(account.name) in configured:
        out.write(msg("{name} is also in the configuration's [accounts]: remove it there too, "
                      "or the server adds it again at its next start.",
                      name=account.name).render(lang) + "\n")
    return EXIT_OK


def _passwd(store: _Store, args: argparse.Namespace, configured: dict[str, str], lang: str,
            out: TextIO, stdin: TextIO | None) -> int:
    from ficsfen.server.store import NoSuchAccountError

    account = store.store.get_account(args.name)
    if account is None:
        raise NoSuchAccountError(args.name)
    hashed = hash_password(read_password(stdin=stdin, lang=lang))
    store.wait(store.store.set_password(account.name, hashed))
    out.write(msg("Password of {name} changed in {file}.", name=account.name,
                  file=str(store.store.path)).render(lang) + "\n")
    return EXIT_OK


def _admin(store: _Store, args: argparse.Namespace, configured: dict[str, str], lang: str,
           out: TextIO, stdin: TextIO | None) -> int:
    from ficsfen.server.store import NoSuchAccountError

    account = store.store.get_account(args.name)
    if account is None:
        raise NoSuchAccountError(args.name)
    on = args.state == "on"
    store.wait(store.store.set_admin(account.name, on))
    out.write((msg("{name} is now an operator in {file}.", name=account.name,
                   file=str(store.store.path)) if on else
               msg("{name} is no longer an operator in {file}.", name=account.name,
                   file=str(store.store.path))).render(lang) + "\n")
    if not on and fold(account.name) in args.admins:
        out.write(msg("{name} is also in the configuration's [server] admins: remove it there "
                      "too, or it stays an operator.", name=account.name).render(lang) + "\n")
    return EXIT_OK


def _list(store: _Store, args: argparse.Namespace, configured: dict[str, str], lang: str,
          out: TextIO, stdin: TextIO | None) -> int:
    accounts = store.store.accounts()
    if not accounts:
        out.write(msg("No accounts in {file}.", file=str(store.store.path)).render(lang) + "\n")
        return EXIT_OK
    ratings = store.store.all_ratings()
    for account in accounts:
        created = time.strftime("%Y-%m-%d %H:%M", time.localtime(account.created))
        # Words, not translated: scripts read them (name, date, time, flags, then each
        # category played rated as CATEGORY=RATING/RD, rounded: blitz=1838/245).
        flags = [word for word, on in (
            ("admin", account.admin or fold(account.name) in args.admins),
            ("muzzled", account.muzzled)) if on]
        played = ratings.get(fold(account.name), {})
        rated = [f"{c.value}={round(r.rating)}/{round(r.rd)}"
                 for c, r in sorted(played.items(), key=lambda item: item[0].value) if r.total]
        out.write(" ".join([f"{account.name:<17}  {created}", *flags, *rated]).rstrip() + "\n")
    return EXIT_OK


_ACCOUNT_ACTIONS = {"add": _add, "remove": _remove, "passwd": _passwd, "admin": _admin,
                    "list": _list}


# -- games export -------------------------------------------------------------------------


def _games_parser(lang: str) -> argparse.ArgumentParser:
    common = _common(lang, default=argparse.SUPPRESS)
    parser = LocalizedArgumentParser(
        lang=lang, prog="ficsfen games", parents=[_common(lang)],
        description=msg("Work with the finished games of the server's data file.").render(lang))
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    text = msg("write finished games as PGN, with clocks and set-up positions")
    export = sub.add_parser("export", lang=lang, parents=[common], help=text.render(lang),
                            description=text.render(lang))
    export.add_argument("--player", metavar="NAME", help=msg(
        "only the games of this handle").render(lang))
    export.add_argument("-o", "--output", metavar="FILE", help=msg(
        "write to FILE instead of standard output").render(lang))
    export.add_argument("--site", metavar="TEXT", default="ficsfen", help=msg(
        "the Site tag, also the start of the Event tag (default: ficsfen)").render(lang))
    return parser


def games_main(argv: list[str] | None = None, *, lang: str | None = None,
               out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``ficsfen games export``; returns the exit status."""
    from ficsfen.server.export import write_games

    argv = sys.argv[1:] if argv is None else argv
    out, err = out or sys.stdout, err or sys.stderr
    lang = _language(argv, lang)
    args = _games_parser(lang).parse_args(argv)  # SystemExit(2): a usage error

    def action() -> int:
        path, _ = _data_file(args)
        store = _Store(path, must_exist=True, read_only=True)
        try:
            games = store.store.finished_games(args.player)
            ratings = store.store.game_ratings
            if args.output is None:
                write_games(games, out, site=args.site, ratings=ratings)
                out.flush()
                return EXIT_OK
            target = Path(args.output)
            partial = target.with_name(target.name + ".part")
            with open(partial, "w", encoding="utf-8", newline="\n") as sink:
                count = write_games(games, sink, site=args.site, ratings=ratings)
            os.replace(partial, target)  # a reader never sees half a file
            err.write(msgn("{count} game written to {file}.", "{count} games written to {file}.",
                           count, file=str(target)).render(lang) + "\n")
            return EXIT_OK
        finally:
            store.close()

    return _run(action, lang, err)
