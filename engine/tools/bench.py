"""``python -m engine bench``: positions per second of ``legal_plays``, beside OpenSpiel's backgammon.

Three fixed, seeded sets of 1,024 positions with the dice thrown there: backgammon mid-game (contact,
mover not on the bar), backgammon race (no contact) and long-nardi mid-game. Each set is handed to
``legal_plays`` as one batch; a run times the whole set, and the figure is the median of ``--runs``
runs. Peak memory is the process's ru_maxrss.

OpenSpiel (when ``pyspiel`` imports and ``--no-openspiel`` is not given): pyspiel cannot be handed a
position, so the two backgammon sets are then reached by playing seeded random games through pyspiel,
and every turn start is converted to our layout; both generators get exactly the same positions and
dice. OpenSpiel's work per position is what a caller needs to list every result: ``legal_actions()``,
then ``clone()`` and ``apply_action()`` for each action. Its doubles come as two half-turns of two
dice each (the second with the same player to move), so for a double every distinct first-half
result (told apart by its observation string, whose cost is counted) is expanded again the same
way; that is the work of one full turn, as ``legal_plays`` does it. Final results are not
deduplicated on OpenSpiel's side (ours are), which only spares OpenSpiel work. Without OpenSpiel
the backgammon sets come from ``engine.tools.sample`` (same kinds, seeded).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time

import numpy as np

from engine.board import BAR, CHECKERS, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF
from engine.movegen import legal_plays
from engine.tools.cli import OneLineParser
from engine.tools.sample import kind_mask, random_positions

SET_SIZE = 1024
SETS = (("backgammon", "midgame"), ("backgammon", "race"), ("nardi", "midgame"))
TARGET_PER_SECOND = 20_000
TARGET_RATIO = 5.0

# ---------------------------------------------------------------- the OpenSpiel bridge

OPENSPIEL_BAR = 100  # OpenSpiel's kBarPos: state.board(player, 100) is that player's bar
OPENSPIEL_MAX_GAMES = 4000


def load_openspiel():
    """pyspiel's backgammon game, or None when pyspiel does not import."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game("backgammon")


def openspiel_position(state, player: int) -> np.ndarray:
    """The OpenSpiel state's board seen by ``player``, in our layout (28,) int8.

    OpenSpiel keeps one count per player and absolute point 0..23: player 0 (x) moves up to 23 and
    its point p is index 24-p; player 1 (o) moves down to 0 and its point p is index p-1. The bar is
    board(player, 100); checkers borne off are the rest of the 15.
    """
    opponent = 1 - player
    pos = np.zeros(NUM_SLOTS, dtype=np.int8)
    for slot in range(24):
        index = 23 - slot if player == 0 else slot
        pos[slot] = state.board(player, index) - state.board(opponent, index)
    pos[BAR] = state.board(player, OPENSPIEL_BAR)
    pos[OPP_BAR] = state.board(opponent, OPENSPIEL_BAR)
    board = pos[:24].astype(int)
    pos[OFF] = CHECKERS - board[board > 0].sum() - pos[BAR]
    pos[OPP_OFF] = CHECKERS + board[board < 0].sum() - pos[OPP_BAR]
    return pos


def openspiel_dice(state) -> tuple[int, int]:
    """The two dice of the state's roll: the last two entries of its observation tensor."""
    tensor = state.observation_tensor()
    return int(tensor[-2]), int(tensor[-1])


def openspiel_turn_leaves(state) -> list:
    """Every state one full turn of OpenSpiel can leave (not deduplicated).

    ``legal_actions()``, then ``clone()`` + ``apply_action()`` for each. When the player is still to
    move afterwards (the first half of a double), the same again from each distinct halfway state:
    halfway states are told apart by their observation string, as a caller would, so that the
    second half is not expanded twice from the same position.
    """
    player = state.current_player()
    leaves, halfway = [], {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if not child.is_terminal() and child.current_player() == player:
            halfway.setdefault(child.observation_string(player), child)
        else:
            leaves.append(child)
    for child in halfway.values():
        for second in child.legal_actions():
            leaf = child.clone()
            leaf.apply_action(second)
            leaves.append(leaf)
    return leaves


def openspiel_turn_starts(game, seed: int, games: int):
    """Play ``games`` seeded random games through OpenSpiel and keep every turn start.

    Returns (states, positions (M, 28) int8 seen by the player on turn, dice (M, 2), turn (M,)),
    turn counting both players' turns from 0 in each game. Chance outcomes follow OpenSpiel's own
    probabilities; moves are uniform among its legal actions.
    """
    rng = np.random.default_rng([seed, 0x05])
    states, positions, dice, turns = [], [], [], []
    for _ in range(games):
        state = game.new_initial_state()
        turn = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probs = np.array([p for _, p in outcomes])
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0])
                player = state.current_player()
                states.append(state.clone())
                positions.append(openspiel_position(state, player))
                dice.append(openspiel_dice(state))
                turns.append(turn)
                turn += 1
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
            while not state.is_terminal() and not state.is_chance_node():  # second half of a double
                actions = state.legal_actions()
                state.apply_action(actions[rng.integers(len(actions))])
    return states, np.array(positions, dtype=np.int8), np.array(dice, dtype=np.int64), np.array(turns)


def openspiel_sets(game, seed: int, kinds: list[str], size: int = SET_SIZE):
    """{kind: (states, positions, dice)}: ``size`` turn starts of each backgammon kind, drawn at
    random (seeded) from OpenSpiel random games; games are added in chunks until every kind has enough."""
    states, positions, dice, turns = [], [], [], []
    games = 0
    while True:
        chunk = openspiel_turn_starts(game, seed * 1000 + games, 16)
        for store, part in zip((states, positions, dice, turns), chunk):
            store.append(part)
        games += 16
        all_pos, all_turns = np.concatenate(positions), np.concatenate(turns)
        masks = {k: kind_mask("backgammon", k, all_pos, all_turns) for k in kinds}
        if all(m.sum() >= size for m in masks.values()) or games >= OPENSPIEL_MAX_GAMES:
            break
    all_states = [s for part in states for s in part]
    all_dice = np.concatenate(dice)
    rng = np.random.default_rng([seed, 0x0B])
    out = {}
    for kind, mask in masks.items():
        idx = np.flatnonzero(mask)
        if len(idx) < size:
            raise RuntimeError(f"only {len(idx)} {kind} positions in {games} OpenSpiel games")
        pick = np.sort(rng.choice(idx, size=size, replace=False))
        out[kind] = ([all_states[i] for i in pick], all_pos[pick], all_dice[pick])
    return out


# ---------------------------------------------------------------- timing


def time_ours(game: str, positions: np.ndarray, dice: np.ndarray, runs: int) -> tuple[float, int]:
    """(median seconds for the whole set, number of children) of ``legal_plays`` over ``runs`` runs."""
    children, _ = legal_plays(game, positions, dice)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        legal_plays(game, positions, dice)
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(children)


def time_openspiel(states: list, runs: int) -> tuple[float, int]:
    """(median seconds, number of leaves) for OpenSpiel to list and apply every full-turn play."""
    leaves = sum(len(openspiel_turn_leaves(s)) for s in states)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for state in states:
            openspiel_turn_leaves(state)
        times.append(time.perf_counter() - start)
    return statistics.median(times), leaves


def peak_memory_mb() -> float:
    """The process's peak resident memory in MB (ru_maxrss is in kilobytes on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_bench(seed: int, runs: int, use_openspiel: bool) -> dict:
    """Time every set; returns the report as a dict (see ``format_report``)."""
    game = load_openspiel() if use_openspiel else None
    from_openspiel = {}
    if game is not None:
        from_openspiel = openspiel_sets(game, seed, [k for g, k in SETS if g == "backgammon"])
    rows = []
    for game_name, kind in SETS:
        row = {"game": game_name, "kind": kind, "positions": SET_SIZE}
        if game_name == "backgammon" and kind in from_openspiel:
            states, positions, dice = from_openspiel[kind]
            row["source"] = "OpenSpiel random games"
        else:
            states = None
            positions, dice = random_positions(game_name, SET_SIZE, seed=seed, kind=kind)
            row["source"] = "engine.tools.sample random play"
        seconds, children = time_ours(game_name, positions, dice, runs)
        row.update(children=children, ours_per_s=SET_SIZE / seconds)
        if states is not None:
            os_seconds, leaves = time_openspiel(states, runs)
            row.update(openspiel_leaves=leaves, openspiel_per_s=SET_SIZE / os_seconds,
                       ratio=(SET_SIZE / seconds) / (SET_SIZE / os_seconds))
        rows.append(row)
    return {
        "seed": seed,
        "runs": runs,
        "openspiel": game is not None,
        "sets": rows,
        "peak_memory_mb": peak_memory_mb(),
    }


def format_report(report: dict) -> str:
    """The report as a small table, with the targets of issue 2 checked for the mid-game set."""
    lines = [
        (f"legal_plays benchmark: seed {report['seed']}, median of {report['runs']} runs, "
         f"{SET_SIZE} positions a set, one batch a run"),
        f"{'set':<22}{'children':>10}{'ours pos/s':>13}{'OpenSpiel pos/s':>17}{'ratio':>8}  positions from",
    ]
    for row in report["sets"]:
        theirs = f"{row['openspiel_per_s']:,.0f}" if "openspiel_per_s" in row else "-"
        ratio = f"{row['ratio']:.1f}x" if "ratio" in row else "-"
        lines.append(
            f"{row['game'] + ' ' + row['kind']:<22}{row['children']:>10,}{row['ours_per_s']:>13,.0f}"
            f"{theirs:>17}{ratio:>8}  {row['source']}"
        )
    lines.append(f"peak memory: {report['peak_memory_mb']:.0f} MB (ru_maxrss)")
    mid = report["sets"][0]
    verdict = f"mid-game target >= {TARGET_PER_SECOND:,}/s: {'met' if mid['ours_per_s'] >= TARGET_PER_SECOND else 'MISSED'}"
    if "ratio" in mid:
        verdict += f"; >= {TARGET_RATIO:.0f}x OpenSpiel: {'met' if mid['ratio'] >= TARGET_RATIO else 'MISSED'}"
    else:
        verdict += "; OpenSpiel not run"
    lines.append(verdict)
    return "\n".join(lines)


def _int_at_least(lowest: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"must be at least {lowest}, got {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m engine bench", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of the position sets (default 0)")
    parser.add_argument("--runs", type=_int_at_least(1), default=5, help="timed runs per set; the median is kept")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    parser.add_argument("--no-openspiel", action="store_true", help="do not run OpenSpiel even if it imports")
    return parser


def main(argv: list[str]) -> int:
    """Run the benchmark; print the table (and write --json). Exit status 2 on bad flags or FILE."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.json:
        try:
            open(args.json, "a").close()
        except OSError as err:
            parser.error(f"cannot write {args.json}: {err.strerror}")
    report = run_bench(args.seed, args.runs, not args.no_openspiel)
    print(format_report(report))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=2)
            out.write("\n")
    return 0
