"""The FICS-style telnet server built on the ficsfen library.

Everything here may use Twisted; nothing in the library above imports it.
The server reaches the library only through the names an embedding host
uses (:mod:`ficsfen`), plus the codec and tracker modules themselves.

- :mod:`~ficsfen.server.serve`: ``ficsfen serve`` (endpoints, config, logging)
- :mod:`~ficsfen.server.config`: the TOML configuration (``ficsfen.toml`` beside it)
- :mod:`~ficsfen.server.telnet`: one client connection, put together from
  :mod:`~ficsfen.server.listening` (accepting, writing at once),
  :mod:`~ficsfen.server.governor` (backpressure, input budgets and turns),
  :mod:`~ficsfen.server.iac` (the telnet codec), :mod:`~ficsfen.server.framing`
  (lines), :mod:`~ficsfen.server.timeseal`, :mod:`~ficsfen.server.login` (the
  login dialogue), :mod:`~ficsfen.server.sockets` (TCP options) and
  :mod:`~ficsfen.server.timeouts`
- :mod:`~ficsfen.server.interfaces`: what commands see of games and of the server
  (:class:`IPlayedGame`, :class:`IExaminedGame`, :class:`IPlayers`, :class:`IBoards`, ...)
- :mod:`~ficsfen.server.session`: one logged-in user (:class:`IServerCaller`)
- :mod:`~ficsfen.server.server`: the composition root that builds and wires the services
  (``docs/design.md`` has their map)
- :mod:`~ficsfen.server.sessions`: who is online, arrivals and departures (:class:`IPlayers`)
- :mod:`~ficsfen.server.accounts`: names, guests, passwords (a credentials checker), settings
- :mod:`~ficsfen.server.dispatcher`: the command-line grammar (aliases, ``$``, block mode)
- :mod:`~ficsfen.server.reply`: the answer to one command (prompt or block-mode frame)
- :mod:`~ficsfen.server.command_table`: names and aliases (prefixes by :mod:`ficsfen.names`)
- :mod:`~ficsfen.server.commands`: the server's own commands
- :mod:`~ficsfen.server.game_service`: the games hosted (start, move, end, adjourn,
  resume; :mod:`~ficsfen.server.game_keeping`: expiry and restore)
- :mod:`~ficsfen.server.broadcaster`: the one way from game events, boards, results
  and talk to sessions
- :mod:`~ficsfen.server.directory`, :mod:`~ficsfen.server.games`,
  :mod:`~ficsfen.server.challenges`, :mod:`~ficsfen.server.clock`,
  :mod:`~ficsfen.server.examined`: games, offers and clocks
  (:mod:`~ficsfen.server.game_values`: results and end codes, which the store uses)
- :mod:`~ficsfen.server.boards`: style 1 and style 12 boards
  (:mod:`~ficsfen.server.renderer`: cached per game version)
- :mod:`~ficsfen.server.feed`: the JSON game-event feed
- :mod:`~ficsfen.server.store`: accounts, settings and games kept across restarts (SQLite)
- :mod:`~ficsfen.server.testing`: helpers for tests of the server and of hosts
"""
