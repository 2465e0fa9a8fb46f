"""A rollout whose luck judges race positions (no contact) by pubeval's K_RACE best plays a roll and
contact positions by the default 4: CPU a trial and variance a trial on the opening (experiments/prune_net/README.md).

    python experiments/prune_net/race_luck.py K_RACE        # 4: the shipped rollouts
"""
import model.runtime  # noqa: F401, I001
import math
import sys
import time

import numpy as np
from engine.compiled import use_numba
use_numba(True)
from engine.board import has_contact, start_position
from model import Bot
from model.search import trials as T
from model.search.rollout import rollout
from model.search.top_plays import ROLLS, luck_plays

bot = Bot.load()
RACE_K = int(sys.argv[1])

def mixed(game, positions, k, beam=6):
    if RACE_K == k:
        return luck_plays(game, positions, k, beam)
    contact = has_contact(game, positions)
    kids_c, grp_c = luck_plays(game, positions[contact], k, beam)
    kids_r, grp_r = luck_plays(game, positions[~contact], RACE_K, beam)
    idx_c = np.flatnonzero(contact); idx_r = np.flatnonzero(~contact)
    g_c = idx_c[grp_c // ROLLS] * ROLLS + grp_c % ROLLS
    g_r = idx_r[grp_r // ROLLS] * ROLLS + grp_r % ROLLS
    kids = np.concatenate([kids_c, kids_r]); grp = np.concatenate([g_c, g_r])
    order = np.argsort(grp, kind="stable")
    return kids[order], grp[order]
T.luck_plays = mixed
pos = start_position("backgammon")
rollout(bot.net, pos, trials=72, vr=True, seed=9)
res = []
for seed in (1, 2, 3):
    c = time.process_time()
    r = rollout(bot.net, pos, trials=1296, vr=True, seed=seed)
    cpu = time.process_time() - c
    e = r.evaluation
    sd = e.equity_se * math.sqrt(r.trials)
    res.append((cpu / r.trials, sd, e.equity))
    print(f"race K={RACE_K} seed {seed}: {cpu / r.trials * 1e3:.2f} ms CPU a trial, sd a trial {sd:.4f}, equity {e.equity:+.4f} se {e.equity_se:.4f}", flush=True)
cpt = np.median([x[0] for x in res]); var = np.mean([x[1] ** 2 for x in res])
print(f"race K={RACE_K}: CPU a trial {cpt*1e3:.2f} ms, variance a trial {var:.4f}, precision 1/(var*cpu) {1/(var*cpt):.0f}")
