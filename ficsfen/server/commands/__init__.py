"""The server's own commands, one module per family.

They use the server's session and game objects; the commands a host mounts
(``fen``, ``help``) live in :mod:`ficsfen.commands`.
"""
