"""Splitting PGN text into tokens, line by line, in time linear in its length.

:func:`tokens` reads lines (from :func:`lines_of`) and yields the tokens the
game reader needs: tag pairs, moves, results, move numbers ``1.`` (which
can start a game), variation brackets and the markers of two syntax errors
(``{`` for a comment never closed, ``[`` for a malformed tag pair).
Whitespace, ``{}`` and ``;`` comments, ``%`` escape lines, NAGs, ``<...>``
and other move numbers are skipped; a stray ``]`` or ``}`` is ignored.

Why it is linear, whatever the bytes: each line is cut by one regular
expression, :data:`_LEX`, matched again and again from where the last match
ended.  Every quantifier in it is possessive (``*+``, ``++``, ``?+``), so the
matcher never goes back to try a shorter run.  A match is a run of skipped
items then one token.  The token's alternatives start with disjoint
characters and none can fail once its first character matched (all that
follows is a possessive run or optional), and one of them matches any
character, so a match never fails half-way and nothing is tried again.  A
skipped item can fail after a run (a brace or ``<`` not closed on the
line, digits with no dot), and the token then read starts with that same
run: for ``{`` and digits it takes the whole run, for ``<`` the word from
it, and that run stops at the next ``<``, so no character is in two of
them.  Each match is counted as twice what it takes plus two, the word
after an unclosed ``<`` on top.  A brace comment never closed is read
twice: its lines are searched for ``}``, then, once the end of the text
shows the brace is never closed, read as movetext as the standard reader
does, where no ``{`` can be closed any more.  :class:`ScanCount` adds up
what each step examines so tests can hold the total to a linear bound.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

__all__ = ["ScanCount", "Token", "lines_of", "plain_tokens", "tokens"]

#: a token's text, or a tag pair's ``(name, value)``
Token = str | tuple[str, str]
Source = str | bytes | bytearray | IO[str] | IO[bytes] | Iterable[str] | Iterable[bytes]

_WORD_CHAR = r"[^\s{}()\[\];$%.]"
_WORD_START = r"[^\s{}()\[\];$%.<\d]"
# Skipped before each token: whitespace, closed comments, NAGs, <...>, move
# numbers other than "1." (which can start a game); possessive throughout.
_SKIP = (
    r"(?:\s++"
    r"|SKIPCOMMENT"
    r"|;.*+"
    r"|\$\d++"
    r"|<[^<>]*+>"
    r"|(?:\d\d++|[02-9]|1(?=\.\.))\.++"
    r")*+"
)
_TEMPLATE = (
    _SKIP + r"(?:"
    rf"({_WORD_START}{_WORD_CHAR}*+)"  # 1: a move, a result, any other word
    rf"|((\d{_WORD_CHAR}*+)(\.*+))"  # 2 (3 the word, 4 its dots): 1., 1-0, 0-0, a number
    r"|(\{COMMENTBODY(\}?+))"  # 5 (6 the closing brace, "" when missing: the comment goes on)
    r"|(\[[ \t]*+(?:(\w++)[ \t]*+"  # 7 (8 the name
    r'(?:"((?:[^"\\\n]++|\\[^\n])*+)'  # 9 the value
    r'(?:"[ \t]*+(\]?+))?+)?+)?+)'  # 10 the closing bracket, "" when missing)
    r"|(<[^<>]*+(>?+))"  # 11 (12 the closing ">", "" when missing)
    r"|(;.*+|\$)"  # 13: ";" or "$" where the skip could not take them (never, in practice)
    r"|(.))"  # 14: ( ) . % ] } on their own
)
# Where no "}" is left in the text, a "{" is a token and nothing is skipped as a comment.
_LEX = re.compile(_TEMPLATE.replace("SKIPCOMMENT", r"\{[^}]*+\}").replace("COMMENTBODY", "[^}]*+"), re.S)
_LEX_NO_CLOSE = re.compile(_TEMPLATE.replace("|SKIPCOMMENT", "").replace("COMMENTBODY", ""), re.S)
_WORD_RUN = re.compile(_WORD_CHAR + "++")
# plain_tokens: a line of plain movetext once its closed comments are blanked
_PLAIN = re.compile(r"[A-Za-z0-9+#=/.!?*:@ \t\n-]*+")
_CLOSED_COMMENT = re.compile(r"\{[^}]*+\}")
# plain_tokens: a tag pair alone on its line, its value without escapes
_PLAIN_TAG = re.compile(r'\[(\w++) "([^"\\\n]*+)"\]\n?+')
_UNESCAPE = re.compile(r"\\(.)", re.S)
_BOM = "\ufeff"


@dataclass
class ScanCount:
    """What a scan read: ``characters`` of input, ``examined`` by its steps (each counted)."""

    characters: int = 0
    examined: int = 0


def lines_of(source: Source) -> Iterator[str]:
    """The lines of PGN ``source``, each ending at ``\\n`` (``\\r\\n`` and a lone ``\\r`` made ``\\n``).

    ``source`` is text (``str``), bytes, a text or binary stream, or an
    iterable of text or byte lines; it is read lazily, a line at a time.
    Bytes are decoded line by line: UTF-8, else Latin-1 as old files are.
    A leading byte-order mark is dropped.
    """
    if isinstance(source, str):
        if source.startswith(_BOM):
            source = source[1:]
        if "\r" in source:
            source = source.replace("\r\n", "\n").replace("\r", "\n")
        return iter(io.StringIO(source))
    if isinstance(source, (bytes, bytearray)):
        return _lines(io.BytesIO(source))
    return _lines(source)


def _lines(items: Iterable[str] | Iterable[bytes]) -> Iterator[str]:
    first = True
    for item in items:
        if isinstance(item, (bytes, bytearray)):
            try:
                line = item.decode("utf-8")
            except UnicodeDecodeError:
                line = item.decode("latin-1")
        else:
            line = item
        if first:
            first = False
            if line.startswith(_BOM):
                line = line[1:]
        if "\r" in line:
            yield from io.StringIO(line.replace("\r\n", "\n").replace("\r", "\n"))
        else:
            yield line


def tokens(lines: Iterable[str], count: ScanCount | None = None) -> Iterator[list[Token]]:
    """The tokens of PGN text given as lines (see the module's docstring), a list per line.

    A token is its text, but a tag pair is ``(name, value)`` with the value
    unescaped.  ``count``, when given, adds up the characters read and
    examined.  Never raises on any text.
    """
    pending: list[str] = []  # lines inside a brace comment not closed yet
    for line in lines:
        if pending:
            close = line.find("}")
            if count is not None:
                count.characters += len(line)
                count.examined += len(line) if close < 0 else close + 1
            if close < 0:
                pending.append(line)
                continue
            pending = []
            start = close + 1
        else:
            if count is not None:
                count.characters += len(line)
            if line[:1] == "%":  # an escape line
                if count is not None:
                    count.examined += 1
                continue
            start = 0
        plain = plain_tokens(line, start)
        if plain is not None:
            if count is not None:
                count.examined += 4 * (len(line) - start) + 2
            if plain:
                yield plain
            continue
        out: list[Token] = []
        opened = _line_tokens(line, start, _LEX, out, count)
        if out:
            yield out
        if opened >= 0:
            pending = [line[opened + 1 :]]
    if pending:
        # The comment is never closed: "{" is the error, what follows it is
        # read again as movetext, where no "}" is left to close any "{".
        out = ["{"]
        for line in pending:
            _line_tokens(line, 0, _LEX_NO_CLOSE, out, count)
        yield out


def plain_tokens(line: str, start: int = 0) -> list[Token] | None:
    """The tokens of ``line`` from ``start`` as :func:`tokens` reads them, if the line is plain; else ``None``.

    Plain: a tag pair alone on the line (``[Name "value"]``, one space, no
    backslash), or movetext of ASCII letters, digits, blanks, ``+#=/!?*:@-``,
    closed ``{}`` comments, and dots only in move numbers (``12.``,
    ``12...``, ``12.e4``).  There the tokens are the words between blanks
    once the comments are blanked, move numbers dropped but ``1.``, without
    the regular expression of :data:`_LEX` matched once per token.  Any
    other line gets ``None`` (:func:`tokens` reads it the usual way), so
    the result is always that of the usual reading
    (``tests/test_pgn_stream.py`` compares the two on generated lines).

    Justified by ``bench/bench_fens.py --commands`` (``ficsfen fens``
    beside pgn-extract on 4.3 MB of Lichess games; figures in
    docs/benchmarks/pgn-fens.md): the usual reading was
    about a fifth of the instructions of the whole command.
    """
    if start:
        line = line[start:]
    if line[:1] == "[":
        tag = _PLAIN_TAG.fullmatch(line)
        return None if tag is None else [(tag.group(1), tag.group(2))]
    if "{" in line:
        if line.rfind("{") > line.rfind("}"):
            return None  # a comment goes on to the next line
        line = _CLOSED_COMMENT.sub(" ", line)
    if _PLAIN.fullmatch(line) is None:
        return None
    out: list[Token] = []
    add = out.append
    for word in line.split():
        if "." not in word:
            add(word)
            continue
        if word.rstrip(".").isdigit():  # a move number alone
            if word == "1.":
                add(word)
            continue
        dot = word.find(".")
        number = word[:dot]
        rest = word[dot:].lstrip(".")
        if not number.isdigit() or "." in rest or rest[:1].isdigit():
            return None
        if number == "1" and len(word) - len(rest) == 2:
            add("1.")
        if rest:
            add(rest)
    return out


def _line_tokens(line: str, pos: int, lex: re.Pattern[str], out: list[Token], count: ScanCount | None) -> int:
    """Append one line's tokens from ``pos`` to ``out``; where a comment left open starts, or -1."""
    match = lex.match
    add = out.append
    end = len(line)
    examined = 0
    opened = -1
    while pos < end:
        m = match(line, pos)
        if m is None:  # only what the skip takes was left
            examined += 2 * (end - pos) + 2
            break
        kind = m.lastindex
        start, pos = pos, m.end()
        # the skip's last failed try examined at most what the token then took
        examined += 2 * (pos - start) + 2
        if kind == 1:
            add(m.group(1))
        elif kind == 2:
            word, dots = m.group(3, 4)
            if not dots or not word.isdigit():
                add(word)
            elif word == "1" and dots == ".":
                add("1.")  # "1." may start a game; other move numbers are skipped
        elif kind == 5:
            if not m.group(6):
                if lex is _LEX_NO_CLOSE:  # its "}" is nowhere
                    add("{")
                    continue
                opened = m.start(5)
                break
        elif kind == 7:
            if m.group(10):
                name, value = m.group(8, 9)
                add((name, _UNESCAPE.sub(r"\1", value) if "\\" in value else value))
            else:
                add("[")
        elif kind == 11:
            if not m.group(12):  # no ">": an ordinary word that starts with "<"
                w = _WORD_RUN.match(line, m.start(11))
                pos = w.end()  # type: ignore[union-attr]
                examined += pos - m.start(11) + 1
                add(w.group())  # type: ignore[union-attr]
        elif kind == 14:
            char = m.group(14)
            if char == "(" or char == ")":
                add(char)
    if count is not None:
        count.examined += examined
    return opened
