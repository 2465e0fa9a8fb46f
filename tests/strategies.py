"""Hypothesis strategies for the fuzz tests of every text reader, and the checks they share.

Valid inputs are built from valid values through the writers (a position -> its Position ID, a
MatchInfo -> its Match ID and XGID, a FibsBoard -> its board line, a legal play -> its move text, a
match record -> its .mat text); ``mutants`` then changes a few characters, fields or lines of them, so
that most inputs are near misses of the format rather than noise. ``answers_or_refuses`` is the
property every reader must keep: it returns a result, or raises one clear error (a ValueError of the
project's kinds with a one-line message), never another exception and never a hang. ``DEEP``,
``HUGE``, ``DIGITS`` and ``RAW_JSON`` are hostile input: nested, huge, or of more digits than int() reads.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from contextlib import contextmanager

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.board import BAR, CHECKERS, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF, PositionError
from engine.errors import FormatError, IllegalPlayError
from engine.formats.fibs import FibsBoard
from engine.formats.match_id import CUBE_CENTRED, GameStatus, MatchInfo
from engine.formats.matfile import DOUBLE, DROP, MOVE, TAKE, Action, GameRecord, MatchRecord
from engine.match import RuleError

FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
"""Settings of one fuzzed reader: a few hundred inputs (FUZZ_EXAMPLES=5000 for a longer hunt), no
deadline (a loaded runner must not fail a test; a hang is caught by HANG_SECONDS instead)."""
HANG_SECONDS = 10
"""An input answered later than this counts as a hang."""
CLEAR_ERRORS = (FormatError, IllegalPlayError, PositionError, RuleError)
"""The errors a reader may answer bad input with: ValueErrors whose message says what is wrong."""

GAMES = ("backgammon", "nardi")
SPECIALS = list(":/-=*()[]{},.\"' \t\n\x00") + list("0123456789") + ["bar", "off", "XGID=", "board:", "\u00e9"]
"""Characters and pieces the mutations insert: the formats' own punctuation, digits, words, non-ASCII."""


# ----------------------------------------------------------------------------------------------
# the property


class Hang(Exception):
    """An input took longer than HANG_SECONDS."""


def numba_compiling() -> bool:
    """Whether this thread is inside numba's compiler (its global compiler lock held: compiling a kernel,
    or loading one from the disk cache); False where numba has not been imported."""
    lock = sys.modules.get("numba.core.compiler_lock")
    return lock is not None and lock.global_compiler_lock.is_locked()


@contextmanager
def no_hang(seconds: float = HANG_SECONDS):
    """Raise Hang inside the block if it runs longer than ``seconds`` (SIGALRM: main thread only), but
    never inside numba's compiler: there the alarm waits until the compile is done. An exception
    raised while a kernel compiles leaves numba's library half built, and llvmlite later crashed the
    whole test process freeing it (a fresh clone's first fuzz example compiles the serve path's
    kernels, over 10 s on a slow machine); a compile ends by itself, so waiting cannot hang."""
    def expire(signum, frame):
        if numba_compiling():
            signal.setitimer(signal.ITIMER_REAL, 0.25)
            return
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def is_clear(err: BaseException) -> bool:
    """One of CLEAR_ERRORS with a message of one non-empty line."""
    message = str(err)
    return isinstance(err, CLEAR_ERRORS) and bool(message.strip()) and "\n" not in message


def answers_or_refuses(reader, *args):
    """``reader(*args)``'s result, or None when it refused with one clear error; any other exception
    (or a hang) fails the test with the input in the message."""
    try:
        with no_hang():
            return reader(*args)
    except CLEAR_ERRORS as err:
        assert is_clear(err), f"{type(err).__name__} with an unclear message {str(err)!r} for {args!r}"
        return None


# ----------------------------------------------------------------------------------------------
# mutations


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with one to four edits: a character deleted, inserted, replaced or swapped, a cut, a
    piece doubled, or the text's own characters reordered."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "swap", "cut", "double", "case"]))
        piece = draw(st.sampled_from(chars + SPECIALS) if chars else st.sampled_from(SPECIALS))
        if op == "insert" or not chars:
            chars.insert(draw(st.integers(0, len(chars))), piece)
            continue
        i = draw(st.integers(0, len(chars) - 1))
        if op == "delete":
            del chars[i]
        elif op == "replace":
            chars[i] = draw(st.sampled_from(SPECIALS) | st.characters(codec="utf-8"))
        elif op == "swap":
            j = draw(st.integers(0, len(chars) - 1))
            chars[i], chars[j] = chars[j], chars[i]
        elif op == "cut":
            chars = chars[:i] if draw(st.booleans()) else chars[i:]
        elif op == "double":
            j = draw(st.integers(i, len(chars)))
            chars[i:i] = chars[i:j]
        else:
            chars[i] = chars[i].swapcase()
    return "".join(chars)


@st.composite
def field_mutated(draw, text: str, sep: str = ":") -> str:
    """``text`` with one ``sep``-separated field replaced (by a number, nothing or a word), dropped or
    doubled: the faults of a hand-edited ID or board line."""
    fields = text.split(sep)
    i = draw(st.integers(0, len(fields) - 1))
    op = draw(st.sampled_from(["number", "empty", "word", "drop", "double"]))
    if op == "number":
        fields[i] = str(draw(st.integers(-(2**70), 2**70) | st.integers(-3, 70)))
    elif op == "empty":
        fields[i] = ""
    elif op == "word":
        fields[i] = draw(st.sampled_from(["x", "D", "B", "nan", "1e3", "0x10", " 1", "+1", "١"]))
    elif op == "drop":
        del fields[i]
    else:
        fields.insert(i, fields[i])
    return sep.join(fields)


def mutants(valid: st.SearchStrategy, sep: str | None = None) -> st.SearchStrategy:
    """Inputs around ``valid`` texts: the valid text itself, character mutants, (with ``sep``) field
    mutants, and plain random text."""
    options = [valid, valid.flatmap(mutated)]
    if sep is not None:
        options.append(valid.flatmap(lambda text: field_mutated(text, sep)))
    options.append(st.text(max_size=60))
    return st.one_of(*options)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.integers(-20, 20)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
"""Any JSON value (NaN and Infinity too, which Python's json reads)."""
DEEP = st.integers(1, 60_000).map(lambda n: "[" * n + "]" * n)
"""JSON text nested ``n`` deep (Python's reader stops near a thousand levels)."""
HUGE = st.tuples(st.sampled_from("A1[{\" \u00e9\x00:"), st.integers(1_000, 200_000)).map(lambda c: c[0] * c[1])
"""A run of one character, up to 200,000 long."""
DIGITS = (st.integers(20, 40) | st.integers(4_250, 6_000)).map(lambda n: "-" * (n % 2) + "9" * n)
"""A whole number of tens of digits, or of more than the 4,300 that Python's int() reads from text."""
RAW_JSON = JSON_VALUES.map(json.dumps) | DEEP | HUGE.map(json.dumps) | DIGITS
"""A JSON value as text, hostile or not: any value, lists nested thousands deep, strings of up to
200,000 characters, numbers of thousands of digits."""


def with_value(obj: dict, key: str, raw: str) -> str:
    """``obj`` as JSON text with ``key`` holding the JSON text ``raw`` (which may nest too deeply to be a
    Python object)."""
    return json.dumps({**obj, key: "@@"}).replace('"@@"', raw)


@st.composite
def json_mutated(draw, obj: dict) -> dict:
    """A JSON object with one to three structural faults: a key dropped, added or given another value,
    a list entry replaced, added or removed."""
    obj = json.loads(json.dumps(obj))
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["drop", "add", "value", "entry", "grow", "shrink"]))
        keys = sorted(obj)
        if op == "add" or not keys:
            obj[draw(st.text(max_size=6) | st.sampled_from(["board", "bar", "off", "dice", "first_turn"]))] = draw(
                JSON_VALUES)
            continue
        key = draw(st.sampled_from(keys))
        value = obj[key]
        if op == "drop":
            del obj[key]
        elif op == "value" or not isinstance(value, list) or not value:
            obj[key] = draw(JSON_VALUES)
        elif op == "entry":
            value[draw(st.integers(0, len(value) - 1))] = draw(JSON_VALUES | st.integers(-16, 16))
        elif op == "grow":
            value.append(draw(st.integers(-16, 16)))
        else:
            value.pop(draw(st.integers(0, len(value) - 1)))
    return obj


# ----------------------------------------------------------------------------------------------
# valid values


@st.composite
def positions(draw, game: str = "backgammon") -> np.ndarray:
    """A valid position (28,) int8 of ``game`` in the mover's frame: each side's 15 checkers put on
    points, the bar (backgammon) or borne off; an opponent checker drawn onto a mover's point is
    borne off instead."""
    places = 26 if game == "backgammon" else 25  # 0..23 points, then (backgammon) the bar, then off
    pos = np.zeros(NUM_SLOTS, dtype=np.int16)
    for side in (0, 1):
        for place in draw(st.lists(st.integers(0, places - 1), min_size=CHECKERS, max_size=CHECKERS)):
            if place < 24:
                if side == 0:
                    pos[place] += 1
                elif pos[place] > 0:
                    pos[OPP_OFF] += 1
                else:
                    pos[place] -= 1
            elif place == places - 1:
                pos[OFF if side == 0 else OPP_OFF] += 1
            else:
                pos[BAR if side == 0 else OPP_BAR] += 1
    if pos[OFF] == CHECKERS and pos[OPP_OFF] == CHECKERS:  # not both sides done: one comes back
        pos[OFF] -= 1
        pos[0] += 1
    return pos.astype(np.int8)


DICE = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def match_infos(draw) -> MatchInfo:
    """Any MatchInfo the formats can write: money or a match (scores not always below the length),
    any cube, owner, turn, waiting double or resignation, dice or none."""
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 25]) | st.integers(0, 2**15 - 1))
    high = max(length - 1, 0) if draw(st.booleans()) else 2**15 - 1
    doubled = draw(st.booleans())
    return MatchInfo(
        cube_value=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([CUBE_CENTRED, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)),
        crawford=draw(st.booleans()),
        game_state=draw(st.sampled_from(list(GameStatus))),
        double_offered=doubled,
        resignation=0 if doubled else draw(st.integers(0, 3)),
        dice=(0, 0) if doubled else draw(st.just((0, 0)) | DICE),
        match_length=length,
        scores=(draw(st.integers(0, high)), draw(st.integers(0, high))),
        jacoby=draw(st.booleans()),
        beavers=draw(st.booleans()),
        max_cube_log2=draw(st.integers(0, 15)),
    )


@st.composite
def fibs_boards(draw) -> FibsBoard:
    """A FibsBoard gnubg could send: a position, whose turn, dice or a waiting double, cube, score."""
    length = draw(st.sampled_from([0, 1, 3, 5, 7]))
    scores = (draw(st.integers(0, max(length - 1, 0) if length else 20)),
              draw(st.integers(0, max(length - 1, 0) if length else 20)))
    doubled = draw(st.booleans())
    return FibsBoard(
        names=(draw(st.sampled_from(["gnubg", "bot", "a b"])), draw(st.sampled_from(["you", "x"]))),
        match_length=length, scores=scores, position=draw(positions("backgammon")),
        mover=draw(st.integers(0, 1)), dice=None if doubled else draw(st.none() | DICE),
        cube=1 << draw(st.integers(0, 6)), cube_owner=draw(st.sampled_from([None, 0, 1])), doubled=doubled,
        crawford=bool(length) and draw(st.booleans()), post_crawford=bool(length) and draw(st.booleans()),
    )


MAT_PLAYS = st.sampled_from(["8/5 6/5", "24/18 18/13", "bar/22* 13/11", "6/off 5/off", "13/7* 7/1*(2)", "",
                             "25/20", "8/2 6/2"])
"""Move cells of a .mat file (gnubg's step form), legal or not: the reader is syntactic."""


@st.composite
def match_records(draw) -> MatchRecord:
    """A MatchRecord of one to three games of moves and cube actions, finished or not."""
    games = []
    for number in range(draw(st.integers(1, 3))):
        actions = []
        for k in range(draw(st.integers(0, 8))):
            kind = draw(st.sampled_from([MOVE, MOVE, MOVE, DOUBLE, TAKE, DROP]))
            player = k % 2
            actions.append(Action(player, kind, draw(DICE), draw(MAT_PLAYS)) if kind == MOVE else Action(player, kind))
        winner = draw(st.none() | st.integers(0, 1))
        games.append(GameRecord(tuple(actions), (number, 0), winner, 0 if winner is None else draw(st.integers(1, 6))))
    names = (draw(st.sampled_from(["bot", "gnubg", "human"])), draw(st.sampled_from(["pubeval", "player1"])))
    return MatchRecord(names, draw(st.sampled_from([0, 1, 5, 7])), tuple(games))
