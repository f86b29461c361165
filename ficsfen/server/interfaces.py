"""The seams inside our server: what its commands may use, and nothing more.

Host-facing interfaces (:class:`~ficsfen.interfaces.ICaller`,
:class:`~ficsfen.interfaces.IGame`, ...) are in :mod:`ficsfen.interfaces`.
These are our server's own:

- games: :class:`IPlayedGame` (clocks, offers, endings) and
  :class:`IExaminedGame` (forward, backward, setup), both
  :class:`IServerGame`; commands check a game with ``providedBy`` instead of
  probing its attributes;
- connections: a :class:`ILineConnection` is what a session's output goes to
  (telnet today: :class:`ficsfen.server.telnet.TelnetConnection`);
- services: the caller of a command on our server (:class:`IServerCaller`)
  carries the three services commands use, each narrow:
  :class:`IPlayers` (who is here, how to reach them), :class:`IBoards`
  (showing games) and :class:`IGameService` (starting and ending games,
  match offers, adjourned games).  No command sees the whole server; the
  directory commands get is an :class:`IServerDirectory`.
"""

from __future__ import annotations

from zope.interface import Attribute, Interface

from ficsfen.interfaces import ICaller, IClockedGame, IGame, IGameDirectory, IMoveEvents

__all__ = ["IBoards", "IExaminedGame", "IGameEvents", "IGameService", "ILineConnection",
           "IPlayedGame", "IPlayers", "IServerCaller", "IServerDirectory", "IServerGame"]


# -- games ---------------------------------------------------------------------


class IServerGame(IGame):
    """A game our server hosts, played or examined."""

    listener = Attribute("Told board_changed(game) (and game_ended) after each change: "
                         "a ficsfen.server.game_hooks.IGameListener, or None.")
    version = Attribute("A hashable value that changes with each change of the game: "
                        "renderers key their caches by it (ficsfen.server.renderer).")

    def move(handle, text):
        """``handle`` plays ``text``; returns notices, raises a LocalizedError when refused."""


class IPlayedGame(IServerGame, IClockedGame, IMoveEvents):
    """A game between two players, with clocks, offers and FICS endings.

    Each action returns the notices meant for particular people, or raises
    a ``GameError`` carrying the reason when refused.
    """

    result = Attribute("ficsfen.server.games.GameResult once ended or adjourned, else None.")
    offers = Attribute("list of pending in-game offers (``describe()`` each).")
    announcing = Attribute("True while a change waits for its write before it is announced.")
    started_at = Attribute("float: when the game started, in the reactor's seconds.")
    private = Attribute("bool: nobody may observe it (set private of a player at its start).")

    def shown_clocks():
        """The clocks (White's, Black's seconds, whether one runs) its boards of the
        current version show, or None: read them now."""

    def handle_of(color):
        """The handle playing ``color`` (``chess.WHITE`` or ``chess.BLACK``)."""

    def opponent_of(handle):
        """The other player of ``handle``."""

    def offers_to(handle):
        """Offers made to ``handle``."""

    def offers_by(handle):
        """Offers ``handle`` made."""

    def accept(handle, offer_id=None):
        """Accept the single offer made to ``handle`` (or the one numbered ``offer_id``)."""

    def decline(handle, offer_id=None):
        """Decline every offer made to ``handle`` (or the one numbered ``offer_id``)."""

    def withdraw(handle, offer_id=None):
        """Withdraw every offer ``handle`` made (or the one numbered ``offer_id``)."""

    def resign(handle):
        """``handle`` resigns."""

    def draw(handle):
        """Claim a draw, accept the opponent's offer, or offer one."""

    def abort(handle):
        """Abort (at once before both have moved, else by agreement)."""

    def adjourn(handle):
        """Adjourn by agreement."""

    def flag(handle):
        """Claim a win on time."""

    def takeback(handle, plies=1):
        """Ask to take back ``plies`` half-moves (the same request from the opponent accepts)."""

    adjournable = Attribute("bool: both players registered: a disconnection adjourns the game.")

    def disconnect(handle, *, can_return=True):
        """``handle`` left: adjourn between registered players, else ``handle`` forfeits."""

    def stop():
        """The server stops: adjourn (clocks of the last move kept), or abort."""

    def resume():
        """Continue the adjourned game, clocks as they were."""

    def after_write(written, announce):
        """Call ``announce`` once ``written`` (a Deferred or None) and earlier writes are stored."""

    def settled():
        """A Deferred fired once every change so far is stored and announced."""


class IExaminedGame(IServerGame, IMoveEvents):
    """A scratch game: free moves, steps back and forth, position setup."""

    examiners = Attribute("list[str]: who examines it (its players()).")
    setup = Attribute("The draft position ``bsetup`` edits, or None outside setup mode.")
    setup_variant = Attribute("The draft's variant (``bsetup fr``, ``bsetup zh``), None for chess.")
    last_mover = Attribute("str | None: who made the last move.")

    def listing():
        """The game's line in ``games``."""

    def forward(n=1):
        """Replay up to ``n`` undone plies; returns how many."""

    def backward(n=1):
        """Undo up to ``n`` plies, kept for forward; returns how many."""

    def revert():
        """Go back to the starting position; returns how many plies were undone."""

    def draft():
        """The setup being edited, or a fresh one from the position (not stored)."""

    def start_setup():
        """Enter setup mode."""

    def set_up_variant(variant):
        """Enter setup mode for ``variant`` (None: chess), from its usual start."""

    def finish_setup():
        """Validate the draft and make it the position (raises FenError if invalid)."""


# -- the directory ---------------------------------------------------------------


class IServerDirectory(IGameDirectory):
    """Our game directory: the host-facing lookups, plus observers and listeners."""

    def games():
        """Current games in number order."""

    def add(game):
        """Number ``game`` and register its players; returns the number."""

    def position_changed(game):
        """Tell listeners the position changed other than by a move (cheap when it did not)."""

    def observe(handle, game):
        """Add ``handle`` to the observers of ``game``; False when already there."""

    def unobserve(handle, game):
        """Remove ``handle`` from the observers of ``game``; False when not there."""

    def observers(game):
        """Handles observing ``game``, in the order they started."""

    def make_primary(handle, game):
        """Make the observed ``game`` ``handle``'s primary one (``observed_by``); False when
        ``handle`` does not observe it."""

    def observed_games(handle):
        """Games ``handle`` observes, oldest first."""


class IGameEvents(Interface):
    """A listener of the directory (:attr:`GameDirectory.listeners`), e.g. the game feed."""

    def game_started(game):
        """``game`` got its number."""

    def game_ended(game, result=None):
        """``game`` left the directory (ended, adjourned, or nobody examines it)."""

    def position_changed(game):
        """The position may have changed other than by a move (takeback, setup...)."""


# -- services --------------------------------------------------------------------


class IPlayers(Interface):
    """Who is logged in, and how to reach them (:class:`ficsfen.server.sessions.Sessions`)."""

    def session(handle):
        """The :class:`IServerCaller` logged in as ``handle`` (folded), or None."""

    def sessions_sorted():
        """Every logged-in :class:`IServerCaller`, by handle."""

    def listing_changed():
        """Something ``who`` lists changed that the game directory does not see (``open``)."""

    def named(word):
        """The :class:`IServerCaller` whose handle ``word`` names (exact or unique prefix).

        :raises ficsfen.names.NameResolutionError: nobody, or several players.
        """

    def logout(session, *, reason=""):
        """Take ``session`` out of the server and close it."""

    def everyone_sorted():
        """Every player of every node of a cluster, by handle: the sessions of this node
        and, for the others, what they say of their players (``who``); alone, the same as
        :meth:`sessions_sorted`."""

    def anywhere(word):
        """The player ``word`` names on any node of a cluster (exact or unique prefix):
        a session of this node or a player of another (``tell``, ``finger``); alone, the
        same as :meth:`named`.

        :raises ficsfen.names.NameResolutionError: nobody, or several players.
        """


class IBoards(Interface):
    """What reaches people other than a command's answer: boards of games, each in their
    own style and language, and notices (:class:`ficsfen.server.broadcaster.Broadcaster`)."""

    ratings = Attribute("ficsfen.server.rating_view.RatingView: the players' ratings as "
                        "lines show them.")

    def game_ratings(game):
        """Both players' :class:`~ficsfen.server.rating_view.Shown` ratings (White's first)
        for ``game``'s type."""

    def game_rating_texts(game):
        """Both players' four rating characters (White's first) for ``game``'s type."""

    def deliver(notices):
        """Send notices (``handle``, ``message``), one message per person."""

    def send_board(session, game):
        """The board of ``game`` for ``session`` alone, clocks read now."""

    def show_position(game, *, note=None, note_to_caller=True):
        """The board to everyone watching ``game``, ``note`` above it."""


class IGameService(Interface):
    """Starting and ending games on this server."""

    challenges = Attribute("ficsfen.server.challenges.Challenges: pending match offers.")
    adjourned = Attribute("ficsfen.server.games.AdjournedGames: games waiting for resume.")

    def start_game(challenge):
        """Create the game an accepted challenge describes and show it."""

    def resume_game(game):
        """Continue an adjourned game under a new number."""

    def player(handle):
        """Who may play here as ``handle``: their session, or in a cluster the seat here
        of a player of another node (an offer of theirs waits here); None: neither."""

    def examine(handle):
        """Start a scratch game examined by ``handle``, show it, and return it."""

    def stop_examining(handle, game, *, quiet=False):
        """``handle`` leaves the examined ``game`` (which ends when nobody is left)."""


class IServerCaller(ICaller):
    """Whoever typed a command on our own server: an ICaller, their settings, the services."""

    registered = Attribute("bool: logged in with a password.")
    is_interface = Attribute("bool: a program reads this caller (timeseal, set interface, any "
                             "iset or %b).")
    parsed_lang = Attribute("str: the language of texts ICS clients parse: 'en' for an "
                            "interface, else lang (see ficsfen.server.parsed).")
    admin = Attribute("bool: an operator (shown with FICS's (*) mark; may use the operator "
                      "commands).")
    muzzled = Attribute("bool: may not shout, c-shout or it-shout.")
    host = Attribute("str: the address per-address limits count the caller by ('': none).")
    charset = Attribute("str: 'utf8', 'latin1' or 'ascii'.")
    style = Attribute("int: board style, 1 or 12.")
    showfen = Attribute("bool: a FEN line after every board.")
    players = Attribute("IPlayers")
    boards = Attribute("IBoards")
    games = Attribute("IGameService")
    ivars = Attribute("Mapping[str, bool]: interface variables, by name (see ficsfen.server.ivars).")
    aliases = Attribute("dict[str, tuple[str, str]]: the caller's own aliases, by folded name.")
    timeseal = Attribute("bool: the client speaks timeseal.")
    lag_ms = Attribute("int: the last lag measured through timeseal, in milliseconds.")
    interface = Attribute("str: what the client said it is (set interface).")
    journal = Attribute("dict[int, int]: a registered player's journal (jsave), slot -> game id.")
    parsed_lang = Attribute("str: the language of texts ICS clients parse: 'en' while the caller "
                            "is an interface (timeseal, set interface, iset), else its language.")
    tzone = Attribute("str: the time zone dates are shown in (set tzone), '' for the server's.")
    notes = Attribute("list[str]: finger notes 1-10 (set 1 TEXT), '' for an unset one.")
    variables = Attribute("dict[str, int | bool]: the FICS variables clients set (open, "
                          "autoflag...), by name; absent ones have their default.")
    reply = Attribute("ficsfen.server.reply.Reply: the answer to the command this caller is "
                      "running (what send writes goes in it), or None between commands.")
    login_time = Attribute("float: when the caller logged in, in the server clock's seconds.")
    prompt_text = Attribute("str: the prompt written after each answer.")
    chosen_prompt = Attribute("str: the prompt the caller chose (set prompt), the default until then.")
    default_prompt = Attribute("str: the prompt of callers who set none.")

    def render(message):
        """``message`` in the caller's language (``parsed_lang`` for a text clients parse)."""

    def set_ivar(name, value):
        """Set one interface variable (the server hears of it: pin, allresults)."""

    def display_name():
        """The handle as ``who`` lists it."""


# -- connections -----------------------------------------------------------------


class ILineConnection(Interface):
    """A client connection that carries one session's lines, whatever its transport.

    What a :class:`ficsfen.server.session.Session` and the login dialogue
    need of it; the transport's own framing (telnet's IAC doubling, a
    WebSocket's frames) is its business.
    """

    peer = Attribute("str: the client's address and port, 'host:port' (for log lines).")
    host = Attribute("str: the client's address without the port (what per-address limits count).")
    holding = Attribute("bool: the client is not reading its output; what is written waits in "
                        "buffers (up to [limits] output_buffer, then the connection is closed).")

    def write(data):
        """Send ``data``, bytes already encoded with CR LF line ends, after what was sent before."""

    def write_all(connections, data):
        """Static: :meth:`write` the same ``data`` to each of ``connections`` (all of this class):
        a board to its observers."""

    def close():
        """End the connection once what was written has gone; its lines mean nothing more."""
