"""Pictures of positions for people: a text board for the terminal and an SVG drawing, both games.

Both pictures use one layout, seen by the position's mover (engine/board.py's frame), who sits at
the bottom, as gnubg's ``show board`` does::

      13 14 15 16 17 18       19 20 21 22 23 24        <- top row, left to right
     +------------------+---+------------------+
     | ...  the opponent's side of the board   |  O: opponent
     |                  |BAR|                  |
     | ...  the mover's side of the board      |  X: mover
     +------------------+---+------------------+
      12 11 10  9  8  7        6  5  4  3  2  1        <- bottom row, left to right

The mover (X) runs from its 24-point (top right) along the top to 13, over to 12 (bottom left) and
home to its 1..6 (bottom right). In long nardi both sides run that same way round; the mover's head
(its 24) is the top-right corner and the opponent's head (the mover's 12) the bottom-left corner,
"heads in their corners"; there is no bar, only the divider (one line on the text board). Each
side's checkers on the bar are drawn in its own half of the bar (the mover's in the lower half). A
stack taller than the five places of a point shows its count on the last place.

The pictures say the whole state they are given, all as plain values: ``on_roll`` (whose turn:
0 the mover, 1 the opponent, None nobody) with the ``dice`` (a, b) it rolled, ``cube`` (value,
owner) with owner None (centred), 0 (the mover, at the bottom) or 1 (the opponent), ``score``
(mover's points, opponent's points[, match length]; length 0 or none is money play), ``crawford``
(this is the Crawford game), and in money play ``jacoby`` and ``beavers`` (True/False; None leaves
them unsaid). The sides are named by their checkers: X and O on the text board, White (the mover)
and Black in the drawing, each followed by its ``mover_name`` / ``opponent_name`` when given. Long
nardi has no cube, so no Jacoby or beavers either: asking for them there is refused (ValueError).
The drawing is engine/formats/svg.py's ``svg_board``; its ``write_image`` saves an SVG as .svg, or as
.png when a converter is at hand (the ``cairosvg`` package, ``rsvg-convert`` or ImageMagick's
``convert``/``magick``); without one it says to use .svg. PNG output is optional by design: the
project depends on no image library.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, OFF, OPP_BAR, OPP_OFF, check_game, pips, validate
from engine.cube_state import CubeOwner
from engine.notation import BAR_POINT

TOP_ROW = tuple(range(13, 25))  # the mover's points along the top row, left to right
BOTTOM_ROW = tuple(range(12, 0, -1))  # along the bottom row, left to right
PLACES = 5  # checker places drawn on one point before the count is written
BAR_PLACES = 3  # the same on each half of the bar


class ImageError(ValueError):
    """A picture that cannot be written (unknown file type, no PNG converter); one line says why."""


# ----------------------------------------------------------------------------------------------
# what both pictures read from a position


def _checked(game: str, position) -> np.ndarray:
    """The position as (28,) int8, refused (ValueError) when it breaks its game's rules."""
    check_game(game)
    pos = np.asarray(position).astype(np.int8)
    validate(game, pos)
    return pos


def _owner(game: str, cube) -> tuple[int, int | None] | None:
    """(value, owner) with owner None (centred), 0 (mover) or 1 (opponent), or the owner as the mover
    sees it (engine.cube_state.CubeOwner: "centred", "me", "opponent")."""
    if cube is None:
        return None
    if game != "backgammon":
        raise ValueError("long nardi has no doubling cube: draw it without one")
    value, owner = cube
    names = {None: None, 0: 0, 1: 1, **{name: name.seat(0) for name in CubeOwner}}
    if owner not in names:
        raise ValueError(f"the cube's owner is None (centred), 0 (mover) or 1 (opponent), or one of "
                         f"{', '.join(CubeOwner)}, got {owner!r}")
    value = int(value)
    if value < 1 or value & (value - 1):
        raise ValueError(f"the cube's value is a power of two, got {value}")
    return value, names[owner]


def _state_lines(game: str, score, crawford: bool, jacoby, beavers, automatic_doubles=None) -> list[str]:
    """The match or money state in words, mover's points first: ['5-point match, score 2-4',
    'Crawford game'] or ['money play, score 2-4', 'Jacoby on, beavers off, automatic doubles up to 2'];
    [] when nothing is given."""
    if game != "backgammon" and (jacoby is not None or beavers is not None or automatic_doubles is not None):
        raise ValueError("long nardi has no doubling cube, so no Jacoby rule, beavers or automatic doubles")
    lines = []
    length = 0
    if score is not None:
        mine, theirs, *rest = score
        length = int(rest[0]) if rest and rest[0] else 0
        if length:
            lines.append(f"{length}-point match, score {mine}-{theirs}")
        else:
            lines.append(f"{'money play, ' if game == 'backgammon' else ''}score {mine}-{theirs}")
    if crawford and length:
        lines.append("Crawford game: no doubling")
    if not length and game == "backgammon" and (jacoby, beavers, automatic_doubles) != (None, None, None):
        if score is None:
            lines.append("money play")
        lines.append(money_options_text(jacoby, beavers, automatic_doubles))
    return lines


def money_options_text(jacoby: bool | None, beavers: bool | None, automatic_doubles: int | None = None) -> str:
    """The money options in words, those given (not None): 'Jacoby on, beavers off, automatic doubles
    up to 2' ('automatic doubles off' for a limit of 0)."""
    words = [f"{name} {'on' if flag else 'off'}"
             for name, flag in (("Jacoby", jacoby), ("beavers", beavers)) if flag is not None]
    if automatic_doubles is not None:
        words.append(f"automatic doubles up to {automatic_doubles}" if automatic_doubles else "automatic doubles off")
    return ", ".join(words)


def _side_name(label: str, name: str | None) -> str:
    """'X: you', or 'X' alone when the side has no name."""
    return f"{label}: {name}" if name else label


def _cube_face(value: int, owner: int | None) -> str:
    """The number on the cube: 64 while it is centred at 1, as a real cube shows, else its value."""
    return "64" if owner is None and value == 1 else str(value)


# ----------------------------------------------------------------------------------------------
# the text board


COLOURS = {"X": "\033[1;33m", "O": "\033[1;36m"}
"""ANSI colours of the text board's sides (bold yellow X, bold cyan O) when it is drawn in colour."""
RESET = "\033[0m"


def paint(text: str, symbol: str, colour: bool) -> str:
    """``text`` in the colour of side ``symbol`` (X or O) when ``colour``, else unchanged."""
    return f"{COLOURS[symbol]}{text}{RESET}" if colour else text


def _cells(count: int, symbol: str, places: int = PLACES, colour: bool = False) -> list[str]:
    """The 3-character cells of one stack, from the edge of the board inwards; the last place of a
    stack taller than ``places`` holds its count."""
    shown = min(count, places)
    cells = [paint(f" {symbol} ", symbol, colour)] * shown + ["   "] * (places - shown)
    if count > places:
        cells[places - 1] = paint(f"{count:^3}", symbol, colour)
    return cells


def _point_cells(pos: np.ndarray, point: int, colour: bool = False) -> list[str]:
    """Cells of one point: X for the mover's checkers, O for the opponent's."""
    count = int(pos[point - 1])
    return _cells(abs(count), "X" if count > 0 else "O", colour=colour)


def _marks(points, highlight: set[int], symbol: str) -> str:
    """A row of markers under/over highlighted points (empty if none is highlighted there)."""
    return "".join(f" {symbol} " if p in highlight else "   " for p in points)


def ascii_board(
    game: str,
    position,
    *,
    mover_name: str | None = None,
    opponent_name: str | None = None,
    dice=None,
    cube=None,
    score=None,
    highlight=None,
    on_roll: int | None = 0,
    info=(),
    crawford: bool = False,
    jacoby: bool | None = None,
    beavers: bool | None = None,
    automatic_doubles: int | None = None,
    colour: bool = False,
) -> str:
    """A text board of ``position`` (28,), its mover at the bottom (see the module docstring).

    ``on_roll`` says whose turn it is: 0 the mover (bottom), 1 the opponent (top), None nobody; the
    dice are shown by that side. ``highlight`` marks points (1..24 in the mover's numbers, 25 its bar)
    with ^ and v next to their numbers. The match or money state (``score``, ``crawford``,
    ``jacoby``, ``beavers``, ``automatic_doubles``: the limit, 0 off) and the ``info`` lines are
    printed under the board. ``colour``: the checkers and the sides' names in ANSI colours (for a
    terminal that shows them; the caller decides).
    """
    pos = _checked(game, position)
    highlight = {int(p) for p in highlight or ()}
    cube = _owner(game, cube)
    state = _state_lines(game, score, crawford, jacoby, beavers, automatic_doubles)
    pip = pips(game, pos)
    columns = {p: _point_cells(pos, p, colour) for p in range(1, 25)}
    bars = {1: _cells(int(pos[OPP_BAR]), "O", BAR_PLACES, colour) + ["   "] * (PLACES - BAR_PLACES),
            0: _cells(int(pos[BAR]), "X", BAR_PLACES, colour) + ["   "] * (PLACES - BAR_PLACES)}
    side = {0: _side_lines("X", mover_name, pip[0], int(pos[OFF]), 0, dice, cube, on_roll),
            1: _side_lines("O", opponent_name, pip[1], int(pos[OPP_OFF]), 1, dice, cube, on_roll)}
    for k, symbol in ((0, "X"), (1, "O")):
        side[k][0] = paint(side[k][0], symbol, colour)
    has_bar = game == "backgammon"  # long nardi: one divider down the middle, no bar
    frame = " +" + "-" * 18 + ("+---+" if has_bar else "+") + "-" * 18 + "+"

    def across(row, cell, middle: str, edge: str = "|") -> str:
        return _across(row, cell, middle if has_bar else None, edge)

    marked = {mark: (lambda p, mark=mark: f" {mark} " if p in highlight else "   ") for mark in "v^"}
    lines = [across(TOP_ROW, marked["v"], "   ", " "), across(TOP_ROW, lambda p: f"{p:^3}", "   ", " "),
             frame + "   " + side[1][0]]
    for k in range(PLACES):  # the top half, from the frame down
        lines.append(across(TOP_ROW, lambda p, k=k: columns[p][k], bars[1][k]) + "   " + side[1][k + 1])
    centre = f"cube {cube[0]}, centred" if cube and cube[1] is None else ""
    lines.append(across(TOP_ROW, lambda p: "   ", "BAR") + "   " + centre)
    for k in reversed(range(PLACES)):  # the bottom half, down to the frame
        lines.append(across(BOTTOM_ROW, lambda p, k=k: columns[p][k], bars[0][k]) + "   " + side[0][k + 1])
    lines += [frame + "   " + side[0][0], across(BOTTOM_ROW, lambda p: f"{p:^3}", "   ", " "),
              across(BOTTOM_ROW, marked["^"], " ^ " if BAR_POINT in highlight else "   ", " ")]
    lines += [" " + text for text in (["; ".join(state)] if state else []) + list(info)]
    return "\n".join(line.rstrip() for line in lines if line.strip()) + "\n"


def _across(row, cell, middle: str | None, edge: str = "|") -> str:
    """One line across the board: the six left points of ``row``, the middle (bar) cell, the six
    right points, each point's 3-character cell given by ``cell(point)``; without a middle (long
    nardi) the halves meet at one divider."""
    left = "".join(cell(p) for p in row[:6])
    right = "".join(cell(p) for p in row[6:])
    if middle is None:
        return f" {edge}{left}{edge}{right}{edge}"
    return f" {edge}{left}{edge}{middle}{edge}{right}{edge}"


def _side_lines(symbol, name, pip_count, off, side, dice, cube, on_roll) -> list[str]:
    """Six lines of text beside one side's half: name, pips and borne off, cube, turn and dice.

    Line 0 goes by the frame, lines 1..5 by the rows from the frame inwards (the turn by the middle)."""
    lines = [_side_name(symbol, name), f"pips {pip_count}", f"borne off {off}", "", "", ""]
    if cube and cube[1] == side:
        lines[3] = f"owns the cube at {cube[0]}"
    if on_roll == side:
        lines[5] = "on roll" + (f", rolled {max(dice)}-{min(dice)}" if dice is not None else "")  # high die first
    return lines
