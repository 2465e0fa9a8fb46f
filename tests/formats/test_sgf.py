"""gnubg's own match files, SGF with GM[6] (engine/formats/sgf.py), both ways against Debian's gnubg 1.07: its
layout, gnubg's save of a .mat match read as the .mat is, gnubg loading what the duel, cube and play commands
write, the same analysis from .sgf as from .mat, money sessions with beavers and resignations, and bad files."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from engine.errors import FormatError
from engine.formats.matchfiles import read_match, read_match_text, write_match
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, Action, GameRecord, MatchRecord, read_mat
from engine.formats.sgf import format_sgf, parse_sgf, read_sgf
from evaluate import main as evaluate_main
from nardibot.cli import cmd_play
from tests.helpers import GNUBG, ROOT, needs_gnubg, replay

GNUBG_MATCH = ROOT / "tests" / "data" / "gnubg_3point.mat"
NET = str(ROOT / "checkpoints" / "backgammon.safetensors")

SESSION = MatchRecord(("bot", "gnu]bg"), 0, (
    GameRecord((Action(1, MOVE, (3, 1), "8/5 6/5"), Action(0, MOVE, (6, 5), "24/18 18/13"),
                Action(1, DOUBLE), Action(0, BEAVER), Action(1, MOVE, (6, 4), "24/18 13/9")),
               (0, 0), winner=1, points=4),  # a resignation: nobody bore off
    GameRecord((Action(0, MOVE, (6, 2), "24/18 13/11"), Action(1, DOUBLE), Action(0, DROP)),
               (0, 4), winner=1, points=2, cube=2),
    GameRecord((Action(0, MOVE, (4, 2), "8/4 6/4"), Action(1, MOVE, (6, 6), "")), (0, 6)),
), jacoby=True, beavers=True, automatic_doubles=1)


def test_a_session_is_written_as_gnubg_writes_it_and_reads_back():
    """A game tree per game: MI with the scores before it, names (escaped), rules, the starting cube, the result
    with R for a resignation; a node per action, a beaver as the beaverer's double and the doubler's take."""
    text = format_sgf(SESSION)
    trees = text.splitlines()
    assert trees[0] == ("(;FF[4]GM[6]CA[UTF-8]AP[nardibot]MI[length:0][game:0][ws:0][bs:0]PW[bot]PB[gnu\\]bg]"
                        "RU[Jacoby:Beavers:AutomaticDoubles=1]RE[B+4R]")
    assert trees[1:7] == [";B[31qtst]", ";W[65xrrm]", ";B[double]", ";W[double]", ";B[take]", ";B[64aglp])"]
    assert "MI[length:0][game:1][ws:0][bs:4]" in trees[7] and trees[7].endswith("CV[2]RE[B+2]")
    assert trees[-2:] == [";W[42hdfd]", ";B[66])"] and "RE[" not in trees[-3]
    assert read_sgf(text) == SESSION


def test_a_match_says_crawford_and_its_crawford_game():
    record = MatchRecord(("a", "b"), 3, (GameRecord((), (0, 0), 1, 2), GameRecord((), (0, 2), 0, 1),
                                         GameRecord((), (1, 2))), cube=False)
    rules = [tree.split("RU[")[1].split("]")[0] for tree in format_sgf(record).splitlines()]
    assert rules == ["NoCube:Crawford", "NoCube:Crawford:CrawfordGame", "NoCube:Crawford"]
    assert read_sgf(format_sgf(record)) == record


def test_the_parser_keeps_the_main_line_and_skips_what_is_not_backgammon():
    """Variations: the first child is the game; escapes, soft line breaks, FF[3] lower-case letters in
    property names, a byte-order mark and trees of other games (GM[1] is Go) are read as SGF says."""
    text = ("\ufeff(;GM[1]B[aa])(;GaMe[6]MI[length:0]PW[a\\\\b\\\nc]C[x\\]y]\n;W[31xwxu]"
            "(;B[65aggl](;W[double];B[drop])(;W[11]))(;B[52]))")
    assert parse_sgf(text)[1][1:] == [{"W": ["31xwxu"]}, {"B": ["65aggl"]}, {"W": ["double"]}, {"B": ["drop"]}]
    record = read_sgf(text)
    assert record.names == ("a\\bc", "player1") and [a.kind for a in record.games[0].actions] == [
        MOVE, MOVE, DOUBLE, DROP]
    assert record.games[0].actions[0].play == "24/23 24/21"


def test_read_match_tells_the_formats_apart_by_content(tmp_path):
    """write_match writes .sgf for a name ending in .sgf, else .mat; read_match reads either, whatever the name."""
    mat = read_mat(GNUBG_MATCH.read_text())
    path = write_match(mat, tmp_path / "m.sgf")
    assert path.read_text().startswith("(;FF[4]GM[6]")
    assert read_match(path).games[0].actions[:3] == mat.games[0].actions[:3]
    moved = tmp_path / "m.txt"
    moved.write_text(path.read_text())
    assert read_match(moved) == read_match(path) and read_match(GNUBG_MATCH) == mat
    assert " 3 point match" in write_match(mat, tmp_path / "m.mat").read_text()
    with pytest.raises(FormatError, match="neither .sgf"):
        read_match_text("hello")


# ----------------------------------------------------------------------------------------------
# against gnubg


def gnubg(commands: list[str], folder: Path) -> str:
    """Debian's gnubg run on ``commands`` (one a line) in ``folder``; its output."""
    done = subprocess.run([GNUBG, "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True, text=True,
                          cwd=folder, timeout=60, check=False)
    return done.stdout + done.stderr


def steps(game: GameRecord) -> list[tuple]:
    """Each action as (player, kind, dice, its steps in any order, hits unmarked): what gnubg must keep."""
    return [(a.player, a.kind, a.dice, sorted(a.play.replace("*", "").split())) for a in game.actions]


@pytest.fixture(scope="module")
def gnubg_save(tmp_path_factory) -> Path:
    """gnubg's ``save match`` of tests/data/gnubg_3point.mat (after ``import mat``)."""
    folder = tmp_path_factory.mktemp("gnubg")
    gnubg([f"import mat {GNUBG_MATCH}", "save match saved.sgf"], folder)
    return folder / "saved.sgf"


@needs_gnubg
def test_we_read_what_gnubg_writes_as_the_mat_it_came_from(gnubg_save):
    """gnubg's .sgf of a .mat match reads as that .mat does, game by game and action by action (gnubg orders a
    play's steps as it likes: the same steps, and the same position after each play)."""
    text = gnubg_save.read_text()
    assert text.startswith("(;FF[4]GM[6]") and "AP[GNU Backgammon:1.07" in text
    ours, theirs = read_sgf(gnubg_save), read_mat(GNUBG_MATCH.read_text())
    assert (ours.names, ours.match_length) == (theirs.names, theirs.match_length)
    assert len(ours.games) == len(theirs.games)
    for a, b in zip(ours.games, theirs.games):
        assert (a.scores, a.winner, a.points, a.cube) == (b.scores, b.winner, b.points, b.cube)
        assert steps(a) == steps(b)
    assert [str(p.tobytes()) for _, p in replay(ours)] == [str(p.tobytes()) for _, p in replay(theirs)]


@needs_gnubg
def test_the_analysis_of_gnubgs_sgf_is_the_analysis_of_the_mat(gnubg_save, capsys):
    """`nardibot analyse` (0-ply) of gnubg's .sgf gives the .mat's report, every figure, but for the time."""
    reports = []
    for path in (GNUBG_MATCH, gnubg_save):
        assert evaluate_main(["analyse", str(path), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        report.pop("seconds")
        reports.append(report)
    assert reports[0] == reports[1] and len(reports[0]["decisions"]) > 50


@pytest.fixture(scope="module")
def our_files(tmp_path_factory) -> tuple[Path, dict[str, tuple[Path, Path]]]:
    """The same games written by the cube, duel and play commands as .mat and as .sgf: name -> (mat, sgf)."""
    folder = tmp_path_factory.mktemp("ours")
    runs = {
        "match": ["cube", "random", "random", "--a-cube", "random", "--b-cube", "random", "--length", "5",
                  "--matches", "2", "--seed", "1"],
        "money": ["cube", "random", "random", "--a-cube", "random", "--b-cube", "random", "--games", "6",
                  "--jacoby", "--beavers", "--automatic-doubles", "2", "--seed", "3"],
        "resign": ["cube", NET, NET, "--resign", "--games", "8", "--seed", "2"],
        "duel": ["pubeval", "random", "--games", "2", "--seed", "5"],
    }
    files = {}
    for name, argv in runs.items():
        for suffix in ("mat", "sgf"):
            assert evaluate_main([*argv, "--mat", str(folder / f"{name}.{suffix}"), "--no-progress"]) == 0
        files[name] = (folder / f"{name}.mat", folder / f"{name}.sgf")
    files["match"] = (folder / "match-1.mat", folder / "match-1.sgf")
    for suffix in ("mat", "sgf"):
        play = ["--bot", "heuristic", "--match", "3", "--seed", "1", "--autoplay-human",
                "--mat", str(folder / f"play.{suffix}")]
        assert cmd_play.main(play, stdin=io.StringIO(""), stdout=io.StringIO()) == 0
    files["play"] = (folder / "play.mat", folder / "play.sgf")
    return folder, files


def test_every_writer_writes_the_same_games_as_sgf_as_as_mat(our_files, capsys):
    """cube (a match, a money session with beavers and automatic doubles, one with resignations), duel and play
    with a --mat FILE ending in .sgf: the records read back equal the .mat ones, options included."""
    _, files = our_files
    capsys.readouterr()
    texts = {name: sgf.read_text() for name, (_, sgf) in files.items()}
    assert all(text.startswith("(;FF[4]GM[6]") for text in texts.values())
    assert "RU[NoCube:Jacoby]" not in texts["duel"] and "RU[NoCube]" in texts["duel"]
    assert "R]" in texts["resign"] and "CV[2]" in texts["money"]
    for name, (mat, sgf) in files.items():
        assert read_sgf(sgf) == read_mat(mat.read_text()), name
    beavers = [a for game in read_sgf(files["money"][1]).games for a in game.actions if a.kind == BEAVER]
    assert beavers and read_sgf(files["money"][1]).jacoby is True and read_sgf(files["resign"][1]).jacoby is False


@needs_gnubg
def test_gnubg_loads_what_we_write(our_files):
    """gnubg 1.07 ``load match`` of each .sgf: its ``save match`` gives back the same games (scores, results
    with their resignations, starting cubes, every action), and its ``export match mat`` the same plays and
    cube actions as our .mat of the same games. The other way round, gnubg's ``import mat`` of our .mat files
    saved as .sgf reads as the .mat does (the match's results too: the money sessions' rules gnubg takes from
    its own settings)."""
    folder, files = our_files
    commands = []
    for name, (mat, sgf) in files.items():
        commands += [f"load match {sgf.name}", f"save match {name}.back.sgf", f"export match mat {name}.back.mat",
                     f"import mat {mat.name}", f"save match {name}.imported.sgf"]
    gnubg(commands, folder)
    for name, (mat, sgf) in files.items():
        ours = read_sgf(sgf)
        back = read_sgf(folder / f"{name}.back.sgf")
        assert (back.names, back.match_length, back.games) == (ours.names, ours.match_length, ours.games), name
        exported = read_mat((folder / f"{name}.back.mat").read_text())
        assert [steps(game) for game in exported.games] == [steps(game) for game in ours.games], name
        imported = read_sgf(folder / f"{name}.imported.sgf")
        assert [steps(game) for game in imported.games] == [steps(game) for game in ours.games], name
    imported, ours = read_sgf(folder / "match.imported.sgf"), read_sgf(files["match"][1])
    assert [(g.scores, g.winner, g.points) for g in imported.games] == [(g.scores, g.winner, g.points)
                                                                        for g in ours.games]


# ----------------------------------------------------------------------------------------------
# bad files


@pytest.mark.parametrize("content, message", [
    ("(;FF[4]GM[6]MI[length:3]\n;W[31xwxv]", "never closed"),
    ("(;FF[4]GM[1];B[31aa])", "no backgammon game"),
    ("(;GM[6]MI[length:3]\n;W[31cb])", "no checker on 3 to move"),
    ("(;GM[6]MI[length:3]\n;W[99xx])", "cannot read the play"),
    ("(;GM[6]MI[length:3]RE[W+x]\n;W[31xwxv])", "cannot read the result"),
    ("(;GM[6]MI[length:3]\n;W[31xwxv])", "game 1, entry 1 (31: 24/23 24/22)"),
    ("(;GM[6]MI[length:3]RU[Nackgammon]\n;W[31xwxv])", "Nackgammon"),
    ("(;GM[6]MI[length:3]\n;AB[a][b])", "set up"),
    ("(;GM[6]MI[length:3]\n;W[double];B[double];W[drop])", "beaver"),
    ("(;GM[6]MI[length:3]", "never closed"),
])
def test_a_bad_sgf_is_one_line_and_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "bad.sgf"
    path.write_text(content)
    code = evaluate_main(["analyse", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("nardibot analyse: error:") and message in err, err
