#!/usr/bin/env python3
"""Run Debian's ICS clients (xboard, zippy, pychess, eboard) against ``ficsfen serve``.

    python3 tools/clients/run.py --checkout /path/to/ficsfen [--out /tmp/clients-RUN]
                                 [--only xboard-guest,xboard-registered,xboard-strip,zippy,zippy-strip,pychess,pychess-timeseal,
                                  eboard,eboard-timeseal,xboard-play,eboard-play,eboard-play-timeseal,
                                  pychess-play,pychess-play-timeseal,xboard-tell,pychess-seek]
    python3 tools/clients/run.py --checkout /path/to/ficsfen --cluster     # or --only cluster-...

Starts the checkout's ``.venv/bin/ficsfen serve`` on a free loopback port with
two registered accounts (zipa/zpass1, zipb/zpass2), an Xvfb display, and for
each scenario a logging proxy (``proxy.py``) between the client and the
server, so every byte both ways lands in ``OUT/SCENARIO/traffic/``.  Each
scenario is bounded in time and stops what it started.  With ``--cluster`` (or
``cluster-*`` scenarios) there are two nodes sharing a Redis and a PostgreSQL
(``cluster.py``): the clients on node B, the scripted players on node A.
See README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import boardcheck  # noqa: E402
import cluster  # noqa: E402

ACCOUNTS = {"zipa": "zpass1", "zipb": "zpass2"}
XBOARD = "/usr/games/xboard"
DEFAULT_PGN = HERE.parents[2] / "shared" / "data" / "pgn" / "kasparov-deep-blue-1997.pgn"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"nothing listens on port {port}")


def wait_for(predicate, timeout: float, step: float = 0.3):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(step)
    return None


class Procs:
    """Processes started by this run, stopped in reverse order (by pid, process group)."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def start(self, argv: list[str], log: Path, **kw) -> subprocess.Popen:
        kw.setdefault("stdout", log.open("wb"))
        kw.setdefault("stderr", subprocess.STDOUT)
        proc = subprocess.Popen(argv, start_new_session=True, **kw)
        self.procs.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        if proc in self.procs:
            self.procs.remove(proc)

    def stop_all(self) -> None:
        for proc in reversed(list(self.procs)):
            self.stop(proc)


class Run:
    def __init__(self, checkout: Path, out: Path, pgn: Path) -> None:
        self.checkout, self.out, self.pgn = checkout, out, pgn
        self.ficsfen = checkout / ".venv/bin/ficsfen"
        self.python = checkout / ".venv/bin/python"
        self.procs = Procs()
        #: The port clients connect to (through their proxy), and the one the scripted
        #: players and guests use: the same server, or nodes B and A of a cluster.
        self.port = self.player_port = free_port()
        self.cluster: dict | None = None
        self.display = ""
        self.results: dict[str, dict] = {}
        #: Whether the scripted players log in as the registered accounts and play rated.
        self.rated = False

    # -- shared infrastructure -------------------------------------------------
    def config_text(self, node: str | None = None, namespace: str = "") -> str:
        """A server's configuration: the two accounts, and a cluster node's ``[cluster]``."""
        if not hasattr(self, "_accounts"):
            self._accounts = [
                f'{name} = "' + subprocess.run([str(self.ficsfen), "serve", "--hash-password"],
                                               input=password, capture_output=True, text=True,
                                               check=True).stdout.strip() + '"'
                for name, password in ACCOUNTS.items()]
        lines = ["[accounts]", *self._accounts]
        if node is not None:
            lines += ["", "[cluster]", f'node = "{node}"', f'namespace = "{namespace}"']
        return "\n".join(lines) + "\n"

    def start_cluster(self) -> None:
        """Redis, PostgreSQL and nodes A and B (``cluster.py``): clients on B, players on A."""
        ports = cluster.start(self, free_port, self.config_text)
        self.player_port, self.port = ports["A"], ports["B"]

    def start_server(self) -> None:
        config = self.out / "ficsfen.toml"
        config.write_text(self.config_text())
        self.procs.start([str(self.ficsfen), "serve", "--config", str(config), "--lang", "en", "--web", "none",
                          "--listen", f"tcp:{self.port}:interface=127.0.0.1",
                          # a fresh store per run; its accounts come from the TOML's [accounts]
                          "--data", str(self.out / "ficsfen.sqlite3")], self.out / "server.log")
        wait_port(self.port)

    def start_xvfb(self) -> None:
        read, write = os.pipe()
        self.procs.start(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                          "-nolisten", "tcp"], self.out / "xvfb.log", pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as f:
            self.display = ":" + f.readline().strip()

    def env(self, home: Path) -> dict[str, str]:
        home.mkdir(parents=True, exist_ok=True)
        path = os.environ.get("PATH", "/usr/bin:/bin")
        env = dict(os.environ, HOME=str(home), DISPLAY=self.display, LANG="C.UTF-8",
                   PATH=path if "/usr/games" in path.split(":") else path + ":/usr/games",
                   XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
                   XDG_CACHE_HOME=str(home / ".cache"), NO_AT_BRIDGE="1")
        env.pop("XAUTHORITY", None)
        return env

    def proxy(self, folder: Path, tag: str, *extra: str) -> int:
        port = free_port()
        out = folder / f"proxy-{tag}.out"
        self.procs.start([sys.executable, str(HERE / "proxy.py"), str(port), str(self.port),
                          str(folder / "traffic"), "--tag", tag, *extra], out)
        # Wait for its "listening" line: a test connection would make a log of its own.
        if not wait_for(lambda: out.exists() and "proxy" in out.read_text(), 20):
            raise TimeoutError(f"proxy for {tag} did not start")
        return port

    def shot(self, folder: Path, name: str) -> Path:
        path = folder / f"{name}.png"
        subprocess.run(["import", "-display", self.display, "-window", "root", str(path)],
                       check=False, timeout=30)
        return path

    def xdotool(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env=dict(os.environ, DISPLAY=self.display),
                              capture_output=True, text=True, timeout=10).stdout

    def players(self, folder: Path, plies: int, delay: float,
                go_timeout: float = 90) -> tuple[subprocess.Popen, Path, Path]:
        state, go = folder / "players-state.json", folder / "go"
        proc = self.procs.start([str(self.python), str(HERE / "players.py"), "--port", str(self.player_port),
                                 "--pgn", str(self.pgn), "--plies", str(plies), "--delay", str(delay),
                                 "--state", str(state), "--go", str(go), "--go-timeout", str(go_timeout),
                                 *(["--rated", ",".join(f"{n}:{p}" for n, p in ACCOUNTS.items())]
                                   if self.rated else [])],
                                folder / "players.out")
        return proc, state, go

    @staticmethod
    def read_state(state: Path) -> dict:
        try:
            return json.loads(state.read_text())
        except (OSError, ValueError):
            return {}

    # -- xboard observing a game ----------------------------------------------
    def xboard_observe(self, name: str, logon: str, strip: bool = False, every_ply: bool = False) -> dict:
        """xboard observes a game of two scripted players; ``every_ply``: the moves 2 s
        apart and xboard's board read (boardcheck) at every ply, not only at the pause."""
        folder = self.out / name
        folder.mkdir()
        port = self.proxy(folder, name, *(["--strip-dollar"] if strip else []))
        result: dict = {"scenario": name, "dollar_stripped_by_proxy": strip}
        # every_ply: the pause may come long after the start (a screenshot per ply)
        players, state, go = self.players(folder, plies=30, delay=2.0 if every_ply else 0.6,
                                          go_timeout=400 if every_ply else 90)
        created = wait_for(lambda: self.read_state(state).get("game"), 30)
        if not created:
            result["error"] = "players could not create a game (see players.out)"
            self.procs.stop(players)
            return result
        logon_file = folder / "logon.txt"
        logon_file.write_text(logon)
        xb = self.procs.start([XBOARD, "-ics", "-icshost", "127.0.0.1", "-icsport", str(port),
                               "-icslogon", str(logon_file), "-debugMode", "true",
                               "-nameOfDebugFile", str(folder / "xboard.debug"),
                               "-popupExitMessage", "false", "-autoRaiseBoard", "false",
                               *boardcheck.XBOARD_COLOURS],
                              folder / "xboard.out", stdin=subprocess.PIPE, cwd=folder,
                              env=self.env(folder / "home"))
        logged = wait_for(lambda: "Starting FICS session" in self.traffic(folder), 20)
        result["logged_in"] = bool(logged)
        time.sleep(2)
        self.xdotool("mousemove", "1270", "1010")
        xb.stdin.write(f"observe {created}\n".encode())     # typed in xboard's terminal
        xb.stdin.flush()
        time.sleep(3)
        shots = [self.shot(folder, "01-observing")]
        go.touch()
        if every_ply:
            check = self.board_checker(folder, state, result, shots)
            for ply in range(1, 31):
                if not wait_for(lambda ply=ply: self.read_state(state).get("ply", 0) >= ply, 30):
                    break
                time.sleep(0.8)
                check(f"ply-{ply:02d}")
        wait_for(lambda: self.read_state(state).get("ply", 0) >= 14, 60)
        time.sleep(0.3)
        shots.append(self.shot(folder, "02-mid-game"))
        st = wait_for(lambda: (s := self.read_state(state)).get("phase") == "paused" and s, 90) or {}
        time.sleep(3)
        shots.append(self.shot(folder, "03-paused"))
        if st:
            check = boardcheck.compare(str(shots[-1]), st["fen"])
            result["board_vs_game"] = {k: v for k, v in check.items() if k not in ("seen", "want")}
            result["board_seen"] = check.get("seen")
            result["game_fen"] = st["fen"]
        Path(str(go) + ".end").touch()
        done = wait_for(lambda: self.read_state(state).get("phase") == "done", 20)
        time.sleep(3)
        shots.append(self.shot(folder, "04-after-resign"))
        result["game_result"] = self.read_state(state).get("result") if done else None
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(xb)
        self.procs.stop(players)
        return result

    # -- two zippy engines ------------------------------------------------------
    def zippy(self, name: str, strip: bool) -> dict:
        folder = self.out / name
        folder.mkdir()
        result: dict = {"scenario": name, "dollar_stripped_by_proxy": strip}
        xbs = {}
        for handle, password in ACCOUNTS.items():
            port = self.proxy(folder, handle, *(["--strip-dollar"] if strip else []))
            logon = folder / f"logon-{handle}.txt"
            logon.write_text(f"{handle}\n{password}\n")
            xbs[handle] = self.procs.start(
                [XBOARD, "-ics", "-icshost", "127.0.0.1", "-icsport", str(port), "-icslogon", str(logon),
                 "-zp", "-fcp", "/usr/games/stockfish", "-fUCI", "-autoCallFlag", "true",
                 "-zippyTalk", "false", "-debugMode", "true",
                 "-nameOfDebugFile", str(folder / f"xboard-{handle}.debug"),
                 "-popupExitMessage", "false", "-autoRaiseBoard", "false", *boardcheck.XBOARD_COLOURS],
                folder / f"xboard-{handle}.out", stdin=subprocess.PIPE, cwd=folder,
                env=self.env(folder / f"home-{handle}"))
            time.sleep(1)
        result["logged_in"] = {h: bool(wait_for(lambda h=h: "Starting FICS session" in self.traffic(folder, h), 20))
                               for h in xbs}
        time.sleep(3)
        dead = {h: (folder / f"xboard-{h}.out").read_text(errors="replace")[-400:]
                for h, proc in xbs.items() if proc.poll() is not None}
        if dead:
            result["error"] = f"xboard exited: {dead}"
            return result
        xbs["zipa"].stdin.write(b"match zipb 1 0\n")
        xbs["zipa"].stdin.flush()
        started = wait_for(lambda: "Creating:" in self.traffic(folder, "zipa"), 25)
        result["game_started"] = bool(started)
        shots = [self.shot(folder, "01-after-match")]
        if started:
            end = re.compile(r"\{Game \d+ \([^)]*\) ([^}]*)\} (1-0|0-1|1/2-1/2|\*)")
            found = wait_for(lambda: end.search(self.traffic(folder, "zipa")), 240, step=1)
            result["game_end"] = found.group(0) if found else "no result within 240 s"
            time.sleep(2)
            shots.append(self.shot(folder, "02-end"))
        else:
            result["zipb_replies_after_challenge"] = self.replies_matching(folder, "zipb", r"accept")
        result["screenshots"] = [str(p) for p in shots]
        for proc in xbs.values():
            self.procs.stop(proc)
        return result

    # -- pychess ----------------------------------------------------------------
    # Where pychess 1.0.3's lounge puts things once its window is moved to 0,0 and
    # sized 1280x1000 (there is no window manager): the "Game List" tab of the
    # left pane, and the first row of that list.  01-lounge.png and
    # 02-game-list.png show whether the clicks landed.
    PYCHESS_SIZE = (1280, 1000)
    PYCHESS_GAME_LIST_TAB = (277, 87)
    PYCHESS_FIRST_GAME_ROW = (125, 189)

    def pychess(self, name: str, timeseal: bool) -> dict:
        folder = self.out / name
        folder.mkdir()
        # pychess opens its second ("helper") connection, the one that asks for games,
        # players and seeks, only when the host is not localhost/127.0.0.1: use 127.0.0.2.
        port, home = self.pychess_home(folder, name, timeseal)
        players, state, go = self.players(folder, plies=30, delay=1.0)
        created = wait_for(lambda: self.read_state(state).get("game"), 30)
        result: dict = {"scenario": name, "timeseal": timeseal, "game_for_observing": created}
        if shutil.which("ping") is None:
            result["warning"] = ("no ping on PATH: pychess's lounge stops after `finger` "
                                 "(install iputils-ping)")
        proc = self.procs.start(["/usr/games/pychess", "--no-version-check", "--log-debug",
                                 "--ics-host", "127.0.0.2", "--ics-port", str(port)],
                                folder / "pychess.out", cwd=folder, env=self.env(home))
        result["logged_in"] = bool(wait_for(lambda: "Starting FICS session" in self.traffic(folder), 45))
        # pychess's own log says when its helper connection has read the game list.
        logs = home / ".local/share/pychess"
        listed = wait_for(lambda: any("'on_game_list')" in log.read_text(errors="replace")
                                      for log in logs.glob("*.log")), 30)
        result["game_list_parsed_by_pychess"] = bool(listed)
        time.sleep(4)
        shots = []
        if win := self.window("PyChess"):
            wid = win[0]
            self.xdotool("windowmove", wid, "0", "0")
            self.xdotool("windowsize", wid, *map(str, self.PYCHESS_SIZE))
            time.sleep(2)
        shots.append(self.shot(folder, "01-lounge"))
        self.click(*self.PYCHESS_GAME_LIST_TAB)
        time.sleep(2)
        shots.append(self.shot(folder, "02-game-list"))
        self.xdotool("mousemove", *map(str, self.PYCHESS_FIRST_GAME_ROW),
                     "click", "--repeat", "2", "--delay", "80", "1")
        observing = wait_for(lambda: "You are now observing game" in self.traffic(folder), 15)
        result["observe_sent_by_double_click"] = bool(observing)
        time.sleep(4)
        shots.append(self.shot(folder, "03-observing"))
        go.touch()
        wait_for(lambda: self.read_state(state).get("ply", 0) >= 14, 60)
        time.sleep(1)
        shots.append(self.shot(folder, "04-mid-game"))
        st = wait_for(lambda: (s := self.read_state(state)).get("phase") == "paused" and s, 90) or {}
        time.sleep(3)
        shots.append(self.shot(folder, "05-paused"))
        result["game_fen_at_pause"] = st.get("fen")
        result["moves_at_pause"] = " ".join(st.get("moves", []))
        Path(str(go) + ".end").touch()
        done = wait_for(lambda: self.read_state(state).get("phase") == "done", 20)
        time.sleep(3)
        shots.append(self.shot(folder, "06-after-resign"))
        result["game_result"] = self.read_state(state).get("result") if done else None
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(proc)
        self.procs.stop(players)
        for log in logs.glob("*.log"):
            shutil.copy(log, folder / f"pychess-{log.name}")
        return result

    # -- eboard -----------------------------------------------------------------
    def eboard(self, name: str, timeseal: bool) -> dict:
        folder = self.out / name
        folder.mkdir()
        port = self.proxy(folder, name)
        home = folder / "home"
        players, state, go = self.players(folder, plies=30, delay=1.0)
        created = wait_for(lambda: self.read_state(state).get("game"), 30)
        result: dict = {"scenario": name, "timeseal": timeseal, "game_for_observing": created}
        proc = self.procs.start(["/usr/games/eboard", "-log", "-debug"], folder / "eboard.out",
                                cwd=folder, env=self.env(home))
        time.sleep(6)
        shots = [self.shot(folder, "01-started")]
        result["driven"] = self.drive_eboard(folder, port, timeseal, shots)
        result["logged_in"] = "Starting FICS session" in self.traffic(folder)
        self.eboard_command("games")
        time.sleep(3)
        self.eboard_command(f"observe {created}")
        time.sleep(2)
        go.touch()
        time.sleep(4)
        shots.append(self.shot(folder, "05-observing"))
        self.eboard_command(f"games {created}")
        self.eboard_command(f"moves {created}")
        wait_for(lambda: self.read_state(state).get("phase") == "paused", 60)
        time.sleep(2)
        shots.append(self.shot(folder, "06-paused"))
        result["game_fen"] = self.read_state(state).get("fen")
        Path(str(go) + ".end").touch()
        time.sleep(4)
        shots.append(self.shot(folder, "07-after-resign"))
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(proc)
        self.procs.stop(players)
        for log in ("LOG.eboard", "DEBUG.eboard"):
            if (home / log).exists():
                shutil.copy(home / log, folder / log)
        return result

    def window(self, title: str) -> tuple[str, int, int] | None:
        wins = self.xdotool("search", "--onlyvisible", "--name", title).split()
        if not wins:
            return None
        geo = dict(line.split("=", 1) for line in
                   self.xdotool("getwindowgeometry", "--shell", wins[0]).split())
        return wins[0], int(geo["X"]), int(geo["Y"])

    def click(self, x: int, y: int, times: int = 1) -> None:
        self.xdotool("mousemove", str(x), str(y), "click", "--repeat", str(times), "1")

    def eboard_command(self, text: str) -> None:
        """Type a line in eboard's command entry (below the board, window at 0,0)."""
        self.click(430, 550)
        self.xdotool("type", "--delay", "30", text)
        self.xdotool("key", "Return")
        time.sleep(1)

    def drive_eboard(self, folder: Path, port: int, timeseal: bool, shots: list[Path]) -> str:
        """Peer > Connect to Other Server..., host/port/protocol, then log in as guest.

        Coordinates are eboard 1.1.3's default layout (800x600 main window at 0,0, no
        window manager); the screenshots show each step.
        """
        if help_win := self.window("Help: Getting Started"):
            _, x, y = help_win
            self.click(x + 583, y + 534)              # its Close button
            time.sleep(1)
        self.click(26, 15)                            # Peer menu
        time.sleep(1)
        self.click(118, 85)                           # Connect to Other Server...
        time.sleep(2)
        dialog = self.window("Connect to ICS Server")
        if dialog is None:
            return "the Connect to ICS Server dialog did not open"
        _, x, y = dialog
        self.click(x + 95, y + 37)                    # Hostname
        self.xdotool("type", "127.0.0.1")
        self.click(x + 95, y + 87, 3)                 # TCP Port (select all)
        self.xdotool("key", "ctrl+a")
        self.xdotool("type", str(port))
        self.click(x + 174, y + 137)                  # Protocol list
        time.sleep(1)
        self.click(x + 85, y + (163 if timeseal else 184))   # "FICS" / "FICS without timeseal"
        time.sleep(0.5)
        shots.append(self.shot(folder, "02-connect-dialog"))
        self.click(x + 340, y + 254)                  # Connect
        time.sleep(4)
        shots.append(self.shot(folder, "03-connected"))
        self.eboard_command("guest")
        time.sleep(1)
        self.eboard_command("")
        time.sleep(3)
        shots.append(self.shot(folder, "04-logged-in"))
        return "connected through the dialog"

    # -- playing a game against a scripted opponent --------------------------------
    # Scholar's mate: the client plays White (its moves are made on its own board,
    # by dragging pieces with xdotool), the scripted opponent (players.py
    # --opponent) Black.
    CLIENT_MOVES = [("e2", "e4"), ("f1", "c4"), ("d1", "h5"), ("h5", "f7")]
    OPPONENT_REPLIES = "e5 Nc6 Nf6"
    MATE_FEN = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b"
    # eboard 1.1.3's default layout (window at 0,0, no window manager): the main
    # board's top left corner and square size; its squares are textured, so they
    # are not found by colour.  01-board.png shows whether the geometry fits.
    EBOARD_BOARD = (2.0, 34.0, 57.0, 57.0)
    # pychess 1.0.3's light squares (its board is found by their bounding box:
    # a8 and h1 are light, so they span the whole board).
    PYCHESS_LIGHT = (204, 183, 110)
    # The Accept button of pychess's challenge bar (window 1280x1000 at 0,0).
    PYCHESS_ACCEPT = (1032, 90)

    def opponent(self, folder: Path, client: str, invite: str = "match",
                 delay: float = 0.5) -> tuple[subprocess.Popen, Path]:
        """The scripted Black (``players.py --opponent``): it challenges ``client``
        (``invite="match"``), posts a seek for it (``"seek"``) or waits for its
        challenge (``"wait"``)."""
        state = folder / "opponent-state.json"
        proc = self.procs.start([str(self.python), str(HERE / "players.py"), "--port", str(self.player_port),
                                 "--opponent", client, "--replies", self.OPPONENT_REPLIES,
                                 "--colour", "black", "--time", "5 0", "--delay", str(delay),
                                 "--invite", invite, "--state", str(state), "--timeout", "200"],
                                folder / "opponent.out")
        return proc, state

    def invite_client(self, folder: Path, state: Path, invite: str, result: dict,
                      typed: Callable[[str], None] | None = None) -> None:
        """What the client sees or does before the game: the opponent's challenge
        (``"match"``), its seek's ``<s>`` line (``"seek"``), or, for ``"wait"``, the
        client's own ``match OPPONENT 5 0 white`` typed with ``typed``."""
        if invite == "match":
            result["challenge_seen"] = bool(wait_for(lambda: "Challenge:" in self.traffic(folder), 20))
        elif invite == "seek":
            st = wait_for(lambda: (s := self.read_state(state)).get("phase") == "seeking" and s, 20) or {}
            result["seek_seen"] = bool(st and wait_for(
                lambda: re.search(rf"<s> \d+ w={st['opponent']} ", self.traffic(folder)), 20))
        else:
            st = wait_for(lambda: (s := self.read_state(state)).get("phase") == "waiting" and s, 20) or {}
            if st and typed is not None:
                typed(f"match {st['opponent']} 5 0 white")
                result["match_typed"] = f"match {st['opponent']} 5 0 white"
                result["issued_seen"] = bool(wait_for(lambda: "Issuing:" in self.traffic(folder), 20))

    def client_handle(self, folder: Path, timeout: float = 45) -> str | None:
        found = wait_for(lambda: re.search(r"Starting FICS session as (\w+)", self.traffic(folder)),
                         timeout)
        return found.group(1) if found else None

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        """Press on ``start``, move in steps, release on ``end`` (a piece dragged by hand)."""
        (x0, y0), (x1, y1) = start, end
        args = ["mousemove", str(x0), str(y0), "mousedown", "1", "sleep", "0.2"]
        for k in range(1, 6):
            args += ["mousemove", str(x0 + (x1 - x0) * k // 5), str(y0 + (y1 - y0) * k // 5),
                     "sleep", "0.05"]
        args += ["sleep", "0.2", "mouseup", "1"]
        self.xdotool(*args)

    def play_moves(self, folder: Path, state: Path, geometry, result: dict, shots: list[Path],
                   flipped: bool = False, check: Callable[[str], None] | None = None) -> None:
        """Drag the client's moves on its board, each once the opponent's reply is in;
        ``check(label)`` (if given) once each position is in, before the next move."""
        result["moves_made_on_the_board"] = []
        for i, (a, b) in enumerate(self.CLIENT_MOVES):
            if not wait_for(lambda: self.read_state(state).get("ply", -1) >= 2 * i, 30):
                result["stuck_at"] = f"waiting for ply {2 * i}: {self.read_state(state)}"
                return
            time.sleep(1)
            if check is not None:
                check(f"ply-{2 * i:02d}")
            self.drag(boardcheck.square_centre(geometry, a, flipped),
                      boardcheck.square_centre(geometry, b, flipped))
            moved = wait_for(lambda: self.read_state(state).get("ply", -1) >= 2 * i + 1, 10)
            result["moves_made_on_the_board"].append(f"{a}{b}: {'sent' if moved else 'not sent'}")
            if moved and check is not None:
                time.sleep(0.5)
                check(f"ply-{2 * i + 1:02d}")
            if not moved:
                time.sleep(1)
                shots.append(self.shot(folder, f"move-{i + 1}-not-sent"))
                result["stuck_at"] = f"{a}{b} did not reach the server"
                return
            if i == 1:
                time.sleep(1)
                shots.append(self.shot(folder, "02-mid-game"))

    def board_checker(self, folder: Path, state: Path, result: dict,
                      shots: list[Path]) -> Callable[[str], None]:
        """``check(label)``: a screenshot of xboard's board compared (boardcheck) with the
        FEN the scripted side last recorded in ``state``; in ``result["boards"]``."""
        boards = result.setdefault("boards", {})

        def check(label: str) -> None:
            for _ in range(2):  # once more if a move came during the screenshot
                before = self.read_state(state)
                shot = self.shot(folder, label)
                after = self.read_state(state)
                if before.get("ply") == after.get("ply"):
                    break
                time.sleep(0.8)
            shots.append(shot)
            if before.get("ply") != after.get("ply") or not after.get("fen"):
                boards[label] = f"not compared: ply {before.get('ply')} -> {after.get('ply')}"
                return
            seen = boardcheck.compare(str(shot), after["fen"])
            boards[label] = (f"ply {after['ply']} matches" if seen.get("matches_fen") else
                             {"ply": after["ply"], "fen": after["fen"],
                              **{k: v for k, v in seen.items() if k not in ("want",)}})
        return check

    def finish_play(self, folder: Path, state: Path, result: dict, shots: list[Path]) -> None:
        done = wait_for(lambda: (s := self.read_state(state)).get("phase") == "done" and s, 15) or {}
        result["result_line"] = done.get("result")
        result["final_fen_seen_by_opponent"] = self.read_state(state).get("fen")
        result["mate_reached"] = self.read_state(state).get("fen") == self.MATE_FEN
        time.sleep(3)
        shots.append(self.shot(folder, "03-end"))
        result["server_errors_to_client"] = [
            line for line in self.traffic(folder).splitlines()
            if re.search(r"Illegal|not found|Unknown|Usage|cannot|There is no|not observing", line)][:12]

    def xboard_guest(self, name: str, result: dict) -> tuple[Path, subprocess.Popen, str | None]:
        """Scenario ``name``'s folder and xboard logged in there as a guest (through a proxy).

        ICS commands go to xboard's stdin.  The handle is None (xboard stopped,
        ``result["error"]`` set) if it did not log in.
        """
        folder = self.out / name
        folder.mkdir()
        port = self.proxy(folder, name)
        logon_file = folder / "logon.txt"
        logon_file.write_text("guest\n\n")
        xb = self.procs.start([XBOARD, "-ics", "-icshost", "127.0.0.1", "-icsport", str(port),
                               "-icslogon", str(logon_file), "-debugMode", "true",
                               "-nameOfDebugFile", str(folder / "xboard.debug"),
                               "-popupExitMessage", "false", "-autoRaiseBoard", "false",
                               *boardcheck.XBOARD_COLOURS],
                              folder / "xboard.out", stdin=subprocess.PIPE, cwd=folder,
                              env=self.env(folder / "home"))
        handle = result["client_handle"] = self.client_handle(folder)
        if handle is None:
            result["error"] = "xboard did not log in"
            self.procs.stop(xb)
        else:
            time.sleep(2)
        return folder, xb, handle

    def xboard_play(self, name: str, invite: str = "match", check_boards: bool = False) -> dict:
        """xboard plays scholar's mate against ``players.py --opponent`` (see ``opponent``
        for ``invite``); ``check_boards``: its board read (boardcheck) at every ply."""
        result: dict = {"scenario": name, "invite": invite}
        folder, xb, handle = self.xboard_guest(name, result)
        if handle is None:
            return result

        def typed(line: str) -> None:              # typed in xboard's ICS console (stdin)
            xb.stdin.write(line.encode() + b"\n")
            xb.stdin.flush()

        opp, state = self.opponent(folder, handle, invite, delay=3.0 if check_boards else 0.5)
        self.invite_client(folder, state, invite, result, typed)
        if invite == "match":
            typed("accept")
        result["game_started"] = bool(wait_for(lambda: self.read_state(state).get("phase") == "playing", 15))
        time.sleep(3)
        self.xdotool("mousemove", "1270", "1010")
        shots = [self.shot(folder, "01-board")]
        geometry = boardcheck.board_geometry(str(shots[0]))
        result["board_geometry"] = geometry
        check = self.board_checker(folder, state, result, shots) if check_boards else None
        if geometry and result["game_started"]:
            self.play_moves(folder, state, geometry, result, shots, check=check)
        self.finish_play(folder, state, result, shots)
        if check is not None:
            check("ply-07-end")
        debug = (folder / "xboard.debug").read_text(errors="replace") if (folder / "xboard.debug").exists() else ""
        result["xboard_moves_sent"] = re.findall(r">ICS: ([a-h][1-8][a-h][1-8]\w?)", debug)
        result["xboard_game_end"] = re.findall(r"GameEnds\(([^)]*)\)", debug)[-3:]
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(xb)
        self.procs.stop(opp)
        return result

    def xboard_talk(self, name: str) -> dict:
        """Tells, a channel and a seek between xboard (as a guest) and a scripted guest."""
        from pychess_check import Guest
        result: dict = {"scenario": name}
        folder, xb, handle = self.xboard_guest(name, result)
        if handle is None:
            return result
        guest = Guest(self.player_port)
        gname = result["guest"] = guest.login()
        heard = (folder / "guest-heard.txt").open("w")

        def typed(line: str) -> None:              # typed in xboard's ICS console (stdin)
            xb.stdin.write(line.encode() + b"\n")
            xb.stdin.flush()

        def guest_reads(pattern: bytes) -> str | None:
            try:
                text = guest.read_until(pattern, 15).decode("latin-1")
            except (TimeoutError, ConnectionError) as exc:
                heard.write(f"[{exc}]\n")
                return None
            heard.write(text)
            heard.flush()
            return text.strip().splitlines()[-1]

        def xboard_shows(text: str) -> bool:
            return bool(wait_for(lambda: text in (folder / "xboard.out").read_text(errors="replace"), 15))

        guest.send(f"tell {handle} hello xboard, from a guest")
        result["tell_in_xboard_console"] = xboard_shows("tells you: hello xboard, from a guest")
        typed(f"tell {gname} hi back")
        result["guest_got_tell"] = guest_reads(rb"tells you: hi back[^\n]*\n")
        guest.send("+channel 4")
        guest_reads(rb"fics% ")
        typed("+channel 4")
        time.sleep(1)
        typed("tell 4 hello channel four")
        result["guest_got_channel_tell"] = guest_reads(rb"\(4\): hello channel four[^\n]*\n")
        guest.send("tell 4 and hello from the guest")
        result["channel_tell_in_xboard_console"] = xboard_shows("(4): and hello from the guest")
        time.sleep(1)
        shots = [self.shot(folder, "01-after-talk")]
        typed("seek 5 0")
        announced = guest_reads(rb'seeking 5 0 [^\n]*"play (\d+)" to respond\)[^\n]*\n')
        result["guest_saw_seek"] = announced
        if announced and (m := re.search(r'"play (\d+)"', announced)):
            guest.send(f"play {m.group(1)}")
            result["game_line"] = guest_reads(rb"\{Game \d+ \([^\n]*\n")
            result["game_in_xboard_console"] = xboard_shows("Creating unrated blitz match.")
            time.sleep(3)
            guest.send("say good luck from the guest")
            result["say_in_xboard_console"] = xboard_shows("says: good luck from the guest")
            typed("say thanks")
            result["guest_got_say"] = guest_reads(rb"says: thanks[^\n]*\n")
            self.xdotool("mousemove", "1270", "1010")
            shots.append(self.shot(folder, "02-seek-game"))
            guest.send("resign")
            guest_reads(rb"resigns\} [^\n]*\n")
        result["xboard_console_lines"] = [
            line.strip() for line in (folder / "xboard.out").read_text(errors="replace").splitlines()
            if re.search(r"tells you|\(4\)|says:|seek|Creating|\{Game|told", line)][:20]
        result["screenshots"] = [str(p) for p in shots]
        guest.send("quit")
        heard.close()
        self.procs.stop(xb)
        return result

    def eboard_play(self, name: str, timeseal: bool, invite: str = "match") -> dict:
        """eboard plays scholar's mate against ``players.py --opponent`` (see ``opponent``
        for ``invite``; ``"wait"``: ``match`` typed in eboard's command line)."""
        folder = self.out / name
        folder.mkdir()
        port = self.proxy(folder, name)
        home = folder / "home"
        result: dict = {"scenario": name, "timeseal": timeseal, "invite": invite}
        proc = self.procs.start(["/usr/games/eboard", "-log", "-debug"], folder / "eboard.out",
                                cwd=folder, env=self.env(home))
        time.sleep(6)
        shots = [self.shot(folder, "00-started")]
        result["driven"] = self.drive_eboard(folder, port, timeseal, shots)
        handle = result["client_handle"] = self.client_handle(folder, 15)
        if handle is None:
            result["error"] = "eboard did not log in"
            self.procs.stop(proc)
            return result
        opp, state = self.opponent(folder, handle, invite)
        self.invite_client(folder, state, invite, result, self.eboard_command)
        if invite == "match":
            time.sleep(1)
            self.eboard_command("accept")             # typed in eboard's command line
        result["game_started"] = bool(wait_for(lambda: self.read_state(state).get("phase") == "playing", 15))
        time.sleep(3)
        shots.append(self.shot(folder, "01-board"))
        if result["game_started"]:
            self.play_moves(folder, state, self.EBOARD_BOARD, result, shots)
        self.finish_play(folder, state, result, shots)
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(proc)
        self.procs.stop(opp)
        for log in ("LOG.eboard", "DEBUG.eboard"):
            if (home / log).exists():
                shutil.copy(home / log, folder / log)
        return result

    def pychess_home(self, folder: Path, name: str, timeseal: bool) -> tuple[int, Path]:
        """A proxy on 127.0.0.2 and a HOME whose pychess config logs in as a guest at once."""
        port = self.proxy(folder, name, "--host", "127.0.0.2")
        home = folder / "home"
        conf = home / ".config/pychess/config"
        conf.parent.mkdir(parents=True)
        conf.write_text("[General]\nautoLogin = True\nshow_tip_at_startup = False\n"
                        "dont_show_externals_at_startup = True\n\n"
                        f"[FICS]\ntimesealCheck = {timeseal}\nhostEntry = 127.0.0.2\n"
                        "usernameEntry = \npasswordEntry = \nasGuestCheck = True\n\n"
                        "[ICC]\ntimesealCheck = False\n")
        return port, home

    def pychess_lounge(self, folder: Path, name: str, timeseal: bool,
                       result: dict) -> tuple[subprocess.Popen, str | None]:
        """pychess logged in as a guest (auto-login config), its window at 0,0 and 1280x1000.

        The handle is None (and pychess stopped, ``result["error"]`` set) if it did not log in.
        """
        port, home = self.pychess_home(folder, name, timeseal)
        proc = self.procs.start(["/usr/games/pychess", "--no-version-check", "--log-debug",
                                 "--ics-host", "127.0.0.2", "--ics-port", str(port)],
                                folder / "pychess.out", cwd=folder, env=self.env(home))
        handle = result["client_handle"] = self.client_handle(folder)
        if handle is None:
            result["error"] = "pychess did not log in"
            self.procs.stop(proc)
            return proc, None
        time.sleep(8)
        if win := self.window("PyChess"):
            self.xdotool("windowmove", win[0], "0", "0")
            self.xdotool("windowsize", win[0], *map(str, self.PYCHESS_SIZE))
            time.sleep(2)
        return proc, handle

    def pychess_play(self, name: str, timeseal: bool, invite: str = "match") -> dict:
        """pychess plays scholar's mate against ``players.py --opponent``: its challenge
        accepted with pychess's Accept button, or (``invite="seek"``) its seek answered
        with a double-click in pychess's seek list."""
        folder = self.out / name
        folder.mkdir()
        result: dict = {"scenario": name, "timeseal": timeseal, "invite": invite}
        home = folder / "home"
        proc, handle = self.pychess_lounge(folder, name, timeseal, result)
        if handle is None:
            return result
        shots = [self.shot(folder, "00-lounge")]
        opp, state = self.opponent(folder, handle, invite)
        self.invite_client(folder, state, invite, result)
        time.sleep(3)
        if invite == "seek":
            self.pychess_double_click_seek(folder, result, shots)
        else:
            shots.append(self.shot(folder, "00-challenge"))
            self.pychess_accept(folder, result, shots)
        result["game_started"] = bool(wait_for(lambda: self.read_state(state).get("phase") == "playing", 15))
        time.sleep(5)
        shots.append(self.shot(folder, "01-board"))
        geometry = boardcheck.board_geometry(str(shots[-1]), self.PYCHESS_LIGHT, self.PYCHESS_LIGHT, 10)
        result["board_geometry"] = geometry
        if geometry and result["game_started"]:
            self.play_moves(folder, state, geometry, result, shots)
        self.finish_play(folder, state, result, shots)
        result["screenshots"] = [str(p) for p in shots]
        self.procs.stop(proc)
        self.procs.stop(opp)
        for log in (home / ".local/share/pychess").glob("*.log"):
            shutil.copy(log, folder / f"pychess-{log.name}")
        return result

    # pychess 1.0.3's lounge at 1280x1000: its left pane's tab strip shows the "Seek
    # Graph" tab at the left edge (the seek list's tab is scrolled out of sight), and the
    # seek list's first row; 01-seek-graph.png and 02-seek-list.png show them.
    PYCHESS_SEEK_TAB = (60, 87)
    PYCHESS_FIRST_SEEK_ROW = (125, 189)

    def pychess_seek(self, name: str) -> dict:
        """A scripted guest seeks 5 0; pychess lists it and answers it with a double-click."""
        from pychess_check import Guest
        folder = self.out / name
        folder.mkdir()
        result: dict = {"scenario": name}
        home = folder / "home"
        proc, handle = self.pychess_lounge(folder, name, False, result)
        if handle is None:
            return result
        guest = Guest(self.player_port)
        if self.rated:  # a registered seeker (rated in standard by the pychess scenario)
            gname = result["guest"] = guest.login_registered("zipa", ACCOUNTS["zipa"])
            guest.send("seek 15 0 u")
        else:
            gname = result["guest"] = guest.login()
            guest.send("seek 5 0")
        posted = guest.read_until(rb"fics% ").decode("latin-1")
        seek_id = re.search(r"posted with index (\d+)", posted)
        result["seek_posted"] = seek_id.group(0) if seek_id else posted.strip()
        seek_no = seek_id.group(1) if seek_id else "?"
        result["s_line_to_pychess"] = bool(wait_for(
            lambda: re.search(rf"<s> \d+ w={gname} ", self.traffic(folder)), 15))
        time.sleep(3)
        shots = []
        self.pychess_double_click_seek(folder, result, shots)
        try:
            result["guest_game_line"] = guest.read_until(rb"\{Game \d+ \([^\n]*\n", 15).decode(
                "latin-1").strip().splitlines()[-1]
        except (TimeoutError, ConnectionError) as exc:
            result["guest_game_line"] = f"none: {exc}"
        time.sleep(5)
        shots.append(self.shot(folder, "03-game"))
        result["seek_removed_to_pychess"] = bool(re.search(rf"<sr> (\d+ )*{seek_no}\b",
                                                                self.traffic(folder)))
        result["screenshots"] = [str(p) for p in shots]
        guest.send("quit")
        self.procs.stop(proc)
        for log in (home / ".local/share/pychess").glob("*.log"):
            shutil.copy(log, folder / f"pychess-{log.name}")
        return result

    def pychess_double_click_seek(self, folder: Path, result: dict, shots: list[Path]) -> None:
        """Screenshots of pychess's seek graph and seek list, and its first row
        double-clicked (pychess then sends ``play N``)."""
        shots.append(self.shot(folder, "01-seek-graph"))
        # The tab strip is scrolled to the "Seek Graph" tab; the seek list's tab is the one
        # before it: click the graph's tab, then Control+Page_Up (GTK's previous tab).
        self.click(*self.PYCHESS_SEEK_TAB)
        self.xdotool("key", "ctrl+Page_Up")
        time.sleep(2)
        shots.append(self.shot(folder, "02-seek-list"))
        self.click(*self.PYCHESS_FIRST_SEEK_ROW, times=2)
        result["play_sent_by_double_click"] = bool(wait_for(  # timeseal hides the line: the game then
            lambda: re.search(r"C> b'\d+ play \d+", "".join(
                p.read_text(errors="replace") for p in (folder / "traffic").glob("*.log")))
            or re.search(r"\{Game \d+ \([^)]*\) Creating", self.traffic(folder)), 10))

    def pychess_accept(self, folder: Path, result: dict, shots: list[Path]) -> None:
        """Click the Accept button of the bar pychess shows above its lounge for a
        challenge ("GuestX challenges you to a 5 min unrated Blitz game ...",
        00-challenge.png); with the window at 1280x1000 it is at the right end."""
        self.click(*self.PYCHESS_ACCEPT)
        result["accept_sent_by_click"] = bool(wait_for(
            lambda: "You accept the match offer" in self.traffic(folder), 10))

    # -- reports ----------------------------------------------------------------
    def traffic(self, folder: Path, tag: str | None = None) -> str:
        text = ""
        for log in sorted((folder / "traffic").glob(f"{tag or ''}*.log")):
            text += log.read_text(errors="replace")
        return _decode_log(text)

    def replies_matching(self, folder: Path, tag: str, word: str) -> list[str]:
        return [line for line in self.traffic(folder, tag).splitlines() if word in line][:10]


def _decode_log(text: str) -> str:
    """The server-to-client bytes of proxy logs, as text (for searching)."""
    import ast
    out = []
    for line in text.splitlines():
        body = line.strip().split(" ", 2)
        if len(body) == 3 and body[1] == "S<" and body[2].startswith("b"):
            out.append(ast.literal_eval(body[2]).decode("latin-1"))
    return "".join(out)


#: The scenarios of ``--cluster``: the client on node B, its opponent or partner on A.
CLUSTER_SCENARIOS = ["cluster-xboard-observe", "cluster-xboard-play", "cluster-xboard-play-challenged",
                     "cluster-eboard-play", "cluster-eboard-play-timeseal", "cluster-eboard-play-challenged",
                     "cluster-pychess-play", "cluster-pychess-play-timeseal",
                     "cluster-pychess-play-challenged", "cluster-xboard-tell", "cluster-pychess-seek"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkout", type=Path, required=True, help="ficsfen checkout with a .venv")
    p.add_argument("--out", type=Path, default=Path(time.strftime("/tmp/clients-%Y%m%d-%H%M%S")))
    p.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    p.add_argument("--only", default="xboard-guest,xboard-registered,xboard-strip,zippy,zippy-strip,pychess,"
                                      "pychess-timeseal,eboard,eboard-timeseal,xboard-play,eboard-play,"
                                      "eboard-play-timeseal,pychess-play,pychess-play-timeseal,xboard-tell,pychess-seek")
    p.add_argument("--cluster", action="store_true",
                   help="run every cluster-* scenario (the default --only then)")
    p.add_argument("--one-node", action="store_true",
                   help="run the cluster-* scenarios on one server (their single-node reference)")
    p.add_argument("--rated", action="store_true",
                   help="the scripted players of the observing scenarios log in as zipa and zipb "
                        "and play rated (do not combine with xboard-registered or zippy)")
    args = p.parse_args()
    if args.cluster:
        args.only = ",".join(CLUSTER_SCENARIOS)
    names = args.only.split(",")
    in_cluster = {name.startswith("cluster-") for name in names}
    if len(in_cluster) > 1:
        p.error("cluster-* scenarios run on their own (a cluster, not one server)")
    args.out.mkdir(parents=True, exist_ok=False)
    run = Run(args.checkout.resolve(), args.out, args.pgn)
    run.rated = args.rated
    scenarios = {
        "xboard-guest": lambda: run.xboard_observe("xboard-guest", "guest\n\n"),
        "xboard-registered": lambda: run.xboard_observe("xboard-registered", "zipa\nzpass1\n"),
        "xboard-strip": lambda: run.xboard_observe("xboard-strip", "guest\n\n", strip=True),
        "zippy": lambda: run.zippy("zippy", strip=False),
        "zippy-strip": lambda: run.zippy("zippy-strip", strip=True),
        "pychess": lambda: run.pychess("pychess", timeseal=False),
        "pychess-timeseal": lambda: run.pychess("pychess-timeseal", timeseal=True),
        "eboard": lambda: run.eboard("eboard", timeseal=False),
        "eboard-timeseal": lambda: run.eboard("eboard-timeseal", timeseal=True),
        "xboard-play": lambda: run.xboard_play("xboard-play"),
        "xboard-tell": lambda: run.xboard_talk("xboard-tell"),
        "pychess-seek": lambda: run.pychess_seek("pychess-seek"),
        "eboard-play": lambda: run.eboard_play("eboard-play", timeseal=False),
        "eboard-play-timeseal": lambda: run.eboard_play("eboard-play-timeseal", timeseal=True),
        "pychess-play": lambda: run.pychess_play("pychess-play", timeseal=False),
        "pychess-play-timeseal": lambda: run.pychess_play("pychess-play-timeseal", timeseal=True),
        # Two nodes: the client on B, the scripted players and guests on A.
        "cluster-xboard-observe": lambda: run.xboard_observe("cluster-xboard-observe", "guest\n\n",
                                                             every_ply=True),
        "cluster-xboard-play": lambda: run.xboard_play("cluster-xboard-play", "wait", check_boards=True),
        "cluster-xboard-play-challenged": lambda: run.xboard_play("cluster-xboard-play-challenged",
                                                                  check_boards=True),
        "cluster-eboard-play": lambda: run.eboard_play("cluster-eboard-play", False, "wait"),
        "cluster-eboard-play-timeseal": lambda: run.eboard_play("cluster-eboard-play-timeseal", True, "wait"),
        "cluster-eboard-play-challenged": lambda: run.eboard_play("cluster-eboard-play-challenged", False),
        "cluster-pychess-play": lambda: run.pychess_play("cluster-pychess-play", False, "seek"),
        "cluster-pychess-play-timeseal": lambda: run.pychess_play("cluster-pychess-play-timeseal", True,
                                                                  "seek"),
        "cluster-pychess-play-challenged": lambda: run.pychess_play("cluster-pychess-play-challenged", False),
        "cluster-xboard-tell": lambda: run.xboard_talk("cluster-xboard-tell"),
        "cluster-pychess-seek": lambda: run.pychess_seek("cluster-pychess-seek"),
    }
    assert set(CLUSTER_SCENARIOS) <= set(scenarios)
    try:
        if in_cluster == {True} and not args.one_node:
            run.start_cluster()
            print(f"cluster: {run.cluster}", flush=True)
        else:
            run.start_server()
        run.start_xvfb()
        print(f"server on port {run.port}, display {run.display}, results in {args.out}", flush=True)
        for name in names:
            started = time.monotonic()
            try:
                result = scenarios[name]()
            except Exception as exc:        # one client failing must not stop the others
                result = {"scenario": name, "error": f"{type(exc).__name__}: {exc}"}
            result["seconds"] = round(time.monotonic() - started, 1)
            run.results[name] = result
            print(json.dumps(result, indent=1), flush=True)
            (args.out / "results.json").write_text(json.dumps(run.results, indent=1))
    finally:
        run.procs.stop_all()
    subprocess.run([sys.executable, str(HERE / "summarize.py"), str(args.out)], check=False)


if __name__ == "__main__":
    main()
