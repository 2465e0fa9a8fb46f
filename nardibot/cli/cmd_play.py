"""``nardibot play``: a person plays the bot in the terminal, backgammon or long nardi.

    nardibot play [--game backgammon|nardi] [--match N] [--games N] [--bot PATH|name]
                            [--no-jacoby] [--no-beavers] [--automatic-doubles N] [--seed S] [--cube/--no-cube]
                            [--you-first] [--autoplay-human] [--mat FILE]

The board is drawn before each of the person's decisions (engine/formats/pictures.py's ``ascii_board``,
the person at the bottom as X): both sides' pips, the score and the cube are always on it, and under
it the match or money state with the money options in force. Dice are shown high die first. Colour
where the terminal shows it (nardibot/cli/terminal.py: none under ``NO_COLOR`` or off a terminal).

Moves are typed in the notation of docs/FORMATS.md (``13/7 8/7``, ``bar/22``, ``6/off``, ``8/5(2)``;
engine.notation.parse_play); a move the rules refuse is answered with the reason and asked again. A
legal move is drawn on the board first and waits: Enter (or ``roll``) makes it final, ``undo`` takes
it back. Commands, at any prompt: ``roll``, ``double``, ``take``, ``drop`` (``pass``), ``beaver``,
``accept``/``reject`` (a resignation offer), ``resign [single|gammon|backgammon]`` (long nardi:
``win|mars``; it says the points the bot would score, the level capped at what the person can still
lose, and asks yes/no), ``hint`` (``nardibot hint``'s table for the position and roll, or its cube
decision), ``board``, ``help``, ``quit``. A refused double names the reason (no cube in this game,
the Crawford game, the bot's cube, a dead cube, the 64 limit, the dice already thrown). Long nardi is
told in its own words: no bar, no cube, a mars for a gammon.

Money options (backgammon, money play with the cube; RULES-DECISIONS.md): the Jacoby rule (gammons and
backgammons count single while the cube is centred) and beavers (a doubled side may redouble at once
and keep the cube) are on unless ``--no-jacoby``, ``--no-beavers`` (gnubg's defaults, the ones hint and
rollout assume: model/service/query.py's ``MONEY_JACOBY``, ``MONEY_BEAVERS``); ``--automatic-doubles
N`` (each tie of the opening throw doubles the cube, which stays centred, at most N times, never past
64). The bot decides with them (model/service/game_turn.py).

The game itself runs through engine.game (turns, cube, resignations, match score and the Crawford
game); input is read line by line from stdin, so a script can drive it, and the end of the input ends
the session with a message. ``--autoplay-human`` (a debug aid) types for the person: the first legal
play, Enter, roll, take, reject. ``--mat FILE`` (backgammon) saves the session when it ends (also by
``quit`` or the end of the input, the game in play then left unfinished) as a Jellyfish .mat file for
gnubg's ``import mat FILE``, with the money options and each game's starting cube in comment lines
(engine/formats/matfile.py): the person is "human" (left column), the bot its checkpoint stem or
baseline name. A FILE whose name ends in .sgf is written as gnubg's own match file instead
(engine/formats/sgf.py, for gnubg's ``load match``).

Exit status: 0 when the session ends (match over, ``quit`` or end of input), 2 for bad flags or a
bot that cannot be loaded (one line on stderr), 1 when the output's reader goes away.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from engine import game as g
from engine.board import GAMES
from engine.cube_state import CubeOwner
from engine.errors import FormatError
from engine.formats.matchfiles import write_match, written_format
from engine.formats.matfile import MatchRecord, game_record, player_names, rules_options
from engine.formats.pictures import ascii_board, money_options_text
from engine.notation import NO_PLAY, format_play, parse_play
from model.bot import Bot
from model.players.cube_policy import CubePolicy
from model.service.game_turn import (
    BOT,
    HUMAN,
    LEVEL_NAMES,
    accepts,
    bot_acts,
    dice_text,
    offer_value,
    points_text,
)
from model.service.query import money_rules
from nardibot.cli.common import PROG, OneLineParser, UsageError, add_money_options, check_writable
from nardibot.cli.play_hint import hint_table
from nardibot.cli.terminal import (
    ACTIONS,
    CONFIRM,
    HELP,
    LEVEL_WORDS,
    NAMES,
    UNDO,
    YES,
    Console,
    EndOfInput,
    wants_colour,
)


class Table:
    """One session: the match (or money games) between the person (player 0) and the bot (player 1)."""

    def __init__(self, bot, rules: g.Rules, rng: np.random.Generator, console: Console, you_first: bool,
                 record: bool = False):
        self.bot = bot
        self.policy = CubePolicy.for_bot(bot)  # every decision of the bot (model/players/cube_policy.py)
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
        player 1; a game cut short is left unfinished; the money options in its comments."""
        games = list(self.records or [])
        if self.trail and not self.trail[-1].is_over:
            games.append(game_record(self.trail))
        return MatchRecord(player_names("human", self.bot.name), self.match.length, tuple(games),
                           **rules_options(self.match.rules))

    def money_options(self) -> str:
        """The money options in words ('' where there are none: a match, long nardi, no cube)."""
        rules = self.match.rules
        if not (rules.money and rules.has_cube):
            return ""
        return money_options_text(rules.jacoby, rules.beavers, rules.automatic_doubles)

    # -- the session ------------------------------------------------------------------------------

    def run(self) -> int:
        say = self.console.say
        games = self.match.rules.session_games
        kind = (f"a {self.match.length}-point match" if self.match.length else "money play"
                if self.match.rules.game == "backgammon" else "one game" if games == 1 else f"{games} games")
        options = f" ({self.money_options()})" if self.money_options() else ""
        say(f"{self.match.rules.game}, {kind}{options}: you (X) against the bot {self.bot.name} (O). "
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
        for a, b in self.state.opening[:-1]:
            say(f"opening throw: you {a}, bot {b}: a tie, thrown again")
        if self.state.cube > 1:
            say(f"automatic doubles: the cube starts at {self.state.cube}, in the middle")
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
        jacoby = (" (counted single by the Jacoby rule, the cube never turned)"
                  if result.level > 1 and result.points == result.cube and result.game == "backgammon" else "")
        say(f"{who} {LEVEL_NAMES[result.game][result.level]} ({result.how}): {points_text(result.points)}{jacoby}")
        self.match = g.finish_game(self.match, self.state)
        if self.records is not None:
            self.records.append(game_record(self.trail))

    # -- the bot ----------------------------------------------------------------------------------

    def bot_acts(self) -> None:
        self.state, said, self.bot_offered = bot_acts(self.policy, self.state, self.rng, self.bot_offered)
        if said:
            self.console.say(said)

    # -- the person -------------------------------------------------------------------------------

    def show(self, position=None, highlight=()) -> None:
        """Draw the board from the person's side (``position``: the person's play waiting to be confirmed)."""
        state = self.state
        rules, match = state.rules, state.match
        cube = None
        if rules.has_cube:
            cube = (state.cube, CubeOwner.seen_by(state.cube_owner, HUMAN))
        score = (match.score[HUMAN], match.score[BOT], match.length)
        money = {}
        if rules.has_cube and rules.money:
            money = {"jacoby": rules.jacoby, "beavers": rules.beavers, "automatic_doubles": rules.automatic_doubles}
        on_roll = None if state.is_over else 0 if state.mover == HUMAN else 1
        dice = state.dice if state.phase is g.Phase.MOVE else None
        shown = g.view(state, HUMAN) if position is None else position
        self.console.say(ascii_board(state.game, shown, mover_name="you", opponent_name=f"bot ({self.bot.name})",
                                     dice=dice, cube=cube, score=score, on_roll=on_roll,
                                     crawford=match.is_crawford, highlight=highlight,
                                     colour=self.console.colour, **money))

    def person_acts(self) -> None:
        """One decision of the person: asked until an answer the rules accept."""
        state = self.state
        if state.phase is g.Phase.ROLL and state.resignation is None and not g.may_double(state):
            self.state = g.roll(state, self.rng)  # nothing to decide before the roll
            return
        if state.phase is g.Phase.MOVE and len(state.plays) == 1:
            move = format_play(state.game, state.position, state.plays[0], state.dice) or NO_PLAY
            what = "no legal play" if move == NO_PLAY else "forced play " + move
            self.console.say(f"you roll {dice_text(state.dice)}: {what}")
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
            return (f"the bot offers to resign {LEVEL_NAMES[state.game][level]} ({offer_value(state, BOT, level)}): "
                    "accept or reject? "), "reject"
        if state.phase is g.Phase.TAKE:
            beaver = f", beaver (to {state.cube * 4})" if g.beaver_refusal(state) is None else ""
            return f"the bot doubles to {state.cube * 2}: take, drop{beaver}? ", "take"
        if state.phase is g.Phase.ROLL:
            return "roll or double? ", "roll"
        first = format_play(state.game, state.position, state.plays[0], state.dice)
        return f"your move ({dice_text(state.dice)}): ", first

    def handle(self, text: str) -> bool:
        """Carry out one line of the person's; True when it settled the decision asked for.

        Refusals raise ValueError (RuleError, IllegalPlayError, FormatError) with the reason; an
        action the rules do not allow now is refused by engine.game with its own reason."""
        state = self.state
        words = text.lower().split()
        word = words[0] if words else ""
        if self.common_command(word):
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
        if word in UNDO:
            raise FormatError("nothing to take back: type your move (it waits for Enter before it is final)")
        if not words:
            example = format_play(state.game, state.position, state.plays[0], state.dice)
            raise FormatError(f"type your move for {dice_text(state.dice)}, e.g. {example}")
        child = parse_play(state.game, state.position, state.dice, text)
        return self.confirm(child)

    def common_command(self, word: str) -> bool:
        """quit, help, board and hint, open at every prompt; True when ``word`` was one of them."""
        if word in ("q", "quit", "exit"):
            raise EndOfInput("you quit")
        if word in ("?", "help"):
            self.console.say(HELP[self.state.game])
        elif word == "board":
            self.show()
        elif word in ("h", "hint"):
            self.hint()
        else:
            return False
        return True

    def confirm(self, child: np.ndarray) -> bool:
        """The person's legal play ``child``, drawn on the board before it is final: Enter (or roll)
        plays it, undo takes it back (False: the move is asked again)."""
        state, say = self.state, self.console.say
        move = format_play(state.game, state.position, child, state.dice) or NO_PLAY
        landed = [p + 1 for p in np.flatnonzero(np.asarray(child[:24]) > np.asarray(state.position[:24]))]
        self.show(child, landed)
        prompt = f"you play {move}: Enter to confirm, undo to move again: "
        while True:
            word = self.console.ask(prompt, "").lower().strip()
            if word in CONFIRM:
                self.state = g.play(state, child, HUMAN)
                return True
            if word in UNDO:
                say(f"  {move} taken back")
                self.show()
                return False
            if self.common_command(word):
                continue
            say(f"  {word!r}: press Enter to play {move}, or type undo to move again")

    def act(self, action: str) -> bool:
        """One of ACTIONS' transitions for the person; engine.game refuses it with the reason."""
        state = self.state
        if action == "roll":
            self.state = g.roll(state, self.rng, side=HUMAN)
            return True
        if action == "double" and state.resignation is None:
            reason = g.double_refusal(state, NAMES) if state.mover == HUMAN else (
                "it is the bot's turn: you may double before your own roll")
            if reason:
                raise g.RuleError(f"no double: {reason}")
        transition = {"double": g.double, "take": g.take, "drop": g.drop, "beaver": g.beaver,
                      "accept": g.accept_resignation, "reject": g.reject_resignation}[action]
        self.state = transition(state, HUMAN)
        if action == "double":
            self.console.say(f"you double to {state.cube * 2}")
        elif action == "beaver":
            self.console.say(f"you beaver: you take and redouble to {state.cube * 4}, keeping the cube")
        elif action in ("take", "drop"):
            self.console.say(f"you {action}")
        return True

    def resign(self, args: list[str]) -> bool:
        """The person offers to resign (default a single game), capped at what the person can still
        lose; told the points it gives away, the person confirms (yes) or not; the bot answers at once."""
        state, say = self.state, self.console.say
        words = LEVEL_WORDS[state.game]
        level = words.get(args[0]) if args else 1
        if level is None:
            say_what = "win or mars (long nardi has no gammon)" if state.game == "nardi" else (
                "single, gammon or backgammon")
            raise FormatError(f"resign {args[0]}: say resign {say_what}")
        most = g.max_resignation(state, HUMAN)
        if level > most and g.resignation_refusal(state, HUMAN, most) is None:
            say(f"  you can no longer lose {LEVEL_NAMES[state.game][level]}: the most you can offer is "
                f"{LEVEL_NAMES[state.game][most]}")
            level = most
        reason = g.resignation_refusal(state, HUMAN, level)
        if reason:
            raise g.RuleError(f"no resignation: {reason}")
        question = f"resign {LEVEL_NAMES[state.game][level]}: {offer_value(state, HUMAN, level)}. Offer it? (yes/no) "
        if self.console.ask(question, "no").lower().strip() not in YES:
            say("  not resigned: play on")
            return False
        self.state = g.offer_resignation(state, HUMAN, level)
        self.bot_acts()
        return self.state.is_over

    def hint(self) -> None:
        """``nardibot hint``'s table for the person's decision (nardibot/cli/play_hint.py); a waiting
        resignation gets accept or reject; a baseline bot names only its own choice."""
        state, say = self.state, self.console.say
        if state.resignation is not None:
            say(f"  the bot would {'accept' if accepts(self.policy, state, HUMAN) else 'reject'}")
        elif not self.policy.has_probabilities:
            if state.phase is g.Phase.MOVE:
                say(f"  the bot ({self.bot.name}) would play {self.bot.rank(state.position, state.dice)[0]['move'] or NO_PLAY}")
            else:
                say(f"  the bot ({self.bot.name}) gives no cube advice (it never doubles and always takes)")
        else:
            say(hint_table(self.bot, state))


# ----------------------------------------------------------------------------------------------
# the command line


def build_parser(prog: str = "nardibot play") -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Play the bot in the terminal (see nardibot/cli/cmd_play.py).")
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
    add_money_options(parser, unstated=None)  # unstated: the money game's default, Jacoby and beavers on
    parser.add_argument("--you-first", action="store_true", help="you make the first play")
    parser.add_argument("--autoplay-human", action="store_true",
                        help="debug: play the first legal play for you (and confirm it), roll, take, reject")
    parser.add_argument("--mat", default=None, metavar="FILE",
                        help="backgammon: save the session (also one cut short) as Jellyfish .mat for gnubg's "
                             "'import mat FILE', or as gnubg's .sgf ('load match FILE') if FILE ends in .sgf")
    return parser


def _rules(args) -> g.Rules:
    """The rules of the session; RuleError when the flags do not go together, UsageError for a --mat
    that could not be written."""
    if args.games is not None and args.match:
        raise g.RuleError("--games is for money play (--match 0)")
    if args.seed is not None and args.seed < 0:
        raise g.RuleError(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.games is not None and args.games < 1:
        raise g.RuleError(f"--games must be at least 1, got {args.games}")
    if args.mat and args.game != "backgammon":
        raise g.RuleError(f"--mat: .mat files hold backgammon only; {args.game} games cannot be saved in one")
    check_writable("--mat", args.mat)  # before the session, as every command checks its outputs
    games = (args.games or 1) if not args.match else 0
    money = money_rules(args.game, args.match, args.cube, args.jacoby, args.beavers)
    return g.Rules(game=args.game, match_length=args.match, cube=args.cube, session_games=games,
                   automatic_doubles=args.automatic_doubles, **money)


def main(argv=None, stdin=None, stdout=None) -> int:
    """Run the terminal game; returns the exit status (0 done, 2 bad flags or bot)."""
    args = build_parser().parse_args(argv)
    if stdin is None and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # stray bytes become a bad move, not a traceback
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    try:
        rules = _rules(args)
    except (g.RuleError, UsageError) as why:
        print(f"{PROG} play: error: {why}", file=sys.stderr)
        return 2
    try:
        bot = Bot.load(args.bot, game=args.game)
    except (ValueError, OSError, ImportError) as why:
        reason = str(why).splitlines()[0] if str(why) else repr(why)
        print(f"{PROG} play: error: cannot load the bot: {reason} (--bot takes a checkpoint or a baseline name "
              "such as heuristic)", file=sys.stderr)
        return 2
    if bot.game != args.game:
        print(f"{PROG} play: error: the bot plays {bot.game}, not {args.game}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    console = Console(stdin, stdout, args.autoplay_human, colour=wants_colour(stdout))
    table = Table(bot, rules, rng, console, args.you_first,
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
            write_match(table.mat_record(), args.mat)
        except OSError as why:
            print(f"{PROG} play: error: --mat: cannot write {args.mat}: {why.strerror}", file=sys.stderr)
            return 2
        if status == 0:
            print(f"games saved as {written_format(args.mat)}: {args.mat}", file=stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
