"""Move notation of both games, out (gnubg style) and in (every form docs/FORMATS.md lists).

Notation keeps no rules: the legal plays and the steps taken to each are engine.movegen's
(``legal_plays(..., with_steps=True)``: a non-double's higher die first whenever that order reaches
the play, a double's sources never rising), a single move's legality is engine.rules'. Points are
the mover's numbers, 1..24; the bar is 25 as a source, "off" is 0 as a destination.

Out, as gnubg writes it (checked against gnubg 1.07, see tests/engine/test_notation.py):
  * one step per die ``13/7``, ``bar/22``, ``6/off``; ``*`` after a point where an opponent blot
    stood before the play (a hit);
  * steps sorted from the highest starting point down; a step that starts where an earlier one
    ended is joined to it: ``24/18*/13`` keeps the point where something was hit, ``24/13`` when
    nothing happened on the way;
  * identical moves once with a count: ``8/5(2)``;
  * the empty play (no die can be used) is ``""`` (gnubg prints nothing; the ``plays`` command and
    the FIBS protocol use that); ``NO_PLAY`` = "(no play)" is the form for people to read.
``steps`` gives the play one step per die in the generator's order, each legal where it is taken, as
gnubg's external player protocol needs (it applies the steps as given, hitting at each destination).

In: ``parse_play`` reads all those forms (case-insensitive, stars optional, ``b``/``bar``,
``o``/``off``, ``25`` = bar, ``0`` = off, chains, counts), gives the legs dice, plays the steps one
by one (each allowed by ``engine.rules.single_die_moves``, moved by a plain helper) and accepts the
result only if it is one of ``legal_plays``' children. Otherwise the reason is the engine.rules
predicate that refuses a step, or how the play falls short of the legal ones.
"""

from __future__ import annotations

import re
import time
from itertools import combinations, pairwise, permutations

import numpy as np

from engine.board import BAR, HEAD, OFF, OPP_BAR, check_game, validate
from engine.compiled import Kernels, charge_numpy
from engine.errors import FormatError, IllegalPlayError
from engine.movegen import legal_plays
from engine.rules import (
    all_home,
    bar_first,
    head_limits,
    head_open,
    heads_left,
    may_bear_off,
    open_landing,
    single_die_moves,
    six_in_a_row_violations,
)

NO_PLAY = "(no play)"
"""The empty play written for people; ``format_play`` returns "" for it (gnubg prints nothing)."""

BAR_POINT = 25
OFF_POINT = 0

Step = tuple[int, int]  # (source point 25..1, destination point 24..0)


class _Refused(Exception):
    """A single step the rules refuse, with the reason."""


_POINT_NAMES = ("off", *(str(p) for p in range(1, BAR_POINT)), "bar")  # by point: 0 off, 1..24, 25 the bar


def _point_name(point: int) -> str:
    return _POINT_NAMES[point] if OFF_POINT <= point <= BAR_POINT else str(point)


def _generated(game: str, before, dice, first_turn: bool | None) -> dict[bytes, tuple[tuple[int, int], ...]]:
    """Every legal play of the roll: child -> the (source, die) steps the move generator took to it."""
    before = np.asarray(before, np.int8)
    roll = np.array([[int(dice[0]), int(dice[1])]])
    children, _, trail = legal_plays(game, before[None], roll, first_turn, with_steps=True)
    return {bytes(kid): tuple((s, d) for s, d in taken if s) for kid, taken in zip(children, trail.tolist())}


def _as_steps(taken) -> tuple[Step, ...]:
    """(source, die) steps as (source, destination) steps, a die past the last point going off."""
    return tuple((s, max(s - d, OFF_POINT)) for s, d in taken)


def generated_steps(taken) -> list[tuple[Step, ...]]:
    """The single steps (source, destination) of each child from the generator's (source, die) rows
    ``taken`` (N, steps, 2), in the order the generator took them (``_as_steps`` of each row, the
    destinations worked out for all rows at once)."""
    taken = np.asarray(taken, dtype=np.int64)
    if taken.size == 0:
        return [() for _ in range(len(taken))]
    source = taken[..., 0]
    rows = np.stack([source, np.maximum(source - taken[..., 1], OFF_POINT)], axis=-1).tolist()
    return [tuple(tuple(step) for step in row if step[0]) for row in rows]


def format_step_lists(game: str, before, step_lists) -> list[str]:
    """Notation of children of one position ``before`` from their single steps (``generated_steps``)."""
    hits = _hit_points(game, before)
    return [group_steps(game, before, steps, hits) for steps in step_lists]


def format_generated_many(game: str, before, taken) -> list[str]:
    """Notation of children of one position ``before`` from the steps ``legal_plays(...,
    with_steps=True)`` gave them (``taken`` (N, steps, 2): rows of (source, die), (0, 0) past the last):
    what ``format_plays`` writes for those children, without calling the generator again. With numba
    (engine/compiled.py), engine/notation_numba.py's kernel writes the same text for all of them."""
    kernel = _kernel()
    if kernel is None or len(taken) == 0:
        start = time.perf_counter()
        out = format_step_lists(game, before, generated_steps(taken))
        charge_numpy(time.perf_counter() - start)
        return out
    return _kernel_texts(kernel, game, np.asarray(before)[None], np.zeros(len(taken), dtype=np.int64), taken)


def format_generated_each(game: str, befores, taken) -> list[str]:
    """Notation of one play of each of many positions: play i (``taken[i]``, as ``format_generated_many``
    reads it) of the position ``befores[i]`` (``Bot.choose_batch``'s best plays: one kernel call for
    all of them with numba)."""
    kernel = _kernel()
    if kernel is None or len(taken) == 0:
        start = time.perf_counter()
        out = [format_step_lists(game, before, generated_steps(taken[i:i + 1]))[0] for i, before in enumerate(befores)]
        charge_numpy(time.perf_counter() - start)
        return out
    return _kernel_texts(kernel, game, befores, np.arange(len(taken), dtype=np.int64), taken)


def _kernel_texts(kernel, game: str, befores, owner: np.ndarray, taken) -> list[str]:
    text, ends = kernel(np.ascontiguousarray(befores, dtype=np.int8), owner, np.ascontiguousarray(taken, dtype=np.int8),
                        game == "backgammon")
    text = text.tobytes().decode("ascii")
    starts = [0, *ends[:-1].tolist()]
    return [text[a:b] for a, b in zip(starts, ends.tolist())]


def _import_kernel():
    from engine.notation_numba import notation_kernel

    return notation_kernel


_kernel = Kernels(_import_kernel)


# ----------------------------------------------------------------------------------------------
# out


def _hit_points(game: str, before) -> set[int]:
    """The points (1..24) where an opponent's blot or point stands before the play (backgammon)."""
    return set((np.flatnonzero(np.asarray(before)[:24] < 0) + 1).tolist()) if game == "backgammon" else set()


def _group_two(moves, hit_points: set[int]) -> str:
    """``group_steps`` of one or two steps sorted high to low: what its general loop writes for them."""
    (a, b) = moves[0]
    name = _POINT_NAMES
    if len(moves) == 1:
        return f"{name[a]}/{name[b]}" + ("*" if b in hit_points else "")
    (c, d) = moves[1]
    if b != OFF_POINT and c == b:  # one checker moves on: joined, the point kept only where it hits
        text = f"{name[a]}/{b}*/{name[d]}" if b in hit_points else f"{name[a]}/{name[d]}"
        return text + ("*" if d in hit_points and d != b else "")
    first = f"{name[a]}/{name[b]}" + ("*" if b in hit_points else "")
    if (a, b) == (c, d):
        return first + "(2)"
    return first + f" {name[c]}/{name[d]}" + ("*" if d in hit_points and d != b else "")


def group_steps(game: str, before, step_list, hit_points: set[int] | None = None) -> str:
    """gnubg's grouping of single steps: sorted high to low, one checker's moves joined, counts, stars.

    As gnubg 1.07's FormatMove does it: steps sorted by source, then destination, both descending;
    a step joined to an earlier one ending on its source (the point kept only where an opponent blot
    stood before the play); identical moves counted; a star printed on the first move (in printed
    order) that lands on a point where a blot stood, and on every kept intermediate point.
    ``hit_points``: ``_hit_points(game, before)``, when the caller has it already.
    """
    if not step_list:
        return ""
    if hit_points is None:
        hit_points = _hit_points(game, before)
    moves = sorted(step_list, reverse=True)  # by source, then destination, both descending
    if len(moves) <= 2:  # one or two steps (most plays): the general rules written out for them
        return _group_two(moves, hit_points)
    return _group_general(moves, hit_points)


def _group_general(moves, hit_points: set[int]) -> str:
    """``group_steps`` of any number of steps sorted high to low."""
    paths = [list(m) for m in moves]
    used = [False] * len(paths)
    for i, path in enumerate(paths):
        if used[i]:
            continue
        for j in range(i + 1, len(paths)):
            if not used[j] and path[-1] != OFF_POINT and paths[j][0] == path[-1]:
                if path[-1] not in hit_points:
                    path.pop()  # nothing happened on the way: drop the intermediate point
                path.append(paths[j][-1])
                used[j] = True
    words, starred = [], set()
    for i, path in enumerate(paths):
        if used[i]:
            continue
        count = 1
        for j in range(i + 1, len(paths)):
            if not used[j] and paths[j] == path:
                used[j] = True
                count += 1
        text = _POINT_NAMES[path[0]]
        for p in path[1:-1]:  # kept intermediate points are hits
            text += f"/{p}*"
            starred.add(p)
        last = path[-1]
        text += "/" + _POINT_NAMES[last]
        if last in hit_points and last not in starred:  # a blot is hit once: one star per point
            text += "*"
            starred.add(last)
        words.append(text + (f"({count})" if count > 1 else ""))
    return " ".join(words)


def play_steps(game: str, before, after, dice, first_turn: bool | None = None) -> tuple[Step, ...]:
    """The single steps, in an order they can be played, of a play from ``before`` to ``after``:
    those the move generator took to reach it.

    ``after`` must be a legal play of the roll (ValueError otherwise); () for the empty play.
    """
    check_game(game)
    found = _generated(game, before, dice, first_turn).get(bytes(np.asarray(after, np.int8)))
    if found is None:
        raise ValueError(f"no play of {dice[0]}-{dice[1]} leads from the first position to the second")
    return _as_steps(found)


def format_play(game: str, before, after, dice, first_turn: bool | None = None) -> str:
    """gnubg-style notation of the play from ``before`` to ``after`` with ``dice`` ("" = no play)."""
    return group_steps(game, np.asarray(before), play_steps(game, before, after, dice, first_turn))


def steps(game: str, before, after, dice, first_turn: bool | None = None) -> str:
    """The play one step per die, playable in the order written (``24/18 18/13``), without stars."""
    return " ".join(
        f"{_point_name(s)}/{_point_name(d)}" for s, d in play_steps(game, before, after, dice, first_turn)
    )


def format_plays(game: str, position, dice, children, first_turn: bool | None = None) -> list[str]:
    """Notation of every child of one position (one call of the move generator for all of them)."""
    check_game(game)
    found = _generated(game, position, dice, first_turn)
    out = []
    for child in np.asarray(children, np.int8):
        seq = found.get(bytes(child))
        if seq is None:
            raise ValueError(f"a child is not reachable from its position with {dice[0]}-{dice[1]}")
        out.append(group_steps(game, np.asarray(position), _as_steps(seq)))
    return out


# ----------------------------------------------------------------------------------------------
# in

_POINT = r"(?:\d{1,2}|bar|b|off|o)"
_TOKEN = re.compile(rf"({_POINT})((?:/{_POINT}\*?)+)(?:\((\d)\))?")
_SEPARATORS = re.compile(r"[\s,]+")


def _read_point(text: str, game: str, is_source: bool, token: str) -> int:
    if text in ("bar", "b"):
        point = BAR_POINT
    elif text in ("off", "o"):
        point = OFF_POINT
    else:
        point = int(text)
    if point > BAR_POINT:
        raise FormatError(f"{token}: there is no point {point} (1..24, 25 = bar, 0 = off)")
    if point == BAR_POINT and (not is_source or game == "nardi"):
        raise FormatError(
            f"{token}: " + ("long nardi has no bar" if game == "nardi" else "nothing moves to the bar")
        )
    if point == OFF_POINT and is_source:
        raise FormatError(f"{token}: nothing moves from off the board")
    return point


def read_legs(game: str, text: str) -> list[tuple[int, int, bool]]:
    """The legs (source, destination, starred) a move text names, counts expanded, chains split.

    Syntax only: FormatError for text that is no move text at all. ``legs`` may span several dice.
    """
    check_game(game)
    legs = []
    for token in _SEPARATORS.split(text.strip().lower()):
        if not token:
            continue
        match = _TOKEN.fullmatch(token)
        if not match:
            raise FormatError(
                f"cannot read {token!r}: expected moves like 13/7, bar/22, 6/off, 24/18*/13, 8/5(2)"
            )
        first, rest, count = match.groups()
        points = [_read_point(first, game, True, token)]
        stars = [False]
        for part in rest.split("/")[1:]:
            stars.append(part.endswith("*"))
            points.append(_read_point(part.rstrip("*"), game, False, token))
        for a, b in pairwise(points):
            if b >= a:
                raise FormatError(f"{token}: checkers move from higher points to lower ones, not {a} to {b}")
            if a == OFF_POINT:
                raise FormatError(f"{token}: nothing moves on after bearing off")
        n = int(count) if count else 1
        if not 1 <= n <= 4:
            raise FormatError(f"{token}: a move is repeated 1 to 4 times, not {n}")
        for _ in range(n):
            legs += [(a, b, star) for a, b, star in zip(points, points[1:], stars[1:])]
    return legs


def _leg_dice(source: int, dest: int, left: tuple[int, ...]):
    """Every ordered choice of dice from ``left`` that moves one checker from source to dest."""
    for i, die in enumerate(left):
        if die in left[:i]:
            continue
        rest = left[:i] + left[i + 1 :]
        there = source - die
        if there == dest or (dest == OFF_POINT and there < 0):
            yield (die,), rest
        elif there > dest and there > 0:
            for more, rest2 in _leg_dice(there, dest, rest):
                yield (die,) + more, rest2


def _expansions(legs, left: tuple[int, ...]):
    """Every way to give the legs dice: lists of (source, die, starred, intermediate) steps."""
    if not legs:
        yield []
        return
    source, dest, star = legs[0]
    for dice_used, rest in _leg_dice(source, dest, left):
        here, chunk = source, []
        for k, die in enumerate(dice_used):
            last = k == len(dice_used) - 1
            chunk.append((here, die, star and last, not last))
            here -= die
        for tail in _expansions(legs[1:], rest):
            yield chunk + tail


def _leg_shortfall(legs, roll: tuple[int, ...], dice_text: str) -> str:
    """Why the legs cannot be given dice of the roll: names the first leg no dice fit."""
    left = roll
    for source, dest, _ in legs:
        options = list(_leg_dice(source, dest, left))
        if options:
            left = options[0][1]
            continue
        name = f"{_point_name(source)}/{_point_name(dest)}"
        if not left:
            return f"{name}: more moves than the roll {dice_text} has dice for"
        if any(_leg_dice(source, dest, roll)):
            return f"{name}: the dice of {dice_text} are used up by the moves before it"
        if dest == OFF_POINT:
            return f"{name}: no die of {dice_text} (nor a sum of them) bears a checker off from {source}"
        pips = source - dest
        return f"{name}: {pips} pip{'s' * (pips > 1)} is not a die of {dice_text} (nor a sum of them)"
    return f"the moves do not fit the roll {dice_text}"


def _move(pos: np.ndarray, source: int, dest: int) -> tuple[np.ndarray, bool]:
    """One checker from ``source`` to ``dest`` (0 = off), nothing checked: (new position, hit); a
    lone opponent checker where it lands is hit and goes to the opponent's bar."""
    new = pos.copy()
    new[BAR if source == BAR_POINT else source - 1] -= 1
    if dest == OFF_POINT:
        new[OFF] += 1
        return new, False
    hit = bool(new[dest - 1] == -1)
    new[dest - 1] = 1 if hit else new[dest - 1] + 1
    new[OPP_BAR] += hit
    return new, hit


def _refusal(game: str, pos: np.ndarray, source: int, die: int, head_left: int) -> str:
    """Why engine.rules refuses moving a checker from ``source`` by ``die``: the first of its
    predicates (``bar_first``, ``head_open``, ``open_landing``, ``all_home``, ``may_bear_off``) that
    the move fails, said in words."""
    one, dest = pos[None], source - die
    if source == BAR_POINT and pos[BAR] <= 0:
        return "no checker on the bar"
    if source != BAR_POINT and bar_first(game, one)[0]:
        return "a checker on the bar must enter first"
    if source != BAR_POINT and pos[source - 1] <= 0:
        return f"no checker on {source}"
    if source - 1 == HEAD and not head_open(game, np.array([head_left]))[0]:
        return "no more checkers may leave the head (24) this turn"
    if dest >= 1 and not open_landing(game, pos[dest - 1]):
        return f"point {dest} is closed"
    if dest <= 0 and not all_home(one)[0]:
        return f"{_point_name(source)}/off: bearing off needs every checker in the home board"
    if dest <= 0 and not may_bear_off(one, np.arange(1, 26)[None] - die)[0, source - 1]:
        return f"{source}/off: a {die} bears off from {source} only when no checker stands higher"
    return f"{_point_name(source)}/{_point_name(max(dest, OFF_POINT))}: not a legal move"


def _run(game: str, start: np.ndarray, order, limit: np.ndarray) -> tuple[np.ndarray, set[int]]:
    """Play (source, die, ...) steps in order, each one a move engine.rules allows where it is taken:
    (position, points hit), or _Refused with the reason. ``limit`` (1,) is ``head_limits``' answer."""
    pos, hits = start, set()
    for source, die, *_ in order:
        head_left = heads_left(game, limit, start[HEAD : HEAD + 1], pos[None])
        _, sources, _ = single_die_moves(game, pos[None], np.array([die]), head_left)
        if source - 1 not in sources:  # the bar, point 25, is slot 24
            raise _Refused(_refusal(game, pos, source, die, int(head_left[0])))
        pos, hit = _move(pos, source, max(source - die, OFF_POINT))
        if hit:
            hits.add(source - die)
    return pos, hits


def _execute(game: str, start: np.ndarray, expansion, limit: np.ndarray):
    """Play the steps in the order written, else in any order that works: (position, hits) or _Refused
    with the reason the written order fails."""
    try:
        return _run(game, start, expansion, limit)
    except _Refused as first_reason:
        for order in permutations(expansion):
            try:
                return _run(game, start, order, limit)
            except _Refused:
                continue
        raise first_reason from None


def _tier(expansion, hits: set[int]) -> int:
    """0: the text says exactly what happened; 1: it leaves out a hit on the way; 2: a star with no hit."""
    starred = {source - die for source, die, star, _ in expansion if star}
    quiet_on_the_way = {source - die for source, die, star, middle in expansion if middle}
    if not starred <= hits:
        return 2
    return 1 if hits & quiet_on_the_way else 0


def parse_play(game: str, position, dice, text: str, first_turn: bool | None = None) -> np.ndarray:
    """The position (28,) a move text leaves; IllegalPlayError (or FormatError for unreadable text)
    naming the reason when it is no legal play of ``dice`` in ``position``.

    A bad position raises board.PositionError, a bad roll ValueError (all are ValueErrors). Where the
    text leaves out the points between (``13/7`` with 4-2), the way on which nothing is hit is taken,
    as gnubg writes a hit on the way (``13/11*/7``); if every way hits and they differ, the text is
    ambiguous and refused with the candidates.
    """
    check_game(game)
    before = np.asarray(position, np.int8)
    validate(game, before)
    if len(dice) != 2 or not all(1 <= int(d) <= 6 for d in dice):
        raise ValueError(f"a roll is two dice 1..6, got {tuple(dice)}")
    dice = (int(dice[0]), int(dice[1]))
    dice_text = f"{dice[0]}-{dice[1]}"
    legal = _generated(game, before, dice, first_turn)
    legs = read_legs(game, text)
    if not legs:
        if set(legal) == {bytes(before)}:
            return before.copy()
        raise IllegalPlayError(f"no move given, but {dice_text} can be played here")
    left = (dice[0],) * 4 if dice[0] == dice[1] else tuple(sorted(dice, reverse=True))
    expansions = list(_expansions(legs, left))
    if not expansions:
        raise IllegalPlayError(_leg_shortfall(legs, left, dice_text))
    limit = head_limits(game, before[None], np.array([dice]), first_turn)
    results: dict[int, dict[bytes, np.ndarray]] = {0: {}, 1: {}, 2: {}}
    refusals, played = [], []
    for expansion in expansions:
        try:
            after, hits = _execute(game, before, expansion, limit)
        except _Refused as reason:
            refusals.append(str(reason))
            continue
        played.append((after, expansion))
        if bytes(after) in legal:
            results[_tier(expansion, hits)].setdefault(bytes(after), after)
    for tier in (0, 1):
        found = results[tier]
        if len(found) == 1:
            return next(iter(found.values()))
        if len(found) > 1:
            texts = (format_play(game, before, a, dice, first_turn) for a in found.values())
            options = " or ".join(sorted(texts))
            raise IllegalPlayError(f"{text.strip()!r} is ambiguous with {dice_text}: {options}")
    if results[2]:
        raise IllegalPlayError(f"{text.strip()}: a '*' marks a hit, and nothing is hit there")
    if not played:
        raise IllegalPlayError(refusals[0])
    raise IllegalPlayError(_why_not_legal(game, dice, played[0], legal))


def partial_play(game: str, position, dice, taken, first_turn: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A play entered a checker at a time (a page's clicks): (the position the ``taken`` steps leave,
    the legal plays of ``dice`` they can still end in, (N, 28)). Each step is (source 25..1, destination
    24..0) in the mover's numbers, a single die or several at once (``24/13``); a lone opponent checker
    where one lands is hit. The steps stand on the way to a legal play when their position is where
    some of that play's generator steps (any of them, in the generator's order) lead: the play is
    complete when the position is one of the plays itself. Only the order in which the steps were
    taken is not checked, except that a checker on the bar enters first. IllegalPlayError (a
    ValueError) names a step that moves no checker of the mover's, or a position no legal play passes.
    """
    check_game(game)
    before = np.asarray(position, np.int8)
    validate(game, before)
    legal = _generated(game, before, dice, first_turn)
    pos = before
    for step in taken:
        source, dest = (int(v) for v in step)
        if not (1 <= source <= BAR_POINT and OFF_POINT <= dest < source):
            raise IllegalPlayError(f"a step runs from a point 25..1 (25 = bar) down to 24..0 (0 = off), "
                                   f"got {source}/{dest}")
        if source != BAR_POINT and bar_first(game, pos[None])[0]:
            raise IllegalPlayError("a checker on the bar must enter first")
        if (pos[BAR] if source == BAR_POINT else pos[source - 1]) <= 0:
            raise IllegalPlayError(f"no checker of the side to play on {_point_name(source)}")
        pos, _ = _move(pos, source, dest)
    key = bytes(pos)
    reachable = []
    for kid, taken_by_generator in legal.items():
        path = _as_steps(taken_by_generator)
        for size in range(len(path) + 1):
            if any(bytes(_apply(before, (path[i] for i in chosen))) == key
                   for chosen in combinations(range(len(path)), size)):
                reachable.append(np.frombuffer(kid, dtype=np.int8))
                break
    if not reachable:
        raise IllegalPlayError(f"{' '.join(f'{_point_name(s)}/{_point_name(d)}' for s, d in taken)}: "
                               f"no legal play of {dice[0]}-{dice[1]} goes that way")
    return pos, np.stack(reachable)


def _apply(position: np.ndarray, path) -> np.ndarray:
    """The position after the (source, destination) steps of ``path``, nothing checked."""
    pos = position
    for source, dest in path:
        pos, _ = _move(pos, source, dest)
    return pos


def _why_not_legal(game, dice, played, legal) -> str:
    """The rule a playable but illegal play breaks, found by comparing it with the legal plays (the
    generator's, engine.movegen's rules 1-3): fewer dice than they use, the lower die where they use
    the higher, a final position ``six_in_a_row_violations`` refuses."""
    after, expansion = played
    used = len(expansion)
    most = max(len(taken) for taken in legal.values())
    if used < most:
        if dice[0] != dice[1]:
            return "must play both dice"
        return f"must play {most} moves of the double {dice[0]}-{dice[1]}"
    high = max(dice)
    if used == 1 and expansion[0][1] != high and any(t and t[0][1] == high for t in legal.values()):
        return f"must play the higher die ({high})"
    if game == "nardi" and six_in_a_row_violations(after[None])[0]:
        return "six points in a row may not be built unless an opponent checker is ahead of them"
    return f"not a legal play of {dice[0]}-{dice[1]}"


__all__ = ["NO_PLAY", "format_generated_each", "format_generated_many", "format_play", "format_plays",
           "format_step_lists", "generated_steps", "group_steps", "parse_play", "partial_play", "play_steps",
           "read_legs", "steps"]
