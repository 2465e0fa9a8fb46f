"""The rollout engine: many trials of many candidates played side by side, one ply at a time.

A *candidate* is a start position (seen by its side on roll) with its cube; a *trial* plays it out
once with dice stream t. Item (candidate c, trial t) is the unit of work; items enter a pool of
``batch`` slots in the order t = 0, 1, ..., candidates inside, and a finished item's slot takes
the next one at once. Every ply of the whole pool is one ``legal_plays`` call and one network call
(plus luck_plays' search with ``prune``, and the deeper calls of the n-ply look-ahead when
``plies`` > 0).

Values are kept from the *root* side's view (the side whose equity is asked for): probabilities
(K,) cumulative as in model/net/equity.py and, in cubeful trials, one number: money equity in units
of the root's starting cube, or the root's match-winning chance (MWC).

Dice (``trial_dice``): trial t throws ``engine.dice.throws(seed, t, ply)``, the same for
every candidate (common random numbers), except the first two throws, which are quasi-random:
within each block of 1,296 trials, with a = t mod 36 and k = (t // 36) mod 36, the first throw is
combination P1[a] and the second P2[(a + k) mod 36] of the 36 ordered ones (P1, P2 permutations
drawn per block from the seed): trials 36 j .. 36 j + 35 throw every first and every second roll
once, and a whole block throws every pair of the 1,296 once.

Variance reduction (``vr``), the usual luck adjustment: before each roll the side on roll's value
after each of the 21 rolls r is V(r) = the evaluator's value of its best play for r (all 21 rolls
x all plays: one legal_plays call, one network call). The luck of the roll thrown is
    L = V(r_thrown) - sum_r w_r V(r)      (w_r = 1/36 for doubles, 2/36 otherwise)
and a trial's estimate is  result - sum over its plies of L  (in the root's view). Each L has mean
0 whatever the evaluator, so the estimate stays unbiased; a good evaluator removes most of the dice'
noise. With ``prune`` = K (0-ply backgammon) V(r) is the evaluator's best among K plays of r that
pubeval scores highest (gnubg likewise lets its small pruning nets pick the plays its 0-ply
evaluation looks at), found by model/search/top_plays.py without generating every play of every roll:
pubeval's K best for a non-double, a beam search's (``beam`` wide) for a double. The roll thrown is
valued the same way, so V is still a function of the position and the roll alone and L still has
mean 0; the play made is still the best of all plays of the roll thrown (one legal_plays call for
those, one network call for them and the luck's plays together). The raw result (no adjustment) is
kept too: same games, same dice, so both estimates and their spreads come from one run.

A trial ends when a side bears off its last checker (the result: outcome probabilities, and points x
cube), at a bear-off position when ``bearoff`` is on (the databases' numbers, model/net/evaluator.py:
exact in two-sided backgammon bear-offs, the one-sided race value otherwise), after ``truncate``
plies (the evaluator's value at ``plies``), or when a double is passed (cubeful trials).

Cubeful trials (model/cube/decisions.py, the project's own cube decisions, as gnubg's rollouts use
gnubg's): before each roll the side on roll, when it may double (``may_double``), doubles when
``cube_decision`` says so, from the evaluator's probabilities of the position and its cube
efficiency; the other side answers with the same decision's ``response`` (pass: the game ends,
the doubler wins the cube; take: cube x2, owned by the taker; beaver: cube x4, owned by the taker).
Checker play maximises ``checker_play_value`` (Janowski cubeful equity in money, cubeful MWC in a
match), cubeless trials maximise cubeless equity. A truncated or bear-off trial is valued with the
cube decision's ``optimal`` value (money two-sided bear-offs: the exact cubeful table). A passed
double ends the cubeless probabilities at the evaluator's numbers of that position.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass, replace

import numpy as np
from threadpoolctl import threadpool_limits

from engine.board import CHECKERS, OFF, OPP_OFF, flip, winner_score
from engine.compiled import Kernels, charge_numpy
from engine.cube_state import CubeOwner
from engine.dice import throws
from engine.groups import group_argmax
from engine.movegen import ALL_ROLLS, ROLL_INDEX, ROLL_WEIGHTS, legal_plays
from model.cube import decisions as cube
from model.net import bearoff_two_sided as ts
from model.net.bearoff import bearoff_mask
from model.net.equity import cubeless_equity, flip_probs, outcome_targets
from model.net.evaluator import ExactEndgames, child_probabilities
from model.search.lookahead import (
    MOVE_FILTER_KEEP,
    MOVE_FILTER_MARGIN,
    child_probabilities_ahead,
    evaluate_positions,
    move_filter_mask,
)
from model.search.top_plays import luck_plays

MAX_PLIES = 1000
"""A trial still going after this many plies is truncated (the evaluator's value)."""
ROOT, OTHER = 0, 1  # the seats of a trial: the side on roll at the root, the other side
NO_OWNER = -1  # the owner seat of a centred cube in the (C,) int arrays (engine.cube_state.CubeOwner.seat's None)
BLAS_THREADS = 1
"""Threads of the BLAS (numpy's matrix products) while trials are played (0: leave it as it is). The
products of a ply are small (thousands of rows by a 256-wide layer, and that layer by the 5 outputs),
and on a 2-core machine busy with other work a second BLAS thread mostly waits for the core: a
rollout measured 1.9 times faster in wall time, with half the CPU seconds, with one thread than with
the default two at load 5 (README, "Rollouts"). Through threadpoolctl (a dependency of the
plain install)."""


def blas_threads(n: int = BLAS_THREADS):
    """A context in which numpy's BLAS uses ``n`` threads (a no-op for n = 0)."""
    return threadpool_limits(n, user_api="blas") if n > 0 else nullcontext()


def trial_dice(seed: int, trial: np.ndarray, ply: np.ndarray, quasi: bool = True) -> np.ndarray:
    """The throw (n, 2) of each trial at its ply (module docstring: quasi-random first two throws,
    unless ``quasi`` is off)."""
    trial, ply = np.asarray(trial, dtype=np.int64), np.asarray(ply, dtype=np.int64)
    dice = throws(seed, trial, ply)
    early = np.flatnonzero(ply < 2) if quasi else np.zeros(0, dtype=np.int64)
    if len(early):
        t, p = trial[early], ply[early]
        a, k, block = t % 36, (t // 36) % 36, t // 1296
        combo = np.empty(len(early), dtype=np.int64)
        for b in np.unique(block):
            rng = np.random.default_rng([seed & 0xFFFFFFFF, int(b), 0x5EED])
            first, second = rng.permutation(36), rng.permutation(36)
            here = block == b
            combo[here] = np.where(p[here] == 0, first[a[here]], second[(a[here] + k[here]) % 36])
        dice[early] = np.stack([combo // 6 + 1, combo % 6 + 1], axis=1)
    return dice


@dataclass
class Settings:
    """How the trials of one rollout are played, as the trial runner needs them (the game, the root's
    cube state, the move filter and the quasi-random dice besides what a user sets): model/search/
    rollout.py's ``rollout`` fills it from its options, which model/service/rollout_settings.py's
    ``RolloutSettings`` describes for every door. ``state``: the root side's cube and score (cubeful
    trials only)."""

    game: str
    plies: int = 0
    truncate: int = 0  # 0: play to the end
    vr: bool = True
    bearoff: bool = True
    seed: int = 0
    keep: int = MOVE_FILTER_KEEP  # the look-ahead's move filter at plies > 0 (lookahead.move_filter)
    margin: float = MOVE_FILTER_MARGIN
    prune: int = 0  # luck of 0-ply backgammon trials: best of this many plays by pubeval (0: of all)
    quasi: bool = True  # quasi-random first two throws
    state: cube.CubeState | None = None
    device: str = "cpu"
    beam: int = 6  # with prune: the beam of luck_plays' search over a double's moves


@dataclass
class Candidates:
    """Start positions (C, 28), side on roll's view, and how each one starts."""

    positions: np.ndarray
    root_on_roll: np.ndarray  # (C,) bool: the side on roll is the root side
    cubeful: np.ndarray  # (C,) bool
    cube: np.ndarray  # (C,) int: the cube value at the start
    owner: np.ndarray  # (C,) int: NO_OWNER, ROOT or OTHER
    hold: np.ndarray  # (C,) bool: the side on roll does not double at its first turn ("no double")


class Trials:
    """The pool of items in play and the per-item results (C, T, ...), root's view."""

    def __init__(self, net, cands: Candidates, trials: int, s: Settings, batch: int, first=0):
        self.net = ExactEndgames(net) if s.bearoff else net
        self.s, self.c, self.trials = s, cands, trials
        # the trials played (their dice): first .. first + trials - 1, or the numbers of the array
        # ``first`` (trials of them); results at 0 .. trials - 1
        self.numbers = (np.asarray(first, dtype=np.int64) if np.ndim(first) else int(first) + np.arange(trials))
        if len(self.numbers) != trials:
            raise ValueError(f"{trials} trials, but {len(self.numbers)} trial numbers")
        n_c, k = len(cands.positions), self.net.config.outputs
        self.probs = np.full((n_c, trials, k), np.nan)  # luck-adjusted
        self.raw = np.full((n_c, trials, k), np.nan)
        self.cf = np.full((n_c, trials), np.nan)
        self.cf_raw = np.full((n_c, trials), np.nan)
        self.done = np.zeros((n_c, trials), dtype=bool)
        self.c0 = s.state.value if s.state is not None else 1
        slots = max(1, min(batch, n_c * trials))
        self.item = np.full(slots, -1, dtype=np.int64)
        self.pos = np.zeros((slots, 28), dtype=np.int8)
        self.root_turn = np.zeros(slots, dtype=bool)
        self.ply = np.zeros(slots, dtype=np.int64)
        self.cube = np.ones(slots, dtype=np.int64)
        self.owner = np.zeros(slots, dtype=np.int64)
        self.hold = np.zeros(slots, dtype=bool)
        self.luck = np.zeros((slots, k))
        self.luck_cf = np.zeros(slots)
        self.now = np.zeros((slots, k))  # evaluator's probabilities of the position on roll (mover)
        self.now_ok = np.zeros(slots, dtype=bool)
        self.pruned = s.prune > 0 and s.plies == 0 and s.game == "backgammon"
        self.next_item = 0
        self._states: dict = {}
        self._freed: list[np.ndarray] = []  # slots finished this ply: refilled once the ply is over
        self._fill(np.arange(slots))

    # -- bookkeeping ------------------------------------------------------------------------------
    @property
    def active(self) -> np.ndarray:
        return np.flatnonzero(self.item >= 0)

    def completed(self) -> int:
        """Trials t such that every trial <= t of every candidate is finished (a prefix)."""
        whole = self.done.all(axis=0)
        return int(np.argmin(whole)) if not whole.all() else self.trials

    def _fill(self, slots: np.ndarray) -> None:
        n_c = len(self.c.positions)
        slots = slots[: max(0, n_c * self.trials - self.next_item)]
        items = self.next_item + np.arange(len(slots))
        self.next_item += len(slots)
        c = items % n_c
        self.item[slots] = items
        self.pos[slots] = self.c.positions[c]
        self.root_turn[slots] = self.c.root_on_roll[c]
        self.ply[slots] = 0
        self.cube[slots], self.owner[slots], self.hold[slots] = self.c.cube[c], self.c.owner[c], self.c.hold[c]
        self.luck[slots], self.luck_cf[slots], self.now_ok[slots] = 0.0, 0.0, False

    def _finish(self, slots, probs_mover, cf_root) -> None:
        """Record the results of ``slots`` (mover's probabilities, root's cubeful value); the slots
        take new items once the ply is over."""
        items = self.item[slots]
        c, t = items % len(self.c.positions), items // len(self.c.positions)
        probs = self._root_probs(probs_mover, self.root_turn[slots])
        self.raw[c, t], self.probs[c, t] = probs, probs - self.luck[slots]
        self.cf_raw[c, t], self.cf[c, t] = cf_root, cf_root - self.luck_cf[slots]
        self.done[c, t] = True
        self.item[slots] = -1
        self._freed.append(slots)

    def _root_probs(self, probs, root_turn):
        return np.where(root_turn[:, None], probs, flip_probs(self.s.game, probs))

    def _root_delta(self, delta, root_turn):
        """A difference of mover's probabilities seen by the root: flip_probs' linear part."""
        flipped = flip_probs(self.s.game, delta)
        flipped[:, 0] -= 1.0  # flip(p)_win = 1 - p_win: the difference only changes sign
        return np.where(root_turn[:, None], delta, flipped)

    # -- the cube ----------------------------------------------------------------------------------
    def _state(self, slot_root_turn: bool, value: int, owner: int) -> cube.CubeState:
        """The cube and score seen by the side on roll."""
        key = (bool(slot_root_turn), int(value), int(owner))
        if key not in self._states:
            rel = CubeOwner.seen_by(None if owner == NO_OWNER else owner, ROOT)
            state = replace(self.s.state, value=int(value), owner=rel)
            self._states[key] = state if slot_root_turn else state.flipped()
        return self._states[key]

    def _group_ids(self, slots):
        """(group (n,), [mover's CubeState per group]): the cube state each slot's mover sees,
        -1 for cubeless slots."""
        cubeful = self.c.cubeful[self.item[slots] % len(self.c.positions)]
        gid = np.full(len(slots), -1, dtype=np.int64)
        if not cubeful.any():
            return gid, []
        keys = np.stack([self.root_turn[slots], self.cube[slots], self.owner[slots]], axis=1)[cubeful]
        found, inverse = np.unique(keys, axis=0, return_inverse=True)
        gid[cubeful] = inverse.reshape(-1)
        return gid, [self._state(*key) for key in found]

    def _groups(self, slots):
        """[(positions in ``slots``, mover's CubeState)] of the cubeful slots, by cube state."""
        gid, states = self._group_ids(slots)
        return [(np.flatnonzero(gid == g), state) for g, state in enumerate(states)]

    def _to_root(self, value, slots, state: cube.CubeState, delta: bool = False):
        """A mover's cubeful value (money: per current cube; match: MWC) in the root's units."""
        root = self.root_turn[slots]
        if state.is_money:
            return np.where(root, 1.0, -1.0) * value * self.cube[slots] / self.c0
        if delta:
            return np.where(root, value, -value)
        return np.where(root, value, 1.0 - value)

    def _on_roll_value(self, slots, probs, cf_out) -> None:
        """Cubeful value (root's units) of positions on roll, into ``cf_out``: the cube decision's
        optimal value (the no-double value where the side holds the cube this turn), from the
        exact two-sided tables in money bear-offs."""
        for rows, state in self._groups(slots):
            s, hold = slots[rows], self.hold[slots[rows]]
            value = _on_roll(probs[rows], cube.cube_efficiency(self.pos[s]), state, hold)
            if state.is_money and self.s.game == "backgammon" and self.s.bearoff:
                small = ts.two_sided_mask(self.pos[s])
                if small.any():
                    exact = ts.two_sided_cubeful(self.pos[s][small], state.owner)
                    if state.owner != cube.OPPONENT and hold[small].any():
                        nd = ts.two_sided_no_double(self.pos[s][small], state.owner)
                        exact = np.where(hold[small], nd, exact)
                    value[small] = exact
            cf_out[rows] = self._to_root(value, s, state)

    def _cube_actions(self, slots) -> np.ndarray:
        """Doubles, takes and passes before the roll; returns the slots that still roll."""
        if self.s.state is None:
            return slots
        rolling = np.ones(len(slots), dtype=bool)
        for rows, state in self._groups(slots):
            rows = rows[~self.hold[slots[rows]]]
            if not len(rows) or not cube.double_available(state):
                continue
            s = slots[rows]
            self._evaluate_now(s)
            d = cube.cube_decision(self.now[s], cube.cube_efficiency(self.pos[s]), state)
            doubled = np.flatnonzero(d.double)
            response = np.asarray(d.response)[doubled]
            passed = s[doubled[response == cube.PASS]]
            if len(passed):  # the doubler wins the cube: 1 per current cube, or the MWC of it
                won = 1.0 if state.is_money else float(cube.result_mwc(state, state.value))
                self._finish(passed, self.now[passed], self._to_root(np.full(len(passed), won), passed, state))
                rolling[rows[doubled[response == cube.PASS]]] = False
            for answer, factor in ((cube.TAKE, 2), (cube.BEAVER, 4)):
                taken = s[doubled[response == answer]]
                self.cube[taken] *= factor
                self.owner[taken] = np.where(self.root_turn[taken], OTHER, ROOT)
        self.hold[slots] = False
        return slots[rolling]

    # -- evaluation --------------------------------------------------------------------------------
    def _evaluate_now(self, slots) -> None:
        todo = slots[~self.now_ok[slots]]
        if len(todo):
            self.now[todo] = evaluate_positions(self.net, self.pos[todo], self.s.plies, self.s.device)
            self.now_ok[todo] = True

    def _best(self, children, parent, frontier_slot, played_from, distinct=False):
        """The best child of every frontier row: (index (F,), mover's probs (F, K), cubeful value
        (F,) in the mover's units, nan in cubeless rows). ``frontier_slot`` (F,) names the slot
        whose cube state applies; ``played_from``: (positions (P, 28), index (N,)), the position each
        child was played from (``child_probabilities``' parents). ``distinct``: children that repeat
        (the luck's rolls of one position often reach the same play: 6-1, 5-2 and 4-3 moving one
        checker 7 pips) are evaluated once, where they were played from the same position (so that
        a child's numbers never depend on the other trials of the batch)."""
        s, n = self.s, len(frontier_slot)
        if distinct:
            once, again = distinct_rows(children, played_from[1])
            probs = child_probabilities(self.net, children[once], s.device,
                                        (played_from[0], played_from[1][once]))[again]
        else:
            probs = child_probabilities(self.net, children, s.device, played_from)
        util = self._utility(probs, children, parent, frontier_slot)
        if s.plies > 0:
            cand = np.flatnonzero(move_filter_mask(util, parent, n, s.keep, s.margin))
            probs[cand] = child_probabilities_ahead(self.net, children[cand], s.plies, s.device)
            deep = np.full(len(children), -np.inf)
            deep[cand] = self._utility(probs[cand], children[cand], parent[cand], frontier_slot)
            util = deep
        best = group_argmax(util, parent, n)
        cf = np.full(n, np.nan)
        if s.state is not None:
            cubeful = self.c.cubeful[self.item[frontier_slot] % len(self.c.positions)]
            cf[cubeful] = util[best[cubeful]]
        return best, probs[best], cf

    def _played_from(self, slots, where) -> tuple[np.ndarray, np.ndarray]:
        """``_best``'s ``played_from`` for children played from ``self.pos[slots[where]]``: each distinct
        position once, whatever its cube (a cubeful rollout's candidates, on the same dice, often stand
        on the same position), so that their children are evaluated once."""
        first, of = distinct_rows(self.pos[slots])
        return self.pos[slots[first]], of[where]

    def _utility(self, probs, children, parent, frontier_slot):
        """What the mover maximises: cubeless equity, or checker_play_value at its cube state."""
        util = cubeless_equity(self.s.game, probs)
        if self.s.state is None:
            return util
        gid, states = self._group_ids(frontier_slot)
        if not states:
            return util
        gid = gid[parent]
        x = cube.cube_efficiency(flip(self.s.game, children))
        for g, state in enumerate(states):
            rows = np.flatnonzero(gid == g)
            util[rows] = cube.checker_play_value(probs[rows], state, x[rows])
        return util

    # -- one ply -------------------------------------------------------------------------------------
    def step(self) -> int:
        """Every item in play plays one turn (or ends); returns how many items ended."""
        s, game = self.s, self.s.game
        before = int(self.done.sum())
        slots = self.active
        over = slots[self.pos[slots, OPP_OFF] == CHECKERS]  # a candidate that already won
        if len(over):
            self.root_turn[over] ^= True  # scored for the side that bore off its last checker
            self._end_game(over, flip(game, self.pos[over]))
        slots = self.active
        if s.bearoff:
            end = slots[bearoff_mask(game, self.pos[slots])]
            if len(end):
                self._end_on_roll(end, self.net.probabilities(self.pos[end], s.device))
        slots = self.active
        cap = s.truncate if s.truncate > 0 else MAX_PLIES
        end = slots[self.ply[slots] >= cap]
        if len(end):
            self._evaluate_now(end)
            self._end_on_roll(end, self.now[end].copy())
        slots = self._cube_actions(self.active)
        if len(slots):
            self._play(slots)
        if self._freed:
            self._fill(np.concatenate(self._freed))
            self._freed = []
        return int(self.done.sum()) - before

    def _end_on_roll(self, slots, probs) -> None:
        cf = np.full(len(slots), np.nan)
        if self.s.state is not None:
            self._on_roll_value(slots, probs, cf)
        self._finish(slots, probs, cf)

    def _play(self, slots) -> None:
        s, game = self.s, self.s.game
        t, c = self.item[slots] // len(self.c.positions), self.item[slots] % len(self.c.positions)
        dice = trial_dice(s.seed, self.numbers[t], self.ply[slots], s.quasi)
        if s.vr:  # every roll of every distinct (position, cube) on roll
            key = np.concatenate([self.pos[slots].astype(np.int64),
                                  np.stack([self.root_turn[slots], self.cube[slots], self.owner[slots],
                                            self.c.cubeful[c]], axis=1)], axis=1)
            _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
            inverse, rolls, distinct = inverse.reshape(-1), len(ALL_ROLLS), slots[first]
            row = inverse * rolls + ROLL_INDEX[dice[:, 0], dice[:, 1]]
            if self.pruned:  # the luck from luck_plays' few plays a roll; the play from every legal one
                luck_kids, luck_parent = luck_plays(game, self.pos[distinct], s.prune, s.beam)
                thrown, row = np.unique(row, return_inverse=True)
                row = row.reshape(-1)
                play_kids, play_parent = legal_plays(game, self.pos[distinct[thrown // rolls]],
                                                     ALL_ROLLS[thrown % rolls])
                children = np.concatenate([luck_kids, play_kids])
                parent = np.concatenate([luck_parent, rolls * len(first) + play_parent])
                frontier = np.concatenate([np.repeat(distinct, rolls), distinct[thrown // rolls]])
                where = np.concatenate([luck_parent // rolls, (thrown // rolls)[play_parent]])
                best, probs, cf = self._best(children, parent, frontier, self._played_from(distinct, where),
                                             distinct=True)
                luck_row, row = inverse * rolls + ROLL_INDEX[dice[:, 0], dice[:, 1]], rolls * len(first) + row
            else:  # every legal play of every roll: the luck and the play from the same values
                frontier = np.repeat(distinct, rolls)
                children, parent = legal_plays(game, self.pos[frontier], np.tile(ALL_ROLLS, (len(first), 1)))
                best, probs, cf = self._best(children, parent, frontier, self._played_from(distinct, parent // rolls),
                                             distinct=True)
                luck_row = row
            luck_probs = probs[: rolls * len(first)]
            mean = np.einsum("r,urk->uk", ROLL_WEIGHTS, luck_probs.reshape(len(first), rolls, -1))[inverse]
            self.luck[slots] += self._root_delta(luck_probs[luck_row] - mean, self.root_turn[slots])
            if s.state is not None:
                cf_mean = (cf[: rolls * len(first)].reshape(len(first), rolls) @ ROLL_WEIGHTS)[inverse]
                for rows, state in self._groups(slots):
                    self.luck_cf[slots[rows]] += self._to_root(cf[luck_row[rows]] - cf_mean[rows], slots[rows],
                                                               state, delta=True)
        else:
            children, parent = legal_plays(game, self.pos[slots], dice)
            best, probs, _ = self._best(children, parent, slots, (self.pos[slots], parent))
            row = np.arange(len(slots))
        chosen, chosen_probs = children[best[row]], probs[row]
        over = chosen[:, OFF] == CHECKERS
        if over.any():
            self._end_game(slots[over], chosen[over])
        live = slots[~over]
        self.pos[live] = flip(game, chosen[~over])
        self.now[live] = flip_probs(game, chosen_probs[~over])
        self.now_ok[live] = True
        self.root_turn[live] ^= True
        self.ply[live] += 1

    def _end_game(self, slots, final) -> None:
        """The mover has borne off its last checker: the exact result."""
        game = self.s.game
        score = winner_score(game, final)
        cf = np.full(len(slots), np.nan)
        if self.s.state is not None:
            for rows, state in self._groups(slots):
                sl = slots[rows]
                jacoby = state.is_money and state.jacoby and state.owner == cube.CENTRED
                points = np.where(jacoby, 1, score[rows]) * self.cube[sl]
                value = points / self.cube[sl] if state.is_money else cube.result_mwc(state, points)
                cf[rows] = self._to_root(np.asarray(value, dtype=np.float64), sl, state)
        self._finish(slots, outcome_targets(game, score).astype(np.float64), cf)

    def run(self, progress=None) -> None:
        """Play until every item is done; ``progress(n)`` after each ply with the items that ended.
        The BLAS uses BLAS_THREADS threads meanwhile."""
        with blas_threads():
            while len(self.active):
                ended = self.step()
                if progress is not None:
                    progress(ended)


def distinct_rows(positions: np.ndarray, group: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first (D,), inverse (N,)): ``positions[first]`` are the distinct rows of ``positions``
    (N, 28), each where it first occurs, in the order they occur, and ``positions ==
    positions[first][inverse]``; with ``group`` (N,) (ints below 2^32), rows are the same only where
    their groups are too. Rows are told apart by a 64-bit hash, checked in full (a collision falls
    back to an exact sort)."""
    n = len(positions)
    padded = np.zeros((n, 32), dtype=np.uint8)
    padded[:, : positions.shape[1]] = positions.view(np.uint8)
    if group is not None:
        padded[:, 28:].view(np.uint32)[:, 0] = group
    words = padded.view(np.uint64)  # (n, 4)
    kernel = _distinct_kernel()
    if kernel is not None:  # the same answer from a hash table (model/search/distinct_numba.py)
        first, inverse = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        return first[: kernel(words, _MIX, first, inverse)], inverse
    started = time.perf_counter()
    with np.errstate(over="ignore"):
        key = (words * _MIX).sum(axis=1, dtype=np.uint64)
        key ^= key >> np.uint64(31)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if not np.array_equal(words[first][inverse], words):
        _, first, inverse = np.unique(words, axis=0, return_index=True, return_inverse=True)
    kept = np.zeros(n, dtype=bool)  # the rows in their own order: a position's children stay side by side
    kept[first] = True
    rank = np.cumsum(kept) - 1
    charge_numpy(time.perf_counter() - started)
    return np.flatnonzero(kept), rank[first[inverse.reshape(-1)]]


def _import_distinct_kernel():
    from model.search.distinct_numba import distinct_kernel

    return distinct_kernel


_distinct_kernel = Kernels(_import_distinct_kernel)


_MIX = np.array([0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93],
                dtype=np.uint64)  # odd multipliers: distinct_rows' hash


def _on_roll(probs, x, state: cube.CubeState, hold) -> np.ndarray:
    """Value of positions on roll (money: per current cube; match: MWC) once the cube decision is
    taken: max(no double, min(double/take, double/pass)) where the side may double, no double where
    it may not or ``hold``s the cube this turn."""
    d = cube.cube_decision(probs, x, state)
    if state.is_money:
        nd, dt_or_dp = d.no_double, np.minimum(d.double_take, d.double_pass)
    else:
        nd, dt_or_dp = d.no_double_mwc, np.minimum(d.double_take_mwc, d.double_pass_mwc)
    return np.where(d.double & ~np.asarray(hold, dtype=bool), dt_or_dp, nd).astype(np.float64)
