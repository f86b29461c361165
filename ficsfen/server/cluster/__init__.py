"""Several server nodes as one: a Redis bus between them (``[cluster]``, ``--cluster``).

Nothing here is imported unless a cluster is configured: the embedded
default (one process, SQLite) never loads the Redis client.

* :mod:`.bus`: the connection to Redis, the node's name, publish/subscribe
  of small JSON messages, reconnection with backoff, the bus-down state;
* :mod:`.presence`: who is logged in on which node, with
  :mod:`.remote_player` (a player of another node, as its entry says),
  :mod:`.remote_tables` (the copy of the other nodes' tables),
  :mod:`.liveness` (heartbeats: which nodes are alive) and
  :mod:`.unique_handles` (one login of a handle across nodes);
* :mod:`.talk`: tells, channel tells and shouts that reach every node;
* :mod:`.seeks`: every node's seeks in every node's ``sought`` and seek lines;
* :mod:`.pins` and :mod:`.results`: the ``iset pin`` lines of the other nodes'
  players and the ``iset allresults`` lines of their games;
* :mod:`.games`: games across nodes (the owner hosts, lines forwarded to it),
  with :mod:`.forwarding` (a player's lines run on the owner of their game),
  :mod:`.hosting` (the owner's part: the lines of the seats, what they hold),
  :mod:`.announcements` (this node's games announced, the others' listed),
  :mod:`.games_base` (the state these three share),
  :mod:`.seats` (remote players as sessions of the owner),
  :mod:`.listing` (``games`` of every node), :mod:`.numbers` (game numbers
  unique across nodes) and :mod:`.failover` (adjourned games shared, the
  games of a node that died);
* :mod:`.node`: how a :class:`~ficsfen.server.server.FicsServer` is joined to them.

``docs/scaling.md`` describes the design and how to deploy it.
"""
