"""Seeded random positions of both games, reached by random play through ``legal_plays``.

``random_positions(game, n, seed, kind)`` returns ``n`` positions (n, 28) int8 in the mover's frame,
each at the start of a turn, with the dice (n, 2) that were thrown there. The same arguments always
give the same arrays. Tests, the benchmark and evaluation code draw their position sets here.

Positions come from rounds of ``GAMES_PER_ROUND`` games played side by side for ``PLIES_PER_ROUND``
turns (a finished game starts again from the opening). Every position met at the start of a turn is
kept with its dice and its turn number in the game; a ``kind`` is a filter over that pool, and
``n`` matching positions are drawn without replacement (more rounds are played while too few match).
Rounds are cached, so several kinds drawn with one seed share the same games.

Kinds (``KINDS``):
  backgammon  any, opening (the first two turns of each side), midgame (contact, mover not on the
              bar, not all home), contact (contact and an opponent blot in front of a mover checker),
              bar (a mover checker on the bar), bearoff (every mover checker home), race (no contact)
  nardi       any, opening (the first three turns of each side), midgame (later, not all home),
              blocks (from games whose players build blocks: the mover holds five points in a row
              along the opponent's way that no opponent checker has passed, where the six-in-a-row
              rule bites), blocked (from the same games: the opponent holds five or more points in a
              row, so passes and partial plays are common), heads (two or more checkers left on the head
              after the first turn), bearoff (every mover checker home)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from engine.board import (
    BAR,
    CHECKERS,
    HEAD,
    OFF,
    OPP_OFF,
    POINTS,
    check_game,
    flip,
    has_contact,
    start_position,
)
from engine.movegen import legal_plays

GAMES_PER_ROUND = 256
PLIES_PER_ROUND = 160

KINDS = {
    "backgammon": ("any", "opening", "midgame", "contact", "bar", "bearoff", "race"),
    "nardi": ("any", "opening", "midgame", "blocks", "blocked", "heads", "bearoff"),
}

# The opponent's way in the mover's numbers (slots, in path order): 12, 11, ..., 1, 24, ..., 13.
_OPPONENT_PATH = np.array(list(range(11, -1, -1)) + list(range(23, 11, -1)))


def random_dice(n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, 2) int64 dice, each die uniform on 1..6 (so a double comes 1 time in 6)."""
    return rng.integers(1, 7, size=(n, 2), dtype=np.int64)


def opening_dice(n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, 2) dice of a backgammon opening: "each side throws one die, ties are thrown again, and
    the higher plays the two dice just thrown", so never a double."""
    first = rng.integers(1, 7, size=n)
    second = (first - 1 + rng.integers(1, 6, size=n)) % 6 + 1  # uniform among the other five
    return np.stack([first, second], axis=1).astype(np.int64)


def random_children(parent: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n,) indices into ``children``: one child per parent, uniformly (``parent`` sorted, covers 0..n-1)."""
    count = np.bincount(parent, minlength=n)
    start = np.cumsum(count) - count
    return start + (rng.random(n) * count).astype(np.int64)


def longest_block(positions: np.ndarray, unpassed: bool = False) -> np.ndarray:
    """(N,) the mover's longest run of held points along the opponent's way (long nardi's blocks).

    With ``unpassed``, only runs that no opponent checker has passed count (none further along the
    opponent's way, none borne off): the runs that long nardi's six-in-a-row rule forbids at six.
    """
    along = positions[:, _OPPONENT_PATH]  # (N, 24) in the opponent's path order
    theirs = along < 0
    furthest = np.where(theirs.any(axis=1), 23 - np.argmax(theirs[:, ::-1], axis=1), -1)
    furthest = np.where(positions[:, OPP_OFF] > 0, 24, furthest)
    run = np.zeros(len(positions), dtype=np.int64)
    best = np.zeros(len(positions), dtype=np.int64)
    for i, column in enumerate((along > 0).T):  # 24 steps along the path, never over the batch
        run = np.where(column, run + 1, 0)
        counts = run if not unpassed else np.where(furthest <= i, run, 0)
        best = np.maximum(best, counts)
    return best


def block_builder_children(children: np.ndarray, parent: np.ndarray, n: int, rng: np.random.Generator,
                           greed: float = 0.85) -> np.ndarray:
    """(n,) child indices: with probability ``greed`` the child with the longest block (ties at
    random), otherwise a uniform child. Drives nardi games toward the six-in-a-row rule."""
    score = longest_block(children) + rng.random(len(children)) * 0.5  # random tie-break
    order = np.lexsort((-score, parent))
    first = np.ones(len(parent), dtype=bool)
    first[1:] = parent[order][1:] != parent[order][:-1]
    greedy = order[first]
    uniform = random_children(parent, n, rng)
    return np.where(rng.random(n) < greed, greedy, uniform)


def _policy_seed(game: str, policy: str) -> int:
    return 1 + 2 * ("backgammon", "nardi").index(game) + ("random", "blocks").index(policy)


@lru_cache(maxsize=32)
def play_round(game: str, seed: int, round_index: int, policy: str = "random"):
    """One round of seeded random play: (positions[M, 28] int8, dice[M, 2] int64, turn[M] int64).

    ``GAMES_PER_ROUND`` games move side by side for ``PLIES_PER_ROUND`` turns; every position at the
    start of a turn is recorded with the dice thrown there and its turn number (0 = the game's first).
    ``policy`` is "random" (uniform among the distinct legal results) or "blocks" (see
    ``block_builder_children``). Cached: the arrays are shared and read-only.
    """
    check_game(game)
    rng = np.random.default_rng([seed, round_index, _policy_seed(game, policy)])
    g = GAMES_PER_ROUND
    positions = start_position(game, g)
    turn = np.zeros(g, dtype=np.int64)
    seen_pos, seen_dice, seen_turn = [], [], []
    for _ in range(PLIES_PER_ROUND):
        dice = random_dice(g, rng)
        if game == "backgammon":
            opening = turn == 0
            dice[opening] = opening_dice(int(opening.sum()), rng)
        seen_pos.append(positions)
        seen_dice.append(dice)
        seen_turn.append(turn)
        children, parent = legal_plays(game, positions, dice)
        if policy == "blocks":
            pick = block_builder_children(children, parent, g, rng)
        else:
            pick = random_children(parent, g, rng)
        after = children[pick]
        finished = after[:, OFF] == CHECKERS
        positions = flip(game, after)
        positions[finished] = start_position(game)
        turn = np.where(finished, 0, turn + 1)
    out = (np.concatenate(seen_pos), np.concatenate(seen_dice), np.concatenate(seen_turn))
    for array in out:
        array.setflags(write=False)
    return out


def _all_home(positions: np.ndarray) -> np.ndarray:
    return ~((positions[:, 6:24] > 0).any(axis=1) | (positions[:, BAR] > 0))


def _opponent_blot_ahead(positions: np.ndarray) -> np.ndarray:
    """An opponent blot on a point below the mover's farthest checker (the bar counts as 25)."""
    points = np.arange(1, 25)
    mine = positions[:, POINTS] > 0
    farthest = np.where(positions[:, BAR] > 0, 25, np.max(np.where(mine, points, 0), axis=1))
    blot = positions[:, POINTS] == -1
    return (blot & (points[None, :] < farthest[:, None])).any(axis=1)


def kind_mask(game: str, kind: str, positions: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """(M,) bool: which positions of a pool are of ``kind`` (see the module docstring)."""
    check_game(game)
    if kind not in KINDS[game]:
        raise ValueError(f"unknown kind {kind!r} for {game}: expected one of {', '.join(KINDS[game])}")
    home = _all_home(positions)
    if kind == "any":
        return np.ones(len(positions), dtype=bool)
    if kind == "bearoff":
        return home
    if game == "backgammon":
        contact = has_contact(game, positions)
        on_bar = positions[:, BAR] > 0
        return {
            "opening": turn < 4,
            "midgame": contact & ~on_bar & ~home,
            "contact": contact & _opponent_blot_ahead(positions),
            "bar": on_bar,
            "race": ~contact,
        }[kind]
    heads = positions[:, HEAD]
    return {
        "opening": turn < 6,
        "midgame": (turn >= 6) & ~home,
        "blocks": longest_block(positions, unpassed=True) >= 5,
        "blocked": longest_block(flip(game, positions)) >= 5,
        "heads": (heads >= 2) & (heads < CHECKERS),
    }[kind]


def random_positions(game: str, n: int, seed: int = 0, kind: str = "any") -> tuple[np.ndarray, np.ndarray]:
    """``n`` seeded random positions of ``kind`` with the dice thrown there: ((n, 28) int8, (n, 2) int64).

    Deterministic for (game, n, seed, kind). Raises ValueError on an unknown game or kind, or when
    64 rounds of play give fewer than ``n`` matches.
    """
    check_game(game)
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    kind_mask(game, kind, np.zeros((0, 28), np.int8), np.zeros(0, np.int64))  # checks the kind
    policy = "blocks" if kind in ("blocks", "blocked") else "random"
    found_pos, found_dice, total = [], [], 0
    for round_index in range(64):
        if total >= n:
            break
        positions, dice, turn = play_round(game, seed, round_index, policy)
        mask = kind_mask(game, kind, positions, turn)
        found_pos.append(positions[mask])
        found_dice.append(dice[mask])
        total += int(mask.sum())
    if total < n:
        raise ValueError(f"only {total} {game} positions of kind {kind!r} found, {n} asked for")
    positions = np.concatenate(found_pos)
    dice = np.concatenate(found_dice)
    rng = np.random.default_rng([seed, n, KINDS[game].index(kind)])
    pick = np.sort(rng.choice(len(positions), size=n, replace=False))
    return positions[pick].copy(), dice[pick].copy()
