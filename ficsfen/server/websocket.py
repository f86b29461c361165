"""A FICS session over a WebSocket: the telnet connection's stack, with frames for lines.

Each web connection is, from the socket up:

- the same :class:`ficsfen.server.governor.InputGovernor` as a telnet
  connection's: backpressure, the output cap and close grace, input
  budgets, rates, turns (``[limits]`` applies as it is);
- :class:`WebConnection`, a :class:`ficsfen.server.telnet.TelnetConnection`
  whose parser (:class:`WebCodec`) is an HTTP channel of the
  :func:`ficsfen.server.web.make_site` site until ``/ws`` upgrades it, then
  Twisted's WebSocket layer (:mod:`twisted.web.websocket`), the client's
  frame headers read first (:class:`ficsfen.server.wsframes.FrameWatch`:
  a message over ``[server] max_line`` bytes, or a binary one, closes the
  connection with a Close frame that says why);
- once the WebSocket is open, what a telnet connection does on connect: the
  connection limits, the banner, the login dialogue, then the session.

One text message in is one input line (or several, split on ``\\n``);
each write of the session is one text message, the bytes a telnet client
gets decoded as UTF-8 (no IAC doubling, no telnet options; ``echo`` is the
page's business).  The server's text frames are built here
(:func:`ficsfen.server.wsframes.text_frame`, once per broadcast) and written
where Twisted's WebSocket layer writes; that layer still does the handshake,
reads the client's frames, answers pings and closes.  Timeseal is not spoken
here.
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger
from twisted.web.websocket import WebSocketTransport

from ficsfen.i18n import Message, msg
from ficsfen.server.governor import InputGovernor
from ficsfen.server.telnet import FicsFactory, TelnetConnection
from ficsfen.server.web import make_site
from ficsfen.server.wsframes import (CLOSE_TOO_BIG, CLOSE_UNSUPPORTED, FrameWatch, close_frame, text_frame,
                                     utf8_payload)

__all__ = ["HTTP_INPUT_LIMIT", "WebCodec", "WebConnection", "WebFactory"]

#: Bytes a connection may send before its WebSocket is open (the HTTP request):
#: past that it is closed.  A browser's upgrade request is well under 4 KiB.
HTTP_INPUT_LIMIT = 16384


class _ChannelTransport:
    """What the HTTP channel (and, after the upgrade, Twisted's WebSocket layer)
    writes to: the connection's governor, which caps what a non-reader is sent.

    It is no producer: the channel's own pauses mean nothing here (the
    governor paces input).
    """

    def __init__(self, connection: WebConnection) -> None:
        self._connection = connection

    @property
    def connection(self) -> WebConnection:
        """The connection whose channel writes here."""
        return self._connection

    @property
    def disconnecting(self) -> bool:
        """Whether the connection is closing (ITransport's attribute, read by the channel)."""
        return self._connection.closed

    def write(self, data: bytes) -> None:
        self._connection.transport.write(data)

    def writeSequence(self, data: list[bytes]) -> None:  # noqa: N802 - ITransport's name
        self._connection.transport.write(b"".join(data))

    def loseConnection(self) -> None:  # noqa: N802 - ITransport's name
        self._connection.close()

    def abortConnection(self) -> None:  # noqa: N802 - ITCPTransport's name
        self._connection.transport.transport.abortConnection()

    def getPeer(self) -> Any:  # noqa: N802 - ITransport's name
        return self._connection.transport.getPeer()

    def getHost(self) -> Any:  # noqa: N802 - ITransport's name
        return self._connection.transport.getHost()


class WebCodec:
    """The governor's parser of a web connection: HTTP until the upgrade, then frames.

    Everything fed is consumed: the lines it yields are handed to the
    governor, which keeps those beyond a turn's count for later turns.
    """

    def __init__(self, connection: WebConnection, limit: int) -> None:
        self.connection = connection
        self.frames = FrameWatch(limit)
        self.channel: Any = None  # the HTTP channel, from connect()
        #: Whether the WebSocket is open (frames, not HTTP, from then on).
        self.upgraded = False
        self._http_bytes = 0

    def connect(self, site: Any) -> None:
        """Make the connection's HTTP channel of ``site``."""
        connection = self.connection
        channel = self.channel = site.buildProtocol(connection.transport.getPeer())
        channel.makeConnection(_ChannelTransport(connection))

    def plain_prefix(self, data: bytes, start: int, end: int) -> int:
        """No telnet commands here: every byte is input (``[limits] input_rate``)."""
        return end - start

    def feed(self, data: bytes, now: float) -> tuple[int, int]:
        connection, channel = self.connection, self.channel
        if channel is None or connection.closed:
            return len(data), 0
        if not self.upgraded:
            self._http_bytes += len(data)
            if self._http_bytes > HTTP_INPUT_LIMIT:
                connection.log.info("closed {peer}: more than {limit} bytes of HTTP request",
                                    peer=connection.peer, limit=HTTP_INPUT_LIMIT)
                connection.close()
                return len(data), 0
            channel.dataReceived(data)  # the upgrade happens in here: see WebConnection.opened
            return len(data), 0
        frames = self.frames
        n = frames.scan(data)
        if n:
            channel.dataReceived(data[:n])
        if frames.refused is not None:
            connection.refuse_frame(frames.refused)
        return len(data), 0

    def lost(self, reason: Any) -> None:
        """The socket closed: the channel (or the WebSocket layer) is told."""
        channel, self.channel = self.channel, None
        if channel is not None:
            channel.connectionLost(reason)


class _Door:
    """Twisted's :class:`twisted.web.websocket.WebSocketProtocol` of one connection."""

    def __init__(self, connection: WebConnection, channel: Any) -> None:
        self.connection = connection
        self.channel = channel  # the HTTP channel that upgraded
        self.transport: WebSocketTransport | None = None

    def negotiationStarted(self, transport: WebSocketTransport) -> None:  # noqa: N802 - Twisted's name
        self.transport = transport

    def negotiationFinished(self) -> None:  # noqa: N802 - Twisted's name
        if self.transport is not None:
            self.channel.setTimeout(None)  # the login and idle timeouts rule from now on
            self.connection.opened(self.transport)

    def pongReceived(self, payload: bytes) -> None:  # noqa: N802 - Twisted's name
        pass  # the server sends no pings

    def textMessageReceived(self, message: str) -> None:  # noqa: N802 - Twisted's name
        self.connection.message(message)

    def bytesMessageReceived(self, data: bytes | bytearray) -> None:  # noqa: N802 - Twisted's name
        pass  # never reached: FrameWatch refuses binary frames before they are read

    def connectionLost(self, reason: Any) -> None:  # noqa: N802 - Twisted's name
        pass  # WebConnection.connectionLost, from the governor, does the rest


class WebConnection(TelnetConnection):
    """One client over a WebSocket: frames to lines, then what a telnet connection does."""

    log = Logger()
    _raw_lines = "plain"  # no timeseal over a WebSocket
    #: Twisted's WebSocket transport once open (None before).
    websocket: WebSocketTransport | None = None
    codec: WebCodec  # type: ignore[assignment]  # the governor's parser, as TelnetCodec is telnet's

    def __init__(self, factory: WebFactory) -> None:
        super().__init__(factory.desk, factory.logins, factory.idle)
        self.web = factory
        self.codec = WebCodec(self, self.config.max_line)

    def connectionMade(self) -> None:  # noqa: N802 - Twisted's name
        """An HTTP connection: counted, greeted and timed only once its WebSocket opens."""
        self.codec.connect(self.web.site)

    def opened(self, websocket: WebSocketTransport) -> None:
        """The WebSocket is open: from now on, a telnet connection's life."""
        self.websocket = websocket
        codec = self.codec
        codec.upgraded = True
        super().connectionMade()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted's name
        self.codec.lost(reason)
        super().connectionLost(reason)

    # -- output ------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Bytes already encoded (UTF-8, CR LF line ends): one text message.

        Nothing is sent before the WebSocket is open or once the connection is
        closing (a Close frame may have gone, in either direction).
        """
        if self.websocket is not None and not self.closed:
            self.transport.write(text_frame(utf8_payload(data)))

    @staticmethod
    def write_all(connections: list[WebConnection], data: bytes) -> None:  # type: ignore[override]
        """:meth:`write` the same ``data`` to each of ``connections``: the frame built once.

        The fan-out of a board to its WebSocket observers
        (``bench/web_observers.py``): the text message's frame
        (:func:`ficsfen.server.wsframes.text_frame`) is the same bytes for every
        recipient, since no WebSocket extension is ever negotiated, so it is
        built once and written to each connection's governor, where Twisted's
        ``sendTextMessage`` would have written it.  Skipped, as by :meth:`write`:
        connections not yet open or closing.
        """
        frame = text_frame(utf8_payload(data))
        for connection in connections:
            if connection.websocket is not None and not connection.closed:
                connection.transport.write(frame)

    def echo(self, on: bool) -> None:
        """Nothing to negotiate: a page hides a password field itself."""

    # -- input -------------------------------------------------------------------------

    def message(self, text: str) -> None:
        """A text message: its lines (the last one ended if it is not) go to the governor."""
        if self.closed:
            return
        data = text.encode("utf-8")
        if not data.endswith(b"\n"):
            data += b"\n"
        self.transport.deliver(data)

    def refuse_frame(self, why: str) -> None:
        """A frame refused by the :class:`FrameWatch`: a Close frame saying why, then close."""
        if why == "binary":
            code = CLOSE_UNSUPPORTED
            reason: Message = msg("Binary messages are not accepted: send text.")
        else:
            code = CLOSE_TOO_BIG
            reason = msg("Message longer than {limit} bytes.", limit=self.config.max_line)
        self.log.info("closed {peer} ({handle}): {why} WebSocket message", peer=self.peer,
                      handle=self.who, why=why)
        session = self.session
        lang = session.lang if session is not None else self.config.language
        self.transport.write(close_frame(code, reason.render(lang)))
        self.close()


class _Doors:
    """Twisted's WebSocket server factory: the protocol of the connection whose HTTP
    channel sent the upgrade request (the channel's transport says which)."""

    def buildProtocol(self, request: Any) -> _Door:  # noqa: N802 - Twisted's name
        """:raises TypeError: a request on a channel that is not a web connection's."""
        transport = request.channel.transport
        if not isinstance(transport, _ChannelTransport):
            raise TypeError(f"not a web connection's channel: {request.channel!r}")
        return _Door(transport.connection, request.channel)


class WebFactory(FicsFactory):
    """Builds an :class:`InputGovernor` around a :class:`WebConnection` for each connection;
    shares the server's desk, turns and timeouts with its telnet factory."""

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        config = server.config
        self.doors = _Doors()
        self.site = make_site(self.doors, origins=config.web_origins, timeout=config.login_timeout,
                              clock=server.clock, language=lambda: config.language)

    def startFactory(self) -> None:  # noqa: N802 - Twisted's name
        self.site.doStart()

    def stopFactory(self) -> None:  # noqa: N802 - Twisted's name
        self.site.doStop()

    def buildProtocol(self, addr: Any) -> InputGovernor:  # noqa: N802 - Twisted's name
        return InputGovernor(self, WebConnection(self))
