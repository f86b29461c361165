"""The seam between the server and its database: :class:`IStore`.

The server uses a store only through this interface, so another database
could be plugged in by writing one class that provides it (see
``docs/store.md``): :class:`~ficsfen.server.store.sqlite.SQLiteStore` (the
default) and :class:`~ficsfen.server.store.postgres.PostgresStore` do.

**Threads and durability.**  Writes are called in the reactor thread; reads
in the server's read thread (``FicsServer.read``: one thread, one read at a
time), never the reactor's.

- *Writes* return a :class:`~twisted.internet.defer.Deferred` and never
  block.  The Deferred fires, in the reactor thread, once the write is
  **committed** to the data file: with the default ``synchronous = "full"``
  it then survives a kill -9 of the server and a power cut; with
  ``"normal"`` a kill -9 but not a power cut.  Writes are committed in the
  order they were asked for.  A write that fails errbacks with a
  :class:`~ficsfen.server.store.errors.StoreError` and changes nothing.
  Announce a move only after its Deferred fired.
- *Reads* are synchronous and answer from what is committed: a write whose
  Deferred has not fired yet may not show.  They are small indexed queries
  (one account, one player's last games, one game), except
  :meth:`finished_games` (an export: run it from a tool).  They may block
  (a stalled disk): that is why the server makes them in a thread.

Handles are matched with :func:`ficsfen.names.fold` (any case).
"""

from __future__ import annotations

from zope.interface import Attribute, Interface

from ficsfen.server.store.records import HISTORY_SIZE

__all__ = ["IStore"]


class IStore(Interface):
    """Accounts, settings, played games and stored messages, kept across restarts."""

    path = Attribute("pathlib.Path of the data file, or the database's URL without its "
                     "password (for messages).")

    # -- accounts --------------------------------------------------------------

    def add_account(name, password_hash, *, created=None):
        """Register ``name`` with a ``ficsfen.server.config.hash_password`` string.

        Hash in a thread (it is slow on purpose), never in the reactor.
        ``created``: Unix time, default now.  Deferred(None); fails with
        ``AccountExistsError`` if the handle (any case) has an account.
        """

    def remove_account(name):
        """Delete the account and its settings (its games stay).  Deferred(None); fails with
        ``NoSuchAccountError``."""

    def set_password(name, password_hash):
        """Replace the account's password hash.  Deferred(None); fails with
        ``NoSuchAccountError``."""

    def import_accounts(accounts):
        """Add the accounts of a ``{handle: hash}`` mapping (the TOML ``[accounts]``
        table) that the store lacks; never overwrites one it has (a password changed with
        ``password`` or ``ficsfen accounts passwd`` wins).  Deferred(list of the names added).
        """

    def get_account(name):
        """The :class:`Account` of ``name`` (any case), with its flags (``admin``,
        ``muzzled``), or ``None``.  Read."""

    def accounts():
        """Every :class:`Account`, by handle.  Read."""

    # -- settings --------------------------------------------------------------

    def save_settings(name, settings):
        """Replace a registered player's saved settings with ``settings``.

        A mapping of names to JSON values (str, int, float, bool, None;
        e.g. ``{"language": "fr", "style": 12, "showfen": True}``); anything
        else raises ``TypeError`` at once.  Deferred(None); fails with
        ``NoSuchAccountError`` if ``name`` has no account.
        """

    def load_settings(name):
        """The last saved settings of ``name`` (a new dict; empty if none).  Read."""

    # -- operators: account flags, bans, news (see admin_rows.py) ---------------

    def set_admin(name, on):
        """Make ``name`` an operator (``on``) or not.  Deferred(None); fails with
        ``NoSuchAccountError``."""

    def set_muzzled(name, on):
        """Muzzle ``name`` (``on``: no shouts) or not.  Deferred(None); fails with
        ``NoSuchAccountError``."""

    def add_ban(ban):
        """Refuse a handle or an address at login (a :class:`Ban`; the same kind and value
        again replaces it).  Deferred(True if it was not banned before); ``ValueError`` at
        once for an unknown kind."""

    def remove_ban(kind, value):
        """Lift a ban.  Deferred(whether there was one)."""

    def bans():
        """Every :class:`Ban`, by kind then value.  Read."""

    def add_news(author, title, *, posted=None):
        """Post a news item with no text yet (``posted``: Unix time, default now).
        Deferred(its number: one more than the highest
        kept, from 1)."""

    def add_news_line(number, line):
        """Append a line (may be empty) to the text of news item ``number``.
        Deferred(whether the item exists)."""

    def remove_news(number):
        """Delete news item ``number``.  Deferred(whether it existed)."""

    def news(limit=None):
        """The last ``limit`` news items (every one if ``None``) as :class:`NewsItem`
        values, oldest first.  Read."""

    def news_item(number):
        """News item ``number`` (a :class:`NewsItem`), or ``None``.  Read."""

    # -- games -----------------------------------------------------------------

    def start_game(start):
        """Record a game that starts (a :class:`GameStart`).

        Returns ``(game_id, deferred)``: the id is allocated at once, so the
        game's moves can be queued right after (they are committed after
        it).  Deferred(None).
        """

    def add_move(game_id, move):
        """Record one acknowledged half-move (a :class:`MoveRecord`, plies from 1 with no gap).
        One INSERT, grouped with the turn's other moves.  Deferred(None); fails with a
        ``StoreWriteError`` for an unknown game or a ply stored already."""

    def take_back(game_id, ply):
        """Forget the moves after ``ply`` (a takeback to that length).  Deferred(None)."""

    def adjourn_game(game_id, adjournment):
        """Mark the game adjourned (an :class:`Adjournment`: reason, time, both clocks, length).
        Deferred(None); fails with ``NoSuchGameError`` unless it is in progress."""

    def resume_game(game_id):
        """Mark an adjourned game in progress again.  Deferred(None); fails with
        ``NoSuchGameError`` unless it is adjourned.  A claim: of several servers
        sharing the store and resuming one game at once, exactly one succeeds."""

    def end_game(game_id, end, ratings=(), *, adjourned_only=False, adjourned_before=None):
        """Record the end (a :class:`GameEnd`, with each side's rating change if it was
        rated) and the new ``ratings`` (``RatingRow`` values) in the same transaction:
        a rated result is never kept without its ratings, nor they without it.

        A result other than ``*`` enters the history of each player who has
        an account (FICS keeps none for guests).  Deferred with
        ``(white's history number, black's)``, ``None`` for a player without
        one; fails with ``NoSuchGameError`` unless in progress or adjourned
        (``adjourned_only``: unless adjourned, as for an expiry, which servers
        sharing the store may write at once: exactly one succeeds, and a game
        resumed meanwhile stays in progress; ``adjourned_before``, Unix time: unless
        adjourned, and adjourned before then, by the store's record: a server
        keeping an older copy of a game adjourned again since expires nothing).
        """

    def get_game(game_id):
        """The :class:`StoredGame` with its moves, or ``None``.  Read."""

    def unfinished_games(name=None):
        """Games in progress when the server stopped, and adjourned ones (of ``name`` only,
        if given), with their moves, oldest first: what a restart restores.  Read."""

    def history(name, limit=HISTORY_SIZE):
        """The last ``limit`` finished games of ``name`` as :class:`HistoryEntry` values,
        oldest first, numbered as FICS does (0-99, cycling).  Read."""

    def history_game(name, number):
        """The :class:`StoredGame` that is number ``number`` in ``name``'s history (among the
        last ``HISTORY_SIZE``), or ``None``.  Read."""

    def finished_games(name=None):
        """Every finished game (of ``name`` only, if given) with its moves, in the order they
        ended, as an iterator (for a PGN export; aborted games excluded).  Read."""

    # -- stored messages -------------------------------------------------------

    def send_message(sender, recipient, text, *, limit, sent=None):
        """Store ``text`` from ``sender`` for the registered ``recipient`` (any case).

        ``limit``: the most messages a player may have; ``sent``: Unix time,
        default now.  Deferred(the new :class:`StoredMessage`, numbered among
        the recipient's), fired once committed; fails with
        ``NoSuchAccountError`` (no such account) or ``MailboxFullError``
        (``limit`` reached), storing nothing.
        """

    def messages(recipient):
        """The messages of ``recipient``, oldest first, numbered from 1.  Read."""

    def message_counts(recipient):
        """``(messages, unread)`` of ``recipient``.  Read."""

    def mark_read(recipient, ids):
        """Mark the messages of ``recipient`` with these row ids read.  Deferred(None)."""

    def clear_messages(recipient, ids):
        """Delete the messages of ``recipient`` with these row ids (the others keep their
        order, renumbered).  Deferred(how many were deleted)."""

    # -- logons and players (see logon_rows.py, player_reads.py) -----------------

    def record_logon(name, event, at, host=""):
        """Record that ``name`` (a guest's too) logged in (``event`` ``"on"``) or out
        (``"off"``) at ``at`` (Unix time) from ``host``.  The table keeps the newest
        ``LOGONS_KEPT`` rows (older ones are pruned as it grows).  Deferred(None);
        raises ``ValueError`` at once for another ``event``."""

    def logons(name=None, limit=10):
        """The last ``limit`` logins and logouts (of ``name`` only, any case, if given) as
        ``LogonRecord`` values, oldest first.  Read."""

    def handles(prefix, limit=100):
        """The names of the accounts whose handle starts with ``prefix`` (any case), in
        handle order, at most ``limit``.  Read."""

    def pair_record(player, opponent):
        """``player``'s wins, losses and draws against ``opponent``, rated and unrated, from
        their finished games (a ``PairRecord``; aborted games left out).  Read."""

    # -- ratings (rating_rows.py: the player's; rating_reads.py: the lists) ---------

    def player_ratings(name):
        """``name``'s ratings (any case) by category (``Category`` -> ``Rating``), the
        categories never played rated left out.  Read."""

    def all_ratings():
        """Every stored rating: folded handle -> ``Category`` -> ``Rating``.  Read."""

    def player_rating_rows(name):
        """``name``'s stored ratings (any case) as ``RatingRow`` values, one per category
        played rated.  Read."""

    def top_ratings(category, *, offset=0, limit=20, active):
        """The active players of ``category`` (``active(row)``: FICS's rule, the RD grown
        since the last game at most the system's ``active_rd``), highest first, ``limit``
        from place ``offset + 1`` (``RatingRow`` values).  Read."""

    def top_best(category, *, limit=20):
        """The ``limit`` highest ratings ever reached in ``category`` (``RatingRow``
        values, by ``best``).  Read."""

    def rank(name, category, *, active):
        """``(place, RatingRow)`` of ``name`` among the active players of ``category``
        (as ``top_ratings`` counts them), or ``None`` without a rating there.  Read."""

    def game_ratings(ids):
        """The ratings kept with the games of ``ids``: ``{id: GameRatings}``.  Read."""

    # -- life ------------------------------------------------------------------

    def close():
        """Commit every queued write, stop the writer, close the file.

        Deferred(None), fired after the Deferreds of every earlier write.
        Later writes fail with ``StoreClosedError``; later reads raise it.
        """

