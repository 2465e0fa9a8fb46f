"""The hint the terminal game (nardibot/cli/cmd_play.py) gives the person.

The bot's own decisions are model/service/game_turn.py's (``bot_acts`` and the decisions under it:
CubePolicy at 0-ply, the policy of hint, serve and the cube arena, at the game's cube, score and money
options). ``hint_table`` is ``nardibot hint``'s table (model/service/hint.py's ``hint``, drawn by
nardibot/cli/cmd_hint.py's ``render``) for the position and state the person faces, so the two
always agree.
"""

from __future__ import annotations

import numpy as np

from engine import game as g
from engine.formats.match_id import MatchInfo
from model.service.hint import HintSettings, hint
from model.service.query import Query
from nardibot.cli.cmd_hint import render

HINT_TOP = HintSettings.top
"""Plays the hint table lists (``nardibot hint``'s default ``--top``)."""


def hint_table(bot, state: g.GameState) -> str:
    """``nardibot hint``'s table (no board) for the decision the person faces: the ranked plays of
    the dice thrown, or the cube decision before the roll or of a waiting double. Its header gives the
    Position ID and Match ID, so ``nardibot hint ID:MatchID`` shows the same."""
    info = MatchInfo.of_state(state) if state.game == "backgammon" else None
    dice = np.array(state.dice, dtype=np.int64) if state.phase is g.Phase.MOVE else None
    answer = hint(bot, Query(state.game, np.asarray(state.position), info, dice), HintSettings())
    return render(answer, HINT_TOP, board=False)
