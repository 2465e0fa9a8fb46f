"""Matches and money sessions as GNU Backgammon's own match files: SGF with backgammon's ``GM[6]``.

    record = read_sgf("match.sgf")         # a path (or the text itself, starting with "(") -> MatchRecord
    write_sgf(record, "match.sgf")          # what gnubg loads with ``load match match.sgf``

The record is engine/formats/matfile.py's ``MatchRecord`` (player 0 is gnubg's White, player 1 its
Black), so a match reads and writes the same whether it came as .mat or .sgf. What gnubg 1.07 writes
(``save match``, its sgf.c; checked by loading and saving with Debian's gnubg 1.07), and so what is
read and written here:

* One SGF game tree per game, all in one file: ``(;FF[4]GM[6]CA[UTF-8]AP[...]MI[length:L][game:i]
  [ws:a][bs:b]PW[white's name]PB[black's name]RU[...]CV[c]RE[W+2] ;W[...] ;B[...] ...)``. ``MI``:
  the match length (0 = money), the game's 0-based number and White's and Black's scores before it.
  ``RU``: colon-separated rules, gnubg's ``Crawford`` (a match), ``CrawfordGame`` (this game is the
  Crawford game), ``Jacoby`` (money), ``NoCube`` (played without the cube); ``Nackgammon`` and
  ``Hypergammon1..3`` are other games, refused here. ``CV``: the cube the game starts at (automatic
  doubles, centred). ``RE``: the winner and its points, ``R`` after them when the game ended by a
  resignation (``RE[B+2R]``); no ``RE`` for a game not finished.
* A node per action: ``W[...]`` or ``B[...]``, the value ``double``, ``take``, ``drop``, or the roll
  and the play: two digits (the dice as thrown), then a pair of letters per checker step (source,
  destination) from the mover's side: for White point p is the letter ``a``+p-1, for Black ``x``-(p-1)
  (so both see their 24-point at the other's ``a``/``x`` end), ``y`` the bar, ``z`` off: White's
  ``W[65xrrm]`` is 65: 24/18 18/13, Black's ``B[63aggj]`` is 63: 24/18 18/15, ``W[65]`` a roll with no
  play. Hits are not marked; the reader finds them by following the board.
* A beaver is the doubled side's own ``double`` straight after the double, then the first doubler's
  ``take``: ``;W[double];B[double];W[take]`` is the record's DOUBLE by 0 and BEAVER by 1.
* Resignations: gnubg writes no node for an offer, its acceptance or its rejection; a game ended by
  an accepted resignation is told by the ``R`` of its ``RE`` (and a .mat record says no more either).
  The reader keeps the ``RE`` result; the writer adds ``R`` where the game ended neither by a drop
  nor by the winner bearing off all fifteen checkers.
* What gnubg's ``RU`` has no word for, this project adds as its own tokens, which gnubg's reader
  skips (sgf.c compares each token with the ones it knows): ``Beavers`` / ``NoBeavers`` and
  ``AutomaticDoubles=N`` (the limit), written in money sessions when the record says them.

Also read and ignored: gnubg's analysis and statistics (``GS``, ``A``, ``DA``, ``LU``, marks),
comments, dates and event properties; ``DI``/``PL`` nodes (dice set up without a play). Games set up
from another position (``AB``/``AW``/``AE``, ``CV``/``CP`` nodes) cannot be records and are refused.
Variations: the main line (each node's first child) is the game, as gnubg reads it. Trees that are
not backgammon (``GM`` other than 6) are skipped. Every error is a FormatError with one short line
(a long or many-line bad value is shown by its start); every number the reader takes (``MI``'s length
and scores, ``CV``, ``RE``'s points, ``AutomaticDoubles=N``) is ASCII digits, nine at most. The reader
walks the text once, keeping its open trees on a list rather than in recursion, so that any nesting
and any size of value is read in time linear in the text's length.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats.match_id import shortened
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, TAKE, Action, GameRecord, MatchRecord
from engine.notation import BAR_POINT, OFF_POINT, read_legs

SIDES = "WB"
"""gnubg's letters of players 0 and 1: White (player 0, the .mat left column) and Black."""
CUBE_WORDS = {"double": DOUBLE, "take": TAKE, "drop": DROP}
APPLICATION = "nardibot"
START = {24: 2, 13: 5, 8: 3, 6: 5}
"""Each side's checkers at the start, by its own point numbers."""
VARIANTS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")
_WHOLE = re.compile(r"[0-9]{1,9}")
"""A number of the file: ASCII digits (not every character str.isdigit() takes, which int() may not read,
nor more than int() reads from text), nine at most, far beyond any score, cube or length."""


def _shown(text: str) -> str:
    """A bad value as an error line shows it: on one line, cut after ECHOED characters (its length said)."""
    return shortened(" ".join(str(text).split()))


def _whole(text: str, what: str) -> int:
    """The whole number ``text`` (``what`` naming it); FormatError for anything else."""
    if not _WHOLE.fullmatch(text.strip()):
        raise FormatError(f"{what} is no whole number (up to nine digits 0-9): {_shown(text)!r}")
    return int(text)


# ----------------------------------------------------------------------------------------------
# points and letters


def _letter(player: int, point: int) -> str:
    """The SGF letter of ``player``'s own point (25 = bar, 0 = off)."""
    if point == BAR_POINT:
        return "y"
    if point == OFF_POINT:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - point + 1)


def _point(player: int, letter: str) -> int:
    """``player``'s own point of an SGF letter (25 = bar, 0 = off), as gnubg's sgf.c reads it."""
    if letter == "y":
        return BAR_POINT
    if letter == "z":
        return OFF_POINT
    return ord(letter) - ord("a") + 1 if player == 0 else ord("x") - ord(letter) + 1


# ----------------------------------------------------------------------------------------------
# writing


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def _steps(action: Action) -> list[tuple[int, int]]:
    """The (source, destination) steps of a MOVE's play text (a leg over several dice stays one step)."""
    try:
        return [(a, b) for a, b, _ in read_legs("backgammon", action.play)]
    except FormatError as err:
        raise ValueError(f"cannot write the play {action.play!r}: {err}") from None


def _cube_nodes(action: Action) -> list[str]:
    """The nodes of a cube action: a beaver is the beaverer's double and the first doubler's take."""
    side, other = SIDES[action.player], SIDES[1 - action.player]
    if action.kind == BEAVER:
        return [f"{side}[double]", f"{other}[take]"]
    return [f"{side}[{action.kind}]"]


def _resigned(game: GameRecord) -> bool:
    """Whether a finished game ended by a resignation: neither a drop nor the winner's last checker off."""
    if game.winner is None or (game.actions and game.actions[-1].kind == DROP):
        return False
    off = sum(b == OFF_POINT for a in game.actions if a.kind == MOVE and a.player == game.winner
              for _, b in _steps(a))
    return off < 15


def _rules(match: MatchRecord, crawford_game: bool) -> list[str]:
    """The game's ``RU`` tokens: gnubg's, then this project's money options (module docstring)."""
    tokens = ["NoCube"] if match.cube is False else []
    if match.match_length > 1:
        tokens += ["Crawford"] + (["CrawfordGame"] if crawford_game else [])
    if match.match_length == 0:
        tokens += ["Jacoby"] if match.jacoby else []
        if match.beavers is not None:
            tokens.append("Beavers" if match.beavers else "NoBeavers")
        if match.automatic_doubles is not None:
            tokens.append(f"AutomaticDoubles={match.automatic_doubles}")
    return tokens


def format_game_tree(match: MatchRecord, game: GameRecord, index: int, crawford_game: bool = False) -> str:
    """One game tree (``index``: the game's 0-based number; ``crawford_game``: it is the Crawford game)."""
    root = (f"(;FF[4]GM[6]CA[UTF-8]AP[{APPLICATION}]MI[length:{match.match_length}][game:{index}]"
            f"[ws:{game.scores[0]}][bs:{game.scores[1]}]PW[{_escape(match.names[0])}]PB[{_escape(match.names[1])}]")
    rules = _rules(match, crawford_game)
    if rules:
        root += f"RU[{':'.join(rules)}]"
    if game.cube != 1:
        root += f"CV[{game.cube}]"
    if game.winner is not None:
        root += f"RE[{SIDES[game.winner]}+{game.points}{'R' if _resigned(game) else ''}]"
    nodes = []
    for action in game.actions:
        if action.kind != MOVE:
            nodes += _cube_nodes(action)
            continue
        letters = "".join(_letter(action.player, a) + _letter(action.player, b) for a, b in _steps(action))
        nodes.append(f"{SIDES[action.player]}[{action.dice[0]}{action.dice[1]}{letters}]")
    return root + "".join(f"\n;{node}" for node in nodes) + ")\n"


def format_sgf(match: MatchRecord) -> str:
    """The whole SGF text of ``match`` (backgammon): one game tree per game."""
    if match.match_length < 0:
        raise ValueError(f"a match length is 0 (money) or more, got {match.match_length}")
    trees, crawford_played, length = [], False, match.match_length
    for index, game in enumerate(match.games):
        crawford = length > 1 and not crawford_played and max(game.scores) == length - 1
        crawford_played = crawford_played or crawford
        trees.append(format_game_tree(match, game, index, crawford))
    return "".join(trees)


def write_sgf(match: MatchRecord, path) -> Path:
    """Write ``match`` as an .sgf file gnubg loads (``load match PATH``); returns the path."""
    path = Path(path)
    path.write_text(format_sgf(match), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------------------------
# parsing SGF: the main line of every game tree, each node a dict of property -> values


def _value(text: str, i: int) -> tuple[str, int]:
    """The property value starting after the ``[`` at ``i``, unescaped, and the index after its ``]``."""
    out = []
    while i < len(text):
        ch = text[i]
        if ch == "]":
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < len(text):
            i += 1
            if text[i] not in "\r\n":  # a backslash before a line break is a soft break: both go
                out.append(text[i])
        else:
            out.append(ch)
        i += 1
    raise FormatError(".sgf: a property value '[' is never closed")


def _node(text: str, i: int) -> tuple[dict[str, list[str]], int]:
    """The properties of the node whose ``;`` was before ``i``, and the index after them."""
    props: dict[str, list[str]] = {}
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        start = i
        while i < len(text) and text[i].isalpha():
            i += 1
        if i == start:
            return props, i
        name = "".join(ch for ch in text[start:i] if ch.isupper())  # FF[3]'s lower-case letters are dropped
        values = []
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text) or text[i] != "[":
                break
            value, i = _value(text, i + 1)
            values.append(value)
        if not values:
            raise FormatError(f".sgf: the property {_shown(text[start:i])} has no value ('[...]')")
        props.setdefault(name, values)


def parse_sgf(text: str) -> list[list[dict[str, list[str]]]]:
    """Each game tree's main line (its nodes, then its first variation's, and so on): a list of nodes,
    each a dict of property name -> values. FormatError for text that is no SGF collection."""
    trees: list[list[dict]] = []
    stack: list[list[int]] = []  # per open tree: [children opened so far, on the main line (1/0)]
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace() or (ch == "\ufeff" and i == 0):
            i += 1
        elif ch == "(":
            if stack:
                stack[-1][0] += 1
                stack.append([0, int(stack[-1][1] and stack[-1][0] == 1)])
            else:
                trees.append([])
                stack.append([0, 1])
            i += 1
        elif ch == ")":
            if not stack:
                raise FormatError(f".sgf: a ')' at character {i + 1} closes no game tree")
            stack.pop()
            i += 1
        elif ch == ";" and stack:
            if stack[-1][0]:
                raise FormatError(f".sgf: a node at character {i + 1} follows a variation of its own tree")
            props, i = _node(text, i + 1)
            if stack[-1][1]:
                trees[-1].append(props)
        else:
            raise FormatError(f".sgf: unexpected {ch!r} at character {i + 1} (an SGF file is '(;...)' game trees)")
    if stack:
        raise FormatError(".sgf: a game tree '(' is never closed")
    if not trees:
        raise FormatError(".sgf: no game tree '(;...)'")
    return trees


# ----------------------------------------------------------------------------------------------
# reading games


def _first(node: dict, name: str, default: str | None = None) -> str | None:
    values = node.get(name)
    return values[0] if values else default


MATCH_INFO = ("length", "ws", "bs")
"""The fields of ``MI`` the reader takes (gnubg also writes ``game``, the game's number, which it ignores)."""


def _match_info(root: dict, where: str) -> dict:
    """``MI``'s fields the reader takes (``length``, ``ws``, ``bs``), each a whole number."""
    out = {}
    for item in root.get("MI", []):
        key, _, value = item.partition(":")
        if key.strip() in MATCH_INFO:
            out[key.strip()] = _whole(value, f"{where}: MI[{key.strip()}:...]")
    return out


_RESULT = re.compile(r"^([BW])\+([0-9]{1,9})(R?)$", re.IGNORECASE)


def _result(root: dict, where: str) -> tuple[int | None, int]:
    """(winner, points) of ``RE``; (None, 0) when absent or unknown (``?``, ``Void``)."""
    text = (_first(root, "RE") or "").strip()
    if not text or text in ("?", "0") or text.lower() == "void":
        return None, 0
    found = _RESULT.match(text)
    if not found or int(found.group(2)) < 1:
        raise FormatError(f"{where}: cannot read the result RE[{_shown(text)}] (expected W+N or B+N, N up to nine "
                          "digits, R for a resignation)")
    return SIDES.index(found.group(1).upper()), int(found.group(2))


class _Board:
    """Both sides' checkers by their own point numbers (0 off, 25 bar), to find the hits of a play."""

    def __init__(self) -> None:
        self.points = [[0] * 26 for _ in (0, 1)]
        for side in (0, 1):
            for point, count in START.items():
                self.points[side][point] = count

    def step(self, player: int, source: int, dest: int) -> bool:
        """Move one checker; True if it hits. FormatError for a step the board does not allow."""
        mine, theirs = self.points[player], self.points[1 - player]
        if dest >= source:
            raise FormatError(f"a checker moves from {source} to {dest}: checkers move to lower points")
        if mine[source] < 1:
            raise FormatError(f"no checker on {'the bar' if source == BAR_POINT else source} to move")
        hit = OFF_POINT < dest and theirs[25 - dest] == 1
        if OFF_POINT < dest and theirs[25 - dest] > 1:
            raise FormatError(f"the point {dest} is held by the other side")
        mine[source] -= 1
        mine[dest] += 1
        if hit:
            theirs[25 - dest] = 0
            theirs[BAR_POINT] += 1
        return hit


_PLAY = re.compile(r"^([1-6])([1-6])([a-z]*)$")


def _move(player: int, value: str, board: _Board) -> Action:
    """The MOVE of a node's roll-and-play value, in the step form with hits (board: followed)."""
    found = _PLAY.match(value.strip())
    if not found or len(found.group(3)) % 2 or len(found.group(3)) > 8:
        raise FormatError("cannot read the play (two dice, then up to four pairs of letters a..z)")
    letters, words = found.group(3), []
    for k in range(0, len(letters), 2):
        source, dest = _point(player, letters[k]), _point(player, letters[k + 1])
        if source == OFF_POINT or dest == BAR_POINT:
            raise FormatError(f"cannot read the step {letters[k:k + 2]!r}: 'z' is off, 'y' the bar")
        words.append(f"{source}/{dest}{'*' if board.step(player, source, dest) else ''}")
    return Action(player, MOVE, (int(found.group(1)), int(found.group(2))), " ".join(words))


def _actions(raw: list[Action], where: str) -> list[Action]:
    """The record's actions from gnubg's: a double answered by a double, then the take, is a beaver."""
    out, i = [], 0
    while i < len(raw):
        action = raw[i]
        answer = raw[i + 1] if i + 1 < len(raw) else None
        if action.kind == DOUBLE and answer is not None and answer.kind == DOUBLE:
            then = raw[i + 2] if i + 2 < len(raw) else None
            if then is not None and (then.player != action.player or then.kind != TAKE):
                raise FormatError(f"{where}: a beaver (a double answered by a double) is taken by the first "
                                  f"doubler, not answered with {then.kind}")
            out += [action, Action(answer.player, BEAVER)]
            i += 3
            continue
        out.append(action)
        i += 1
    return out


def _game(nodes: list[dict], number: int, scores: tuple[int, int]) -> GameRecord:
    """Game ``number`` (1-based) of a collection; ``scores``: the score before it when ``MI`` says none."""
    where = f".sgf game {number}"
    root = nodes[0]
    info = _match_info(root, where)
    scores = (info.get("ws", scores[0]), info.get("bs", scores[1]))
    cube = _whole(_first(root, "CV", "1"), f"{where}: the cube CV[...]")
    winner, points = _result(root, where)
    board, raw = _Board(), []
    for entry, node in enumerate(nodes[1:], 1):
        setup = [name for name in ("AB", "AW", "AE", "CV", "CP") if name in node]
        if setup:
            raise FormatError(f"{where}: a position set up with {setup[0]}[...]: only games from the opening "
                              "position can be read")
        side = next((name for name in node if name in SIDES), None)
        if side is None:
            continue  # dice set up (DI, PL), comments, analysis only
        player, value = SIDES.index(side), node[side][0]
        try:
            kind = CUBE_WORDS.get(value.strip().lower())
            raw.append(Action(player, kind) if kind else _move(player, value, board))
        except (FormatError, ValueError) as err:
            raise FormatError(f"{where}, node {entry} ({side}[{_shown(value)}]): {err}") from None
    actions = tuple(_actions(raw, where))
    try:
        return GameRecord(actions, scores, winner, points, cube)
    except ValueError as err:
        raise FormatError(f"{where}: {err}") from None


def _options(rules: list[str], length: int) -> dict:
    """The record's options from the first game's ``RU`` tokens (module docstring)."""
    options = {} if "NoCube" not in rules else {"cube": False}
    if length == 0:
        options["jacoby"] = "Jacoby" in rules
        if "Beavers" in rules or "NoBeavers" in rules:
            options["beavers"] = "Beavers" in rules
        limits = [token.partition("=")[2] for token in rules if token.startswith("AutomaticDoubles=")]
        if limits:
            options["automatic_doubles"] = _whole(limits[0], ".sgf: RU[AutomaticDoubles=...]")
    return options


def read_sgf_text(text: str) -> MatchRecord:
    """SGF text -> MatchRecord (names, length and options from the first backgammon game); FormatError
    with one line if it is not one."""
    games = [nodes for nodes in parse_sgf(text) if nodes and _first(nodes[0], "GM", "1").strip() == "6"]
    if not games:
        raise FormatError(".sgf: no backgammon game (GM[6]) in the file")
    root = games[0][0]
    length = _match_info(root, ".sgf game 1").get("length", 0)
    rules = (_first(root, "RU") or "").split(":")
    variant = next((token for token in rules if token in VARIANTS), None)
    if variant:
        raise FormatError(f".sgf: {variant} is not backgammon as this project plays it")
    names = (_first(root, "PW", "player0"), _first(root, "PB", "player1"))
    records, scores = [], [0, 0]
    for number, nodes in enumerate(games, 1):
        other = _match_info(nodes[0], f".sgf game {number}").get("length", 0)
        if other != length:
            raise FormatError(f".sgf game {number}: a {other}-point game in a {length}-point match")
        game = _game(nodes, number, tuple(scores))
        records.append(game)
        scores = list(game.scores)
        if game.winner is not None:
            scores[game.winner] += game.points
    return MatchRecord(names, length, tuple(records), **_options(rules, length))


def read_sgf(source) -> MatchRecord:
    """A MatchRecord from ``source``: a path (``str`` or ``Path``) of an .sgf file, or SGF text itself
    (a ``str`` starting with ``(``); FormatError with one line for what is not one, OSError for a file
    that cannot be read."""
    if isinstance(source, str) and looks_like_sgf(source):
        return read_sgf_text(source)
    return read_sgf_text(Path(source).read_bytes().decode("utf-8", errors="replace"))


def looks_like_sgf(text: str) -> bool:
    """Whether ``text`` is SGF rather than .mat: SGF starts with a game tree's ``(``."""
    return text.lstrip("\ufeff \t\r\n").startswith("(")


__all__ = ["format_game_tree", "format_sgf", "looks_like_sgf", "parse_sgf", "read_sgf", "read_sgf_text", "write_sgf"]
