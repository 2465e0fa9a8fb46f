"""A slow, obvious, scalar reference move generator: the executable spec of ``engine.movegen``.

Written from the rule texts (shared/seeds) and shared/RULES-DECISIONS.md, one position at a time,
with plain Python lists and no code from ``engine.rules`` or ``engine.movegen``; only the layout
constants of ``engine.board`` are shared. A position is a tuple of 28 ints in the mover's frame:
slots 0..23 the mover's points 1..24 (+ mover, - opponent), 24 the mover's bar, 25 the opponent's
bar, 26 the mover's checkers off, 27 the opponent's.

Every sequence of single-checker moves is enumerated die by die (both orders of a non-double, up
to four moves of a double), including the sequences that stop early, and then the roll is used in
the order RULES-DECISIONS gives:
  1. drop every sequence whose final position breaks long nardi's six-in-a-row rule;
  2. keep the sequences that use the most dice;
  3. if that is one die of a non-double and some remaining play uses the higher die, keep those;
  4. if no die can be used, the play is empty (the position is unchanged).
Sequences that reach the same position with the same dice left continue alike, so each die step
keeps one copy of each (position, dice used) state; this changes nothing in the result.
"""

from __future__ import annotations

from engine.board import BAR, CHECKERS, HEAD, OFF, OPP_BAR, OPP_OFF

Position = tuple


def point(pos: Position, p: int) -> int:
    """The signed count on the mover's point p (1..24)."""
    return pos[p - 1]


def mover_all_home(pos: Position) -> bool:
    """"Once all 15 of a side's checkers are in its home board" (points 1..6), none on the bar."""
    if pos[BAR] > 0:
        return False
    return all(point(pos, p) <= 0 for p in range(7, 25))


def highest_mover_point(pos: Position) -> int:
    """The mover's highest occupied point, 0 if none is on the board."""
    for p in range(24, 0, -1):
        if point(pos, p) > 0:
            return p
    return 0


def can_land(game: str, pos: Position, p: int) -> bool:
    """Backgammon: "never on a point the opponent holds with two or more". Long nardi: "nothing may
    land where the opponent has a checker"."""
    if game == "backgammon":
        return point(pos, p) >= -1
    return point(pos, p) >= 0


def may_bear_off_from(pos: Position, p: int, die: int) -> bool:
    """"A number takes a checker off from the point of that number. A higher number may bear off from
    the highest point a checker is on, but not from a lower one while a higher point is held." Only
    once every checker is home."""
    if not mover_all_home(pos):
        return False
    if die == p:
        return True
    return die > p and highest_mover_point(pos) == p


def move_checker(game: str, pos: Position, source: int, die: int) -> Position:
    """The position after one checker leaves ``source`` (a point 1..24, or 25 for the bar) with ``die``.

    Landing on a lone opponent checker in backgammon hits it: "it goes to the bar".
    """
    board = list(pos)
    if source == 25:
        board[BAR] -= 1
    else:
        board[source - 1] -= 1
    target = source - die
    if target <= 0:
        board[OFF] += 1
    elif board[target - 1] == -1 and game == "backgammon":
        board[target - 1] = 1
        board[OPP_BAR] += 1
    else:
        board[target - 1] += 1
    return tuple(board)


def single_moves(game: str, pos: Position, die: int, head_moves_left: int) -> list[Position]:
    """Every position one checker can reach with one die (one entry per legal checker move).

    "A side with a checker on the bar must bring it in before anything else moves": a die of N
    enters on the mover's point 25-N. In long nardi, "only one checker may leave the head in a turn"
    (``head_moves_left`` says how many more may).
    """
    results = []
    if game == "backgammon" and pos[BAR] > 0:
        if can_land(game, pos, 25 - die):
            results.append(move_checker(game, pos, 25, die))
        return results
    for source in range(1, 25):
        if point(pos, source) <= 0:
            continue
        if game == "nardi" and source == HEAD + 1 and head_moves_left <= 0:
            continue
        target = source - die
        if target >= 1:
            if can_land(game, pos, target):
                results.append(move_checker(game, pos, source, die))
        elif may_bear_off_from(pos, source, die):
            results.append(move_checker(game, pos, source, die))
    return results


def opponent_path() -> list[int]:
    """The opponent's way in the mover's point numbers: 12, 11, ..., 1, 24, 23, ..., 13."""
    return list(range(12, 0, -1)) + list(range(24, 12, -1))


def breaks_six_in_a_row(pos: Position) -> bool:
    """Long nardi: "a play may not leave the mover holding six (or more) consecutive points unless at
    least one opponent checker is past the block", consecutive and past along the opponent's way; a
    checker borne off is past every block."""
    path = opponent_path()
    for start in range(len(path) - 5):
        block = path[start:start + 6]
        if not all(point(pos, p) > 0 for p in block):
            continue
        later = path[start + 6:]
        passed = pos[OPP_OFF] > 0 or any(point(pos, p) < 0 for p in later)
        if not passed:
            return True
    return False


def head_limit(game: str, pos: Position, dice: tuple[int, int], first_turn: bool | None) -> int:
    """How many checkers may leave the head this turn: one; two on the first turn (all 15 on the
    head unless ``first_turn`` says otherwise) with 6-6, 4-4 or 3-3. Backgammon has no head."""
    if game != "nardi":
        return CHECKERS
    if first_turn is None:
        first_turn = pos[HEAD] == CHECKERS
    if first_turn and dice[0] == dice[1] and dice[0] in (3, 4, 6):
        return 2
    return 1


def all_sequences(game: str, pos: Position, dice: tuple[int, int], first_turn: bool | None):
    """Every (final position, dice used in order) of every move sequence, including shorter ones."""
    if dice[0] == dice[1]:
        orders = [(dice[0],) * 4]
    else:
        orders = [(dice[0], dice[1]), (dice[1], dice[0])]
    limit = head_limit(game, pos, dice, first_turn)
    found = {(pos, ())}
    for order in orders:
        level = {(pos, ())}
        for die in order:
            next_level = set()
            for here, used in level:
                left = limit - (pos[HEAD] - here[HEAD]) if game == "nardi" else limit
                for child in single_moves(game, here, die, left):
                    next_level.add((child, used + (die,)))
            found |= next_level
            level = next_level
    return found


def reference_plays(game: str, position, dice, first_turn: bool | None = None) -> set[Position]:
    """The set of distinct positions legal full plays of ``dice`` leave (the position itself on a pass)."""
    pos = tuple(int(v) for v in position)
    dice = (int(dice[0]), int(dice[1]))
    sequences = all_sequences(game, pos, dice, first_turn)
    if game == "nardi":  # rule 1
        sequences = {(p, used) for p, used in sequences if not breaks_six_in_a_row(p) or not used}
    most = max(len(used) for _, used in sequences)  # rule 2
    sequences = {(p, used) for p, used in sequences if len(used) == most}
    if most == 1 and dice[0] != dice[1]:  # rule 3
        higher = max(dice)
        if any(used == (higher,) for _, used in sequences):
            sequences = {(p, used) for p, used in sequences if used == (higher,)}
    return {p for p, _ in sequences}  # rule 4: with most == 0 this is {pos}


def make_position(game: str, mine: dict[int, int], theirs: dict[int, int] | None = None,
                  bar: tuple[int, int] = (0, 0)) -> tuple:
    """A position from point counts in the mover's numbers: ``mine`` {point: checkers}, ``theirs``
    {point: checkers} (positive counts), ``bar`` (mover, opponent); every checker not placed is off."""
    pos = [0] * 28
    for p, count in mine.items():
        pos[p - 1] += count
    for p, count in (theirs or {}).items():
        pos[p - 1] -= count
    pos[BAR], pos[OPP_BAR] = bar
    pos[OFF] = CHECKERS - sum(mine.values()) - bar[0]
    pos[OPP_OFF] = CHECKERS - sum((theirs or {}).values()) - bar[1]
    if min(pos[OFF], pos[OPP_OFF]) < 0 or (game == "nardi" and any(bar)):
        raise ValueError("more than 15 checkers a side, or a bar in long nardi")
    return tuple(pos)
