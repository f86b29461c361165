"""``python -m ficsfen.server.healthcheck``: is the server answering logins?

    python -m ficsfen.server.healthcheck [--host HOST] [--port PORT] [--timeout SECONDS]
                                         [--prompt TEXT] [--lang LANG]

Connects to the telnet port, waits for ``login: ``, logs in as a guest
(``guest`` then an empty line), waits for the prompt, says ``quit`` and
closes.  Exit status 0 when the prompt came within ``--timeout`` seconds
(the whole dialogue, not each step), 1 otherwise, with one line on
standard error saying which step failed; 2 for a usage error.  The
container image's ``HEALTHCHECK`` runs it (docs/operations.md).

A plain socket client (no Twisted, no reactor): it starts in a fraction of
the time ``ficsfen serve`` takes, and every wait is bounded by the deadline.
Each check is a guest login in the server's log, and counts against
``[limits] logins_per_minute`` of the address it comes from.
"""

from __future__ import annotations

import socket
import sys
import time

from ficsfen.argparse_i18n import LocalizedArgumentParser
from ficsfen.i18n import Message, available_languages, language_from_environ, msg, resolve_language

__all__ = ["HealthError", "check", "main"]


class HealthError(Exception):
    """A step of the check that failed; :attr:`message` says which, localizable."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.render("en"))
        self.message = message


def _read_until(sock: socket.socket, marker: bytes, deadline: float, seen: bytearray) -> None:
    """Read into ``seen`` until it holds ``marker``.

    :raises TimeoutError: the deadline passed first.
    :raises HealthError: the server closed the connection first.
    """
    while marker not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError()
        sock.settimeout(left)
        data = sock.recv(4096)
        if not data:
            raise HealthError(msg("the server closed the connection before \"{text}\"",
                                  text=marker.decode("utf-8", "replace").strip()))
        seen += data


def check(host: str, port: int, *, timeout: float = 10.0, prompt: str = "fics% ") -> None:
    """Log in as a guest at ``host``:``port`` and see ``prompt``, all within ``timeout`` seconds.

    :raises HealthError: no connection, no login prompt, no command prompt in time.
    """
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as e:
        raise HealthError(msg("cannot connect to {host}:{port}: {reason}", host=host, port=port,
                              reason=e.strerror or str(e))) from None
    step = msg("no \"{text}\" prompt", text="login:")
    try:
        seen = bytearray()
        _read_until(sock, b"login: ", deadline, seen)
        # The empty line answers the guest's "Press return" question.
        sock.sendall(b"guest\r\n\r\n")
        step = msg("no \"{text}\" prompt after logging in as a guest", text=prompt.strip())
        del seen[:]
        _read_until(sock, prompt.encode("utf-8"), deadline, seen)
        try:
            sock.sendall(b"quit\r\n")
        except OSError:
            pass  # the check passed; a goodbye that cannot leave changes nothing
    except TimeoutError:
        raise HealthError(msg("{step} within {seconds:g} s", step=step, seconds=timeout)) from None
    except OSError as e:
        raise HealthError(msg("{step}: {reason}", step=step, reason=e.strerror or str(e))) from None
    finally:
        sock.close()


def port(text: str) -> int:
    value = int(text)
    if not 0 < value < 65536:
        raise ValueError(text)
    return value


def seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError(text)
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the check; returns the exit status (0 healthy, 1 not, 2 usage error)."""
    argv = sys.argv[1:] if argv is None else argv
    early = LocalizedArgumentParser(add_help=False, lang=language_from_environ())
    early.add_argument("--lang")
    chosen = resolve_language(early.parse_known_args(argv)[0].lang or "")
    lang = chosen if isinstance(chosen, str) else language_from_environ()
    parser = LocalizedArgumentParser(
        lang=lang, prog="python -m ficsfen.server.healthcheck",
        description=msg("Check that a ficsfen server lets a guest log in: exit 0 if it does, 1 if "
                        "not.").render(lang))
    parser.add_argument("--lang", metavar="LANG", help=msg(
        "language of messages ({choices}); default from the locale",
        choices=", ".join(available_languages())).render(lang))
    parser.add_argument("--host", default="127.0.0.1", help=msg(
        "address of the server's telnet port (default: 127.0.0.1)").render(lang))
    parser.add_argument("--port", type=port, default=5000, help=msg(
        "the telnet port (default: 5000)").render(lang))
    parser.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS", help=msg(
        "seconds the whole login may take (default: 10)").render(lang))
    parser.add_argument("--prompt", default="fics% ", help=msg(
        "the prompt after a command, as [server] prompt says (default: \"fics%% \")").render(lang))
    args = parser.parse_args(argv)
    try:
        check(args.host, args.port, timeout=args.timeout, prompt=args.prompt)
    except HealthError as e:
        print(msg("ficsfen healthcheck: {problem}", problem=e.message).render(lang), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
