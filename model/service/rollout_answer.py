"""The rollout: a position, or the candidate plays of a roll, rolled out, and its JSON answer.

    answer = rollout_answer(bot, query_of_text("backgammon", "4HPwATDgc/ABMA", "31"), RolloutSettings(trials=324))

``RolloutSettings`` (model/service/rollout_settings.py) is the one description of a rollout's
settings: ``nardibot rollout``'s flags take their defaults from it, the web API's request builds one,
and ``Bot.rollout`` reads its options into one. ``roll_out`` runs model/search/rollout.py's ``rollout`` with them (the trials in this
process, in forked processes or on Ray workers: model/search/rollout_workers.py); ``rollout_json``
is the JSON that ``nardibot rollout --json`` prints and ``/api/rollout`` serves (its schema:
nardibot/cli/cmd_rollout.py's docstring); ``confirm_hint`` is ``hint --rollout N``'s rollout of the
plays a hint lists.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from engine.board import CHECKERS, OFF, OPP_OFF
from engine.errors import FormatError
from engine.formats.position import write_json_position, write_position_id
from engine.movegen import legal_plays
from engine.notation import parse_play
from model.net.cluster import start_ray
from model.search.lookahead import MOVE_FILTER_KEEP
from model.search.rollout import estimate_json, rollout
from model.search.rollout_workers import local_trials, ray_trials
from model.service.query import Query, cube_json, cube_view_of
from model.service.rollout_settings import RolloutSettings

PLAYS = ("filter", "all")
"""The candidates of a roll besides a list of plays: hint's move filter, or every legal play."""


@contextlib.contextmanager
def trial_engine(settings: RolloutSettings):
    """What plays the trials (model.search.rollout.rollout's ``engine``): ``settings.processes``
    processes of this machine, or with ``settings.workers`` that many Ray workers, Ray started for the
    rollout and shut down after it (model.net.cluster.ClusterError when it cannot start)."""
    if not settings.workers:
        yield local_trials(settings.processes)
        return
    local_trials(settings.processes)  # refuses processes < 0 whatever plays the trials
    ray, started = start_ray(settings.address, settings.workers)
    try:
        yield ray_trials(settings.workers, settings.address)
    finally:
        if started:
            ray.shutdown()


def roll_out(net, position, dice, state, settings: RolloutSettings, *, device="cpu", progress=None, stop=None,
             engine=None, **extra):
    """model.search.rollout.rollout of ``position`` (28,) int8 (mover's frame) with ``dice`` (a pair or
    None) at the root's cube ``state`` (a CubeState or None) with ``settings``; ``progress(n)`` is
    told of each n newly finished trials, ``stop()`` asked after every ply; ``engine``: what plays the
    trials (default: ``trial_engine``'s); ``extra``: rollout's other options (keep, margin, quasi)."""
    with contextlib.nullcontext(engine) if engine is not None else trial_engine(settings) as chosen:
        return rollout(net, position, dice, settings.trials, plies=settings.ply, truncate=settings.truncate,
                       vr=settings.vr, bearoff=settings.bearoff, seed=settings.seed, plays=settings.plays,
                       state=state, cubeful=settings.cubeful, batch=settings.batch, prune=settings.prune,
                       device=device, progress=progress, stop=stop, engine=chosen, **extra)


def rollout_json(result, game: str, bot_name: str, pos, state) -> dict:
    """The documented JSON of a model.search.rollout.RolloutResult (``state``: the root's CubeState)."""
    out = {"game": game, "bot": bot_name, "position": write_json_position(pos),
           "dice": None if result.dice is None else list(result.dice)}
    if game == "backgammon":
        out["position_id"] = write_position_id(pos)
    out["settings"] = {**result.settings, "cube": None if state is None else cube_json(state)}
    out.update(trials_done=result.trials, interrupted=result.interrupted, seconds=result.seconds,
               trials_per_s=result.trials_per_s, plays=None, separation=result.separation,
               evaluation=None, cube_decision=result.cube_decision)
    if result.plays:
        out["plays"] = [{"rank": i, "move": e.label, "position": write_json_position(e.position),
                         **estimate_json(game, e)} for i, e in enumerate(result.plays, start=1)]
    if result.evaluation is not None:
        out["evaluation"] = estimate_json(game, result.evaluation)
    return out


def _nothing(total: int):
    return contextlib.nullcontext(None)


@dataclass(frozen=True, eq=False)
class PlannedRollout:
    """A rollout of one query, its cube state read (``plan_rollout``), ready to be played by ``run``."""

    bot: object
    query: Query
    settings: RolloutSettings
    state: object  # the root side's CubeState, None in long nardi

    def run(self, *, progress=None, stop=None, bar=None) -> dict:
        """The rollout as ``rollout_json``; ``bar(total)``: a context manager giving a progress bar (an
        object with ``update(n)``), opened once the trials are about to be played; ``progress``,
        ``stop``: as ``roll_out``'s. ValueError for what cannot be rolled out."""
        query, settings = self.query, self.settings
        dice = None if query.dice is None else tuple(int(d) for d in query.dice)
        with trial_engine(settings) as engine, (bar or _nothing)(settings.trials) as shown:
            if shown is not None:
                progress = shown.update
            result = roll_out(self.bot.net, query.position, dice, self.state, settings, progress=progress,
                              stop=stop, engine=engine)
        return rollout_json(result, query.game, self.bot.name, query.position, self.state)


def plan_rollout(bot, query: Query, settings: RolloutSettings) -> PlannedRollout:
    """The rollout of a query (its dice: the plays of the roll; none: the position and its cube
    decision), the cube and match state read at once (a server refuses a bad one before queueing).
    FormatError for plays named without dice (``_plays_need_dice``)."""
    _plays_need_dice(query, settings.plays)
    state = cube_view_of(query.position, query.info, settings.met) if query.game == "backgammon" else None
    return PlannedRollout(bot, query, settings, state)


def rollout_answer(bot, query: Query, settings: RolloutSettings, *, progress=None, stop=None, bar=None) -> dict:
    """``plan_rollout(bot, query, settings).run(...)``: the rollout's JSON."""
    return plan_rollout(bot, query, settings).run(progress=progress, stop=stop, bar=bar)


def confirm_hint(bot, query: Query, answer: dict, trials: int, top: int, met: str | None, bar=None) -> dict | None:
    """``hint --rollout N``: roll out the first ``top`` plays a hint lists (or, without dice, the
    position and its cube decision), cubeful in backgammon as hint ranks, in a process per core; the
    rollout's JSON, or None when there is no legal play. ``bar``: as ``rollout_answer``'s."""
    if trials < 2:
        raise ValueError(f"--rollout needs at least 2 trials, got {trials}")
    plays = "filter"
    if answer["plays"] is not None:
        if answer["plays"][0]["move"] == "":
            return None
        plays = [p["move"] for p in answer["plays"][:max(top, 1)]]
    settings = RolloutSettings(trials=trials, plays=plays, cubeful=query.game == "backgammon", met=met)
    return rollout_answer(bot, query, settings, bar=bar)


def _plays_need_dice(query: Query, plays) -> None:
    """Plays other than the default are candidates of a roll: without dice there are none to roll out
    (the rollout is of the position), so they are refused rather than left unused."""
    if query.dice is None and plays != RolloutSettings.plays:
        what = "the position and its cube decision" if query.game == "backgammon" else "the position"
        raise FormatError(f"plays {plays if isinstance(plays, str) else ', '.join(plays)!r} need dice: they pick "
                          f"among a roll's plays, and without dice the rollout is of {what}")


def check_rollout(query: Query, plays) -> int:
    """Refuse at once what the rollout would refuse later (a server, before it queues the job): a
    finished game, plays named without dice, a roll with no legal play, a play that is not legal.
    Returns how many candidates the rollout will roll out at most (a server bounds the trials x
    candidates whose results a job keeps): without dice 3 (the position, no double, double/take), with
    dice the move filter's ``keep``, the legal plays, or the distinct plays named."""
    pos = query.position
    if pos[OFF] == CHECKERS or pos[OPP_OFF] == CHECKERS:
        raise FormatError("the game is over: a side has borne off all 15 checkers")
    _plays_need_dice(query, plays)
    if query.dice is None:
        return 3
    children, _ = legal_plays(query.game, pos[None], query.dice[None])
    if len(children) == 1 and (children[0] == pos).all():
        raise FormatError(f"no legal play with {query.dice[0]}-{query.dice[1]}: there is nothing to roll out")
    if isinstance(plays, (list, tuple)):
        named = {parse_play(query.game, pos, query.dice, text).tobytes() for text in plays}
        return len(named)
    if plays not in PLAYS:
        raise FormatError(f"plays is 'filter', 'all' or a list of plays, got {plays!r}")
    return min(MOVE_FILTER_KEEP, len(children)) if plays == "filter" else len(children)
