#!/usr/bin/env bash
# The shipped backgammon net's whole recipe (L13, checkpoints/README.md), from random weights, as one
# resumable job: self-play, then seven rounds of fitting the net to its own look-ahead. The label
# counts and seeds are the ones the shipped net was fitted on (experiments/backgammon_fitting.md and
# experiments/backgammon_deeper_fits.md, L7 to L13).
#
#   scripts/recipe_backgammon.sh [--dry-run|--hours] [RUNS]        (RUNS default: runs/recipe)
#
# Every step leaves RUNS/done/<step> when it has finished, and is skipped from then on: stop the job
# at any moment (Ctrl-C) and start it again with the same RUNS to go on where it stopped (self-play
# resumes from its last checkpoint, a label job from its last chunk, an unfinished fit starts over).
# --dry-run prints the steps without running them; --hours, the hours of the steps done. Label jobs
# run two at a time (one per core).
# ACTORS=2 plays the self-play stages on both cores (Ray actors, the [ray] extra) instead of one;
# the shipped net was made with one. The end product is RUNS/backgammon.safetensors.
# DIV=N divides every count of games and positions by N, with CHUNK positions a label chunk (default
# 2000) and PARALLEL games side by side (default: the scripts' own): a quick trial of the whole chain
# (tests/train/test_recipe.py runs it with DIV=20000), not the recipe. PYTHON: the interpreter (default python).
# Each done/<step> file holds the wall seconds the step took, over every start when it was stopped
# and started again; --hours prints them per step and in all.
# Hours: experiments/backgammon_recipe.md "A timed run of the recipe" (about 7.2 with ACTORS=2).
set -euo pipefail
cd "$(dirname "$0")/.."

DRY=0
HOURS=0
case "${1:-}" in
  --dry-run) DRY=1; shift ;;
  --hours) HOURS=1; shift ;;
  -h|--help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
case "$#:${1:-}" in
  0:|1:[!-]*) ;;
  *) echo "usage: scripts/recipe_backgammon.sh [--dry-run|--hours] [RUNS]  (not: $*)" >&2; exit 2 ;;
esac
R=${1:-runs/recipe}
if [ "$HOURS" = 1 ]; then  # the wall time each finished step recorded, and the sum
  [ -d "$R/done" ] || { echo "recipe: no steps done in $R" >&2; exit 2; }
  # shellcheck disable=SC2012
  ls -tr "$R/done" | while read -r f; do echo "$f $(head -n 1 "$R/done/$f")"; done |
    awk '{ printf "%-12s %7.2f h\n", $1, $2 / 3600; t += $2 } END { printf "%-12s %7.2f h\n", "total", t / 3600 }'
  exit 0
fi
ACTORS=${ACTORS:-0}
PY=${PYTHON:-python}
DIV=${DIV:-1}
CHUNK=${CHUNK:-2000}
PAR=${PARALLEL:+--parallel-games $PARALLEL}
n() { echo $(( ($1 + DIV - 1) / DIV )); }  # a count of the recipe, divided by DIV (rounded up)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
if [ "$DRY" = 0 ]; then mkdir -p "$R/done"; fi

run() {  # one command, echoed first
  echo "+ $*"
  if [ "$DRY" = 0 ]; then "$@"; fi
}

# The wall seconds of the step under way: a step stopped part way (Ctrl-C, a failed command) leaves
# them in RUNS/done/.NAME.part, and the step's done file, when it finishes, holds them all.
CUR=""
T0=0
spent() { echo $(( $(cat "$R/done/.$CUR.part" 2>/dev/null || echo 0) + SECONDS - T0 )); }
begin() { CUR=$1; T0=$SECONDS; }
finish() {
  if [ "$DRY" = 0 ]; then spent > "$R/done/$CUR"; rm -f "$R/done/.$CUR.part"; fi
  CUR=""
}
trap 'if [ -n "$CUR" ] && [ "$DRY" = 0 ]; then spent > "$R/done/.$CUR.part.tmp" && mv "$R/done/.$CUR.part.tmp" "$R/done/.$CUR.part"; fi' EXIT

step() {  # step NAME COMMAND...: run it unless RUNS/done/NAME says it is done
  local name=$1; shift
  if [ -e "$R/done/$name" ]; then echo "= $name done"; return; fi
  begin "$name"
  run "$@"
  finish
}

PA=""
PB=""
stop_pair() {  # the two label jobs of a pair (each a bash -c and its command), then the script
  local p
  for p in $PA $PB; do pkill -TERM -P "$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
  echo "recipe: stopped; run the script again to go on" >&2
  exit 130
}

pair() {  # pair NAME "COMMAND A" "COMMAND B": two label jobs side by side, one per core
  local name=$1 a=$2 b=$3
  if [ -e "$R/done/$name" ]; then echo "= $name done"; return; fi
  echo "+ $a &"; echo "+ $b &"
  if [ "$DRY" = 1 ]; then return; fi
  begin "$name"
  bash -c "$a" & PA=$!
  bash -c "$b" & PB=$!
  trap stop_pair INT TERM  # jobs started with & ignore Ctrl-C: stop them with the script
  local rc=0
  wait "$PA" || rc=$?
  wait "$PB" || rc=$?
  trap - INT TERM
  if [ "$rc" != 0 ]; then echo "recipe: a label job of $name failed (exit $rc); run the script again to go on" >&2; exit "$rc"; fi
  finish
}

fresh() {  # fresh NAME DIR: a step that writes a new run folder DIR starts over from a half-written one
  if [ ! -e "$R/done/$1" ] && [ "$DRY" = 0 ]; then rm -rf "$2"; fi
}

fit() {  # fit NAME FROM_RUN NEW_RUN "LABEL FOLDERS" OPTIONS...: fit_labels.py into a fresh NEW_RUN
  local name=$1 from=$2 new=$3 labels=$4; shift 4
  fresh "$name" "$new"
  # shellcheck disable=SC2086
  step "$name" "$PY" scripts/fit_labels.py "$@" "$from" $labels "$new"
}

# --- self-play: 674,802 games (README "Training") ------------------------------------------------
SP="$R/selfplay"
LR=0:1e-3,150000:3e-4,320000:1e-4,508314:3e-5
if [ -e "$SP/last.pt" ]; then FIRST=(--run-dir "$SP" --resume); else FIRST=(--run-dir "$SP" --game backgammon \
  --features 3 --hidden 256 --lr-schedule "$LR" --seed 11 --checkpoint-every 10000 --eval-every 50000 --keep-snapshots 0); fi  # every snapshot: the strength curve
step td270k "$PY" train.py "${FIRST[@]}" --games "$(n 270049)" $PAR --threads 1 --actors "$ACTORS" --no-progress
step oneply3 "$PY" train.py --run-dir "$SP" --resume --games "$(n 577160)" --target one-ply --target-prune 3 --lam 0 \
  --checkpoint-every 2000 --threads 1 --actors "$ACTORS" --no-progress
step oneply8 "$PY" train.py --run-dir "$SP" --resume --games "$(n 674802)" --target-prune 8 --checkpoint-every 5000 \
  --threads 1 --actors "$ACTORS" --no-progress

# --- seven rounds of labels of the net's own look-ahead, each fitted from the run before -----------
W="--siblings 4 --warmup 120 --every 8 --actor sample --chunk $CHUNK $PAR"
FIT8="--epochs 8 --lr 1e-4 --batch-size 256 --rank-weight 3"
FIT16="--epochs 16 --lr 1e-4 --batch-size 256 --rank-weight 3 --holdout 0.02"
L=$R/labels
lab() {  # lab NET OUT POSITIONS SEED [ARGS...]: the command line of one label job
  local net=$1 out=$2 count=$3 seed=$4; shift 4
  echo "$PY scripts/two_ply_labels.py $net $out $W --positions $(n "$count") --seed $seed $*"
}

# L7: L6's one-ply values of 604,000 candidate plays and two-ply values of 22,000 (6,000 more scored only)
pair labels-L7 "$(lab "$SP/last.pt" "$L/sib1" 604000 4000001 --plies 1)" \
  "$(lab "$SP/last.pt" "$L/sib2-test" 6000 5000001) && $(lab "$SP/last.pt" "$L/sib2" 22000 5000004)"
fit fit-L7 "$SP" "$R/L7" "$L/sib1 $L/sib2" $FIT8 --holdout 0 --test "$L/sib2-test"
# L8b: 342,000 of L7's own two-ply labels
pair labels-L8b "$(lab "$R/L7/last.pt" "$L/l7a" 204000 6000001)" "$(lab "$R/L7/last.pt" "$L/l7b" 138000 7000001)"
fit fit-L8b "$R/L7" "$R/L8b" "$L/l7a $L/l7b" $FIT8 --holdout 0.02
# L9b: 800,000 of L8b's
pair labels-L9b "$(lab "$R/L8b/last.pt" "$L/l10a" 400000 8100001)" "$(lab "$R/L8b/last.pt" "$L/l10b" 400000 8600001)"
fit fit-L9b "$R/L8b" "$R/L9b" "$L/l10a $L/l10b" $FIT8 --holdout 0.02
# L10: 600,000 of L9b's
pair labels-L10 "$(lab "$R/L9b/last.pt" "$L/l11a" 300000 10100001)" "$(lab "$R/L9b/last.pt" "$L/l11b" 300000 10600001)"
fit fit-L10 "$R/L9b" "$R/L10" "$L/l11a $L/l11b" $FIT8 --holdout 0.02
# L11: 770,000 of L10's; L10's run given a second (identity) hidden layer, fitted on the rounds since L9b
pair labels-L11 "$(lab "$R/L10/last.pt" "$L/l12a" 136000 11100001) && $(lab "$R/L10/last.pt" "$L/l13a" 250000 12100001)" \
  "$(lab "$R/L10/last.pt" "$L/l12b" 134000 11600001) && $(lab "$R/L10/last.pt" "$L/l13b" 250000 12600001)"
fresh deepen-L10 "$R/L10deep"
step deepen-L10 "$PY" scripts/widen_run.py "$R/L10" "$R/L10deep" --deepen
LAB="$L/l12a $L/l12b $L/l13a $L/l13b $L/l11a $L/l11b $L/l10a $L/l10b"
fit fit-L11 "$R/L10deep" "$R/L11" "$LAB" $FIT8 --holdout 0.02
# L12: 360,000 of L11's, with the rounds before, 16 epochs
pair labels-L12 "$(lab "$R/L11/last.pt" "$L/l14a" 210000 13100001)" "$(lab "$R/L11/last.pt" "$L/l14b" 150000 13600001)"
LAB="$L/l14a $L/l14b $L/l13a $L/l13b $L/l12a $L/l12b $L/l11a $L/l11b $L/l10a $L/l10b"
fit fit-L12 "$R/L11" "$R/L12" "$LAB" $FIT16
# L13: 462,000 of L12's, with the rounds before, 16 epochs: the shipped net
pair labels-L13 "$(lab "$R/L12/last.pt" "$L/l15a" 232000 14100001)" "$(lab "$R/L12/last.pt" "$L/l15b" 230000 14600001)"
LAB="$L/l15a $L/l15b $LAB"
fit fit-L13 "$R/L12" "$R/L13" "$LAB" $FIT16
step export "$PY" scripts/export_safetensors.py "$R/L13/last.pt" "$R/backgammon.safetensors"
echo "recipe: done; $R/backgammon.safetensors (compare: python evaluate.py $R/backgammon.safetensors gnubg-0ply --luck checkpoints/backgammon.safetensors --games 10000)"
