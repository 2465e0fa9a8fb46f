"""A training recipe: a TOML file naming the game and an ordered list of stages with their settings,
read and checked here (model/train/pipeline.py runs it).

    [recipe]
    game = "backgammon"            # or "nardi"
    description = "..."            # optional

    [[stage]]
    name = "td"                    # unique: the stage's folder in the run is stages/<name>
    kind = "selfplay"              # selfplay, labels, fit, widen, deepen, gate or export
    games = 20000                  # the stage's settings: the fields of its kind's settings class
    hidden = [128]

The settings of each kind are the fields of a dataclass: selfplay ``SelfPlaySettings`` (TD or one-ply
self-play, model/train/selfplay.py), labels ``model.train.labels.LabelSettings``, fit
``model.train.fit.FitSettings``, widen ``WidenSettings``, deepen none, gate ``GateSettings``, export
``ExportSettings``. A setting left out takes its default. Anything else (an unknown key or kind, a
value of the wrong type, a fit naming a stage that is not an earlier label stage, a first stage that
is not self-play from random weights) is a RecipeError: one line naming the file and the stage.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from model.net.shipped_files import shipped_folder
from model.train.fit import FitSettings
from model.train.labels import LabelSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # the [train] extra brings tomli on Python 3.10
    import tomli as tomllib

SHIPPED = shipped_folder("recipes")
"""The shipped recipes (recipes/NAME.toml), which ``nardibot train NAME`` finds by name."""


class RecipeError(ValueError):
    """A recipe that cannot run, said in one line."""


@dataclass(frozen=True)
class SelfPlaySettings:
    """A self-play stage: ``games`` more games of TD (``target`` sample) or one-ply (``target`` one-ply)
    self-play, by model/train/selfplay.py with these as its flags. ``hidden`` and ``features`` shape
    the net of the recipe's first stage (later stages keep the net they are given); ``lr_schedule``
    counts games from the start of the run. ``aside``: a net of its own from random weights (a second
    net for an ensemble teacher, which a labels stage names in ``teacher_also``), the run's net unchanged."""

    games: int = 10_000
    hidden: tuple[int, ...] = (128,)
    features: int = 0
    lam: float = 0.7
    lr: float = 1e-3
    lr_schedule: str = ""
    target: str = "sample"
    target_prune: int = 3
    play_prune: int = 0
    parallel_games: int = 256
    samples_per_update: int = 16_384
    batch_size: int = 1024
    explore: float = 0.0
    exact_endgames: bool = False
    checkpoint_every: int = 10_000
    eval_every: int = 0
    eval_games: int = 400
    keep_snapshots: int = 5
    seed: int = 1
    aside: bool = False

    def problem(self) -> str | None:
        if self.games <= 0:
            return "games must be positive"
        if not self.hidden or any(h <= 0 for h in self.hidden):
            return "hidden must be a list of positive widths"
        return None  # the rest is checked by the self-play command's own check (model/train/selfplay_args.py)


@dataclass(frozen=True)
class WidenSettings:
    """A widen stage: the single hidden layer widened to ``hidden`` units (model/train/reshape.py)."""

    hidden: int = 256
    seed: int = 1

    def problem(self) -> str | None:
        return None if self.hidden > 0 else "hidden must be positive"


@dataclass(frozen=True)
class DeepenSettings:
    """A deepen stage: an identity hidden layer after the last one (model/train/reshape.py)."""

    def problem(self) -> str | None:
        return None


@dataclass(frozen=True)
class GateSettings:
    """A gate: the run's net (the candidate) against ``against`` (an earlier stage's net; default the net
    the last gate kept, or before any gate the net before the latest stage that changed it) in ``games``
    mirrored cubeless games; the candidate is
    kept unless it is worse by more than the duel's 95% interval, and otherwise the run goes on from
    the net it was measured against."""

    games: int = 2_000
    against: str = ""
    seed: int = 7

    def problem(self) -> str | None:
        return None if self.games >= 2 and self.games % 2 == 0 else "games must be even and at least 2"


@dataclass(frozen=True)
class ExportSettings:
    """An export: the run's net as a .safetensors file for play (``out``, relative to the run folder
    unless absolute; default <game>.safetensors), its provenance the run's manifest. ``half``: each
    hidden layer's weights rounded to the nearest float16 value (still stored as float32), which the
    compiled forward pass then reads as halves, half the bytes (model/net/inference.py)."""

    out: str = ""
    half: bool = False

    def problem(self) -> str | None:
        return None if not self.out or self.out.endswith(".safetensors") else "out must end in .safetensors"


KINDS = {"selfplay": SelfPlaySettings, "labels": LabelSettings, "fit": FitSettings, "widen": WidenSettings,
         "deepen": DeepenSettings, "gate": GateSettings, "export": ExportSettings}
ELEMENTS = {"hidden": int, "labels": str, "test": str, "teacher_also": str}
"""The element type of each list setting."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Stage:
    name: str
    kind: str
    settings: object

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, **dataclasses.asdict(self.settings)}


@dataclass(frozen=True)
class Recipe:
    path: Path
    game: str
    description: str
    stages: tuple[Stage, ...]
    text: str = field(repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def find(recipe: str) -> Path:
    """The recipe file ``recipe`` names: a path, or the name of a shipped recipe (quick, backgammon, nardi)."""
    path = Path(recipe)
    if path.is_file():
        return path
    shipped = SHIPPED / f"{recipe}.toml"
    if "/" not in recipe and shipped.is_file():
        return shipped
    names = ", ".join(sorted(p.stem for p in SHIPPED.glob("*.toml")))
    raise RecipeError(f"no recipe {recipe!r}: not a file, nor a shipped recipe ({names})")


def _value(where: str, key: str, value, default):
    """``value`` as the type of ``default`` (a list as a tuple of ELEMENTS[key]); RecipeError if it is not one."""
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, str):
        ok = isinstance(value, str)
    else:  # a tuple
        element = ELEMENTS[key]
        ok = isinstance(value, list) and all(isinstance(v, element) and not isinstance(v, bool) for v in value)
        value = tuple(value) if ok else value
    if not ok:
        want = type(default).__name__ if not isinstance(default, tuple) else f"a list of {ELEMENTS[key].__name__}"
        raise RecipeError(f"{where}: {key} must be {want}, not {value!r}")
    return value


def parse(text: str, path: Path) -> Recipe:
    """The recipe of the TOML ``text`` (read from ``path``, which messages name), checked."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RecipeError(f"{path}: not valid TOML: {e}") from None
    unknown = set(raw) - {"recipe", "stage"}
    if unknown:
        raise RecipeError(f"{path}: unknown table(s) {', '.join(sorted(unknown))} (expected [recipe] and [[stage]])")
    head = raw.get("recipe")
    if not isinstance(head, dict):
        raise RecipeError(f"{path}: no [recipe] table with the game")
    if set(head) - {"game", "description"}:
        raise RecipeError(f"{path}: [recipe]: unknown key(s) {', '.join(sorted(set(head) - {'game', 'description'}))}")
    game = head.get("game")
    if game not in ("backgammon", "nardi"):
        raise RecipeError(f"{path}: [recipe]: game must be backgammon or nardi, not {game!r}")
    description = head.get("description", "")
    if not isinstance(description, str):
        raise RecipeError(f"{path}: [recipe]: description must be a string")
    entries = raw.get("stage")
    if not isinstance(entries, list) or not entries:
        raise RecipeError(f"{path}: no [[stage]] tables")
    stages: list[Stage] = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise RecipeError(f"{path}: stage {number} is not a [[stage]] table")
        name = entry.get("name")
        where = f"{path}: stage {number}" + (f" ({name})" if isinstance(name, str) else "")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise RecipeError(f"{where}: name must be letters, digits, '.', '_' or '-', not {name!r}")
        if any(s.name == name for s in stages):
            raise RecipeError(f"{where}: another stage is already named {name}")
        kind = entry.get("kind")
        if kind not in KINDS:
            raise RecipeError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
        cls = KINDS[kind]
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}
        values = {}
        for key, value in entry.items():
            if key in ("name", "kind"):
                continue
            if key not in defaults:
                known = ", ".join(defaults) or "none"
                raise RecipeError(f"{where}: unknown setting {key!r} for a {kind} stage (known: {known})")
            values[key] = _value(where, key, value, defaults[key])
        settings = cls(**values)
        problem = settings.problem() or (_selfplay_problem(game, settings) if kind == "selfplay" else None)
        if problem:
            raise RecipeError(f"{where}: {problem}")
        _check_references(where, kind, settings, stages)
        if number == 1 and (kind != "selfplay" or settings.aside):
            raise RecipeError(f"{where}: the first stage must be selfplay (the net starts from random weights)")
        stages.append(Stage(name, kind, settings))
    return Recipe(path, game, description, tuple(stages), text)


def _selfplay_problem(game: str, settings: SelfPlaySettings) -> str | None:
    """What the self-play run's own check (model/train/selfplay_args.py) finds wrong with these settings,
    in the recipe's words (``target``, not ``--target``)."""
    from model.train.selfplay_args import Args, check

    fields = {f.name for f in dataclasses.fields(Args)}
    given = {k: v for k, v in dataclasses.asdict(settings).items() if k in fields and k != "hidden"}
    problem = check(Args(game=game, hidden=",".join(map(str, settings.hidden)), **given))
    return re.sub(r"--([a-z-]+)", lambda m: m[1].replace("-", "_"), problem) if problem else None


def looks_like_a_file(name: str) -> bool:
    """Whether a ``teacher_also`` entry names a net file rather than a stage."""
    return "/" in name or name.endswith((".pt", ".safetensors"))


def _check_references(where: str, kind: str, settings, earlier: list[Stage]) -> None:
    """A fit's label stages and a gate's ``against`` must name earlier stages of the right kind."""
    kinds = {s.name: s.kind for s in earlier}
    if kind == "fit":
        for name in (*settings.labels, *settings.test):
            if kinds.get(name) != "labels":
                raise RecipeError(f"{where}: {name!r} is not an earlier labels stage")
    if kind == "labels":  # a teacher's other net: an earlier self-play stage's, or a file
        for name in settings.teacher_also:
            if name in kinds and kinds[name] != "selfplay":
                raise RecipeError(f"{where}: teacher_also {name!r} is a {kinds[name]} stage, not a selfplay one")
            if name not in kinds and not looks_like_a_file(name):
                raise RecipeError(f"{where}: teacher_also {name!r} is neither an earlier selfplay stage nor a net "
                                  "file (.pt or .safetensors)")
    if kind == "gate" and settings.against and settings.against not in kinds:
        raise RecipeError(f"{where}: against {settings.against!r} is not an earlier stage")


def load(recipe: str) -> Recipe:
    """The recipe a path or shipped name ``recipe`` names, read and checked; RecipeError if it cannot be."""
    path = find(recipe)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise RecipeError(f"{path}: cannot read: {e}") from None
    return parse(text, path)
