"""Dice as a pure function of (seed, stream, throw index): the streams that duels, rollouts and the
cube arena throw, so that a game's dice do not depend on the batch size or on when it is scheduled.

``throws`` hashes (seed, stream, index) with splitmix64's finaliser (a counter-based generator);
``opening_throws`` gives each stream's opening, one die per seat with ties thrown again
(RULES-DECISIONS.md: backgammon's higher die "plays the two dice just thrown", long nardi's higher die
"then throws both dice for its first turn"); ``MirroredDice`` deals a stream to each slot of a batch
of games, so that the two games of a mirrored pair throw the same dice turn by turn.
"""

from __future__ import annotations

import numpy as np

_OPENING_STREAM = np.uint64(1 << 40)  # throw indices of the opening, apart from the turns' throws
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a bijective scramble of 64-bit words."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def throws(seed: int, stream: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Dice (n, 2) of throw ``index`` in each dice ``stream``: a pure function of the three."""
    stream = np.asarray(stream, dtype=np.uint64)
    index = np.asarray(index, dtype=np.uint64)
    with np.errstate(over="ignore"):
        key = _mix(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * _GOLDEN + np.uint64(1))
        h = _mix(_mix(key ^ (stream * _GOLDEN)) + index * _M2)
    dice = np.empty((len(stream), 2), dtype=np.int64)
    dice[:, 0] = (h % np.uint64(6)).astype(np.int64) + 1
    dice[:, 1] = ((h // np.uint64(6)) % np.uint64(6)).astype(np.int64) + 1
    return dice


def opening_throws(seed: int, stream: np.ndarray) -> np.ndarray:
    """The opening throw (n, 2) of each stream: [seat 0's die, seat 1's die], ties thrown again."""
    return opening_with_ties(seed, stream)[0]


def opening_with_ties(seed: int, stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the opening throws (n, 2) as ``opening_throws``, the ties (n,) thrown before each): money
    play with automatic doubles doubles the cube once per tie (engine.game.start_game)."""
    stream = np.asarray(stream, dtype=np.int64)
    out = np.zeros((len(stream), 2), dtype=np.int64)
    ties = np.zeros(len(stream), dtype=np.int64)
    todo = np.ones(len(stream), dtype=bool)
    attempt = 0
    while todo.any():
        dice = throws(seed, stream[todo], np.full(int(todo.sum()), attempt) + _OPENING_STREAM)
        out[todo] = dice
        tied = dice[:, 0] == dice[:, 1]
        ties[np.flatnonzero(todo)[tied]] += 1
        todo[todo] = tied
        attempt += 1
    return out, ties


class MirroredDice:
    """The arenas' dice, per slot: the stream its game throws and the index of its next throw.

    A game throws its stream's opening throw, then throws 0, 1, 2... of the stream, one a turn; two
    games on the same stream throw the same dice turn by turn, whoever plays them.
    """

    def __init__(self, seed: int, slots: int):
        self.seed = seed
        self.stream = np.zeros(slots, dtype=np.int64)
        self.next = np.zeros(slots, dtype=np.int64)  # index of the slot's next throw in its stream
        self.opening = np.zeros((slots, 2), dtype=np.int64)
        self.ties = np.zeros(slots, dtype=np.int64)  # the ties thrown before each slot's opening
        self.opening_to_play = np.zeros(slots, dtype=bool)

    def open(self, slots, streams, play_opening: bool) -> np.ndarray:
        """Begin the slots' games on ``streams``; their opening throws (k, 2), [seat 0's die, seat 1's
        die], the higher die starting. With ``play_opening`` the starter's first roll is those two
        dice (backgammon); otherwise its first roll is throw 0 (long nardi's starter throws afresh,
        and engine.game.start_game plays a backgammon opening itself). The ties thrown before the
        opening are kept in ``ties`` (the same in both games of a mirrored pair)."""
        opening, ties = opening_with_ties(self.seed, streams)
        self.stream[slots] = streams
        self.next[slots] = 0
        self.opening[slots] = opening
        self.ties[slots] = ties
        self.opening_to_play[slots] = play_opening
        return opening

    def opening_of(self, slot: int) -> tuple[tuple[int, int], ...]:
        """Every throw of the slot's opening, the ties first, as engine.game.start_game takes them."""
        ties = int(self.ties[slot])
        tied = throws(self.seed, np.full(ties, self.stream[slot]), np.arange(ties) + _OPENING_STREAM)
        return tuple((int(a), int(b)) for a, b in [*tied, self.opening[slot]])

    def roll(self, slots) -> np.ndarray:
        """The dice (k, 2) each slot's side on roll plays now, advancing the slot's stream."""
        slots = np.asarray(slots, dtype=np.int64)
        first = self.opening_to_play[slots]
        dice = throws(self.seed, self.stream[slots], self.next[slots])
        dice[first] = self.opening[slots[first]]
        self.next[slots] += ~first
        self.opening_to_play[slots] = False
        return dice
