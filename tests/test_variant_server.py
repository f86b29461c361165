"""Chess960 (``wild/fr``) and crazyhouse games on the server.

Games are made with python-chess's variant boards (a seeded player that
mates when it can), played through the server by two players, and checked
after every ply against python-chess: the observer's ``<12>`` and ``<b1>``
lines, ``fen`` (X-FEN) and ``fen shredder``.  Then the same over real
sockets, the store's restart, ``examine`` of a stored game, the words of
``match`` and ``seek``.
"""

from __future__ import annotations

import random
import re

import chess
import chess.variant
import pytest
from hypothesis import given, strategies as st
from twisted.internet.task import Clock

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.challenges import BadMatchArgumentsError, parse_match
from ficsfen.server.seeks import parse_seek
from ficsfen.server.store.testing import wait_for
from ficsfen.server.testing import ServerProcess, connect, make_server
from ficsfen.server.variant_games import VARIANT_WORDS

from test_game_store import Site, reactor, start  # noqa: F401  (a fixture)

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


# -- games made with python-chess --------------------------------------------------


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def mating_game(board: chess.Board, *, want, limit: int = 160) -> list[chess.Move] | None:
    """Moves from ``board`` by seeded random players that mate when they can and like
    castling, drops and captures; the moves if the game ends in mate and ``want(moves)``."""
    for seed in range(500):
        rng = random.Random(seed)
        b = board.copy()
        moves: list[chess.Move] = []
        while len(moves) < limit and not b.is_game_over():
            legal = list(b.legal_moves)
            mate = [m for m in legal if b.gives_check(m) and _mates(b, m)]
            liked = [m for m in legal if b.is_castling(m) or m.drop or b.is_capture(m)]
            move = (mate[0] if mate else rng.choice(liked) if liked and rng.random() < 0.6
                    else rng.choice(legal))
            b.push(move)
            moves.append(move)
        if b.is_checkmate() and want(b, moves):
            return moves
    return None


def _castles(board: chess.Board, moves: list[chess.Move]) -> bool:
    replay = board.root()
    found = False
    for move in moves:
        found = found or replay.is_castling(move)
        replay.push(move)
    return found


def _drops(board: chess.Board, moves: list[chess.Move]) -> bool:
    return sum(1 for m in moves if m.drop) >= 2


def expected_holdings(board: chess.variant.CrazyhouseBoard, number: int) -> str:
    def held(color: chess.Color) -> str:
        pocket = board.pockets[color]
        return "".join(chess.piece_symbol(p).upper() * pocket.count(p)
                       for p in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))
    return f"<b1> game {number} white [{held(chess.WHITE)}] black [{held(chess.BLACK)}]"


def strength(board: chess.Board, color: chess.Color) -> int:
    total = sum(VALUES.get(p.piece_type, 0) for p in board.piece_map().values() if p.color == color)
    if isinstance(board, chess.variant.CrazyhouseBoard):
        total += sum(VALUES[p] * board.pockets[color].count(p) for p in VALUES)
    return total


def check_style12(line: str, board: chess.Board, move: chess.Move | None, san: str | None) -> None:
    """A ``<12>`` line against python-chess's board after ``move`` (``san`` before it)."""
    fields = line.split()
    placement = board.board_fen(promoted=False)
    assert fen_from_style12(line).split()[:2] == [placement, "w" if board.turn else "b"]
    flags = [board.has_kingside_castling_rights(chess.WHITE), board.has_queenside_castling_rights(chess.WHITE),
             board.has_kingside_castling_rights(chess.BLACK), board.has_queenside_castling_rights(chess.BLACK)]
    assert fields[11:15] == ["1" if f else "0" for f in flags]
    assert (int(fields[22]), int(fields[23])) == (strength(board, chess.WHITE), strength(board, chess.BLACK))
    if move is None:
        return
    verbose, pretty = fields[27], fields[29]
    if move.drop:
        assert verbose == f"{chess.piece_symbol(move.drop).upper()}/@@-{chess.square_name(move.to_square)}"
        assert pretty == (san if san[0] != "@" else "P" + san)
    elif san.startswith("O-O"):
        assert verbose == ("o-o-o" if san.startswith("O-O-O") else "o-o")
        assert pretty == san
    else:
        assert verbose[1:] == f"/{chess.square_name(move.from_square)}-{chess.square_name(move.to_square)}" + (
            "=" + chess.piece_symbol(move.promotion).upper() if move.promotion else "")
        assert pretty == san


def _received(board_before: chess.Board, move: chess.Move, board: chess.Board) -> str | None:
    """The ``<- WP`` part FICS adds when ``move`` put a piece in the mover's hand."""
    color = board_before.turn
    for piece in VALUES:
        if board.pockets[color].count(piece) > board_before.pockets[color].count(piece):
            return f"{'W' if color else 'B'}{chess.piece_symbol(piece).upper()}"
    return None


def play_and_check(board: chess.Board, moves: list[chess.Move], mover_of, observe_output, fen_of,
                   number: int) -> str:
    """Play ``moves``; after each, the observer's lines and ``fen`` must be python-chess's."""
    holdings = isinstance(board, chess.variant.CrazyhouseBoard)
    out = ""
    for ply, move in enumerate(moves, 1):
        before = board.copy()
        san = board.san(move)
        # typed as FICS players type them: SAN, and the pawn drop with its letter
        typed = san if not san.startswith("@") else "P" + san
        out = mover_of(board.turn)(typed)
        board.push(move)
        seen = observe_output().splitlines()
        twelve = [i for i, line in enumerate(seen) if line.startswith("<12> ")]
        assert len(twelve) == 1, seen
        check_style12(seen[twelve[0]], board, move, san)
        if holdings:
            assert seen[twelve[0] + 1] == expected_holdings(board, number)
            gained = _received(before, move, board)
            above = [line for line in seen[:twelve[0]] if line.startswith("<b1> ")]
            assert above == ([f"{expected_holdings(board, number)} <- {gained}"] if gained else [])
        if board.is_game_over():  # the game is gone: its end was announced
            break
        assert fen_of(False) == board.fen(en_passant="fen"), ply
        assert fen_of(True) == board.fen(shredder=True, en_passant="fen"), ply
    return out


def _last(text: str) -> str:
    return text.strip().splitlines()[-1]


# -- in process --------------------------------------------------------------------


class Table:
    def __init__(self, seed: int = 0) -> None:
        self.server = make_server(clock=Clock(), seed=seed)
        self.alice, self.bob, self.carol = (connect(self.server) for _ in range(3))
        for client, name in ((self.alice, "alice"), (self.bob, "bob"), (self.carol, "carol")):
            client.login(name)
            client.command("style 12")

    def start(self, words: str):
        issued = self.alice.command(f"match bob 3 0 {words} white")
        created = self.bob.command("accept")
        self.alice.output()
        self.carol.command("observe alice")
        return issued, created, self.server.directory.game_of("alice")

    def play(self, board: chess.Board, moves: list[chess.Move]) -> str:
        def mover(color: chess.Color):
            return (self.alice if color else self.bob).command
        return play_and_check(board, moves, mover, self.carol.output,
                              lambda shredder: _last(self.carol.command("fen shredder" if shredder else "fen")),
                              1)


def _play_to_mate(table: Table, board: chess.Board, want, letter: str, other: str) -> None:
    """A mating game from ``board`` (``want`` it to castle or drop), listed by ``games /letter``."""
    moves = mating_game(board, want=want)
    assert moves is not None
    assert f"[ {letter}u  3   0]" in table.carol.command(f"games /{letter}")
    assert "No matching games" in table.carol.command(f"games /{other}")
    out = table.play(board, moves)
    assert re.search(r"checkmated\} (1-0|0-1)", out)


def test_match_zh_plays_crazyhouse_to_mate_with_holdings_for_observers():
    table = Table()
    issued, created, game = table.start("zh")
    assert "Issuing: alice (++++) [white] bob (++++) unrated crazyhouse 3 0." in issued
    assert "Creating: alice (++++) bob (++++) unrated crazyhouse 3 0" in created
    assert "{Game 1 (alice vs. bob) Creating unrated crazyhouse match.}" in created
    assert "<b1> game 1 white [] black []" in created
    _play_to_mate(table, chess.variant.CrazyhouseBoard(), _drops, "z", "w")


def test_match_wild_fr_plays_chess960_to_mate_with_castling_for_observers():
    table = Table(seed=3)
    issued, created, game = table.start("wild fr")
    assert "unrated wild/fr 3 0" in issued and "Creating unrated wild/fr match." in created
    start = game.tracker.initial_fen
    board = chess.Board(start, chess960=True)
    assert board.chess960_pos() is not None  # one of the 960
    assert table.carol.command("fen").strip().splitlines()[-1] == start
    _play_to_mate(table, board, _castles, "w", "z")


def test_the_chess960_start_comes_from_the_servers_random_source():
    starts = []
    for seed in (7, 7, 8):
        _, _, game = Table(seed=seed).start("fr")
        starts.append(game.tracker.initial_fen)
    assert starts[0] == starts[1]
    assert all(chess.Board(fen, chess960=True).chess960_pos() is not None for fen in starts)


def test_chess960_castling_typed_as_king_takes_rook():
    table = Table()
    _, _, game = table.start("fr")
    start = chess.Board(game.tracker.initial_fen, chess960=True)
    for seed in range(100):  # random quiet moves until a castling is legal
        rng, board, moves = random.Random(seed), start.copy(), []
        while len(moves) < 60 and not board.is_game_over():
            castle = [m for m in board.legal_moves if board.is_castling(m)]
            if castle:
                break
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            moves.append(move)
        if castle:
            break
    for move in moves:
        (table.alice if game.tracker.turn else table.bob).command(move.uci())
    mover = table.alice if board.turn else table.bob
    out = mover.command(castle[0].uci())  # king takes rook: python-chess's own UCI for it
    assert "o-o" in out  # style 12's verbose castling
    board.push(castle[0])
    assert game.tracker.fen == board.fen(en_passant="fen")
    table.carol.output()
    assert _last(table.carol.command("fen")) == board.fen(en_passant="fen")


def test_showfen_follows_a_crazyhouse_board_with_x_fen():
    table = Table()
    table.carol.command("set showfen 1")
    table.start("crazyhouse")
    table.alice.command("e4")
    table.bob.command("d5")
    table.alice.command("exd5")
    seen = table.carol.output().splitlines()
    last = max(i for i, line in enumerate(seen) if line.startswith("<12> "))
    assert seen[last + 1] == "<b1> game 1 white [P] black []"
    assert seen[last + 2] == "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR[P] b KQkq - 0 2"


def test_unplayable_variant_and_two_variants_are_refused_with_reasons():
    table = Table()
    assert "Sorry, atomic games cannot be played on this server yet." in table.alice.command(
        "match bob 3 0 atomic")
    assert "Give at most one variant." in table.alice.command("match bob 3 0 zh fr")
    table.alice.command("set language fr")
    assert "ne peuvent pas encore" in table.alice.command("match bob 3 0 suicide")


def test_seek_zh_pairs_and_starts_a_crazyhouse_game():
    table = Table()
    table.alice.command("seek 3 0 zh")
    out = table.bob.command("seek 3 0 zh")
    assert "Creating: " in out and "unrated crazyhouse 3 0" in out
    game = table.server.directory.game_of("bob")
    assert game.tracker.variant is not None and game.tracker.variant.name == "crazyhouse"


@given(st.sampled_from(sorted(VARIANT_WORDS)), st.sampled_from(["3 0", "", "5 2 black", "white 1"]))
def test_match_reads_every_variant_word_seek_reads(word, rest):
    request = parse_match(f"bob {rest} {word}")
    assert request.variant == parse_seek(f"{rest} {word}").variant == VARIANT_WORDS[word]


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/ ", max_size=20))
def test_match_words_parse_or_are_refused(words):
    try:
        request = parse_match("bob " + words)
    except BadMatchArgumentsError as e:
        assert e.render("en")
    else:
        assert request.variant is None or request.variant.startswith(("wild/",)) or (
            request.variant in VARIANT_WORDS.values())


# -- the store -----------------------------------------------------------------------


def test_a_crazyhouse_game_survives_a_crash_and_examine_replays_it(tmp_path, reactor):  # noqa: F811
    path = tmp_path / "games.sqlite3"
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    game = start(site, alice, bob, "3 0 zh")
    for i, san in enumerate(["e4", "d5", "exd5", "Qxd5", "P@e4"]):
        (alice if i % 2 == 0 else bob).command(san)
        site.commit()
    fen = game.tracker.fen
    assert fen == "rnb1kbnr/ppp1pppp/8/3q4/4P3/8/PPPP1PPP/RNBQKBNR[p] b KQkq - 1 3"
    site.crash()

    site = Site(path, reactor)
    restored = site.server.adjourned.between("alice", "bob")
    assert restored is not None and restored.tracker.fen == fen
    assert site.store.get_game(restored.record_id).start.variant == "Crazyhouse"
    alice, bob = site.login("alice"), site.login("bob")
    assert " 1: W bob             Y [ zu  3   0] 39-39 B3   --- " in alice.command("stored")
    alice.command("resume")
    bob.command("accept")
    site.commit()
    resumed = site.server.directory.game_of("alice")
    assert "[ zu  3   0]" in alice.command("games")
    bob.command("N@f3")  # Black holds a pawn only: refused, nothing changes
    assert resumed.tracker.fen == fen
    bob.command("P@f3")
    site.commit()
    assert resumed.tracker.fen.startswith("rnb1kbnr/ppp1pppp/8/3q4/4P3/5p2/PPPP1PPP/RNBQKBNR[] w")
    bob.command("resign")
    site.commit()
    assert "[ zu  3   0]" in alice.command("history")
    assert "Unrated crazyhouse match" in alice.command("smoves alice -1")
    alice.command("style 12")
    assert "<b1> game 1 white [] black []" in alice.command("examine alice -1")
    for _ in range(6):
        alice.command("forward")
    assert _last(alice.command("fen")) == resumed.tracker.fen
    wait_for(reactor, site.store.close())


def test_a_chess960_game_survives_a_crash_from_its_own_start(tmp_path, reactor):  # noqa: F811
    path = tmp_path / "games.sqlite3"
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    game = start(site, alice, bob, "3 0 fr")
    board = chess.Board(game.tracker.initial_fen, chess960=True)
    for _ in range(6):
        move = sorted(board.legal_moves, key=chess.Move.uci)[0]
        (alice if board.turn else bob).command(board.san(move))
        board.push(move)
        site.commit()
    site.crash()
    site = Site(path, reactor)
    restored = site.server.adjourned.between("alice", "bob")
    assert restored.tracker.initial_fen == game.tracker.initial_fen
    assert restored.tracker.fen == board.fen(en_passant="fen")
    assert restored.tracker.variant.name == "chess960"
    wait_for(reactor, site.store.close())


# -- over real sockets ---------------------------------------------------------------


@pytest.fixture(scope="module")
def process():
    with ServerProcess() as server:
        yield server


def _telnet_game(process, words: str, board_of, want) -> None:
    alice, bob, carol = (process.connect() for _ in range(3))
    try:
        for client, name in ((alice, "alice"), (bob, "bobby"), (carol, "carol")):
            client.login(name)
            client.command("style 12")
        alice.command(f"match bobby 3 0 {words} white")
        bob.read_until(bob.prompt)
        created = bob.command("accept")
        assert "Creating unrated" in created
        alice.read_until("<12> ")
        alice.read_until(alice.prompt)
        observing = carol.command("observe alice")
        number = int(re.search(r"observing game (\d+)", observing).group(1))
        start = _last(carol.command(f"fen {number}"))
        board = board_of(start)
        moves = mating_game(board, want=want)
        assert moves is not None

        def mover(color: chess.Color):
            client, other = (alice, bob) if color else (bob, alice)

            def move(text: str) -> str:
                out = client.command(text)
                other.read_until(other.prompt)
                return out
            return move

        out = play_and_check(board, moves, mover, lambda: carol.read_until(carol.prompt),
                             lambda shredder: _last(carol.command(
                                 f"fen shredder {number}" if shredder else f"fen {number}")), number)
        assert "checkmated}" in out
    finally:
        for client in (alice, bob, carol):
            client.close()


@pytest.mark.slow
def test_crazyhouse_to_mate_over_real_sockets(process):
    _telnet_game(process, "crazyhouse", lambda fen: chess.variant.CrazyhouseBoard(fen), _drops)


def test_chess960_to_mate_over_real_sockets(process):
    _telnet_game(process, "wild fr", lambda fen: chess.Board(fen, chess960=True), _castles)
