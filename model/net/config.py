"""The network's shape, kept apart from torch so that inference can run without importing it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from model.net.equity import OUTPUTS
from model.net.features import check_version, num_features


@dataclass(frozen=True)
class NetConfig:
    """Shape of the network; stored in every checkpoint."""

    game: str = "backgammon"
    hidden: tuple[int, ...] = field(default=(128,))
    feature_version: int | None = None  # None: the current version of the game's encoding

    def __post_init__(self):
        object.__setattr__(self, "feature_version", check_version(self.game, self.feature_version))

    @property
    def inputs(self) -> int:
        return num_features(self.game, self.feature_version)

    @property
    def outputs(self) -> int:
        return OUTPUTS[self.game]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> NetConfig:
        return cls(game=d["game"], hidden=tuple(int(h) for h in d["hidden"]),
                   feature_version=int(d["feature_version"]))
