"""Games in flight: many games (or matches) played side by side, one slot each.

The self-play actor (model/train/td.py), the cubeless arena (model/arena/cubeless.py) and the cube
arena (model/arena/cubeful.py) each keep a batch of slots that all advance one turn together, so a
turn costs one legal_plays call and one call per player for the whole batch; when a slot's game (or
match) ends, the slot is dealt the next one at once, so the batch stays full until the last ones.
They share these pieces:

  GamesInPlay       which game (or match) each slot plays: numbers 0, 1, 2... dealt in order, up
                    to a total or without end; whether the slot is live; the plies of its game; and
                    the arenas' mirrored seating (player A sits in seat 0 of even numbers).
  CubelessGames     GamesInPlay whose games are bare positions (self-play, the cubeless arena):
                    ending a turn counts the ply, scores a bear-off or stops at the ply cap, and
                    passes the dice to the other side.
  MirroredDice      the arenas' dice: each game throws a stream of its own, which the two games of
                    a mirrored pair share, after the stream's opening throw.
  choose_by_player  one select call per player for all the positions it must move in.

Dice are a pure function of (seed, stream, throw index) through a counter-based hash, so a game's
dice do not depend on the batch size or on when the game is scheduled. Openings (RULES-DECISIONS.md):
each seat throws one die, ties are thrown again. Backgammon: "the higher plays the two dice just
thrown". Long nardi: "the higher then throws both dice for its first turn" (its head exception is
legal_plays' default: all 15 on the head). Self-play draws its dice from the actor's own generator
instead (model/train/td.py): its games are not mirrored, and the generator's state is checkpointed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from engine.board import flip, start_position, winner_score

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


class GamesInPlay:
    """One slot per game (or match) in play: its number, whether it is live, the plies of its game.

    Numbers 0, 1, 2... are dealt to slots in order, ``total`` of them (without end if None); a slot
    freed when none are left goes idle. ``max_plies`` caps one game's length.
    """

    def __init__(self, slots: int, total: int | None, max_plies: int):
        self.total, self.max_plies = total, max_plies
        self.number = np.full(slots, -1, dtype=np.int64)  # the game (or match) each slot plays
        self.live = np.zeros(slots, dtype=bool)
        self.plies = np.zeros(slots, dtype=np.int64)  # plies of the game in play
        self.dealt = 0

    def deal(self, slots) -> np.ndarray:
        """Deal the next numbers to ``slots`` in their order, with their plies at 0; the slots left
        over once all are dealt go idle. Returns the slots dealt a number."""
        slots = np.asarray(slots, dtype=np.int64)
        if self.total is not None:
            left = max(0, self.total - self.dealt)
            self.live[slots[left:]] = False
            slots = slots[:left]
        self.number[slots] = self.dealt + np.arange(len(slots))
        self.dealt += len(slots)
        self.live[slots] = True
        self.plies[slots] = 0
        return slots

    def live_slots(self) -> np.ndarray:
        """The slots with a game in play, in order."""
        return np.flatnonzero(self.live)

    def player(self, slots, seat) -> np.ndarray:
        """0 where player A sits in ``seat`` (0 or 1) of the slots' games, 1 where B does: A sits in
        seat 0 of even numbers and in seat 1 of odd ones, so the pair 2k, 2k+1 swaps the seats."""
        return (np.asarray(seat) != self.number[slots] % 2).astype(np.int64)


class CubelessGames(GamesInPlay):
    """GamesInPlay whose games are positions ``pos`` (S, 28), each seen by its side on roll."""

    def __init__(self, game: str, slots: int, total: int | None, max_plies: int):
        super().__init__(slots, total, max_plies)
        self.game = game
        self.pos = start_position(game, slots)

    def deal(self, slots) -> np.ndarray:
        """GamesInPlay.deal, the dealt slots' games at the starting position."""
        slots = super().deal(slots)
        self.pos[slots] = start_position(self.game, len(slots))
        return slots

    def end_turn(self, slots: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The movers of ``slots`` played to ``after`` (their view): count the ply, pass the dice.

        Returns, per slot, (score, ended, capped): the mover's win (1, 2 or 3; 0 while play goes
        on), whether the game ended (won, or stopped at the ply cap), whether the cap stopped it.
        An ended game stays in its slot until the slot is dealt the next one.
        """
        self.plies[slots] += 1
        score = winner_score(self.game, after)
        capped = (score == 0) & (self.plies[slots] >= self.max_plies)
        self.pos[slots] = flip(self.game, after)
        return score, (score > 0) | capped, capped


def choose_by_player(players: Sequence, who: np.ndarray, children: np.ndarray, parent: np.ndarray,
                     select: Callable) -> np.ndarray:
    """Indices into ``children`` of the play made from each position, ``who`` (n,) naming its mover
    (an index into ``players``). Each player is asked once, in order, for all its positions:
    ``select(player, mine, its_children, its_parent)`` with ``mine`` (n,) bool marking them and
    ``its_parent`` numbering them 0, 1... among themselves; it returns indices into its_children."""
    chosen = np.empty(len(who), dtype=np.int64)
    for p, player in enumerate(players):
        mine = who == p
        if mine.any():
            keep = mine[parent]
            renumber = np.cumsum(mine) - 1  # position index -> index among the player's positions
            picked = select(player, mine, children[keep], renumber[parent[keep]])
            chosen[mine] = np.flatnonzero(keep)[picked]
    return chosen
