"""Games and matches as Jellyfish ``.mat`` text, the match format gnubg imports (``import mat FILE``).

The record (what a caller fills; players are 0 and 1, player 0 is the left column):

    MatchRecord(names=("bot", "gnubg"), match_length=5,   # 0 = money play
                games=(GameRecord(actions=(...), scores=(0, 0), winner=1, points=2), ...))
    Action(player, "move", dice=(6, 5), play="24/18 18/13")  # one turn's play, "" = no die playable
    Action(player, "double") / Action(player, "take") / Action(player, "drop") / Action(player, "beaver")

``scores`` are the points before the game; ``winner`` and ``points`` its result (points = level x
cube, or the cube's value before the double for a drop). A move's ``play`` is gnubg's step form from
the mover's side: one step per die in an order it can be played, 25 = bar, 0 = off, ``*`` for a hit
(``move_action`` builds it from the positions before and after, so a caller that compares positions,
as model/arena/cubeless.py does, never writes notation). A caller that plays with engine/game.py keeps the
states of a game and hands them to ``game_record(states)``, which reads the actions off consecutive
states (a roll then a play, a double, a take or a drop) and the result off the last one.
Resignations are not actions in this format: a game that ended by one is told by its ``Wins N
points`` line, which gnubg reads as a resignation of N / cube points. A beaver is written
``Beavers => V`` (V the cube after it, four times the value before the double) in the beavering
side's column, which gnubg 1.07 reads as that side's redouble, taken (checked with its ``import mat``).
Several games between the same two players (e.g. mirrored ones, whose seats alternate) become one
money session with ``swap_sides`` and ``money_session``; a match is one file.

The text, as gnubg 1.07 writes and reads it (its ``export match mat`` / ``import mat``)::

     5 point match

     Game 1
     bot : 0                        gnubg : 0
      1)                             31: 8/5 6/5
      2) 65: 24/18 18/13              Doubles => 2
      3)  Takes                      42: 8/4 6/4
      ...
                                      Wins 2 points

gnubg's reader splits a row at the second ``dd:`` (two plays) or else at the first double space
after column 15, so each left cell is padded with at least two spaces. Names lose ``:`` and
white space (written as ``_``), as gnubg does. ``read_mat`` reads such text back (for round trips).
The format has no field for the rules: gnubg's reader assumes the Crawford rule in matches and, in
money play, takes the Jacoby rule from its own setting (on by default), so a money game won with a
gammon without the cube being turned is replayed as 1 point unless gnubg is told ``set jacoby off``
before ``import mat`` (observed with gnubg 1.07). So that a reader can replay the scores, a money
record says its options in comment lines before the header, in the ``; [Name "value"]`` form of
gnubg's own exports, which its reader skips (checked with gnubg 1.07): ``; [Jacoby "On"]``,
``; [Beaver "Off"]``, ``; [AutomaticDoubles "2"]`` (the limit; "0" = off), each only when the
record's field is set (not None). A record of games played without the cube (money or a match) says
``; [CubeLimit "1"]`` (no cube past 1: the line other writers of cubeless .mat files use; gnubg 1.07
skips it and imports the games); ``read_mat`` reads it back as ``cube=False``, and a reader replays
such games with no cube to turn (engine/formats/matreplay.py). A game whose cube starts above 1 (automatic doubles after
opening ties; it stays centred) has ``; [Cube "4"]`` under its names line; gnubg, which does not
know the opening ties, replays such a game at its own cube, so its scores then differ from the file's
``Wins`` lines and the comment is the reader's only way to the real ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np

from engine.board import BAR, OFF, OPP_BAR, flip
from engine.errors import FormatError
from engine.formats.match_id import quoted, shortened
from engine.notation import play_steps

MOVE, DOUBLE, TAKE, DROP, BEAVER = "move", "double", "take", "drop", "beaver"
KINDS = (MOVE, DOUBLE, TAKE, DROP, BEAVER)
LEFT_WIDTH = 28
"""Width of the left cell after the row number, as gnubg writes it."""
CUBELESS = ("CubeLimit", "1")
"""The comment line of a record played without the cube: ``; [CubeLimit "1"]``, no cube past 1."""


@dataclass(frozen=True)
class Action:
    """One entry of a game: a side's play of its roll, or a cube action."""

    player: int  # 0 (left column) or 1 (right column)
    kind: str  # MOVE, DOUBLE, TAKE, DROP or BEAVER (the doubled side took and redoubled at once)
    dice: tuple[int, int] | None = None  # MOVE only: the roll
    play: str = ""  # MOVE only: gnubg's step form, "" when no die can be played

    def __post_init__(self) -> None:
        if self.player not in (0, 1) or self.kind not in KINDS:
            raise ValueError(f"an action is by player 0 or 1 and one of {KINDS}: {self.player}, {self.kind}")
        if (self.kind == MOVE) != (self.dice is not None):
            raise ValueError("a move has dice and a cube action none")
        if self.dice is not None:
            object.__setattr__(self, "dice", tuple(int(d) for d in self.dice))
            if len(self.dice) != 2 or not all(1 <= d <= 6 for d in self.dice):
                raise ValueError(f"dice are two numbers 1..6, got {self.dice}")


@dataclass(frozen=True)
class GameRecord:
    """One game: its actions in order, the score before it, and its result."""

    actions: tuple[Action, ...]
    scores: tuple[int, int] = (0, 0)  # player 0's and player 1's points before this game
    winner: int | None = None  # None: unfinished
    points: int = 0  # what the winner scored
    cube: int = 1  # the cube when the game began: 2, 4... after automatic doubles (centred)

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))
        object.__setattr__(self, "scores", tuple(int(s) for s in self.scores))
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise ValueError(f"a game's starting cube is a power of two, got {self.cube}")


@dataclass(frozen=True)
class MatchRecord:
    """A match (or money session) of games between two named players."""

    names: tuple[str, str] = ("player0", "player1")
    match_length: int = 0  # 0 = money play
    games: tuple[GameRecord, ...] = field(default_factory=tuple)
    jacoby: bool | None = None  # money options, written as comments when set (None: not said)
    beavers: bool | None = None
    automatic_doubles: int | None = None  # the limit on opening-tie doubles, 0 = off
    cube: bool | None = None  # False: the games were played without the cube (None: not said, the cube on)

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))
        object.__setattr__(self, "names", tuple(self.names))


# ----------------------------------------------------------------------------------------------
# filling a record


def mat_play(before, after, dice) -> str:
    """gnubg's step form of the backgammon play from ``before`` to ``after`` (mover's frame): one step
    per die in a playable order, 25 = bar, 0 = off, ``*`` after a step that hits a blot."""
    position = np.asarray(before, dtype=np.int64).copy()
    words = []
    for source, dest in play_steps("backgammon", before, after, tuple(int(d) for d in dice)):
        position[BAR if source == 25 else source - 1] -= 1
        hit = dest > 0 and position[dest - 1] == -1
        if dest > 0:
            if hit:
                position[dest - 1] = 0
                position[OPP_BAR] += 1
            position[dest - 1] += 1
        else:
            position[OFF] += 1
        words.append(f"{source}/{dest}{'*' if hit else ''}")
    return " ".join(words)


def move_action(player: int, before, after, dice) -> Action:
    """The Action of ``player`` playing ``dice`` from ``before`` to ``after`` (both in its frame, before
    the turn passes); ValueError if no play of the roll leads there."""
    high, low = max(dice), min(dice)
    return Action(player, MOVE, (int(high), int(low)), mat_play(before, after, dice))


def game_record(states) -> GameRecord:
    """The record of a game played with engine/game.py, from its states in order (first to last).

    Consecutive states tell what happened: a MOVE state followed by one more turn played (``turns``)
    is a play of its dice; ROLL -> TAKE a double; TAKE -> ROLL a take (a beaver when the cube went to
    four times its value); TAKE -> OVER a drop. Rolling, resignation offers and rejections leave no
    action. The first state gives the starting cube, the last the result if it is over.
    """
    from engine.cube_state import Phase  # engine.game's phases (imported late: game imports a lot)

    states = list(states)
    if not states:
        raise ValueError("a game record needs at least one state")
    if states[0].game != "backgammon":
        raise ValueError(".mat files hold backgammon only")
    actions = []
    for prev, cur in pairwise(states):
        if prev.phase is Phase.MOVE and cur.turns == prev.turns + 1:  # a play was made
            after = cur.position if cur.phase is Phase.OVER else flip("backgammon", cur.position)
            actions.append(move_action(prev.mover, prev.position, after, prev.dice))
        elif prev.phase is Phase.ROLL and cur.phase is Phase.TAKE:
            actions.append(Action(prev.mover, DOUBLE))
        elif prev.phase is Phase.TAKE and cur.phase is Phase.ROLL:
            actions.append(Action(1 - prev.mover, TAKE if cur.cube == 2 * prev.cube else BEAVER))
        elif prev.phase is Phase.TAKE and cur.phase is Phase.OVER:
            actions.append(Action(1 - prev.mover, DROP))
    last, cube = states[-1], states[0].cube
    score = tuple(states[0].match.score)
    if last.result is None:
        return GameRecord(tuple(actions), score, cube=cube)
    return GameRecord(tuple(actions), score, last.result.winner, last.result.points, cube)


def swap_sides(game: GameRecord) -> GameRecord:
    """The same game with players 0 and 1 exchanged (their actions, scores and result)."""
    actions = tuple(Action(1 - a.player, a.kind, a.dice, a.play) for a in game.actions)
    winner = None if game.winner is None else 1 - game.winner
    return GameRecord(actions, game.scores[::-1], winner, game.points, game.cube)


def money_session(names: tuple[str, str], games, **options) -> MatchRecord:
    """``games`` (player 0 = ``names[0]`` in each) as one money session: each game's scores become
    the points both players had won before it, as gnubg counts a session. ``options``: the
    record's money options (``jacoby``, ``beavers``, ``automatic_doubles``)."""
    out, scores = [], [0, 0]
    for game in games:
        out.append(GameRecord(game.actions, tuple(scores), game.winner, game.points, game.cube))
        if game.winner is not None:
            scores[game.winner] += game.points
    return MatchRecord(names, 0, tuple(out), **options)


def rules_options(rules) -> dict:
    """The .mat record's options of an engine.match ``Rules``: its money options (none for a match) and,
    for games without the cube, ``cube=False``."""
    options = {} if rules.match_length else {"jacoby": rules.jacoby, "beavers": rules.beavers,
                                             "automatic_doubles": rules.automatic_doubles}
    return options if rules.cube else {**options, "cube": False}


def player_names(a: str, b: str) -> tuple[str, str]:
    """Two names a reader tells apart: the same name twice becomes ``A_name`` and ``B_name``."""
    return (a, b) if _name(a) != _name(b) else (f"A_{a}", f"B_{b}")


# ----------------------------------------------------------------------------------------------
# writing


def _name(name: str) -> str:
    """A player name gnubg's reader keeps whole: no ':' or white space, at most 30 characters."""
    cleaned = re.sub(r"[\s:]+", "_", str(name).strip()) or "player"
    return cleaned[:30]


def _cell(action: Action, cube: int) -> str:
    """The text of one action, as gnubg writes it (``cube`` is the value after a double)."""
    if action.kind == MOVE:
        return f"{action.dice[0]}{action.dice[1]}: {action.play}".rstrip()
    return {DOUBLE: f" Doubles => {cube}", BEAVER: f" Beavers => {cube}", TAKE: " Takes",
            DROP: " Drops"}[action.kind]


def _rows(actions: tuple[Action, ...], cube: int = 1) -> list[list[str | None]]:
    """Actions laid out in rows [left, right]: a left action opens a row, a right one fills the open
    row's right cell (or opens a row of its own when there is none). ``cube``: its starting value."""
    rows: list[list[str | None]] = []
    for action in actions:
        cube *= 2 if action.kind in (DOUBLE, BEAVER) else 1
        if action.player == 0 or not rows or rows[-1][1] is not None:
            rows.append([None, None])
        rows[-1][action.player] = _cell(action, cube)
    return rows


def _left(text: str | None) -> str:
    text = text or ""
    return text.ljust(max(LEFT_WIDTH, len(text) + 2))


def _points(n: int) -> str:
    return f"Wins {n} point{'s' if n != 1 else ''}"


def format_game(game: GameRecord, number: int, names: tuple[str, str]) -> str:
    """One game's block of a .mat file (``Game n``, the names line, the rows, the result)."""
    head = f"{_name(names[0])} : {game.scores[0]}"
    lines = [f" Game {number}", f" {head:<31}{_name(names[1])} : {game.scores[1]}"]
    if game.cube != 1:
        lines.append(f'; [Cube "{game.cube}"]')
    rows = _rows(game.actions, game.cube)
    wins = _points(game.points) if game.winner is not None else None
    for i, (left, right) in enumerate(rows, 1):
        line = f"{i:3d}) {_left(left)}"
        if right is None and wins and game.winner == 1 and i == len(rows):
            line += wins  # the winner's result in the empty right cell of the last row
            wins = None
        elif right is not None:
            line += right
        lines.append(line.rstrip())
    if wins:
        lines.append(("      " if game.winner == 0 else " " * 34) + wins)
    return "\n".join(lines) + "\n"


def format_mat(match: MatchRecord) -> str:
    """The whole .mat text of ``match`` (backgammon)."""
    if match.match_length < 0:
        raise ValueError(f"a match length is 0 (money) or more, got {match.match_length}")
    said = [(name, value) for name, value in (("Jacoby", match.jacoby), ("Beaver", match.beavers))
            if value is not None]
    comments = "".join(f'; [{name} "{"On" if value else "Off"}"]\n' for name, value in said)
    if match.automatic_doubles is not None:
        comments += f'; [AutomaticDoubles "{match.automatic_doubles}"]\n'
    if match.cube is False:
        comments += f'; [{CUBELESS[0]} "{CUBELESS[1]}"]\n'
    blocks = [(comments + "\n" if comments else "") + f" {match.match_length} point match\n"]
    blocks += [format_game(game, i, match.names) for i, game in enumerate(match.games, 1)]
    return "\n".join(blocks)


def write_mat(match: MatchRecord, path) -> Path:
    """Write ``match`` as a .mat file gnubg imports (``import mat PATH``); returns the path."""
    path = Path(path)
    path.write_text(format_mat(match), encoding="ascii", errors="replace")
    return path


# ----------------------------------------------------------------------------------------------
# reading (round trips; gnubg's own exports)

_MOVE_CELL = re.compile(r"^([1-6])([1-6]):\s*(.*)$")
_WINS = re.compile(r"^wins\s+(\d+)\s+points?", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$")
_COMMENT = re.compile(r'^\s*;\s*\[(\w+)\s+"([^"]*)"\]')


def _split_row(line: str) -> tuple[str, str]:
    """(left cell, right cell) of a row, split as gnubg's reader does."""
    colons = [m.start() for m in re.finditer(r"[1-6][1-6]:", line)]
    if len(colons) >= 2:
        cut = colons[1]
    else:
        gap = line.find("  ", 15) if len(line) > 15 else -1
        cut = gap if gap >= 0 else len(line)
    left, right = line[:cut], line[cut:]
    close = left.find(")")
    return (left[close + 1:] if close >= 0 else left).strip(), right.strip()


def _cell_action(text: str, player: int) -> Action | tuple[str, int] | None:
    """An Action, ("wins", points) for a result cell, or None for an empty cell."""
    if not text:
        return None
    move = _MOVE_CELL.match(text)
    if move:
        return Action(player, MOVE, (int(move.group(1)), int(move.group(2))), move.group(3).strip())
    lower = text.lower()
    for word, kind in (("double", DOUBLE), ("beaver", BEAVER), ("take", TAKE), ("drop", DROP)):
        if lower.startswith(word):
            return Action(player, kind)
    wins = _WINS.match(text)
    if wins:
        return ("wins", _number(wins.group(1), "a game's points"))
    raise FormatError(f".mat: cannot read the entry {quoted(text)}")


def _names_line(line: str) -> tuple[str, str, str, str] | None:
    """(name, score, name, score) of a game's line ``name : score    name : score`` (the scores' digits
    as text; the names not blank), or None when it is not one. Read by splitting at its two colons, not
    by a regular expression: the one used before, whose name and space repeats overlapped, took 27 s on
    a line of 4,000 spaces, and its time grew with the cube of the line's length."""
    parts = line.split(":")
    if len(parts) != 3 or not parts[0].strip():
        return None
    middle = parts[1].split(None, 1)  # the first score, then the second name
    if len(middle) != 2 or not middle[0].isdecimal() or not parts[2].strip().isdecimal():
        return None
    return parts[0].strip(), middle[0], middle[1].strip(), parts[2].strip()


def _number(digits: str, what: str) -> int:
    """A whole number of the file, ``what`` naming it; FormatError for one that int() cannot read: more
    than 4,300 digits (Python's limit on text), or characters ``\\d`` and str.isdigit() take for
    digits that are none to int() ('²')."""
    try:
        return int(digits)
    except ValueError:
        raise FormatError(f".mat: {what} is not a number that can be read: {quoted(digits)}") from None


def _comment(line: str) -> tuple[str, str] | None:
    """(name, value) of a ``; [Name "value"]`` comment line, else None."""
    found = _COMMENT.match(line)
    return (found.group(1).lower(), found.group(2)) if found else None


def _options(lines: list[str]) -> dict:
    """The money options said in the comment lines before the first game (see the module docstring)."""
    options = {}
    for line in lines:
        if _GAME.match(line):
            break
        said = _comment(line)
        if said and said[0] in ("jacoby", "beaver"):
            options["jacoby" if said[0] == "jacoby" else "beavers"] = said[1].lower() == "on"
        elif said and said[0] == "automaticdoubles" and said[1].isdigit():
            options["automatic_doubles"] = _number(said[1], "AutomaticDoubles")
        elif said and said[0] == CUBELESS[0].lower() and said[1].strip() == CUBELESS[1]:
            options["cube"] = False
    return options


def read_mat(text: str) -> MatchRecord:
    """A .mat text -> MatchRecord (players' names from the first game, the money options and starting
    cubes from the comment lines); FormatError if it is not one."""
    lines = text.splitlines()
    length = next((_number(m.group(1), "the match length") for line in lines if (m := _HEADER.match(line))), None)
    if length is None:
        raise FormatError(".mat: no 'N point match' line")
    names, games = None, []
    i = 0
    while i < len(lines):
        if not _GAME.match(lines[i]):
            i += 1
            continue
        header = _names_line(lines[i + 1]) if i + 1 < len(lines) else None
        if header is None:
            raise FormatError(f".mat: game line {i + 1} is not followed by 'name : score  name : score'")
        names = names or (header[0], header[2])
        scores = (_number(header[1], "a score"), _number(header[3], "a score"))
        actions, winner, points, cube = [], None, 0, 1
        i += 2
        while i < len(lines) and lines[i].strip() and not _GAME.match(lines[i]):
            said = _comment(lines[i])
            if said is not None or lines[i].lstrip().startswith(";"):
                if said and said[0] == "cube" and said[1].isdigit():
                    cube = _number(said[1], "a game's cube")
                i += 1
                continue
            for player, cell in enumerate(_split_row(lines[i])):
                entry = _cell_action(cell, player)
                if isinstance(entry, Action):
                    actions.append(entry)
                elif entry is not None:
                    winner, points = player, entry[1]
            i += 1
        try:
            games.append(GameRecord(tuple(actions), scores, winner, points, cube))
        except ValueError as err:
            raise FormatError(f".mat: game {len(games) + 1}: {shortened(err, 200)}") from None  # its numbers, cut
    return MatchRecord(names or ("player0", "player1"), length, tuple(games), **_options(lines))
