"""A whole training recipe as one resumable job (``nardibot train RECIPE --run-dir DIR [--resume]``).

The run folder DIR is the whole state of the run:

    DIR/recipe.toml       the recipe as the run was started (or last resumed) with it
    DIR/manifest.json     the finished stages in order (kind, seconds, their net, a one-line summary,
                          the settings), the stage under way with its seconds so far, the net the last
                          gate kept (and the net before the latest change); the exported net's provenance
    DIR/net.safetensors   the run's current net, for play (``nardibot hint --bot DIR/net.safetensors``)
    DIR/stages/NAME/      each stage's own work: a self-play run (last.pt, snapshots), label chunks, a
                          fit's per-epoch checkpoint; its result is NAME/last.pt
    DIR/tb/               one TensorBoard run across all stages: a tag per stage (``NAME/...``), the
                          global step the run's seconds so far

``--resume`` goes on at the first unfinished stage and, inside it, from its last checkpoint (self-play),
finished label chunk or finished epoch (fit): a kill -9 at any moment loses at most one checkpoint
interval, one chunk per worker or one epoch of work, and about a minute of the stage's recorded seconds. Ctrl-C and SIGTERM stop every stage cleanly (the self-play
run writes its checkpoint, label workers are stopped, a chunk or epoch under way is dropped), the
seconds are kept and the run exits 130.

Scale: self-play stages take ``--actors N`` Ray actors (``--ray-address`` to join a cluster) as
``nardibot train`` does; label stages split their chunks over ``--workers`` local processes or, with
``--ray-address``, Ray tasks on the cluster (chunks are independent: that is where a cluster pays).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from engine.tools.cli import OneLineParser, UsageError
from model.train.recipe import Recipe, RecipeError, SelfPlaySettings, Stage, load, parse

MANIFEST, RECIPE, NET = "manifest.json", "recipe.toml", "net.safetensors"
KEEP_SECONDS = 60.0
"""How often (seconds) the stage under way writes its seconds so far into the manifest."""


def build_parser(prog: str = "nardibot train") -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Run a training recipe (a TOML file, or a shipped recipe's "
                           "name: quick, backgammon, nardi) as one resumable job.")
    parser.add_argument("recipe", nargs="?", help="the recipe; with --resume, default: the run's own recipe.toml")
    parser.add_argument("--run-dir", required=True, help="the run folder: the whole state of the run")
    parser.add_argument("--resume", action="store_true", help="go on with the run in --run-dir")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="label stages: chunks made in this many processes at once (default: the cores)")
    parser.add_argument("--actors", type=int, default=0, help="self-play stages: Ray actors (0: in this process)")
    parser.add_argument("--ray-address", default="",
                        help="Ray for the label chunks (as Ray tasks) and, with --actors, the self-play actors: "
                             "a cluster's HOST:PORT, auto (the running cluster) or local (start Ray on this machine)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the learner (default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars: a line per checkpoint")
    return parser


class Manifest:
    """DIR/manifest.json: the run's record, written atomically at every change."""

    def __init__(self, folder: Path, blob: dict):
        self.folder, self.blob = folder, blob

    @classmethod
    def read(cls, folder: Path) -> Manifest:
        try:
            blob = json.loads((folder / MANIFEST).read_text())
        except (OSError, ValueError) as e:
            raise UsageError(f"{folder / MANIFEST}: cannot read the run's manifest: {e}") from None
        if not (isinstance(blob, dict) and isinstance(blob.get("game"), str) and isinstance(blob.get("stages"), list)):
            raise UsageError(f"{folder / MANIFEST}: not a recipe run's manifest (no game or stages)")
        return cls(folder, blob)

    def write(self) -> None:
        tmp = self.folder / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.blob, indent=1) + "\n")
        os.replace(tmp, self.folder / MANIFEST)

    @property
    def finished(self) -> list[dict]:
        return self.blob["stages"]

    @property
    def state(self) -> Path | None:
        """The current training state (a .pt), None before the first stage has ended."""
        return self.folder / self.blob["state"] if self.blob.get("state") else None

    def seconds(self) -> float:
        return sum(s["seconds"] for s in self.finished) + (self.blob.get("running") or {}).get("seconds", 0.0)


class StageLog:
    """One stage's door to the run's TensorBoard: tags under the stage's name, the global step the
    run's seconds so far (every stage and every sitting on one axis)."""

    def __init__(self, writer, stage: str, clock, tick=None):
        self.writer, self.stage, self.clock, self.tick = writer, stage, clock, tick

    def add_scalar(self, tag: str, value: float, step=None) -> None:
        self.writer.add_scalar(f"{self.stage}/{tag}", value, int(self.clock()))
        if self.tick is not None:
            self.tick()

    def add_text(self, tag: str, text: str, step=None) -> None:
        self.writer.add_text(f"{self.stage}/{tag}", text, int(self.clock()))

    def scalar(self, tag: str, value: float) -> None:
        self.add_scalar(tag, value)


class Stopped(Exception):
    """A stage was stopped (Ctrl-C, SIGTERM): its checkpoint is written, the run exits 130."""


class Run:
    """One invocation of a recipe run: its folder, manifest, options and TensorBoard writer."""

    def __init__(self, recipe: Recipe, folder: Path, manifest: Manifest, options: argparse.Namespace, command: str):
        self.recipe, self.folder, self.manifest, self.options, self.command = recipe, folder, manifest, options, command
        self.writer = None
        self.t0 = time.time()
        self.before = manifest.seconds()

    def clock(self) -> float:
        return self.before + time.time() - self.t0

    def stage_dir(self, stage: Stage) -> Path:
        return self.folder / "stages" / stage.name

    def rel(self, path: Path) -> str:
        return str(Path(path).relative_to(self.folder))

    # --- the stages: each returns (the state after it, a one-line summary) -----------------------

    def selfplay(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.train.selfplay import train

        s: SelfPlaySettings = stage.settings
        work = self.stage_dir(stage)
        marker = work / "stage.json"  # where the stage began: the run's games then
        if not marker.is_file():
            work.mkdir(parents=True, exist_ok=True)
            start = 0
            if self.manifest.state is not None and not s.aside:
                from model.net.checkpoint import read

                start = int(read(self.manifest.state)["games"])
                shutil.copyfile(self.manifest.state, work / "last.pt.tmp")
                os.replace(work / "last.pt.tmp", work / "last.pt")
            (work / "stage.json.tmp").write_text(json.dumps({"start_games": start}))
            os.replace(work / "stage.json.tmp", marker)
        start = json.loads(marker.read_text())["start_games"]
        argv = ["--run-dir", str(work), "--games", str(start + s.games)]
        for f in dataclasses.fields(s):
            if f.name in ("games", "hidden", "features", "aside"):
                continue
            value = getattr(s, f.name)
            if isinstance(value, bool):
                argv += [f"--{f.name.replace('_', '-')}"] if value else []
            else:
                argv += [f"--{f.name.replace('_', '-')}", str(value)]
        if (work / "last.pt").is_file():
            argv.append("--resume")
        else:
            argv += ["--game", self.recipe.game, "--hidden", ",".join(map(str, s.hidden)),
                     "--features", str(s.features)]
        argv += ["--threads", str(self.options.threads), "--actors", str(self.options.actors)]
        if self.options.actors and self.options.ray_address not in ("", "local"):  # local: Ray started here
            argv += ["--ray-address", self.options.ray_address]
        if self.options.no_progress:
            argv.append("--no-progress")
        if s.lr_schedule:
            argv = [a for i, a in enumerate(argv) if not (a == "--lr" or (i and argv[i - 1] == "--lr"))]
        code = train(argv, f"{self.command} stage {stage.name}:", writer=log)
        if code == 130:
            raise Stopped
        if code != 0:
            raise SystemExit(code)
        from model.net.checkpoint import read

        blob = read(work / "last.pt")
        said = f"{blob['games'] - start} games of {s.target} self-play, {blob['games']} in all"
        if s.aside:  # a net of its own: the run's net stays as it was
            return self.manifest.state, f"{said}, a net aside ({self.rel(work / 'last.pt')})"
        return work / "last.pt", said

    def labels(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.train.label_workers import make_chunks

        work = self.stage_dir(stage)
        work.mkdir(parents=True, exist_ok=True)
        stages = {f["name"]: f for f in self.manifest.finished}  # teacher_also: a stage's net, or a file
        others = tuple(str(self.folder / stages[n]["net"]) if n in stages else n for n in stage.settings.teacher_also)
        made = make_chunks(self.manifest.state, stage.settings, work, workers=self.options.workers,
                           ray_address=self.options.ray_address, progress=not self.options.no_progress,
                           log=log, name=stage.name, others=others)
        from model.train.labels import bytes_per_label

        s = stage.settings
        return self.manifest.state, (f"{s.chunks * s.chunk} {s.plies}-ply labels ({made} chunks made now), "
                                     f"{bytes_per_label(work):.1f} bytes a label")

    def fit(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.train.fit import fit

        s = stage.settings
        folders = {name: self.folder / "stages" / name for name in (*s.labels, *s.test)}
        return fit(self.manifest.state, folders, s, self.stage_dir(stage), scalar=log.scalar,
                   log=lambda line: print(f"  {stage.name}: {line}", flush=True), progress=not self.options.no_progress)

    def widen(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.train.reshape import reshape

        out = reshape(self.manifest.state, self.stage_dir(stage) / "last.pt", stage.kind,
                      getattr(stage.settings, "hidden", 0), getattr(stage.settings, "seed", 1))
        from model.net.checkpoint import read

        return out, f"hidden layers now {read(out)['net_config']['hidden']}"

    deepen = widen

    def gate(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.arena.cubeless import play_games
        from model.players.net_player import load_player

        s = stage.settings
        if s.against:
            base = self.folder / next(f["net"] for f in self.manifest.finished if f["name"] == s.against)
        else:
            # the net the last gate kept; before any gate, the net before the latest stage that changed it
            earlier = self.manifest.blob.get("kept") or self.manifest.blob.get("previous")
            if earlier is None:
                return self.manifest.state, "no earlier net to measure against: kept"
            base = self.folder / earlier
        candidate = self.manifest.state
        from tqdm import tqdm

        with tqdm(total=s.games, unit="game", desc=stage.name, disable=self.options.no_progress) as bar:
            result = play_games(load_player(candidate, self.recipe.game, exact_endgames=True),
                                load_player(base, self.recipe.game, exact_endgames=True), s.games, seed=s.seed,
                                progress=bar.update)
        log.scalar("ppg_vs_previous", result.ppg)
        keep = result.ppg + result.ci95 >= 0  # not worse beyond the duel's 95% interval
        line = (f"candidate {result.ppg:+.3f} +- {result.ci95:.3f} ppg against {self.rel(base)} over {s.games} "
                f"mirrored games: {'kept' if keep else 'rejected, the run goes on from ' + self.rel(base)}")
        if self.recipe.game == "backgammon":  # reported beside the duel, never deciding: gnubg judged it
            from model.net.checkpoint import load_net
            from model.train.evaluation import benchmark_check

            rates = benchmark_check(load_net(candidate, self.recipe.game, backend="numpy")[0])
            line += f"; benchmark error rate {rates['overall'][0]:.2f} (reported only)"
        self.manifest.blob["kept"] = self.rel(candidate if keep else base)
        return (candidate if keep else base), line

    def export(self, stage: Stage, log: StageLog) -> tuple[Path, str]:
        from model.net.checkpoint import hidden_weights_as_halves, read, write_safetensors

        out = Path(stage.settings.out or f"{self.recipe.game}.safetensors")
        out = out if out.is_absolute() else self.folder / out
        blob = read(self.manifest.state, backend="numpy")
        if stage.settings.half:
            blob["weights"] = hidden_weights_as_halves(blob["weights"])
        blob["made_by"] = {**(blob.get("made_by") or {}), "recipe": self.provenance(stage)}
        out.parent.mkdir(parents=True, exist_ok=True)
        write_safetensors(out, blob)
        return self.manifest.state, f"wrote {out} ({out.stat().st_size:,} bytes)"

    def provenance(self, stage: Stage) -> dict:
        """What made the exported net: the recipe (file, checksum, text) and every stage before the
        export with its settings, seconds and summary, as the manifest holds them."""
        started = self.manifest.blob.get("recipe") or str(self.recipe.path)  # a resume reads DIR/recipe.toml
        return {"recipe": started, "sha256": self.recipe.sha256, "game": self.recipe.game,
                "stages": [{k: f[k] for k in ("name", "kind", "seconds", "summary", "settings")}
                           for f in self.manifest.finished],
                "hours": round(self.manifest.seconds() / 3600, 3), "exported_by": stage.name,
                "recipe_text": self.recipe.text}

    # --- the loop ---------------------------------------------------------------------------------

    def go(self) -> int:
        from torch.utils.tensorboard import SummaryWriter

        from model.net.checkpoint import read, write_safetensors

        done = {f["name"] for f in self.manifest.finished}
        stages = self.recipe.stages
        self.writer = SummaryWriter(str(self.folder / "tb"))
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            for number, stage in enumerate(stages, 1):
                if stage.name in done:
                    continue
                running = self.manifest.blob.get("running") or {}
                if running.get("name") != stage.name:
                    self.manifest.blob["running"] = {"name": stage.name, "seconds": 0.0}
                    self.manifest.write()
                print(f"[{number}/{len(stages)}] {stage.name} ({stage.kind})", flush=True)
                t0, before = time.time(), self.manifest.blob["running"]["seconds"]
                written = [t0]

                def tick(t0=t0, before=before, written=written) -> None:  # the stage's seconds, kept a minute
                    now = time.time()  # at a time, so that a kill -9 loses at most a minute of the record
                    if now - written[0] >= KEEP_SECONDS:
                        self.manifest.blob["running"]["seconds"] = before + now - t0
                        self.manifest.write()
                        written[0] = now

                log = StageLog(self.writer, stage.name, self.clock, tick)
                try:
                    state, summary = getattr(self, stage.kind)(stage, log)
                except (Stopped, KeyboardInterrupt):
                    self.manifest.blob["running"]["seconds"] = before + time.time() - t0
                    self.manifest.write()
                    print(f"stopped in stage {stage.name}; `nardibot train --run-dir {self.folder} --resume` "
                          "goes on from there", file=sys.stderr)
                    return 130
                except (ValueError, OSError, UsageError) as e:
                    self.manifest.blob["running"]["seconds"] = before + time.time() - t0
                    self.manifest.write()
                    raise UsageError(f"stage {stage.name}: {e}") from None
                seconds = before + time.time() - t0
                if self.manifest.blob.get("state") and self.manifest.blob["state"] != self.rel(state):
                    self.manifest.blob["previous"] = self.manifest.blob["state"]
                self.manifest.blob["state"] = self.rel(state)
                self.manifest.finished.append({
                    "name": stage.name, "kind": stage.kind, "seconds": round(seconds, 1), "state": self.rel(state),
                    "net": self.rel(own) if (own := self.stage_dir(stage) / "last.pt").is_file() else self.rel(state),
                    "summary": summary, "settings": stage.as_dict(), "finished": time.strftime("%Y-%m-%d %H:%M:%S")})
                self.manifest.blob.pop("running", None)
                net = read(state, backend="numpy")
                write_safetensors(self.folder / (NET + ".tmp.safetensors"), net)
                os.replace(self.folder / (NET + ".tmp.safetensors"), self.folder / NET)
                self.manifest.write()
                log.add_text("summary", summary)
                print(f"[{number}/{len(stages)}] {stage.name}: {summary} ({seconds / 60:.1f} min)", flush=True)
        finally:
            self.writer.close()
        hours = self.manifest.seconds() / 3600
        each = ", ".join(f"{f['name']} {f['seconds'] / 3600:.2f}" for f in self.manifest.finished)
        print(f"recipe done in {hours:.2f} h ({each}); the net: {self.folder / NET}", flush=True)
        return 0


def start(options: argparse.Namespace, command: str) -> Run:
    """The run the options ask for, its folder and manifest ready; UsageError when it cannot start."""
    folder = Path(options.run_dir)
    have = (folder / MANIFEST).is_file()
    if options.resume:
        if not have:
            raise UsageError(f"{folder} holds no recipe run to resume (no {MANIFEST})")
        manifest = Manifest.read(folder)
        try:
            text = (folder / RECIPE).read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{folder / RECIPE}: cannot read the run's recipe: {e}") from None
        own = parse(text, folder / RECIPE)
        recipe = own
        if options.recipe:
            recipe = load(options.recipe)
            finished = [f["settings"] for f in manifest.finished]
            asked = json.loads(json.dumps([s.as_dict() for s in recipe.stages[: len(finished)]]))  # as stored
            if asked != finished:
                raise UsageError(f"{recipe.path} changes the stages {folder} has finished; resume without a "
                                 "recipe (the run's own) or start a new --run-dir")
        if recipe.game != manifest.blob["game"]:
            raise UsageError(f"{folder} is a {manifest.blob['game']} run, not {recipe.game}")
    else:
        if not options.recipe:
            raise UsageError("name a recipe (a TOML file, or quick, backgammon, nardi), or --resume a run")
        recipe = load(options.recipe)
        if have:
            raise UsageError(f"{folder} holds a run already; pass --resume to go on with it or choose another --run-dir")
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise UsageError(f"{folder} is not an empty folder; choose a new --run-dir")
        manifest = Manifest(folder, {"recipe": str(recipe.path), "game": recipe.game, "stages": []})
    if options.workers <= 0 or options.actors < 0 or options.threads < 0:
        raise UsageError("--workers must be positive, --actors and --threads 0 or more")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / (RECIPE + ".tmp")).write_text(recipe.text)
        os.replace(folder / (RECIPE + ".tmp"), folder / RECIPE)
        manifest.blob["recipe_sha256"] = recipe.sha256
        manifest.write()
    except OSError as e:
        raise UsageError(f"cannot write the run folder {folder}: {e.strerror or e}") from None
    return Run(recipe, folder, manifest, options, command)


def main(argv: list[str], command: str = "nardibot train") -> int:
    """``nardibot train RECIPE --run-dir DIR [--resume]``: 0 when every stage is done, 130 when stopped,
    2 (one line) for a bad recipe or a run that cannot start."""
    options = build_parser().parse_args(argv)
    try:
        run = start(options, command)
    except RecipeError as e:
        raise UsageError(str(e)) from None
    return run.go()
