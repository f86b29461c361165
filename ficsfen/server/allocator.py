"""Which memory allocator the server process runs with (``[limits] allocator``).

CPython's own small-object allocator keeps memory in 1 MiB arenas and gives
an arena back to the system only once every object in it is freed.  After a
burst of connections (an attack: docs/benchmarks.md, "Memory after the
attack"), a few long-lived objects born during it (login counts, password
throttle records) keep most of the burst's arenas, so the process stays
about a quarter above its start for as long as they live.  The C library's
allocator gives memory back by the 4 KiB page (with ``malloc_trim``, which
the server's trimmer runs after a burst): the same attack leaves it about
an eighth above its start.  The fen round trip's cost did not change beyond
the measurement's noise.

The choice is made when the interpreter starts (``PYTHONMALLOC``), so
``ficsfen serve`` started from its command line replaces itself, once,
early, by the same command with ``PYTHONMALLOC=malloc``: the same process
id (``execve``), before any file or port is opened.  An operator who sets
``PYTHONMALLOC`` themselves (any value) gets exactly that; a host that
embeds the server chooses for its own process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["ALLOCATORS", "ENVIRONMENT_VARIABLE", "restart_with"]

#: ``[limits] allocator``: the C library's (default) or CPython's own.
ALLOCATORS = ("malloc", "python")
ENVIRONMENT_VARIABLE = "PYTHONMALLOC"

Exec = Callable[[str, Sequence[str], Mapping[str, str]], object]


def restart_with(allocator: str, *, argv: Sequence[str], environ: Mapping[str, str] | None = None,
                 executable: str | None = None, execve: Exec = os.execve) -> bool:
    """Replace this process by ``argv`` under ``allocator`` if it does not run under it.

    ``argv`` is the process's whole command line (``sys.orig_argv``).  Returns
    ``False`` when nothing is to be done (``python``, or ``PYTHONMALLOC`` already
    set); otherwise ``execve`` does not return.
    """
    if allocator not in ALLOCATORS:
        raise ValueError(f"allocator must be one of {ALLOCATORS}, not {allocator!r}")
    environ = os.environ if environ is None else environ
    executable = executable or sys.executable
    if allocator == "python" or ENVIRONMENT_VARIABLE in environ or not executable:
        return False
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    execve(executable, list(argv),
           {**environ, ENVIRONMENT_VARIABLE: allocator})
    return True
