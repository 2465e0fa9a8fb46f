"""``python evaluate.py play``: a person plays the bot in the terminal, backgammon or long nardi.

    python evaluate.py play [--game backgammon|nardi] [--match N] [--games N] [--bot PATH|name]
                            [--seed S] [--cube/--no-cube] [--you-first] [--autoplay-human] [--mat FILE]

The board is drawn before each of the person's decisions (engine/formats/pictures.py's ``ascii_board``, the
person at the bottom as X). Moves are typed in the notation of docs/FORMATS.md (``13/7 8/7``, ``bar/22``,
``6/off``, ``8/5(2)``; engine.notation.parse_play); a move the rules refuse is answered with the
reason and asked again. Commands, at any prompt: ``roll``, ``double``, ``take``, ``drop`` (``pass``),
``beaver``, ``accept``/``reject`` (a resignation offer), ``resign [single|gammon|backgammon]``
(long nardi: ``win|mars``), ``hint`` (the bot's top plays, or its cube advice), ``board``, ``help``,
``quit``. Long nardi is told in its own words: no bar, no cube, a mars for a gammon (``HELP``,
``LEVEL_WORDS``); the board there shows no cube and no money-play rules. The game itself runs
through engine.game (turns, cube, resignations, match score and the
Crawford game); input is read line by line from stdin, so a script can drive it, and the end of the
input ends the session with a message. ``--autoplay-human`` (a debug aid) types for the person: the
first legal play, roll, take, reject. ``--mat FILE`` (backgammon) saves the session when it ends
(also by ``quit`` or the end of the input, the game in play then left unfinished) as a Jellyfish .mat
file for gnubg's ``import mat FILE``: the person is "human" (left column), the bot its checkpoint stem
or baseline name.

Every decision of the bot is model/cube/policy.py's ``CubePolicy`` at 0-ply, the one hint, serve
and the cube arena use: its checker play (cubeful at the cube and score), doubles and takes (gnubg's
cube theory from the five probabilities of the bot's network, money or match score), resignations
(offered once per game, capped by what the rules let it lose) and answers to the person's. A
baseline without probabilities plays its own choice, never doubles, always takes, never resigns
and accepts only the most the person can still lose (engine.game.max_resignation).

Exit status: 0 when the session ends (match over, ``quit`` or end of input), 2 for bad flags or a
bot that cannot be loaded (one line on stderr), 1 when the output's reader goes away.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from engine import game as g
from engine.board import GAMES
from engine.errors import FormatError
from engine.formats.matfile import MatchRecord, game_record, player_names, write_mat
from engine.notation import NO_PLAY, format_play, parse_play
from engine.formats.pictures import ascii_board

from model.cli.common import OneLineParser
from model.cube.policy import CubePolicy, cube_view

HUMAN, BOT = 0, 1
LEVEL_NAMES = {"backgammon": {1: "a single game", 2: "a gammon", 3: "a backgammon"},
               "nardi": {1: "a single game", 2: "a mars"}}
HINT_PLAYS = 5
ACTIONS = {"r": "roll", "roll": "roll", "d": "double", "double": "double", "t": "take", "take": "take",
           "drop": "drop", "p": "drop", "pass": "drop", "beaver": "beaver", "a": "accept", "accept": "accept",
           "y": "accept", "yes": "accept", "reject": "reject", "n": "reject", "no": "reject"}
"""The person's one-word actions (and their short forms), by the engine.game transition they make."""
LEVEL_WORDS = {"backgammon": {"single": 1, "normal": 1, "win": 1, "1": 1, "gammon": 2, "2": 2,
                              "backgammon": 3, "3": 3},
               "nardi": {"single": 1, "normal": 1, "win": 1, "1": 1, "mars": 2, "2": 2}}
"""The words of ``resign [level]`` in each game."""
HELP = {"backgammon": ("moves like 13/7 8/7, bar/22, 6/off, 8/5(2); commands: roll, double, take, drop, "
                       "beaver, accept, reject, resign [single|gammon|backgammon], hint, board, help, quit"),
        "nardi": ("moves like 24/18 18/13, 24/13, 6/off (long nardi: no bar, no hitting, no cube); "
                  "commands: roll, accept, reject, resign [win|mars], hint, board, help, quit")}


# ----------------------------------------------------------------------------------------------
# the bot's decisions


def cube_advice(policy: CubePolicy, state: g.GameState, side: int):
    """The policy's cube decision for ``side`` on roll (ROLL phase), or None without probabilities."""
    if not policy.has_probabilities:
        return None
    return policy.cube_decision(g.view(state, side), cube_view(state, side))


def bot_doubles(policy: CubePolicy, state: g.GameState) -> bool:
    """The bot, on roll, doubles when the rules let it and the policy says "double"."""
    if not g.may_double(state):
        return False
    return bool(policy.doubles(state.position[None, :], [cube_view(state, BOT)])[0])


def take_advice(policy: CubePolicy, state: g.GameState, taker: int) -> str:
    """"take", "pass" or "beaver" for ``taker`` answering the waiting double ("take" for a baseline)."""
    return policy.answers(g.view(state, 1 - taker)[None, :], [cube_view(state, taker)])[0]


def bot_resignation(policy: CubePolicy, state: g.GameState) -> int | None:
    """The level the bot offers to resign at, or None: the policy's offer, capped by the rules."""
    on_roll = state.mover == BOT
    level = int(policy.resignations(state.position[None, :], [cube_view(state, BOT)], [on_roll])[0])
    if level == 0:
        return None
    level = min(level, g.max_resignation(state, BOT))
    return level if g.resignation_refusal(state, BOT, level) is None else None


def bot_accepts(policy: CubePolicy, state: g.GameState) -> bool:
    """Whether the bot accepts the person's waiting resignation: the policy's answer; a baseline
    accepts only the most the person can still lose."""
    _, level = state.resignation
    if not policy.has_probabilities:
        return level >= g.max_resignation(state, HUMAN)
    return bool(policy.accepts(state.position[None, :], [cube_view(state, BOT)], [level], [state.mover == BOT])[0])


def bot_play(policy: CubePolicy, state: g.GameState) -> tuple[np.ndarray, str]:
    """(the bot's chosen child, its notation) in the MOVE phase: the policy's play."""
    children = np.asarray(state.plays)
    pick = int(policy.choose(state.position[None, :], np.array([state.dice]), children,
                             np.zeros(len(children), dtype=np.int64), [cube_view(state, BOT)])[0])
    return children[pick], format_play(state.game, state.position, children[pick], state.dice) or NO_PLAY


def bot_acts(policy: CubePolicy, state: g.GameState, rng: np.random.Generator,
             offered: bool) -> tuple[g.GameState, str | None, bool]:
    """One decision of the bot, whose turn it is to act: (the state after it, what it says or None,
    whether it has offered to resign in this game, which it does once a game: ``offered`` so far)."""
    if state.resignation is not None:
        accepted = bot_accepts(policy, state)
        return (g.accept_resignation(state) if accepted else g.reject_resignation(state),
                f"the bot {'accepts' if accepted else 'rejects'} your resignation", offered)
    if state.phase is g.Phase.TAKE:
        answer = take_advice(policy, state, BOT)
        if answer == "beaver" and g.beaver_refusal(state) is not None:
            answer = "take"
        return ({"pass": g.drop, "take": g.take, "beaver": g.beaver}[answer](state),
                f"the bot {'drops' if answer == 'pass' else answer + 's'}", offered)
    if state.phase is g.Phase.ROLL:
        level = None if offered else bot_resignation(policy, state)
        if level is not None:
            return (g.offer_resignation(state, BOT, level),
                    f"the bot offers to resign {LEVEL_NAMES[state.game][level]}", True)
        if bot_doubles(policy, state):
            return g.double(state), f"the bot doubles to {state.cube * 2}", offered
        return g.roll(state, rng), None, offered
    child, move = bot_play(policy, state)
    a, b = state.dice
    return g.play(state, child), f"the bot rolls {a}-{b} and plays {move}", offered


# ----------------------------------------------------------------------------------------------
# the terminal


class EndOfInput(Exception):
    """The input ended (or the person quit): the session stops."""


class Console:
    """Prompts on stdout, answers from an input stream line by line (or from the autoplayer)."""

    def __init__(self, lines, out, autoplay: bool = False):
        self.lines = lines
        self.out = out
        self.autoplay = autoplay

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str, auto: str) -> str:
        """One answer; ``auto`` is what the autoplayer types. EndOfInput at the end of the input."""
        if self.autoplay:
            self.say(f"{prompt}{auto}")
            return auto
        print(prompt, end="", file=self.out, flush=True)
        line = self.lines.readline()
        if not line:
            self.say()
            raise EndOfInput("input ended")
        return line.strip()


class Table:
    """One session: the match (or money games) between the person (player 0) and the bot (player 1)."""

    def __init__(self, bot, rules: g.Rules, rng: np.random.Generator, console: Console, you_first: bool,
                 record: bool = False):
        self.bot = bot
        self.policy = CubePolicy.for_bot(bot)  # every decision of the bot (model/cube/policy.py)
        self.records: list | None = [] if record else None  # with record: each finished game's GameRecord
        self.trail: list = []  # with record: the states of the game in play
        self.match = g.new_match(rules)
        self.rng = rng
        self.console = console
        self.you_first = you_first
        self.state: g.GameState | None = None
        self.bot_offered = False  # the bot offers to resign once per game

    def mat_record(self) -> MatchRecord:
        """The session so far as a .mat record (engine/formats/matfile.py): the person is player 0, the bot
        player 1; a game cut short is left unfinished."""
        games = list(self.records or [])
        if self.trail and not self.trail[-1].is_over:
            games.append(game_record(self.trail))
        return MatchRecord(player_names("human", self.bot.name), self.match.length, tuple(games))

    # -- the session ------------------------------------------------------------------------------

    def run(self) -> int:
        say = self.console.say
        games = self.match.rules.session_games
        kind = (f"a {self.match.length}-point match" if self.match.length else "money play"
                if self.match.rules.game == "backgammon" else "one game" if games == 1 else f"{games} games")
        say(f"{self.match.rules.game}, {kind}: you (X) against the bot {self.bot.name} (O). "
            "Type help for commands.")
        try:
            while not self.match.is_over:
                self.play_game()
                if not self.match.is_over:
                    say(f"score: you {self.match.score[HUMAN]}, bot {self.match.score[BOT]}")
        except EndOfInput as why:
            you, them = self.match.score
            say(f"{why}: the session ends here; score: you {you}, bot {them}")
            return 0
        you, them = self.match.score
        winner = "you win" if you > them else "the bot wins" if them > you else "a tie"
        say(f"{'match' if self.match.length else 'session'} over: you {you}, bot {them}: {winner}")
        return 0

    def opening(self) -> tuple[tuple[int, int], ...]:
        """The opening throws; with --you-first a throw the bot won is swapped so the person starts."""
        throws = list(g.throw_opening(self.rng))
        if self.you_first and throws[-1][HUMAN] < throws[-1][BOT]:
            throws[-1] = throws[-1][::-1]
        return tuple(throws)

    def play_game(self) -> None:
        say = self.console.say
        self.bot_offered = False
        if self.match.is_crawford:
            say("this is the Crawford game: no doubling")
        self.state = g.start_game(self.match, throws=self.opening())
        self.trail = [self.state]
        a, b = self.state.opening[-1]
        starts = "you start" if self.state.mover == HUMAN else "the bot starts"
        say(f"opening throw: you {a}, bot {b}: {starts}")
        while not self.state.is_over:
            if self.state.to_act == HUMAN:
                self.person_acts()
            else:
                self.bot_acts()
            if self.records is not None:  # one action a turn (a resignation's offer and answer leave none)
                self.trail.append(self.state)
        result = self.state.result
        self.show()
        who = "you win" if result.winner == HUMAN else "the bot wins"
        say(f"{who} {LEVEL_NAMES[result.game][result.level]} ({result.how}): {result.points} point"
            f"{'s' * (result.points != 1)}")
        self.match = g.finish_game(self.match, self.state)
        if self.records is not None:
            self.records.append(game_record(self.trail))

    # -- the bot ----------------------------------------------------------------------------------

    def bot_acts(self) -> None:
        self.state, said, self.bot_offered = bot_acts(self.policy, self.state, self.rng, self.bot_offered)
        if said:
            self.console.say(said)

    # -- the person -------------------------------------------------------------------------------

    def show(self) -> None:
        """Draw the board from the person's side."""
        state = self.state
        rules, match = state.rules, state.match
        cube = None
        if rules.has_cube:
            cube = (state.cube, None if state.cube_owner is None else 0 if state.cube_owner == HUMAN else 1)
        score = (match.score[HUMAN], match.score[BOT], match.length)
        money = {"jacoby": rules.jacoby, "beavers": rules.beavers} if rules.has_cube and rules.money else {}
        on_roll = None if state.is_over else 0 if state.mover == HUMAN else 1
        dice = state.dice if state.phase is g.Phase.MOVE else None
        self.console.say(ascii_board(state.game, g.view(state, HUMAN), mover_name="you",
                                     opponent_name=f"bot ({self.bot.name})", dice=dice, cube=cube,
                                     score=score, on_roll=on_roll, crawford=match.is_crawford, **money))

    def person_acts(self) -> None:
        """One decision of the person: asked until an answer the rules accept."""
        state = self.state
        if state.phase is g.Phase.ROLL and state.resignation is None and not g.may_double(state):
            self.state = g.roll(state, self.rng)  # nothing to decide before the roll
            return
        if state.phase is g.Phase.MOVE and len(state.plays) == 1:
            move = format_play(state.game, state.position, state.plays[0], state.dice) or NO_PLAY
            a, b = state.dice
            what = "no legal play" if move == NO_PLAY else "forced play " + move
            self.console.say(f"you roll {a}-{b}: {what}")
            self.state = g.play(state, state.plays[0])
            return
        self.show()
        prompt, auto = self.prompt()
        while True:
            answer = self.console.ask(prompt, auto)
            try:
                if self.handle(answer):
                    return
            except ValueError as why:  # RuleError, IllegalPlayError, FormatError: the reason
                self.console.say(f"  {why}")

    def prompt(self) -> tuple[str, str]:
        """The prompt for the person's decision now, and what the autoplayer types."""
        state = self.state
        if state.resignation is not None:
            _, level = state.resignation
            return f"the bot offers to resign {LEVEL_NAMES[state.game][level]}: accept or reject? ", "reject"
        if state.phase is g.Phase.TAKE:
            beaver = ", beaver" if g.beaver_refusal(state) is None else ""
            return f"the bot doubles to {state.cube * 2}: take, drop{beaver}? ", "take"
        if state.phase is g.Phase.ROLL:
            return "roll or double? ", "roll"
        a, b = state.dice
        first = format_play(state.game, state.position, state.plays[0], state.dice)
        return f"your move ({a}-{b}): ", first

    def handle(self, text: str) -> bool:
        """Carry out one line of the person's; True when it settled the decision asked for.

        Refusals raise ValueError (RuleError, IllegalPlayError, FormatError) with the reason; an
        action the rules do not allow now is refused by engine.game with its own reason."""
        state, say = self.state, self.console.say
        words = text.lower().split()
        word = words[0] if words else ""
        if word in ("q", "quit", "exit"):
            raise EndOfInput("you quit")
        if word in ("?", "help"):
            say(HELP[state.game])
            return False
        if word == "board":
            self.show()
            return False
        if word in ("h", "hint"):
            self.hint()
            return False
        if word == "resign":
            return self.resign(words[1:])
        if word in ACTIONS or (word == "" and state.phase is g.Phase.ROLL and state.resignation is None):
            return self.act(ACTIONS.get(word, "roll"))
        if state.resignation is not None:
            raise FormatError(f"{text!r}: the bot offers to resign: type accept or reject")
        if state.phase is g.Phase.TAKE:
            raise FormatError(f"{text!r}: the bot doubled: type take, drop or beaver (or hint)")
        if state.phase is g.Phase.ROLL:
            raise FormatError(f"{text!r}: type roll or double (or help)")
        if not words:
            example = format_play(state.game, state.position, state.plays[0], state.dice)
            raise FormatError(f"type your move for {state.dice[0]}-{state.dice[1]}, e.g. {example}")
        child = parse_play(state.game, state.position, state.dice, text)
        self.state = g.play(state, child, HUMAN)
        return True

    def act(self, action: str) -> bool:
        """One of ACTIONS' transitions for the person; engine.game refuses it with the reason."""
        state = self.state
        if action == "roll":
            self.state = g.roll(state, self.rng, side=HUMAN)
            return True
        transition = {"double": g.double, "take": g.take, "drop": g.drop, "beaver": g.beaver,
                      "accept": g.accept_resignation, "reject": g.reject_resignation}[action]
        self.state = transition(state, HUMAN)
        if action == "double":
            self.console.say(f"you double to {state.cube * 2}")
        elif action in ("take", "drop", "beaver"):
            self.console.say(f"you {action}")
        return True

    def resign(self, args: list[str]) -> bool:
        """The person offers to resign (default a single game); the bot answers at once."""
        words = LEVEL_WORDS[self.state.game]
        level = words.get(args[0]) if args else 1
        if level is None:
            say = "win or mars (long nardi has no gammon)" if self.state.game == "nardi" else (
                "single, gammon or backgammon")
            raise FormatError(f"resign {args[0]}: say resign {say}")
        self.state = g.offer_resignation(self.state, HUMAN, level)
        self.bot_acts()
        return self.state.is_over

    def hint(self) -> None:
        """The bot's view of the person's decision: its top plays, or its cube or take advice."""
        state, say = self.state, self.console.say
        if state.phase is g.Phase.MOVE:
            ranked = self.bot.rank(state.position, state.dice)
            if "equity" not in ranked[0]:  # a baseline picks a play but does not rank them
                say(f"  the bot ({self.bot.name}) would play {ranked[0]['move'] or NO_PLAY}")
                return
            for k, play in enumerate(ranked[:HINT_PLAYS], 1):
                say(f"  {k}. {play['move'] or NO_PLAY:<24} equity {play['equity']:+.3f}  "
                    f"loss {play['loss']:.3f}  win {play['probs']['win']:.1%}")
        elif state.phase is g.Phase.TAKE:
            say(f"  the bot would {take_advice(self.policy, state, HUMAN)}")
        elif state.phase is g.Phase.ROLL:
            decision = cube_advice(self.policy, state, HUMAN)
            if decision is None:
                say("  this bot gives no cube advice: roll")
            else:
                say(f"  {decision.labels[0]} (no double {decision.no_double[0]:+.3f}, double/take "
                    f"{decision.double_take[0]:+.3f}, double/pass {decision.double_pass[0]:+.3f})")


# ----------------------------------------------------------------------------------------------
# the command line


def build_parser(prog: str = "python evaluate.py play") -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Play the bot in the terminal (see model/cli/play.py).")
    parser.add_argument("--game", choices=GAMES, default="backgammon", help="the game (default backgammon)")
    parser.add_argument("--match", type=int, default=0, metavar="N",
                        help="match to N points (0 = money play)")
    parser.add_argument("--games", type=int, default=None, metavar="N",
                        help="money play: games in the session (default 1)")
    parser.add_argument("--bot", default=None, metavar="PATH|NAME",
                        help="a checkpoint or a baseline name (default: the shipped network)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the dice")
    parser.add_argument("--cube", action=argparse.BooleanOptionalAction, default=True,
                        help="play with the doubling cube (backgammon)")
    parser.add_argument("--you-first", action="store_true", help="you make the first play")
    parser.add_argument("--autoplay-human", action="store_true",
                        help="debug: play the first legal play for you, roll, take, reject")
    parser.add_argument("--mat", default=None, metavar="FILE",
                        help="backgammon: save the session (also one cut short) as Jellyfish .mat for gnubg's "
                             "'import mat FILE'")
    return parser


def _rules(args) -> g.Rules:
    """The rules of the session; RuleError when the flags do not go together."""
    if args.games is not None and args.match:
        raise g.RuleError("--games is for money play (--match 0)")
    if args.seed is not None and args.seed < 0:
        raise g.RuleError(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.games is not None and args.games < 1:
        raise g.RuleError(f"--games must be at least 1, got {args.games}")
    if args.mat and args.game != "backgammon":
        raise g.RuleError(f"--mat: .mat files hold backgammon only; {args.game} games cannot be saved in one")
    if args.mat and not Path(args.mat).absolute().parent.is_dir():
        raise g.RuleError(f"--mat: cannot write {args.mat}: no such folder")
    games = (args.games or 1) if not args.match else 0
    return g.Rules(game=args.game, match_length=args.match, cube=args.cube, session_games=games)


def main(argv=None, stdin=None, stdout=None) -> int:
    """Run the terminal game; returns the exit status (0 done, 2 bad flags or bot)."""
    args = build_parser().parse_args(argv)
    if stdin is None and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # stray bytes become a bad move, not a traceback
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        rules = _rules(args)
    except g.RuleError as why:
        print(f"play: error: {why}", file=sys.stderr)
        return 2
    try:
        from model.bot import Bot

        bot = Bot.load(args.bot, game=args.game)
    except (ValueError, OSError, ImportError) as why:
        reason = str(why).splitlines()[0] if str(why) else repr(why)
        print(f"play: error: cannot load the bot: {reason} (--bot takes a checkpoint or a baseline name "
              "such as heuristic)", file=sys.stderr)
        return 2
    if bot.game != args.game:
        print(f"play: error: the bot plays {bot.game}, not {args.game}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    table = Table(bot, rules, rng, Console(stdin, stdout, args.autoplay_human), args.you_first,
                  record=bool(args.mat))
    try:
        status = table.run()
    except KeyboardInterrupt:
        print("\ninterrupted", file=stdout)
        status = 0
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    if args.mat:
        try:
            write_mat(table.mat_record(), args.mat)
        except OSError as why:
            print(f"play: error: --mat: cannot write {args.mat}: {why.strerror}", file=sys.stderr)
            return 2
        if status == 0:
            print(f"games saved as .mat: {args.mat}", file=stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
