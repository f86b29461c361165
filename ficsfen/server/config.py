"""The server's configuration: a TOML file read with :mod:`tomllib`.

The defaults live in two places that must agree: the :class:`Config`
dataclass (so a partial file, or none at all, still yields a full
configuration) and ``ficsfen/server/ficsfen.toml`` (the shipped file, where
every setting is documented).  A test checks that they agree.

Mistakes in a file are reported as :class:`ConfigError` values naming the
file, the setting and what was expected, in the operator's language.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from ficsfen.server.database_url import url_problem
from ficsfen.i18n import LocalizedError, Message, available_languages, msg
from ficsfen.names import fold
from ficsfen.helpcatalog import HELP_DIR
from ficsfen.server.glicko import FICS_CONSTANTS, GlickoConstants
from ficsfen.server.logs import DEFAULT_LOG_FORMAT, DEFAULT_LOG_LEVEL, LOG_FORMATS, LOG_LEVELS

__all__ = [
    "Config",
    "ConfigError",
    "DEFAULT_CONFIG",
    "DEFAULT_DATA_FILE",
    "PACKAGE_HELP_DIR",
    "data_file_from_text",
    "default_data_file",
    "hash_password",
    "load",
    "verify_password",
    "xdg_data_home",
]

DEFAULT_CONFIG = Path(__file__).with_name("ficsfen.toml")
PACKAGE_HELP_DIR = HELP_DIR  # the library's pages

_HANDLE = re.compile(r"[A-Za-z]{3,17}")

#: The default ``[storage] path``, as the shipped file spells it.
DEFAULT_DATA_FILE = "$XDG_DATA_HOME/ficsfen/ficsfen.sqlite3"
_XDG_DATA_HOME = re.compile(r"\$(?:XDG_DATA_HOME\b|\{XDG_DATA_HOME\})")


def xdg_data_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset, empty or relative
    (the XDG Base Directory rule)."""
    value = (os.environ if environ is None else environ).get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path(os.path.expanduser("~")) / ".local" / "share"


def data_file_from_text(text: str, *, base: Path | None = None,
                        environ: Mapping[str, str] | None = None) -> Path | None:
    """The data file a ``[storage] path`` value names; ``None`` for ``""`` (no store).

    ``$XDG_DATA_HOME`` follows the XDG rule (:func:`xdg_data_home`), other
    ``$VARIABLES`` and ``~`` are expanded, and a relative path is read from
    ``base`` (the configuration file's folder).
    """
    if not text:
        return None
    text = _XDG_DATA_HOME.sub(lambda _: str(xdg_data_home(environ)), text)
    path = Path(os.path.expanduser(os.path.expandvars(text)))
    if not path.is_absolute() and base is not None:
        path = base / path
    return path


def default_data_file() -> Path:
    """Where the store is kept by default: ``$XDG_DATA_HOME/ficsfen/ficsfen.sqlite3``."""
    path = data_file_from_text(DEFAULT_DATA_FILE)
    assert path is not None
    return path


class ConfigError(LocalizedError, ValueError):
    """A configuration file that cannot be used; :meth:`render` says why."""


@dataclass(frozen=True)
class Config:
    """Everything ``ficsfen serve`` can be told; see ficsfen.toml for the meaning of each."""

    listen: tuple[str, ...] = ("tcp:5000:interface=127.0.0.1",)
    language: str = "en"
    help_dir: Path = PACKAGE_HELP_DIR
    prompt: str = "fics% "
    guest_login: str = "guest"
    banner: str = ""
    max_line: int = 1024
    max_connections: int = 12000
    #: Per-address limits (0: no limit) and the addresses or networks spared them.
    connections_per_address: int = 50
    logins_per_minute: int = 60
    exempt: tuple[str, ...] = ()
    #: Login throttling: see ``[limits] password_*`` in ficsfen.toml.
    password_delay: float = 1.0
    password_delay_max: float = 30.0
    password_failures: int = 10
    password_window: float = 900.0
    password_lockout: float = 900.0
    #: Password hashes computed at once, and how many steps below the server's CPU
    #: priority their threads run (Linux; 0: the same priority).
    password_threads: int = 2
    password_nice: int = 10
    login_timeout: float = 120.0
    idle_timeout: float = 3600.0
    #: Seconds a closed connection's last output may take to leave before its socket
    #: is aborted (a client that does not read would keep it open for minutes).
    close_grace: float = 10.0
    help_page_lines: int = 40
    lag_compensation: float = 1.0
    #: Bytes of output a client that is not reading may leave unsent before it is closed.
    output_buffer: int = 1 << 20
    #: Bytes of one connection's input parsed per reactor turn.
    input_budget: int = 4096
    #: Input lines of one connection handed to its session per reactor turn.
    lines_per_turn: int = 4
    #: Bytes per second one connection's input is parsed at, in bursts of at most
    #: ``input_burst`` bytes (0: no rate limit).
    input_rate: int = 2048
    input_burst: int = 131072
    #: Bytes per second of telnet commands (IAC sequences, subnegotiations) one
    #: connection may send, after a burst of ``telnet_burst`` (0: no separate limit).
    telnet_rate: int = 256
    telnet_burst: int = 4096
    #: Disconnections after which memory is given back to the system (0: never).
    trim_after: int = 200
    #: Seconds after such a run before one more, for what expired meanwhile (0: none).
    trim_again: float = 30.0
    #: Input lines (commands) of one connection run per second, after a burst (0: no limit).
    commands_per_second: int = 0
    command_burst: int = 50
    #: A connection whose input cost more than this percentage of a CPU lately is heavy
    #: (0: none is): heavy ones take turns for ``heavy_turn_ms`` per reactor turn.
    heavy_percent: int = 1
    heavy_turn_ms: int = 10
    #: Seconds a new connection's input waits in the heavy connections' queue,
    #: served after the established ones there (0: not at all).
    newcomer_seconds: float = 5.0
    #: Connections accepted per listening port and reactor turn at most.
    accepts_per_turn: int = 16
    #: Bytes of output queued for a connection in the kernel (``SO_SNDBUF``) and
    #: in Twisted's buffer each before its input waits (0: the system's and Twisted's).
    send_buffer: int = 16384
    subnegotiation_limit: int = 65536
    subnegotiation_timeout: float = 10.0
    #: Seconds idle before TCP keepalive probes (0: the system's timings).
    keepalive_idle: int = 60
    keepalive_interval: int = 20
    keepalive_count: int = 3
    #: Listen backlog given to endpoints that do not set ``backlog=`` themselves.
    listen_backlog: int = 511
    #: Refusing players and offer spam: see ``[limits] list_size`` and after.
    list_size: int = 50
    offers_per_minute: int = 20
    #: Talking: messages per sender and minute (0: no limit), longest text in characters.
    talk_per_minute: int = 30
    talk_max_length: int = 400
    #: Stored messages (``messages``): most kept for one player, longest text in characters.
    messages_per_player: int = 40
    message_max_length: int = 400
    #: Per-address rates (a token bucket per address; 0 a minute: no limit): seeks,
    #: offers (as ``offers_per_minute`` counts them) and messages, each a minute after a burst.
    address_seeks_per_minute: int = 12
    address_seek_burst: int = 12
    address_offers_per_minute: int = 40
    address_offer_burst: int = 40
    address_talk_per_minute: int = 90
    address_talk_burst: int = 60
    #: Adjourned games: days before one expires (0: never), most per player (0: no limit).
    adjourned_expiry_days: float = 30.0
    adjourned_per_player: int = 10
    accounts: Mapping[str, str] = field(default_factory=dict)
    #: Registered handles that are operators (``[server] admins``), folded; the
    #: store's ``admin`` flag makes others (``ficsfen accounts admin NAME on``).
    admins: tuple[str, ...] = ()
    #: The store's data file (``[storage] path``); ``None``: run without a store.
    data_file: Path | None = field(default_factory=default_data_file)
    #: The PostgreSQL database's URL (``[storage] url``); when set, it is the store and
    #: ``data_file`` is not used (``docs/store.md``).
    data_url: str | None = None
    #: ``"full"`` or ``"normal"``: see ``[storage] synchronous``.
    synchronous: str = "full"
    #: Least milliseconds between two commits of the store under load: see
    #: ``[storage] commit_interval_ms``.
    commit_interval_ms: int = 10
    #: The Glicko constants (``[ratings]``): FICS's by default.
    ratings: GlickoConstants = FICS_CONSTANTS
    #: The web site's endpoint (``[web] listen``, ``--web``), or None: no web side.
    web: str | None = "tcp:8080:interface=127.0.0.1"
    #: Origins a browser's WebSocket may come from (``[web] origins``); empty: the site's own.
    web_origins: tuple[str, ...] = ()
    #: The cluster's Redis (``[cluster] url``, ``--cluster``), or None: one node alone.
    cluster_url: str | None = None
    #: This node's name in the cluster (``[cluster] node``); "": the host name and process id.
    cluster_node: str = ""
    #: Prefix of the cluster's channels and keys in Redis (``[cluster] namespace``).
    cluster_namespace: str = "ficsfen"
    #: Seconds between a node's heartbeats, and without one before the others drop it.
    heartbeat_interval: float = 2.0
    heartbeat_timeout: float = 10.0
    #: The log's least level and its format (``[log]``, ``--log-level``, ``--log-format``).
    log_level: str = DEFAULT_LOG_LEVEL
    log_format: str = DEFAULT_LOG_FORMAT
    source: Path | None = None

    def with_log(self, level: str | None = None, fmt: str | None = None) -> Config:
        """A copy logging at ``level`` and as ``fmt`` instead; ``None`` keeps the current one."""
        return replace(self, log_level=level or self.log_level, log_format=fmt or self.log_format)

    def with_web(self, endpoint: str | None) -> Config:
        """A copy serving the web side on ``endpoint`` instead, or none if ``None`` (``--web``)."""
        return replace(self, web=endpoint)

    def with_cluster(self, url: str | None) -> Config:
        """A copy joining the cluster whose Redis is at ``url``, or none if ``None`` (``--cluster``)."""
        return replace(self, cluster_url=url)

    def with_listen(self, endpoints: list[str] | tuple[str, ...]) -> Config:
        """A copy listening on ``endpoints`` instead (``--listen``)."""
        return replace(self, listen=tuple(endpoints))

    def with_data_file(self, path: Path | str | None) -> Config:
        """A copy keeping its data in ``path`` instead: a file, a PostgreSQL URL (a ``str``),
        or nowhere if ``None`` (``--data``)."""
        if isinstance(path, str):
            return replace(self, data_file=None, data_url=path)
        return replace(self, data_file=path, data_url=None)

    @property
    def data_location(self) -> Path | str | None:
        """Where the store is: the database URL if there is one, else the data file."""
        return self.data_url if self.data_url else self.data_file


class _ExpectedTypeError(TypeError):
    """Raised by a converter: ``what`` describes the value it wanted."""

    def __init__(self, what: Message) -> None:
        super().__init__(what.msgid)
        self.what = what


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise _ExpectedTypeError(msg("a string"))
    return value


def _nonempty_word(value: object) -> str:
    value = _string(value)
    if not value.isalpha():
        raise _ExpectedTypeError(msg("a word of letters"))
    return value


def _positive_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _ExpectedTypeError(msg("a positive integer"))
    return value


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _ExpectedTypeError(msg("an integer (0 or more)"))
    return value


def _networks(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _ExpectedTypeError(msg("a list of addresses or networks (\"10.0.0.0/8\")"))
    try:
        return tuple(str(ipaddress.ip_network(v, strict=False)) for v in value)
    except ValueError:
        raise _ExpectedTypeError(msg("a list of addresses or networks (\"10.0.0.0/8\")")) from None


def _handles(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and _HANDLE.fullmatch(v)
                                              for v in value):
        raise _ExpectedTypeError(msg("a list of handles (3 to 17 letters each)"))
    return tuple(dict.fromkeys(fold(v) for v in value))


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _ExpectedTypeError(msg("a number of seconds (0 or more)"))
    return float(value)


def _whole_seconds(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _ExpectedTypeError(msg("a whole number of seconds (0 or more)"))
    return value


def _days(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _ExpectedTypeError(msg("a number of days (0 or more)"))
    return float(value)


def _endpoints(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise _ExpectedTypeError(msg("a non-empty list of endpoint strings"))
    return tuple(value)


def cluster_url(value: str) -> str | None:
    """What ``[cluster] url`` or ``--cluster URL`` means: "" or ``none`` (any case) for no
    cluster, else a Redis URL.  :raises ValueError: not a Redis URL."""
    if not value or value.strip().lower() == "none":
        return None
    from ficsfen.server.cluster.address import parse_url

    parse_url(value)
    return value


def _cluster_url(value: object) -> str | None:
    try:
        return cluster_url(_string(value))
    except ValueError:
        raise _ExpectedTypeError(msg("a Redis URL (redis://HOST:PORT, unix:///PATH) or \"\"")) from None


def _node_name(value: object) -> str:
    value = _string(value)
    if value and not re.fullmatch(r"[A-Za-z0-9._:-]{1,64}", value):
        raise _ExpectedTypeError(msg("a name of at most 64 letters, digits and . _ : -"))
    return value


def _positive_seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _ExpectedTypeError(msg("a number of seconds above 0"))
    return float(value)


def web_endpoint(value: str) -> str | None:
    """What ``[web] listen`` or ``--web VALUE`` means: ``none`` (any case) for no web side,
    else the endpoint string."""
    return None if value.strip().lower() == "none" else value


def _web_endpoint(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        raise _ExpectedTypeError(msg("an endpoint string, or \"none\""))
    return web_endpoint(value)


def _origins(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _ExpectedTypeError(msg("a list of origins such as \"https://chess.example.org\""))
    return tuple(value)


def _database_url(value: object) -> str | None:
    value = _string(value)
    if not value:
        return None
    if url_problem(value) is not None:
        raise _ExpectedTypeError(msg("a postgresql:// URL naming a database"))
    return value


def _synchronous(value: object) -> str:
    value = _string(value)
    if value not in ("full", "normal"):
        raise _ExpectedTypeError(msg("one of: {choices}", choices="full, normal"))
    return value


def _choice(*choices: str) -> Any:
    """A converter accepting one of ``choices``."""
    def convert(value: object) -> str:
        value = _string(value)
        if value not in choices:
            raise _ExpectedTypeError(msg("one of: {choices}", choices=", ".join(choices)))
        return value
    return convert


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise _ExpectedTypeError(msg("a number (0 or more)"))
    return float(value)


def _growth(value: object) -> str:
    value = _string(value)
    if value not in ("log", "linear"):
        raise _ExpectedTypeError(msg("one of: {choices}", choices="log, linear"))
    return value


#: ``[ratings]`` keys and the :class:`GlickoConstants` field each sets.
_RATINGS: dict[str, tuple[str, Any]] = {
    "initial_rating": ("initial_rating", _number),
    "initial_rd": ("initial_rd", _number),
    "rd_max": ("rd_max", _number),
    "rd_min": ("rd_min", _number),
    "c": ("c", _number),
    "min_k": ("min_k", _number),
    "rd_growth": ("rd_growth", _growth),
    "period_seconds": ("period", _number),
    "active_rd": ("active_rd", _number),
}


def _ratings(content: Mapping[str, Any], where: str) -> GlickoConstants:
    """The ``[ratings]`` table over FICS's constants; raises :class:`ConfigError`."""
    changes: dict[str, Any] = {}
    for key, value in content.items():
        spec = _RATINGS.get(key)
        setting = f"ratings.{key}"
        if spec is None:
            raise ConfigError(msg("{file}: unknown setting {setting}", file=where, setting=setting))
        attr, convert = spec
        try:
            changes[attr] = convert(value)
        except _ExpectedTypeError as e:
            raise ConfigError(msg("{file}: setting {setting}: expected {expected}, got {value}",
                                  file=where, setting=setting,
                                  expected=e.what, value=repr(value))) from None
    try:
        return replace(FICS_CONSTANTS, **changes)
    except ValueError as e:
        raise ConfigError(msg("{file}: [ratings]: {reason}", file=where, reason=str(e))) from None


def _language(value: object) -> str:
    value = _string(value)
    if value not in available_languages():
        raise _ExpectedTypeError(msg("one of: {choices}", choices=", ".join(available_languages())))
    return value


# (table, key) -> (Config attribute, converter)
_SETTINGS: dict[tuple[str, str], tuple[str, Any]] = {
    ("server", "listen"): ("listen", _endpoints),
    ("server", "language"): ("language", _language),
    ("server", "help"): ("help_dir", _string),
    ("server", "prompt"): ("prompt", _string),
    ("server", "guest_login"): ("guest_login", _nonempty_word),
    ("server", "banner"): ("banner", _string),
    ("server", "admins"): ("admins", _handles),
    ("limits", "line_length"): ("max_line", _positive_int),
    ("limits", "connections"): ("max_connections", _positive_int),
    ("limits", "connections_per_address"): ("connections_per_address", _count),
    ("limits", "logins_per_minute"): ("logins_per_minute", _count),
    ("limits", "exempt"): ("exempt", _networks),
    ("limits", "password_delay"): ("password_delay", _seconds),
    ("limits", "password_delay_max"): ("password_delay_max", _seconds),
    ("limits", "password_failures"): ("password_failures", _positive_int),
    ("limits", "password_window"): ("password_window", _seconds),
    ("limits", "password_lockout"): ("password_lockout", _seconds),
    ("limits", "password_threads"): ("password_threads", _positive_int),
    ("limits", "password_nice"): ("password_nice", _count),
    ("limits", "login_timeout"): ("login_timeout", _seconds),
    ("limits", "idle_timeout"): ("idle_timeout", _seconds),
    ("limits", "close_grace"): ("close_grace", _seconds),
    ("limits", "help_page_lines"): ("help_page_lines", _positive_int),
    ("limits", "lag_compensation"): ("lag_compensation", _seconds),
    ("limits", "output_buffer"): ("output_buffer", _positive_int),
    ("limits", "input_budget"): ("input_budget", _positive_int),
    ("limits", "lines_per_turn"): ("lines_per_turn", _positive_int),
    ("limits", "input_rate"): ("input_rate", _count),
    ("limits", "input_burst"): ("input_burst", _positive_int),
    ("limits", "telnet_rate"): ("telnet_rate", _count),
    ("limits", "telnet_burst"): ("telnet_burst", _positive_int),
    ("limits", "commands_per_second"): ("commands_per_second", _count),
    ("limits", "trim_after"): ("trim_after", _count),
    ("limits", "trim_again"): ("trim_again", _seconds),
    ("limits", "command_burst"): ("command_burst", _positive_int),
    ("limits", "heavy_percent"): ("heavy_percent", _count),
    ("limits", "heavy_turn_ms"): ("heavy_turn_ms", _positive_int),
    ("limits", "newcomer_seconds"): ("newcomer_seconds", _seconds),
    ("limits", "accepts_per_turn"): ("accepts_per_turn", _positive_int),
    ("limits", "send_buffer"): ("send_buffer", _count),
    ("limits", "subnegotiation_limit"): ("subnegotiation_limit", _positive_int),
    ("limits", "subnegotiation_timeout"): ("subnegotiation_timeout", _seconds),
    ("limits", "keepalive_idle"): ("keepalive_idle", _whole_seconds),
    ("limits", "keepalive_interval"): ("keepalive_interval", _positive_int),
    ("limits", "keepalive_count"): ("keepalive_count", _positive_int),
    ("limits", "listen_backlog"): ("listen_backlog", _positive_int),
    ("limits", "list_size"): ("list_size", _positive_int),
    ("limits", "offers_per_minute"): ("offers_per_minute", _count),
    ("limits", "talk_per_minute"): ("talk_per_minute", _count),
    ("limits", "talk_max_length"): ("talk_max_length", _positive_int),
    ("limits", "messages_per_player"): ("messages_per_player", _positive_int),
    ("limits", "message_max_length"): ("message_max_length", _positive_int),
    ("limits", "address_seeks_per_minute"): ("address_seeks_per_minute", _count),
    ("limits", "address_seek_burst"): ("address_seek_burst", _positive_int),
    ("limits", "address_offers_per_minute"): ("address_offers_per_minute", _count),
    ("limits", "address_offer_burst"): ("address_offer_burst", _positive_int),
    ("limits", "address_talk_per_minute"): ("address_talk_per_minute", _count),
    ("limits", "address_talk_burst"): ("address_talk_burst", _positive_int),
    ("limits", "adjourned_expiry_days"): ("adjourned_expiry_days", _days),
    ("limits", "adjourned_per_player"): ("adjourned_per_player", _count),
    ("storage", "path"): ("data_file", _string),
    ("storage", "url"): ("data_url", _database_url),
    ("storage", "synchronous"): ("synchronous", _synchronous),
    ("storage", "commit_interval_ms"): ("commit_interval_ms", _count),
    ("web", "listen"): ("web", _web_endpoint),
    ("web", "origins"): ("web_origins", _origins),
    ("cluster", "url"): ("cluster_url", _cluster_url),
    ("cluster", "node"): ("cluster_node", _node_name),
    ("cluster", "namespace"): ("cluster_namespace", _node_name),
    ("cluster", "heartbeat_interval"): ("heartbeat_interval", _positive_seconds),
    ("cluster", "heartbeat_timeout"): ("heartbeat_timeout", _positive_seconds),
    ("log", "level"): ("log_level", _choice(*LOG_LEVELS)),
    ("log", "format"): ("log_format", _choice(*LOG_FORMATS)),
}
_TABLES = {"server", "limits", "storage", "accounts", "ratings", "web", "cluster", "log"}


def load(path: Path | str | None = None) -> Config:
    """Read a configuration file; ``None`` reads the shipped default file.

    :raises ConfigError: unreadable file, bad TOML, unknown or ill-typed setting.
    """
    path = Path(path) if path is not None else DEFAULT_CONFIG
    try:
        with path.open("rb") as fp:
            data = tomllib.load(fp)
    except OSError as e:
        raise ConfigError(msg("{file}: cannot read the configuration: {reason}",
                              file=str(path), reason=e.strerror or str(e))) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(msg("{file}: not valid TOML: {reason}",
                              file=str(path), reason=str(e))) from None
    return from_mapping(data, source=path)


def from_mapping(data: Mapping[str, Any], *, source: Path | None = None) -> Config:
    """Build a :class:`Config` from parsed TOML (see :func:`load`)."""
    where = str(source) if source is not None else "<config>"
    values: dict[str, Any] = {"source": source}
    for table, content in data.items():
        if table not in _TABLES:
            raise ConfigError(msg("{file}: unknown section [{section}]", file=where, section=table))
        if not isinstance(content, dict):
            raise ConfigError(msg("{file}: [{section}] must be a table", file=where, section=table))
        if table == "accounts":
            values["accounts"] = _accounts(content, where)
            continue
        if table == "ratings":
            values["ratings"] = _ratings(content, where)
            continue
        for key, value in content.items():
            spec = _SETTINGS.get((table, key))
            setting = f"{table}.{key}"
            if spec is None:
                raise ConfigError(msg("{file}: unknown setting {setting}",
                                      file=where, setting=setting))
            attr, convert = spec
            try:
                values[attr] = convert(value)
            except _ExpectedTypeError as e:
                raise ConfigError(msg("{file}: setting {setting}: expected {expected}, got {value}",
                                      file=where, setting=setting,
                                      expected=e.what, value=repr(value))) from None
    help_dir = values.get("help_dir")
    if isinstance(help_dir, str):
        if not help_dir:
            values["help_dir"] = PACKAGE_HELP_DIR
        else:
            p = Path(os.path.expanduser(help_dir))
            if not p.is_absolute() and source is not None:
                p = source.parent / p
            if not p.is_dir():
                raise ConfigError(msg("{file}: setting {setting}: no such folder: {value}",
                                      file=where, setting="server.help", value=str(p)))
            values["help_dir"] = p
    data_file = values.get("data_file")
    if isinstance(data_file, str):
        values["data_file"] = data_file_from_text(
            data_file, base=source.parent if source is not None else None)
    if values.get("heartbeat_timeout", Config.heartbeat_timeout) <= values.get(
            "heartbeat_interval", Config.heartbeat_interval):
        raise ConfigError(msg("{file}: [cluster] heartbeat_timeout must be longer than "
                              "heartbeat_interval", file=where))
    return Config(**values)


def _accounts(content: Mapping[str, Any], where: str) -> dict[str, str]:
    out = {}
    for name, stored in content.items():
        if not _HANDLE.fullmatch(name):
            raise ConfigError(msg("{file}: account {name}: a handle is 3 to 17 letters",
                                  file=where, name=repr(name)))
        if not isinstance(stored, str) or not _parse_hash(stored):
            raise ConfigError(msg("{file}: account {name}: expected a password hash made by "
                                  "\"ficsfen serve --hash-password\"", file=where, name=name))
        out[fold(name)] = stored
    return out


# Passwords of registered accounts: PBKDF2-SHA256, stored as
# "pbkdf2_sha256$ITERATIONS$SALT_HEX$HASH_HEX".
_ITERATIONS = 200_000


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = _ITERATIONS) -> str:
    """The string to store in ``[accounts]`` for ``password``."""
    salt = salt if salt is not None else os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def _parse_hash(stored: str) -> tuple[int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 4 or parts[0] != "pbkdf2_sha256" or not parts[1].isdigit():
        return None
    try:
        return int(parts[1]), bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
    except ValueError:
        return None


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches a :func:`hash_password` string (constant time)."""
    parsed = _parse_hash(stored)
    if parsed is None:
        return False
    iterations, salt, expected = parsed
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return hmac.compare_digest(digest, expected)
