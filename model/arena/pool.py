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
  MirroredDice      the arenas' dice (engine/dice.py): each game throws a stream of its own, which
                    the two games of a mirrored pair share, after the stream's opening throw.
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
