"""Full games with the doubling cube, and full matches, between two cube players, batched, mirrored dice.

    result = play_matches(player_a, player_b, Rules(match_length=5), matches=1000, seed=1)
    result.summary()   # A's match wins with a 95% interval, games per match, cube actions...
    result = play_matches(player_a, player_b, Rules(), matches=4000)    # money: one game each
    result.summary()   # A's points per game (cube included) with a 95% interval

Every game is an engine.game ``GameState`` and moves only through engine.game's transitions (roll,
play, double, take, drop, beaver, resignations, finish_game), so whatever the rules refuse raises
RuleError here too: the players (model/players/cube_players.py) are never trusted with the rules. A "match"
is a MatchState played until it is over: a match to its length, or a money session of
``rules.session_games`` games (one if not set).

Mirrored dice (engine/dice.py's ``MirroredDice``, as in the cubeless arena): matches 2k and 2k+1 form a
pair; player A sits in seat 0 in match 2k and in seat 1 in match 2k+1. Game n of either match throws
the dice stream (k << 32 | n), so each seat throws the
same dice, turn by turn, in the first game of both matches, and in later games while the two matches
keep the same game numbers. The opening throw includes its ties (each pair throws the same ones),
so automatic doubles (money) start both games of a pair at the same centred cube. The pair is the
independent sample behind the 95% interval (as in the
cubeless arena); match wins also get a Wilson interval over matches.

Each step every game in flight advances one turn, and the expensive parts are batched over the games:
  1. resignations (optional, off by default: they only shorten games): the side on roll may offer;
  2. the cube: every game whose side on roll may double asks that player (one batched call per
     player, e.g. one network call); then every waiting double is answered the same way;
  3. the roll: one legal_plays call for all games that roll;
  4. the play: one select call per player for all games it must move in (one network call).
Finished games are scored into their match (engine.game.finish_game); a slot whose match is over
takes the next match at once (model/arena/pool.py's ``GamesInPlay``, a slot per match), so the pool
stays full until the last matches.

With ``record=True`` each game's states are kept while it is played and turned into an
engine/formats/matfile.py GameRecord when it ends (only then: the run is otherwise unchanged); ``mat_records``
makes .mat records of them (a file per match, or one money session), A in the left column.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from engine import game as g
from engine.dice import MirroredDice
from engine.formats.matfile import (
    MatchRecord,
    game_record,
    money_session,
    player_names,
    rules_options,
    swap_sides,
)
from engine.groups import group_starts
from engine.movegen import legal_plays
from model.arena.cubeless import MAX_PLIES, ArenaResult
from model.arena.pool import GamesInPlay, choose_by_player
from model.players.cube_players import CubePlayer

ACTIONS = ("double", "take", "drop", "beaver", "resign", "accept", "reject")
"""Names of the cube and resignation actions, as counted and as passed to ``on_action``."""
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion: (centre -+ half) with
    centre = (p + z^2/2n) / (1 + z^2/n), half = z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


@dataclass
class CubeArenaResult:
    """Outcomes of a run of matches (money: sessions), seen from player A."""

    game: str
    names: tuple[str, str]
    seed: int
    rules: g.Rules
    a_points: np.ndarray  # (M,) A's points minus B's at the end of each match or session
    a_won: np.ndarray  # (M,) 1.0 A won the match, 0.0 B did, 0.5 neither (a capped match)
    games: np.ndarray  # (M,) games played in each match
    plies: np.ndarray  # (M,) plies played over its games
    capped: np.ndarray  # (M,) bool: a game hit the ply cap and the match was abandoned
    cubes: np.ndarray  # (G,) the cube each game ended at (a dropped double: the value before it)
    endings: dict  # how games ended: played / dropped / resigned -> count
    actions: dict  # "a_double", "b_take"... -> count, by the player who acted
    seconds: float
    max_plies: int = MAX_PLIES
    finals: list = field(default_factory=list, repr=False)  # (M,) the final MatchState of each match
    records: list | None = field(default=None, repr=False)  # (M,) each match's GameRecords (seat order), if kept

    @property
    def matches(self) -> int:
        return len(self.a_points)

    @property
    def money(self) -> bool:
        return self.rules.money

    def _pairs(self, values) -> ArenaResult:
        """model.arena.cubeless's pair statistics over per-match values (pairs = mirrored matches)."""
        return ArenaResult(self.game, self.names, self.seed, np.asarray(values, dtype=np.float64),
                           self.plies, self.capped, self.seconds, self.max_plies)

    @property
    def total_games(self) -> int:
        return int(self.games.sum())

    @property
    def ppg(self) -> float:
        """A's points per game, the cube included."""
        return float(self.a_points.sum() / max(self.total_games, 1))

    def summary(self) -> dict:
        """Every figure of the run, JSON-ready (money: points per game; matches: match wins)."""
        out = {
            "game": self.game, "a": self.names[0], "b": self.names[1], "seed": self.seed,
            "match_length": self.rules.match_length, "money": self.money,
            "rules": {"cube": self.rules.cube, "jacoby": self.rules.jacoby, "beavers": self.rules.beavers,
                      "automatic_doubles": self.rules.automatic_doubles,
                      "session_games": self.rules.session_games},
            "matches": self.matches, "pairs": self.matches // 2, "games": self.total_games,
            "capped_matches": int(self.capped.sum()), "max_plies": self.max_plies,
        }
        per_game = self._pairs(self.a_points / np.maximum(self.games, 1))
        out.update(ppg=self.ppg, ppg_ci95=per_game.ci95, ppg_ci95_low=self.ppg - per_game.ci95,
                   ppg_ci95_high=self.ppg + per_game.ci95)
        if not self.money:
            wins = self._pairs(self.a_won)
            low, high = wilson_interval(float(self.a_won.sum()), self.matches)
            out.update(a_match_wins=float(self.a_won.sum()), a_win_rate=wins.ppg, a_win_ci95=wins.ci95,
                       a_win_ci95_low=wins.ppg - wins.ci95, a_win_ci95_high=wins.ppg + wins.ci95,
                       a_win_wilson_low=low, a_win_wilson_high=high,
                       mean_games_per_match=float(self.games.mean()))
        cubes = self.cubes if len(self.cubes) else np.zeros(1)
        out.update(
            mean_cube=float(cubes.mean()), max_cube=int(cubes.max()),
            cube_counts={str(int(v)): int(n) for v, n in zip(*np.unique(cubes, return_counts=True))},
            endings=dict(self.endings), actions=dict(self.actions),
            mean_plies_per_game=float(self.plies.sum() / max(self.total_games, 1)),
            seconds=self.seconds, games_per_s=self.total_games / self.seconds if self.seconds > 0 else math.inf,
        )
        return out


def play_matches(player_a: CubePlayer, player_b: CubePlayer, rules: g.Rules, matches: int, seed: int = 0,
                 batch: int = 128, max_plies: int = MAX_PLIES, resignations: bool = False,
                 progress: Callable[[int], None] | None = None,
                 on_action: Callable[[int, g.GameState, str], None] | None = None,
                 record: bool = False) -> CubeArenaResult:
    """Play ``matches`` (even) matches or money sessions between A and B under ``rules``; A's results.

    ``batch``: matches in play at once. ``progress(n)``: called with the number of matches just ended.
    ``on_action(match index, state before, action)``: called before every cube or resignation action
    (names in ACTIONS), e.g. to audit them. ``record``: keep every game as a .mat GameRecord
    (backgammon; see ``mat_records``). Raises ValueError for bad settings and
    RuleError if a player asks for something the rules refuse.
    """
    for player in (player_a, player_b):
        if player.game != rules.game:
            raise ValueError(f"{player.name} plays {player.game}, these rules are for {rules.game}")
    if matches < 2 or matches % 2:
        raise ValueError(f"matches must be a positive even number (mirrored pairs), got {matches}")
    if batch < 1 or max_plies < 1:
        raise ValueError(f"batch and max_plies must be at least 1, got {batch} and {max_plies}")
    if record and rules.game != "backgammon":
        raise ValueError(".mat records hold backgammon only")
    if rules.money and not rules.session_games:
        rules = replace(rules, session_games=1)
    for player in (player_a, player_b):
        player.reset()
    started = time.perf_counter()
    pool = _Pool((player_a, player_b), rules, seed, matches, min(batch, matches), max_plies, resignations,
                 on_action, record)
    while pool.live.any():
        ended = pool.step()
        if progress is not None and ended:
            progress(ended)
    return CubeArenaResult(
        rules.game, (player_a.name, player_b.name), seed, rules, pool.a_points, pool.a_won, pool.games,
        pool.plies_done, pool.capped, np.array(pool.cubes, dtype=np.int64), dict(pool.endings),
        {f"{'ab'[p]}_{a}": pool.acted[p, a] for p in (0, 1) for a in ACTIONS},
        time.perf_counter() - started, max_plies, pool.finals, pool.records,
    )


def mat_records(result: CubeArenaResult) -> list[MatchRecord]:
    """The recorded games (``record=True``) as .mat records with A as player 0 (the left column):
    one MatchRecord per match, or for money play a single money session of all the games."""
    if result.records is None:
        raise ValueError("the games were not recorded (play_matches(..., record=True))")
    names = player_names(*result.names)
    per_match = [[game if m % 2 == 0 else swap_sides(game) for game in games]  # A sits in seat 1 in odd matches
                 for m, games in enumerate(result.records)]
    if result.money:
        return [money_session(names, [game for games in per_match for game in games], **rules_options(result.rules))]
    return [MatchRecord(names, result.rules.match_length, tuple(games), **rules_options(result.rules))
            for games in per_match]


_TRANSITIONS = {
    "double": g.double, "take": g.take, "drop": g.drop, "beaver": g.beaver,
    "accept": g.accept_resignation, "reject": g.reject_resignation,
}


class _Pool(GamesInPlay):
    """The matches in play (model/arena/pool.py's GamesInPlay: a slot per match, numbered by match).

    Per slot (Python lists, one scalar object per game): the MatchState, the GameState in play (None
    once the slot is idle) and its dice; the plies of its game are GamesInPlay's."""

    def __init__(self, players, rules: g.Rules, seed: int, matches: int, slots: int, max_plies: int,
                 resignations: bool, on_action, record: bool = False):
        super().__init__(slots, matches, max_plies)
        self.players, self.rules = players, rules
        self.resignations, self.on_action = resignations, on_action
        self.a_points = np.zeros(matches, dtype=np.int64)
        self.a_won = np.full(matches, 0.5)
        self.games = np.zeros(matches, dtype=np.int64)
        self.plies_done = np.zeros(matches, dtype=np.int64)
        self.capped = np.zeros(matches, dtype=bool)
        self.finals: list = [None] * matches
        self.records: list | None = [[] for _ in range(matches)] if record else None
        self.trail: list = [[] for _ in range(slots)]  # with record: the states of each slot's game so far
        self.cubes: list[int] = []
        self.endings: Counter = Counter()
        self.acted = Counter()  # (player 0/1, action) -> count
        self.match: list = [None] * slots
        self.state: list = [None] * slots
        self.game_no = np.zeros(slots, dtype=np.int64)  # the game of its match each slot plays
        self.dice = MirroredDice(seed, slots)
        for slot in range(slots):
            self._start_match(slot)

    # -- bookkeeping ------------------------------------------------------------------------------

    def _start_match(self, slot: int) -> None:
        """The slot takes the next match, or goes idle when none is left."""
        if not len(self.deal([slot])):
            self.state[slot] = None
            return
        self.match[slot] = g.new_match(self.rules)
        self.game_no[slot] = 0
        self._start_game(slot)

    def _start_game(self, slot: int) -> None:
        """The next game of the slot's match, on the dice stream (match pair << 32) | game number;
        engine.game.start_game plays its opening throw (seat 0's die first), ties included."""
        stream = (self.number[slot] // 2) << 32 | self.game_no[slot]
        self.dice.open([slot], np.array([stream]), play_opening=False)
        self.trail[slot] = []
        self._set(slot, g.start_game(self.match[slot], throws=self.dice.opening_of(slot)))
        self.plies[slot] = 0

    def _set(self, slot: int, state: g.GameState) -> None:
        """The slot's game moves on to ``state`` (kept in its trail when recording)."""
        self.state[slot] = state
        if self.records is not None:
            self.trail[slot].append(state)

    def _record_game(self, slot: int) -> None:
        """With record: the slot's game so far becomes a GameRecord of its match."""
        if self.records is not None:
            self.records[self.number[slot]].append(game_record(self.trail[slot]))

    def _end_match(self, slot: int, capped: bool = False) -> None:
        m, final = int(self.number[slot]), self.match[slot]
        a_side = m % 2
        self.a_points[m] = final.score[a_side] - final.score[1 - a_side]
        self.a_won[m] = 0.5 if capped or final.winner is None else float(final.winner == a_side)
        self.capped[m] = capped
        self.finals[m] = final
        self._start_match(slot)

    def _act(self, slot: int, action: str, side: int, transition) -> None:
        """Apply one cube or resignation action through engine.game (which refuses illegal ones)."""
        if self.on_action is not None:
            self.on_action(int(self.number[slot]), self.state[slot], action)
        self.acted[int(self.player(slot, side)), action] += 1
        self._set(slot, transition(self.state[slot]))

    def _ask(self, slots: list[int], side_of, question) -> list:
        """One batched question per player: ``question(player, states)`` for the slots where that
        player is the side ``side_of(state)``; the answers in the order of ``slots``."""
        answers: list = [None] * len(slots)
        if not slots:
            return answers
        who = self.player(slots, [side_of(self.state[i]) for i in slots])
        for p, player in enumerate(self.players):
            mine = np.flatnonzero(who == p)
            if len(mine):
                got = question(player, [self.state[slots[k]] for k in mine])
                for k, answer in zip(mine, got):
                    answers[k] = answer
        return answers

    # -- one step ---------------------------------------------------------------------------------

    def step(self) -> int:
        """Every game in flight plays one turn (its cube actions, roll and play); matches ended."""
        live = self.live_slots().tolist()
        if self.resignations:
            self._resignations(live)
        self._cube(live)
        self._roll(live)
        self._move(live)
        return self._finish(live)

    def _resignations(self, live: list[int]) -> None:
        """The side on roll may offer to resign; the other side accepts or rejects."""
        on_roll = [i for i in live if self.state[i].phase is g.Phase.ROLL and self.state[i].resignation is None]
        levels = self._ask(on_roll, lambda s: s.mover, lambda p, states: p.resigns(states))
        for i, level in zip(on_roll, levels):
            state = self.state[i]
            if level and g.resignation_refusal(state, state.mover, int(level)) is None:
                self._act(i, "resign", state.mover,
                          lambda s, lv=int(level): g.offer_resignation(s, s.mover, lv))
        waiting = [i for i in live if self.state[i].resignation is not None]
        verdicts = self._ask(waiting, lambda s: 1 - s.resignation[0], lambda p, states: p.accepts(states))
        for i, accept in zip(waiting, verdicts):
            action = "accept" if accept else "reject"
            self._act(i, action, 1 - self.state[i].resignation[0], _TRANSITIONS[action])

    def _cube(self, live: list[int]) -> None:
        """Doubles where the rules allow the side on roll to double and it wants to; then the answers."""
        may = [i for i in live if self.state[i].phase is g.Phase.ROLL and g.may_double(self.state[i])]
        wants = self._ask(may, lambda s: s.mover, lambda p, states: p.doubles(states))
        for i, want in zip(may, wants):
            if want:
                self._act(i, "double", self.state[i].mover, g.double)
        waiting = [i for i in live if self.state[i].phase is g.Phase.TAKE]
        answers = self._ask(waiting, lambda s: 1 - s.mover, lambda p, states: p.answers(states))
        for i, answer in zip(waiting, answers):
            if answer not in ("take", "drop", "beaver"):
                raise ValueError(f"a double is answered take, drop or beaver, got {answer!r}")
            self._act(i, answer, 1 - self.state[i].mover, _TRANSITIONS[answer])

    def _roll(self, live: list[int]) -> None:
        """Every game whose side on roll has not thrown yet throws: one legal_plays call for all."""
        rolling = [i for i in live if self.state[i].phase is g.Phase.ROLL]
        if not rolling:
            return
        dice = self.dice.roll(rolling)
        positions = np.stack([self.state[i].position for i in rolling])
        children, parent = legal_plays(self.rules.game, positions, dice)
        start, count = group_starts(parent, len(rolling))
        for k, i in enumerate(rolling):
            rows = children[start[k]: start[k] + count[k]]
            self._set(i, g.roll(self.state[i], dice[k], plays=rows))

    def _move(self, live: list[int]) -> None:
        """Every game in the MOVE phase plays: one select call per player for all its games."""
        moving = [i for i in live if self.state[i].phase is g.Phase.MOVE]
        if not moving:
            return
        plays = [self.state[i].plays for i in moving]
        children = np.concatenate(plays)
        parent = np.repeat(np.arange(len(moving)), [len(p) for p in plays])
        who = self.player(moving, [self.state[i].mover for i in moving])  # 0 where A moves, 1 where B does
        chosen = choose_by_player(self.players, who, children, parent,
                                  lambda player, mine, kids, kid_parent: player.select(
                                      [self.state[i] for i, m in zip(moving, mine) if m], kids, kid_parent))
        for k, i in enumerate(moving):
            self._set(i, g.play(self.state[i], children[chosen[k]]))
        self.plies[moving] += 1

    def _finish(self, live: list[int]) -> int:
        """Score finished games into their matches; start the next game or match. Matches ended."""
        ended = 0
        for i in live:
            state, m = self.state[i], int(self.number[i])
            if state.is_over:
                self._record_game(i)
                self.match[i] = g.finish_game(self.match[i], state)
                self.cubes.append(state.result.cube)
                self.endings[state.result.how] += 1
                self.games[m] += 1
                self.plies_done[m] += self.plies[i]
                if self.match[i].is_over:
                    self._end_match(i)
                    ended += 1
                else:
                    self.game_no[i] += 1
                    self._start_game(i)
            elif self.plies[i] >= self.max_plies:
                self._record_game(i)
                self.plies_done[m] += self.plies[i]
                self._end_match(i, capped=True)
                ended += 1
        return ended
