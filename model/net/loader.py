"""Networks loaded for play: a checkpoint (or several, as one mean) as an Evaluator, with the bear-off
databases and the race net behind it where asked. Training loads raw networks with
model.net.checkpoint.load_net instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from model.net import race as race_nets
from model.net.checkpoint import CheckpointError, load_net
from model.net.ensemble import MeanNet
from model.net.evaluator import with_exact_endgames


def load_evaluator(path: str | os.PathLike, game: str | None = None, device="cpu",
                   exact_endgames: bool | None = None, race: bool | str | os.PathLike = False):
    """The Evaluator of a checkpoint file (see load_net for the checks); numpy inference on the CPU.
    ``exact_endgames``: bear-off positions from the databases (model/net/evaluator.py; None: its
    EXACT_ENDGAMES default). ``race``: positions without contact from a race net (model/net/race.py):
    True for the shipped one, or its path."""
    net, _ = load_net(path, game, device, backend="auto")
    if race:
        race_net = race_nets.load_race_net(race_nets.RACE_NET if race is True else race, device)
        try:
            net = race_nets.RaceSplit(net, race_net)
        except ValueError as e:  # a main net of another game
            raise CheckpointError(f"{path}: {e}") from None
    return with_exact_endgames(net, exact_endgames)


def load_mean_evaluator(paths, game: str | None = None, device="cpu", exact_endgames: bool | None = None):
    """The mean of the checkpoints ``paths`` (two or more; numpy inference on the CPU) as one Evaluator,
    bear-offs as ``load_evaluator``'s. CheckpointError for a checkpoint of another game or with other
    outcomes than the first's."""
    paths = [Path(p) for p in paths]
    nets = [load_net(path, game, device, backend="auto")[0] for path in paths]
    try:
        mean = MeanNet(nets)
    except ValueError as e:
        raise CheckpointError(f"{', '.join(map(str, paths))}: {e}") from None
    return with_exact_endgames(mean, exact_endgames)
