#!/usr/bin/python3
"""pychess's own main connection reads ``ficsfen serve``'s seeks and talk.

    /usr/bin/python3 tools/clients/pychess_seeks_check.py --checkout /path/to/ficsfen

Run with the system Python that has Debian's pychess (1.0.3); no display is
needed.  It starts the checkout's ``ficsfen serve`` and runs pychess's real
``FICSMainConnection`` against it, live, under asyncio: pychess logs in as a
guest with its own code, sends its own set-up lines (``iset block 1``,
``iset defprompt 1``, ``iset ms 1``, ``set interface``, then its managers':
``iset seekinfo 1``, ``iset seekremove 1``, ``iset showownseek 1``,
``set Lang English``, ``inchannel NAME``, ...) and parses every reply with
its ``TelnetLines``/``PredictionsTelnet`` and its ``SeekManager`` and
``ChatManager``.  Raw telnet guests (``pychess_check.Guest``) meanwhile:

- post ``seek 5 0`` and ``seek 3 0 white crazyhouse 1000-2000 m`` (and one seek
  posted before pychess connects, which must come in the ``<sc>``/``<s>``
  burst that answers ``iset seekinfo 1``); ``unseek`` one, log off the
  other's owner;
- tell pychess's user something, tell a channel pychess has joined
  (``+channel 4`` sent through pychess's ``ChatManager.joinChannel``);
  pychess answers the ``5 0`` seek with ``OfferManager.playIndex`` (``play N``,
  what its seek list sends) and its ``BoardManager`` must start the game and
  the seek leave its list; the seeker then ``say``s something to pychess;
- receive what pychess sends with its ``ChatManager.tellPlayer``.

What pychess understood is read off its own objects: the seek list
(``connection.seeks``, filled by ``SeekManager``'s ``addSeek``/``removeSeek``
signals) and the ``ChatManager`` signals ``privateMessage``/``channelMessage``.
Prints each check and exits 1 if one fails.  Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import builtins
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pychess_check import Guest, free_port  # noqa: E402

builtins.__dict__.setdefault("_", lambda s: s)  # pychess's modules expect gettext's _ installed

from gi.repository import GLib  # noqa: E402


class Checks:
    """Named pass/fail lines, printed as they come."""

    def __init__(self) -> None:
        self.failed: list[str] = []

    def __call__(self, name: str, ok: bool, seen: object) -> None:
        print(f"{'OK  ' if ok else 'FAIL'} {name}: {seen}", flush=True)
        if not ok:
            self.failed.append(name)


async def until(predicate, timeout: float = 10.0) -> bool:
    """Pump GLib (pychess's ChatManager emits through ``GLib.idle_add``) until ``predicate()``."""
    deadline = time.monotonic() + timeout
    ctx = GLib.MainContext.default()
    while time.monotonic() < deadline:
        while ctx.pending():
            ctx.iteration(False)
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return predicate()


async def gone(conn, predicate) -> bool:
    """Wait for a seek's removal; if pychess holds the ``<sr>`` line, give it the next line.

    pychess tries its predictions in a set's order, which changes from run to run.  When
    its two-line ``<sr>`` + "Your seeks have been removed." pattern comes first, it reads
    on past ``<sr> N`` and waits for one more whole line; the prompt that follows has no
    newline (as on FICS), so the removal shows only when the next line arrives.  A
    ``date`` through pychess's own connection brings that line.
    """
    if await until(predicate, 3):
        return True
    print("     (pychess held the <sr> line until the next one: sending `date`)", flush=True)
    conn.client.run_command("date")
    return await until(predicate, 5)


async def seeker(port: int, seek: str) -> tuple[Guest, str, int]:
    """A new guest that posts ``seek``: the guest, its handle and the seek's index."""
    loop = asyncio.get_running_loop()
    guest = Guest(port)
    name = await loop.run_in_executor(None, guest.login)
    guest.send(seek)
    text = (await loop.run_in_executor(None, guest.read_until, rb"fics% ")).decode("latin-1")
    return guest, name, int(re.search(r"Your seek has been posted with index (\d+)", text).group(1))


async def close(conn, task, guests) -> None:
    """Log the guests off, close pychess's connection and end its reading task."""
    for g in guests:
        g.send("quit")
    conn.close()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


def seek_fields(seek) -> tuple:
    return (seek.index, seek.player.name, seek.minutes, seek.inc, seek.rated, seek.color,
            seek.game_type.fics_name, seek.rmin, seek.rmax, seek.automatic)


def record(transcript: list[str]) -> None:
    """Keep every line pychess's ``ICSTelnet`` writes (``C>``) and reads (``S<``)."""
    from pychess.ic.TimeSeal import ICSTelnet

    write, readline = ICSTelnet.write, ICSTelnet.readline

    def logged_write(self, string):
        transcript.append(f"C> {string}")
        return write(self, string)

    async def logged_readline(self):
        line = await readline(self)
        transcript.append(f"S< {line!r}")
        return line

    ICSTelnet.write, ICSTelnet.readline = logged_write, logged_readline


async def run(port: int, check: Checks, transcript: list[str]) -> None:
    from pychess.ic.FICSConnection import FICSMainConnection

    record(transcript)

    loop = asyncio.get_running_loop()

    async def blocking(fn, *args):
        return await loop.run_in_executor(None, fn, *args)

    early = Guest(port)
    early_name = await blocking(early.login)
    early.send("seek 2 12")
    await blocking(early.read_until, rb"fics% ")

    conn = FICSMainConnection("127.0.0.1", [port], False, "guest", "")
    seeks: dict[int, tuple] = {}
    removed: list[int] = []
    private: list[tuple] = []
    channel: list[tuple] = []
    task = asyncio.ensure_future(conn.start())
    if not await until(lambda: conn.isConnected(), 20):
        raise SystemExit("pychess did not log in")
    me = conn.getUsername()
    print("pychess logged in as", me, flush=True)
    conn.glm.connect("addSeek", lambda _m, s: seeks.__setitem__(s.index, seek_fields(s)))
    conn.glm.connect("removeSeek", lambda _m, i: removed.append(i))
    conn.cm.connect("privateMessage", lambda _m, name, _t, _a, text: private.append((name, text)))
    conn.cm.connect("channelMessage",
                    lambda _m, name, _a, isme, ch, text: channel.append((name, ch, text, isme)))

    # the seek posted before pychess came: in the burst answering its ``iset seekinfo 1``
    ok = await until(lambda: any(s.player.name == early_name for s in conn.seeks.seeks.values()))
    got = [seek_fields(s) for s in conn.seeks.seeks.values() if s.player.name == early_name]
    check("seek posted earlier, from the <sc>/<s> burst", ok and got[0][2:4] == (2, 12), got)

    a, a_name, a_id = await seeker(port, "seek 5 0")
    ok = await until(lambda: a_id in seeks)
    check("seek 5 0 in pychess's list", ok and seeks.get(a_id) ==
          (a_id, a_name, 5, 0, False, None, "blitz", 0, 9999, True), seeks.get(a_id))

    b, b_name, b_id = await seeker(port, "seek 3 0 white crazyhouse 0-2000 m")
    ok = await until(lambda: b_id in seeks)
    check("seek 3 0 white crazyhouse 0-2000 m in pychess's list", ok and seeks.get(b_id) ==
          (b_id, b_name, 3, 0, False, "white", "crazyhouse", 0, 2000, False), seeks.get(b_id))
    check("both in pychess's FICSSeeks", {a_id, b_id} <= set(conn.seeks.seeks.keys()),
          sorted(conn.seeks.seeks.keys()))

    b.send("unseek")
    await blocking(b.read_until, rb"fics% ")
    ok = await gone(conn, lambda: b_id in removed and b_id not in conn.seeks.seeks)
    check("unseek: pychess drops the seek", ok, f"removeSeek {removed}, list {sorted(conn.seeks.seeks)}")

    early.send("quit")
    ok = await gone(conn, lambda: not any(s.player.name == early_name
                                          for s in conn.seeks.seeks.values()))
    check("owner logs off: pychess drops the seek", ok, f"list {sorted(conn.seeks.seeks)}")

    # pychess's own seeks, as its "Send seek" button makes them (SeekManager.seek);
    # none matches the guest's 5 0 (that one would start a game at once)
    from pychess.ic import GAME_TYPES
    from pychess.Utils.const import WHITE
    for args, want in [((7, 0, GAME_TYPES["blitz"], False), (7, 0, None, "blitz", True)),
                       ((3, 2, GAME_TYPES["crazyhouse"], False, (0, 1800), WHITE, True),
                        (3, 2, "white", "crazyhouse", False)),
                       ((15, 5, GAME_TYPES["wild/fr"], False), (15, 5, None, "wild/fr", True))]:
        before = set(conn.seeks.seeks)
        conn.glm.seek(*args)
        ok = await until(lambda: any(s.player.name == me for i, s in conn.seeks.seeks.items()
                                     if i not in before))
        mine = [seek_fields(s) for i, s in conn.seeks.seeks.items() if i not in before]
        text = (await blocking(a.read_until, rf"{me} \(\S+\) seeking [^\n]*\n".encode())
                ).decode("latin-1")
        check(f"pychess's own seek {args[0]} {args[1]} {args[2].fics_name}: in its list (showownseek)"
              " and announced", ok and len(mine) == 1
              and (mine[0][2], mine[0][3], mine[0][5], mine[0][6], mine[0][9]) == want,
              (mine, text.strip().splitlines()[-1]))
    conn.client.run_command("unseek")
    ok = await gone(conn, lambda: not any(s.player.name == me for s in conn.seeks.seeks.values()))
    check("pychess's unseek empties its own seeks", ok, f"list {sorted(conn.seeks.seeks)}")

    # talk
    a.send(f"tell {me} hello from a guest")
    ok = await until(lambda: (a_name, "hello from a guest") in private)
    check("tell: privateMessage", ok, private)

    conn.cm.joinChannel("4")
    ok = await until(lambda: "4" in [str(c) for c in conn.lvm.getList("channel")], 5)
    a.send("+channel 4")
    await blocking(a.read_until, rb"fics% ")
    a.send("tell 4 hello channel four")
    ok = await until(lambda: (a_name, "4", "hello channel four", False) in channel)
    check("channel tell: channelMessage", ok, channel)

    conn.cm.tellPlayer(a_name, "hi back é")
    text = (await blocking(a.read_until, rb"tells you: [^\r\n]*\r\n")).decode("latin-1")
    check("pychess's tellPlayer reaches the guest", re.search(rf"{me}(\(U\))? tells you: hi back &#xe9;", text) is not None,
          text.strip().splitlines()[-1])

    # pychess answers the 5 0 seek as its seek list's "Accept" does: OfferManager.playIndex
    games: list = []
    conn.bm.connect("playGameCreated", lambda _m, game: games.append(game))
    conn.om.playIndex(a_id)
    ok = await until(lambda: bool(games), 10)
    got = [(g.gameno, g.wplayer.name, g.bplayer.name, g.minutes, g.inc, g.game_type.fics_name)
           for g in games]
    check("play N: pychess's BoardManager starts the game", ok and len(got) == 1
          and {got[0][1], got[0][2]} == {a_name, me} and got[0][3:] == (5, 0, "blitz"), got)
    ok = await until(lambda: a_id not in conn.seeks.seeks)
    check("the answered seek leaves pychess's list", ok, f"list {sorted(conn.seeks.seeks)}")
    await blocking(a.read_until, rb"\{Game \d+ \(")
    a.send("say good luck")
    ok = await until(lambda: (a_name, "good luck") in private)
    check("say during the game: privateMessage", ok, private)

    await close(conn, task, (a, b))


def check_live(description: str, run, serve_args: tuple[str, ...] = ()) -> int:
    """The command line of these tools: start the checkout's server, ``run(port, check,
    transcript)`` against it under asyncio, print the verdict; 1 if a check failed."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--checkout", type=Path, required=True)
    p.add_argument("--transcript", type=Path, help="write pychess's lines both ways here")
    args = p.parse_args()
    transcript: list[str] = []
    port = free_port()
    server = subprocess.Popen([str(args.checkout / ".venv/bin/ficsfen"), "serve", "--lang", "en", "--web", "none",
                               *serve_args, "--listen", f"tcp:{port}:interface=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    check = Checks()
    try:
        asyncio.run(asyncio.wait_for(run(port, check, transcript), 180))
    finally:
        if args.transcript:
            args.transcript.write_text("\n".join(transcript) + "\n")
        server.terminate()
        server.wait(10)
    print("all OK" if not check.failed else f"FAILED: {', '.join(check.failed)}")
    return 1 if check.failed else 0


def main() -> int:
    return check_live(__doc__.splitlines()[0], run)


if __name__ == "__main__":
    sys.exit(main())
