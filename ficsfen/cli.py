"""The ``ficsfen`` command line: ``check``, ``fens``, ``serve``, ``accounts`` and ``games``.

Exit status: 0 success, 1 bad input (a FEN, a game, a file), 2 usage error.
Messages follow ``--lang`` or else the environment's locale (``LC_ALL``,
``LC_MESSAGES``, ``LANG``), falling back to English.  No traceback reaches
the user: every expected failure is a localized line on stderr.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr, BinaryIO, Callable, Iterable, Iterator, NoReturn, Sequence, TextIO

import chess

from ficsfen import fenfile
from ficsfen.argparse_i18n import LocalizedArgumentParser
from ficsfen.fen import FenError, Position, parse
from ficsfen.fensoutput import FileNames, Progress, game_file_name, write_fens
from ficsfen.i18n import (Message, available_languages, language_from_environ, msg,
                          resolve_language)
from ficsfen.pgn import PgnError
from ficsfen.variants import VARIANTS, VariantPosition, parse_variant

__all__ = ["board_diagram", "game_file_name", "main", "version", "write_fens"]

EXIT_OK, EXIT_BAD_INPUT, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    def __init__(self, message: Message | str, parser: argparse.ArgumentParser | None = None) -> None:
        self.message = message
        self.parser = parser
        super().__init__(str(message))


class _Parser(LocalizedArgumentParser):
    """argparse in the user's language, but usage errors come back to :func:`main` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(self.translate_error(message), self)


@dataclass(frozen=True)
class _Scan:
    """What :func:`main` must know before the parser exists."""

    lang: str | None  # the raw --lang value, if given
    command: int | None  # the index of the command word in argv


# argparse takes any unique prefix of an option; "--l" is unique in our parsers
# but not in serve's, which also has --listen.
_LANG_SPELLINGS = frozenset(("--l", "--la", "--lan", "--lang"))


def _scan(argv: Sequence[str]) -> _Scan:
    """Find ``--lang`` and the command word the way argparse will read them.

    The language is needed to build the parser (its help and argparse's own
    messages are in it), and ``serve`` hands the rest of the line on, so both
    are found before parsing.
    """
    value: str | None = None
    command: int | None = None
    wants_value = False
    for i, arg in enumerate(argv):
        if wants_value:
            value, wants_value = arg, False
            continue
        if arg == "--":
            if command is None and i + 1 < len(argv):
                command = i + 1
            break
        name, equals, rest = arg.partition("=")
        after_serve = command is not None and argv[command] == "serve"
        if name in _LANG_SPELLINGS and not (after_serve and name == "--l"):
            if equals:
                value = rest
            else:
                wants_value = True
        elif command is None and not arg.startswith("-"):
            command = i
    return _Scan(value, command)


def _parser(lang: str) -> _Parser:
    def t(message: Message) -> str:
        return message.render(lang)

    common = _Parser(add_help=False, lang=lang)
    common.add_argument(
        "--lang",
        metavar="LANG",
        help=t(msg("language of messages ({choices}); default from the locale",
                   choices=", ".join(available_languages()))),
    )
    parser = _Parser(
        prog="ficsfen",
        description=t(msg("FEN tools for FICS-style chess servers.")),
        parents=[common],
        lang=lang,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help=t(msg("print the version of ficsfen and exit")))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = sub.add_parser(
        "check",
        lang=lang,
        parents=[common],
        help=t(msg("check FEN records (exit 0 when valid, 1 when not)")),
        description=t(msg("Check a FEN record: give it as one quoted argument, as six arguments, or - to read "
                          "one record per line from standard input.")),
    )
    check.add_argument("fen", nargs="+", metavar="FEN", help=t(msg("the record, its six fields, or -")))
    check.add_argument("--board", action="store_true", help=t(msg("also print the position as a diagram")))
    check.add_argument("--variant", choices=sorted(VARIANTS), help=t(msg(
        "check records of this variant: Chess960 castling in X-FEN or Shredder-FEN, crazyhouse "
        "holdings in brackets")))
    check.add_argument("--shredder", action="store_true", help=t(msg(
        "with --variant, print the castling field in Shredder-FEN (rook files) rather than X-FEN")))
    fens = sub.add_parser(
        "fens",
        lang=lang,
        parents=[common],
        help=t(msg("print the FEN after every ply of PGN games")),
        description=t(msg("Replay PGN games and print each game's initial FEN then the FEN after every ply, "
                          "one per line.")),
    )
    fens.add_argument("files", nargs="+", metavar="FILE.pgn", help=t(msg("PGN files (- for standard input)")))
    fens.add_argument("-o", "--output", metavar="DIR", type=Path, help=t(msg(
        "write one .fen file per game into DIR, named INPUT-NUMBER-WHITE-BLACK.fen; a second input of the same "
        "name is called INPUT-2, so that no file of the run replaces another")))
    fens.add_argument("-j", "--jobs", metavar="N", type=_jobs, default=1, help=t(msg(
        "replay games in N processes (0: one per CPU); the output keeps the input's order")))
    sub.add_parser(
        "serve",
        lang=lang,
        help=t(msg("run the telnet server (options are passed on to it)")),
        add_help=False,
    )
    sub.add_parser(
        "accounts",
        lang=lang,
        help=t(msg("add, remove, list registered accounts or change their passwords "
                   "(works while the server runs)")),
        add_help=False,
    )
    sub.add_parser(
        "games",
        lang=lang,
        help=t(msg("export the server's finished games as PGN (games export)")),
        add_help=False,
    )
    sub.add_parser(
        "backup",
        lang=lang,
        help=t(msg("copy the data file while the server runs (ficsfen backup FILE)")),
        add_help=False,
    )
    return parser


def version() -> str:
    """The installed distribution's version (``pyproject.toml``'s), or the package's own
    ``__version__`` when ficsfen runs from a checkout that is not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as distribution_version

    try:
        return distribution_version("ficsfen")
    except PackageNotFoundError:
        from ficsfen import __version__

        return __version__


def _jobs(text: str) -> int:
    """``-j``'s value: a whole number, 0 or more (argparse reports a ValueError as invalid)."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    scan = _scan(argv)
    lang = language_from_environ()
    out, err = sys.stdout, sys.stderr
    for stream in (out, err):
        _keep_no_break_spaces(stream)
    if scan.lang is not None:
        code = resolve_language(scan.lang)
        if not isinstance(code, str):
            err.write(_usage_line(msg('unknown language "{lang}"; choose one of: {choices}', lang=scan.lang,
                                      choices=", ".join(available_languages())), lang))
            return EXIT_USAGE
        lang = code
    # `serve`, `accounts` and `games` take the rest of the line as their own
    # arguments (their parsers speak the language too).
    if scan.command is not None and argv[scan.command] in _SERVER_COMMANDS:
        return _server_command(argv[scan.command], argv[scan.command + 1 :], lang)
    parser = _parser(lang)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        err.write((exc.parser or parser).format_usage())
        err.write(_usage_line(exc.message, lang))
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    if args.command is None:
        err.write(parser.format_usage())
        err.write(_usage_line(msg("give a command: check, fens, serve, accounts, games or backup"),
                              lang))
        return EXIT_USAGE
    try:
        if args.command == "check":
            status = _check(args.fen, board=args.board, lang=lang, out=out, err=err,
                            variant=args.variant, shredder=args.shredder)
        else:
            jobs = args.jobs if args.jobs > 0 else os.cpu_count() or 1
            status = _fens(args.files, output=args.output, lang=lang, out=out, err=err, jobs=jobs)
        out.flush()  # a write error shows here, not as a traceback at exit
        return status
    except KeyboardInterrupt:
        err.write("\n")
        return 130
    except OSError as exc:
        # the reader went away (e.g. `| head`), or standard output is full
        if not isinstance(exc, BrokenPipeError):
            err.write(msg("cannot write {path}: {reason}", path="<stdout>",
                          reason=exc.strerror or str(exc)).render(lang) + "\n")
        # keep Python from failing again when it flushes standard output at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BAD_INPUT


def _no_break_space_errors(fallback: str) -> str:
    """A codec error handler: U+202F as U+00A0, else a space; ``’`` as ``'``; others
    as ``fallback``.

    French messages put U+202F before ``:`` (and ``;``, ``!``, ``?``, inside
    « »); a Latin-1 or ASCII terminal must still get the line, not a crash.
    """
    name = f"ficsfen-nbsp-{fallback}"
    try:
        codecs.lookup_error(name)
    except LookupError:
        other = codecs.lookup_error(fallback)

        def handle(exc: UnicodeError) -> tuple[str, int]:
            if not isinstance(exc, UnicodeEncodeError):
                raise exc
            space = "\u00a0" if _encodes("\u00a0", exc.encoding) else " "
            out: list[str] = []
            for char in exc.object[exc.start:exc.end]:
                if char in "\u202f\u00a0":
                    out.append(space)
                elif char == "\u2019":  # the French apostrophe
                    out.append("'")
                else:
                    replaced = other(UnicodeEncodeError(exc.encoding, char, 0, 1, exc.reason))[0]
                    out.append(replaced if isinstance(replaced, str) else replaced.decode(exc.encoding))
            return "".join(out), exc.end

        codecs.register_error(name, handle)
    return name


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _keep_no_break_spaces(stream: TextIO) -> None:
    """Let ``stream`` write U+202F even when its encoding lacks it."""
    encoding = getattr(stream, "encoding", None)
    if encoding and not _encodes("\u202f", encoding) and hasattr(stream, "reconfigure"):
        stream.reconfigure(errors=_no_break_space_errors(stream.errors or "strict"))


def _usage_line(message: Message | str, lang: str) -> str:
    detail = message.render(lang) if isinstance(message, Message) else message
    return msg("ficsfen: usage error: {detail}", detail=detail).render(lang) + "\n"


# -- check ----------------------------------------------------------------------


def _check(words: list[str], *, board: bool, lang: str, out: TextIO, err: TextIO,
           variant: str | None = None, shredder: bool = False) -> int:
    def parser(text: str) -> Position | VariantPosition:
        return parse(text) if variant is None else parse_variant(text, variant)

    # Only a lone "-" reads standard input: "-" is also a field (castling, en passant).
    if words == ["-"]:
        status = EXIT_OK
        try:
            for number, line, result in _stdin_records(parser):
                if isinstance(result, FenError):
                    err.write(fenfile.LineError(number, line, result).render(lang) + "\n")
                    status = EXIT_BAD_INPUT
                else:
                    _print_position(result, board=board, out=out, shredder=shredder)
        except _ReadError as exc:
            err.write(msg("cannot read {path}: {reason}", path="-",
                          reason=exc.error.strerror or str(exc.error)).render(lang) + "\n")
            return EXIT_BAD_INPUT
        return status
    text = words[0] if len(words) == 1 else " ".join(words)
    try:
        position = parser(text)
    except FenError as exc:
        err.write(msg("Invalid FEN: {error}", error=exc.render(lang)).render(lang) + "\n")
        return EXIT_BAD_INPUT
    _print_position(position, board=board, out=out, shredder=shredder)
    return EXIT_OK


def _stdin_records(
    parser: Callable[[str], Position | VariantPosition] = parse,
) -> Iterator[tuple[int, str, Position | VariantPosition | FenError]]:
    """Standard input's records, checked as they arrive.

    Read as bytes and decoded here, as ``fens`` and :func:`fenfile.read` do:
    sys.stdin's locale encoding and strict errors would stop at a stray byte.
    Line ends, the byte-order mark and blank lines are left to
    :func:`fenfile.iter_records`.
    """
    stream = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="")
    try:
        yield from fenfile.iter_records(_read_lines(stream), parser=parser)
    finally:
        stream.detach()  # leave sys.stdin open


class _ReadError(Exception):
    """Standard input failed; kept apart from the write errors on stdout that main() reports."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


def _read_lines(stream: Iterable[AnyStr]) -> Iterator[AnyStr]:
    try:
        yield from stream
    except OSError as exc:
        raise _ReadError(exc) from exc


def _print_position(position: Position | VariantPosition, *, board: bool, out: TextIO,
                    shredder: bool = False) -> None:
    if isinstance(position, VariantPosition):
        out.write(position.fen(shredder=shredder) + "\n")
    else:
        out.write(position.fen() + "\n")
    if board:
        out.write(board_diagram(position.board()) + "\n")


def board_diagram(board: chess.Board) -> str:
    """An ASCII diagram, White at the bottom, with file letters and rank numbers."""
    edge = "  +-----------------+"
    lines = [edge]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece else ".")
        lines.append(f"{rank + 1} | {' '.join(cells)} |")
    lines += [edge, "    a b c d e f g h"]
    return "\n".join(lines)


# -- fens -----------------------------------------------------------------------


def _size(stream: BinaryIO) -> int:
    try:
        return os.fstat(stream.fileno()).st_size
    except (OSError, ValueError, io.UnsupportedOperation):
        return 0


def _fens(files: list[str], *, output: Path | None, lang: str, out: TextIO, err: TextIO,
          jobs: int = 1) -> int:
    status = EXIT_OK
    if output is not None:
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            err.write(msg("cannot create {path}: {reason}", path=str(output),
                          reason=exc.strerror or str(exc)).render(lang) + "\n")
            return EXIT_BAD_INPUT
    # The bar shares a terminal with nothing: not with FENs printed on it.
    show_progress = err.isatty() and (output is not None or not out.isatty())
    names = FileNames()
    for name in files:
        errors: list[PgnError] = []
        try:
            stream = sys.stdin.buffer if name == "-" else open(name, "rb")
        except OSError as exc:
            err.write(msg("cannot read {path}: {reason}", path=name,
                          reason=exc.strerror or str(exc)).render(lang) + "\n")
            status = EXIT_BAD_INPUT
            continue
        progress = None
        if show_progress:
            progress = Progress(err, Path(name).name)
            if name != "-":
                progress.start(_size(stream))
        try:
            write_fens(_read_lines(stream), out, source=name, errors=errors, output=output,
                       progress=progress, names=names, jobs=jobs)
        except _ReadError as exc:  # the input could not be read past some point
            err.write(msg("cannot read {path}: {reason}", path=name,
                          reason=exc.error.strerror or str(exc.error)).render(lang) + "\n")
            status = EXIT_BAD_INPUT
            continue
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            where = exc.filename or output or "<stdout>"
            err.write(msg("cannot write {path}: {reason}", path=str(where),
                          reason=exc.strerror or str(exc)).render(lang) + "\n")
            return EXIT_BAD_INPUT
        finally:
            if name != "-":
                stream.close()
        label = "<stdin>" if name == "-" else name
        for bad in errors:
            err.write(f"{label}: {bad.render(lang)}\n")
        if errors:
            status = EXIT_BAD_INPUT
    return status


# -- serve ----------------------------------------------------------------------


def _serve(argv: list[str], lang: str) -> int:
    from ficsfen.server import serve

    return int(serve.main(argv, lang=lang) or 0)


def _accounts(argv: list[str], lang: str) -> int:
    from ficsfen.server import admin

    return admin.accounts_main(argv, lang=lang)


def _games(argv: list[str], lang: str) -> int:
    from ficsfen.server import admin

    return admin.games_main(argv, lang=lang)


def _backup(argv: list[str], lang: str) -> int:
    from ficsfen.server import backup_cli

    return backup_cli.backup_main(argv, lang=lang)


# The commands of the server side, imported only when run: `check` and `fens`
# need no Twisted.
_SERVER_COMMANDS = {"serve": _serve, "accounts": _accounts, "games": _games, "backup": _backup}


def _server_command(name: str, argv: list[str], lang: str) -> int:
    try:
        return _SERVER_COMMANDS[name](argv, lang)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
