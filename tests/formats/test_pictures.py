"""Pictures of positions (engine/formats/pictures.py): the text board read back to the checkers it shows, the
SVG parsed as XML and its shapes counted, the chosen play marked, and PNG refused clearly without a
converter."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from engine.board import BAR, OFF, OPP_BAR, OPP_OFF, start_position, validate
from engine.formats import svg
from engine.formats.pictures import ImageError, ascii_board
from engine.formats.svg import svg_board, write_image

SVG = "{http://www.w3.org/2000/svg}"


def _position(points: dict[int, int], bar=(0, 0), game="backgammon") -> np.ndarray:
    """A position from {mover's point: signed count}; each side's borne-off count fills it up to 15."""
    pos = np.zeros(28, dtype=np.int8)
    for point, count in points.items():
        pos[point - 1] = count
    pos[BAR], pos[OPP_BAR] = bar
    pos[OFF] = 15 - sum(c for c in points.values() if c > 0) - bar[0]
    pos[OPP_OFF] = 15 - sum(-c for c in points.values() if c < 0) - bar[1]
    validate(game, pos)
    return pos


# a mover bearing in with a tall stack and one on the bar, the opponent with 9 on one point and 2 on the bar
HAND_MADE = _position({6: 7, 5: 3, 1: 2, 24: -2, 19: -9}, bar=(1, 2))


def read_ascii(text: str) -> tuple[dict[int, int], int, int, list[int]]:
    """The checkers a text board shows: ({point: signed count}, mover's bar, opponent's bar,
    borne-off counts in the order printed, top side first). A checker's column is that of the last
    digit of its point number; a number in a column is the height of the stack."""
    lines = text.splitlines()
    labels = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*(\d+\s+){11}\d+", line)]
    assert len(labels) == 2, text
    frames = [i for i, line in enumerate(lines) if line.startswith(" +")]
    counts = {}
    halves = ((labels[0], range(frames[0] + 1, frames[0] + 6)), (labels[1], range(frames[1] - 5, frames[1])))
    for label_line, rows in halves:
        for m in re.finditer(r"\d+", lines[label_line]):
            col = m.end() - 1
            cells = [lines[r][col - 1 : col + 2].strip() for r in rows]
            counts[int(m.group())] = _stack(cells)
    bar_col = lines[frames[0] + 6].index("BAR") + 1 if "BAR" in lines[frames[0] + 6] else None
    bars = [0, 0]
    if bar_col is not None:
        bars[1] = _stack([lines[r][bar_col - 1 : bar_col + 2].strip() for r in halves[0][1]])
        bars[0] = _stack([lines[r][bar_col - 1 : bar_col + 2].strip() for r in halves[1][1]])
    off = [int(v) for v in re.findall(r"borne off (\d+)", text)]
    return counts, abs(bars[0]), abs(bars[1]), off


def _stack(cells: list[str]) -> int:
    """Signed height of one column's cells: X counts +, O counts -; a number gives the height."""
    symbols = [c for c in cells if c in ("X", "O")]
    numbers = [int(c) for c in cells if c.isdigit()]
    sign = 1 if symbols and symbols[0] == "X" else -1
    return sign * (numbers[0] if numbers else len(symbols))


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_ascii_start_position_reads_back(game):
    """The text board of each start position shows every point's checkers, with counts on tall stacks."""
    pos = start_position(game)
    counts, bar, opp_bar, off = read_ascii(ascii_board(game, pos))
    assert counts == {p: int(pos[p - 1]) for p in range(1, 25)}
    assert (bar, opp_bar, off) == (0, 0, [0, 0])


def test_ascii_nardi_heads_in_their_corners():
    """Long nardi: the mover's head (24) is the top-right point, the opponent's (our 12) the bottom left."""
    lines = ascii_board("nardi", start_position("nardi")).splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(" +")) + 1
    board_width = len(" +" + "-" * 18 + "+" + "-" * 18 + "+")  # no bar: one divider
    assert lines[top][:board_width].endswith("X |")
    bottom = max(i for i, line in enumerate(lines) if line.startswith(" +")) - 1
    assert lines[bottom][:board_width].startswith(" | O ")
    assert "BAR" not in "\n".join(lines)


def test_ascii_hand_made_position():
    """A hand-made position: tall stacks, both bars and both trays read back; pips and the cube shown."""
    text = ascii_board("backgammon", HAND_MADE, mover_name="you", opponent_name="bot", cube=(4, 1),
                       dice=(6, 5))
    counts, bar, opp_bar, off = read_ascii(text)
    assert counts == {p: int(HAND_MADE[p - 1]) for p in range(1, 25)}
    assert (bar, opp_bar) == (1, 2)
    assert off == [2, 2]
    top, bottom = text.split("|BAR|")
    assert "pips 106" in top and "owns the cube at 4" in top and "O: bot" in top  # 2 x 24 + 9 x 19 ... + bar
    assert "pips 84" in bottom and "rolled 6-5" in bottom and "X: you" in bottom


def test_ascii_highlight_marks_points():
    """Highlighted points get a marker in their own column (v over the top row, ^ under the bottom row)."""
    lines = ascii_board("backgammon", start_position("backgammon"), highlight=[13, 8]).splitlines()
    top_marks, top_labels = lines[0], lines[1]
    assert top_marks[top_labels.index("13") + 1] == "v"
    assert top_marks.count("v") == 1
    bottom_labels, bottom_marks = lines[-2], lines[-1]
    assert bottom_marks[bottom_labels.index(" 8 ") + 1] == "^"
    assert bottom_marks.count("^") == 1


def test_ascii_refuses_bad_position():
    """A position that breaks the rules is refused with the reason, not drawn."""
    bad = start_position("backgammon").copy()
    bad[5] += 1
    with pytest.raises(ValueError, match="16 checkers"):
        ascii_board("backgammon", bad)


def _svg(text: str) -> ET.Element:
    return ET.fromstring(text)


def _checkers(root: ET.Element, side: str | None = None) -> list[ET.Element]:
    return [c for c in root.iter(f"{SVG}circle")
            if "checker" in c.get("class", "").split() and (side is None or side in c.get("class", ""))]


def _of_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if cls in e.get("class", "").split()]


@pytest.mark.parametrize("game, shapes, labels", [("backgammon", 30, []), ("nardi", 10, ["15", "15"])])
def test_svg_start_positions(game, shapes, labels):
    """A start position's SVG parses as XML, with at most five places a point, counts on taller stacks."""
    root = _svg(svg_board(game, start_position(game), title="start"))
    assert len(_checkers(root)) == shapes
    assert len(_checkers(root, "mover")) == shapes // 2
    assert [t.text for t in _of_class(root, "text", "count")] == labels
    assert len(_of_class(root, "polygon", "point")) == 24


def test_svg_hand_made_position_and_play():
    """Hand-made SVG: bar and tall stacks drawn, one tray bar per borne-off checker, the cube, one arrow
    per step of the play and its points outlined."""
    root = _svg(svg_board("backgammon", HAND_MADE, dice=(3, 3), cube=(4, 1), score=(1, 3, 5),
                          play="bar/22 6/3(3)", title="a < b & c"))
    # mover: 5 (of 7) + 3 + 2 + 1 on the bar; opponent: 2 + 5 (of 9) + 2 on the bar
    assert len(_checkers(root, "mover")) == 11
    assert len(_checkers(root, "opponent")) == 9
    assert sorted(t.text for t in _of_class(root, "text", "count")) == ["7", "9"]
    assert len(_of_class(root, "rect", "off")) == 4
    assert len(_of_class(root, "rect", "cube")) == 1
    assert len(_of_class(root, "line", "arrow")) == 4
    outlined = [p for p in _of_class(root, "polygon", "point") if p.get("stroke")]
    assert len(outlined) == 3  # 22, 6 and 3
    assert "pips 84" in [t.text for t in _of_class(root, "text", "pips")]


def test_svg_play_forms_agree():
    """A play given as text, as the position after it, or as steps draws the same arrows."""
    pos = start_position("backgammon")
    from engine.notation import parse_play

    after = parse_play("backgammon", pos, (3, 1), "8/5 6/5")
    forms = ["8/5 6/5", after, [(8, 5), (6, 5)], np.stack([pos, after])]
    drawn = [[(a.get("x1"), a.get("y2")) for a in _of_class(_svg(svg_board("backgammon", pos, dice=(3, 1),
                                                                             play=form)), "line", "arrow")]
             for form in forms]
    assert all(d == drawn[0] for d in drawn) and len(drawn[0]) == 2


def test_svg_play_needs_dice_and_legal_steps():
    """Marking a play as text without dice, or a step that runs backwards, is refused with the reason."""
    pos = start_position("backgammon")
    with pytest.raises(ValueError, match="needs the dice"):
        svg_board("backgammon", pos, play="8/5 6/5")
    with pytest.raises(ValueError, match="a step runs"):
        svg_board("backgammon", pos, play=[(5, 8)])


def test_write_image_svg(tmp_path):
    """.svg writes the drawing as it is."""
    text = svg_board("nardi", start_position("nardi"))
    path = write_image(tmp_path / "board.svg", text)
    assert path.read_text() == text


def test_write_image_png_without_converter(tmp_path, monkeypatch):
    """Without cairosvg, rsvg-convert or ImageMagick, .png is refused with a message that says to use .svg."""
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import cairosvg now raises ImportError
    monkeypatch.setattr(svg.shutil, "which", lambda name: None)
    with pytest.raises(ImageError, match=r"\.svg"):
        write_image(tmp_path / "board.png", svg_board("backgammon", start_position("backgammon")))
    assert not (tmp_path / "board.png").exists()


def test_write_image_unknown_suffix(tmp_path):
    """Any other file type is refused with the reason."""
    with pytest.raises(ImageError, match="not .jpg"):
        write_image(tmp_path / "board.jpg", "<svg/>")


# -- the whole state: cube, score and match, turn, names by colour ---------------------------------

def _texts(root: ET.Element, cls: str) -> list[str]:
    return [t.text for t in _of_class(root, "text", cls)]


def _cube_y(root: ET.Element) -> float:
    (cube,) = _of_class(root, "rect", "cube")
    return float(cube.get("y"))


def test_svg_says_cube_score_turn_and_names_by_colour():
    """The drawing carries the cube (value, owner by place and word), the match score and length, the
    Crawford game, whose turn it is (with the dice in that side's colour), and names White and Black."""
    root = _svg(svg_board("backgammon", HAND_MADE, dice=(6, 5), cube=(4, 1), score=(1, 3, 5), crawford=True,
                          on_roll=1, mover_name="you", opponent_name="bot"))
    assert _texts(root, "name") == ["Black: bot", "White: you"]
    assert _texts(root, "cube-value") == ["4"] and _texts(root, "cube-owner") == ["Black"]
    assert _texts(root, "state") == ["5-point match, score 1-3", "Crawford game: no doubling"]
    assert _texts(root, "turn") == ["on roll, 6-5"]
    turn_y = float(_of_class(root, "text", "turn")[0].get("y"))
    names_y = {t.text: float(t.get("y")) for t in _of_class(root, "text", "name")}
    assert turn_y < names_y["White: you"]  # by Black's block, at the top
    assert {d.get("fill") for d in _of_class(root, "rect", "die")} == {svg.COLOURS["opponent"]}
    # the cube goes with its owner: top (Black), middle (centred, "64"), bottom (White)
    owned = {owner: _svg(svg_board("backgammon", HAND_MADE, cube=(2 if owner is not None else 1, owner)))
             for owner in (1, None, 0)}
    assert _cube_y(owned[1]) < _cube_y(owned[None]) < _cube_y(owned[0])
    assert _texts(owned[None], "cube-value") == ["64"] and _texts(owned[None], "cube-owner") == ["centred"]
    assert _texts(owned[0], "cube-owner") == ["White"]


def test_svg_money_play_says_jacoby_and_beavers():
    """Money play: "money play", the session score, and the Jacoby and beaver settings; no turn for None."""
    root = _svg(svg_board("backgammon", start_position("backgammon"), score=(2, 0, 0), jacoby=True,
                          beavers=False, on_roll=None))
    assert _texts(root, "state") == ["money play, score 2-0", "Jacoby on, beavers off"]
    assert _texts(root, "turn") == [] and _texts(root, "name") == ["Black", "White"]
    bare = _svg(svg_board("backgammon", start_position("backgammon"), jacoby=False))
    assert _texts(bare, "state") == ["money play", "Jacoby off"]


def test_ascii_says_the_state_and_names_sides_without_repeating_symbols():
    """Text board: no "X: X" without names; money play with Jacoby/beavers, or the match and Crawford."""
    text = ascii_board("backgammon", start_position("backgammon"), cube=(2, 0), score=(0, 1, 0), jacoby=False,
                       beavers=True)
    assert "X: X" not in text and "O: O" not in text and "owns the cube at 2" in text
    assert text.rstrip().endswith("money play, score 0-1; Jacoby off, beavers on")
    match = ascii_board("backgammon", HAND_MADE, score=(4, 2, 5), crawford=True, mover_name="you")
    assert "5-point match, score 4-2; Crawford game: no doubling" in match and "X: you" in match


def test_nardi_pictures_have_no_cube():
    """Long nardi: a cube, Jacoby or beavers are refused; a match score is said without them."""
    pos = start_position("nardi")
    for draw in (ascii_board, svg_board):
        with pytest.raises(ValueError, match="no doubling cube"):
            draw("nardi", pos, cube=(1, None))
        with pytest.raises(ValueError, match="no doubling cube"):
            draw("nardi", pos, jacoby=True)
    root = _svg(svg_board("nardi", pos, score=(0, 2, 3)))
    assert _texts(root, "state") == ["3-point match, score 0-2"] and not _of_class(root, "rect", "cube")
    assert ascii_board("nardi", pos, score=(1, 0)).rstrip().endswith(" score 1-0")


def test_the_board_names_the_money_options():
    """Under a money board: Jacoby, beavers and the automatic-doubles limit (or off); long nardi refuses them."""
    from engine.formats.pictures import money_options_text

    text = ascii_board("backgammon", start_position("backgammon"), score=(1, 0, 0), jacoby=True, beavers=False,
                       automatic_doubles=3)
    assert "money play, score 1-0; Jacoby on, beavers off, automatic doubles up to 3" in text
    assert money_options_text(None, None, 0) == "automatic doubles off"
    with pytest.raises(ValueError, match="automatic doubles"):
        ascii_board("nardi", start_position("nardi"), automatic_doubles=1)
