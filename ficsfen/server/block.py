"""FICS block mode: numbered commands and framed replies, for ICS clients.

A client that turns the ``block`` interface variable on (pychess does, Jin
and other clients can) numbers every command it sends, ``ID COMMAND ARGS``,
and reads each reply as one frame::

    BLOCK_START ID BLOCK_SEPARATOR CODE BLOCK_SEPARATOR OUTPUT BLOCK_END

``CODE`` names the command that ran (FICS's table below, by command name),
or the error that stopped it (512 and up).  The client can then tell which
output answers which command however asynchronous lines (boards of observed
games, challenges, game ends caused by others) are interleaved: those are
never put inside a frame.

Nothing here knows about sessions or Twisted: :func:`split_id` reads a
line, :func:`frame` builds the bytes, the server decides what goes in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "AMBIGUOUS",
    "BAD_COMMAND",
    "BAD_PARAMS",
    "BLOCK_CODES",
    "BLOCK_END",
    "BLOCK_POSE_END",
    "BLOCK_POSE_START",
    "BLOCK_SEPARATOR",
    "BLOCK_START",
    "BlockIdError",
    "BlockReply",
    "ERROR_MESSAGES",
    "GAME_MOVE",
    "LINE_TOO_LONG",
    "MAX_ID_DIGITS",
    "NOT_PLAYING",
    "NO_SEQUENCE",
    "NULL",
    "OBSOLETE",
    "OWN_CODES",
    "REMOVED",
    "RIGHTS",
    "SHORTCUTS",
    "code_for",
    "frame",
    "split_id",
]

BLOCK_START = "\x15"
BLOCK_SEPARATOR = "\x16"
BLOCK_END = "\x17"
#: FICS marks asynchronous output that arrives inside a block with these;
#: our server never interleaves (a command runs to its end before anything
#: else is written to its session), so it never sends them.
BLOCK_POSE_START = "\x18"
BLOCK_POSE_END = "\x19"

NULL = 0
GAME_MOVE = 1

#: FICS's command codes (``help block_codes``), by command name.
BLOCK_CODES: dict[str, int] = {
    "abort": 10, "accept": 11, "addlist": 12, "adjourn": 13, "allobservers": 14,
    "assess": 15, "backward": 16, "bell": 17, "best": 18, "bname": 19, "boards": 20,
    "bsetup": 21, "bugwho": 22, "cbest": 23, "clearmessages": 24, "clrsquare": 25,
    "convert_bcf": 26, "convert_elo": 27, "convert_uscf": 28, "copygame": 29, "crank": 30,
    "cshout": 31, "date": 32, "decline": 33, "draw": 34, "eco": 35, "examine": 36,
    "finger": 37, "flag": 38, "flip": 39, "fmessage": 40, "follow": 41, "forward": 42,
    "games": 43, "getgi": 44, "getpi": 45, "ginfo": 46, "goboard": 47, "handles": 48,
    "hbest": 49, "help": 50, "history": 51, "hrank": 52, "inchannel": 53, "index": 54,
    "info": 55, "iset": 56, "it": 57, "ivariables": 58, "jkill": 59, "journal": 60,
    "jsave": 61, "kibitz": 62, "limits": 63, "line": 64, "llogons": 65, "logons": 66,
    "mailhelp": 67, "mailmess": 68, "mailmoves": 69, "mailoldmoves": 70, "mailsource": 71,
    "mailstored": 72, "match": 73, "messages": 74, "mexamine": 75, "moretime": 76,
    "moves": 77, "news": 78, "next": 79, "observe": 80, "oldmoves": 81, "oldstored": 82,
    "open": 83, "partner": 84, "password": 85, "pause": 86, "pending": 87, "pfollow": 88,
    "pobserve": 89, "prefresh": 90, "primary": 91, "promote": 92, "pstat": 93, "ptell": 94,
    "ptime": 95, "qtell": 96, "quit": 97, "rank": 98, "rcopygame": 99, "rfollow": 100,
    "refresh": 101, "rematch": 102, "resign": 103, "resume": 104, "revert": 105,
    "robserve": 106, "say": 107, "servers": 108, "set": 109, "shout": 110, "showlist": 111,
    "simabort": 112, "simallabort": 113, "simadjourn": 114, "simalladjourn": 115,
    "simgames": 116, "simmatch": 117, "simnext": 118, "simobserve": 119, "simopen": 120,
    "simpass": 121, "simprev": 122, "smoves": 123, "smposition": 124, "sposition": 125,
    "statistics": 126, "stored": 127, "style": 128, "sublist": 129, "switch": 130,
    "takeback": 131, "tell": 132, "time": 133, "tomove": 134, "tournset": 135,
    "unalias": 136, "unexamine": 137, "unobserve": 138, "unpause": 139, "uptime": 140,
    "uscf": 141, "ustat": 142, "variables": 143, "whenshut": 144, "whisper": 145,
    "who": 146, "withdraw": 147, "wname": 148, "xkibitz": 149, "xtell": 150,
    "xwhisper": 151, "znotify": 152, "reply": 153, "summon": 154, "seek": 155,
    "unseek": 156, "sought": 157, "play": 158, "alias": 159, "newbies": 160, "sr": 161,
    "ca": 162, "tm": 163, "getgame": 164, "ccnewse": 165, "ccnewsf": 166, "ccnewsi": 167,
    "ccnewsp": 168, "ccnewst": 169, "csnewse": 170, "csnewsf": 171, "csnewsi": 172,
    "csnewsp": 173, "csnewst": 174, "ctnewse": 175, "ctnewsf": 176, "ctnewsi": 177,
    "ctnewsp": 178, "ctnewst": 179, "cnews": 180, "snews": 181, "tnews": 182,
    "rmatch": 183, "rstat": 184, "crstat": 185, "hrstat": 186, "gstat": 187,
}

#: Codes of this server's own commands that a client or the web page tells
#: apart by code; FICS's codes end at 187, these start at 200 so that they
#: never meet one of FICS's.  Other commands FICS lacks (``fen``) answer 0.
OWN_CODES: dict[str, int] = {"checkfen": 200}

#: FICS's shortcuts for a command: they answer with its code.
SHORTCUTS: dict[str, str] = {".": "tell", ",": "tell"}

# FICS's error codes: they replace the command's code in the frame.
BAD_COMMAND = 512
BAD_PARAMS = 513
AMBIGUOUS = 514
RIGHTS = 515
OBSOLETE = 516
REMOVED = 517
NOT_PLAYING = 518
NO_SEQUENCE = 519
LINE_TOO_LONG = 520


#: The refusals that mean an error code, by the msgid commands send them
#: with: a usage line is a bad parameter, "not playing" is 518.  The first
#: such message a command sends decides its frame's code.
ERROR_MESSAGES: dict[str, int] = {
    "Usage: {usage}": BAD_PARAMS,
    "Usage: set {name} {values}": BAD_PARAMS,
    "You are not playing a game.": NOT_PLAYING,
    "You are not playing or examining a game.": NOT_PLAYING,
    "You are not playing game {number}.": NOT_PLAYING,
    "You are not examining a game.": NOT_PLAYING,
    # checkfen's refusal of a record: its parameter is bad
    "Invalid FEN: {error}": BAD_PARAMS,
    "{command}: Insufficient rights.": RIGHTS,
}

#: Identifiers are what clients count with: up to nine ASCII digits.
MAX_ID_DIGITS = 9


class BlockIdError(ValueError):
    """A line without a valid command identifier while block mode is on."""


_CODES: dict[str, int] = {**BLOCK_CODES, **OWN_CODES}


def code_for(name: str) -> int:
    """FICS's code for the command ``name``, or :data:`OWN_CODES`'; 0 (null) for
    the other commands FICS lacks (``fen``)."""
    return _CODES.get(SHORTCUTS.get(name, name), NULL)


_NUMBERED = re.compile(rf"[ \t]*([0-9]{{1,{MAX_ID_DIGITS}}})(?:[ \t]+(.*))?", re.DOTALL)


def split_id(line: str) -> tuple[str, str]:
    """``("12", "games")`` from ``"12 games"``; the command may be empty.

    :raises BlockIdError: the line does not start with 1 to :data:`MAX_ID_DIGITS`
        ASCII digits followed by a blank or the end of the line.
    """
    # What clients send, "12 games", is split without the regular
    # expression (a third of the cost); anything else goes through it.
    ident, _, rest = line.partition(" ")
    if len(ident) <= MAX_ID_DIGITS and ident.isdigit() and ident.isascii():
        return ident, rest.lstrip(" \t")  # no blank: rest is ""
    m = _NUMBERED.fullmatch(line)
    if m is None:
        raise BlockIdError(line)
    return m.group(1), m.group(2) or ""


_TAIL = (BLOCK_END + "\r\n").encode("ascii")


def frame(ident: str, code: int, output: bytes) -> bytes:
    """One reply: the start byte, id, code and output, the end byte, then CR LF.

    The line end after BLOCK_END lets line-reading clients (pychess reads
    line by line) receive the frame's last line at once.
    """
    head = f"{BLOCK_START}{ident}{BLOCK_SEPARATOR}{code}{BLOCK_SEPARATOR}".encode("ascii")
    return head + output + _TAIL


@dataclass(slots=True)
class BlockReply:
    """The reply being built for one numbered command.

    ``code`` is the command's (set before it runs); ``error`` the first
    error code its output implied (:data:`ERROR_MESSAGES`), which wins.
    """

    ident: str
    code: int = NULL
    error: int | None = None
    chunks: list[bytes] = field(default_factory=list)

    def note(self, msgid: str) -> None:
        if self.error is None:
            self.error = ERROR_MESSAGES.get(msgid)

    def to_bytes(self) -> bytes:
        """The frame (:func:`frame`), its output joined in the same step."""
        code = self.code if self.error is None else self.error
        head = f"{BLOCK_START}{self.ident}{BLOCK_SEPARATOR}{code}{BLOCK_SEPARATOR}".encode("ascii")
        return b"".join((head, *self.chunks, _TAIL))
