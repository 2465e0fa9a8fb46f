"""Move notation (engine/notation.py): gnubg's own move lists as vectors and a live differential, nardi
by hand, FIBS one-step-per-die output, every input form read back, and illegal text refused with its reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from engine.board import BAR, OFF, OPP_BAR, start_position
from engine.errors import FormatError, IllegalPlayError
from engine.formats.position import read_json_position, read_position_id, write_position_id
from engine.movegen import legal_plays
from engine.notation import (
    NO_PLAY,
    format_generated_many,
    format_play,
    format_plays,
    parse_play,
    play_steps,
    read_legs,
    steps,
)
from engine.tools.sample import random_positions


def _children(game, position, dice, first_turn=None):
    children, _ = legal_plays(game, np.asarray(position, np.int8)[None], np.array([dice]), first_turn)
    return children


def _position(points: dict[int, int], bar=(0, 0), off=None, game="backgammon") -> np.ndarray:
    """A position from {mover's point: signed count}; the borne-off counts fill each side up to 15."""
    board = [points.get(p, 0) for p in range(1, 25)]
    if off is None:
        mine = sum(v for v in board if v > 0) + bar[0]
        theirs = -sum(v for v in board if v < 0) + bar[1]
        off = (15 - mine, 15 - theirs)
    return read_json_position(game, {"board": board, "bar": list(bar), "off": list(off)})


# ------------------------------------------------------------------------------------------------
# gnubg's own notation

# (Position ID, dice, every move gnubg 1.07 lists) recorded with its embedded Python: `set board ID`,
# `set dice a b`, 0-ply `gnubg.hint(10000)`; positions from engine.tools.sample's random play. [] = no play.
GNUBG_HINTS = [
    (
        "xGfiATDgc/ABMA",
        (2, 1),
        [
            "24/22*/21",
            "24/23 24/22*",
            "24/22* 6/5",
            "24/22* 8/7",
            "24/23 13/11",
            "13/11 6/5",
            "13/10",
            "24/21",
            "13/11 8/7",
            "24/23 6/4",
            "8/5",
            "6/3",
            "24/23 8/6",
            "6/5 6/4",
            "8/7 6/4",
            "8/7 8/6",
        ],
    ),
    (
        "NnbBIBI5DiC4OA",
        (6, 6),
        [
            "21/15 20/2*",
            "21/15 20/14(3)",
            "21/9 20/14 15/9",
            "20/2* 15/9",
            "21/3 20/14",
            "20/14(2) 15/3",
            "20/14(3) 15/9",
            "21/3 15/9",
            "20/8(2)",
            "20/8 15/3",
            "21/9 20/8",
            "21/9 20/14(2)",
            "20/8 20/14(2)",
            "20/2* 20/14",
            "21/15 20/8 20/14",
            "20/8 20/14 15/9",
        ],
    ),
    (
        "Y2/AhQC6MxxhAA",
        (5, 5),
        [
            "13/8 10/5(3)",
            "13/3 6/1(2)",
            "13/3 10/5(2)",
            "13/3 10/5 6/1",
            "13/8 10/5 6/1(2)",
            "13/8 10/5(2) 6/1",
            "10/5(3) 6/1",
            "10/5(2) 6/1(2)",
        ],
    ),
    ("wk/wADGG5+ABUA", (6, 1), ["bar/18", "bar/24 13/7", "bar/24 8/2"]),
    ("7wwDCAfffQIBAA", (5, 1), ["11/5", "11/6 1/off", "11/6 3/2", "11/6 2/1"]),
    (
        "0GvhASisneABMA",
        (6, 2),
        [
            "24/18* 6/4",
            "24/18* 4/2*",
            "8/2* 6/4",
            "8/2* 4/2",
            "24/18*/16*",
            "24/18* 13/11",
            "24/18* 8/6",
            "24/16*",
            "24/22 24/18*",
            "13/7 4/2*",
            "24/22 8/2*",
            "13/11 8/2*",
            "13/7 6/4",
            "24/18* 3/1*",
            "8/2* 3/1*",
            "13/5",
            "24/22 13/7",
            "13/7 8/6",
            "13/11 13/7",
            "24/18* 5/3",
            "13/7 3/1*",
            "8/2* 5/3",
            "13/7 5/3",
        ],
    ),
    ("+4DI4BBPQ3gGAg", (6, 6), ["20/2* 8/2", "14/2*(2)", "20/8 14/8(2)", "20/2* 14/8"]),
    ("TV2JARSY54URQA", (2, 6), []),
    (
        "ouvgASHCa/AAWA",
        (3, 5),
        [
            "bar/20* 8/5*",
            "bar/20* 24/21",
            "bar/20* 7/4",
            "bar/20* 13/10",
            "bar/20* 6/3",
            "bar/22 7/2",
            "bar/22 6/1*",
            "bar/22 13/8",
            "bar/22 8/3",
        ],
    ),
    ("vw0BoQHfnwAIAA", (6, 6), ["15/off 4/off"]),
]


@pytest.mark.parametrize("position_id, dice, moves", GNUBG_HINTS)
def test_notation_matches_gnubg_move_lists(position_id, dice, moves):
    """Every legal play is written exactly as gnubg lists it: stars, joins, counts, bar, off, no play."""
    position = read_position_id(position_id)
    ours = format_plays("backgammon", position, dice, _children("backgammon", position, dice))
    assert sorted(ours) == sorted(moves or [""])


GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

_GNUBG_HINT_SCRIPT = """
import gnubg, json, os
for command in ("set player 0 human", "set player 1 human", "set automatic roll off",
                "set evaluation chequerplay evaluation plies 0", "new game"):
    gnubg.command(command)
out = open(os.environ["OUT"], "w")
for line in open(os.environ["IN"]):
    position_id, a, b = line.split()
    gnubg.command("set board " + position_id)
    gnubg.command("set dice %s %s" % (a, b))
    out.write(json.dumps([m["move"] for m in gnubg.hint(10000)["hint"]]) + "\\n")
out.close()
"""


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_notation_and_plays_agree_with_live_gnubg(tmp_path):
    """On random positions of every kind gnubg 1.07 lists the same plays, written the same way."""
    cases = [
        random_positions("backgammon", 30, seed=8, kind=k) for k in ("midgame", "contact", "bar", "bearoff")
    ]
    positions = np.concatenate([c[0] for c in cases])
    dice = np.concatenate([c[1] for c in cases])
    dice[::5] = dice[::5, :1]  # more doubles
    lines = [f"{write_position_id(p)} {d[0]} {d[1]}" for p, d in zip(positions, dice)]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "hints.py").write_text(_GNUBG_HINT_SCRIPT)
    env = dict(os.environ, IN=str(tmp_path / "in.txt"), OUT=str(tmp_path / "out.jsonl"))
    command = [GNUBG, "-t", "-q", "-r", "-p", str(tmp_path / "hints.py")]
    subprocess.run(command, env=env, capture_output=True, timeout=300, check=False)  # gnubg exits 0 anyway
    answers = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(answers) == len(positions)
    children, parent = legal_plays("backgammon", positions, dice)
    for k, (position, roll, theirs) in enumerate(zip(positions, dice, answers)):
        ours = format_plays("backgammon", position, roll, children[parent == k])
        assert sorted(ours) == sorted(theirs or [""]), lines[k]


# ------------------------------------------------------------------------------------------------
# out: nardi, the empty play, one step per die


@pytest.mark.parametrize(
    "dice, first_turn, moves",
    [
        ((6, 6), None, ["24/18(2)"]),  # first turn: two checkers leave the head, the other sixes are lost
        ((6, 6), False, ["24/18"]),  # later: one checker, 18/12 runs into the opponent's head
        ((4, 4), None, ["24/16(2)"]),
        ((3, 3), None, ["24/15 24/21", "24/18(2)"]),
        ((6, 5), None, ["24/13"]),
        ((5, 5), None, ["24/4"]),
    ],
)
def test_nardi_start_notation(dice, first_turn, moves):
    """Long nardi plays from the start are written in the mover's numbers, the head being 24."""
    start = start_position("nardi")
    ours = format_plays("nardi", start, dice, _children("nardi", start, dice, first_turn), first_turn)
    assert sorted(ours) == moves


def test_no_play_is_the_empty_string():
    """A roll that cannot be played is written "" (the protocol's form); NO_PLAY is the readable form."""
    closed = _position({19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 24: -2, 6: 14, 1: -3}, bar=(1, 0))
    (child,) = _children("backgammon", closed, (6, 5))
    assert (
        format_play("backgammon", closed, child, (6, 5)) == ""
        and steps("backgammon", closed, child, (6, 5)) == ""
    )
    assert NO_PLAY == "(no play)"
    assert np.array_equal(parse_play("backgammon", closed, (6, 5), ""), closed)


def test_steps_are_one_per_die_in_playable_order():
    """FORMATS.md's worked request: 6-5 running from the 24-point is answered 24/18 18/13."""
    start = start_position()
    after = parse_play("backgammon", start, (5, 6), "24/13")
    assert steps("backgammon", start, after, (5, 6)) == "24/18 18/13"
    assert format_play("backgammon", start, after, (5, 6)) == "24/13"


def _apply_like_gnubg(position: np.ndarray, text: str) -> np.ndarray:
    """Apply 'a/b' steps as gnubg's external-player protocol does: as given, hitting at each destination."""
    pos = position.astype(int)
    for word in text.split():
        source, dest = word.split("/")
        source = 25 if source == "bar" else int(source)
        dest = 0 if dest == "off" else int(dest)
        pos[BAR if source == 25 else source - 1] -= 1
        if dest == 0:
            pos[OFF] += 1
        elif pos[dest - 1] == -1:
            pos[dest - 1], pos[OPP_BAR] = 1, pos[OPP_BAR] + 1
        else:
            pos[dest - 1] += 1
    return pos.astype(np.int8)


def test_steps_replayed_as_gnubg_does_reach_the_play():
    """Played step by step with hits only at each step's destination, `steps` reaches the very position."""
    for kind in ("contact", "bar", "bearoff"):
        positions, dice = random_positions("backgammon", 25, seed=6, kind=kind)
        for position, roll in zip(positions, dice):
            for child in _children("backgammon", position, roll):
                text = steps("backgammon", position, child, roll)
                assert np.array_equal(_apply_like_gnubg(position, text), child), text
                assert len(play_steps("backgammon", position, child, roll)) == len(text.split())


def test_hit_on_the_way_is_kept_and_a_quiet_path_is_preferred():
    """3-3 through a blot on 10 is 13/10*/7 (steps 13/10 10/7); '13/7' with 4-2 takes the path that hits nothing."""
    position = _position({13: 5, 8: 3, 6: 5, 24: 2, 10: -1, 1: -2, 12: -4, 17: -3, 19: -5})
    hit = parse_play("backgammon", position, (3, 3), "13/10*/7 6/3(2)")
    assert format_play("backgammon", position, hit, (3, 3)) == "13/10*/7 6/3(2)"
    assert steps("backgammon", position, hit, (3, 3)).startswith("13/10 10/7")
    one_blot = _position({13: 5, 8: 3, 6: 5, 24: 2, 11: -1, 1: -2, 12: -4, 17: -3, 19: -5})
    quiet = parse_play("backgammon", one_blot, (4, 2), "13/7")
    assert quiet[10] == -1 and quiet[OPP_BAR] == 0  # the blot on 11 still stands
    hitting = parse_play("backgammon", one_blot, (4, 2), "13/11*/7")
    assert hitting[10] == 0 and hitting[OPP_BAR] == 1
    assert format_play("backgammon", one_blot, hitting, (4, 2)) == "13/11*/7"


# ------------------------------------------------------------------------------------------------
# in: every form reads back to the play


def _variants(text: str) -> list[str]:
    """The same play written in the other accepted forms."""
    return [
        text,
        text.upper().replace("*", ""),
        text.replace("bar", "b").replace("off", "o"),
        text.replace("bar", "25").replace("off", "0").replace("*", ""),
    ]


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_every_written_form_reads_back_to_its_play(game):
    """gnubg form, one-step-per-die form, upper case, no stars, b/o, 25/0 all parse to the same child."""
    kinds = (
        ("contact", "bar", "bearoff") if game == "backgammon" else ("opening", "midgame", "blocks", "bearoff")
    )
    rng = np.random.default_rng(0)
    for kind in kinds:
        positions, dice = random_positions(game, 12, seed=5, kind=kind)
        for position, roll in zip(positions, dice):
            children = _children(game, position, roll)
            texts = format_plays(game, position, roll, children)
            for k in rng.permutation(len(children))[:10]:
                child = children[k]
                forms = _variants(texts[k]) + [steps(game, position, child, roll)]
                for text in forms if game == "backgammon" else forms[:1] + forms[-1:]:
                    assert np.array_equal(parse_play(game, position, roll, text), child), text


def test_chains_and_counts_read_as_their_steps():
    """'24/18/13' is 24/18 18/13, '8/5(2)' two moves, separators may be commas."""
    assert read_legs("backgammon", "24/18*/13, 8/5(2)") == [
        (24, 18, True),
        (18, 13, False),
        (8, 5, False),
        (8, 5, False),
    ]
    start = start_position()
    assert np.array_equal(
        parse_play("backgammon", start, (3, 1), "8/5, 6/5"),
        parse_play("backgammon", start, (3, 1), "8/5 6/5"),
    )


# ------------------------------------------------------------------------------------------------
# in: text that is no legal play


def _ambiguous() -> np.ndarray:
    return _position({13: 5, 8: 3, 6: 5, 24: 2, 11: -1, 9: -1, 1: -2, 12: -3, 17: -3, 19: -5})


def _six_in_a_row() -> np.ndarray:
    return _position({18: 2, 17: 2, 16: 2, 15: 2, 14: 2, 19: 1, 24: 4, 12: -15}, game="nardi")


@pytest.mark.parametrize(
    "game, position, dice, text, reason",
    [
        ("backgammon", start_position(), (6, 5), "13/7 8/7", "8/7: 1 pip is not a die of 6-5"),
        ("backgammon", start_position(), (6, 5), "24/10", "24/10: 14 pips is not a die of 6-5"),
        (
            "backgammon",
            start_position(),
            (6, 5),
            "24/18 24/19 6/1",
            "more moves than the roll 6-5 has dice for",
        ),
        ("backgammon", start_position(), (6, 5), "13/7 13/7", "used up by the moves before it"),
        ("backgammon", start_position(), (6, 5), "9/3 8/3", "no checker on 9"),
        ("backgammon", start_position(), (6, 5), "13/7 6/1", "point 1 is closed"),
        ("backgammon", start_position(), (6, 5), "24/18", "must play both dice"),
        ("backgammon", start_position(), (6, 6), "13/7", "must play 4 moves of the double 6-6"),
        (
            "backgammon",
            start_position(),
            (6, 5),
            "6/off 6/1",
            "bearing off needs every checker in the home board",
        ),
        ("backgammon", start_position(), (6, 5), "", "no move given, but 6-5 can be played"),
        ("backgammon", start_position(), (6, 5), "24/18* 13/8", "nothing is hit there"),
        ("backgammon", start_position(), (6, 5), "bar/19 13/8", "no checker on the bar"),
        ("backgammon", _position({13: 1, 2: -2, 20: -13}), (6, 5), "13/8", "must play the higher die (6)"),
        (
            "backgammon",
            _position({5: 1, 2: 1}),
            (6, 1),
            "2/off 5/4",
            "a 6 bears off from 2 only when no checker",
        ),
        (
            "backgammon",
            _position({24: 1, 13: 13, 12: -15}, bar=(1, 0)),
            (6, 5),
            "13/7 13/8",
            "the bar must enter first",
        ),
        ("backgammon", _ambiguous(), (4, 2), "13/7", "is ambiguous with 4-2: 13/11*/7 or 13/9*/7"),
        ("nardi", start_position("nardi"), (6, 6), "24/12", "point 12 is closed"),
        ("nardi", start_position("nardi"), (6, 5), "24/18 24/19", "no more checkers may leave the head (24)"),
        ("nardi", start_position("nardi"), (6, 6), "24/18(3)", "no more checkers may leave the head (24)"),
        ("nardi", _six_in_a_row(), (6, 1), "19/13 24/23", "six points in a row"),
    ],
)
def test_illegal_text_is_refused_with_its_reason(game, position, dice, text, reason):
    """Text naming no legal play raises IllegalPlayError whose one line says which rule it breaks."""
    with pytest.raises(IllegalPlayError) as caught:
        parse_play(game, position, dice, text)
    assert reason in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "game, text, reason",
    [
        ("backgammon", "13-7", "cannot read '13-7'"),
        ("backgammon", "13/", "cannot read"),
        ("backgammon", "26/20", "no point 26"),
        ("backgammon", "6/12", "from higher points to lower ones"),
        ("backgammon", "20/bar", "nothing moves to the bar"),
        ("backgammon", "off/20", "nothing moves from off the board"),
        ("backgammon", "8/5(5)", "1 to 4 times"),
        ("nardi", "bar/19", "long nardi has no bar"),
    ],
)
def test_unreadable_text_is_a_format_error(game, text, reason):
    """Text that is no move text at all raises FormatError naming what could not be read."""
    start = start_position(game)
    with pytest.raises(FormatError) as caught:
        parse_play(game, start, (6, 5), text)
    assert reason in str(caught.value)


def test_the_six_in_a_row_position_is_legal_another_way():
    """The six-in-a-row case above refuses only the block: 19/13 is fine once the block is not closed."""
    position = _six_in_a_row()
    texts = format_plays("nardi", position, (6, 1), _children("nardi", position, (6, 1)))
    assert "19/13 24/23" not in texts and any(t.startswith("24/18") for t in texts)


def test_partial_play_follows_clicked_steps_to_the_legal_plays():
    """partial_play (a page's clicks): steps in any order on the way to a legal play narrow the plays
    they can end in, a whole play is one of them, a step off every legal play or from an empty point
    is refused with the reason, and a checker on the bar enters first."""
    from engine.notation import partial_play

    start = start_position("backgammon")
    _, every = partial_play("backgammon", start, (6, 1), [])
    assert len(every) == len(legal_plays("backgammon", start[None], np.array([[6, 1]]))[0])
    made = parse_play("backgammon", start, (6, 1), "13/7 8/7")
    after, left = partial_play("backgammon", start, (6, 1), [(8, 7)])  # the lower die first
    assert 1 < len(left) < len(every) and any((left == made).all(axis=1))
    after, left = partial_play("backgammon", start, (6, 1), [(8, 7), (13, 7)])
    assert np.array_equal(after, made) and len(left) == 1
    after, _ = partial_play("backgammon", start, (6, 5), [(24, 13)])  # two dice in one step
    assert np.array_equal(after, parse_play("backgammon", start, (6, 5), "24/13"))
    with pytest.raises(IllegalPlayError, match="no legal play of 6-1"):
        partial_play("backgammon", start, (6, 1), [(24, 20)])
    with pytest.raises(IllegalPlayError, match="no checker"):
        partial_play("backgammon", start, (6, 1), [(20, 14)])
    on_bar = start.copy()
    on_bar[23] -= 1
    on_bar[BAR] += 1
    with pytest.raises(IllegalPlayError, match="bar must enter first"):
        partial_play("backgammon", on_bar, (6, 1), [(13, 7)])


@pytest.mark.parametrize("game, kind, first_turn", [("backgammon", "any", None), ("nardi", "any", None),
                                                    ("nardi", "opening", True)])
def test_notation_from_the_generators_steps_is_format_plays(game, kind, first_turn):
    """format_generated_many (one batched generator call with steps) writes what format_plays writes
    for every child of every position, passes included, and on long nardi's first turn (two
    checkers may leave the head with 6-6, 4-4 or 3-3)."""
    positions, dice = random_positions(game, 60, seed=11, kind=kind)
    if first_turn:
        positions = np.repeat(start_position(game, batch=1), 21, axis=0)
        dice = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)])
    children, parent, taken = legal_plays(game, positions, dice, first_turn, with_steps=True)
    for i in range(len(positions)):
        rows = np.flatnonzero(parent == i)
        expected = format_plays(game, positions[i], dice[i], children[rows], first_turn)
        assert format_generated_many(game, positions[i], taken[rows]) == expected
        if first_turn and tuple(dice[i]) in ((6, 6), (4, 4), (3, 3)):
            assert any("(2)" in move or move.count("24/") == 2 for move in expected)


def test_generated_steps_are_play_steps():
    """generated_steps (the single steps of each child from one generator call) gives play_steps'
    answer for every child: bar entries, bear-offs, doubles, hits, and long nardi."""
    from engine.notation import generated_steps
    from engine.tools.sample import random_positions

    for game, kinds in (("backgammon", ("bar", "bearoff", "midgame")), ("nardi", ("midgame", "bearoff"))):
        for seed, kind in enumerate(kinds):
            positions, dice = random_positions(game, 12, seed=40 + seed, kind=kind)
            for position, roll in zip(positions, dice):
                children, _, taken = legal_plays(game, position[None], roll[None], with_steps=True)
                found = generated_steps(taken)
                assert len(found) == len(children)
                for child, singles in zip(children, found):
                    assert singles == play_steps(game, position, child, roll)


def test_one_and_two_steps_are_grouped_as_the_general_rules_group_them():
    """group_steps writes out its rules for one or two steps (most plays); for every single step and
    every pair of steps (sources 1..25, dice 1..6, a bear-off as 0), with no hit, a hit on either
    destination, on both, and on every point, the text is the general loop's."""
    from engine.notation import _group_general, _group_two

    single = [(s, max(s - d, 0)) for s in range(1, 26) for d in range(1, 7)]
    lists = [[m] for m in single] + [sorted([m, n], reverse=True) for m in single for n in single]
    checked = 0
    for moves in lists:
        dests = {m[1] for m in moves} - {0}
        for hits in (set(), dests, set(range(1, 25)), *({d} for d in dests)):
            assert _group_two(moves, hits) == _group_general(moves, hits), (moves, hits)
            checked += 1
    assert checked > 80_000
