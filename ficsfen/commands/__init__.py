"""The commands a host server mounts: ``fen``, ``help`` and ``next``.

They see their host only through :mod:`ficsfen.interfaces`.  The commands
of our own telnet server are in :mod:`ficsfen.server.commands`.
"""
