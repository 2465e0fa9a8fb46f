#!/usr/bin/env bash
# Every strength figure recorded in checkpoints/README.md, measured on the shipped checkpoints.
# Writes experiments/results/release/*.json, and the strength plots: their points as
# experiments/results/strength_*.json, the pictures as docs/strength_*.png. About 30 minutes on 2 cores.
#   scripts/measure_release.sh [backgammon-run-dir] [nardi-run-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BG_RUN=${1:-experiments/resume/backgammon-v3-oneply}
NARDI_RUN=${2:-experiments/resume/nardi-deep3}
OUT=experiments/results/release
PLOTS=experiments/results  # strength_curve.py writes NAME.json and NAME.png here; the PNG moves to docs/
mkdir -p "$OUT" docs
export OMP_NUM_THREADS=1
BG=checkpoints/backgammon.safetensors
NARDI=checkpoints/nardi.safetensors

# issue 3: cubeless strength, mirrored dice
python evaluate.py $BG pubeval --games 10000 --seed 101 --no-progress --json $OUT/backgammon_vs_pubeval.json
python evaluate.py $BG gnubg-0ply --games 2000 --seed 102 --luck $BG --no-progress --json $OUT/backgammon_vs_gnubg0.json
python evaluate.py $BG heuristic --games 2000 --seed 103 --no-progress --json $OUT/backgammon_vs_heuristic.json
python evaluate.py $BG random --games 2000 --seed 104 --no-progress --json $OUT/backgammon_vs_random.json
python evaluate.py $NARDI heuristic --game nardi --games 4000 --seed 11 --no-progress --json $OUT/nardi_vs_heuristic.json
python evaluate.py $NARDI random --game nardi --games 4000 --seed 12 --no-progress --json $OUT/nardi_vs_random.json
# issue 11's nardi yardstick: the nardi net shipped when it was filed (58,812 games, feature version 1)
git show 413dfce:checkpoints/nardi.safetensors > /tmp/nardi-v1.safetensors
python evaluate.py $NARDI /tmp/nardi-v1.safetensors --game nardi --games 10000 --seed 201 --no-progress --json $OUT/nardi_vs_v1.json

# issue 4: the cube adds strength (money games with the cube; 5-point matches, match-aware vs money-style)
python scripts/cube_strength.py --checkpoint $BG --only money --money-games 4000 --seed 1 --json $OUT/cube_money.json
python scripts/cube_strength.py --checkpoint $BG --only match --matches 4000 --length 5 --seed 2 --json $OUT/cube_match.json

# issue 5: top-play agreement with gnubg 0-ply, equity loss of 0-ply and 2-ply choices judged by gnubg 2-ply
python scripts/gnubg_agreement.py --checkpoint $BG --positions 300 --seed 1 --json $OUT/gnubg_agreement.json

# strength against training time, from the runs' snapshots (kept on the training machine, not in git).
# The backgammon plot is the shipped net's lineage: the plain run's points up to 270,049 games (from
# experiments/results/strength_backgammon_v3.json, experiments/backgammon_inputs_and_targets.md), then
# the one-ply run's snapshots, then the steps that write no snapshots (L6's end and the fits to labels,
# the experiments/nets/ files) at the recipe's hours (experiments/backgammon_recipe.md: the self-play's
# 9.82 hours, then each round's labelling and fitting on this machine).
if [ -d "$BG_RUN/snapshots" ]; then
  python scripts/strength_curve.py "$BG_RUN" --opponent pubeval --benchmark --games 1000 --every 6 --seed 7 \
    --x hours --out /tmp/curve_oneply
  python -c "import json; d = json.load(open('$PLOTS/strength_backgammon_v3.json')); \
json.dump([p for p in d if p['games'] <= 270049], open('/tmp/plain_to_270k.json', 'w'))"
  L=experiments/nets/backgammon-v3
  python scripts/strength_curve.py --opponent pubeval,gnubg-0ply --benchmark --games 1000 --seed 7 --x hours \
    --nets $L-prune8-675k.safetensors@9.82@L6 $L-distill-675k.safetensors@10.74@L7 \
    $L-distill2b-675k.safetensors@12.3@L8b $L-distill3b-675k.safetensors@13.68@L9b \
    $L-distill4-675k.safetensors@14.65@L10 $L-distill5-675k.safetensors@16.37@L11 \
    $L-distill6-675k.safetensors@17.82@L12 $L-distill7-675k.safetensors@19.9@L13 --out /tmp/curve_fits
  python scripts/strength_curve.py --plot /tmp/plain_to_270k.json /tmp/curve_oneply.json /tmp/curve_fits.json \
    --x hours --out $PLOTS/strength_backgammon
  mv $PLOTS/strength_backgammon.png docs/
fi
# The nardi plot: the shipped nardi net's self-play run (the three-layer run, whose snapshots stay on
# the training machine) against issue 11's yardstick, every sixth snapshot, then the shipped file (that
# run fitted to the ensemble's labels) at the run's 3.74 hours and the labels' and fit's 0.38 (the
# ensemble's other net, the deep run, took 3.47 hours of its own, beside it).
if [ -d "$NARDI_RUN/snapshots" ]; then
  python scripts/strength_curve.py "$NARDI_RUN" --opponent /tmp/nardi-v1.safetensors --games 2000 --every 6 \
    --seed 7 --x hours --out /tmp/curve_nardi
  python scripts/strength_curve.py --nets $NARDI@4.12@E3 --opponent /tmp/nardi-v1.safetensors --games 2000 \
    --seed 7 --x hours --out /tmp/curve_nardi_end
  python scripts/strength_curve.py --plot /tmp/curve_nardi.json /tmp/curve_nardi_end.json --x hours \
    --out $PLOTS/strength_nardi
  mv $PLOTS/strength_nardi.png docs/
fi
