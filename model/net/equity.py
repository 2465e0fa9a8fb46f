"""Named network outputs and cubeless equity, as pure functions of the outcome probabilities.

Outputs are probabilities from the mover's view (the side whose position it is), cumulative as in
gnubg: a backgammon is also a gammon, a gammon is also a win.

    backgammon: [WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON]
    nardi:      [WIN, WIN_MARS, LOSE_MARS]
"""

from __future__ import annotations

import numpy as np

WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)
NARDI_WIN, WIN_MARS, LOSE_MARS = range(3)

OUTPUTS = {"backgammon": 5, "nardi": 3}
OUTPUT_NAMES = {
    "backgammon": ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"),
    "nardi": ("win", "win_mars", "lose_mars"),
}


def cubeless_equity(game: str, probs):
    """Cubeless money equity (points per unit stake) of probabilities (..., K).

    backgammon:  E = 2 p(win) - 1 + (p(wg) - p(lg)) + (p(wbg) - p(lbg))
                 (a single is worth 1, a gammon 2, a backgammon 3; outputs are cumulative)
    nardi:       E = 2 p(win) - 1 + p(win mars) - p(lose mars)
    Works on numpy arrays and torch tensors alike, and on one position's probabilities as a list of
    Python floats (the same sums in the same order, without numpy's cost per scalar: a hint's own
    evaluation).
    """
    p = probs if isinstance(probs, list) else [probs[..., k] for k in range(probs.shape[-1])]
    if game == "backgammon":
        return 2 * p[WIN] - 1 + p[WIN_GAMMON] - p[LOSE_GAMMON] + p[WIN_BACKGAMMON] - p[LOSE_BACKGAMMON]
    return 2 * p[NARDI_WIN] - 1 + p[WIN_MARS] - p[LOSE_MARS]


def chain_heads(game: str, s, stack):
    """Consistent outcome probabilities from the net's conditional sigmoids s (B, K).

    backgammon: win = s0, win_gammon = win s1, win_bg = win_gammon s2, lose_gammon = (1 - win) s3,
    lose_bg = lose_gammon s4; nardi: win = s0, win_mars = win s1, lose_mars = (1 - win) s2.
    ``stack(list_of_columns)`` joins columns (torch.stack or np.stack along axis 1), so torch and
    numpy share one definition.
    """
    win = s[:, 0]
    if game == "backgammon":
        wg = win * s[:, 1]
        lg = (1 - win) * s[:, 3]
        return stack([win, wg, wg * s[:, 2], lg, lg * s[:, 4]])
    return stack([win, win * s[:, 1], (1 - win) * s[:, 2]])


def flip_probs(game: str, probs):
    """The same probabilities seen from the other side: win <-> loss, gammons swapped."""
    p = np.asarray(probs, dtype=np.float64)
    out = np.empty_like(p)
    if game == "backgammon":
        out[..., WIN] = 1 - p[..., WIN]
        out[..., WIN_GAMMON] = p[..., LOSE_GAMMON]
        out[..., WIN_BACKGAMMON] = p[..., LOSE_BACKGAMMON]
        out[..., LOSE_GAMMON] = p[..., WIN_GAMMON]
        out[..., LOSE_BACKGAMMON] = p[..., WIN_BACKGAMMON]
    else:
        out[..., NARDI_WIN] = 1 - p[..., NARDI_WIN]
        out[..., WIN_MARS] = p[..., LOSE_MARS]
        out[..., LOSE_MARS] = p[..., WIN_MARS]
    return out


def outcome_targets(game: str, score: np.ndarray) -> np.ndarray:
    """Targets (B, K) for games the mover has just won (score 1/2/3) or lost (score -1/-2/-3)."""
    score = np.asarray(score)
    won = score > 0
    mag = np.abs(score)
    if game == "backgammon":
        t = np.zeros(score.shape + (5,), dtype=np.float32)
        t[..., WIN] = won
        t[..., WIN_GAMMON] = won & (mag >= 2)
        t[..., WIN_BACKGAMMON] = won & (mag >= 3)
        t[..., LOSE_GAMMON] = ~won & (mag >= 2)
        t[..., LOSE_BACKGAMMON] = ~won & (mag >= 3)
        return t
    t = np.zeros(score.shape + (3,), dtype=np.float32)
    t[..., NARDI_WIN] = won
    t[..., WIN_MARS] = won & (mag >= 2)
    t[..., LOSE_MARS] = ~won & (mag >= 2)
    return t
