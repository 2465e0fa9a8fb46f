"""The one description of a rollout's settings (model/service/rollout_answer.py runs them), apart
from the rollout's code so that what only needs the settings (the Python API's signature, the command
line's defaults) does not load the trial runner."""

from __future__ import annotations

from dataclasses import dataclass, fields

from model.cube.met import DEFAULT_MET


@dataclass(frozen=True)
class RolloutSettings:
    """How a rollout is played (model/search/rollout.py has the method).

    ``trials`` per candidate; ``truncate``: plies per trial (0: played out); ``ply``: checker-play
    look-ahead in the trials; ``seed`` of the dice; ``plays`` (with dice): "filter" (hint's move
    filter), "all", or plays in notation; ``vr``: luck adjustment; ``prune``: 0-ply backgammon, the
    luck adjustment looks at each roll's ``prune`` best plays by pubeval (0: all); ``bearoff``:
    bear-offs valued by the databases; ``cubeful``: with dice, the plays rolled out with the cube in
    play and ranked by cubeful value; without dice, the cube decision from cubeful rollouts; None
    (the default): whenever a cube state is given (backgammon), the one default of ``nardibot
    rollout``, ``hint --rollout`` and the web API, as hint ranks plays; ``met``: the match equity
    table of the cube state; ``batch``: trials in play at once
    (None: 256, 4096 without luck adjustment); ``processes``: forked processes of this machine (0:
    one per core, 1: this process); ``workers``: Ray workers instead (0: none), on the cluster at
    ``address`` ("": Ray started on this machine)."""

    trials: int = 1296
    truncate: int = 0
    ply: int = 0
    seed: int = 0
    plays: str | tuple[str, ...] = "filter"
    vr: bool = True
    prune: int = 4
    bearoff: bool = True
    cubeful: bool | None = None
    met: str = DEFAULT_MET
    batch: int | None = None
    processes: int = 0
    workers: int = 0
    address: str = ""

    def __post_init__(self):
        if not isinstance(self.plays, str):
            object.__setattr__(self, "plays", tuple(self.plays))

    @classmethod
    def of_options(cls, **options) -> tuple[RolloutSettings, dict]:
        """(settings, the rest) of model.search.rollout.rollout's keyword options (``plies`` is
        ``ply``; the rest: ``keep``, ``margin``, ``quasi``, ``progress``, ``stop``, ``engine``)."""
        if "plies" in options:
            options["ply"] = options.pop("plies")
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in options.items() if k in names}), {
            k: v for k, v in options.items() if k not in names}
