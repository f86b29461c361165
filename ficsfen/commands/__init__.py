"""Commands, one module per family.

:mod:`ficsfen.commands.fen` and :mod:`ficsfen.commands.help` see their host
only through :mod:`ficsfen.interfaces`; they are the objects a host server
mounts.  The other modules are commands of our own telnet server and may
use its session objects.
"""
