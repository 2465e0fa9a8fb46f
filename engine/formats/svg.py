"""The SVG drawing of a position, and saving it as .svg or .png (engine/formats/pictures.py holds
the shared layout, the state it draws and the text board; its docstring describes both pictures).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from engine.board import BAR, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF, pips
from engine.formats.pictures import (
    BAR_PLACES,
    BOTTOM_ROW,
    PLACES,
    TOP_ROW,
    ImageError,
    _checked,
    _cube_face,
    _owner,
    _side_name,
    _state_lines,
    ascii_board,
)
from engine.notation import BAR_POINT, OFF_POINT, parse_play, play_steps

# ----------------------------------------------------------------------------------------------
# the SVG drawing: geometry

POINT_W = 40  # width of one point
RADIUS = 17  # checker radius
STEP = 34  # distance between checker centres on a point
CUBE_X = 10  # the cube's column, left of the board
BOARD_X = 60  # the board's outer frame, left edge
FRAME = 10
HALF_H = PLACES * STEP + 10  # height of one half's points
GAP = 40  # the middle strip between the halves
BAR_W = 40
TRAY_X = BOARD_X + 2 * FRAME + 12 * POINT_W + BAR_W + 10  # borne-off trays, right of the board
TRAY_W = 44
PANEL_X = TRAY_X + TRAY_W + 14  # names, pips, score
WIDTH = PANEL_X + 190
LABEL_H = 20
SIDE_COLOURS = {0: "White", 1: "Black"}  # the drawing's names of the mover and the opponent

COLOURS = {
    "board": "#2e6b3f", "frame": "#5a3a1c", "light": "#e8d4a8", "dark": "#a0522d", "bar": "#5a3a1c",
    "mover": "#f4f1e8", "opponent": "#202020", "mover_text": "#202020", "opponent_text": "#f4f1e8",
    "arrow": "#d62828", "mark": "#ffd166", "cube": "#fdfdfd", "die": "#fdfdfd", "text": "#202020",
}


class _Layout:
    """Coordinates of one drawing (the top grows with a title)."""

    def __init__(self, title: bool):
        self.top = (30 if title else 0) + LABEL_H  # the frame's top edge
        self.inner_top = self.top + FRAME
        self.mid = self.inner_top + HALF_H + GAP / 2
        self.inner_bottom = self.inner_top + 2 * HALF_H + GAP
        self.height = self.inner_bottom + FRAME + LABEL_H + 10

    @staticmethod
    def point_x(point: int) -> float:
        """Left edge of a point's column."""
        row = TOP_ROW if point >= 13 else BOTTOM_ROW
        i = row.index(point)
        return BOARD_X + FRAME + i * POINT_W + (BAR_W if i >= 6 else 0)

    def place(self, point: int, k: int) -> tuple[float, float]:
        """Centre of the k-th checker place (0 at the edge) of a point."""
        x = self.point_x(point) + POINT_W / 2
        if point >= 13:
            return x, self.inner_top + RADIUS + 2 + k * STEP
        return x, self.inner_bottom - RADIUS - 2 - k * STEP

    def bar_place(self, side: int, k: int) -> tuple[float, float]:
        """Centre of the k-th place on the bar: the mover's (side 0) below the middle, the other's above."""
        x = BOARD_X + FRAME + 6 * POINT_W + BAR_W / 2
        offset = GAP / 2 + RADIUS + 4 + k * STEP
        return x, (self.mid + offset if side == 0 else self.mid - offset)

    def tray(self, side: int) -> tuple[float, float]:
        """Top-left corner of a side's borne-off tray: the mover's at the bottom right."""
        return TRAY_X, (self.inner_bottom - HALF_H if side == 0 else self.inner_top)


def _anchor(layout: _Layout, pos: np.ndarray, point: int) -> tuple[float, float]:
    """Where an arrow starts or ends for a point (mover's numbers, 25 = bar, 0 = off)."""
    if point == BAR_POINT:
        return layout.bar_place(0, 0)
    if point == OFF_POINT:
        x, y = layout.tray(0)
        return x + TRAY_W / 2, y + HALF_H / 2
    count = abs(int(pos[point - 1]))
    return layout.place(point, min(max(count - 1, 0), PLACES - 1))


# ----------------------------------------------------------------------------------------------
# the SVG drawing: shapes


def _text(x, y, text, size=12, colour=None, anchor="middle", cls=None, bold=False) -> str:
    extra = f' class="{cls}"' if cls else ""
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'dominant-baseline="central" fill="{colour or COLOURS["text"]}"{weight}{extra}>'
            f'{escape(str(text))}</text>')


def _checker(x, y, side: int, count_label: int | None = None) -> list[str]:
    """One checker (a circle with class "checker mover|opponent"), with a count on a tall stack."""
    name = "mover" if side == 0 else "opponent"
    out = [(f'<circle class="checker {name}" cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS}" fill="{COLOURS[name]}" '
           f'stroke="#000" stroke-width="1"/>')]
    if count_label is not None:
        out.append(_text(x, y, count_label, 13, COLOURS[name + "_text"], cls="count", bold=True))
    return out


def _stack(places, count: int, side: int) -> list[str]:
    """A stack of ``count`` checkers on the given places; the last place carries the count if it is taller."""
    out = []
    shown = min(count, len(places))
    for k in range(shown):
        label = count if (count > len(places) and k == shown - 1) else None
        out += _checker(*places[k], side, label)
    return out


def _points(layout: _Layout, highlight: set[int]) -> list[str]:
    """The 24 triangles, alternating colours, highlighted ones outlined; numbers above and below."""
    out = []
    for point in range(1, 25):
        x = layout.point_x(point)
        base, tip = ((layout.inner_top, layout.inner_top + HALF_H - 4) if point >= 13
                     else (layout.inner_bottom, layout.inner_bottom - HALF_H + 4))
        colour = COLOURS["light"] if point % 2 else COLOURS["dark"]
        mark = f' stroke="{COLOURS["mark"]}" stroke-width="4"' if point in highlight else ""
        out.append(f'<polygon class="point" points="{x:.1f},{base:.1f} {x + POINT_W:.1f},{base:.1f} '
                   f'{x + POINT_W / 2:.1f},{tip:.1f}" fill="{colour}"{mark}/>')
        label_y = layout.top - LABEL_H / 2 if point >= 13 else layout.inner_bottom + FRAME + LABEL_H / 2
        out.append(_text(x + POINT_W / 2, label_y, point, 11, bold=point in highlight))
    return out


def _die(x, y, value: int, side: int | None = None, size=30) -> list[str]:
    """A die face with its pips, in the colours of the side that rolled it (white without one)."""
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
             4: [(0, 0), (0, 2), (2, 0), (2, 2)],
             5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}
    face, spot = (COLOURS["opponent"], COLOURS["opponent_text"]) if side == 1 else (COLOURS["die"], "#000")
    out = [(f'<rect class="die" x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" rx="5" '
           f'fill="{face}" stroke="#000"/>')]
    for col, row in spots[int(value)]:
        cx, cy = x + size * (0.22 + 0.28 * col), y + size * (0.22 + 0.28 * row)
        out.append(f'<circle class="pip" cx="{cx:.1f}" cy="{cy:.1f}" r="2.8" fill="{spot}"/>')
    return out


def _cube(layout: _Layout, value: int, owner: int | None) -> list[str]:
    """The cube left of the board: in the middle when centred, else by its owner's side, with its
    owner's colour (or "centred") written on the board's side of it."""
    size = 36
    y = {None: layout.mid - size / 2, 0: layout.inner_bottom - size, 1: layout.inner_top}[owner]
    caption_y = y + size + 9 if owner != 0 else y - 9
    return [(f'<rect class="cube" x="{CUBE_X}" y="{y:.1f}" width="{size}" height="{size}" rx="4" '
            f'fill="{COLOURS["cube"]}" stroke="#000" stroke-width="1.5"/>'),
            _text(CUBE_X + size / 2, y + size / 2, _cube_face(value, owner), 15, cls="cube-value", bold=True),
            _text(CUBE_X + size / 2, caption_y, "centred" if owner is None else SIDE_COLOURS[owner], 10,
                  cls="cube-owner")]


def _play_steps(game: str, pos: np.ndarray, play, dice) -> list[tuple[int, int]]:
    """The single steps (source, destination) a ``play`` names: move text or the position after the
    play (both need ``dice``), a (before, after) pair, or the steps themselves."""
    if play is None:
        return []
    if isinstance(play, str) or _is_position(play) or _is_position_pair(play):
        if dice is None:
            raise ValueError("marking a play given as text or positions needs the dice")
        before = pos
        if isinstance(play, str):
            after = parse_play(game, pos, dice, play)
        elif _is_position_pair(play):
            before, after = (np.asarray(p, np.int8) for p in play)
        else:
            after = np.asarray(play, np.int8)
        return list(play_steps(game, before, after, dice))
    out = []
    for step in play:
        source, dest = (int(v) for v in step)
        if not (1 <= source <= BAR_POINT and 0 <= dest < source):
            raise ValueError(f"a step runs from a point 1..25 (25 = bar) down to 0..24 (0 = off), got {step}")
        out.append((source, dest))
    return out


def _is_position(value) -> bool:
    return not isinstance(value, str) and np.ndim(value) == 1 and len(value) == NUM_SLOTS


def _is_position_pair(value) -> bool:
    return not isinstance(value, str) and np.ndim(value) == 2 and np.shape(value) == (2, NUM_SLOTS)


def _arrows(layout: _Layout, pos: np.ndarray, steps) -> list[str]:
    """One arrow per step of the play, from the source's top checker to the destination."""
    out = []
    board = pos.astype(int).copy()
    for source, dest in steps:
        x1, y1 = _anchor(layout, board, source)
        if source != BAR_POINT:
            board[source - 1] -= 1
        if dest != OFF_POINT:
            board[dest - 1] = max(board[dest - 1], 0) + 1
        x2, y2 = _anchor(layout, board, dest)
        out.append(f'<line class="arrow" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'stroke="{COLOURS["arrow"]}" stroke-width="3.5" stroke-opacity="0.85" '
                   'marker-end="url(#arrowhead)"/>')
    return out


def svg_board(game: str, position, *, dice=None, cube=None, score=None, play=None, title=None,
              mover_name: str | None = None, opponent_name: str | None = None, on_roll: int | None = 0,
              crawford: bool = False, jacoby: bool | None = None, beavers: bool | None = None,
              automatic_doubles: int | None = None) -> str:
    """A self-contained SVG drawing of ``position`` (28,), its mover at the bottom: the 24 points,
    checkers (circles with class "checker mover" / "checker opponent"; a stack taller than five shows
    its count), the bar, borne-off trays (one bar of class "off" per checker), the cube (class
    "cube", by its owner's side), and right of the board each side named by its colour (White: the
    mover, Black) with its pips, borne-off count and, for the side ``on_roll``, the turn (class
    "turn"); the match or money state (class "state") between them. The dice take the colour of
    the side on roll. The chosen ``play`` is marked: arrows from source to destination and the points
    outlined. ``play`` is move text or the position after it (both with ``dice``), a (before, after)
    pair, or a list of single steps (source 25..1, destination 24..0) in the mover's numbers. The
    money options (``jacoby``, ``beavers``, ``automatic_doubles``) as pictures.py's ``ascii_board``."""
    pos = _checked(game, position)
    cube = _owner(game, cube)
    state = _state_lines(game, score, crawford, jacoby, beavers, automatic_doubles)
    if on_roll not in (0, 1, None):
        raise ValueError(f"on_roll is 0 (the mover), 1 (the opponent) or None, got {on_roll!r}")
    steps = _play_steps(game, pos, play, dice)
    layout = _Layout(title is not None)
    pip = pips(game, pos)
    right = BOARD_X + 2 * FRAME + 12 * POINT_W + BAR_W
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{layout.height:.0f}" '
           f'viewBox="0 0 {WIDTH} {layout.height:.0f}" font-family="sans-serif">'),
           ('<defs><marker id="arrowhead" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">'
           f'<path d="M0,0 L8,4 L0,8 z" fill="{COLOURS["arrow"]}"/></marker></defs>'),
           f'<rect x="0" y="0" width="{WIDTH}" height="{layout.height:.0f}" fill="#ffffff"/>']
    if title is not None:
        out.append(_text(WIDTH / 2, 16, title, 15, bold=True, cls="title"))
    out.append(f'<rect class="frame" x="{BOARD_X}" y="{layout.top}" width="{right - BOARD_X}" '
               f'height="{layout.inner_bottom + FRAME - layout.top}" fill="{COLOURS["frame"]}"/>')
    out.append(f'<rect x="{BOARD_X + FRAME}" y="{layout.inner_top}" width="{12 * POINT_W + BAR_W}" '
               f'height="{2 * HALF_H + GAP}" fill="{COLOURS["board"]}"/>')
    bar_x = BOARD_X + FRAME + 6 * POINT_W
    bar_width = BAR_W if game == "backgammon" else 6
    out.append(f'<rect class="bar" x="{bar_x + (BAR_W - bar_width) / 2}" y="{layout.inner_top}" '
               f'width="{bar_width}" '
               f'height="{2 * HALF_H + GAP}" fill="{COLOURS["bar"]}"/>')
    out += _points(layout, {p for s in steps for p in s if 1 <= p <= 24})
    for point in range(1, 25):
        count = int(pos[point - 1])
        places = [layout.place(point, k) for k in range(PLACES)]
        out += _stack(places, abs(count), 0 if count > 0 else 1)
    for side, slot in ((0, BAR), (1, OPP_BAR)):
        out += _stack([layout.bar_place(side, k) for k in range(BAR_PLACES)], int(pos[slot]), side)
    out += _trays(layout, pos)
    if cube is not None:
        out += _cube(layout, *cube)
    if dice is not None:
        x = BOARD_X + FRAME + 6 * POINT_W + BAR_W + 3 * POINT_W - 35
        out += _die(x, layout.mid - 15, dice[0], on_roll) + _die(x + 40, layout.mid - 15, dice[1], on_roll)
    out += _panel(layout, pip, pos, (mover_name, opponent_name), on_roll, dice, state)
    out += _arrows(layout, pos, steps)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def click_regions(title: bool = False) -> dict:
    """Where each place of ``svg_board``'s drawing lies, for a page that turns clicks into places:
    {"width", "height", "points": {"1".."24": [x, y, w, h], "25": the mover's half of the bar, "0": the
    mover's borne-off tray}, "opponent_bar", "opponent_off": [x, y, w, h]} in the drawing's own units
    (its viewBox), the mover's numbers. A point's rectangle is its whole half-board column, so that a
    click on a checker or on the empty point counts alike."""
    layout = _Layout(title)
    points = {}
    for point in range(1, 25):
        y = layout.inner_top if point >= 13 else layout.inner_bottom - HALF_H
        points[str(point)] = [layout.point_x(point), y, POINT_W, HALF_H]
    bar_x = BOARD_X + FRAME + 6 * POINT_W
    points[str(BAR_POINT)] = [bar_x, layout.mid, BAR_W, layout.inner_bottom - layout.mid]
    points[str(OFF_POINT)] = [*layout.tray(0), TRAY_W, HALF_H]
    return {"width": WIDTH, "height": layout.height, "points": points,
            "opponent_bar": [bar_x, layout.inner_top, BAR_W, layout.mid - layout.inner_top],
            "opponent_off": [*layout.tray(1), TRAY_W, HALF_H]}


def _trays(layout: _Layout, pos: np.ndarray) -> list[str]:
    """Both borne-off trays, one thin bar per checker, stacked from the board's edge inwards."""
    out = []
    for side, slot in ((0, OFF), (1, OPP_OFF)):
        x, y = layout.tray(side)
        out.append(f'<rect class="tray" x="{x}" y="{y:.1f}" width="{TRAY_W}" height="{HALF_H}" '
                   f'fill="{COLOURS["frame"]}"/>')
        name = "mover" if side == 0 else "opponent"
        for k in range(int(pos[slot])):
            ry = y + HALF_H - 4 - (k + 1) * 11 if side == 0 else y + 4 + k * 11
            out.append(f'<rect class="off {name}" x="{x + 4}" y="{ry:.1f}" width="{TRAY_W - 8}" height="9" '
                       f'fill="{COLOURS[name]}" stroke="#000" stroke-width="0.8"/>')
    return out


def _panel(layout: _Layout, pip, pos, names, on_roll, dice, state) -> list[str]:
    """Right of the trays: each side named by its colour (a checker of it beside the name), its pips,
    borne-off count and, on roll, the turn (nearest the middle); the match or money state between."""
    out = []
    for side, top in ((1, layout.inner_top + 10), (0, layout.inner_bottom - 64)):
        kind = "mover" if side == 0 else "opponent"
        off = int(pos[OPP_OFF if side == 1 else OFF])
        rows = [("name", _side_name(SIDE_COLOURS[side], names[side])), ("pips", f"pips {int(pip[side])}"),
                ("off", f"borne off {off}")]
        turn = ("turn", "on roll" + (f", {dice[0]}-{dice[1]}" if dice is not None else "")
                if on_roll == side else "")
        rows = rows + [turn] if side == 1 else [turn, *rows]
        for k, (what, text) in enumerate(rows):
            y = top + 18 * k
            if what == "turn" and text:
                out.append(f'<polygon class="turn" points="{PANEL_X:.1f},{y - 6:.1f} '
                           f'{PANEL_X + 10:.1f},{y:.1f} {PANEL_X:.1f},{y + 6:.1f}" fill="{COLOURS["arrow"]}"/>')
                out.append(_text(PANEL_X + 16, y, text, 12, COLOURS["arrow"], anchor="start", cls="turn",
                                 bold=True))
            elif what == "name":
                out.append(f'<circle class="swatch {kind}" cx="{PANEL_X + 7:.1f}" cy="{y:.1f}" r="7" '
                           f'fill="{COLOURS[kind]}" stroke="#000" stroke-width="1"/>')
                out.append(_text(PANEL_X + 18, y, text, 13, anchor="start", cls="name", bold=True))
            elif what != "turn":
                out.append(_text(PANEL_X, y, text, 12, anchor="start", cls=what))
    for k, line in enumerate(state):
        out.append(_text(PANEL_X, layout.mid + 16 * (k - (len(state) - 1) / 2), line, 12, anchor="start",
                         cls="state"))
    return out


# ----------------------------------------------------------------------------------------------
# files


def _png_converter():
    """A function svg_text -> PNG bytes from the first converter found, or None."""
    try:
        import cairosvg
    except ImportError:
        cairosvg = None
    if cairosvg is not None:
        return lambda svg: cairosvg.svg2png(bytestring=svg.encode())
    for tool, args in (("rsvg-convert", ["-f", "png"]), ("magick", ["svg:-", "png:-"]),
                       ("convert", ["svg:-", "png:-"])):
        path = shutil.which(tool)
        if path:
            def run(svg, path=path, args=args):
                done = subprocess.run([path, *args], input=svg.encode(), capture_output=True, timeout=60,
                                      check=False)
                if done.returncode != 0 or not done.stdout.startswith(b"\x89PNG"):
                    raise ImageError(f"{Path(path).name} could not convert the SVG to PNG: use a .svg file")
                return done.stdout
            return run
    return None


def write_image(path, svg_text: str) -> Path:
    """Save a drawing: ``.svg`` writes the text; ``.png`` converts it when a converter is available
    (see the module docstring), else raises ImageError saying to use .svg. Returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(svg_text, encoding="utf-8")
        return path
    if suffix != ".png":
        raise ImageError(f"{path.name}: pictures are written as .svg (or .png with a converter), "
                         f"not {suffix or 'no suffix'}")
    convert = _png_converter()
    if convert is None:
        raise ImageError("no SVG-to-PNG converter found (the cairosvg package, rsvg-convert or ImageMagick): "
                         "write a .svg file instead")
    path.write_bytes(convert(svg_text))
    return path


__all__ = ["ImageError", "ascii_board", "click_regions", "svg_board", "write_image"]
