#!/usr/bin/env bash
# What each strength lever of issue 11 bought (experiments/backgammon_inputs_and_targets.md and the
# pages after it): every step's checker-play benchmark error rates, a 10,000-game mirrored duel against
# the step before it, and the nets against the yardsticks. Writes experiments/levers/*.json. About an
# hour on the 2-core machine (duels 30-65 games/s, against gnubg 0-ply about 28).
#   scripts/measure_levers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=experiments/levers
mkdir -p "$OUT"
export OMP_NUM_THREADS=1
GAMES=${GAMES:-10000}

L0=experiments/nets/backgammon-v2-740k.safetensors    # shipped until session 5: feature version 2, 740k TD games
V3=experiments/nets/backgammon-v3-431k.safetensors        # gnubg-style inputs (v3), 431,890 TD games
V3_310=experiments/nets/backgammon-v3-310k.safetensors    # the same run at 310,269 games
ONEPLY=experiments/nets/backgammon-v3-oneply-308k.safetensors  # forked at 270k, one-ply target to 308k

# the benchmark: every step at once (paired differences against the first), then each step against
# the step before it (paired difference of the overall error rate on the same positions)
python evaluate.py benchmark $L0+noexact $V3+noexact $V3 $ONEPLY $V3_310 --json $OUT/benchmark_all.json
python evaluate.py benchmark $L0+noexact $V3+noexact --json $OUT/benchmark_inputs.json
python evaluate.py benchmark $V3+noexact $V3 --json $OUT/benchmark_bearoff.json
python evaluate.py benchmark $V3_310 $ONEPLY --json $OUT/benchmark_oneply_same_games.json
python evaluate.py benchmark $V3 $ONEPLY --json $OUT/benchmark_oneply_same_time.json

# the duels, mirrored dice, one after another
python evaluate.py $V3+noexact $L0+noexact --games $GAMES --seed 1101 --no-progress --json $OUT/duel_inputs.json
python evaluate.py $V3 $V3+noexact --games $GAMES --seed 1102 --no-progress --json $OUT/duel_bearoff.json
python evaluate.py $ONEPLY $V3_310 --games $GAMES --seed 1103 --no-progress --json $OUT/duel_oneply_same_games.json
python evaluate.py $ONEPLY $V3 --games $GAMES --seed 1104 --no-progress --json $OUT/duel_oneply_same_time.json
# the two nets as they play (bear-offs from the databases): the feature-version-3 net against the shipped one
python evaluate.py $V3 $L0 --games $GAMES --seed 1105 --no-progress --json $OUT/duel_v3_vs_shipped.json

# the feature-version-3 net against the yardsticks
python evaluate.py $V3 gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/v3_vs_gnubg0.json
python evaluate.py $V3 pubeval --games $GAMES --seed 1202 --no-progress --json $OUT/v3_vs_pubeval.json
python evaluate.py $V3 heuristic --games 2000 --seed 1203 --no-progress --json $OUT/v3_vs_heuristic.json
python evaluate.py $V3 random --games 2000 --seed 1204 --no-progress --json $OUT/v3_vs_random.json

# L0 and the one-ply fork against gnubg 0-ply on the same dice as the v3 net
python evaluate.py $L0 gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/shipped_vs_gnubg0.json
python evaluate.py $ONEPLY gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/oneply_vs_gnubg0.json

# L4: the one-ply run at 433,683 games (shipped in sessions 5 to 9) against L2, L0 and gnubg 0-ply
L4=experiments/nets/backgammon-v3-oneply-434k.safetensors
python evaluate.py benchmark $L4 $V3 $L0 --json $OUT/benchmark_shipped_oneply.json
python evaluate.py $L4 $V3 --games $GAMES --seed 1104 --no-progress --json $OUT/duel_oneply434k_vs_v3.json
python evaluate.py $L4 $L0 --games $GAMES --seed 1105 --no-progress --json $OUT/duel_oneply434k_vs_v2.json
python evaluate.py $L4 gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/oneply434k_vs_gnubg0.json

# L5: the race net beside the net shipped then, L4 (+race: races from checkpoints/backgammon-race.safetensors,
# made by scripts/train_race.py; experiments/backgammon_inputs_and_targets.md "L5"); L6 to L8 are
# benchmarked beside L4 too
python evaluate.py benchmark $L4 $L4+race --json $OUT/benchmark_race.json
python evaluate.py $L4+race $L4 --games $GAMES --seed 1501 --no-progress --json $OUT/duel_race.json
python evaluate.py $L4+race gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/race_vs_gnubg0.json

# L6: the one-ply run forked at 577,160 games with --target-prune 8
# (experiments/backgammon_inputs_and_targets.md "L6"), against the fork's start (the K = 3 run at
# 577,160 games) and gnubg 0-ply
L6=experiments/nets/backgammon-v3-prune8-675k.safetensors
K3=experiments/nets/backgammon-v3-oneply-577k.safetensors
python evaluate.py benchmark $L6 $K3 $L4 --json $OUT/benchmark_prune8.json
python evaluate.py $L6 $K3 --games $GAMES --seed 1601 --no-progress --json $OUT/duel_prune8.json
python evaluate.py $L6 gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/prune8_vs_gnubg0.json

# L7: L6 fitted to its own one-ply and two-ply values of the candidate plays it chooses between
# (experiments/backgammon_fitting.md "L7 continued"), against L6, gnubg 0-ply and pubeval
L7=experiments/nets/backgammon-v3-distill-675k.safetensors
python evaluate.py benchmark $L7 $L6 $L4 --json $OUT/benchmark_distill.json
python evaluate.py $L7 $L6 --games 20000 --seed 1801 --no-progress --json $OUT/duel_distill_vs_L6_seed1801.json
python evaluate.py $L7 $L6 --games 20000 --seed 1803 --no-progress --json $OUT/duel_distill_vs_L6_seed1803.json
python evaluate.py $L7 gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/distill_vs_gnubg0.json
python evaluate.py $L7 pubeval --games $GAMES --seed 1202 --no-progress --json $OUT/distill_vs_pubeval.json
python evaluate.py $L7 gnubg-0ply --games $GAMES --seed 1205 --no-progress --json $OUT/distill_vs_gnubg0_seed1205.json
python evaluate.py $L6 gnubg-0ply --games $GAMES --seed 1205 --no-progress --json $OUT/prune8_vs_gnubg0_seed1205.json
# L8 and L8b: L7 fitted to 200,000 and 336,000 two-ply sibling labels of its own (a second round,
# experiments/backgammon_fitting.md "L8"); L9: L8b fitted to 176,000 of its own (a third round, "L9"). Each
# against the net it was fitted from, gnubg 0-ply and pubeval.
fitted_round() {  # NET TAG BASE BASE_TAG [more benchmark players]
  local net=$1 tag=$2 base=$3 base_tag=$4
  shift 4
  python evaluate.py benchmark $net $base "$@" --json $OUT/benchmark_$tag.json
  for seed in 1901 1903; do
    python evaluate.py $net $base --games $GAMES --seed $seed --no-progress --json $OUT/duel_${tag}_vs_${base_tag}_seed$seed.json
  done
  python evaluate.py $net gnubg-0ply --games $GAMES --seed 1201 --no-progress --json $OUT/${tag}_vs_gnubg0.json
  python evaluate.py $net gnubg-0ply --games $GAMES --seed 1205 --no-progress --json $OUT/${tag}_vs_gnubg0_seed1205.json
  python evaluate.py $net pubeval --games $GAMES --seed 1202 --no-progress --json $OUT/${tag}_vs_pubeval.json
}
L8B=experiments/nets/backgammon-v3-distill2b-675k.safetensors
fitted_round experiments/nets/backgammon-v3-distill2-675k.safetensors distill2 $L7 L7 $L4
fitted_round $L8B distill2b $L7 L7
fitted_round experiments/nets/backgammon-v3-distill3-675k.safetensors distill3 $L8B L8b
# nardi: the 883k run fitted to 118k of its own one-ply sibling labels, against the 883k net and 413dfce's
# (git show 413dfce:checkpoints/nardi.safetensors > /tmp/nardi-v1.safetensors; the 883k net is
# experiments/resume/nardi-v2/last.pt written as .safetensors)
git show 413dfce:checkpoints/nardi.safetensors > /tmp/nardi-v1.safetensors  # issue 11's nardi yardstick
ND=experiments/nets/nardi-v2-distill-883k.safetensors
python -c "from model.net.checkpoint import read, write_safetensors as w; w('/tmp/nardi-883k.safetensors', read('experiments/resume/nardi-v2/last.pt', backend='numpy'))"
python evaluate.py $ND /tmp/nardi-883k.safetensors --game nardi --games $GAMES --seed 203 --no-progress --json $OUT/nardi_distill_vs_883k.json
python evaluate.py $ND /tmp/nardi-v1.safetensors --game nardi --games $GAMES --seed 201 --no-progress --json $OUT/nardi_distill_vs_v1.json
# the shipped nets, each against the one it replaced (L8b against L4; the fitted nardi net against the
# 474k net shipped before it)
python evaluate.py $L8B $L4 --games $GAMES --seed 1207 \
  --no-progress --json $OUT/duel_distill2b_vs_L4_seed1207.json
python evaluate.py $ND experiments/nets/nardi-v2-474k.safetensors --game nardi --games $GAMES --seed 204 \
  --no-progress --json $OUT/nardi_distill_vs_shipped.json
# the deep nardi run's end (two layers of 256, TD alone; the nardi net shipped since session 21) against
# the fitted net it replaced and against 413dfce's (session 21 measured 20,000 and 40,000 games)
NDEEP=experiments/nets/nardi-deep-874k.safetensors
python evaluate.py $NDEEP $ND --game nardi --games $((2 * GAMES)) --seed 205 --no-progress \
  --json $OUT/nardi_deep874k_vs_shipped.json
python evaluate.py $NDEEP /tmp/nardi-v1.safetensors --game nardi --games $((4 * GAMES)) --seed 201 --no-progress \
  --json $OUT/nardi_deep874k_vs_v1_40k.json
