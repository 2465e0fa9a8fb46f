"""TD(lambda) self-play: actors play many games side by side, a learner fits the lambda-returns.

The two halves talk through plain arrays, so they can live in different processes or machines:

    actor.set_weights(learner.weights())
    batch = actor.play(min_samples)          # Experience: positions (N, 28) int8, targets (N, K)
    metrics = learner.update(batch.positions, batch.targets)

(nardibot train --actors N runs N actors as Ray actors in other processes: model/train/actors.py.)

The actor keeps ``games`` games in flight at once (model/arena/pool.py's ``CubelessGames``, dealt
games without end); every ply is one legal_plays call and one network call for all of them, and a
finished game's slot starts a new game at once. A game's positions are
recorded as the side on roll sees them after each play (x_0, x_1, ..., x_T), with the value V(x_t)
the network gave them when the play was chosen (the final one is the exact result). Targets are
the offline lambda-returns, computed backwards once the game ends:

    G_T = V(x_T)                                     (the result, or the network's value if cut off)
    G_t = flip((1 - lambda) V(x_{t+1}) + lambda G_{t+1})

``flip`` turns probabilities to the other side's view, since x_t and x_{t+1} have different sides on
roll. Fitting V(x_t) to G_t is the forward view of TD(lambda) (Sutton & Barto, ch. 12).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import torch

from engine.board import CHECKERS, OFF, flip, has_contact, winner_score
from engine.groups import group_argmax, group_starts
from engine.movegen import legal_plays
from model.arena.pool import CubelessGames
from model.net.equity import cubeless_equity, flip_probs, outcome_targets
from model.net.evaluator import child_probabilities
from model.net.features import encode
from model.net.network import OutcomeNet
from model.net.table_forward import TableForward
from model.search.top_plays import scores as pubeval_scores
from model.search.top_plays import top_distinct
from model.train.one_ply import ROLLS, best_replies, throw
from model.train.race_games import StartGames

TARGETS = ("sample", "one-ply")
"""What V(x_t) is pulled toward: the next position the dice gave (TD) or the one-ply expectation."""


@dataclass
class Experience:
    """What actors hand to the learner, plus what they saw on the way."""

    positions: np.ndarray  # (N, 28) int8, side on roll's view
    targets: np.ndarray  # (N, K) float32 lambda-returns
    games: int = 0  # games finished by a win (those stopped at the ply cap are counted in cut_off)
    plies: int = 0  # plies played by all the games in flight meanwhile, finished or not
    results: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # |points| of each game
    cut_off: int = 0  # games stopped at the ply cap
    game_plies: int = 0  # the plies of the games finished, summed: game_plies / games is their mean length


def opening_dice(game: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Dice for the first play of a game (n, 2).

    Backgammon: each side throws one die, ties are thrown again, the higher plays the two dice
    thrown, so the first roll is never a double and every non-double is equally likely.
    Long nardi: the winner of the single-die throw throws both dice afresh: any roll. (The arenas
    throw the same openings from their mirrored dice streams: model/arena/pool.py.)
    """
    if game == "nardi":
        return rng.integers(1, 7, (n, 2))
    a = rng.integers(1, 7, n)
    b = rng.integers(1, 6, n)
    b = b + (b >= a)
    return np.stack([a, b], axis=1)


def lambda_returns(game: str, values: np.ndarray, lengths: np.ndarray, lam: float,
                   final: np.ndarray | None = None) -> np.ndarray:
    """Lambda-returns (G, L, K) of G games padded to L plies; values[g, t] is V(x_t), side on roll.

    G_{L_g - 1} = V(x_{L_g - 1}) (or ``final`` (G, K), the last position's value, when given apart);
    G_t = flip((1 - lam) V(x_{t+1}) + lam G_{t+1}). Entries at t >= lengths[g] are zero.

    Computed without a loop over plies: ``flip`` is affine and its own inverse, so in one fixed view
    (the side on roll at even plies: u_t = V(x_t) at even t, flip(V(x_t)) at odd t, and so for G)
    the recursion is the linear G'_t = (1 - lam) u_{t+1} + lam G'_{t+1}. Padding every game past its
    end with its G_T (fixed view) makes that recursion the same for all of them, so one matrix
    product (``_return_weights``) gives every return; float64 inside, within float32 rounding of the
    recursion step by step.
    """
    games, width = values.shape[:2]
    out = np.zeros_like(values)
    if games == 0 or width == 0:
        return out
    lengths = np.asarray(lengths)
    last = lengths - 1
    rows = np.arange(games)
    plies = np.arange(width + 1)  # one ply past the longest game, so every game's end is padded
    v = values[rows[:, None], np.minimum(plies[None, :], last[:, None])].astype(np.float64)  # (G, W, K)
    end = v[rows, last] if final is None else np.asarray(final, dtype=np.float64)
    odd = plies % 2 == 1
    end_fixed = np.where((last % 2 == 1)[:, None], flip_probs(game, end), end)
    v[:, odd] = flip_probs(game, v[:, odd])  # the fixed view
    past = plies[None, :] > last[:, None]
    v[past] = np.broadcast_to(end_fixed[:, None, :], v.shape)[past]
    fixed = _return_weights(lam, width + 1)[:width] @ v  # (W, W + 1) @ (G, W + 1, K)
    odd, past = odd[:width], past[:, :width]
    fixed[:, odd] = flip_probs(game, fixed[:, odd])
    fixed[past] = 0.0
    fixed[rows, last] = end  # exactly, not within rounding
    out[...] = fixed
    return out


@functools.lru_cache(maxsize=16)
def _block_weights(lam: float, size: int) -> np.ndarray:
    """(size, size): row t gives G'_t as weights of u_{t+1..size-1}, with G'_{size-1} = u_{size-1}."""
    gap = np.arange(size)[None, :] - np.arange(size)[:, None]  # s - t
    weights = np.where(gap > 0, (1 - lam) * float(lam) ** np.maximum(gap - 1, 0), 0.0)
    weights[:, -1] = np.where(gap[:, -1] > 0, float(lam) ** np.maximum(gap[:, -1] - 1, 0), 0.0)
    weights[-1, -1] = 1.0
    return weights


def _return_weights(lam: float, width: int) -> np.ndarray:
    """The weights of ``_block_weights`` for ``width`` plies: the bottom-right block of a cached larger
    matrix (the weights depend only on s - t and on the distance to the last ply)."""
    size = 64
    while size < width:
        size *= 2
    return _block_weights(float(lam), size)[size - width :, size - width :]


class SelfPlayActor:
    """Plays ``games`` self-play games at once with a copy of the network, greedy at 0-ply."""

    def __init__(self, net: OutcomeNet, games: int = 256, lam: float = 0.7, seed: int = 0,
                 device="cpu", max_plies: int = 600, explore: float = 0.0, exact_endgames: bool = False,
                 target: str = "sample", prune: int = 0, starts: np.ndarray | None = None,
                 play_prune: int = 0):
        self.game = net.config.game
        self.net = OutcomeNet(net.config).to(device)
        self.net.load_state_dict(net.state_dict())
        self.net.eval()
        self.forward = TableForward(self.net)  # the net's forward pass, its point units from a table
        # exact_endgames: plays and recorded values (so the targets) of bear-offs from the databases
        self.evaluator = self.forward
        if exact_endgames:
            from model.net.evaluator import ExactEndgames

            self.evaluator = ExactEndgames(self.forward)
        if target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
        self.target = target  # "one-ply": model/train/one_ply.py
        self.prune = prune
        if play_prune < 0:
            raise ValueError(f"play_prune must be 0 or more, not {play_prune}")
        self.play_prune = play_prune if self.game == "backgammon" else 0  # pubeval is backgammon's
        self.device = device
        self.lam = lam
        self.explore = explore
        self.rng = np.random.default_rng(seed)
        self.max_plies = max_plies
        self.n = games
        k = net.config.outputs
        if starts is None:
            self.table = CubelessGames(self.game, games, None, max_plies)  # games dealt without end
        else:  # games from these positions (model/train/race_games.py), their first roll any roll
            self.table = StartGames(self.game, games, None, max_plies, starts, self.rng)
        self.openings = starts is None  # whether a game's first roll follows the opening rule
        self.table.deal(np.arange(games))
        self.hist_pos = np.zeros((max_plies, games, 28), dtype=np.int8)
        self.hist_val = np.zeros((max_plies, games, k), dtype=np.float32)
        self.final = np.zeros((games, k), dtype=np.float32)  # one-ply: V(x_t) of the last ply, x_t's view

    def set_weights(self, state_dict: dict) -> None:
        self.net.load_state_dict(state_dict)
        self.forward.refresh()

    def _step(self) -> np.ndarray:
        """Play one ply in every slot; return the chosen children (mover's view)."""
        if self.target == "one-ply":
            return self._step_one_ply()
        dice = self.rng.integers(1, 7, (self.n, 2))
        opening = (self.table.plies == 0) & self.openings
        if opening.any():
            dice[opening] = opening_dice(self.game, self.rng, int(opening.sum()))
        children, parent = legal_plays(self.game, self.table.pos, dice)
        if self.play_prune:  # only pubeval's K best plays of each roll go to the network
            contact = has_contact(self.game, self.table.pos)
            keep = np.flatnonzero(top_distinct(pubeval_scores(children, contact[parent]), parent, self.play_prune))
            children, parent = children[keep], parent[keep]
        probs = child_probabilities(self.evaluator, children, self.device)
        pick = group_argmax(cubeless_equity(self.game, probs), parent, self.n)
        if self.explore > 0:
            wander = self.rng.random(self.n) < self.explore
            if wander.any():
                start, count = group_starts(parent, self.n)
                rand = start + (self.rng.random(self.n) * count).astype(np.int64)
                pick = np.where(wander, rand, pick)
        chosen = children[pick]
        after = flip(self.game, chosen)  # x_t: the next side on roll
        slot = np.arange(self.n)
        t = self.table.plies
        self.hist_pos[t, slot] = after
        self.hist_val[t, slot] = flip_probs(self.game, probs[pick])
        return chosen

    def _step_one_ply(self) -> np.ndarray:
        """One ply in every slot from all 21 rolls' best plays (model/train/one_ply.py). The value
        recorded for x_t is V1(x_{t-1}) in x_t's view, so ``lambda_returns`` gives
        G_{t-1} = (1 - lambda) V1(x_{t-1}) + lambda flip(G_t); ``final`` keeps x_t's own value for
        the game's last ply: the exact result of a finished game (a game cut off at the ply cap
        ends on its V1)."""
        replies = best_replies(self.evaluator, self.game, self.table.pos, self.prune, self.device)
        roll = throw(self.game, self.rng, (self.table.plies == 0) & self.openings)
        rows = np.arange(self.n) * ROLLS + roll
        pick = replies.best[rows]
        if self.explore > 0:
            wander = self.rng.random(self.n) < self.explore
            if wander.any():
                start, count = group_starts(replies.row, self.n * ROLLS)
                rand = start[rows] + (self.rng.random(self.n) * count[rows]).astype(np.int64)
                pick = np.where(wander, rand, pick)
        chosen = replies.children[pick]
        slot = np.arange(self.n)
        t = self.table.plies
        self.hist_pos[t, slot] = flip(self.game, chosen)
        self.hist_val[t, slot] = flip_probs(self.game, replies.expectation())
        self.final[:] = self.hist_val[t, slot]
        done = chosen[:, OFF] == CHECKERS
        if done.any():
            self.final[done] = flip_probs(self.game, outcome_targets(self.game, winner_score(self.game, chosen[done])))
        return chosen

    def play(self, min_samples: int) -> Experience:
        """Play until at least ``min_samples`` positions of finished games are collected."""
        pos_out, tgt_out, results = [], [], []
        samples = plies = games = game_plies = cut = 0
        every = np.arange(self.n)
        while samples < min_samples:
            chosen = self._step()
            plies += self.n
            score, ended, capped = self.table.end_turn(every, chosen)
            if not ended.any():
                continue
            slots = np.flatnonzero(ended)
            lengths = self.table.plies[slots]
            width = int(lengths.max())
            vals = self.hist_val[:width, slots].transpose(1, 0, 2)  # (G, L, K)
            final = self.final[slots] if self.target == "one-ply" else None
            rets = lambda_returns(self.game, vals, lengths, self.lam, final)
            keep = np.arange(width)[None, :] < (lengths - 1)[:, None]  # x_T itself is exact
            pos_out.append(self.hist_pos[:width, slots].transpose(1, 0, 2)[keep])
            tgt_out.append(rets[keep])
            samples += int(keep.sum())
            won = score > 0
            results.append(score[won])
            games += int(won.sum())
            game_plies += int(self.table.plies[won].sum())
            cut += int(capped.sum())
            self.table.deal(slots)
        return Experience(np.concatenate(pos_out), np.concatenate(tgt_out).astype(np.float32),
                          games, plies, np.concatenate(results).astype(np.int8), cut, game_plies)


def join(parts: list[Experience]) -> Experience:
    """The experiences ``parts`` as one, in order."""
    return Experience(np.concatenate([e.positions for e in parts]), np.concatenate([e.targets for e in parts]),
                      sum(e.games for e in parts), sum(e.plies for e in parts),
                      np.concatenate([e.results for e in parts]), sum(e.cut_off for e in parts),
                      sum(e.game_plies for e in parts))


def collect(actor: SelfPlayActor, min_samples: int, max_games: int) -> Experience:
    """What ``actor.play(min_samples)`` returns, except that it stops at the first ply on which
    ``max_games`` games have ended. It calls ``actor.play(1)`` (the plies up to the next one on which a
    game ends) until either is reached; the games in flight go on from one call to the next, so the
    plies played are exactly those of one ``play(min_samples)`` call, up to the stop. Games that end on
    the same ply all count, so it may pass ``max_games`` by those (fewer than the actor's games)."""
    parts, samples, games = [], 0, 0
    while samples < min_samples and games < max_games:
        exp = actor.play(1)
        parts.append(exp)
        samples += len(exp.positions)
        games += exp.games
    return join(parts)


class TDLearner:
    """Fits the network's outputs to lambda-returns with Adam, in minibatches."""

    def __init__(self, net: OutcomeNet, lr: float = 1e-3, batch_size: int = 512, device="cpu",
                 seed: int = 0):
        self.net = net.to(device)
        self.device = device
        self.batch_size = batch_size
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)
        self.gen = torch.Generator().manual_seed(seed)
        self.steps = 0

    def weights(self) -> dict:
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    def update(self, positions: np.ndarray, targets: np.ndarray, families: np.ndarray | None = None,
               rank_weight: float = 0.0) -> dict:
        """One pass over the samples in random minibatches; returns mean loss. With ``families``
        (n,) ints, the rows of one family (say the candidate plays of one roll) stay together in a
        minibatch, and ``rank_weight`` > 0 adds that weight times the squared error of each row's
        cubeless equity about its family's mean error: the part of the fit that ranks the family."""
        self.net.train()
        game = self.net.config.game
        x = torch.from_numpy(encode(game, positions, self.net.config.feature_version)).to(self.device)
        y = torch.from_numpy(targets).to(self.device)
        if families is None:
            order = torch.randperm(len(x), generator=self.gen).to(self.device)
        else:
            fam = torch.from_numpy(np.unique(families, return_inverse=True)[1].reshape(-1)).to(self.device)
            shuffled = torch.randperm(int(fam.max()) + 1 if len(fam) else 0, generator=self.gen).to(self.device)
            order = torch.argsort(shuffled[fam], stable=True)
        total, batches = 0.0, 0
        for i in range(0, len(x), self.batch_size):
            idx = order[i : i + self.batch_size]
            out = self.net(x[idx])
            loss = torch.nn.functional.mse_loss(out, y[idx], reduction="sum") / len(idx)
            if families is not None and rank_weight > 0:
                _, inv, counts = torch.unique(fam[idx], return_inverse=True, return_counts=True)
                err = cubeless_equity(game, out) - cubeless_equity(game, y[idx])
                mean = torch.zeros(len(counts), device=err.device).index_add_(0, inv, err) / counts
                loss = loss + rank_weight * ((err - mean[inv]) ** 2).sum() / len(idx)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            total += float(loss.detach())
            batches += 1
            self.steps += 1
        self.net.eval()
        return {"loss": total / max(batches, 1), "samples": len(x)}
